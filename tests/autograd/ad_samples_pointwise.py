"""Sample inputs of the pointwise and reduction entries of derivatives.yaml (.deriv_parts/pointwise.yaml).

Inputs stay inside each operator's domain and away from its points of non-differentiability:
no ties for max/min-like operators, no zeros for abs/relu/sign-like operators, quotients and
values away from the jumps of floor/round/remainder, bounds away from clamp's inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Tensor:
    """float64 values uniform in [low, high)."""
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _nonzero(seed: int, shape: tuple[int, ...], low: float = 0.2, high: float = 1.0) -> Tensor:
    """float64 values with magnitude in [low, high) and random signs."""
    rng = np.random.default_rng(seed)
    return framework.from_numpy(np.asarray(rng.uniform(low, high, shape) * rng.choice([-1.0, 1.0], shape)))


def _distinct(seed: int, shape: tuple[int, ...]) -> Tensor:
    """float64 values in (-1, 1) whose pairwise gaps are all at least 0.5 / numel (no ties)."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    values = (np.arange(n) + rng.uniform(0.25, 0.75, n)) / n * 2 - 1
    return framework.from_numpy(rng.permutation(values).reshape(shape))


def _off_grid(seed: int, shape: tuple[int, ...]) -> Tensor:
    """float64 values in (-2, 2) at least 0.1 away from every multiple of 0.5."""
    rng = np.random.default_rng(seed)
    return framework.from_numpy(np.asarray(rng.integers(-4, 4, shape) * 0.5 + rng.uniform(0.1, 0.4, shape)))


def _with_zeros(seed: int, shape: tuple[int, ...], positions: list[tuple[int, ...]]) -> Tensor:
    """Nonzero float64 values with exact zeros at `positions`."""
    values = _nonzero(seed, shape, 0.5, 1.5).numpy().copy()
    for position in positions:
        values[position] = 0.0
    return framework.from_numpy(values)


def _mask(seed: int, shape: tuple[int, ...]) -> Tensor:
    """A boolean tensor with both values."""
    values = np.random.default_rng(seed).random(shape) < 0.5
    values.flat[0], values.flat[-1] = True, False
    return framework.from_numpy(values)


def _ints(seed: int, shape: tuple[int, ...]) -> Tensor:
    """int64 values in [0, 16)."""
    return framework.from_numpy(np.random.default_rng(seed).integers(0, 16, shape))


def _x(seed: int = 0) -> Tensor:
    return _uniform(seed, (3, 4))


def _x_t(seed: int = 1) -> Tensor:
    """A (3, 4) transposed (non-contiguous) tensor."""
    return _uniform(seed, (4, 3)).t()


def _x_strided(seed: int = 2) -> Tensor:
    """A (3, 4) tensor taking every other row of a (6, 4) one."""
    return _uniform(seed, (6, 4))[::2]


def _scalar(seed: int = 3, low: float = -1.0, high: float = 1.0) -> Tensor:
    return _uniform(seed, (), low, high)


def _binary(make: Callable[[int, tuple[int, ...]], Tensor]) -> list[Sample]:
    """Tensor-tensor samples: same shapes, broadcasting, non-contiguous, 0-dim."""
    return [
        Sample((make(0, (3, 4)), make(1, (3, 4))), desc="same shape"),
        Sample((make(2, (3, 4)), make(3, (4,))), desc="broadcast other"),
        Sample((make(4, (3, 1)), make(5, (2, 1, 4))), desc="broadcast both"),
        Sample((make(6, (4, 3)).t(), make(7, (6, 4))[::2]), desc="non-contiguous"),
        Sample((make(8, ()), make(9, (2, 3))), desc="0-dim self"),
    ]


def _unary(make: Callable[[int, tuple[int, ...]], Tensor]) -> list[Sample]:
    """One-tensor samples: contiguous, non-contiguous, 0-dim."""
    return [
        Sample((make(0, (3, 4)),), desc="contiguous"),
        Sample((make(1, (4, 3)).t(),), desc="transposed"),
        Sample((make(2, (6, 4))[::2],), desc="strided"),
        Sample((make(3, ()),), desc="0-dim"),
    ]


def _tensor_scalar(make: Callable[[int, tuple[int, ...]], Tensor], *others: float) -> list[Sample]:
    """Tensor-Scalar samples, one per Scalar, alternating contiguous and non-contiguous."""
    shapes = [make(0, (3, 4)), make(1, (4, 3)).t(), make(2, ())]
    return [Sample((shapes[i % len(shapes)], other)) for i, other in enumerate(others)]


def _positive(seed: int, shape: tuple[int, ...]) -> Tensor:
    return _uniform(seed, shape, 0.5, 2.0)


def _open_unit(seed: int, shape: tuple[int, ...]) -> Tensor:
    return _uniform(seed, shape, -0.9, 0.9)


def _quotient_samples() -> list[Sample]:
    """Tensor pairs whose quotients are at least 0.1 away from integers (floor/trunc jumps)."""
    rng = np.random.default_rng(11)
    other = rng.uniform(0.5, 1.5, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    quotient = rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))
    row = rng.uniform(0.5, 1.5, (4,))
    row_quotient = rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))
    return [
        Sample((framework.from_numpy(other * quotient), framework.from_numpy(other)), desc="same shape"),
        Sample(
            (framework.from_numpy((row * row_quotient).T.copy()).t(), framework.from_numpy(row)),
            desc="non-contiguous self, broadcast other",
        ),
    ]


def _scalar_quotient_samples(other: float) -> list[Sample]:
    """Tensors whose quotients by `other` are at least 0.1 away from integers."""
    rng = np.random.default_rng(12)
    quotient = rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))
    return [
        Sample((framework.from_numpy(quotient * other), other)),
        Sample((framework.from_numpy((quotient * other).T.copy()).t(), other), desc="transposed"),
    ]


def _div_mode_samples() -> list[Sample]:
    return [
        Sample(sample.args, {"rounding_mode": mode}, f"{sample.desc}, rounding_mode={mode}")
        for mode in (None, "trunc", "floor")
        for sample in _quotient_samples()
    ]


def _div_scalar_mode_samples() -> list[Sample]:
    return [
        Sample(sample.args, {"rounding_mode": mode}, f"{sample.desc}, rounding_mode={mode}")
        for mode in (None, "trunc", "floor")
        for sample in _scalar_quotient_samples(0.75)
    ]


def _comparison_samples() -> list[Sample]:
    return [Sample((_x(0), _x(1))), Sample((_x_t(2), _uniform(3, (4,))), desc="broadcast")]


def _comparison_scalar_samples() -> list[Sample]:
    return [Sample((_x(0), 0.25)), Sample((_x_t(1), 0), desc="transposed")]


def _bitwise_samples() -> list[Sample]:
    return [
        Sample((_ints(0, (3, 4)), _ints(1, (4,)))),
        Sample((_mask(2, (3, 4)), _mask(3, (3, 4))), desc="bool"),
    ]


def _bitwise_scalar_samples() -> list[Sample]:
    return [Sample((_ints(0, (3, 4)), 5)), Sample((_mask(1, (3, 4)), True), desc="bool")]


def _logical_samples() -> list[Sample]:
    return [Sample((_with_zeros(0, (3, 4), [(0, 1), (2, 2)]), _with_zeros(1, (4,), [(3,)])))]


def _float_unary_samples() -> list[Sample]:
    values = _x(0).numpy().copy()
    values[0, 0], values[1, 1], values[2, 2] = math.nan, math.inf, -math.inf
    return [Sample((framework.from_numpy(values),), desc="with nan and infs"), Sample((_x_t(1),))]


def _fill_samples() -> list[Sample]:
    return [Sample((_x(0), 1.5)), Sample((_x_t(1), -2)), Sample((_scalar(), 0.25))]


def _zero_samples() -> list[Sample]:
    return [Sample((_x(0),)), Sample((_x_t(1),))]


def _uniform_samples() -> list[Sample]:
    return [Sample((_x(0), 0.5, 0.5), desc="from == to: a constant result")]


def _normal_samples() -> list[Sample]:
    return [Sample((_x(0), 0.3, 0.0), desc="std 0: a constant result")]


def _random_from_samples() -> list[Sample]:
    return [
        Sample((_x(0), 3, 4), desc="[3, 4): a constant result"),
        Sample((_x_t(1), -2, -1), desc="[-2, -1): a constant result"),
    ]


def _random_to_samples() -> list[Sample]:
    return [Sample((_x(0), 1), desc="[0, 1): a constant result")]


def _random_samples() -> list[Sample]:
    return [Sample((framework.zeros(0, 3, dtype=framework.float64),), desc="empty: the result is random")]


def _add_samples() -> list[Sample]:
    samples = _binary(_uniform)
    return [*samples, Sample(samples[1].args, {"alpha": -2.5}, "alpha")]


def _add_scalar_samples() -> list[Sample]:
    return [Sample((_x(0), 1.5)), Sample((_x_t(1), 2, -0.5), desc="alpha"), Sample((_scalar(), -1))]


def _mul_scalar_samples() -> list[Sample]:
    return _tensor_scalar(_uniform, 1.5, -3, 0.25)


def _div_samples() -> list[Sample]:
    return _binary(_nonzero)


def _div_scalar_samples() -> list[Sample]:
    return _tensor_scalar(_uniform, 1.5, -3, 0.25)


def _maximum_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)), _distinct(1, (3, 4)) + 0.01)),
        Sample((_distinct(2, (3, 4)), _distinct(3, (4,)) + 0.01), desc="broadcast"),
        Sample((_distinct(4, (4, 3)).t(), _distinct(5, (6, 4))[::2] + 0.01), desc="non-contiguous"),
    ]


def _atan2_samples() -> list[Sample]:
    return _binary(_nonzero)


def _pow_scalar_samples() -> list[Sample]:
    return [
        Sample((_positive(0, (3, 4)), 2.5)),
        Sample((_uniform(1, (4, 3)).t(), 3), desc="integer exponent, negative bases"),
        Sample((_positive(2, (3, 4)), -1.5)),
        Sample((_positive(3, (3, 4)), 0), desc="exponent 0"),
        Sample((_positive(4, ()), 0.5), desc="0-dim"),
    ]


def _pow_tensor_samples() -> list[Sample]:
    exponent = _uniform(5, (3, 4), -2.0, 2.0).numpy().copy()
    exponent[1, 2] = 0.0
    return [
        Sample((_positive(0, (3, 4)), _uniform(1, (3, 4), -2.0, 2.0))),
        Sample((_positive(2, (4, 3)).t(), _uniform(3, (4,), -2.0, 2.0)), desc="broadcast"),
        Sample((_positive(4, (3, 4)), framework.from_numpy(exponent)), desc="an exponent 0"),
        Sample((_positive(6, ()), _uniform(7, (2, 3))), desc="0-dim base"),
    ]


def _remainder_scalar_tensor_samples() -> list[Sample]:
    """A number divided by tensors whose quotients are at least 0.1 away from integers."""
    rng = np.random.default_rng(13)
    quotient = rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))
    return [Sample((1.5, framework.from_numpy(1.5 / quotient)))]


def _clamp_samples() -> list[Sample]:
    x = _distinct(0, (3, 4))
    return [
        Sample((x, -0.55, 0.45)),
        Sample((_distinct(1, (4, 3)).t(), None, 0.3), desc="max only"),
        Sample((_distinct(2, (6, 4))[::2], -0.3, None), desc="min only"),
        Sample((x, 0.4, -0.4), desc="min > max"),
        Sample((_scalar(), -0.5, 0.5), desc="0-dim"),
    ]


def _clamp_tensor_samples() -> list[Sample]:
    x = _distinct(0, (3, 4))
    low = _distinct(1, (4,)) * 0.5 - 0.26
    high = _distinct(2, (3, 1)) * 0.5 + 0.27
    return [
        Sample((x, low, high), desc="broadcast bounds"),
        Sample((_distinct(3, (4, 3)).t(), low, None), desc="min only"),
        Sample((x, None, high), desc="max only"),
        Sample((x, high, low), desc="min > max in places"),
    ]


def _clamp_min_samples() -> list[Sample]:
    return [Sample((_distinct(0, (3, 4)), 0.1)), Sample((_distinct(1, (4, 3)).t(), -0.3))]


def _lerp_scalar_samples() -> list[Sample]:
    return [
        Sample((_x(0), _x(1), 0.3)),
        Sample((_x_t(2), _uniform(3, (4,)), -1.5), desc="broadcast end"),
        Sample((_scalar(), _x(4), 2), desc="0-dim self"),
    ]


def _lerp_tensor_samples() -> list[Sample]:
    return [
        Sample((_x(0), _x(1), _x(2))),
        Sample((_x_t(3), _uniform(4, (4,)), _uniform(5, (3, 1))), desc="broadcast"),
        Sample((_x_strided(6), _x(7), _scalar()), desc="0-dim weight"),
    ]


def _addcmul_samples() -> list[Sample]:
    return [
        Sample((_x(0), _x(1), _x(2))),
        Sample((_uniform(3, (4,)), _x_t(4), _uniform(5, (3, 1))), {"value": -0.5}, "broadcast, value"),
        Sample((_scalar(), _x_strided(6), _x(7)), {"value": 2}, "0-dim self"),
    ]


def _addcdiv_samples() -> list[Sample]:
    return [
        Sample((_x(0), _x(1), _nonzero(2, (3, 4)))),
        Sample((_uniform(3, (4,)), _x_t(4), _nonzero(5, (3, 1))), {"value": -0.5}, "broadcast, value"),
        Sample((_scalar(), _x_strided(6), _nonzero(7, (3, 4))), {"value": 2}, "0-dim self"),
    ]


def _where_samples() -> list[Sample]:
    return [
        Sample((_mask(0, (3, 4)), _x(1), _x(2))),
        Sample((_mask(3, (3, 1)), _x_t(4), _uniform(5, (4,))), desc="broadcast"),
        Sample((_mask(6, (2, 3, 4)), _scalar(), _x_strided(7)), desc="0-dim self, broadcast condition"),
    ]


def _masked_fill_scalar_samples() -> list[Sample]:
    return [
        Sample((_x(0), _mask(1, (3, 4)), 2.5)),
        Sample((_x_t(2), _mask(3, (4,)), -1), desc="broadcast mask"),
    ]


def _masked_fill_tensor_samples() -> list[Sample]:
    return [
        Sample((_x(0), _mask(1, (3, 4)), _scalar(2))),
        Sample((_x_t(3), _mask(4, (4,)), _scalar(5)), desc="broadcast mask"),
    ]


def _reduction_full_samples() -> list[Sample]:
    return [Sample((_x(0),)), Sample((_x_t(1),)), Sample((_uniform(2, (2, 3, 4)),)), Sample((_scalar(),))]


def _reduction_dims_samples() -> list[Sample]:
    return [
        Sample((_x(0), [1])),
        Sample((_x_t(1), [0, -1], True), desc="all dims listed, keepdim"),
        Sample((_uniform(2, (2, 3, 4)), [0, 2])),
        Sample((_x_strided(3), None), desc="dim None"),
        Sample((_x(4), []), desc="dim []: all dims"),
        Sample((_scalar(), [0], True), desc="0-dim"),
    ]


def _prod_samples() -> list[Sample]:
    return [
        Sample((_nonzero(0, (3, 4), 0.5, 1.5),)),
        Sample((_with_zeros(1, (4, 3), [(2, 1)]).t(),), desc="one zero"),
        Sample((_with_zeros(2, (3, 4), [(0, 1), (2, 3)]),), desc="two zeros"),
        Sample((_scalar(),), desc="0-dim"),
    ]


def _prod_dim_samples() -> list[Sample]:
    zeros = _with_zeros(2, (3, 4), [(0, 1), (0, 3), (1, 0)])
    return [
        Sample((_nonzero(0, (3, 4), 0.5, 1.5), 1)),
        Sample((_with_zeros(1, (4, 3), [(2, 1)]).t(), 0, True), desc="one zero, keepdim"),
        Sample((zeros, 1), desc="zeros: two in a row"),
        Sample((zeros, -2, True), desc="zeros along dim 0"),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


def _max_dim_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)), 1)),
        Sample((_distinct(1, (4, 3)).t(), 0, True), desc="keepdim"),
        Sample((_distinct(2, (2, 3, 4)), -2)),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


def _max_samples() -> list[Sample]:
    return [Sample((_distinct(0, (3, 4)),)), Sample((_distinct(1, (4, 3)).t(),)), Sample((_scalar(),))]


def _amax_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)), [1])),
        Sample((_distinct(1, (4, 3)).t(), [0, 1], True), desc="all dims, keepdim"),
        Sample((_distinct(2, (2, 3, 4)), [0, 2])),
        Sample((_distinct(3, (3, 4)),), desc="default dim []: all dims"),
        Sample((_scalar(),), desc="0-dim"),
    ]


def _arg_samples() -> list[Sample]:
    return [Sample((_distinct(0, (3, 4)),)), Sample((_distinct(1, (4, 3)).t(), 1, True), desc="dim")]


def _var_samples() -> list[Sample]:
    return [
        Sample((_x(0),)),
        Sample((_x_t(1), [1])),
        Sample((_uniform(2, (2, 3, 4)), [0, 2]), {"correction": 0, "keepdim": True}, "correction 0, keepdim"),
        Sample((_x_strided(3), None), {"correction": 2}, "correction 2"),
        Sample((_x(4), [-1]), {"correction": 0.5}, "fractional correction"),
    ]


def _norm_scalar_samples() -> list[Sample]:
    return [
        Sample((_x(0),)),
        Sample((_nonzero(1, (4, 3)).t(), 1), desc="p=1"),
        Sample((_x_strided(2), 3)),
        Sample((_nonzero(3, (3, 4)), 0.5), desc="p<1"),
        Sample((_distinct(4, (3, 4)), math.inf), desc="p=inf"),
        Sample((_distinct(5, (3, 4)), -math.inf), desc="p=-inf"),
        Sample((_x(6), 0), desc="p=0"),
        Sample((_x(7), 1.5)),
    ]


def _norm_dim_samples() -> list[Sample]:
    return [
        Sample((_x(0), 2, [1])),
        Sample((_x_t(1), None, [0], True), desc="p None, keepdim"),
        Sample((_distinct(2, (3, 4)), math.inf, [1]), desc="p=inf"),
        Sample((_uniform(3, (2, 3, 4)), 1.5, [0, 2])),
        Sample((_nonzero(4, (3, 4)), 1, [-1], True), desc="p=1"),
        Sample((_x(5), 3, []), desc="dim []: all dims"),
    ]


def _norm_dtype_samples() -> list[Sample]:
    return [
        Sample((_x(0), 2), {"dtype": framework.float64}),
        Sample((_x_t(1), None), {"dtype": framework.float64}, "p None"),
        Sample((_nonzero(2, (3, 4)), 1), {"dtype": framework.float64}, "p=1"),
    ]


def _norm_dim_dtype_samples() -> list[Sample]:
    return [
        Sample((_x(0), 3, [1], False), {"dtype": framework.float64}),
        Sample((_x_t(1), None, [0, 1], True), {"dtype": framework.float64}, "p None, keepdim"),
    ]


def _logsumexp_samples() -> list[Sample]:
    return [
        Sample((_x(0), [1])),
        Sample((_x_t(1), [0, 1], True), desc="all dims, keepdim"),
        Sample((_uniform(2, (2, 3, 4)), [-1, 0])),
        Sample((_scalar(), [0]), desc="0-dim"),
    ]


def _all_samples() -> list[Sample]:
    return [Sample((_with_zeros(0, (3, 4), [(1, 2)]),)), Sample((_x_t(1),))]


def _all_dim_samples() -> list[Sample]:
    return [Sample((_with_zeros(0, (3, 4), [(1, 2)]), 1)), Sample((_x_t(1), 0, True), desc="keepdim")]


def _all_dims_samples() -> list[Sample]:
    return [Sample((_with_zeros(0, (3, 4), [(1, 2)]), [0, 1])), Sample((_x_t(1),), desc="dim None")]


def _cumsum_samples() -> list[Sample]:
    return [
        Sample((_x(0), 1)),
        Sample((_x_t(1), 0)),
        Sample((_uniform(2, (2, 3, 4)), -2)),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


def _cumprod_samples() -> list[Sample]:
    return [
        Sample((_nonzero(0, (3, 4), 0.5, 1.5), 1)),
        Sample((_with_zeros(1, (4, 3), [(2, 1)]).t(), 0), desc="one zero"),
        Sample((_with_zeros(2, (3, 4), [(0, 1), (0, 3), (1, 0)]), 1), desc="zeros: two in a row"),
        Sample((_with_zeros(3, (2, 3, 4), [(0, 1, 1), (1, 2, 0)]), -2), desc="zeros, middle dim"),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "fill_.Scalar": _fill_samples,
    "zero_": _zero_samples,
    "uniform_": _uniform_samples,
    "normal_": _normal_samples,
    "random_.from": _random_from_samples,
    "random_.to": _random_to_samples,
    "random_": _random_samples,
    "add.Tensor": _add_samples,
    "add.Scalar": _add_scalar_samples,
    "sub.Tensor": _add_samples,
    "sub.Scalar": _add_scalar_samples,
    "rsub.Tensor": _add_samples,
    "rsub.Scalar": _add_scalar_samples,
    "mul.Tensor": lambda: _binary(_uniform),
    "mul.Scalar": _mul_scalar_samples,
    "div.Tensor": _div_samples,
    "div.Scalar": _div_scalar_samples,
    "div.Tensor_mode": _div_mode_samples,
    "div.Scalar_mode": _div_scalar_mode_samples,
    "remainder.Scalar": lambda: _scalar_quotient_samples(0.75),
    "remainder.Tensor": _quotient_samples,
    "remainder.Scalar_Tensor": _remainder_scalar_tensor_samples,
    "fmod.Scalar": lambda: _scalar_quotient_samples(-0.75),
    "fmod.Tensor": _quotient_samples,
    "floor_divide": _quotient_samples,
    "floor_divide.Scalar": lambda: _scalar_quotient_samples(0.75),
    "bitwise_and.Tensor": _bitwise_samples,
    "bitwise_and.Scalar": _bitwise_scalar_samples,
    "bitwise_or.Tensor": _bitwise_samples,
    "bitwise_or.Scalar": _bitwise_scalar_samples,
    "bitwise_xor.Tensor": _bitwise_samples,
    "bitwise_xor.Scalar": _bitwise_scalar_samples,
    "bitwise_not": lambda: [Sample((_ints(0, (3, 4)),)), Sample((_mask(1, (3, 4)),), desc="bool")],
    "eq.Tensor": _comparison_samples,
    "eq.Scalar": _comparison_scalar_samples,
    "ne.Tensor": _comparison_samples,
    "ne.Scalar": _comparison_scalar_samples,
    "lt.Tensor": _comparison_samples,
    "lt.Scalar": _comparison_scalar_samples,
    "le.Tensor": _comparison_samples,
    "le.Scalar": _comparison_scalar_samples,
    "gt.Tensor": _comparison_samples,
    "gt.Scalar": _comparison_scalar_samples,
    "ge.Tensor": _comparison_samples,
    "ge.Scalar": _comparison_scalar_samples,
    "logical_and": _logical_samples,
    "logical_or": _logical_samples,
    "logical_xor": _logical_samples,
    "logical_not": lambda: [Sample((_with_zeros(0, (3, 4), [(0, 1)]),))],
    "isnan": _float_unary_samples,
    "isinf": _float_unary_samples,
    "isfinite": _float_unary_samples,
    "maximum": _maximum_samples,
    "minimum": _maximum_samples,
    "atan2": _atan2_samples,
    "pow.Tensor_Scalar": _pow_scalar_samples,
    "pow.Tensor_Tensor": _pow_tensor_samples,
    "exp": lambda: _unary(_uniform),
    "log": lambda: _unary(_positive),
    "log2": lambda: _unary(_positive),
    "log10": lambda: _unary(_positive),
    "log1p": lambda: _unary(_open_unit),
    "expm1": lambda: _unary(_uniform),
    "sqrt": lambda: _unary(_positive),
    "rsqrt": lambda: _unary(_positive),
    "sin": lambda: _unary(_uniform),
    "cos": lambda: _unary(_uniform),
    "tan": lambda: _unary(_uniform),
    "asin": lambda: _unary(_open_unit),
    "acos": lambda: _unary(_open_unit),
    "atan": lambda: _unary(_uniform),
    "sinh": lambda: _unary(_uniform),
    "cosh": lambda: _unary(_uniform),
    "tanh": lambda: _unary(_uniform),
    "sigmoid": lambda: _unary(_uniform),
    "reciprocal": lambda: _unary(_nonzero),
    "abs": lambda: _unary(_nonzero),
    "sign": lambda: _unary(_nonzero),
    "floor": lambda: _unary(_off_grid),
    "ceil": lambda: _unary(_off_grid),
    "trunc": lambda: _unary(_off_grid),
    "round": lambda: _unary(_off_grid),
    "neg": lambda: _unary(_uniform),
    "relu": lambda: _unary(_nonzero),
    "clamp.Tensor": _clamp_tensor_samples,
    "clamp": _clamp_samples,
    "clamp_min": _clamp_min_samples,
    "clamp_max": _clamp_min_samples,
    "lerp.Scalar": _lerp_scalar_samples,
    "lerp.Tensor": _lerp_tensor_samples,
    "addcmul": _addcmul_samples,
    "addcdiv": _addcdiv_samples,
    "where.self": _where_samples,
    "masked_fill.Scalar": _masked_fill_scalar_samples,
    "masked_fill.Tensor": _masked_fill_tensor_samples,
    "sum": _reduction_full_samples,
    "sum.dim_IntList": _reduction_dims_samples,
    "mean": _reduction_full_samples,
    "mean.dim": _reduction_dims_samples,
    "prod": _prod_samples,
    "prod.dim_int": _prod_dim_samples,
    "max.dim": _max_dim_samples,
    "max": _max_samples,
    "min.dim": _max_dim_samples,
    "min": _max_samples,
    "amax": _amax_samples,
    "amin": _amax_samples,
    "argmax": _arg_samples,
    "argmin": _arg_samples,
    "var.correction": _var_samples,
    "std.correction": _var_samples,
    "norm.Scalar": _norm_scalar_samples,
    "norm.ScalarOpt_dim": _norm_dim_samples,
    "norm.ScalarOpt_dtype": _norm_dtype_samples,
    "norm.ScalarOpt_dim_dtype": _norm_dim_dtype_samples,
    "logsumexp": _logsumexp_samples,
    "all": _all_samples,
    "all.dim": _all_dim_samples,
    "all.dims": _all_dims_samples,
    "any": _all_samples,
    "any.dim": _all_dim_samples,
    "any.dims": _all_dims_samples,
    "cumsum": _cumsum_samples,
    "cumprod": _cumprod_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "floor_divide": "no derivative, as in PyTorch: backward raises",
    "floor_divide.Scalar": "no derivative, as in PyTorch: backward raises",
    "remainder.Scalar_Tensor": "no derivative, as in PyTorch: backward raises",
}
