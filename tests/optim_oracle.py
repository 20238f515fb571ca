"""What the tests of the optimizers and schedulers added after the first ones share: the recorder
module `data/record_optim_fixtures.py` (`optim_recorder`) and the cases it recorded (`OPTIM_FIXTURES`)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

__all__ = ["OPTIM_FIXTURES", "optim_recorder"]


def _load() -> Any:
    path = Path(__file__).parent / "data" / "record_optim_fixtures.py"
    spec = importlib.util.spec_from_file_location("record_optim_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


optim_recorder: Any = _load()
OPTIM_FIXTURES: dict[str, Any] = json.loads(optim_recorder.FIXTURE_PATH.read_text())
