"""torch.svd_lowrank and torch.pca_lowrank: exact on low-rank matrices, singular values of
NumPy's SVD, PCA variances of NumPy's covariance, wide/batched/M inputs, errors; the same
singular values as PyTorch for one seed (when torch is importable)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import framework as torch


def _low_rank(shape: tuple[int, ...], rank: int, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((*shape[:-1], rank)) @ rng.standard_normal((*shape[:-2], rank, shape[-1]))


@pytest.mark.parametrize("shape", [(12, 7), (6, 15), (2, 9, 8)])
def test_svd_lowrank_exact_on_low_rank(shape: tuple[int, ...]) -> None:
    a = _low_rank(shape, 3, seed=0)
    torch.manual_seed(0)
    U, S, V = torch.svd_lowrank(torch.tensor(a), q=4)
    assert (
        U.shape == (*shape[:-1], 4) and S.shape == (*shape[:-2], 4) and V.shape == (*shape[:-2], shape[-1], 4)
    )
    u, s, v = U.numpy(), S.numpy(), V.numpy()
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-10)
    np.testing.assert_allclose(s[..., :3], np.linalg.svd(a, compute_uv=False)[..., :3], rtol=1e-10)
    np.testing.assert_allclose(
        np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(4), (*shape[:-2], 4, 4)), atol=1e-12
    )


def test_svd_lowrank_with_M() -> None:
    a = _low_rank((10, 6), 2, seed=1)
    mean = np.random.default_rng(2).standard_normal(6)
    torch.manual_seed(1)
    U, S, V = torch.svd_lowrank(torch.tensor(a + mean), q=3, niter=None, M=torch.tensor(mean))
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, a, atol=1e-10)


def test_pca_lowrank_variances() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((50, 4)) * np.array([3.0, 2.0, 1.0, 0.5]) + 7.0
    torch.manual_seed(2)
    U, S, V = torch.pca_lowrank(torch.tensor(a))
    assert S.shape == (4,) and V.shape == (4, 4) and U.shape == (50, 4)
    variances = np.sort(np.linalg.eigvalsh(np.cov(a.T)))[::-1]
    np.testing.assert_allclose(S.numpy() ** 2 / 49, variances, rtol=1e-10)
    _, S_raw, _ = torch.pca_lowrank(torch.tensor(a), center=False)
    np.testing.assert_allclose(S_raw.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)


def test_pca_lowrank_errors() -> None:
    with pytest.raises(
        ValueError, match=r"q\(=5\) must be non-negative integer and not greater than min\(m, n\)=3"
    ):
        torch.pca_lowrank(torch.ones(3, 4), q=5)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        torch.pca_lowrank(torch.ones(3, 4), niter=-1)


def test_same_singular_values_as_torch() -> None:
    real_torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((20, 8))
    results = []
    for lib in (real_torch, torch):
        lib.manual_seed(5)
        results.append(lib.svd_lowrank(lib.tensor(a), q=4, niter=1)[1].numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)
