"""Sample inputs of the linalg2 entries of derivatives.yaml: the deprecated torch.cholesky
(symmetric positive-definite inputs made from A + A^T, as PyTorch's tests do), and geqrf and the
LDL operators, which PyTorch cannot differentiate (the derivative test checks that backward raises)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample
from ad_samples_linalg import _spd_half, _symmetrize

import framework
from framework import Tensor


def _cholesky() -> list[Sample]:
    return [
        Sample((_spd_half(3, 3, seed=401),), prepare=_symmetrize),
        Sample((_spd_half(2, 3, 3, seed=402), True), desc="upper, batch", prepare=_symmetrize),
    ]


def _symmetric(seed: int) -> Tensor:
    a = np.random.default_rng(seed).standard_normal((3, 3))
    return framework.from_numpy(a + a.T)


def _ldl_factor_ex() -> list[Sample]:
    return [Sample((_symmetric(403),))]


def _ldl_solve() -> list[Sample]:
    LD, pivots = framework.linalg.ldl_factor(_symmetric(404))
    b = framework.from_numpy(np.random.default_rng(405).standard_normal((3, 2)))
    return [Sample((LD, pivots, b))]


def _geqrf() -> list[Sample]:
    return [Sample((framework.from_numpy(np.random.default_rng(406).standard_normal((4, 3))),))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "cholesky": _cholesky,
    "linalg_ldl_factor_ex": _ldl_factor_ex,
    "linalg_ldl_solve": _ldl_solve,
    "geqrf": _geqrf,
}

NO_GRADGRAD: dict[str, str] = {}
