"""Deprecated and removed top-level linear algebra: torch.cholesky (warns once), matrix_power,
and solve/lstsq/eig/symeig/matrix_rank, which raise PyTorch's RuntimeError."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import framework as torch
from framework._tensor import _WARNED

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def _spd(n: int = 3) -> Any:
    a = np.random.default_rng(0).standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def test_cholesky_values_and_warning() -> None:
    a = _spd()
    _WARNED.discard("cholesky")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower = torch.cholesky(torch.tensor(a))
        upper = torch.tensor(a).cholesky(upper=True)
    assert len(caught) == 1 and "torch.cholesky is deprecated in favor of torch.linalg.cholesky" in str(
        caught[0].message
    )
    np.testing.assert_allclose(lower.numpy(), np.linalg.cholesky(a), rtol=1e-12)
    np.testing.assert_allclose(upper.numpy(), np.linalg.cholesky(a).T, rtol=1e-12)
    x = torch.tensor(a, requires_grad=True)
    assert torch.cholesky(x).grad_fn.name() == "CholeskyBackward0"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("a", "error", "match"),
    [
        (torch.ones(3), RuntimeError, "cholesky: The input tensor A must have at least 2 dimensions."),
        (torch.ones(2, 3), RuntimeError, "cholesky: A must be batches of square matrices"),
        (
            torch.ones(2, 2, dtype=torch.int64),
            NotImplementedError,
            "\"cholesky_cpu\" not implemented for 'Long'",
        ),
        (torch.ones(2, 2, 2), RuntimeError, r"cholesky: \(Batch element 0\): The factorization could not"),
    ],
)
def test_cholesky_errors(a: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        torch.cholesky(a)


def test_matrix_power() -> None:
    a = np.random.default_rng(1).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(torch.matrix_power(torch.tensor(a), 3).numpy(), np.linalg.matrix_power(a, 3))
    np.testing.assert_allclose(torch.tensor(a).matrix_power(-2).numpy(), np.linalg.matrix_power(a, -2))
    with pytest.raises(RuntimeError, match=r"linalg\.matrix_power: A must be batches of square matrices"):
        torch.matrix_power(torch.ones(2, 3), 2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda a: torch.solve(a, a), "`torch.solve` is deprecated in favor of `torch.linalg.solve`"),
        (lambda a: a.solve(a), "X = torch.linalg.solve"),
        (lambda a: torch.lstsq(a, a), "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`"),
        (lambda a: a.lstsq(a), "X = torch.linalg.lstsq"),
        (lambda a: torch.eig(a, True), "L_complex, V_complex = torch.linalg.eig"),
        (lambda a: a.eig(), "L_complex = torch.linalg.eigvals"),
        (lambda a: torch.symeig(a), "L = torch.linalg.eigvalsh"),
        (lambda a: a.symeig(eigenvectors=True), "L, V = torch.linalg.eigh"),
        (lambda a: torch.matrix_rank(a, symmetric=True), "Please use the `torch.linalg.matrix_rank`"),
    ],
)
def test_removed(call: Any, match: str) -> None:
    with pytest.raises(RuntimeError, match=match) as raised:
        call(torch.eye(2))
    assert str(raised.value).startswith(_REMOVED)


def test_removed_same_text_as_torch() -> None:
    real_torch = pytest.importorskip("torch")
    for name in ("solve", "lstsq", "eig", "symeig", "matrix_rank"):
        args = 2 if name in ("solve", "lstsq") else 1
        with pytest.raises(RuntimeError) as expected:
            getattr(real_torch, name)(*[real_torch.eye(2)] * args)
        with pytest.raises(RuntimeError) as got:
            getattr(torch, name)(*[torch.eye(2)] * args)
        assert str(got.value) == str(expected.value)
