"""`framework.optim` optimizers against PyTorch: 10 steps on a fixed problem give its parameters
(recorded, and live when PyTorch is installed); param groups, state and state_dict as PyTorch's."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from optim_oracle import check_run_against_recording, check_run_against_torch, run_id
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
import framework.nn as nn
import framework.optim as optim
import framework.utils.data

OPTIM_RUNS = [(name, kwargs, mode) for name, kwargs in recorder.OPTIM_CASES for mode in recorder.OPTIM_MODES]


@pytest.mark.parametrize("index", range(len(OPTIM_RUNS)), ids=[run_id(r) for r in OPTIM_RUNS])
def test_ten_steps_match_the_recording(index: int) -> None:
    check_run_against_recording(OPTIM_RUNS[index], FIXTURES["optim"][index])


@needs_torch
@pytest.mark.parametrize("index", range(len(OPTIM_RUNS)), ids=[run_id(r) for r in OPTIM_RUNS])
def test_ten_steps_match_torch_live(index: int) -> None:
    check_run_against_torch(OPTIM_RUNS[index])


def test_training_loop_matches_the_recording() -> None:
    np.testing.assert_allclose(recorder.run_training(framework), FIXTURES["training"], rtol=1e-5)


@needs_torch
def test_training_loop_matches_torch_live() -> None:
    np.testing.assert_allclose(recorder.run_training(framework), recorder.run_training(torch), rtol=1e-5)


def _params() -> list[nn.Parameter]:
    return [nn.Parameter(framework.ones(2, 2)), nn.Parameter(framework.zeros(3))]


def test_param_groups_take_defaults() -> None:
    a, b = _params()
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b]
    assert opt.defaults["momentum"] == 0.9 and opt.param_groups[1]["momentum"] == 0.9
    c = nn.Parameter(framework.ones(1))
    opt.add_param_group({"params": [c], "momentum": 0.0})
    assert len(opt.param_groups) == 3 and opt.param_groups[2]["lr"] == 0.1


def test_constructor_errors() -> None:
    a, _ = _params()
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
            "torch.FloatTensor"
        ),
    ):
        optim.SGD(a, lr=0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer parameters need to be organized in ordered collections"):
        optim.SGD([{"params": {a}}], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([a], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([a], nesterov=True)
    with pytest.raises(ValueError, match=re.escape("Invalid beta parameter at index 1: 1.0")):
        optim.Adam([a], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match=re.escape("Invalid alpha value: -0.1")):
        optim.RMSprop([a], alpha=-0.1)
    with pytest.raises(ValueError, match="Invalid lr_decay value: -1"):
        optim.Adagrad([a], lr_decay=-1)


def test_named_parameters_give_param_names() -> None:
    model = nn.Linear(2, 1)
    opt = optim.Adam(model.named_parameters())
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


def test_zero_grad() -> None:
    a, b = _params()
    opt = optim.SGD([a, b], lr=0.1)
    a.grad = framework.ones(2, 2)
    grad = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is grad and grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_parameters_without_gradients_are_skipped() -> None:
    a, b = _params()
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = framework.ones(2, 2)
    opt.step()
    assert b.tolist() == [0.0, 0.0, 0.0] and list(opt.state) == [a]
    assert opt.state[a]["step"].tolist() == 1.0 and opt.state[a]["step"].dtype is framework.float32


def test_step_returns_the_closure_loss_with_grad_enabled() -> None:
    a, _ = _params()
    opt = optim.SGD([a], lr=0.1)

    def closure() -> framework.Tensor:
        opt.zero_grad()
        loss = (a * a).sum()
        assert framework.is_grad_enabled()
        loss.backward()
        return loss

    with framework.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0
    np.testing.assert_allclose(a.detach().numpy(), np.full((2, 2), 0.8, dtype=np.float32))


def _trained(cls: Any, params: list[Any], lib: Any, **kwargs: Any) -> Any:
    opt = cls(params, **kwargs)
    for step in range(2):
        for p in params:
            p.grad = lib.full(tuple(p.shape), float(step + 1))
        opt.step()
    return opt


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("Adam", {"amsgrad": True}),
        ("AdamW", {}),
        ("RMSprop", {"centered": True, "momentum": 0.5}),
        ("Adagrad", {}),
    ],
)
def test_state_dict_round_trip(name: str, kwargs: dict[str, Any]) -> None:
    params = _params()
    opt = _trained(getattr(optim, name), params, framework, **kwargs)
    state = opt.state_dict()
    assert [g["params"] for g in state["param_groups"]] == [[0, 1]]
    assert set(state["state"]) == {0, 1}
    fresh_params = [nn.Parameter(p.detach().clone()) for p in params]
    fresh = getattr(optim, name)(fresh_params, lr=1.0)
    cloned = {index: {k: v.clone() for k, v in entry.items()} for index, entry in state["state"].items()}
    fresh.load_state_dict({"state": cloned, "param_groups": state["param_groups"]})
    assert fresh.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    assert fresh.param_groups[0]["params"] == fresh_params
    for key, value in opt.state[params[0]].items():
        assert fresh.state[fresh_params[0]][key].tolist() == value.tolist()
    for p in params + fresh_params:
        p.grad = framework.full(tuple(p.shape), 0.5)
    opt.step()
    fresh.step()
    for p, q in zip(params, fresh_params, strict=True):
        assert p.tolist() == q.tolist()


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_state_dict_layout_is_torchs(name: str) -> None:
    kwargs = {"lr": 0.1, "momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    ours = _trained(getattr(optim, name), _params(), framework, **kwargs).state_dict()
    theirs = _trained(
        getattr(torch.optim, name),
        [torch.nn.Parameter(torch.ones(2, 2)), torch.nn.Parameter(torch.zeros(3))],
        torch,
        **kwargs,
    ).state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["state"]) == list(theirs["state"])
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            np.testing.assert_allclose(ours["state"][index][key].numpy(), value.numpy(), rtol=1e-6)
            assert ours["state"][index][key].dtype.name == str(value.dtype).removeprefix("torch.")


def test_load_state_dict_errors() -> None:
    opt = optim.SGD(_params(), lr=0.1)
    other = optim.SGD([nn.Parameter(framework.ones(1))], lr=0.1)
    with pytest.raises(
        ValueError,
        match="loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
    ):
        opt.load_state_dict(other.state_dict())
    two_groups = optim.SGD(
        [{"params": [nn.Parameter(framework.ones(1))]}, {"params": [nn.Parameter(framework.ones(1))]}], lr=0.1
    )
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        opt.load_state_dict(two_groups.state_dict())


@needs_torch
def test_repr_is_torchs() -> None:
    ours = optim.Adam(_params(), lr=0.01)
    theirs = torch.optim.Adam([torch.nn.Parameter(torch.ones(1))], lr=0.01)
    assert repr(ours) == repr(theirs)
    assert repr(optim.SGD(_params(), lr=0.5)) == repr(
        torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.5)
    )
