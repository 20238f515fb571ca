"""linalg.ldl_factor(_ex) and linalg.ldl_solve: LAPACK's Bunch-Kaufman pivots (recorded from
PyTorch, and compared live when torch is importable), solutions checked with NumPy, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import framework as torch

_DTYPES = {np.float32: torch.float32, np.float64: torch.float64, np.complex128: torch.complex128}


def _symmetric(rng: np.random.Generator, shape: tuple[int, ...], dt: Any, hermitian: bool) -> Any:
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    t = np.swapaxes(a, -1, -2)
    return (a + (t.conj() if hermitian else t)).astype(dt)


def test_pivots_recorded() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 6, 6))
    LD, pivots = torch.linalg.ldl_factor(torch.tensor(a + np.swapaxes(a, -1, -2)))
    assert pivots.dtype == torch.int32 and LD.dtype == torch.float64
    assert pivots.tolist() == [[3, 2, -5, -5, 5, 6], [-6, -6, -5, -5, 5, 6], [1, 2, -6, -6, 6, 6]]
    assert np.array_equal(LD.numpy(), np.tril(LD.numpy()))
    c = rng.standard_normal((6, 6)) + 1j * rng.standard_normal((6, 6))
    assert torch.linalg.ldl_factor(torch.tensor(c + c.T)).pivots.tolist() == [1, 3, 3, 4, 5, 6]
    herm = torch.linalg.ldl_factor(torch.tensor(c + c.conj().T), hermitian=True).pivots
    assert herm.tolist() == [1, 5, -4, -4, 5, 6]


@pytest.mark.parametrize("dt", list(_DTYPES))
@pytest.mark.parametrize("hermitian", [False, True])
def test_solve_inverts(dt: Any, hermitian: bool) -> None:
    rng = np.random.default_rng(1)
    a = _symmetric(rng, (3, 5, 5), dt, hermitian)
    b = rng.standard_normal((5, 2)).astype(dt)
    LD, pivots, info = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=hermitian)
    assert info.tolist() == [0, 0, 0] and LD.dtype == _DTYPES[dt]
    x = torch.linalg.ldl_solve(LD, pivots, torch.tensor(b), hermitian=hermitian)
    assert x.shape == (3, 5, 2) and x.dtype == _DTYPES[dt]
    tol = 1e-3 if dt is np.float32 else 1e-10
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=tol, atol=tol)


def test_same_as_torch() -> None:
    real_torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for shape, dt, hermitian in [
        ((4, 7, 7), np.float64, False),
        ((70, 70), np.float64, False),
        ((3, 6, 6), np.complex128, True),
        ((3, 6, 6), np.complex64, False),
    ]:
        a = rng.standard_normal(shape).astype(dt)
        if np.dtype(dt).kind == "c":
            a = a + 1j * rng.standard_normal(shape).astype(dt)
        expected = real_torch.linalg.ldl_factor_ex(real_torch.from_numpy(a), hermitian=hermitian)
        got = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=hermitian)
        assert np.array_equal(got.pivots.numpy(), expected.pivots.numpy())
        np.testing.assert_allclose(got.LD.numpy(), expected.LD.numpy(), rtol=1e-4, atol=1e-4)


def test_singular_and_empty() -> None:
    LD, pivots, info = torch.linalg.ldl_factor_ex(torch.zeros(2, 3, 3))
    assert info.tolist() == [1, 1] and pivots.tolist() == [[1, 2, 3]] * 2
    with pytest.raises(RuntimeError, match=r"torch.linalg.ldl_factor: Unknown error code: 1\."):
        torch.linalg.ldl_factor(torch.zeros(3, 3))
    with pytest.raises(RuntimeError, match="ldl_factor_ex: Unknown error code: 1"):
        torch.linalg.ldl_factor_ex(torch.zeros(3, 3), check_errors=True)
    LD, pivots, info = torch.linalg.ldl_factor_ex(torch.zeros(2, 0, 0))
    assert LD.shape == (2, 0, 0) and pivots.shape == (2, 0) and info.tolist() == [0, 0]
    meta = torch.linalg.ldl_factor(torch.empty(4, 3, 3, device="meta"))
    assert meta.LD.shape == (4, 3, 3) and meta.pivots.shape == (4, 3)


def test_broadcast_solve() -> None:
    rng = np.random.default_rng(3)
    a = _symmetric(rng, (2, 4, 4), np.float64, False)
    LD, pivots = torch.linalg.ldl_factor(torch.tensor(a))
    b = rng.standard_normal((3, 1, 4, 2))
    x = torch.linalg.ldl_solve(LD, pivots.long(), torch.tensor(b))
    assert x.shape == (3, 2, 4, 2)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)


_A = torch.tensor(np.eye(3) * 2)
_LD, _P = torch.linalg.ldl_factor(_A)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: torch.linalg.ldl_factor(torch.ones(3)), RuntimeError, "at least 2 dimensions"),
        (lambda: torch.linalg.ldl_factor(torch.ones(3, 4)), RuntimeError, "3 by 4 matrices"),
        (lambda: torch.linalg.ldl_factor(torch.ones(3, 3, dtype=torch.int64)), RuntimeError, "Got Long"),
        (
            lambda: torch.linalg.ldl_factor(torch.ones(3, 3, dtype=torch.float16)),
            NotImplementedError,
            "\"ldl_factor_kernel_cpu\" not implemented for 'Half'",
        ),
        (
            lambda: torch.linalg.ldl_solve(_LD, _P[:2], torch.ones(3, 1, dtype=torch.float64)),
            RuntimeError,
            r"Expected LD.shape\[:-1\] and pivots.shape to be the same, but got pivots with shape \[2\]",
        ),
        (
            lambda: torch.linalg.ldl_solve(_LD, _P.double(), torch.ones(3, 1, dtype=torch.float64)),
            RuntimeError,
            "Expected pivots to be integers. Got Double",
        ),
        (
            lambda: torch.linalg.ldl_solve(_LD, _P, torch.ones(3, 1)),
            RuntimeError,
            "Expected b and A to have the same dtype, but found b of type Float and A of type Double",
        ),
        (
            lambda: torch.linalg.ldl_solve(_LD, _P, torch.ones(4, 1, dtype=torch.float64)),
            RuntimeError,
            "each A matrix is 3 by 3 but each b matrix is 4 by 1",
        ),
        (
            lambda: torch.linalg.ldl_solve(_LD, _P, torch.ones(3, dtype=torch.float64)),
            IndexError,
            "Dimension out of range",
        ),
    ],
)
def test_errors(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_no_derivatives() -> None:
    a = torch.tensor(np.eye(3) * 2, requires_grad=True)
    LD, pivots, _ = torch.linalg.ldl_factor_ex(a)
    assert LD.grad_fn is not None and LD.grad_fn.name() == "torch::autograd::NotImplemented"
    assert not pivots.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LD.sum().backward()
