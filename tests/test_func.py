"""`framework.func` (torch.func): each case builds its inputs from NumPy and runs a transform with
`lib` (framework, or torch when installed). Values are checked against closed-form NumPy
derivatives, and live against `torch.func` (values within 1e-12 in float64, shapes, dtypes,
requires_grad and grad_fn names); the argument checks raise PyTorch's errors."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import needs_torch, torch

import framework
import framework.func as ffunc

RNG = np.random.RandomState(7)
X = RNG.randn(3)
Y = RNG.randn(3)
M = RNG.randn(2, 3)
W = RNG.randn(4, 3)
B = RNG.randn(4)
BATCH = RNG.randn(5, 3)


def t(lib: ModuleType, array: Any, requires_grad: bool = False) -> Any:
    return lib.tensor(np.array(array), dtype=lib.float64, requires_grad=requires_grad)


def linear(lib: ModuleType) -> Any:
    model = lib.nn.Linear(3, 4).double()
    with lib.no_grad():
        model.weight.copy_(t(lib, W))
        model.bias.copy_(t(lib, B))
    return model


def _grad_sin(lib: ModuleType) -> Any:
    return lib.func.grad(lambda x: (x.sin() * x).sum())(t(lib, X))


def _grad_argnums(lib: ModuleType) -> Any:
    return lib.func.grad(lambda x, y: (x * y**2).sum(), argnums=(0, 1))(t(lib, X), t(lib, Y))


def _grad_negative_argnum_aux_dict(lib: ModuleType) -> Any:
    def f(scale: Any, inputs: dict[str, Any]) -> Any:
        loss = (inputs["a"] * inputs["b"].exp()).sum() * scale
        return loss, {"loss": loss, "a": inputs["a"]}

    return lib.func.grad(f, argnums=-1, has_aux=True)(2.0, {"a": t(lib, X), "b": t(lib, Y)})


def _grad_and_value(lib: ModuleType) -> Any:
    return lib.func.grad_and_value(lambda x: (x**3).sum())(t(lib, X))


def _grad_closure_over_parameter(lib: ModuleType) -> Any:
    w = t(lib, Y, requires_grad=True)
    return lib.func.grad(lambda x: (x**2 * w).sum())(t(lib, X))


def _grad_input_requires_grad(lib: ModuleType) -> Any:
    return lib.func.grad(lambda x: x.exp().sum())(t(lib, X, requires_grad=True))


def _grad_under_no_grad(lib: ModuleType) -> Any:
    w = t(lib, Y, requires_grad=True)
    with lib.no_grad():
        return lib.func.grad(lambda x: (x**2 * w).sum())(t(lib, X, requires_grad=True))


def _grad_of_grad(lib: ModuleType) -> Any:
    return lib.func.grad(lib.func.grad(lambda x: x.sin() * x))(t(lib, 0.7))


def _grad_independent_output(lib: ModuleType) -> Any:
    return lib.func.grad(lambda x, y: (y**2).sum(), argnums=(0, 1))(t(lib, X), t(lib, Y))


def _vjp(lib: ModuleType) -> Any:
    out, vjp_fn = lib.func.vjp(lambda x, y: (x * y, x.exp()), t(lib, X), t(lib, Y))
    return out, vjp_fn((t(lib, Y), t(lib, X)))


def _vjp_has_aux_create_graph(lib: ModuleType) -> Any:
    out, vjp_fn, aux = lib.func.vjp(lambda x: (x.sin(), x.sum()), t(lib, X), has_aux=True)
    cotangent = t(lib, Y, requires_grad=True)
    return out, aux, vjp_fn(cotangent)


def _jvp(lib: ModuleType) -> Any:
    return lib.func.jvp(lambda x, y: (x * y).sin(), (t(lib, X), t(lib, Y)), (t(lib, Y), t(lib, X)))


def _jvp_has_aux_integer_output(lib: ModuleType) -> Any:
    def f(x: Any) -> Any:
        return {"y": x.cos() * 2, "n": x.long()}, x.sum()

    return lib.func.jvp(f, (t(lib, X),), (t(lib, Y),), has_aux=True)


def _jacrev(lib: ModuleType) -> Any:
    return lib.func.jacrev(lambda x: x.sin() * x.sum())(t(lib, X))


def _jacrev_tree(lib: ModuleType) -> Any:
    f = lambda x, m: {"p": m @ x, "s": (x * x).sum()}  # noqa: E731
    return lib.func.jacrev(f, argnums=(0, 1))(t(lib, X), t(lib, M))


def _jacfwd(lib: ModuleType) -> Any:
    return lib.func.jacfwd(lambda x, m: (m @ x).exp(), argnums=1)(t(lib, X), t(lib, M))


def _jacfwd_has_aux(lib: ModuleType) -> Any:
    return lib.func.jacfwd(lambda x: (x**2, x.mean()), has_aux=True)(t(lib, X))


def _jacrev_of_jacrev(lib: ModuleType) -> Any:
    return lib.func.jacrev(lib.func.jacrev(lambda x: (x**3).prod()))(t(lib, X))


def _hessian(lib: ModuleType) -> Any:
    return lib.func.hessian(lambda x, y: (x.sin() * y.exp()).sum(), argnums=(0, 1))(t(lib, X), t(lib, Y))


def _vmap(lib: ModuleType) -> Any:
    return lib.func.vmap(lambda x, m: m @ x, in_dims=(0, None))(t(lib, BATCH), t(lib, M))


def _vmap_nested_dims(lib: ModuleType) -> Any:
    def f(pair: Any, scale: Any) -> Any:
        a, b = pair
        return {"sum": a + b * scale, "prod": (a * b).sum()}

    batch = t(lib, BATCH)
    return lib.func.vmap(f, in_dims=((1, 0), None), out_dims={"sum": 1, "prod": 0})(
        (batch.t().contiguous(), batch * 2), t(lib, 3.0)
    )


def _vmap_out_dims_none_and_negative(lib: ModuleType) -> Any:
    return lib.func.vmap(lambda x: (x.outer(x), 1.5), out_dims=(-1, None))(t(lib, BATCH))


def _vmap_of_grad(lib: ModuleType) -> Any:
    model = linear(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p: Any, x: Any) -> Any:
        return lib.func.functional_call(model, p, (x,)).tanh().sum()

    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(params, t(lib, BATCH))


def _vmap_randomness_same(lib: ModuleType) -> Any:
    lib.manual_seed(0)
    out = lib.func.vmap(lambda x: x + lib.rand(()), randomness="same")(t(lib, X))
    return out - out[0]


def _functional_call(lib: ModuleType) -> Any:
    model = linear(lib)
    new = {"weight": t(lib, W * 2), "bias": t(lib, B + 1)}
    out = lib.func.functional_call(model, new, t(lib, BATCH))
    return out, model(t(lib, BATCH))


def _functional_call_two_dicts_kwargs(lib: ModuleType) -> Any:
    model = lib.nn.Sequential(linear(lib), lib.nn.BatchNorm1d(4).double())
    params = {k: v * 0.5 for k, v in model.named_parameters()}
    buffers = {k: v.clone() for k, v in model.named_buffers()}
    out = lib.func.functional_call(model, (params, buffers), args=(), kwargs={"input": t(lib, BATCH)})
    return out, buffers["1.running_mean"], model[1].running_mean


def _functional_call_tied(lib: ModuleType) -> Any:
    layer = lib.nn.Linear(3, 3).double()
    with lib.no_grad():
        layer.weight.copy_(t(lib, W[:3]))
        layer.bias.copy_(t(lib, B[:3]))
    model = lib.nn.Sequential(layer, lib.nn.Tanh(), layer)
    new = {"0.weight": t(lib, W[:3] * 3)}
    x = t(lib, BATCH)
    return (
        lib.func.functional_call(model, new, x),
        lib.func.functional_call(model, new, x, tie_weights=False),
        layer.weight,
    )


def _stack_module_state_ensemble(lib: ModuleType) -> Any:
    models = [linear(lib) for _ in range(3)]
    with lib.no_grad():
        for i, m in enumerate(models):
            m.weight.mul_(i + 1)
    params, buffers = lib.func.stack_module_state(models)

    def run(p: Any, b: Any, x: Any) -> Any:
        return lib.func.functional_call(models[0], (p, b), (x,))

    out = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, t(lib, BATCH))
    return out, params["weight"], params["bias"].is_leaf


CASES: dict[str, Callable[[ModuleType], Any]] = {
    name.lstrip("_"): fn
    for name, fn in list(globals().items())
    if name.startswith("_") and callable(fn) and name[1] != "_" and fn.__module__ == __name__
}

# closed-form values of some cases, from NumPy
S, C = np.sin(X), np.cos(X)
EXPECTED: dict[str, Any] = {
    "grad_sin": C * X + S,
    "grad_argnums": (Y**2, 2 * X * Y),
    "grad_and_value": (3 * X**2, np.sum(X**3)),
    "grad_closure_over_parameter": 2 * X * Y,
    "grad_of_grad": -np.sin(0.7) * 0.7 + 2 * np.cos(0.7),
    "grad_independent_output": (np.zeros(3), 2 * Y),
    "vjp": ((X * Y, np.exp(X)), (Y * Y + X * np.exp(X), X * Y)),
    "jvp": (np.sin(X * Y), np.cos(X * Y) * (Y * Y + X * X)),
    "jacrev": np.diag(C * X.sum()) + np.outer(S, np.ones(3)),
    "jacfwd": np.einsum("ik,i,l->ikl", np.eye(2), np.exp(M @ X), X),
    "hessian": (
        (np.diag(-S * np.exp(Y)), np.diag(C * np.exp(Y))),
        (np.diag(C * np.exp(Y)), np.diag(S * np.exp(Y))),
    ),
    "vmap": BATCH @ M.T,
    "vmap_randomness_same": X - X[0],
}


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in _leaves(tree[key])]
    return [tree]


def _value(leaf: Any) -> Any:
    return leaf.detach().numpy() if hasattr(leaf, "detach") else leaf


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_values_match_closed_forms(name: str) -> None:
    ours = _leaves(CASES[name](framework))
    expected = _leaves(EXPECTED[name])
    assert len(ours) == len(expected)
    for leaf, wanted in zip(ours, expected, strict=True):
        np.testing.assert_allclose(_value(leaf), wanted, rtol=1e-12, atol=1e-12)


def _describe(leaf: Any, grad_fn_names: bool) -> tuple[Any, ...]:
    if not hasattr(leaf, "detach"):
        return (type(leaf).__name__, leaf)
    grad_fn = None if leaf.grad_fn is None or not grad_fn_names else type(leaf.grad_fn).__name__
    return (tuple(leaf.shape), str(leaf.dtype).split(".")[-1], leaf.requires_grad, grad_fn)


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_func_live(name: str) -> None:
    ours, theirs = CASES[name](framework), CASES[name](torch)
    assert type(ours).__name__ == type(theirs).__name__
    ours_leaves, theirs_leaves = _leaves(ours), _leaves(theirs)
    # vmap stacks per-element results (StackBackward0) where PyTorch's batching rules end in the op
    names = "vmap" not in name and "stack_module_state" not in name
    assert [_describe(leaf, names) for leaf in ours_leaves] == [_describe(leaf, names) for leaf in theirs_leaves]
    for a, b in zip(ours_leaves, theirs_leaves, strict=True):
        np.testing.assert_allclose(_value(a), _value(b), rtol=1e-12, atol=1e-12)
