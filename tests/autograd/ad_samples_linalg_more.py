"""Sample inputs of the linear-algebra additions of derivatives.yaml (LU, triangular solves,
cholesky_solve/inverse, matrix_exp, eig, lstsq, householder_product, vdot).

Matrices are random (LU: generic pivots, stable under gradcheck's perturbations) or well
conditioned (a random matrix plus 3 I).  cholesky_solve and cholesky_inverse read one triangle of
the factor: their square inputs get `prepare=tril` (triu for upper), as PyTorch's tests build the
factor.  linalg_eig's outputs are complex: the generic tests check its node name; its gradients
are compared with PyTorch in tests/ops/test_linalg_extra2.py.
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
    a = np.random.default_rng(seed).standard_normal(shape) + 3 * np.eye(shape[-1])
    return framework.from_numpy(a)


def _square_tril(t: Any) -> Any:
    return t.tril() if t.shape[-1] == t.shape[-2] else t


def _square_triu(t: Any) -> Any:
    return t.triu() if t.shape[-1] == t.shape[-2] else t


def _lu_factor_ex() -> list[Sample]:
    return [
        Sample((_rand(3, 3, seed=1),)),
        Sample((_rand(2, 3, 4, seed=2),), desc="wide, batch"),
        Sample((_rand(4, 3, seed=3),), desc="tall"),
    ]


def _lu() -> list[Sample]:
    return [
        Sample((_rand(3, 3, seed=4),)),
        Sample((_rand(3, 5, seed=5),), desc="wide"),
        Sample((_rand(2, 4, 3, seed=6),), desc="tall, batch"),
    ]


def _pivots(*values: int) -> Tensor:
    return framework.tensor(list(values), dtype=framework.int32)


def _lu_unpack() -> list[Sample]:
    return [
        Sample((_rand(3, 3, seed=7), _pivots(3, 3, 3))),
        Sample((_rand(3, 5, seed=8), _pivots(2, 3, 3)), desc="wide"),
        Sample((_rand(4, 2, seed=9), _pivots(4, 2)), desc="tall"),
    ]


def _lu_solve() -> list[Sample]:
    A = _well_conditioned(3, 3, seed=10)
    LU, pivots = framework.linalg.lu_factor(A)
    B = _rand(3, 2, seed=11)
    return [
        Sample((LU, pivots, B)),
        Sample((LU, pivots, B), {"adjoint": True}, desc="adjoint"),
        Sample((LU, pivots, B.mT.contiguous()), {"left": False}, desc="XA = B"),
        Sample(
            (LU, pivots, _rand(2, 2, 3, seed=12)), {"left": False, "adjoint": True}, desc="XA^H = B, batch"
        ),
    ]


def _solve_triangular() -> list[Sample]:
    A = _well_conditioned(3, 3, seed=13)
    return [
        Sample((A, _rand(3, 2, seed=14)), {"upper": True}),
        Sample(
            (A, _rand(2, 4, 3, seed=15)),
            {"upper": False, "left": False, "unitriangular": True},
            desc="XA = B, unitriangular, B batch",
        ),
    ]


def _triangular_solve() -> list[Sample]:
    A = _well_conditioned(3, 3, seed=16)
    return [
        Sample((_rand(3, 2, seed=17), A)),
        Sample((_rand(2, 3, 2, seed=18), A, False, True), desc="lower, transpose, batch"),
    ]


def _cholesky_solve() -> list[Sample]:
    L = _well_conditioned(3, 3, seed=19)
    return [
        Sample((_rand(3, 2, seed=20), L), prepare=_square_tril),
        Sample((_rand(2, 3, 1, seed=21), L, True), desc="upper, batch", prepare=_square_triu),
    ]


def _cholesky_inverse() -> list[Sample]:
    return [
        Sample((_well_conditioned(3, 3, seed=22),), prepare=_square_tril),
        Sample((_well_conditioned(2, 3, 3, seed=23), True), desc="upper, batch", prepare=_square_triu),
    ]


def _matrix_exp() -> list[Sample]:
    return [Sample((_rand(3, 3, seed=24),)), Sample((_rand(2, 2, 2, seed=25),), desc="batch")]


def _eig() -> list[Sample]:
    return [Sample((_rand(3, 3, seed=26),))]


def _lstsq() -> list[Sample]:
    A, B = _rand(4, 3, seed=27), _rand(4, 2, seed=28)
    return [
        Sample((A, B)),
        Sample((A, B), {"driver": "gelsd"}, desc="gelsd: residuals"),
        Sample((_rand(2, 3, 4, seed=29), _rand(2, 3, seed=30)), desc="wide, batch of vectors"),
    ]


def _householder_product() -> list[Sample]:
    return [
        Sample((_rand(4, 3, seed=33), _rand(2, seed=34))),
        Sample((_rand(2, 3, 3, seed=35), _rand(2, 3, seed=36)), desc="square, batch"),
    ]


def _vdot() -> list[Sample]:
    return [Sample((_rand(4, seed=31), _rand(4, seed=32)))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "linalg_lu_factor_ex": _lu_factor_ex,
    "linalg_lu": _lu,
    "lu_unpack": _lu_unpack,
    "linalg_lu_solve": _lu_solve,
    "linalg_solve_triangular": _solve_triangular,
    "triangular_solve": _triangular_solve,
    "cholesky_solve": _cholesky_solve,
    "cholesky_inverse": _cholesky_inverse,
    "linalg_matrix_exp": _matrix_exp,
    "linalg_eig": _eig,
    "linalg_lstsq": _lstsq,
    "linalg_householder_product": _householder_product,
    "vdot": _vdot,
}

NO_GRADGRAD: dict[str, str] = {}
