"""What the oracle-checked tests of `framework.nn`, `framework.optim` and `framework.utils.data`
share: PyTorch when it is installed (`torch`, None otherwise, and the `needs_torch` mark), the
recorder module `data/record_nn_fixtures.py` and the cases it recorded (`FIXTURES`)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

__all__ = ["FIXTURES", "load_recorder", "needs_torch", "recorder", "torch"]

torch: Any
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")


def load_recorder(name: str) -> ModuleType:
    """The recorder module `data/<name>.py`, loaded by path (the data folder is not a package)."""
    path = Path(__file__).parent / "data" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


recorder: Any = load_recorder("record_nn_fixtures")
FIXTURES: dict[str, Any] = json.loads(recorder.FIXTURE_PATH.read_text())
