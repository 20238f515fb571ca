"""`framework.optim.lr_scheduler` against PyTorch's learning-rate sequences (recorded, and live
when PyTorch is installed), its warnings and its state_dict."""

from __future__ import annotations

import re
import warnings

import pytest
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
import framework.nn as nn
import framework.optim as optim
from framework.optim import lr_scheduler

SCHEDULER_IDS = [f"{name}-{kwargs}" for name, kwargs in recorder.SCHEDULER_CASES]


@pytest.mark.parametrize("index", range(len(recorder.SCHEDULER_CASES)), ids=SCHEDULER_IDS)
def test_learning_rates_match_the_recording(index: int) -> None:
    name, kwargs = recorder.SCHEDULER_CASES[index]
    assert recorder.run_scheduler(framework, name, kwargs) == FIXTURES["schedulers"][index]


@pytest.mark.parametrize("index", range(len(recorder.PLATEAU_CASES)))
def test_plateau_matches_the_recording(index: int) -> None:
    assert recorder.run_plateau(framework, recorder.PLATEAU_CASES[index]) == FIXTURES["plateau"][index]


@needs_torch
@pytest.mark.parametrize("index", range(len(recorder.SCHEDULER_CASES)), ids=SCHEDULER_IDS)
def test_recording_is_torchs(index: int) -> None:
    name, kwargs = recorder.SCHEDULER_CASES[index]
    assert recorder.run_scheduler(torch, name, kwargs) == FIXTURES["schedulers"][index]


def _optimizer(lr: float = 0.1) -> optim.SGD:
    return optim.SGD([nn.Parameter(framework.zeros(2))], lr=lr)


def test_initial_lr_and_resuming() -> None:
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    assert opt.param_groups[0]["initial_lr"] == 0.1 and sched.base_lrs == [0.1]
    assert sched.last_epoch == 0 and sched.get_last_lr() == [0.1]
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(_optimizer(), step_size=2, last_epoch=3)
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        lr_scheduler.StepLR(3, step_size=2)  # type: ignore[arg-type]


def test_closed_form_with_an_epoch() -> None:
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(5)
    assert sched.get_last_lr() == [0.1 * 0.5**2]


def test_warnings_about_call_order() -> None:
    opt = _optimizer()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(
        UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"
    ):
        sched.step()
    opt = _optimizer()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_state_dict_round_trip() -> None:
    opt = _optimizer()
    sched = lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
    for _ in range(2):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 2 and state["_step_count"] == 3
    other_opt = _optimizer()
    other = lr_scheduler.MultiStepLR(other_opt, milestones=[5], gamma=0.5)
    other.load_state_dict(state)
    assert (
        other.milestones == sched.milestones
        and other.last_epoch == 2
        and other.get_last_lr() == sched.get_last_lr()
    )


def test_lambda_state_dict_keeps_callable_objects_state() -> None:
    class Rate:
        def __init__(self) -> None:
            self.factor = 0.5

        def __call__(self, epoch: int) -> float:
            return self.factor**epoch

    opt = _optimizer()
    rate = Rate()
    sched = lr_scheduler.LambdaLR(opt, [rate])
    rate.factor = 0.25
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"factor": 0.25}]
    fresh = Rate()
    lr_scheduler.LambdaLR(_optimizer(), fresh).load_state_dict(state)
    assert fresh.factor == 0.25
    assert lr_scheduler.LambdaLR(_optimizer(), lambda e: 1.0).state_dict()["lr_lambdas"] == [None]


@needs_torch
def test_state_dict_keys_are_torchs() -> None:
    ours = lr_scheduler.CosineAnnealingLR(_optimizer(), T_max=3)
    theirs = torch.optim.lr_scheduler.CosineAnnealingLR(
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), T_max=3
    )
    assert ours.state_dict() == theirs.state_dict()


def test_plateau_errors() -> None:
    with pytest.raises(ValueError, match=re.escape("Factor should be < 1.0.")):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), mode="avg")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), min_lr=[0.1, 0.2])
