"""Adamax, NAdam, RAdam, Adadelta and ASGD against PyTorch: 10 steps on a fixed problem give its
parameters (recorded, and live when PyTorch is installed); their state and checks as PyTorch's;
the multi-tensor/fused/capturable/differentiable flags of every optimizer accepted when off."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from optim_oracle import (
    OPTIM_FIXTURES,
    check_run_against_recording,
    check_run_against_torch,
    optim_recorder,
    run_id,
)
from oracle_fixtures import needs_torch, recorder, torch

import framework
import framework.nn as nn
import framework.optim as optim

RUNS = [(name, kwargs, mode) for name, kwargs in optim_recorder.OPTIM_CASES for mode in recorder.OPTIM_MODES]


@pytest.mark.parametrize("index", range(len(RUNS)), ids=[run_id(r) for r in RUNS])
def test_ten_steps_match_the_recording(index: int) -> None:
    check_run_against_recording(RUNS[index], OPTIM_FIXTURES["optim"][index])


@needs_torch
@pytest.mark.parametrize("index", range(len(RUNS)), ids=[run_id(r) for r in RUNS])
def test_ten_steps_match_torch_live(index: int) -> None:
    check_run_against_torch(RUNS[index])


STATE_KEYS = {
    "Adamax": ["step", "exp_avg", "exp_inf"],
    "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"],
    "RAdam": ["step", "exp_avg", "exp_avg_sq"],
    "Adadelta": ["step", "square_avg", "acc_delta"],
    "ASGD": ["step", "eta", "mu", "ax"],
}


@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_state_and_state_dict(name: str) -> None:
    param = nn.Parameter(framework.ones(3))
    opt = getattr(optim, name)([param])
    param.grad = framework.full((3,), 0.5)
    opt.step()
    opt.step()
    state = opt.state_dict()["state"][0]
    assert list(state) == STATE_KEYS[name]
    assert (
        state["step"].dtype is framework.float32 and state["step"].shape == () and state["step"].item() == 2
    )
    clone = getattr(optim, name)([nn.Parameter(framework.ones(3))])
    clone.load_state_dict(opt.state_dict())
    assert next(iter(clone.state.values()))["step"].item() == 2


@needs_torch
@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_defaults_and_state_match_torch(name: str) -> None:
    ours = getattr(optim, name)([nn.Parameter(framework.ones(3))])
    theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(3))])
    assert ours.defaults == theirs.defaults
    for opt, lib in ((ours, framework), (theirs, torch)):
        opt.param_groups[0]["params"][0].grad = lib.full((3,), 0.5)
        opt.step()
    for key, value in ours.state_dict()["state"][0].items():
        np.testing.assert_allclose(value.numpy(), theirs.state_dict()["state"][0][key].numpy(), rtol=1e-6)


CHECKS = [
    ("Adamax", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("Adamax", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("Adamax", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ("NAdam", {"betas": (0.9, -0.5)}, "Invalid beta parameter at index 1: -0.5"),
    ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value: -1.0"),
    ("RAdam", {"eps": -1e-8}, "Invalid epsilon value: -1e-08"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adadelta", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("ASGD", {"lr": -0.5}, "Invalid learning rate: -0.5"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), CHECKS)
def test_constructor_checks(name: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
        getattr(optim, name)([nn.Parameter(framework.ones(1))], **kwargs)
    if torch is not None:
        with pytest.raises(ValueError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
            getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))], **kwargs)


ALL = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam", "Adadelta", "ASGD"]
FLAGS = {
    "SGD": ("foreach", "differentiable", "fused"),
    "Adam": ("foreach", "capturable", "differentiable", "fused"),
    "AdamW": ("foreach", "capturable", "differentiable", "fused"),
    "RMSprop": ("foreach", "capturable", "differentiable"),
    "Adagrad": ("foreach", "differentiable", "fused"),
    "Adamax": ("foreach", "capturable", "differentiable"),
    "NAdam": ("foreach", "capturable", "differentiable"),
    "RAdam": ("foreach", "capturable", "differentiable"),
    "Adadelta": ("foreach", "capturable", "differentiable"),
    "ASGD": ("foreach", "capturable", "differentiable"),
}


@pytest.mark.parametrize("name", ALL)
def test_implementation_flags_off_are_accepted_on_are_refused(name: str) -> None:
    cls = getattr(optim, name)
    off = {flag: None if flag in ("foreach", "fused") else False for flag in FLAGS[name]}
    opt = cls([nn.Parameter(framework.ones(1))], **off)
    assert all(opt.defaults[flag] == value for flag, value in off.items())
    if torch is not None:
        assert set(FLAGS[name]) <= set(getattr(torch.optim, name)([torch.zeros(1)]).defaults)
    for flag in FLAGS[name]:
        with pytest.raises(NotImplementedError, match=f"{name}: {flag}=True is not supported"):
            cls([nn.Parameter(framework.ones(1))], **{flag: True})
    with pytest.raises(NotImplementedError, match="foreach=True is not supported"):
        opt.add_param_group({"params": [nn.Parameter(framework.ones(1))], "foreach": True})


def test_maximize_and_closure() -> None:
    param = nn.Parameter(framework.tensor([1.0, -2.0]))
    opt = optim.NAdam([param], lr=0.1, maximize=True)

    def closure() -> framework.Tensor:
        opt.zero_grad()
        loss = (param**2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 5.0
    assert (param.detach().abs() > framework.tensor([1.0, 2.0])).all()


def test_asgd_averages_from_t0() -> None:
    param = nn.Parameter(framework.zeros(1))
    opt = optim.ASGD([param], lr=0.1, lambd=0.0, t0=2)
    for _ in range(5):
        param.grad = framework.ones(1)
        opt.step()
    state = opt.state[param]
    # steps 1-4 copy the parameter into ax (mu = 1/max(1, step - t0) is 1 after steps 1-3), step 5
    # moves ax halfway to the parameter (mu = 1/2 after step 4), then mu = 1/3
    assert state["mu"].item() == pytest.approx(1 / 3)
    assert state["ax"].item() == pytest.approx(-0.4 + (-0.5 + 0.4) / 2)


def test_radam_switches_to_rectified_steps() -> None:
    # With beta2 = 0.5, rho_inf = 3 < 5: only plain bias-corrected momentum steps, lr · 1 each.
    param = nn.Parameter(framework.zeros(1))
    opt = optim.RAdam([param], lr=0.1, betas=(0.0, 0.5))
    for _ in range(3):
        param.grad = framework.full((1,), 2.0)
        opt.step()
    assert param.item() == pytest.approx(-0.1 * 2.0 * 3)
