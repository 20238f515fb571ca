"""What the tests of the optimizers and schedulers share: the recorder module
`data/record_optim_fixtures.py` (`optim_recorder`) and the cases it recorded (`OPTIM_FIXTURES`), and
the checks of an optimizer run (a case of `recorder.run_optimizer`: name, kwargs, mode) against
its recording and against PyTorch live."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import numpy.typing as npt
from oracle_fixtures import load_recorder, recorder, torch

import framework

__all__ = [
    "OPTIM_FIXTURES",
    "OptimRun",
    "assert_close_relative",
    "check_run_against_recording",
    "check_run_against_torch",
    "optim_recorder",
    "run_id",
]

optim_recorder: Any = load_recorder("record_optim_fixtures")
OPTIM_FIXTURES: dict[str, Any] = json.loads(optim_recorder.FIXTURE_PATH.read_text())

OptimRun = tuple[str, dict[str, Any], str]
RTOL = 1e-6


def run_id(run: OptimRun) -> str:
    """A test id for an optimizer run: name, mode and the keyword arguments."""
    name, kwargs, mode = run
    return f"{name}-{mode}-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


def assert_close_relative(actual: npt.NDArray[Any], expected: npt.NDArray[Any]) -> None:
    """Equal within RTOL of the largest magnitude (float32 last-bit differences of single ops
    may accumulate over the steps)."""
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * float(np.max(np.abs(expected))))


def check_run_against_recording(run: OptimRun, recorded: dict[str, Any]) -> None:
    """Ten steps of `run` in framework give the parameters PyTorch gave when recorded."""
    name, kwargs, mode = run
    assert (recorded["name"], recorded["mode"]) == (name, mode)
    ours = recorder.run_optimizer(framework, name, kwargs, mode)
    for actual, expected in zip(ours, recorded["params"], strict=True):
        assert_close_relative(actual, recorder.decode(expected))


def check_run_against_torch(run: OptimRun) -> None:
    """Ten steps of `run` give the same parameters in framework and in PyTorch (live)."""
    name, kwargs, mode = run
    ours = recorder.run_optimizer(framework, name, kwargs, mode)
    theirs = recorder.run_optimizer(torch, name, kwargs, mode)
    for actual, expected in zip(ours, theirs, strict=True):
        assert_close_relative(actual, expected)
