"""`framework.nn.Module`, `Parameter`, `Buffer` and the containers, against PyTorch's behaviour.

Recorded cases (``data/nn_fixtures.json``) always run; with PyTorch installed they are also
replayed on it live.
"""

from __future__ import annotations

import copy
import re
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
import framework.nn as nn
from framework import Tensor


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("steps", framework.zeros(1))

    def forward(self, x: Tensor, scale: float = 1.0) -> Tensor:
        out: Tensor = self.fc(x) * scale
        return out


# ---- Parameter and Buffer -------------------------------------------------------------------------


def test_parameter_is_a_tensor_sharing_the_data() -> None:
    data = framework.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, Tensor)
    assert p.requires_grad and p.is_leaf and not data.requires_grad
    assert p.data_ptr() == data.data_ptr()
    assert repr(p) == FIXTURES["parameter_repr"]
    assert type(p * 2) is Tensor
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    with framework.no_grad():
        assert nn.Parameter(framework.ones(1)).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_of_integers_cannot_require_grad() -> None:
    with pytest.raises(
        RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"
    ):
        nn.Parameter(framework.tensor([1, 2]))
    assert nn.Parameter(framework.tensor([1, 2]), requires_grad=False).dtype is framework.int64


def test_parameter_deepcopy_copies_the_data() -> None:
    p = nn.Parameter(framework.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    assert q.data_ptr() != p.data_ptr() and q.tolist() == p.tolist()


def test_buffer_assignment_registers_a_buffer() -> None:
    m = nn.Module()
    m.a = nn.Buffer(framework.ones(2))
    m.b = nn.Buffer(framework.zeros(1), persistent=False)
    assert [name for name, _ in m.named_buffers()] == ["a", "b"]
    assert list(m.state_dict()) == ["a"]
    m.a = framework.full((2,), 3.0)
    assert m.a.tolist() == [3.0, 3.0] and list(m.state_dict()) == ["a"]


# ---- registration -------------------------------------------------------------------------------


def test_attributes_are_registered_by_kind() -> None:
    m = nn.Module()
    m.w = nn.Parameter(framework.ones(2))
    m.child = nn.Linear(2, 2)
    m.register_buffer("buf", framework.zeros(2))
    m.plain = framework.ones(1)
    assert list(m._parameters) == ["w"] and list(m._modules) == ["child"] and list(m._buffers) == ["buf"]
    assert "plain" in m.__dict__
    m.w = None
    assert m.w is None and list(m.parameters()) == list(m.child.parameters())
    del m.child
    assert "child" not in m._modules
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'child'"):
        _ = m.child


def test_reassigning_a_name_moves_it_between_kinds() -> None:
    m = nn.Module()
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(framework.ones(1))
    assert "x" in m._parameters and "x" not in m._modules
    m.y = 1
    m.y = nn.Identity()
    assert "y" not in m.__dict__ and isinstance(m.y, nn.Identity)
    del m.y
    m.y = nn.Parameter(framework.ones(1))
    assert isinstance(m.y, nn.Parameter)


def test_registration_errors_are_pytorchs() -> None:
    m = nn.Module()
    m.w = nn.Parameter(framework.ones(1))
    m.sub = nn.Identity()
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'torch.FloatTensor' as parameter 'w' \(torch.nn.Parameter or None expected\)",
    ):
        m.w = framework.ones(1)
    with pytest.raises(
        TypeError, match=r"cannot assign 'int' as child module 'sub' \(torch.nn.Module or None expected\)"
    ):
        m.sub = 3
    with pytest.raises(KeyError, match=re.escape('contain "."')):
        m.register_buffer("a.b", framework.ones(1))
    with pytest.raises(KeyError, match="be empty string"):
        m.register_buffer("", framework.ones(1))
    with pytest.raises(KeyError, match="attribute 'w' already exists"):
        m.register_buffer("w", framework.ones(1))
    with pytest.raises(TypeError, match=re.escape("buffer name should be a string. Got int")):
        m.register_buffer(1, framework.ones(1))  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"cannot assign 'int' object to buffer 'b' \(torch Tensor or None required\)"
    ):
        m.register_buffer("b", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter 'p'"):
        m.register_parameter("p", framework.ones(1))  # type: ignore[arg-type]
    with pytest.raises(KeyError, match=re.escape('contain ".", got: a.b')):
        m.add_module("a.b", nn.Identity())
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("x", 3)  # type: ignore[arg-type]


def test_assignment_before_init_is_refused() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(framework.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


# ---- traversal ----------------------------------------------------------------------------------


def _structure_cases() -> list[Any]:
    cases = [pytest.param(framework, id="framework")]
    if torch is not None:
        cases.append(pytest.param(torch, id="torch"))
    return cases


@pytest.mark.parametrize("lib", _structure_cases())
def test_names_of_members_match_the_recording(lib: Any) -> None:
    assert recorder.structure(lib) == FIXTURES["structure"]


def test_parameters_skip_duplicates_and_none() -> None:
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert [name for name, _ in seq.named_modules()] == ["", "0"]
    m = nn.Linear(2, 2, bias=False)
    assert [name for name, _ in m.named_parameters()] == ["weight"]


def test_get_submodule_and_parameter() -> None:
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    assert net.get_submodule("1.1") is net[1][1]  # type: ignore[index]
    assert net.get_parameter("1.1.bias") is net[1][1].bias  # type: ignore[index]
    assert net.get_submodule("") is net
    with pytest.raises(AttributeError, match="Sequential has no attribute `5`"):
        net.get_submodule("5")


# ---- modes, gradients, conversion ----------------------------------------------------------------


def test_train_and_eval_reach_every_submodule() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout()))
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")  # type: ignore[arg-type]


def test_zero_grad_and_requires_grad() -> None:
    net = nn.Linear(2, 1)
    net(framework.ones(3, 2)).sum().backward()
    assert net.weight.grad is not None
    grad = net.weight.grad
    net.zero_grad(set_to_none=False)
    assert net.weight.grad is grad and grad.tolist() == [[0.0, 0.0]]
    net.zero_grad()
    assert net.weight.grad is None and net.bias.grad is None
    assert net.requires_grad_(False) is net and not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first() -> None:
    net = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
    seen: list[str] = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential"]


def test_to_converts_floating_point_members_in_place() -> None:
    net = Net()
    weight = net.fc.weight
    net.fc(framework.ones(1, 3)).sum().backward()
    net.register_buffer("count", framework.tensor(3))
    assert net.double() is net
    assert net.fc.weight is weight and weight.dtype is framework.float64
    assert weight.grad is not None and weight.grad.dtype is framework.float64
    assert net.steps.dtype is framework.float64 and net.count.dtype is framework.int64
    net.to(framework.float32)
    assert weight.dtype is framework.float32 and net.steps.dtype is framework.float32
    net.to("cpu").to(framework.device("cpu"), framework.float64).float().cpu()
    assert weight.dtype is framework.float32
    net.to(framework.zeros(1, dtype=framework.float64))
    assert weight.dtype is framework.float64
    with pytest.raises(
        TypeError,
        match=re.escape(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64"
        ),
    ):
        net.to(framework.int64)


# ---- state dicts --------------------------------------------------------------------------------


def test_state_dict_detaches_unless_keep_vars() -> None:
    net = Net()
    net.register_buffer("tmp", framework.ones(1), persistent=False)
    state = net.state_dict()
    assert isinstance(state, OrderedDict) and list(state) == ["steps", "fc.weight", "fc.bias"]
    assert not state["fc.weight"].requires_grad and not isinstance(state["fc.weight"], nn.Parameter)
    assert state["fc.weight"].data_ptr() == net.fc.weight.data_ptr()
    assert net.state_dict(keep_vars=True)["fc.weight"] is net.fc.weight
    assert list(net.state_dict(prefix="model.")) == ["model.steps", "model.fc.weight", "model.fc.bias"]
    assert state._metadata == {"": {"version": 1}, "fc": {"version": 1}}  # type: ignore[attr-defined]


def test_load_state_dict_copies_in_place() -> None:
    source, target = Net(), Net()
    weight = target.fc.weight
    result = target.load_state_dict(source.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.fc.weight is weight and weight.tolist() == source.fc.weight.tolist()
    assert weight.requires_grad


@pytest.mark.parametrize("case", range(len(recorder.LOAD_CASES)))
def test_load_state_dict_outcomes_match_the_recording(case: int) -> None:
    assert recorder.load_outcome(framework, *recorder.LOAD_CASES[case]) == FIXTURES["loads"][case]


@needs_torch
@pytest.mark.parametrize("case", range(len(recorder.LOAD_CASES)))
def test_load_state_dict_recording_is_torchs(case: int) -> None:
    assert recorder.load_outcome(torch, *recorder.LOAD_CASES[case]) == FIXTURES["loads"][case]


def test_load_state_dict_refuses_non_mappings() -> None:
    with pytest.raises(
        TypeError, match=re.escape("Expected state_dict to be dict-like, got <class 'list'>.")
    ):
        nn.Linear(1, 1).load_state_dict([])  # type: ignore[arg-type]


# ---- hooks and calls ----------------------------------------------------------------------------


def test_forward_hooks_change_inputs_and_outputs() -> None:
    net = Net()
    calls: list[str] = []
    x = framework.ones(1, 3)
    expected = net(x)

    def pre(module: nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...]:
        calls.append("pre")
        return (args[0] * 2,)

    def post(module: nn.Module, args: tuple[Any, ...], output: Tensor) -> Tensor:
        calls.append("post")
        return output + 1

    h1 = net.register_forward_pre_hook(pre)
    h2 = net.register_forward_hook(post)
    out = net(x)
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), (net.fc(x * 2) + 1).detach().numpy())
    h1.remove()
    h2.remove()
    assert net(x).tolist() == expected.tolist()


def test_hooks_with_kwargs_and_prepend() -> None:
    net = Net()
    order: list[str] = []

    def pre_kwargs(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        order.append("pre_kwargs")
        return args, {**kwargs, "scale": 0.0}

    def post_kwargs(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], output: Tensor) -> None:
        order.append(f"post scale={kwargs['scale']}")

    net.register_forward_pre_hook(pre_kwargs, with_kwargs=True)
    net.register_forward_hook(post_kwargs, with_kwargs=True)
    net.register_forward_hook(lambda m, a, o: order.append("first"), prepend=True)
    out = net(framework.ones(1, 3), scale=5.0)
    assert out.tolist() == [[0.0, 0.0]]
    assert order == ["pre_kwargs", "first", "post scale=0.0"]


def test_bad_pre_hook_result_and_always_call() -> None:
    net = Net()
    with (
        net.register_forward_pre_hook(lambda m, a, k: 1, with_kwargs=True),
        pytest.raises(
            RuntimeError,
            match=r"forward pre-hook must return None or a tuple of \(new_args, new_kwargs\), but got 1.",
        ),
    ):
        net(framework.ones(1, 3))

    class Failing(nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("boom")

    failing = Failing()
    called: list[Any] = []
    failing.register_forward_hook(lambda m, a, o: called.append(o), always_call=True)
    failing.register_forward_hook(lambda m, a, o: called.append("not always"))
    with pytest.raises(ValueError, match="boom"):
        failing(1)
    assert called == [None]


def test_missing_forward() -> None:
    with pytest.raises(
        NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'
    ):
        nn.Module()(1)


# ---- printing and containers --------------------------------------------------------------------


@pytest.mark.parametrize("expr", recorder.REPR_CASES)
def test_repr_matches_the_recording(expr: str) -> None:
    assert repr(recorder.evaluate(framework, expr)) == FIXTURES["reprs"][expr]


def test_sequential_indexing() -> None:
    a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub._modules) == ["1", "2"] and list(sub) == [b, c]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    seq.append(nn.Tanh())
    assert len(seq) == 4 and isinstance(seq[3], nn.Tanh)
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and seq[1] is c
    seq.insert(0, b)
    assert list(seq) == [b, a, c, seq[3]]
    assert seq.pop(0) is b and len(seq) == 3
    seq[0] = b
    assert seq[0] is b
    joined = seq + nn.Sequential(a)
    assert len(joined) == 4 and joined[3] is a
    named = nn.Sequential(OrderedDict(first=a, second=b))
    assert list(named._modules) == ["first", "second"] and named[1] is b
    x = framework.ones(2, 1)
    np.testing.assert_allclose(nn.Sequential(a, b, c)(x).detach().numpy(), c(b(a(x))).detach().numpy())


def test_module_list() -> None:
    layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    first = layers[0]
    assert len(layers) == 3 and layers[-3] is first
    assert isinstance(layers[:2], nn.ModuleList) and len(layers[:2]) == 2
    layers.append(nn.ReLU()).extend([nn.Tanh()])
    layers += [nn.Sigmoid()]
    assert [type(m).__name__ for m in layers][3:] == ["ReLU", "Tanh", "Sigmoid"]
    layers.insert(1, nn.Identity())
    assert isinstance(layers[1], nn.Identity) and len(layers) == 7
    del layers[1:3]
    assert len(layers) == 5 and list(layers._modules) == ["0", "1", "2", "3", "4"]
    assert len(list(layers.parameters())) == 4
    with pytest.raises(
        TypeError, match=re.escape("ModuleList.extend should be called with an iterable, but got Linear")
    ):
        layers.extend(nn.Linear(1, 1))  # type: ignore[arg-type]


def test_module_dict() -> None:
    d = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1)})
    d["c"] = nn.Tanh()
    d.update([("e", nn.Sigmoid())])
    assert list(d) == ["a", "b", "c", "e"] and "b" in d and len(d) == 4
    assert list(d.keys()) == ["a", "b", "c", "e"] and isinstance(d["c"], nn.Tanh)
    assert isinstance(d.pop("a"), nn.ReLU) and "a" not in d
    assert len(list(d.parameters())) == 2
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"):
        d.update([("x",)])  # type: ignore[list-item]
    d.clear()
    assert len(d) == 0
