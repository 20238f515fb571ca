"""What the tests of the optimizers and schedulers added after the first ones share: the recorder
module `data/record_optim_fixtures.py` (`optim_recorder`) and the cases it recorded (`OPTIM_FIXTURES`)."""

from __future__ import annotations

import json
from typing import Any

from oracle_fixtures import load_recorder

__all__ = ["OPTIM_FIXTURES", "optim_recorder"]

optim_recorder: Any = load_recorder("record_optim_fixtures")
OPTIM_FIXTURES: dict[str, Any] = json.loads(optim_recorder.FIXTURE_PATH.read_text())
