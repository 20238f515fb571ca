"""Math, special-function and statistics kernels (session 11): PyTorch's aliases (absolute,
arccos, multiply, greater, fix, ...: CompositeImplicitAutograd kernels calling the real operator),
acosh/asinh/atanh, the gamma family (digamma, lgamma, polygamma, mvlgamma), i0 and special_i1,
sinc, fmax/fmin, gcd/lcm, ldexp, frexp, nextafter, the bit shifts, isneginf/isposinf/isreal and
the Python-bool predicates is_signed/is_same_size/is_nonzero.

The special functions compute in float64 by vectorised series, recurrences and asymptotic
expansions (no SciPy): digamma shifts its argument to 10 and sums the asymptotic series,
trigamma shifts it by 6 (after reflection below 1/2), polygamma(n >= 2) is the Hurwitz zeta
function by Euler-Maclaurin summation, lgamma is a Taylor series about 1 and 2 between 0 and 2.5,
a recurrence down to there below 13 and Stirling's series above, i0 and i1 are their power series
below |x| = 30 and their asymptotic expansions above."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device, Layout
from framework.c10.dtypes import (
    bool_,
    can_cast,
    dtype,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    numpy_is_floating,
)
from framework.ops._iter import Number, broadcast_shapes, result_type
from framework.ops._python_args import wrapped_number
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    TensorMeta,
    array,
    aten_op,
    check_out_dtype,
    dispatched_empty,
    forward_kernel,
    is_meta,
    not_implemented,
    register_variants,
    resize_output,
    same_device,
    structured,
    wrap_dim,
)
from framework.ops.kernels.linalg_decomp import conj
from framework.ops.kernels.pointwise import (
    _binary_impl,
    _binary_meta,
    _is_complex,
    _is_floating,
    _refuse,
    _refuse_complex,
    _to_float,
    _unary,
)

Array = npt.NDArray[Any]

# ---- aliases ----------------------------------------------------------------------------------

_ALIASES: Final[dict[str, str]] = {
    "absolute": "abs.default",
    "absolute_": "abs_.default",
    "absolute_out": "abs.out",
    "arccos": "acos.default",
    "arccos_": "acos_.default",
    "arccos_out": "acos.out",
    "arcsin": "asin.default",
    "arcsin_": "asin_.default",
    "arcsin_out": "asin.out",
    "arctan": "atan.default",
    "arctan_": "atan_.default",
    "arctan_out": "atan.out",
    "arccosh": "acosh.default",
    "arccosh_": "acosh_.default",
    "arccosh_out": "acosh.out",
    "arcsinh": "asinh.default",
    "arcsinh_": "asinh_.default",
    "arcsinh_out": "asinh.out",
    "arctanh": "atanh.default",
    "arctanh_": "atanh_.default",
    "arctanh_out": "atanh.out",
    "arctan2": "atan2.default",
    "arctan2_": "atan2_.default",
    "arctan2_out": "atan2.out",
    "negative": "neg.default",
    "negative_": "neg_.default",
    "negative_out": "neg.out",
    "fix": "trunc.default",
    "fix_": "trunc_.default",
    "fix_out": "trunc.out",
    "multiply_tensor": "mul.Tensor",
    "multiply__tensor": "mul_.Tensor",
    "multiply_out": "mul.out",
    "multiply_scalar": "mul.Scalar",
    "multiply__scalar": "mul_.Scalar",
    "subtract_tensor": "sub.Tensor",
    "subtract__tensor": "sub_.Tensor",
    "subtract_out": "sub.out",
    "subtract_scalar": "sub.Scalar",
    "subtract__scalar": "sub_.Scalar",
    "divide_tensor": "div.Tensor",
    "divide__tensor": "div_.Tensor",
    "divide_out": "div.out",
    "divide_scalar": "div.Scalar",
    "divide__scalar": "div_.Scalar",
    "divide_tensor_mode": "div.Tensor_mode",
    "divide__tensor_mode": "div_.Tensor_mode",
    "divide_out_mode": "div.out_mode",
    "divide_scalar_mode": "div.Scalar_mode",
    "divide__scalar_mode": "div_.Scalar_mode",
    "true_divide_tensor": "div.Tensor",
    "true_divide__tensor": "div_.Tensor",
    "true_divide_out": "div.out",
    "true_divide_scalar": "div.Scalar",
    "true_divide__scalar": "div_.Scalar",
    **{
        f"{alias}{suffix}": f"{target}{target_suffix}"
        for alias, target in (
            ("greater", "gt"),
            ("greater_equal", "ge"),
            ("less", "lt"),
            ("less_equal", "le"),
            ("not_equal", "ne"),
        )
        for suffix, target_suffix in (
            ("_tensor", ".Tensor"),
            ("__tensor", "_.Tensor"),
            ("_tensor_out", ".Tensor_out"),
            ("_scalar", ".Scalar"),
            ("__scalar", "_.Scalar"),
            ("_scalar_out", ".Scalar_out"),
        )
    },
}
"""Alias kernel -> the aten overload it calls (so the graph records the real operator's node)."""

for _alias, _target in _ALIASES.items():
    forward_kernel(_alias, _target)


def _positive(self: Tensor) -> Tensor:
    """`self` itself (PyTorch's unary plus), refusing bool tensors."""
    if self._impl.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


register_variants("positive", {"": _positive})


# ---- acosh, asinh, atanh, sinc -----------------------------------------------------------------

_unary("acosh", np.arccosh, to_float=True)
_unary("asinh", np.arcsinh, to_float=True)
_unary("atanh", np.arctanh, to_float=True)


def _sinc(a: Array) -> Array:
    """sin(pi x) / (pi x), 1 at 0 (in the dtype of `a`)."""
    scaled = a * a.dtype.type(math.pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: Array = np.where(a == 0, a.dtype.type(1), np.sin(scaled) / scaled)
    return result


_unary("sinc", _sinc, to_float=True)


# ---- the gamma family --------------------------------------------------------------------------


def _polynomial(z: Array, coefficients: tuple[float, ...]) -> Array:
    """sum_k coefficients[k] * z**k by Horner's rule."""
    result = np.full_like(z, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        result = result * z + c
    return result


_DIGAMMA_SERIES: Final = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
"""B_2k / (2k) for k = 1..7: digamma(x) ~ log(x) - 1/(2x) - sum_k B_2k / (2k x^2k)."""
_PSI_10: Final = 2.25175258906672110764
"""digamma(10) = H_9 - Euler's gamma."""


def _digamma_positive(x: Array) -> Array:
    """digamma of float64 x > 0: shifted to 10 or more by digamma(x) = digamma(x + 1) - 1/x, then
    the asymptotic series (exact at x = 10)."""
    shift = np.zeros_like(x)
    y = x.copy()
    for _ in range(10):
        low = y < 10
        if not low.any():
            break
        shift -= np.where(low, 1.0 / np.where(low, y, 1.0), 0.0)
        y = np.where(low, y + 1.0, y)
    inverse_square = 1.0 / (y * y)
    with np.errstate(over="ignore"):
        tail = np.where(y < 1e17, inverse_square * _polynomial(inverse_square, _DIGAMMA_SERIES), 0.0)
        series = np.log(y) - 0.5 / y - tail
    result: Array = shift + np.where(y == 10, _PSI_10, series)
    return result


def digamma_array(x: Array) -> Array:
    """The digamma function of float64 `x`: -+inf at -+0, NaN at negative integers and -inf,
    digamma(1 - x) - pi / tan(pi frac(x)) below 0."""
    negative = x < 0
    integer = x == np.floor(x)
    reflected = np.where(negative, 1.0 - x, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = _digamma_positive(np.where(reflected > 0, reflected, 1.0))
        values = np.where(negative, values - math.pi / np.tan(math.pi * np.fmod(x, 1.0)), values)
    values = np.where(negative & integer, np.nan, values)
    result: Array = np.where(x == 0, np.copysign(np.inf, -x), values)
    return np.where(np.isnan(x), x, result)


def trigamma_array(x: Array) -> Array:
    """polygamma(1, x) of float64 `x`, as PyTorch computes it: reflected below 1/2, shifted up by
    6, then the asymptotic series to 1/x^7."""
    reflect = x < 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sin_pi_x = np.sin(math.pi * x)
        total = np.where(reflect, -(math.pi * math.pi) / (sin_pi_x * sin_pi_x), 0.0)
        y = np.where(reflect, 1.0 - x, x)
        for _ in range(6):
            total = total + 1.0 / (y * y)
            y = y + 1.0
        inverse_square = 1.0 / (y * y)
        total = (
            total
            + (
                1.0
                + 1.0 / (2.0 * y)
                + inverse_square * (1 / 6 - inverse_square * (1 / 30 - inverse_square / 42))
            )
            / y
        )
    result: Array = np.where(reflect, -total, total)
    return result


_ZETA_TERMS: Final = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)
"""(2k)! / B_2k for k = 1..12, the Euler-Maclaurin correction terms of the Hurwitz zeta sum."""


def hurwitz_zeta(s: Array | float, q: Array) -> Array:
    """The Hurwitz zeta function sum_k (q + k)^-s for float64 s > 1: the first terms summed until
    q + k > 9 (at least 10 of them), the rest by Euler-Maclaurin summation; +inf at q a
    non-positive integer, NaN for a non-integer s with q < 0 and for s <= 1 (+inf at s = 1)."""
    s_ = np.asarray(s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = np.power(q, -s_)
        a = q.copy()
        last = total
        finite = q[np.isfinite(q)]
        steps = max(9, math.ceil(9.0 - float(finite.min()))) if finite.size else 9
        for _ in range(steps):
            a = a + 1.0
            last = np.power(a, -s_)
            total = total + last
        w = a
        total = total + last * w / (s_ - 1.0) - 0.5 * last
        factor = np.ones_like(total)
        k = 0.0
        for term in _ZETA_TERMS:
            factor = factor * (s_ + k)
            last = last / w
            total = total + factor * last / term
            k += 1.0
            factor = factor * (s_ + k)
            last = last / w
            k += 1.0
    result = np.where(s_ == 1, np.inf, np.where(s_ < 1, np.nan, total))
    non_positive_integer = (q <= 0) & (q == np.floor(q))
    result = np.where(non_positive_integer, np.inf, result)
    result = np.where((q < 0) & ~non_positive_integer & (s_ != np.floor(s_)), np.nan, result)
    return np.asarray(result, dtype=np.float64)


def polygamma_array(n: int, x: Array) -> Array:
    """The n-th derivative of digamma of float64 `x` (n >= 0)."""
    if n == 0:
        return digamma_array(x)
    if n == 1:
        return trigamma_array(x)
    sign = -1.0 if n % 2 == 0 else 1.0
    result: Array = sign * math.exp(math.lgamma(n + 1.0)) * hurwitz_zeta(float(n + 1), x)
    return result


_EULER_GAMMA: Final = 0.57721566490153286061
_LGAMMA_TERMS: Final = 40
_ZETA_MINUS_ONE: Final = hurwitz_zeta(np.arange(2.0, _LGAMMA_TERMS + 2.0), np.full(_LGAMMA_TERMS, 2.0))
"""zeta(k) - 1 for k = 2..41 (the Taylor coefficients of lgamma about 1)."""
_LGAMMA_SERIES: Final = tuple(
    (-1.0) ** k * float(_ZETA_MINUS_ONE[k - 2]) / k for k in range(2, _LGAMMA_TERMS + 2)
)
_HALF_LOG_TWO_PI: Final = 0.5 * math.log(2.0 * math.pi)
_STIRLING: Final = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
"""B_2k / (2k (2k - 1)) for k = 1..8: Stirling's series of lgamma in powers of 1/x^2 (times 1/x)."""


def _lgamma_one_plus(z: Array) -> Array:
    """lgamma(1 + z) for |z| <= 1/2: -log1p(z) + z (1 - gamma) + sum_k (-1)^k (zeta(k) - 1) z^k / k."""
    series = _polynomial(z, (0.0, 0.0, *_LGAMMA_SERIES))
    result: Array = -np.log1p(z) + z * (1.0 - _EULER_GAMMA) + series
    return result


def _lgamma_positive(x: Array) -> Array:
    """lgamma of finite float64 x > 0."""
    result = np.empty_like(x)
    tiny = x < 0.5
    result[tiny] = _lgamma_one_plus(x[tiny]) - np.log(x[tiny])
    near_one = (x >= 0.5) & (x < 1.5)
    result[near_one] = _lgamma_one_plus(x[near_one] - 1.0)
    near_two = (x >= 1.5) & (x < 13.0)
    y = x[near_two]
    n = np.floor(y - 1.5)  # lgamma(y) = log((y-1)(y-2)...(y-n)) + lgamma(y - n), y - n in [1.5, 2.5)
    product = np.ones_like(y)
    for k in range(1, 12):
        product = np.where(n >= k, product * (y - k), product)
        z = y - n - 2.0
    result[near_two] = np.log(product) + np.log1p(z) + _lgamma_one_plus(z)
    big = x >= 13.0
    b = x[big]
    inverse = 1.0 / b
    with np.errstate(under="ignore"):
        correction = inverse * _polynomial(inverse * inverse, _STIRLING)
    result[big] = (b - 0.5) * np.log(b) - b + _HALF_LOG_TWO_PI + correction
    return result


def lgamma_array(x: Array) -> Array:
    """log|Gamma(x)| of float64 `x`: +inf at non-positive integers and +-inf, the reflection
    log(pi / |sin(pi x)|) - lgamma(1 - x) below 0."""
    finite = np.isfinite(x) & ~((x <= 0) & (x == np.floor(x)))
    result = np.where(np.isnan(x), x, np.inf)
    positive = finite & (x > 0)
    result[positive] = _lgamma_positive(x[positive])
    negative = finite & (x < 0)
    v = x[negative]
    sin_pi = np.abs(np.sin(math.pi * np.fmod(v, 2.0)))
    result[negative] = math.log(math.pi) - np.log(sin_pi) - _lgamma_positive(1.0 - v)
    return result


def _float64_unary(fn: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """`fn` (a float64 function) applied to an array of any real floating dtype."""
    return lambda a: fn(a.astype(np.float64))


_unary("digamma", _float64_unary(digamma_array), to_float=True, check=_refuse("digamma", _is_complex))
_unary("lgamma", _float64_unary(lgamma_array), to_float=True, check=_refuse("lgamma_vml_cpu", _is_complex))


def _polygamma_meta(n: int, self: Tensor) -> TensorMeta:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    d = self._impl.dtype
    if d.is_complex:
        raise not_implemented({0: "digamma", 1: "trigamma"}.get(n, "polygamma"), d)
    return TensorMeta(self._impl.sizes, _to_float(d), self._impl.device)


def _polygamma_impl(out: Array, n: int, self: Tensor) -> None:
    out[...] = polygamma_array(n, array(self).astype(np.float64))


structured("polygamma", _polygamma_meta, _polygamma_impl, inplace=False)


def _polygamma_(self: Tensor, n: int) -> Tensor:
    """polygamma_ (CompositeExplicitAutograd): polygamma.out into `self`."""
    result: Tensor = aten_op("polygamma.out")(n, self, out=self)
    return result


register_variants("polygamma_", {"": _polygamma_})


def _mvlgamma_check(self: Tensor, p: int) -> None:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    d = self._impl.dtype
    if d is bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if d.is_complex:
        raise not_implemented("arange_cpu", d)


def _mvlgamma_values(self: Tensor, p: int) -> Array:
    """sum_j lgamma(x - j/2) over j < p, plus p (p - 1) / 4 log(pi), in float64."""
    x = array(self).astype(np.float64)
    total = np.full_like(x, p * (p - 1) / 4.0 * math.log(math.pi))
    for j in range(p):
        total += lgamma_array(x - j / 2.0)
    return total


def _mvlgamma(self: Tensor, p: int) -> Tensor:
    _mvlgamma_check(self, p)
    out = aten_op("empty.memory_format")(
        list(self._impl.sizes), dtype=_to_float(self._impl.dtype), device=self._impl.device
    )
    if not is_meta(self._impl.device):
        array(out)[...] = _mvlgamma_values(self, p)
    result: Tensor = out
    return result


def _mvlgamma_out(self: Tensor, p: int, *, out: Tensor) -> Tensor:
    values = _mvlgamma(self, p)
    if not can_cast(values._impl.dtype, out._impl.dtype):
        raise RuntimeError(
            f"mvlgamma: result type {out._impl.dtype.scalar_type_name} can't be cast to the desired "
            f"output type {values._impl.dtype.scalar_type_name}"
        )
    resize_output(out, values._impl.sizes)
    result: Tensor = aten_op("copy_.default")(out, values)
    return result


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    return _mvlgamma_out(self, p, out=self)


register_variants("mvlgamma", {"": _mvlgamma, "_": _mvlgamma_, "_out": _mvlgamma_out})


# ---- i0, special_i1 ------------------------------------------------------------------------------

_BESSEL_SWITCH: Final = 30.0


def _bessel_series(x: Array, order: int) -> Array:
    """I_order(x) (order 0 or 1) of float64 |x| < 30 by its power series of positive terms,
    sum_k (x/2)^(2k + order) / (k! (k + order)!)."""
    quarter = 0.25 * x * x
    term = np.ones_like(x) if order == 0 else 0.5 * x
    total = term.copy()
    for k in range(1, 120):
        term = term * quarter / (k * (k + order))
        total = total + term
        if k % 10 == 0 and not (np.abs(term) > 1e-17 * np.abs(total)).any():
            break
    return total


def _bessel_asymptotic_scaled(a: Array, order: int) -> Array:
    """sqrt(2 pi a) e^-a I_order(a) for float64 a >= 30: the asymptotic series
    sum_k (-1)^k prod_j (4 order^2 - (2j - 1)^2) / (k! (8a)^k)."""
    mu = 4.0 * order * order
    term = np.ones_like(a)
    total = term.copy()
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * a)
        total = total + term
    return total


def _bessel(x: Array, order: int) -> Array:
    """I_order(x) of float64 `x`; +-inf where it overflows (e^|x| does), NaN at +-inf."""
    a = np.abs(x)
    result = np.empty_like(a)
    small = a < _BESSEL_SWITCH
    result[small] = _bessel_series(x[small], order)
    big = ~small & ~np.isnan(a)
    b = a[big]
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = _bessel_asymptotic_scaled(b, order) / np.sqrt(2.0 * math.pi * b)
        values = np.exp(b) * scaled
    result[big] = values if order == 0 else np.copysign(values, x[big])
    result[np.isnan(a)] = np.nan
    return result


def i0_array(x: Array) -> Array:
    """The modified Bessel function of the first kind of order 0 of float64 `x`."""
    return _bessel(x, 0)


def i1_array(x: Array) -> Array:
    """The modified Bessel function of the first kind of order 1 of float64 `x`."""
    return _bessel(x, 1)


_unary("i0", _float64_unary(i0_array), to_float=True, check=_refuse("i0_vml_cpu", _is_complex))
_unary(
    "special_i1",
    _float64_unary(i1_array),
    to_float=True,
    check=_refuse("i1_cpu", _is_complex),
)


# ---- fmax, fmin, gcd, lcm, nextafter, shifts ---------------------------------------------------------


def _is_integral(d: dtype) -> bool:
    return not (d.is_floating_point or d.is_complex or d is bool_)


for _name, _fn in (("fmax", np.fmax), ("fmin", np.fmin)):
    structured(
        _name,
        _binary_meta(
            _name, check=_refuse_complex(RuntimeError, f"{_name} not implemented for complex tensors.")
        ),
        _binary_impl(_fn),
        inplace=False,
    )
for _name, _integer_fn in (("gcd", np.gcd), ("lcm", np.lcm)):
    structured(
        _name,
        _binary_meta(_name, check=_refuse(f"{_name}_cpu", lambda d: not _is_integral(d))),
        _binary_impl(_integer_fn),
    )
structured(
    "nextafter",
    _binary_meta("nextafter", check=_refuse("nextafter_cpu", lambda d: not d.is_floating_point)),
    _binary_impl(np.nextafter),
)


def _shift(left: bool) -> Callable[[Any, Any], Array]:
    """`a << b` or `a >> b` as PyTorch defines them for any shift: a left shift by a negative
    amount or by the bit width or more is 0; such a right shift fills with the sign bit."""

    def shift(a: Any, b: Any) -> Array:
        x, amount = np.asarray(a), np.asarray(b)
        bits = x.dtype.itemsize * 8
        out_of_range = (amount < 0) | (amount >= bits)
        clipped = np.where(out_of_range, bits - 1, amount).astype(x.dtype)
        if left:
            result: Array = np.where(out_of_range, x.dtype.type(0), np.left_shift(x, clipped))
            return result
        shifted: Array = np.right_shift(x, clipped)
        if x.dtype.kind == "u":
            shifted = np.where(out_of_range, x.dtype.type(0), shifted)
        return shifted

    return shift


for _name, _kernel, _left in (
    ("bitwise_left_shift", "lshift_cpu", True),
    ("bitwise_right_shift", "rshift_cpu", False),
):
    structured(
        _name,
        _binary_meta(_name, check=_refuse(_kernel, lambda d: not _is_integral(d))),
        _binary_impl(_shift(_left)),
    )


def _shift_alias(name: str, target: str) -> None:
    """The Scalar overloads of a shift and its dunder forms (`__lshift__`, `__ilshift__`): the
    Tensor overload of `target` with the scalar as a wrapped number."""

    def wrapped_other(self: Tensor, other: Number, **kwargs: Any) -> Tensor:
        result: Tensor = aten_op(f"{target}.Tensor")(self, wrapped_number(other, self._impl.device), **kwargs)
        return result

    def wrapped_other_out(self: Tensor, other: Number, *, out: Tensor) -> Tensor:
        result: Tensor = aten_op(f"{target}.Tensor_out")(
            self, wrapped_number(other, self._impl.device), out=out
        )
        return result

    def wrapped_other_(self: Tensor, other: Number) -> Tensor:
        result: Tensor = aten_op(f"{target}_.Tensor")(self, wrapped_number(other, self._impl.device))
        return result

    def wrapped_self(self: Number, other: Tensor) -> Tensor:
        result: Tensor = aten_op(f"{target}.Tensor")(wrapped_number(self, other._impl.device), other)
        return result

    def wrapped_self_out(self: Number, other: Tensor, *, out: Tensor) -> Tensor:
        result: Tensor = aten_op(f"{target}.Tensor_out")(
            wrapped_number(self, other._impl.device), other, out=out
        )
        return result

    register_variants(
        f"{name}_tensor_scalar",
        {"": wrapped_other, "_": wrapped_other_, "_out": wrapped_other_out},
    )
    register_variants(f"{name}_scalar_tensor", {"": wrapped_self, "_out": wrapped_self_out})


_shift_alias("bitwise_left_shift", "bitwise_left_shift")
_shift_alias("bitwise_right_shift", "bitwise_right_shift")


# ---- ldexp, frexp ----------------------------------------------------------------------------------


def _is_integral_exponent(other: Tensor) -> bool:
    return not (other._impl.dtype.is_floating_point or other._impl.dtype.is_complex)


def _ldexp_exact(self: Tensor, other: Tensor) -> Tensor:
    """self * 2^other for an integral `other`, exactly (also into and out of the subnormals):
    in `self`'s dtype if it is floating, else in the default float dtype."""
    device = same_device("ldexp", (self, other))
    d = self._impl.dtype if _is_floating(self._impl.dtype) else get_default_dtype()
    sizes = broadcast_shapes(self._impl.sizes, other._impl.sizes)
    out: Tensor = aten_op("empty.memory_format")(list(sizes), dtype=d, device=device)
    if not is_meta(device):
        x = array(self).astype(d.numpy_dtype)
        e = np.clip(array(other), -(2**31), 2**31 - 1).astype(np.int32)
        if d.is_complex:
            array(out)[...] = np.ldexp(x.real, e) + 1j * np.ldexp(x.imag, e)
        else:
            array(out)[...] = np.ldexp(x, e)
    return out


def _ldexp_power(self: Tensor, other: Tensor) -> Tensor:
    """self * 2.0^other for a floating `other` (the promoted dtype of the two)."""
    result: Tensor = aten_op("mul.Tensor")(self, aten_op("pow.Scalar")(2.0, other))
    return result


def _ldexp(self: Tensor, other: Tensor) -> Tensor:
    """self * 2^other (CompositeExplicitAutograd, differentiated as LdexpBackward0)."""
    return _ldexp_exact(self, other) if _is_integral_exponent(other) else _ldexp_power(self, other)


def _ldexp_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    values = _ldexp(self, other)
    if not can_cast(values._impl.dtype, out._impl.dtype):
        raise RuntimeError(
            f"ldexp can't be cast to the desired output type {out._impl.dtype.scalar_type_name}"
        )
    resize_output(out, values._impl.sizes)
    result: Tensor = aten_op("copy_.default")(out, values)
    return result


def _ldexp_(self: Tensor, other: Tensor) -> Tensor:
    return _ldexp_out(self, other, out=self)


register_variants("ldexp", {"": _ldexp, "_": _ldexp_, "_out": _ldexp_out})

_FREXP_DTYPES: Final = "torch.frexp() only supports floating-point dtypes"


def _frexp_check(self: Tensor) -> None:
    if not self._impl.dtype.is_floating_point:
        raise RuntimeError(_FREXP_DTYPES)


def _frexp_fill(self: Tensor, mantissa: Tensor, exponent: Tensor) -> None:
    m, e = np.frexp(array(self))
    array(mantissa)[...] = m
    array(exponent)[...] = e


def _frexp(self: Tensor) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with self = mantissa * 2^exponent, |mantissa| in [0.5, 1), exponent int32."""
    _frexp_check(self)
    sizes, device = list(self._impl.sizes), self._impl.device
    mantissa: Tensor = aten_op("empty.memory_format")(sizes, dtype=self._impl.dtype, device=device)
    exponent: Tensor = aten_op("empty.memory_format")(sizes, dtype=int32, device=device)
    if not is_meta(device):
        _frexp_fill(self, mantissa, exponent)
    return mantissa, exponent


def _frexp_out(self: Tensor, *, mantissa: Tensor, exponent: Tensor) -> tuple[Tensor, Tensor]:
    _frexp_check(self)
    if mantissa._impl.dtype is not self._impl.dtype:
        raise RuntimeError(
            "torch.frexp() expects mantissa to have dtype "
            f"{CPP_TYPE_NAMES[self._impl.dtype]} but got {CPP_TYPE_NAMES[mantissa._impl.dtype]}"
        )
    if exponent._impl.dtype is not int32:
        raise RuntimeError(
            f"torch.frexp() expects exponent to have int dtype but got {CPP_TYPE_NAMES[exponent._impl.dtype]}"
        )
    resize_output(mantissa, self._impl.sizes)
    resize_output(exponent, self._impl.sizes)
    if not is_meta(self._impl.device):
        _frexp_fill(self, mantissa, exponent)
    return mantissa, exponent


register_variants("frexp", {"": _frexp, "_out": _frexp_out})


# ---- isneginf, isposinf, isreal, is_signed, is_same_size, is_nonzero --------------------------------


def _infinity_test(op: str, sign: float) -> None:
    def meta(self: Tensor) -> TensorMeta:
        if self._impl.dtype.is_complex:
            raise RuntimeError(f"{op} does not support complex inputs.")
        return TensorMeta(self._impl.sizes, bool_, self._impl.device)

    def impl(out: Array, self: Tensor) -> None:
        a = array(self)
        out[...] = a == sign * np.inf if numpy_is_floating(a.dtype) else False

    def out_variant(self: Tensor, *, out: Tensor) -> Tensor:
        meta(self)
        if out._impl.dtype is not bool_:
            raise RuntimeError(f"{op} does not support non-boolean outputs.")
        resize_output(out, self._impl.sizes)
        if not is_meta(self._impl.device):
            impl(array(out), self)
        return out

    def functional(self: Tensor) -> Tensor:
        m = meta(self)
        out: Tensor = aten_op("empty.memory_format")(list(m.sizes), dtype=bool_, device=m.device)
        return out_variant(self, out=out)

    register_variants(op, {"": functional, "_out": out_variant})


_infinity_test("isneginf", -1.0)
_infinity_test("isposinf", 1.0)


def _isreal(self: Tensor) -> Tensor:
    """Elementwise: the imaginary part is 0 (every element of a real tensor)."""
    if not self._impl.dtype.is_complex:
        ones: Tensor = aten_op("ones_like.default")(self, dtype=bool_)
        return ones
    result: Tensor = aten_op("eq.Scalar")(aten_op("imag.default")(self), 0)
    return result


def _is_signed(self: Tensor) -> bool:
    return self._impl.dtype.is_signed


def _is_same_size(self: Tensor, other: Tensor) -> bool:
    return self._impl.sizes == other._impl.sizes


def _is_nonzero(self: Tensor) -> bool:
    """The truth of a one-element tensor (`bool(self)`, which refuses other sizes)."""
    return bool(self)


register_variants("isreal", {"": _isreal})
register_variants("is_signed", {"": _is_signed})
register_variants("is_same_size", {"": _is_same_size})
register_variants("is_nonzero", {"": _is_nonzero})


# ---- logcumsumexp, renorm ----------------------------------------------------------------------------


def _logcumsumexp_meta(self: Tensor, dim: int) -> TensorMeta:
    wrap_dim(dim, self._impl.dim())
    d = self._impl.dtype
    if not _is_floating(d):
        raise not_implemented("logcumsumexp_out_cpu", d)
    return TensorMeta(self._impl.sizes, d, self._impl.device)


def _logcumsumexp_impl(out: Array, self: Tensor, dim: int) -> None:
    """log(cumsum(exp(x))) along `dim`: real values by logaddexp's accumulation, complex ones
    shifted by the largest real part along `dim` (kept where every value is -inf)."""
    a = array(self)
    if a.ndim == 0:
        out[...] = a
        return
    axis = wrap_dim(dim, a.ndim)
    if a.dtype.kind != "c":
        out[...] = np.logaddexp.accumulate(a, axis=axis)
        return
    shift = np.max(a.real, axis=axis, keepdims=True) if a.shape[axis] else np.zeros(())
    shift = np.where(np.isfinite(shift), shift, 0.0)
    with np.errstate(divide="ignore"):
        out[...] = np.log(np.cumsum(np.exp(a - shift), axis=axis)) + shift


structured("logcumsumexp", _logcumsumexp_meta, _logcumsumexp_impl, inplace=False)


def _renorm_meta(self: Tensor, p: Number, dim: int, maxnorm: Number) -> TensorMeta:
    ndim = self._impl.dim()
    if ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    wrap_dim(dim, ndim)
    if not p > 0:  # type: ignore[operator]
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:  # type: ignore[operator]
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = self._impl.dtype
    if not _is_floating(d):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {d.scalar_type_name}"
        )
    return TensorMeta(self._impl.sizes, d, self._impl.device)


def _renorm_impl(out: Array, self: Tensor, p: Number, dim: int, maxnorm: Number) -> None:
    """Each slice along `dim` whose p-norm exceeds `maxnorm` scaled by maxnorm / (norm + 1e-7)."""
    a = array(self)
    axes = tuple(i for i in range(a.ndim) if i != wrap_dim(dim, a.ndim))
    magnitude = np.abs(a)
    exponent = float(p)  # type: ignore[arg-type]
    if math.isinf(exponent):
        norm = np.max(magnitude, axis=axes, keepdims=True)
    else:
        norm = np.sum(magnitude**exponent, axis=axes, keepdims=True) ** (1.0 / exponent)
    limit = magnitude.dtype.type(maxnorm)
    factor = np.where(norm > limit, limit / (norm + magnitude.dtype.type(1e-7)), magnitude.dtype.type(1))
    out[...] = a * factor


structured("renorm", _renorm_meta, _renorm_impl)


# ---- logspace and the window functions -----------------------------------------------------------------


def _logspace_out(start: Number, end: Number, steps: int, base: float = 10.0, *, out: Tensor) -> Tensor:
    """base^linspace(start, end, steps) computed in float64 (complex128 for complex), then
    converted to `out`'s dtype (truncating for integers)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    impl = out._impl
    if impl.numel() != steps:
        impl.resize_((steps,))
    if is_meta(impl.device) or steps == 0:
        return out
    d = impl.dtype
    if d is bool_:
        raise not_implemented("logspace_cpu", d)
    compute = np.complex128 if d.is_complex else np.float64
    exponents = np.linspace(np.asarray(start, compute), np.asarray(end, compute), steps)
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.power(np.asarray(base, compute), exponents)
    array(out)[...] = values.reshape(impl.sizes).astype(d.numpy_dtype)
    return out


def _logspace(
    start: Number,
    end: Number,
    steps: int,
    base: float = 10.0,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    out = dispatched_empty((0,), dtype or get_default_dtype(), layout, device)
    return _logspace_out(start, end, steps, base, out=out)


register_variants("logspace", {"": _logspace, "_out": _logspace_out})


def _window_check(name: str, window_length: int, d: dtype) -> None:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if not d.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={CPP_TYPE_NAMES[d]}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )


WindowFn = Callable[[Array, int], Array]
"""A window's values at the float positions k = 0..N-1 (in the output dtype) for length N."""


def _cosine_window(*terms: tuple[float, float]) -> WindowFn:
    """sum_j a_j cos(j-th multiple of 2 pi k / (N - 1)) for `terms` (multiple, a_j)."""

    def window(k: Array, n: int) -> Array:
        t = k.dtype.type
        angle = k * t(2.0 * math.pi / (n - 1))
        total = np.zeros_like(k)
        for multiple, amplitude in terms:
            total = total + t(amplitude) * (np.cos(angle * t(multiple)) if multiple else t(1))
        return total

    return window


def _bartlett(k: Array, n: int) -> Array:
    """1 - |2k / (N - 1) - 1|, as 2k / (N - 1) rising and 2 - 2k / (N - 1) after the middle."""
    rising = k * k.dtype.type(2.0 / (n - 1))
    first_half = ((n - 1) >> 1) + 1
    result: Array = np.where(np.arange(n) < first_half, rising, k.dtype.type(2) - rising)
    return result


def _kaiser(beta: float) -> WindowFn:
    def window(k: Array, n: int) -> Array:
        alpha = (n - 1) / 2.0
        ratio = (k.astype(np.float64) - alpha) / alpha
        values = i0_array(beta * np.sqrt(np.maximum(1.0 - ratio * ratio, 0.0))) / i0_array(np.array([beta]))
        return values.astype(k.dtype)

    return window


def _make_window(
    name: str,
    window_length: int,
    periodic: bool,
    fn: WindowFn,
    dtype: dtype | None,
    layout: Layout | None,
    device: Device | str | None,
) -> Tensor:
    """The window of `window_length` points: a periodic one is the symmetric window of one more
    point without its last."""
    d = dtype or get_default_dtype()
    _window_check(name, window_length, d)
    out = dispatched_empty((window_length,), d, layout, device)
    if is_meta(out._impl.device) or window_length == 0:
        return out
    if window_length == 1:
        array(out)[...] = 1
        return out
    n = window_length + 1 if periodic else window_length
    values = fn(np.arange(n, dtype=d.numpy_dtype), n)
    array(out)[...] = values[:window_length]
    return out


def _register_window(name: str, make_fn: Callable[..., WindowFn], parameters: tuple[str, ...]) -> None:
    """`name` (periodic) and `name_periodic` kernels, and one per trailing float parameter
    (`name_periodic_alpha`, ...), each building `make_fn(*parameters)`'s window."""

    def build(window_length: int, periodic: bool, *values: float, **options: Any) -> Tensor:
        fn = make_fn(*values)
        return _make_window(
            name,
            window_length,
            periodic,
            fn,
            options.get("dtype"),
            options.get("layout"),
            options.get("device"),
        )

    def default(window_length: int, **options: Any) -> Tensor:
        return build(window_length, True, **options)

    register_variants(name, {"": default, "_periodic": build})
    for i in range(1, len(parameters) + 1):
        register_variants(f"{name}_periodic_{'_'.join(parameters[:i])}", {"": build})


_register_window("hann_window", lambda: _cosine_window((0, 0.5), (1, -0.5)), ())
_register_window(
    "hamming_window",
    lambda alpha=0.54, beta=0.46: _cosine_window((0, alpha), (1, -beta)),
    ("alpha", "beta"),
)
_register_window("bartlett_window", lambda: _bartlett, ())
_register_window("blackman_window", lambda: _cosine_window((0, 0.42), (1, -0.5), (2, 0.08)), ())
_register_window("kaiser_window", lambda beta=12.0: _kaiser(beta), ("beta",))


# ---- histc, bincount, isin -------------------------------------------------------------------------------


def _histc_check(self: Tensor, bins: int) -> None:
    """histc's refusals: non-floating dtypes (named by the kernel PyTorch fails in) and no bins."""
    d = self._impl.dtype
    if not d.is_floating_point:
        raise not_implemented(
            "linspace_cpu" if d is bool_ else "aminmax_cpu" if d.is_complex else "histogram_cpu", d
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")


def _histc(self: Tensor, bins: int = 100, min: Number = 0, max: Number = 0) -> Tensor:
    """Counts of `self`'s values in `bins` equal bins over [min, max] (the data's range when both
    are 0; widened by 1 each way when it is one point); values outside are not counted."""
    _histc_check(self, bins)
    out: Tensor = aten_op("empty.memory_format")([bins], dtype=self._impl.dtype, device=self._impl.device)
    return _histc_out(self, bins, min, max, out=out)


def _histc_out(self: Tensor, bins: int = 100, min: Number = 0, max: Number = 0, *, out: Tensor) -> Tensor:
    _histc_check(self, bins)
    if max < min:  # type: ignore[operator]
        raise RuntimeError("torch.histc: max must be larger than min")
    resize_output(out, (bins,))
    if is_meta(self._impl.device):
        return out
    a = array(self).reshape(-1)
    t = a.dtype.type
    low, high = t(min), t(max)
    if low == high and a.size:
        low, high = a.min(), a.max()
    if low == high:
        low, high = low - t(1), high + t(1)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{float(low):g}, {float(high):g}] is not finite")
    inside = a[(a >= low) & (a <= high)]
    position = ((inside - low) * t(bins) / (high - low)).astype(np.int64)
    counts = np.bincount(np.minimum(position, bins - 1), minlength=bins)
    array(out)[...] = counts
    return out


register_variants("histc", {"": _histc, "_out": _histc_out})


def _bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Occurrences of each value 0..max(self) of a 1-d non-negative integer tensor (at least
    `minlength` of them), summing `weights` when given: float32 weights give float32 sums, any
    other weights float64 ones."""
    d = self._impl.dtype
    if not _is_integral(d):
        raise not_implemented("bincount_cpu", d)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    a = array(self)
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    w = None
    if weights is not None:
        if weights._impl.dim() != 1 or weights._impl.sizes[0] != a.size:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        w = array(weights).astype(np.float64)
    counts = np.bincount(a.astype(np.int64), weights=w, minlength=minlength)
    out_dtype = int64 if weights is None else float32 if weights._impl.dtype is float32 else float64
    out: Tensor = aten_op("empty.memory_format")(
        list(counts.shape), dtype=out_dtype, device=self._impl.device
    )
    array(out)[...] = counts
    return out


register_variants("bincount", {"": _bincount})


def _isin_operand(x: Tensor | Number, device: Device) -> Tensor:
    return x if isinstance(x, Tensor) else wrapped_number(x, device)


def _isin_values(
    elements: Tensor | Number,
    test_elements: Tensor | Number,
    assume_unique: bool = False,
    invert: bool = False,
) -> tuple[tuple[int, ...], Array | None, Device]:
    """The result's shape, its values (None on the Meta device) and device."""
    device = (elements if isinstance(elements, Tensor) else test_elements)._impl.device  # type: ignore[union-attr]
    a, b = _isin_operand(elements, device), _isin_operand(test_elements, device)
    checked = result_type(*(x for x in (elements, test_elements) if isinstance(x, Tensor)))
    if checked is bool_ or checked.is_complex:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {checked.scalar_type_name}")
    common = result_type(a, b)
    sizes = a._impl.sizes if isinstance(elements, Tensor) else ()
    if is_meta(device):
        return sizes, None, device
    x = array(a).astype(common.numpy_dtype)
    y = array(b).astype(common.numpy_dtype)
    return sizes, np.isin(x, y, assume_unique=assume_unique, invert=invert).reshape(sizes), device


def _isin(
    elements: Tensor | Number,
    test_elements: Tensor | Number,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """Whether each of `elements` occurs in `test_elements` (the reverse with `invert`)."""
    sizes, values, device = _isin_values(elements, test_elements, assume_unique, invert)
    out: Tensor = aten_op("empty.memory_format")(list(sizes), dtype=bool_, device=device)
    if values is not None:
        array(out)[...] = values
    return out


def _isin_out(
    elements: Tensor | Number,
    test_elements: Tensor | Number,
    *,
    assume_unique: bool = False,
    invert: bool = False,
    out: Tensor,
) -> Tensor:
    sizes, values, _ = _isin_values(elements, test_elements, assume_unique, invert)
    check_out_dtype(out, bool_)
    resize_output(out, sizes)
    if values is not None:
        array(out)[...] = values
    return out


register_variants("isin", {"": _isin, "_out": _isin_out})


# ---- cov, corrcoef (CompositeImplicitAutograd: their graphs record the operators they call) --------------


def _check_observation_weights(name: str, w: Tensor, observations: int, integral: bool) -> None:
    if w._impl.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w._impl.dim()} dimensions"
        )
    d = w._impl.dtype
    if integral and not _is_integral(d):
        raise RuntimeError(
            f"cov(): expected {name} to have integral dtype but got {name} with {d.scalar_type_name} dtype"
        )
    if not integral and not d.is_floating_point:
        raise RuntimeError(
            f"cov(): expected {name} to have floating point dtype but got {name} with "
            f"{d.scalar_type_name} dtype"
        )
    if w._impl.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got "
            f"{w._impl.numel()} != {observations}"
        )
    if observations > 0 and bool(w.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _cov(
    self: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
) -> Tensor:
    """The covariance of the variables in `self`'s rows (a 1-d `self` is one variable) over its
    columns, the observations, weighted by frequency `fweights` and importance `aweights`, with
    `correction` degrees of freedom less (a warning and infinities when none are left)."""
    if self.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{self.dim()} dimensions"
        )
    x = self.view(1, -1) if self.dim() < 2 else self
    observations = x.shape[1]
    weights = None
    if fweights is not None:
        _check_observation_weights("fweights", fweights, observations, integral=True)
        weights = fweights
    if aweights is not None:
        _check_observation_weights("aweights", aweights, observations, integral=False)
        weights = aweights if weights is None else weights * aweights
    total: Tensor | int = weights.sum() if weights is not None else observations
    average = (x * weights if weights is not None else x).sum(1) / total
    norm_factor: Tensor | int
    if weights is not None and aweights is not None and correction != 0:
        norm_factor = total - correction * (weights * aweights).sum() / total
    else:
        norm_factor = total - correction
    if bool(norm_factor <= 0):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
            "observations.",
            UserWarning,
            stacklevel=4,
        )
        norm_factor = norm_factor * 0
    centered = x - average.unsqueeze(1)
    weighted = centered * weights if weights is not None else centered
    product = centered.mm(conj(weighted.t()) if weighted.is_complex() else weighted.t())
    result: Tensor = product.div(norm_factor).squeeze()
    return result


def _corrcoef(self: Tensor) -> Tensor:
    """The Pearson correlation coefficients of `self`'s rows: cov scaled by the standard
    deviations on both sides, clipped to [-1, 1] (each part of a complex one; c / c for a single
    variable: 1 or NaN)."""
    c = _cov(self)
    if c.dim() == 0:
        ratio: Tensor = c / c
        return ratio
    diagonal = c.diagonal()
    deviation = (aten_op("real.default")(diagonal) if diagonal.is_complex() else diagonal).sqrt()
    c = c / deviation.view(-1, 1)
    c = c / deviation.view(1, -1)
    if c.is_complex():
        parts = [aten_op(f"{part}.default")(c).clip(-1, 1) for part in ("real", "imag")]
        joined: Tensor = aten_op("view_as_complex.default")(aten_op("stack.default")(parts, -1))
        return joined
    clipped: Tensor = c.clip(-1, 1)
    return clipped


register_variants("cov", {"": _cov})
register_variants("corrcoef", {"": _corrcoef})


__all__ = ["digamma_array", "i0_array", "i1_array", "lgamma_array", "polygamma_array"]
