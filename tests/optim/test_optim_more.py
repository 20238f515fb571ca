"""Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop and Adafactor against PyTorch: 10 steps on a fixed
problem give its parameters (recorded, and live when PyTorch is installed); LBFGS runs (float64) as
PyTorch's; their state and checks as PyTorch's; the multi-tensor/fused/capturable/differentiable
flags of every optimizer accepted when off."""

from __future__ import annotations

import copy
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
    "Rprop": ["step", "prev", "step_size"],
    "Adafactor": ["step", "variance"],
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
    ("Rprop", {"lr": -0.5}, "Invalid learning rate: -0.5"),
    ("Rprop", {"etas": (0.5, 1.0)}, "Invalid eta values: 0.5, 1.0"),
    ("Rprop", {"etas": (0.0, 1.2)}, "Invalid eta values: 0.0, 1.2"),
    ("Adafactor", {"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
    ("Adafactor", {"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
    ("Adafactor", {"eps": (-1.0, 1e-3)}, "epsilon1 should be >= 0 but is: -1.0"),
    ("Adafactor", {"eps": (None, -1.0)}, "epsilon2 should be >= 0 but is: -1.0"),
    ("Adafactor", {"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
    ("Adafactor", {"weight_decay": -0.1}, "weight_decay should be >= 0 but is: -0.1"),
    ("LBFGS", {"lr": -1.0}, "Invalid learning rate: -1.0"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), CHECKS)
def test_constructor_checks(name: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
        getattr(optim, name)([nn.Parameter(framework.ones(1))], **kwargs)
    if torch is not None:
        with pytest.raises(ValueError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
            getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))], **kwargs)


ALL = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "Adadelta",
    "ASGD",
    "Rprop",
    "Adafactor",
]
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
    "Rprop": ("foreach", "capturable", "differentiable"),
    "Adafactor": ("foreach",),
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


def test_rprop_step_sizes_follow_the_gradient_sign() -> None:
    param = nn.Parameter(framework.zeros(3))
    opt = optim.Rprop([param], lr=0.1, step_sizes=(0.01, 0.13))
    for grad in ([1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0]):
        param.grad = framework.tensor(grad)
        opt.step()
    state = opt.state[param]
    # element 0: steps of 0.1, 0.12, then 0.144 clamped to 0.13; element 1: its sign flips at step 2
    # (step size halved, no move, prev zeroed), so step 3 keeps 0.05; element 2 never moves
    np.testing.assert_allclose(state["step_size"].numpy(), [0.13, 0.05, 0.1], rtol=1e-6)
    np.testing.assert_allclose(param.detach().numpy(), [-0.35, -0.15, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(state["prev"].numpy(), [1.0, 1.0, 0.0])


@needs_torch
def test_rprop_complex_and_adafactor_3d_match_torch_live() -> None:
    rng = np.random.RandomState(3)
    for name, kwargs, shape, dtype in (
        ("Rprop", {"lr": 0.05}, (2, 3), np.complex64),
        ("Adafactor", {"lr": 0.1}, (2, 3, 4), np.float32),
        ("Adafactor", {"lr": 0.1, "eps": (None, 0.1)}, (2, 3, 4), np.float64),
    ):
        start = rng.randn(*shape).astype(dtype)
        grads = [
            (rng.randn(*shape) + (1j * rng.randn(*shape) if dtype == np.complex64 else 0)).astype(dtype)
            for _ in range(4)
        ]
        results = []
        for lib in (framework, torch):
            param = lib.tensor(start, requires_grad=True)
            opt = getattr(lib.optim, name)([param], **kwargs)
            for grad in grads:
                param.grad = lib.tensor(grad)
                opt.step()
            results.append(param.detach().numpy())
        np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-7)


def test_adafactor_factors_matrices_and_refuses_complex() -> None:
    matrix = nn.Parameter(framework.ones(2, 3, 4))
    opt = optim.Adafactor([matrix])
    matrix.grad = framework.ones(2, 3, 4)
    opt.step()
    state = opt.state_dict()["state"][0]
    assert list(state) == ["step", "row_var", "col_var"]
    assert state["row_var"].shape == (2, 3, 1) and state["col_var"].shape == (2, 1, 4)
    complex_param = nn.Parameter(framework.ones(2, dtype=framework.complex64))
    complex_param.grad = framework.ones(2, dtype=framework.complex64)
    with pytest.raises(RuntimeError, match=r"^Adafactor does not support complex parameters$"):
        optim.Adafactor([complex_param]).step()


LBFGS_RECORDED = OPTIM_FIXTURES["lbfgs"]


def check_lbfgs_run(ours: dict[str, Any], expected: dict[str, Any]) -> None:
    """Same counters, losses and parameters within 1e-9, relative or absolute (float64: the runs are
    long chains of dependent steps, so last-bit differences of single reductions may grow a little)."""
    assert (ours["func_evals"], ours["n_iter"]) == (expected["func_evals"], expected["n_iter"])
    np.testing.assert_allclose(ours["losses"], expected["losses"], rtol=1e-9, atol=1e-9)
    for actual, wanted in zip(ours["params"], expected["params"], strict=True):
        np.testing.assert_allclose(recorder.decode(actual), recorder.decode(wanted), rtol=1e-9, atol=1e-9)


LBFGS_IDS = [
    f"{problem}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for problem, kw in optim_recorder.LBFGS_CASES
]


@pytest.mark.parametrize("index", range(len(LBFGS_RECORDED)), ids=LBFGS_IDS)
def test_lbfgs_matches_the_recording(index: int) -> None:
    problem, kwargs = optim_recorder.LBFGS_CASES[index]
    check_lbfgs_run(optim_recorder.run_lbfgs(framework, problem, kwargs), LBFGS_RECORDED[index])


@needs_torch
@pytest.mark.parametrize("index", [0, 3, 5], ids=[LBFGS_IDS[i] for i in (0, 3, 5)])
def test_lbfgs_matches_torch_live(index: int) -> None:
    problem, kwargs = optim_recorder.LBFGS_CASES[index]
    check_lbfgs_run(
        optim_recorder.run_lbfgs(framework, problem, kwargs), optim_recorder.run_lbfgs(torch, problem, kwargs)
    )


def _quadratic_lbfgs(**kwargs: Any) -> tuple[nn.Parameter, optim.LBFGS, Any]:
    param = nn.Parameter(framework.tensor([1.5, -0.5], dtype=framework.float64))
    opt = optim.LBFGS([param], **kwargs)

    def closure() -> framework.Tensor:
        opt.zero_grad()
        loss = (param**4).sum() + (param[0] - 2 * param[1]) ** 2
        loss.backward()
        return loss

    return param, opt, closure


def test_lbfgs_state_dict_round_trip_continues_identically() -> None:
    param, opt, closure = _quadratic_lbfgs(max_iter=3, history_size=2)
    opt.step(closure)
    opt.step(closure)
    # a copy, as saving does: the state dict shares the state's tensors, which later steps update
    state = copy.deepcopy(opt.state_dict())
    assert list(state["state"][0]) == [
        "func_evals",
        "n_iter",
        "al",
        "d",
        "t",
        "old_dirs",
        "old_stps",
        "ro",
        "H_diag",
        "prev_flat_grad",
        "prev_loss",
    ]
    assert state["param_groups"][0]["max_eval"] == 3
    twin, twin_opt, twin_closure = _quadratic_lbfgs(max_iter=3, history_size=2)
    with framework.no_grad():
        twin.copy_(param)
    twin_opt.load_state_dict(state)
    for _ in range(2):
        opt.step(closure)
        twin_opt.step(twin_closure)
    np.testing.assert_array_equal(twin.detach().numpy(), param.detach().numpy())
    assert twin_opt.state[twin]["func_evals"] == opt.state[param]["func_evals"] == 12


def test_lbfgs_stops_at_an_optimum_and_checks_its_arguments() -> None:
    param, opt, closure = _quadratic_lbfgs(tolerance_grad=1e3)
    assert opt.step(closure).item() == pytest.approx(1.5**4 + 0.5**4 + 2.5**2)
    assert opt.state[param]["func_evals"] == 1 and opt.state[param]["n_iter"] == 0
    _, wolfe, wolfe_closure = _quadratic_lbfgs(line_search_fn="wolfe")
    with pytest.raises(RuntimeError, match=r"^only 'strong_wolfe' is supported$"):
        wolfe.step(wolfe_closure)
    with pytest.raises(TypeError, match="closure"):
        opt.step()  # type: ignore[call-arg]
    groups = [{"params": [nn.Parameter(framework.ones(1))]}, {"params": [nn.Parameter(framework.ones(1))]}]
    with pytest.raises(
        ValueError, match=r"^LBFGS doesn't support per-parameter options \(parameter groups\)$"
    ):
        optim.LBFGS(groups)
    assert optim.LBFGS([param], max_iter=8).defaults["max_eval"] == 10


@needs_torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_complex_parameters_match_torch_live(line_search_fn: str | None) -> None:
    start, target = np.array([1 + 2j, -0.5 + 0.3j]), np.array([0.3 - 1j, 2 + 0j])
    results = []
    for lib in (framework, torch):
        z = lib.tensor(start, requires_grad=True)
        opt = lib.optim.LBFGS([z], line_search_fn=line_search_fn)

        def closure(z: Any = z, opt: Any = opt, lib: Any = lib) -> Any:
            opt.zero_grad()
            loss = (lib.view_as_real(z - lib.tensor(target)) ** 4).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        results.append(z.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10)
