"""Training parity with PyTorch: 50 steps of a small MLP and a small CNN (float32; SGD with
momentum and Adam) from the same initial weights on the same batches give the same loss at every
step, within 1e-4 relative: against PyTorch's recorded losses (``tests/data/training_fixtures.json``,
written by ``tests/data/record_training_fixtures.py``) and, when PyTorch is installed, live."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import framework

_RECORDER_PATH = Path(__file__).parent / "data" / "record_training_fixtures.py"
_spec = importlib.util.spec_from_file_location("record_training_fixtures", _RECORDER_PATH)
assert _spec is not None and _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
FIXTURES: dict[str, Any] = json.loads(recorder.FIXTURE_PATH.read_text())

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch not installed")

RTOL = 1e-4
RUN_IDS = [f"{model}-{optimizer}" for model, optimizer in recorder.RUNS]


def recorded_state(model: str) -> dict[str, Any]:
    return {key: recorder.decode(value) for key, value in FIXTURES["initial_state"][model].items()}


@functools.cache
def framework_losses(model: str, optimizer: str) -> tuple[float, ...]:
    """framework's losses for a run, from PyTorch's recorded initial weights (computed once)."""
    return tuple(recorder.run(framework, model, optimizer, recorded_state(model)))


def assert_losses_agree(actual: tuple[float, ...] | list[float], expected: list[float]) -> None:
    assert len(actual) == len(expected) == recorder.STEPS
    ours, theirs = np.array(actual), np.array(expected)
    relative = np.abs(ours - theirs) / np.abs(theirs)
    worst = int(relative.argmax())
    assert relative.max() <= RTOL, (
        f"step {worst}: framework loss {ours[worst]!r}, PyTorch {theirs[worst]!r} "
        f"(relative difference {relative[worst]:.3g} > {RTOL})"
    )


def test_the_fixture_matches_the_recorder() -> None:
    assert FIXTURES["steps"] == recorder.STEPS
    assert FIXTURES["batches_sha256"] == recorder.batches_sha256(), "the synthetic batches changed: re-record"
    assert [(r["model"], r["optimizer"]) for r in FIXTURES["runs"]] == recorder.RUNS


@pytest.mark.parametrize(("model", "optimizer"), recorder.RUNS, ids=RUN_IDS)
def test_losses_match_the_recording(model: str, optimizer: str) -> None:
    (recorded,) = [r for r in FIXTURES["runs"] if (r["model"], r["optimizer"]) == (model, optimizer)]
    losses = framework_losses(model, optimizer)
    assert_losses_agree(losses, recorded["losses"])
    assert losses[-1] < 0.2 * losses[0]  # the run trains: a weak parity check would not be a check


@needs_torch
@pytest.mark.parametrize(("model", "optimizer"), recorder.RUNS, ids=RUN_IDS)
def test_losses_match_pytorch_live(model: str, optimizer: str) -> None:
    import torch

    state = recorder.initial_state(torch, model)
    recorded = recorded_state(model)
    assert state.keys() == recorded.keys()
    for key, value in state.items():
        np.testing.assert_array_equal(value, recorded[key], err_msg=f"PyTorch's initial {key} changed")
    assert_losses_agree(framework_losses(model, optimizer), recorder.run(torch, model, optimizer, state))
