"""The schedulers ConstantLR, LinearLR, PolynomialLR, MultiplicativeLR, SequentialLR,
ChainedScheduler, CosineAnnealingWarmRestarts, OneCycleLR and CyclicLR against PyTorch: learning
rates and momenta (SGD's momentum, Adam's beta1) of two parameter groups over 36 epochs, equal to
the recording and to PyTorch live; state_dict round trips, closed forms and errors as PyTorch's."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from optim_oracle import OPTIM_FIXTURES, optim_recorder
from oracle_fixtures import needs_torch, torch

import framework
import framework.nn as nn
import framework.optim as optim
from framework.optim import lr_scheduler

CASES = optim_recorder.SCHEDULER_CASES
IDS = [f"{i}-{expr.split('(')[0]}" for i, (_, expr) in enumerate(CASES)]


@pytest.mark.parametrize("index", range(len(CASES)), ids=IDS)
def test_schedules_match_the_recording(index: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = optim_recorder.run_scheduler(framework, *CASES[index])
    assert values == OPTIM_FIXTURES["schedulers"][index]


@needs_torch
@pytest.mark.parametrize("index", range(len(CASES)), ids=IDS)
def test_recording_is_torchs(index: int) -> None:
    assert optim_recorder.run_scheduler(torch, *CASES[index]) == OPTIM_FIXTURES["schedulers"][index]


def _sgd(lib: Any = framework, lr: float = 0.1) -> Any:
    return lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=lr, momentum=0.9)


def _run(lib: Any, make: str, epochs: int, split: int) -> list[float]:
    """Learning rates of `epochs` steps, the scheduler saved after `split` steps and restored into a
    fresh optimizer/scheduler pair (with the optimizer's state_dict) for the rest."""
    opt = _sgd(lib)
    sched = eval(make, {"ls": lib.optim.lr_scheduler, "opt": opt})
    lrs = []
    for _ in range(split):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    saved, saved_opt = copy.deepcopy(sched.state_dict()), copy.deepcopy(opt.state_dict())
    opt = _sgd(lib)
    sched = eval(make, {"ls": lib.optim.lr_scheduler, "opt": opt})
    opt.load_state_dict(saved_opt)
    sched.load_state_dict(saved)
    for _ in range(epochs - split):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    return lrs


RESUMABLE = [
    "ls.ConstantLR(opt, factor=0.5, total_iters=4)",
    "ls.LinearLR(opt, start_factor=0.2, total_iters=6)",
    "ls.PolynomialLR(opt, total_iters=8, power=2.0)",
    "ls.MultiplicativeLR(opt, lambda e: 0.9)",
    "ls.SequentialLR(opt, [ls.ConstantLR(opt, factor=0.5, total_iters=2), ls.ExponentialLR(opt, 0.9)], [3])",
    "ls.ChainedScheduler([ls.LinearLR(opt, start_factor=0.5, total_iters=4), ls.ExponentialLR(opt, 0.9)])",
    "ls.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)",
    "ls.OneCycleLR(opt, max_lr=1.0, total_steps=12)",
    "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='exp_range', gamma=0.9)",
]


@pytest.mark.parametrize("make", RESUMABLE)
def test_state_dict_round_trip_continues_the_schedule(make: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resumed = _run(framework, make, 12, 5)
        straight = _run(framework, make, 12, 12)
        assert resumed == pytest.approx(straight, rel=1e-12)
        if torch is not None:
            assert resumed == pytest.approx(_run(torch, make, 12, 5), rel=1e-12)


def test_composition_state_dicts_nest_their_schedulers() -> None:
    opt = _sgd()
    inner = [lr_scheduler.ConstantLR(opt, factor=0.5), lr_scheduler.ExponentialLR(opt, gamma=0.9)]
    chained = lr_scheduler.ChainedScheduler(inner)
    state = chained.state_dict()
    assert [s["factor" if i == 0 else "gamma"] for i, s in enumerate(state["_schedulers"])] == [0.5, 0.9]
    assert "optimizer" not in state and "optimizer" not in state["_schedulers"][0]
    sequential = lr_scheduler.SequentialLR(opt, inner, milestones=[2])
    assert len(sequential.state_dict()["_schedulers"]) == 2


def test_cyclic_state_dict_keeps_callable_objects_attributes() -> None:
    class Halving:
        def __init__(self) -> None:
            self.base = 0.5

        def __call__(self, x: float) -> float:
            return float(self.base**x)

    fn = Halving()
    sched = lr_scheduler.CyclicLR(_sgd(), 0.01, 0.1, step_size_up=2, scale_fn=fn)
    fn.base = 0.25
    state = sched.state_dict()
    assert state["_scale_fn_custom"] == {"base": 0.25}
    other = Halving()
    lr_scheduler.CyclicLR(_sgd(), 0.01, 0.1, step_size_up=2, scale_fn=other).load_state_dict(state)
    assert other.base == 0.25
    plain = lr_scheduler.CyclicLR(_sgd(), 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1.0)
    assert plain.state_dict()["_scale_fn_custom"] is None


CLOSED_FORMS = [
    ("ls.ConstantLR(opt, factor=0.5, total_iters=4)", 3, 0.1 * 0.5),
    ("ls.LinearLR(opt, start_factor=0.25, total_iters=4)", 2, 0.1 * (0.25 + 0.75 * 2 / 4)),
    ("ls.PolynomialLR(opt, total_iters=4, power=2.0)", 3, 0.1 * (1 / 4) ** 2),
]


@pytest.mark.parametrize(("make", "epoch", "expected"), CLOSED_FORMS)
def test_closed_forms_with_an_epoch(make: str, epoch: int, expected: float) -> None:
    for lib in (framework, torch) if torch is not None else (framework,):
        opt = _sgd(lib)
        sched = eval(make, {"ls": lib.optim.lr_scheduler, "opt": opt})
        opt.step()
        with pytest.warns(UserWarning, match="The epoch parameter"):
            sched.step(epoch)
        assert sched.get_last_lr() == [pytest.approx(expected, rel=1e-15)]


def test_warm_restarts_with_fractional_epochs() -> None:
    opt = _sgd()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.0)
    lrs = []
    for epoch in [0.5, 1.0, 2.5, 6.0, 7.0]:
        sched.step(epoch)
        lrs.append(sched.get_last_lr()[0])
    # periods [0, 2), [2, 6), [6, 14): T_cur / T_i = 0.25, 0.5, 0.125, 0, 1/8
    expected = [
        0.05 * (1 + __import__("math").cos(__import__("math").pi * f)) for f in (0.25, 0.5, 0.125, 0, 0.125)
    ]
    assert lrs == pytest.approx(expected, rel=1e-12)
    assert sched.last_epoch == 7 and sched.T_i == 8
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


def test_one_cycle_past_total_steps() -> None:
    opt = _sgd()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    opt.step()
    with pytest.raises(
        ValueError, match=r"^Tried to step 4 times\. The specified number of total steps is 3$"
    ):
        sched.step()


def test_one_cycle_sets_group_keys() -> None:
    opt = optim.Adam([nn.Parameter(framework.zeros(1))], lr=0.1, betas=(0.9, 0.99))
    lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=10, div_factor=5.0, final_div_factor=10.0)
    group = opt.param_groups[0]
    assert group["initial_lr"] == 0.1 and group["max_lr"] == 0.5 and group["min_lr"] == pytest.approx(0.01)
    assert group["betas"] == (0.95, 0.99) and group["max_momentum"] == 0.95 and group["base_momentum"] == 0.85


ERRORS: list[tuple[str, type[Exception], str]] = [
    (
        "ls.ConstantLR(opt, factor=1.5)",
        ValueError,
        "Constant multiplicative factor expected to be between 0 and 1.",
    ),
    (
        "ls.LinearLR(opt, start_factor=0)",
        ValueError,
        "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
    ),
    (
        "ls.LinearLR(opt, end_factor=2)",
        ValueError,
        "Ending multiplicative factor expected to be between 0 and 1.",
    ),
    ("ls.MultiplicativeLR(opt, 0.9)", TypeError, "lr_lambda should be a function, but got float"),
    ("ls.MultiplicativeLR(opt, [abs, abs])", ValueError, "Expected 1 lr_lambdas, but got 2"),
    (
        "ls.SequentialLR(opt, [ls.ConstantLR(opt)], milestones=[2])",
        ValueError,
        "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
        "milestone points, but got number of schedulers 1 and the number of milestones to be equal to 1",
    ),
    (
        "ls.SequentialLR(opt, [], milestones=[])",
        ValueError,
        "SequentialLR expects at least one scheduler, but got no scheduler.",
    ),
    (
        "ls.ChainedScheduler([])",
        ValueError,
        "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.",
    ),
    (
        "ls.ChainedScheduler([ls.ReduceLROnPlateau(opt)])",
        ValueError,
        "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs "
        "to be specified when calling `step`, but got one at index 0 in the given schedulers sequence.",
    ),
    ("ls.CosineAnnealingWarmRestarts(opt, T_0=0)", ValueError, "Expected positive integer T_0, but got 0"),
    (
        "ls.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)",
        ValueError,
        "Expected integer T_mult >= 1, but got 0",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=1.0)",
        ValueError,
        "You must define either total_steps OR (epochs AND steps_per_epoch)",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=1.0, total_steps=0)",
        ValueError,
        "Expected positive integer total_steps, but got 0",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=1.0, epochs=2, steps_per_epoch=-1)",
        ValueError,
        "Expected positive integer steps_per_epoch, but got -1",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=1.0, total_steps=5, pct_start=1)",
        ValueError,
        "Expected float between 0 and 1 pct_start, but got 1",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy='exp')",
        ValueError,
        "anneal_strategy must be one of 'cos' or 'linear', instead got exp",
    ),
    (
        "ls.OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=5)",
        ValueError,
        "max_lr must have the same length as optimizer.param_groups. max_lr has 2 values, "
        "param_groups has 1.",
    ),
    ("ls.CyclicLR(opt, 0.1, 1.0, mode='square')", ValueError, "mode is invalid and scale_fn is None"),
    (
        "ls.CyclicLR(lib.optim.Adagrad([lib.zeros(1)]), 0.1, 1.0)",
        ValueError,
        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
    ),
    ("ls.CyclicLR(3, 0.1, 1.0)", TypeError, "int is not an Optimizer"),
]


@pytest.mark.parametrize(("make", "error", "message"), ERRORS)
def test_errors(make: str, error: type[Exception], message: str) -> None:
    for lib in (framework, torch) if torch is not None else (framework,):
        with pytest.raises(error) as info:
            eval(make, {"ls": lib.optim.lr_scheduler, "opt": _sgd(lib), "lib": lib, "abs": abs})
        assert str(info.value) == message


def test_sequential_rejects_another_optimizers_scheduler() -> None:
    opt, other = _sgd(), _sgd()
    with pytest.raises(
        ValueError, match="SequentialLR expects all schedulers to belong to the same optimizer"
    ):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(other)], milestones=[])
