"""Sample inputs of the session-10 pointwise and reduction entries of derivatives.yaml (erf
family, exp2, frac, sgn, signbit, deg2rad/rad2deg, logit, nan_to_num, copysign, hypot, heaviside,
logaddexp(2), xlogy, pow.Scalar; count_nonzero, nansum, aminmax, var_mean, std_mean).

Inputs stay inside each operator's domain and away from its points of non-differentiability:
erfinv and logit inside (0, 1)-like ranges, frac away from integers, copysign and sgn away from 0,
no ties for aminmax.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _nonzero(seed: int, shape: tuple[int, ...]) -> Tensor:
    rng = np.random.default_rng(seed)
    return framework.from_numpy(np.asarray(rng.uniform(0.2, 1.0, shape) * rng.choice([-1.0, 1.0], shape)))


def _unary(make: Callable[[int, tuple[int, ...]], Tensor]) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        return [
            Sample((make(0, (3, 4)),), desc="contiguous"),
            Sample((make(1, (4, 3)).t(),), desc="transposed"),
            Sample((make(2, ()),), desc="0-dim"),
        ]

    return samples


def _binary(make: Callable[[int, tuple[int, ...]], Tensor]) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        return [
            Sample((make(0, (3, 4)), make(1, (3, 4))), desc="same shape"),
            Sample((make(2, (4, 3)).t(), make(3, (4,))), desc="non-contiguous, broadcast"),
            Sample((make(4, ()), make(5, (2, 3))), desc="0-dim self"),
        ]

    return samples


def _off_integers(seed: int, shape: tuple[int, ...]) -> Tensor:
    """Values in (-3, 3) at least 0.1 away from integers."""
    rng = np.random.default_rng(seed)
    return framework.from_numpy(np.asarray(rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.9, shape)))


def _unit(seed: int, shape: tuple[int, ...]) -> Tensor:
    return _uniform(seed, shape, 0.1, 0.9)


def _positive(seed: int, shape: tuple[int, ...]) -> Tensor:
    return _uniform(seed, shape, 0.5, 2.0)


def _erfinv_samples() -> list[Sample]:
    return _unary(lambda seed, shape: _uniform(seed, shape, -0.9, 0.9))()


def _logit_samples() -> list[Sample]:
    x = _unit(0, (3, 4))
    return [
        Sample((x,)),
        Sample((_unit(1, (4, 3)).t(), 0.2), desc="eps clamps some values"),
        Sample((_uniform(2, (3, 4), 0.3, 0.7), 0.2), desc="eps clamps none"),
    ]


def _nan_to_num_samples() -> list[Sample]:
    values = _uniform(0, (3, 4)).numpy().copy()
    values[0, 0], values[1, 1], values[2, 2] = np.nan, np.inf, -np.inf
    return [
        Sample((framework.from_numpy(values),), desc="with nan and infs"),
        Sample((framework.from_numpy(values), 1.5, 2.0, -2.0), desc="replacements"),
        Sample((_uniform(1, (4, 3)).t(),), desc="finite"),
    ]


def _copysign_scalar_samples() -> list[Sample]:
    return [
        Sample((_nonzero(0, (3, 4)), -1.5)),
        Sample((_nonzero(1, (4, 3)).t(), 2)),
        Sample((_nonzero(2, ()), -0.0)),
    ]


def _heaviside_samples() -> list[Sample]:
    x = _nonzero(0, (3, 4)).numpy().copy()
    x[1, 2] = 0.0
    return [Sample((framework.from_numpy(x), _uniform(1, (4,))))]


def _xlogy_samples() -> list[Sample]:
    self_ = _uniform(0, (3, 4)).numpy().copy()
    self_[0, 0] = 0.0
    return [
        Sample((framework.from_numpy(self_), _positive(1, (3, 4))), desc="a zero x"),
        Sample((_uniform(2, (4, 3)).t(), _positive(3, (4,))), desc="non-contiguous, broadcast"),
    ]


def _xlogy_scalar_self_samples() -> list[Sample]:
    return [Sample((2.5, _positive(0, (3, 4)))), Sample((0, _positive(1, (4, 3)).t()), desc="zero self")]


def _xlogy_scalar_other_samples() -> list[Sample]:
    self_ = _uniform(0, (3, 4)).numpy().copy()
    self_[1, 1] = 0.0
    return [
        Sample((framework.from_numpy(self_), 2.5), desc="a zero x"),
        Sample((_uniform(1, (4, 3)).t(), 0.75)),
    ]


def _pow_scalar_samples() -> list[Sample]:
    return [
        Sample((2.5, _uniform(0, (3, 4)))),
        Sample((0.5, _uniform(1, (4, 3)).t()), desc="transposed"),
        Sample((3, _uniform(2, ())), desc="integer base, 0-dim"),
    ]


def _distinct(seed: int, shape: tuple[int, ...]) -> Tensor:
    """float64 values in (-1, 1) without ties (extremes are unique)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = (np.arange(n) + rng.uniform(0.25, 0.75, n)) / n * 2 - 1
    return framework.from_numpy(rng.permutation(values).reshape(shape))


def _count_nonzero_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)), [1])), Sample((_uniform(1, (3, 4)), []), desc="every dim")]


def _count_nonzero_int_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)),)), Sample((_uniform(1, (3, 4)), 0), desc="dim 0")]


def _nansum_samples() -> list[Sample]:
    values = _uniform(0, (3, 4)).numpy().copy()
    values[0, 1] = values[2, 3] = np.nan
    with_nans = framework.from_numpy(values)
    return [
        Sample((with_nans,), desc="every dim, NaNs"),
        Sample((with_nans, [1], True), desc="dim 1, keepdim"),
        Sample((_uniform(1, (4, 3)).t(), [0, 1]), desc="transposed"),
    ]


def _aminmax_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)),)),
        Sample((_distinct(1, (3, 4)),), {"dim": 1}),
        Sample((_distinct(2, (4, 3)).t(),), {"dim": 0, "keepdim": True}, "transposed, keepdim"),
        Sample((_distinct(3, ()),), {"dim": 0}, "0-dim"),
    ]


def _moments_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (3, 4)),)),
        Sample((_uniform(1, (3, 4)), [1]), {"correction": 0, "keepdim": True}, "dim 1, correction 0"),
        Sample((_uniform(2, (4, 3)).t(), [0]), {"correction": 2}, "transposed, correction 2"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "erf": _unary(_uniform),
    "erfc": _unary(_uniform),
    "erfinv": _erfinv_samples,
    "exp2": _unary(_uniform),
    "frac": _unary(_off_integers),
    "sgn": _unary(_nonzero),
    "signbit": _unary(_uniform),
    "deg2rad": _unary(_uniform),
    "rad2deg": _unary(_uniform),
    "logit": _logit_samples,
    "nan_to_num": _nan_to_num_samples,
    "copysign.Tensor": _binary(_nonzero),
    "copysign.Scalar": _copysign_scalar_samples,
    "hypot": _binary(_nonzero),
    "heaviside": _heaviside_samples,
    "logaddexp": _binary(_uniform),
    "logaddexp2": _binary(_uniform),
    "xlogy.Tensor": _xlogy_samples,
    "xlogy.Scalar_Self": _xlogy_scalar_self_samples,
    "xlogy.Scalar_Other": _xlogy_scalar_other_samples,
    "pow.Scalar": _pow_scalar_samples,
    "count_nonzero.dim_IntList": _count_nonzero_samples,
    "count_nonzero": _count_nonzero_int_samples,
    "nansum": _nansum_samples,
    "aminmax": _aminmax_samples,
    "var_mean.correction": _moments_samples,
    "std_mean.correction": _moments_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "heaviside": "no derivative, as in PyTorch: backward raises",
}
