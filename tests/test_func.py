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
    described = [[_describe(leaf, names) for leaf in leaves] for leaves in (ours_leaves, theirs_leaves)]
    assert described[0] == described[1]
    for a, b in zip(ours_leaves, theirs_leaves, strict=True):
        np.testing.assert_allclose(_value(a), _value(b), rtol=1e-12, atol=1e-12)


def _scalar_sum(x: Any, y: Any = None) -> Any:
    return x.sum()


def _vmap_twice(lib: ModuleType, **kwargs: Any) -> Any:
    return lib.func.vmap(lambda x, y: x + y, **kwargs)


ERRORS: list[tuple[str, Callable[[ModuleType], Any], type[Exception], str]] = [
    (
        "argnum out of range",
        lambda lib: lib.func.grad(_scalar_sum, argnums=2)(t(lib, X)),
        RuntimeError,
        "Got argnum=2, but only 1 positional inputs",
    ),
    (
        "argnums repeated",
        lambda lib: lib.func.grad(_scalar_sum, argnums=(0, -2))(t(lib, X), t(lib, Y)),
        RuntimeError,
        "argnums elements must be unique, got (0, 0)",
    ),
    (
        "argnums empty",
        lambda lib: lib.func.grad(_scalar_sum, argnums=())(t(lib, X)),
        RuntimeError,
        "argnums must be non-empty",
    ),
    (
        "argnums list",
        lambda lib: lib.func.grad(_scalar_sum, argnums=[0])(t(lib, X)),
        RuntimeError,
        "argnums must be int or Tuple[int, ...], got: <class 'list'>",
    ),
    (
        "non-tensor argument",
        lambda lib: lib.func.grad(lambda x: x)(1.5),
        ValueError,
        "Thing passed to transform API must be Tensor, got <class 'float'>",
    ),
    (
        "non-scalar output",
        lambda lib: lib.func.grad(lambda x: x * 2)(t(lib, X)),
        RuntimeError,
        "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. "
        "Maybe you wanted to use the vjp or jacrev APIs instead?",
    ),
    (
        "non-tensor output",
        lambda lib: lib.func.grad(lambda x: 1.0)(t(lib, X)),
        RuntimeError,
        "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>",
    ),
    (
        "has_aux without a pair",
        lambda lib: lib.func.grad(_scalar_sum, has_aux=True)(t(lib, X)),
        RuntimeError,
        "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True",
    ),
    (
        "vjp integer output",
        lambda lib: lib.func.vjp(lambda x: x.long(), t(lib, X)),
        RuntimeError,
        "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
        "torch.int64",
    ),
    (
        "vjp cotangents structure",
        lambda lib: lib.func.vjp(lambda x: (x, x * 2), t(lib, X))[1](t(lib, X)),
        RuntimeError,
        "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
        "function. cotangents: *, primal output: (*, *)",
    ),
    (
        "vjp empty output",
        lambda lib: lib.func.vjp(lambda x: (), t(lib, X)),
        RuntimeError,
        "vjp(f, *primals): Expected f to be a function that has non-empty output (got output = [])",
    ),
    (
        "jvp primals not a tuple",
        lambda lib: lib.func.jvp(lambda x: x, t(lib, X), t(lib, X)),
        RuntimeError,
        "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call "
        "f(*primals).",
    ),
    (
        "jvp tangent size",
        lambda lib: lib.func.jvp(lambda x: x, (t(lib, X),), (t(lib, M),)),
        RuntimeError,
        "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
        "is not supported. Tensor is of size [3] while the given forward gradient is of size [2, 3].",
    ),
    (
        "jvp strict",
        lambda lib: lib.func.jvp(lambda x: t(lib, Y), (t(lib, X),), (t(lib, X),), strict=True),
        RuntimeError,
        "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This is not "
        "allowed with strict=True.",
    ),
    (
        "jacrev chunk_size",
        lambda lib: lib.func.jacrev(_scalar_sum, chunk_size=0),
        ValueError,
        "jacrev: `chunk_size` should be greater than 0.",
    ),
    (
        "jacrev complex input",
        lambda lib: lib.func.jacrev(_scalar_sum)(lib.ones(2, dtype=lib.complex128)),
        RuntimeError,
        "jacrev: Expected all inputs to be real but received complex tensor at flattened input idx: 0",
    ),
    (
        "jacfwd randomness",
        lambda lib: lib.func.jacfwd(_scalar_sum, randomness="sometimes")(t(lib, X)),
        RuntimeError,
        "Only allowed values for randomness are 'error', 'different', or 'same'. Got sometimes",
    ),
    (
        "vmap batch sizes",
        lambda lib: _vmap_twice(lib)(t(lib, M), t(lib, W)),
        ValueError,
        "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [2, 4] for the "
        "mapped dimension",
    ),
    (
        "vmap nothing mapped",
        lambda lib: _vmap_twice(lib, in_dims=None)(t(lib, M), t(lib, W)),
        ValueError,
        "vmap(<lambda>, in_dims=None, ...)(<inputs>): expected `in_dims` to be int or a (potentially nested) "
        "tuple matching the structure of inputs, got: <class 'NoneType'>.",
    ),
    (
        "vmap all None",
        lambda lib: _vmap_twice(lib, in_dims=(None, None))(t(lib, M), t(lib, W)),
        ValueError,
        "vmap: Expected at least one Tensor to vmap over",
    ),
    (
        "vmap in_dim range",
        lambda lib: _vmap_twice(lib, in_dims=(2, 0))(t(lib, M), t(lib, M)),
        ValueError,
        "vmap(<lambda>, in_dims=(2, 0), ...)(<inputs>): Got in_dim=2 for some input, but that input is a "
        "Tensor of dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2.",
    ),
    (
        "vmap non-tensor",
        lambda lib: _vmap_twice(lib)(t(lib, M), 1.0),
        ValueError,
        "vmap(<lambda>, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the input is of type "
        "<class 'float'>. We cannot vmap over non-Tensor arguments, please use None as the respective in_dim",
    ),
    (
        "vmap no inputs",
        lambda lib: lib.func.vmap(lambda: 1)(),
        ValueError,
        "vmap(<lambda>)(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap "
        "over a function with no inputs. The latter is unsupported.",
    ),
    (
        "vmap random in error mode",
        lambda lib: lib.func.vmap(lambda x: x + lib.rand(()))(t(lib, X)),
        RuntimeError,
        "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
        "'different' randomness flags on vmap or perform the randomness operation out of vmap",
    ),
    (
        "vmap out_dim None of a batched output",
        lambda lib: lib.func.vmap(_scalar_sum, out_dims=None)(t(lib, M)),
        ValueError,
        "vmap(_scalar_sum, ...): `_scalar_sum` can not return a BatchedTensor when out_dim is None",
    ),
    (
        "vmap non-tensor output",
        lambda lib: lib.func.vmap(lambda x: 1.0)(t(lib, M)),
        ValueError,
        "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'float'>. Did you mean to "
        "set out_dims= to None for output?",
    ),
    (
        "vmap chunk_size",
        lambda lib: lib.func.vmap(_scalar_sum, chunk_size=-1),
        ValueError,
        "vmap: chunk_size should be None or greater than 0. (got -1)",
    ),
    (
        "functional_call strict",
        lambda lib: lib.func.functional_call(
            linear(lib), {"weight": t(lib, W), "w2": t(lib, W)}, t(lib, X), strict=True
        ),
        RuntimeError,
        "Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): 'w2'.\n\tMissing key(s): 'bias'.",
    ),
    (
        "functional_call repeated keys",
        lambda lib: lib.func.functional_call(
            linear(lib), ({"bias": t(lib, B)}, {"bias": t(lib, B)}), t(lib, X)
        ),
        ValueError,
        "['bias'] appeared in multiple dictionaries; behavior of functional call is ambiguous",
    ),
    (
        "functional_call tied values",
        lambda lib: lib.func.functional_call(
            lib.nn.Sequential(*[linear(lib)] * 2), {"0.bias": t(lib, B), "1.bias": t(lib, B)}, t(lib, X)
        ),
        ValueError,
        "functional_call got multiple values for keys ['0.bias', '1.bias'], which are tied. Consider using "
        "tie_weights=False",
    ),
    (
        "stack_module_state classes",
        lambda lib: lib.func.stack_module_state([linear(lib), lib.nn.Tanh()]),
        RuntimeError,
        "stack_module_state: Expected all models to be of the same class.",
    ),
    (
        "stack_module_state modes",
        lambda lib: lib.func.stack_module_state([linear(lib), linear(lib).eval()]),
        RuntimeError,
        "stack_module_state: Expected all models to have the same training/eval mode.",
    ),
]


@pytest.mark.parametrize(("build", "error", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_are_torchs(build: Callable[[ModuleType], Any], error: type[Exception], message: str) -> None:
    libs = [framework] if torch is None else [framework, torch]
    for lib in libs:
        expected = message.replace("torch.int64", str(lib.int64))
        with pytest.raises(error) as info:
            build(lib)
        assert str(info.value) == expected
