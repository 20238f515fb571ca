"""Complex operators (angle, polar, complex, conj_physical) and the lazy conjugate/negative views:
values against NumPy, the bits after each view and operator, reads outside the dispatcher, in-place
writes through a view with a bit, autograd through them, and PyTorch's errors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

Z = np.array([1 + 2j, 3 - 4j, -0.5 + 0j, 0j])


def _z() -> Tensor:
    return framework.tensor(Z)


# ---- angle, polar, complex, conj_physical ---------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "dtype", "expected_dtype"),
    [
        (Z, framework.complex128, framework.float64),
        (Z, framework.complex64, framework.float32),
        ([-1.0, math.nan, -0.0, 2.0], framework.float32, framework.float32),
        ([1, -2, 0], framework.int64, framework.float32),
        ([True, False], framework.bool, framework.float32),
    ],
)
def test_angle(values: Any, dtype: framework.dtype, expected_dtype: framework.dtype) -> None:
    t = framework.tensor(values, dtype=dtype)
    result = framework.angle(t)
    assert result.dtype == expected_dtype
    a = np.asarray(values)
    expected = np.angle(a) if a.dtype.kind == "c" else np.where(a < 0, math.pi, np.where(np.isnan(a), a, 0.0))
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
    assert t.angle().dtype == expected_dtype
    out = framework.empty(0, dtype=framework.complex64)
    assert framework.angle(t, out=out) is out and out.dtype == framework.complex64
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        framework.angle(t, out=framework.empty(0, dtype=framework.int64))


def test_polar_and_complex() -> None:
    magnitude = framework.tensor([[1.0], [2.0]])
    angle = framework.tensor([0.5, -1.0, 3.0])
    result = framework.polar(magnitude, angle)
    assert result.dtype == framework.complex64 and result.shape == (2, 3)
    np.testing.assert_allclose(result.numpy(), magnitude.numpy() * np.exp(1j * angle.numpy()), rtol=1e-6)
    real = framework.tensor([1.0, -2.0], dtype=framework.float64)
    made = framework.complex(real, real.flip(0))
    assert made.dtype == framework.complex128
    np.testing.assert_array_equal(made.numpy(), [1 - 2j, -2 + 1j])
    out = framework.empty(0, dtype=framework.complex128)
    assert framework.complex(real, real, out=out) is out and out.tolist() == [1 + 1j, -2 - 2j]


@pytest.mark.parametrize("op", [framework.complex, framework.polar])
def test_polar_and_complex_errors(op: Callable[..., Tensor]) -> None:
    f, d = framework.ones(1), framework.ones(1, dtype=framework.float64)
    i = framework.ones(1, dtype=framework.int64)
    with pytest.raises(RuntimeError, match="Half, Float or Double tensors but got Long and Float"):
        op(i, f)
    with pytest.raises(RuntimeError, match="type Double but got scalar type Float for second argument"):
        op(d, f)
    with pytest.raises(RuntimeError, match="type ComplexFloat but got scalar type Float for argument 'out'"):
        op(f, f, out=framework.empty(0))


def test_conj_physical() -> None:
    z = _z()
    result = framework.conj_physical(z)
    assert not result.is_conj()
    np.testing.assert_array_equal(result.numpy(), Z.conj())
    np.testing.assert_array_equal(z.conj().conj_physical().numpy(), Z)
    real = framework.tensor([1.0, 2.0])
    assert framework.conj_physical(real) is real and real.conj_physical_() is real
    out = framework.empty(0, dtype=framework.complex128)
    np.testing.assert_array_equal(framework.conj_physical(z.conj(), out=out).numpy(), Z)
    w = z.clone()
    assert w.conj_physical_() is w
    np.testing.assert_array_equal(w.numpy(), Z.conj())


# ---- the bits --------------------------------------------------------------------------------


BIT_CASES: list[tuple[str, Callable[[Tensor], Tensor], bool, bool]] = [
    ("conj", lambda z: z.conj(), True, False),
    ("conj twice", lambda z: z.conj().conj(), False, False),
    ("view of conj", lambda z: z.conj().view(2, 2).t()[0], True, False),
    ("detach", lambda z: z.conj().detach(), True, False),
    ("clone", lambda z: z.conj().clone(), False, False),
    ("resolve_conj", lambda z: z.conj().resolve_conj(), False, False),
    ("empty_like", lambda z: framework.empty_like(z.conj()), False, False),
    ("to same dtype", lambda z: z.conj().to(framework.complex128), True, False),
    ("to other dtype", lambda z: z.conj().to(framework.complex64), False, False),
    ("add", lambda z: z.conj() + 1, False, False),
    ("imag of conj", lambda z: z.conj().imag, False, True),
    ("real of conj", lambda z: z.conj().real, False, False),
    ("neg view", lambda z: z._neg_view(), False, True),
    ("neg view twice", lambda z: z._neg_view()._neg_view(), False, False),
    ("conj of neg view", lambda z: z._neg_view().conj(), True, True),
    ("resolve_neg", lambda z: z._neg_view().resolve_neg(), False, False),
    ("mH", lambda z: z.view(2, 2).mH, True, False),
]


@pytest.mark.parametrize(("name", "make", "conj", "neg"), BIT_CASES, ids=[c[0] for c in BIT_CASES])
def test_bits(name: str, make: Callable[[Tensor], Tensor], conj: bool, neg: bool) -> None:
    result = make(_z())
    assert (result.is_conj(), result.is_neg()) == (conj, neg)
    assert (framework.is_conj(result), framework.is_neg(result)) == (conj, neg)


def test_real_tensors_have_no_conj_view() -> None:
    real = framework.tensor([1.0, -2.0])
    assert real.conj() is real and real.resolve_conj() is real and not real.conj().is_conj()
    assert real.view(1, 2).mH.shape == (2, 1) and not real.view(1, 2).mH.is_conj()


def test_reads_see_the_bits() -> None:
    c = _z().conj()
    assert c.tolist() == list(Z.conj()) and c[1].item() == 3 + 4j
    assert repr(c[:2]) == "tensor([1.-2.j, 3.+4.j], dtype=framework.complex128)"
    assert c.imag.tolist() == list(-Z.imag) and c.real.tolist() == list(Z.real)
    np.testing.assert_array_equal(c.numpy(force=True), Z.conj())
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that has conjugate bit set"):
        c.numpy()
    with pytest.raises(RuntimeError, match=r"Use tensor.resolve_neg\(\).numpy\(\) instead"):
        np.asarray(c.imag)
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated tensors"):
        framework.view_as_real(c)
    np.testing.assert_array_equal(framework.view_as_real(c.resolve_conj()).numpy()[:, 1], -Z.imag)
    np.testing.assert_array_equal(c[framework.tensor([1, 0])].numpy(force=True), Z.conj()[[1, 0]])


def test_operators_see_the_bits() -> None:
    z = _z()
    c, n = z.conj(), z._neg_view()
    np.testing.assert_array_equal((c * 2).numpy(), 2 * Z.conj())
    np.testing.assert_array_equal(framework.cat([c, n]).numpy(), np.concatenate([Z.conj(), -Z]))
    np.testing.assert_array_equal(c.sum().numpy(), Z.conj().sum())
    np.testing.assert_array_equal(framework.abs(n).numpy(), np.abs(Z))
    np.testing.assert_array_equal(n.conj().resolve_conj().numpy(force=True), -Z.conj())


def test_writes_through_the_bits() -> None:
    z = _z()
    z.conj().mul_(2j)
    np.testing.assert_array_equal(z.numpy(), (Z.conj() * 2j).conj())
    z = _z()
    z.conj()[0] = 5j
    assert z[0].item() == -5j
    z = _z()
    z.conj().imag.add_(1)
    np.testing.assert_array_equal(z.numpy(), Z - 1j)
    z = _z()
    z.copy_(z.conj())
    np.testing.assert_array_equal(z.numpy(), Z.conj())
    w = framework.zeros(4, dtype=framework.complex128)
    w.conj().copy_(_z())
    np.testing.assert_array_equal(w.numpy(), Z.conj())
    c = _z().view(2, 2).conj()
    assert c.t_() is c and c.is_conj() and c.tolist() == Z.conj().reshape(2, 2).T.tolist()
    out = framework.zeros(4, dtype=framework.complex128)
    framework.add(_z(), 1, out=out.conj())
    np.testing.assert_array_equal(out.numpy(), (Z + 1).conj())


# ---- autograd --------------------------------------------------------------------------------


def test_abs_of_complex_backward() -> None:
    z = framework.tensor(Z[:3], requires_grad=True)
    z.abs().sum().backward()
    assert z.grad is not None
    np.testing.assert_allclose(z.grad.numpy(), Z[:3] / np.abs(Z[:3]))


def test_grad_through_conj_views() -> None:
    x = framework.tensor(Z[:2], requires_grad=True)
    weights = framework.tensor([1 + 1j, 2])
    (x.conj() * weights).real.sum().backward()
    assert x.grad is not None and x.grad.is_conj()  # the stolen ConjBackward0 output, as in PyTorch
    np.testing.assert_allclose(x.grad.numpy(force=True), [1 + 1j, 2])  # d Re(conj(x) w) = w
    x.grad = None
    y = x.clone()
    c = y.conj()
    c.mul_(2j)
    assert c.grad_fn is not None and c.grad_fn.name() == "ConjBackward0"
    assert y.grad_fn is not None and y.grad_fn.name() == "torch::autograd::CopySlices"
    (y * weights).imag.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(force=True), [-2 + 2j, -4])  # values from PyTorch 2.13


def _conj_view_grads(lib: Any) -> Any:
    x = lib.tensor(Z[:3], requires_grad=True)
    y = x.clone()
    y[1:].conj().mul_(1 + 2j)
    (y * lib.tensor([2j, 1, 1 - 1j])).real.sum().backward()
    return x.grad, y.grad_fn.name()


def test_against_torch() -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = _conj_view_grads(framework), _conj_view_grads(torch)
    np.testing.assert_allclose(ours[0].numpy(force=True), theirs[0].numpy(force=True))
    assert ours[1] == theirs[1]
    for make in (lambda lib: lib.tensor(Z).conj(), lambda lib: lib.tensor(Z).conj().imag):
        assert repr(make(framework)).replace("framework", "torch") == repr(make(torch))
