"""Reverse-mode gradients of the pointwise operators on complex inputs, PyTorch's convention: for
L = Re(sum(conj(g) * f(z))) with grad_output g, the gradient reaching z is dL/dx + i dL/dy (for a
holomorphic f, g * conj(f'(z))).  Checked against central finite differences of NumPy's f (no
torch needed) and, when torch is importable, against torch's gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework.autograd.formulas.complex import conjugate

NpFn = Callable[..., Any]
rng = np.random.default_rng(0)
# Away from the branch cuts (on the real axis) and the poles of every operator below.
Z = np.array([0.4 + 0.3j, -0.3 + 0.5j, 0.2 - 0.6j])
W = np.array([0.7 - 0.2j, 0.5 + 0.4j, -0.6 - 0.3j])
V = np.array([0.3 + 0.8j, -0.5 + 0.2j, 0.9 - 0.1j])
G = rng.standard_normal(3) + 1j * rng.standard_normal(3)

UNARY: dict[str, NpFn] = {
    "exp": np.exp,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "rsqrt": lambda z: 1 / np.sqrt(z),
    "reciprocal": lambda z: 1 / z,
    "expm1": np.expm1,
    "log1p": np.log1p,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "square": lambda z: z * z,
    "exp2": lambda z: 2**z,
    "sgn": lambda z: z / np.abs(z),
    "neg": np.negative,
}
REAL_VALUED: dict[str, NpFn] = {"abs": np.abs, "angle": np.angle}
# name -> (framework call, NumPy function, number of tensor inputs)
MULTI: dict[str, tuple[Callable[..., framework.Tensor], NpFn, int]] = {
    "pow_tensor": (framework.pow, np.power, 2),
    "pow_scalar_exponent": (lambda a: framework.pow(a, 2.5 - 0.5j), lambda a: a ** (2.5 - 0.5j), 1),
    "pow_real_scalar_exponent": (lambda a: framework.pow(a, 3), lambda a: a**3, 1),
    "pow_scalar_base": (lambda e: framework.pow(1.5 + 0.5j, e), lambda e: (1.5 + 0.5j) ** e, 1),
    "lerp_tensor": (framework.lerp, lambda a, b, w: a + w * (b - a), 3),
    "lerp_scalar": (
        lambda a, b: framework.lerp(a, b, 0.3 + 0.2j),
        lambda a, b: a + (0.3 + 0.2j) * (b - a),
        2,
    ),
    "addcmul": (lambda a, b, c: framework.addcmul(a, b, c, value=0.5), lambda a, b, c: a + 0.5 * b * c, 3),
    "addcdiv": (lambda a, b, c: framework.addcdiv(a, b, c, value=2.0), lambda a, b, c: a + 2.0 * b / c, 3),
    "logaddexp": (framework.logaddexp, lambda a, b: np.log(np.exp(a) + np.exp(b)), 2),
}
INPUTS = (Z, W, V)


def _fd_grads(f: NpFn, inputs: tuple[np.ndarray, ...], g: np.ndarray) -> list[np.ndarray]:
    """dL/dx + i dL/dy of L = Re(sum(conj(g) f(inputs))) for each input, central differences."""
    h = 1e-6

    def loss(args: list[np.ndarray]) -> float:
        return float(np.real(np.sum(np.conj(g) * f(*args))))

    grads = []
    for k, x in enumerate(inputs):
        grad = np.zeros_like(x)
        for i in range(x.size):
            for step in (1.0, 1j):
                plus, minus = list(inputs), list(inputs)
                plus[k] = x.copy()
                minus[k] = x.copy()
                plus[k].flat[i] += h * step
                minus[k].flat[i] -= h * step
                grad.flat[i] += step * (loss(plus) - loss(minus)) / (2 * h)
        grads.append(grad)
    return grads


def _framework_grads(
    call: Callable[..., framework.Tensor], inputs: tuple[np.ndarray, ...], g: np.ndarray
) -> list[np.ndarray]:
    leaves = [framework.tensor(x, dtype=framework.complex128, requires_grad=True) for x in inputs]
    out = call(*leaves)
    grad_output = framework.tensor(g, dtype=out.dtype)
    return [t.numpy() for t in framework.autograd.grad(out, leaves, grad_output)]


def _torch_grads(
    name: str, call_args: tuple[Any, ...], inputs: tuple[np.ndarray, ...], g: np.ndarray
) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    leaves = [torch.tensor(x, dtype=torch.complex128, requires_grad=True) for x in inputs]
    out = getattr(torch, name)(*leaves, *call_args[0], **call_args[1])
    grad_output = torch.tensor(g, dtype=out.dtype)
    return [t.numpy() for t in torch.autograd.grad(out, leaves, grad_output)]


def _cases() -> list[tuple[str, Callable[..., framework.Tensor], NpFn, int, bool]]:
    cases = [(n, getattr(framework, n), f, 1, False) for n, f in UNARY.items()]
    cases += [(n, getattr(framework, n), f, 1, True) for n, f in REAL_VALUED.items()]
    cases += [(n, call, f, arity, False) for n, (call, f, arity) in MULTI.items()]
    return cases


CASES = _cases()


@pytest.mark.parametrize(("name", "call", "np_fn", "arity", "real_out"), CASES, ids=[c[0] for c in CASES])
def test_complex_grad_matches_finite_differences(
    name: str, call: Callable[..., framework.Tensor], np_fn: NpFn, arity: int, real_out: bool
) -> None:
    g = G.real if real_out else G
    inputs = INPUTS[:arity]
    got = _framework_grads(call, inputs, g)
    for actual, expected in zip(got, _fd_grads(np_fn, inputs, g), strict=True):
        assert actual.dtype == np.complex128
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)


TORCH_CALLS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]] = {
    "pow_tensor": ("pow", (), {}),
    "pow_scalar_exponent": ("pow", (2.5 - 0.5j,), {}),
    "pow_real_scalar_exponent": ("pow", (3,), {}),
    "lerp_tensor": ("lerp", (), {}),
    "lerp_scalar": ("lerp", (0.3 + 0.2j,), {}),
    "addcmul": ("addcmul", (), {"value": 0.5}),
    "addcdiv": ("addcdiv", (), {"value": 2.0}),
    "logaddexp": ("logaddexp", (), {}),
}


@pytest.mark.parametrize(
    ("name", "call", "arity", "real_out"),
    [(n, c, a, r) for n, c, _, a, r in CASES if n != "pow_scalar_base"],
    ids=[c[0] for c in CASES if c[0] != "pow_scalar_base"],
)
def test_complex_grad_matches_torch(
    name: str, call: Callable[..., framework.Tensor], arity: int, real_out: bool
) -> None:
    g = G.real if real_out else G
    inputs = INPUTS[:arity]
    torch_name, args, kwargs = TORCH_CALLS.get(name, (name, (), {}))
    expected = _torch_grads(torch_name, (args, kwargs), inputs, g)
    for actual, want in zip(_framework_grads(call, inputs, g), expected, strict=True):
        np.testing.assert_allclose(actual, want, rtol=1e-10, atol=1e-12)


def test_pow_zero_base_complex_exponent_matches_torch() -> None:
    """At a zero base the exponent's gradient is 0 only for a real exponent >= 0 (else NaN)."""
    torch = pytest.importorskip("torch")
    base = np.array([0j, 0j, 1 + 1j])
    exponent = np.array([1 + 1j, 2 + 0j, 0.5 + 0.5j])
    g = np.array([1.0 + 0.5j, -0.3 + 1j, 0.2 - 0.7j])
    got = _framework_grads(framework.pow, (base, exponent), g)
    leaves = [torch.tensor(x, requires_grad=True) for x in (base, exponent)]
    want = torch.autograd.grad(torch.pow(*leaves), leaves, torch.tensor(g))
    for actual, expected in zip(got, want, strict=True):
        np.testing.assert_allclose(actual, expected.numpy(), rtol=1e-10, atol=1e-12)


def test_real_inputs_get_real_gradients_without_conjugation() -> None:
    """The conjugation costs nothing for real tensors: `conjugate` returns the tensor itself."""
    x = framework.tensor([0.5, 1.5], requires_grad=True)
    assert conjugate(x) is x
    (grad,) = framework.autograd.grad(framework.exp(x).sum(), [x])
    assert grad.dtype == framework.float32
    np.testing.assert_allclose(grad.numpy(), np.exp([0.5, 1.5]).astype(np.float32), rtol=1e-6)


def test_real_input_of_complex_addcmul_gets_real_gradient() -> None:
    """A real tensor meeting complex ones receives the real part of its gradient, as in PyTorch."""
    base = framework.tensor([1.0, 2.0], dtype=framework.float64, requires_grad=True)
    t1 = framework.tensor([1 + 1j, 2 - 1j], dtype=framework.complex128, requires_grad=True)
    t2 = framework.tensor([0.5 + 2j, -1 + 0j], dtype=framework.complex128)
    g = np.array([1 + 2j, -1 + 0.5j])
    gb, g1 = framework.autograd.grad(
        framework.addcmul(base, t1, t2), [base, t1], framework.tensor(g, dtype=framework.complex128)
    )
    assert gb.dtype == framework.float64
    np.testing.assert_allclose(gb.numpy(), g.real)
    np.testing.assert_allclose(g1.numpy(), g * np.conj(t2.numpy()))


def _complex(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# The matrix products and products of elements: grad times the conjugated other factors.
# name -> (framework call, NumPy function, input shapes, torch name, torch keyword arguments)
PRODUCTS: dict[
    str, tuple[Callable[..., framework.Tensor], NpFn, list[tuple[int, ...]], str, dict[str, Any]]
] = {
    "mm": (framework.mm, np.matmul, [(2, 3), (3, 2)], "mm", {}),
    "mm_transposed": (lambda a, b: framework.mm(a, b.t()), lambda a, b: a @ b.T, [(2, 3), (2, 3)], "", {}),
    "bmm": (framework.bmm, np.matmul, [(2, 2, 3), (2, 3, 2)], "bmm", {}),
    "mv": (framework.mv, np.matmul, [(2, 3), (3,)], "mv", {}),
    "outer": (framework.outer, np.outer, [(2,), (3,)], "outer", {}),
    "dot": (framework.dot, lambda a, b: np.sum(a * b), [(3,), (3,)], "dot", {}),
    "matmul_batched": (framework.matmul, np.matmul, [(2, 2, 3), (3,)], "matmul", {}),
    "matmul_vector_matrix": (framework.matmul, np.matmul, [(3,), (3, 2)], "matmul", {}),
    "addmm": (
        lambda s, a, b: framework.addmm(s, a, b, beta=0.5j, alpha=2 - 1j),
        lambda s, a, b: 0.5j * s + (2 - 1j) * (a @ b),
        [(2, 2), (2, 3), (3, 2)],
        "addmm",
        {"beta": 0.5j, "alpha": 2 - 1j},
    ),
    "addmv": (
        lambda s, a, b: framework.addmv(s, a, b, alpha=2 - 1j),
        lambda s, a, b: s + (2 - 1j) * (a @ b),
        [(2,), (2, 3), (3,)],
        "addmv",
        {"alpha": 2 - 1j},
    ),
    "baddbmm": (
        lambda s, a, b: framework.baddbmm(s, a, b, beta=0.5j),
        lambda s, a, b: 0.5j * s + a @ b,
        [(2, 2, 2), (2, 2, 3), (2, 3, 2)],
        "baddbmm",
        {"beta": 0.5j},
    ),
    "addbmm": (
        lambda s, a, b: framework.addbmm(s, a, b, alpha=2 - 1j),
        lambda s, a, b: s + (2 - 1j) * (a @ b).sum(0),
        [(2, 2), (2, 2, 3), (2, 3, 2)],
        "addbmm",
        {"alpha": 2 - 1j},
    ),
    "prod": (framework.prod, np.prod, [(4,)], "prod", {}),
    "prod_dim": (lambda a: framework.prod(a, 1), lambda a: np.prod(a, 1), [(2, 3)], "prod", {"dim": 1}),
    "cumprod": (lambda a: framework.cumprod(a, 0), lambda a: np.cumprod(a, 0), [(4,)], "cumprod", {"dim": 0}),
}


PRODUCT_CASES = [(n, False) for n in PRODUCTS] + [(n, True) for n in ("prod", "prod_dim", "cumprod")]


@pytest.mark.parametrize(("name", "with_zero"), PRODUCT_CASES, ids=[f"{n}-{z}" for n, z in PRODUCT_CASES])
def test_complex_product_grads(name: str, with_zero: bool) -> None:
    """A zero among the elements of a product switches prod/cumprod to their other formula."""
    call, np_fn, shapes, torch_name, kwargs = PRODUCTS[name]
    inputs = tuple(_complex(*shape) for shape in shapes)
    if with_zero:
        inputs[0].flat[1] = 0
    g = np.asarray(_complex(*np.shape(np_fn(*inputs))))
    got = _framework_grads(call, inputs, g)
    for actual, expected in zip(got, _fd_grads(np_fn, inputs, g), strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)
    if torch_name:
        torch = pytest.importorskip("torch")
        leaves = [torch.tensor(x, requires_grad=True) for x in inputs]
        out = getattr(torch, torch_name)(*leaves, **kwargs)
        want = torch.autograd.grad(out, leaves, torch.tensor(g))
        for actual, expected in zip(got, want, strict=True):
            np.testing.assert_allclose(actual, expected.numpy(), rtol=1e-10, atol=1e-12)
