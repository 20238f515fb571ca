"""`framework.autograd.functional` (vjp, jvp, jacobian, hessian, vhp, hvp) against closed-form
derivatives (NumPy) and, when PyTorch is installed, against `torch.autograd.functional`: values,
output structure, graphs with `create_graph`, and strict-mode errors."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor
from framework.autograd import functional as F

RNG = np.random.default_rng(0)
A = RNG.standard_normal(3)
B = RNG.standard_normal((2, 3))


def _x() -> Tensor:
    return framework.tensor(A)


def _y() -> Tensor:
    return framework.tensor(B)


def _np(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_np(v) for v in value)
    return value.detach().numpy()


def test_jacobian_of_one_input_and_output() -> None:
    jac = F.jacobian(lambda a: a.sin() * a, _x())
    assert isinstance(jac, Tensor) and jac.shape == (3, 3) and not jac.requires_grad
    np.testing.assert_allclose(jac.numpy(), np.diag(np.cos(A) * A + np.sin(A)), rtol=1e-12)


def test_jacobian_structure_for_tuples() -> None:
    def f(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return a.exp() * b, (a * b).sum()

    jac = F.jacobian(f, (_x(), _y()))
    assert isinstance(jac, tuple) and len(jac) == 2
    (d0a, d0b), (d1a, d1b) = jac  # type: ignore[misc]
    assert d0a.shape == (2, 3, 3) and d0b.shape == (2, 3, 2, 3) and d1a.shape == (3,) and d1b.shape == (2, 3)
    np.testing.assert_allclose(d1a.numpy(), B.sum(0), rtol=1e-12)
    np.testing.assert_allclose(d1b.numpy(), np.broadcast_to(A, (2, 3)), rtol=1e-12)
    expected = np.zeros((2, 3, 3))
    for i in range(2):
        expected[i] = np.diag(np.exp(A) * B[i])
    np.testing.assert_allclose(d0a.numpy(), expected, rtol=1e-12)
    single_input = F.jacobian(lambda a: (a * 2, a.sum()), _x())
    assert isinstance(single_input, tuple) and all(isinstance(j, Tensor) for j in single_input)


def test_jacobian_of_an_unused_input_is_zeros_unless_strict() -> None:
    jac = F.jacobian(lambda a, b: a * 2, (_x(), _y()))
    assert isinstance(jac, tuple) and _np(jac[1]).shape == (3, 2, 3) and not _np(jac[1]).any()
    with pytest.raises(
        RuntimeError,
        match=r"^Output 0 of the user-provided function is independent of input 1\. This is not allowed in "
        r"strict mode\.$",
    ):
        F.jacobian(lambda a, b: a * 2, (_x(), _y()), strict=True)


def test_hessian() -> None:
    hess = F.hessian(lambda a: (a**3).sum(), _x())
    np.testing.assert_allclose(_np(hess), np.diag(6 * A), rtol=1e-12)
    blocks = F.hessian(lambda a, b: (a.sin() * b).sum(), (_x(), _y()))
    (aa, ab), (ba, bb) = blocks  # type: ignore[misc]
    assert aa.shape == (3, 3) and ab.shape == (3, 2, 3) and ba.shape == (2, 3, 3) and bb.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(aa.numpy(), np.diag(-np.sin(A) * B.sum(0)), rtol=1e-12)
    assert not bb.numpy().any()


def test_products() -> None:
    x, y, ones = _x(), _y(), framework.ones(3)
    out, vjp = F.vjp(lambda a: a.sin() * a, x, ones)
    np.testing.assert_allclose(_np(vjp), np.cos(A) * A + np.sin(A), rtol=1e-12)
    np.testing.assert_allclose(_np(out), np.sin(A) * A, rtol=1e-12)
    out, jvp = F.jvp(lambda a, b: a * b, (x, y), (ones, framework.ones(2, 3)))
    np.testing.assert_allclose(_np(jvp), A + B, rtol=1e-12)
    out, hvp = F.hvp(lambda a: (a**3).sum(), x, ones)
    np.testing.assert_allclose(_np(hvp), 6 * A, rtol=1e-12)
    np.testing.assert_allclose(_np(out), (A**3).sum(), rtol=1e-12)
    out, vhp = F.vhp(lambda a: (a**3).sum(), x, ones)
    np.testing.assert_allclose(_np(vhp), 6 * A, rtol=1e-12)
    _, scalar = F.vjp(lambda a: (a * 3).sum(), x)
    np.testing.assert_allclose(_np(scalar), np.full(3, 3.0))


def test_create_graph_keeps_results_differentiable() -> None:
    x = _x().requires_grad_()
    out, vjp = F.vjp(lambda a: a**2, x, framework.ones(3), create_graph=True)
    assert out.requires_grad and vjp.requires_grad  # type: ignore[union-attr]
    (second,) = framework.autograd.grad(vjp.sum(), x)  # type: ignore[union-attr]
    np.testing.assert_allclose(_np(second), np.full(3, 2.0))
    _, plain = F.vjp(lambda a: a**2, x, framework.ones(3))
    assert not plain.requires_grad  # type: ignore[union-attr]
    hess = F.hessian(lambda a: (a**3).sum(), x, create_graph=True)
    assert isinstance(hess, Tensor) and hess.requires_grad


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: F.jacobian(lambda a: a, [_x()]),
            TypeError,
            "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given "
            "inputs has type <class 'list'>.",
        ),
        (
            lambda: F.jacobian(lambda a: 3, _x()),
            TypeError,
            "The outputs of the user-provided function given to jacobian must be either a Tensor or a "
            "tuple of Tensors but the given outputs of the user-provided function has type <class 'int'>.",
        ),
        (
            lambda: F.vjp(lambda a: a * 2, _x()),
            RuntimeError,
            "The vector v can only be None if the user-provided function returns a single Tensor with a "
            "single element.",
        ),
        (
            lambda: F.jvp(lambda a: a * 2, _x()),
            RuntimeError,
            "The vector v can only be None if the input to the user-provided function is a single Tensor "
            "with a single element.",
        ),
        (
            lambda: F.vjp(lambda a: a * 2, _x(), framework.ones(2)),
            RuntimeError,
            "v has invalid size: should be framework.Size([3]) but got framework.Size([2]).",
        ),
        (
            lambda: F.vjp(lambda a, b: (a * 2, b * 3), (_x(), _y()), framework.ones(3)),
            RuntimeError,
            "v is a tuple of invalid length: should be 2 but got 1.",
        ),
        (
            lambda: F.hessian(lambda a: a * 2, _x()),
            RuntimeError,
            "The Tensor returned by the function given to hessian should contain a single element",
        ),
        (
            lambda: F.hvp(lambda a: (a,), _x(), framework.ones(3)),
            RuntimeError,
            "The function given to hvp should return a single Tensor",
        ),
        (
            lambda: F.vjp(lambda a: framework.ones(3), _x(), framework.ones(3), strict=True),
            RuntimeError,
            "Output 0 of the user-provided function does not require gradients.",
        ),
        (
            lambda: F.hessian(lambda a: a.sum() * 2, _x(), strict=True),
            RuntimeError,
            "While computing the hessian, found that the jacobian of the user-provided function with "
            "respect to input 0 is independent of the input.",
        ),
        (
            lambda: F.jacobian(lambda a: a, _x(), strategy="x"),
            AssertionError,
            'Expected strategy to be either "forward-mode" or "reverse-mode".',
        ),
        (
            lambda: F.jacobian(lambda a: a, _x(), strict=True, vectorize=True),
            RuntimeError,
            "`strict=True` and `vectorized=True` are not supported together.",
        ),
        (
            lambda: F.jacobian(lambda a: a, _x(), vectorize=True),
            NotImplementedError,
            "vectorize=True needs batched gradients",
        ),
        (
            lambda: F.jacobian(lambda a: a, _x(), strategy="forward-mode"),
            NotImplementedError,
            "strategy='forward-mode' needs forward-mode AD",
        ),
    ],
)
def test_errors(call: Callable[[], object], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


CASES: dict[str, Callable[[Any], Any]] = {
    "jacobian": lambda m: m.autograd.functional.jacobian(
        lambda a, b: (a.exp() * b, (a * b).sum()), (m.tensor(A), m.tensor(B))
    ),
    "hessian": lambda m: m.autograd.functional.hessian(
        lambda a, b: (a.sin() * b).sum(), (m.tensor(A), m.tensor(B))
    ),
    "vjp": lambda m: m.autograd.functional.vjp(
        lambda a, b: a.tanh() * b, (m.tensor(A), m.tensor(B)), m.ones(2, 3)
    ),
    "jvp": lambda m: m.autograd.functional.jvp(
        lambda a, b: (a.exp() * b, (a * b).sum()), (m.tensor(A), m.tensor(B)), (m.ones(3), m.ones(2, 3))
    ),
    "hvp": lambda m: m.autograd.functional.hvp(
        lambda a, b: (a.sin() * b).sum(), (m.tensor(A), m.tensor(B)), (m.ones(3), m.ones(2, 3))
    ),
    "vhp": lambda m: m.autograd.functional.vhp(lambda a: (a.exp() * a).sum(), m.tensor(A), m.ones(3)),
}


def _flat(value: Any) -> Any:
    if isinstance(value, tuple):
        return ("tuple", [_flat(v) for v in value])
    return value.detach().numpy()


def _assert_same(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, tuple):
        assert ours[0] == "tuple" and len(ours[1]) == len(theirs[1])
        for a, b in zip(ours[1], theirs[1], strict=True):
            _assert_same(a, b)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_pytorch(name: str) -> None:
    pytest.importorskip("torch")
    torch = importlib.import_module("torch")
    _assert_same(_flat(CASES[name](framework)), _flat(CASES[name](torch)))
