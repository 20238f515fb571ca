"""Sample inputs of the session-11 math and special-function entries of derivatives.yaml (acosh,
asinh, atanh, sinc, the gamma family, i0/special_i1, fmax/fmin, ldexp, frexp, nextafter; the
integer-only gcd, lcm and shifts and the isneginf/isposinf tests, which are not differentiable;
logcumsumexp, renorm; histc, bincount and isin, which are not).

Inputs stay inside each operator's domain: acosh above 1, atanh inside (-1, 1), the gamma
family on positive arguments away from its poles, mvlgamma above (p - 1) / 2; fmax/fmin without
ties; no zeros for sinc and special_i1, whose second derivatives (as PyTorch's) are NaN there;
ldexp with non-negative integer exponents (PyTorch's gradient is 0 for negative ones).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _ints(seed: int, shape: tuple[int, ...], low: int = 0, high: int = 20) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).integers(low, high, shape))


def _unary(low: float, high: float) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        return [
            Sample((_uniform(0, (3, 4), low, high),), desc="contiguous"),
            Sample((_uniform(1, (4, 3), low, high).t(),), desc="transposed"),
        ]

    return samples


def _polygamma_samples() -> list[Sample]:
    return [
        Sample((1, _uniform(0, (3, 4), 0.5, 3.0))),
        Sample((3, _uniform(1, (4, 3), 0.5, 3.0).t()), desc="n = 3, transposed"),
    ]


def _polygamma__samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4), 0.5, 3.0), 2))]


def _mvlgamma_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4), 1.6, 4.0), 3)), Sample((_uniform(1, (4, 3), 0.5, 3.0).t(), 1))]


def _extreme_samples() -> list[Sample]:
    values = _uniform(1, (3, 4)).numpy().copy()
    values[0, 0] = np.nan
    return [
        Sample((_uniform(0, (3, 4)), framework.from_numpy(values)), desc="a NaN in other"),
        Sample((_uniform(2, (4, 3)).t(), _uniform(3, (4,))), desc="non-contiguous, broadcast"),
    ]


def _nextafter_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)), _uniform(1, (3, 4))))]


def _ldexp_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (3, 4)), _ints(1, (3, 4), 0, 4)), desc="integer exponents"),
        Sample((_uniform(2, (4, 3)).t(), _uniform(3, (4,))), desc="float exponents, broadcast"),
    ]


def _frexp_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4), -9.0, 9.0),)), Sample((_uniform(1, (4, 3), 0.1, 0.4).t(),))]


def _int_pair() -> list[Sample]:
    return [Sample((_ints(0, (3, 4)), _ints(1, (4,), 0, 5)))]


def _int_scalar() -> list[Sample]:
    return [Sample((_ints(0, (3, 4)), 3))]


def _scalar_int() -> list[Sample]:
    return [Sample((3, _ints(0, (3, 4), 0, 5)))]


def _infinity_samples() -> list[Sample]:
    values = _uniform(0, (3, 4)).numpy().copy()
    values[0, 0], values[1, 1] = np.inf, -np.inf
    return [Sample((framework.from_numpy(values),))]


def _logcumsumexp_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (3, 4), -3.0, 3.0), 1)),
        Sample((_uniform(1, (4, 3), -3.0, 3.0).t(), 0), desc="transposed"),
        Sample((_uniform(2, ()), 0), desc="0-dim"),
    ]


def _renorm_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (3, 4)), 2, 0, 1.0), desc="some rows rescaled"),
        Sample((_uniform(1, (4, 3)).t(), 1.5, 1, 0.5), desc="transposed, p = 1.5"),
    ]


def _histc_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)), 5))]


def _bincount_samples() -> list[Sample]:
    return [Sample((_ints(0, (6,), 0, 4), _uniform(1, (6,))), desc="weights")]


def _isin_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)), _uniform(1, (5,))))]


def _isin_scalar_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4)), 0.5))]


def _isin_scalar_tensor_samples() -> list[Sample]:
    return [Sample((0.5, _uniform(0, (3, 4))))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "acosh": _unary(1.2, 3.0),
    "asinh": _unary(-2.0, 2.0),
    "atanh": _unary(-0.8, 0.8),
    "sinc": _unary(-2.0, 2.0),
    "digamma": _unary(0.5, 3.0),
    "lgamma": _unary(0.5, 3.0),
    "polygamma": _polygamma_samples,
    "polygamma_": _polygamma__samples,
    "mvlgamma": _mvlgamma_samples,
    "i0": _unary(-3.0, 3.0),
    "special_i1": _unary(-3.0, 3.0),
    "fmax": _extreme_samples,
    "fmin": _extreme_samples,
    "nextafter": _nextafter_samples,
    "ldexp.Tensor": _ldexp_samples,
    "frexp.Tensor": _frexp_samples,
    "gcd": _int_pair,
    "lcm": _int_pair,
    "bitwise_left_shift.Tensor": _int_pair,
    "bitwise_right_shift.Tensor": _int_pair,
    "__lshift__.Tensor": _int_pair,
    "__rshift__.Tensor": _int_pair,
    "__ilshift__.Tensor": _int_pair,
    "__irshift__.Tensor": _int_pair,
    "bitwise_left_shift.Tensor_Scalar": _int_scalar,
    "bitwise_right_shift.Tensor_Scalar": _int_scalar,
    "__lshift__.Scalar": _int_scalar,
    "__rshift__.Scalar": _int_scalar,
    "__ilshift__.Scalar": _int_scalar,
    "__irshift__.Scalar": _int_scalar,
    "bitwise_left_shift.Scalar_Tensor": _scalar_int,
    "bitwise_right_shift.Scalar_Tensor": _scalar_int,
    "isneginf": _infinity_samples,
    "isposinf": _infinity_samples,
    "logcumsumexp": _logcumsumexp_samples,
    "renorm": _renorm_samples,
    "histc": _histc_samples,
    "bincount": _bincount_samples,
    "isin.Tensor_Tensor": _isin_samples,
    "isin.Tensor_Scalar": _isin_scalar_samples,
    "isin.Scalar_Tensor": _isin_scalar_tensor_samples,
}

NO_GRADGRAD: dict[str, str] = {}
