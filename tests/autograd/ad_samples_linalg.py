"""Sample inputs of the linear-algebra entries of derivatives.yaml (framework/autograd/formulas/linalg.py).

Matrices are well conditioned (a random matrix plus a multiple of the identity), symmetric inputs
positive-definite with distinct eigenvalues, and singular values distinct, so that the
decompositions are differentiable at the samples.  Operators that read one triangle of a
symmetric matrix (cholesky, eigh) get `prepare=A + A^T`, as PyTorch's own tests do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _rand(*shape: int, seed: int = 0) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _well_conditioned(*shape: int, seed: int = 0) -> Tensor:
    """A random (batch of) square matrices plus 3 I."""
    a = np.random.default_rng(seed).standard_normal(shape) + 3 * np.eye(shape[-1])
    return framework.from_numpy(a)


def _spd_half(*shape: int, seed: int = 0) -> Tensor:
    """M such that M + M^T is symmetric positive-definite with distinct eigenvalues."""
    n = shape[-1]
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    values = np.arange(1, n + 1) + rng.uniform(0.1, 0.4, (*shape[:-2], n))
    spd = q @ (values[..., None] * np.swapaxes(q, -1, -2))
    return framework.from_numpy(0.5 * spd + np.triu(rng.standard_normal(shape), 1) * 0.1)


def _symmetrize(a: Any) -> Any:
    return a + a.transpose(-2, -1)


def _vector_norm() -> list[Sample]:
    x = _rand(3, 4, seed=1)
    return [
        Sample((x,)),
        Sample((x, 3, [1], True), desc="ord 3 over dim 1, keepdim"),
        Sample((x, 1, [0])),
        Sample((x, float("inf")), desc="inf: a unique maximum"),
        Sample((x, 2, None, False), {"dtype": framework.float64}),
    ]


def _inv_ex() -> list[Sample]:
    return [Sample((_well_conditioned(3, 3),)), Sample((_well_conditioned(2, 3, 3, seed=1),), desc="batch")]


def _det() -> list[Sample]:
    return [
        Sample((_well_conditioned(3, 3),)),
        Sample((_rand(2, 3, 3, seed=2),), desc="batch, negative determinants too"),
    ]


def _slogdet() -> list[Sample]:
    return [Sample((_rand(3, 3, seed=5),)), Sample((_rand(2, 2, 2, seed=6),), desc="batch")]


def _solve_ex() -> list[Sample]:
    A = _well_conditioned(3, 3, seed=7)
    batch = _well_conditioned(2, 3, 3, seed=8)
    return [
        Sample((A, _rand(3, 2, seed=9))),
        Sample((A, _rand(3, seed=10)), desc="vector B"),
        Sample((batch, _rand(3, 2, seed=11)), desc="B broadcast over A's batch"),
        Sample((batch, _rand(2, 3, seed=12)), desc="batch of vectors"),
        Sample((A, _rand(2, 3, seed=13)), {"left": False}, desc="XA = B"),
    ]


def _cholesky_ex() -> list[Sample]:
    return [
        Sample((_spd_half(3, 3, seed=14),), prepare=_symmetrize),
        Sample((_spd_half(2, 3, 3, seed=15),), {"upper": True}, desc="upper, batch", prepare=_symmetrize),
    ]


def _qr() -> list[Sample]:
    return [
        Sample((_rand(4, 3, seed=16),)),
        Sample((_rand(3, 3, seed=17), "complete"), desc="square, complete"),
        Sample((_rand(2, 3, 5, seed=18),), desc="wide, batch"),
    ]


def _singular_pairs(outputs: list[Any]) -> list[Any]:
    """S and the products u_i v_i^H of the singular vectors (their signs are a gauge; the extra
    columns of full_matrices factors are not determined at all)."""
    U, S, Vh = outputs
    k = S.shape[-1]
    return [S, U.narrow(-1, 0, k).unsqueeze(-1) * Vh.narrow(-2, 0, k).unsqueeze(-3)]


def _eigen_projectors(outputs: list[Any]) -> list[Any]:
    """The eigenvalues and the projectors v_i v_i^T (an eigenvector's sign is a gauge)."""
    L, V = outputs
    return [L, V.unsqueeze(-2) * V.unsqueeze(-3)]


def _svd() -> list[Sample]:
    return [
        Sample((_rand(3, 3, seed=19),), outputs=_singular_pairs),
        Sample((_rand(5, 3, seed=20),), desc="tall", outputs=_singular_pairs),
        Sample((_rand(2, 3, 5, seed=21),), desc="wide, batch", outputs=_singular_pairs),
        Sample((_rand(5, 3, seed=20), True), desc="tall, full_matrices", outputs=_singular_pairs),
    ]


def _eigh() -> list[Sample]:
    return [
        Sample((_spd_half(3, 3, seed=22),), prepare=_symmetrize, outputs=_eigen_projectors),
        Sample(
            (_spd_half(2, 3, 3, seed=23), "U"),
            desc="upper triangle, batch",
            prepare=_symmetrize,
            outputs=_eigen_projectors,
        ),
    ]


def _pinv() -> list[Sample]:
    return [
        Sample((_rand(3, 3, seed=67),)),
        Sample((_rand(2, 4, 3, seed=68),), desc="tall, batch"),
        Sample((_rand(3, 5, seed=69),), desc="wide"),
        Sample((_spd_half(3, 3, seed=70),), {"hermitian": True}, desc="hermitian", prepare=_symmetrize),
    ]


def _cross() -> list[Sample]:
    return [
        Sample((_rand(4, 3, seed=25), _rand(4, 3, seed=26))),
        Sample((_rand(3, 2, seed=27), _rand(3, 1, seed=28)), {"dim": 0}, desc="broadcast, dim 0"),
    ]


def _diag_embed() -> list[Sample]:
    return [
        Sample((_rand(2, 3, seed=29),)),
        Sample((_rand(2, 3, seed=30), 1, 0, 2), desc="offset 1, dims 0 and 2"),
    ]


def _trace() -> list[Sample]:
    return [Sample((_rand(3, 4, seed=31),))]


def _block_diag() -> list[Sample]:
    return [Sample(([_rand(2, 3, seed=32), _rand(3, seed=33), _rand(seed=34)],))]


def _cdist() -> list[Sample]:
    x1, x2 = _rand(2, 4, 3, seed=35), _rand(5, 3, seed=36)
    return [Sample((x1, x2, p, None), desc=f"p={p}") for p in (2.0, 1.0, 3.0, 0.5)]


def _euclidean_dist() -> list[Sample]:
    return [Sample((_rand(4, 3, seed=37), _rand(5, 3, seed=38)))]


def _dist() -> list[Sample]:
    return [
        Sample((_rand(3, 4, seed=39), _rand(4, seed=40))),
        Sample((_rand(3, seed=41), _rand(3, seed=42), 3)),
    ]


def _addmv() -> list[Sample]:
    return [
        Sample((_rand(3, seed=43), _rand(3, 4, seed=44), _rand(4, seed=45))),
        Sample((_rand(1, seed=46), _rand(3, 4, seed=47), _rand(4, seed=48)), {"beta": 0.5, "alpha": 2}),
    ]


def _addr() -> list[Sample]:
    return [
        Sample((_rand(3, 4, seed=49), _rand(3, seed=50), _rand(4, seed=51))),
        Sample((_rand(4, seed=52), _rand(3, seed=53), _rand(4, seed=54)), {"beta": 2, "alpha": 0.5}),
    ]


def _baddbmm() -> list[Sample]:
    return [
        Sample((_rand(2, 3, 4, seed=55), _rand(2, 3, 5, seed=56), _rand(2, 5, 4, seed=57))),
        Sample(
            (_rand(4, seed=58), _rand(2, 3, 5, seed=59), _rand(2, 5, 4, seed=60)), {"beta": 0.5, "alpha": 2}
        ),
    ]


def _addbmm() -> list[Sample]:
    return [
        Sample((_rand(3, 4, seed=61), _rand(2, 3, 5, seed=62), _rand(2, 5, 4, seed=63))),
        Sample(
            (_rand(4, seed=64), _rand(2, 3, 5, seed=65), _rand(2, 5, 4, seed=66)), {"beta": 2, "alpha": 3}
        ),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "linalg_vector_norm": _vector_norm,
    "linalg_inv_ex": _inv_ex,
    "linalg_det": _det,
    "linalg_slogdet": _slogdet,
    "linalg_solve_ex": _solve_ex,
    "linalg_cholesky_ex": _cholesky_ex,
    "linalg_qr": _qr,
    "_linalg_svd": _svd,
    "_linalg_eigh": _eigh,
    "linalg_pinv.atol_rtol_tensor": _pinv,
    "linalg_cross": _cross,
    "diag_embed": _diag_embed,
    "trace": _trace,
    "block_diag": _block_diag,
    "_cdist_forward": _cdist,
    "_euclidean_dist": _euclidean_dist,
    "dist": _dist,
    "addmv": _addmv,
    "addr": _addr,
    "baddbmm": _baddbmm,
    "addbmm": _addbmm,
}

NO_GRADGRAD: dict[str, str] = {}
