"""Helpers shared by the autograd tests that run on framework and, when it is installed, on
PyTorch as the oracle: the `backends()` parametrization, exact error patterns, float64 leaves and
constants, graph edges by name, and PyTorch's messages that several test files expect.

Every test taking `m` (parametrized by `backends()`) runs on framework with hard-coded expectations
and, when PyTorch is installed, on torch too: the torch run checks the expectations against the
oracle live."""

from __future__ import annotations

import importlib
import importlib.util
import re
from types import ModuleType
from typing import Any

import pytest

import framework

HAS_TORCH = importlib.util.find_spec("torch") is not None
TORCH: ModuleType | None = importlib.import_module("torch") if HAS_TORCH else None
ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def backends(xfail: str | None = None) -> pytest.MarkDecorator:
    """Parametrize `m` over framework and, when it is installed, torch (whose run checks the
    expectations live); `xfail` marks the framework run as a known difference from PyTorch."""
    framework_marks = [] if xfail is None else [pytest.mark.xfail(strict=True, reason=xfail)]
    return pytest.mark.parametrize(
        "m",
        [
            pytest.param(framework, id="framework", marks=framework_marks),
            pytest.param(TORCH, id="torch", marks=pytest.mark.skipif(TORCH is None, reason="no PyTorch")),
        ],
    )


def exactly(message: str) -> str:
    """A `pytest.raises(match=...)` pattern that accepts exactly `message`."""
    return rf"^{re.escape(message)}\Z"


def leaf(m: ModuleType, values: object) -> Any:
    """A float64 leaf that requires grad."""
    return m.tensor(values, dtype=m.float64, requires_grad=True)


def const(m: ModuleType, values: object) -> Any:
    """A float64 tensor that does not require grad."""
    return m.tensor(values, dtype=m.float64)


def edges(node: Any) -> list[tuple[str | None, int]]:
    """`node.next_functions` with each node replaced by its name."""
    return [(None if fn is None else fn.name(), nr) for fn, nr in node.next_functions]


def modified(which: str, size: str, version: int = 1) -> str:
    """PyTorch's message for a saved tensor modified in place (`which`: ", which is output 0 of
    Exp," or empty for a tensor without grad_fn)."""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.DoubleTensor [{size}]]{which} is at version {version}; expected version "
        f"{version - 1} instead. {HINT}"
    )


def assert_saved_modified(loss: Any, output_of: str | None, size: str = "2") -> None:
    """`loss.backward()` fails with `modified(...)`: a tensor saved for it, of shape `size`, was
    modified in place once; `output_of` names its grad_fn (Exp for ExpBackward0), None when it has
    none."""
    which = "" if output_of is None else f", which is output 0 of {output_of},"
    with pytest.raises(RuntimeError, match=exactly(modified(which, size))):
        loss.backward()
