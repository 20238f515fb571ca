"""Pointwise kernels: one meta function per family (broadcast shape, PyTorch's type promotion,
dtype checks) and one NumPy impl per operator, registered as structured kernels (functional,
in-place and out= variants, CPU and Meta); also the CompositeImplicitAutograd kernels that only
call other pointwise operators (clip, square, float_power, isclose) and allclose/equal, which
return Python bools.  erf, erfc and erfinv compute in float64 (NumPy has no error function)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, complex128, dtype, float64, get_default_dtype, numpy_finfo
from framework.ops._iter import Number, broadcast_shapes, number_dtype, result_type
from framework.ops._python_args import wrapped_number
from framework.ops.kernels._registry import (
    KERNELS,
    TensorMeta,
    array,
    aten_op,
    complex_clamp,
    forward_kernel,
    kernel,
    not_implemented,
    register_variants,
    same_device,
    structured,
)

Operand = Tensor | Number
Array = npt.NDArray[Any]


def _operand(x: Operand, compute: dtype) -> Array | Number:
    """A NumPy operand in the type PyTorch computes `compute` in (float32 for float16 and bfloat16,
    whose results round once, when written out); Python numbers become NumPy scalars of it."""
    np_compute = compute.opmath_numpy
    if isinstance(x, Tensor):
        a = array(x)
        return a if a.dtype == np_compute else a.astype(np_compute)
    scalar: Number = np_compute.type(x)
    return scalar


# ---- binary -----------------------------------------------------------------------------------

BinaryFn = Callable[[Any, Any], Any]
DtypeCheck = Callable[[dtype], None]
"""Raises PyTorch's error for a (computation) dtype an operator refuses."""


def _accept(d: dtype) -> None:
    """Every dtype is served."""


def _refuse(kernel: str, refused: Callable[[dtype], bool]) -> DtypeCheck:
    """PyTorch's `"<kernel>" not implemented for '<Dtype>'` for the dtypes `refused` names."""

    def check(d: dtype) -> None:
        if refused(d):
            raise not_implemented(kernel, d)

    return check


def _refuse_complex(error: type[Exception], message: str) -> DtypeCheck:
    """An operator's own refusal of complex dtypes (a message that names no kernel)."""

    def check(d: dtype) -> None:
        if d.is_complex:
            raise error(message)

    return check


def _apply(out: Array, fn: Callable[..., Any], *operands: Array | Number) -> None:
    """`out[...] = fn(*operands)`: a ufunc writes into `out` directly (no temporary)."""
    if isinstance(fn, np.ufunc):
        fn(*operands, out=out, casting="unsafe")
    else:
        out[...] = fn(*operands)


def _binary_meta(
    op: str, result_of: Callable[[dtype], dtype] = lambda d: d, check: DtypeCheck = _accept
) -> Callable[..., TensorMeta]:
    def meta(self: Tensor, other: Operand, **kwargs: Any) -> TensorMeta:
        impl = self._impl
        if not isinstance(other, Tensor) or other._impl.wrapped_number:
            # A wrapped number is a CPU scalar, which goes with a tensor on any device.
            device, shape = impl.device, impl.sizes
        elif impl.wrapped_number:
            device, shape = other._impl.device, other._impl.sizes
        else:
            device = same_device(op, (self, other))
            shape = broadcast_shapes(impl.sizes, other._impl.sizes)
        common = result_type(self, other)
        check(common)
        return TensorMeta(shape, result_of(common), device)

    return meta


def _binary_impl(
    fn: BinaryFn, compute_of: Callable[[Tensor, Operand], dtype] = result_type
) -> Callable[..., None]:
    def impl(out: Array, self: Tensor, other: Operand) -> None:
        compute = compute_of(self, other)
        _apply(out, fn, _operand(self, compute), _operand(other, compute))

    return impl


def _check_alpha(common: dtype, alpha: Number) -> None:
    """Refuse an `alpha` of a kind the result dtype `common` cannot take."""
    if isinstance(alpha, bool) and common is not bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (common.is_floating_point or common.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _check_sub_bool(self: Tensor, other: Operand) -> None:
    """PyTorch refuses subtracting bools, a Python bool `other` included."""
    bools = (
        self._impl.dtype is bool_,
        (other._impl.dtype if isinstance(other, Tensor) else number_dtype(other)) is bool_,
    )
    if all(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if any(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _add_like(op: str, sign: int) -> None:
    base_meta = _binary_meta(op)

    def meta(self: Tensor, other: Operand, alpha: Number = 1) -> TensorMeta:
        m = base_meta(self, other)
        if type(alpha) is not int or alpha != 1:
            _check_alpha(m.dtype, alpha)
        if sign < 0:
            _check_sub_bool(self, other)
        return m

    def impl(out: Array, self: Tensor, other: Operand, alpha: Number = 1) -> None:
        compute = result_type(self, other)
        a = _operand(self, compute)
        b = _operand(other, compute)
        if alpha != 1:
            b = np.multiply(b, compute.opmath_numpy.type(alpha))
        if sign > 0:
            np.add(a, b, out=out, casting="unsafe")
        else:
            np.subtract(a, b, out=out, casting="unsafe")

    structured(op, meta, impl)


_add_like("add", 1)
_add_like("sub", -1)


@kernel("rsub")
def rsub(self: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor:
    """`other - alpha * self`: PyTorch's rsub is sub with its operands swapped."""
    result: Tensor = KERNELS["sub"](other, self, alpha)
    return result


@kernel("rsub_scalar")
def rsub_scalar(self: Tensor, other: Number, alpha: Number = 1) -> Tensor:
    """rsub.Scalar (CompositeExplicitAutograd): sub.Tensor of the wrapped number and `self`."""
    result: Tensor = aten_op("sub.Tensor")(wrapped_number(other, self._impl.device), self, alpha=alpha)
    return result


def _is_floating(d: dtype) -> bool:
    return d.is_floating_point or d.is_complex


def _to_float(d: dtype) -> dtype:
    return d if _is_floating(d) else get_default_dtype()


def _true_div_compute(self: Tensor, other: Operand) -> dtype:
    return _to_float(result_type(self, other))


def _bool_or_complex(d: dtype) -> bool:
    return d is bool_ or d.is_complex


_DIV_META: Final = _binary_meta("div", result_of=_to_float)
_ROUNDING_DIV_META: Final = {
    mode: _binary_meta("div", check=_refuse(f"div_{mode}_cpu", _bool_or_complex))
    for mode in ("trunc", "floor")
}


def _div_meta(self: Tensor, other: Operand, *, rounding_mode: str | None = None) -> TensorMeta:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    if rounding_mode is None:
        return _DIV_META(self, other)
    return _ROUNDING_DIV_META[rounding_mode](self, other)


def _div_impl(out: Array, self: Tensor, other: Operand, *, rounding_mode: str | None = None) -> None:
    if rounding_mode is None:
        compute = _true_div_compute(self, other)
        np.true_divide(_operand(self, compute), _operand(other, compute), out=out, casting="unsafe")
        return
    compute = result_type(self, other)
    a, b = _operand(self, compute), _operand(other, compute)
    if _is_floating(compute):
        q = np.true_divide(a, b)
        out[...] = np.trunc(q) if rounding_mode == "trunc" else np.floor(q)
        return
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    if rounding_mode == "floor":
        np.floor_divide(a, b, out=out, casting="unsafe")
    else:
        q = np.floor_divide(a, b)
        adjust = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        out[...] = q + adjust


structured("div", _div_meta, _div_impl)

structured(
    "mul",
    _binary_meta("mul"),
    _binary_impl(np.multiply),
)


def _is_complex(d: dtype) -> bool:
    return d.is_complex


_BINARY: Final[dict[str, tuple[BinaryFn, DtypeCheck]]] = {
    "maximum": (np.maximum, _refuse_complex(RuntimeError, "maximum not implemented for complex tensors.")),
    "minimum": (np.minimum, _refuse_complex(RuntimeError, "minimum not implemented for complex tensors.")),
    "fmod": (np.fmod, _refuse("fmod_cpu", _bool_or_complex)),
    "remainder": (np.remainder, _refuse("remainder_cpu", _bool_or_complex)),
    "atan2": (np.arctan2, _refuse("atan2_cpu", _is_complex)),
    "bitwise_and": (np.bitwise_and, _refuse("bitwise_and_cpu", _is_floating)),
    "bitwise_or": (np.bitwise_or, _refuse("bitwise_or_cpu", _is_floating)),
    "bitwise_xor": (np.bitwise_xor, _refuse("bitwise_xor_cpu", _is_floating)),
}

for _name, (_fn, _check) in _BINARY.items():
    if _name == "atan2":
        structured(_name, _binary_meta(_name, _to_float, _check), _binary_impl(_fn, _true_div_compute))
    else:
        structured(_name, _binary_meta(_name, check=_check), _binary_impl(_fn))


def _to_bool(d: dtype) -> dtype:
    return bool_


_COMPARISONS: Final[dict[str, BinaryFn]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}

for _name, _fn in _COMPARISONS.items():
    _order = _name in ("lt", "le", "gt", "ge")
    _check = _refuse(f"{_name}_cpu", _is_complex) if _order else _accept
    structured(_name, _binary_meta(_name, _to_bool, _check), _binary_impl(_fn))


def _pow_meta(self: Tensor, exponent: Operand) -> TensorMeta:
    m = _binary_meta("pow")(self, exponent)
    if m.dtype is bool_ and isinstance(exponent, Tensor):  # a Scalar exponent of a bool is 0 or 1
        raise not_implemented("pow", bool_)
    if not _is_floating(m.dtype) and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return m


def _pow_impl(out: Array, self: Tensor, exponent: Operand) -> None:
    compute = result_type(self, exponent)
    a, b = _operand(self, compute), _operand(exponent, compute)
    if not _is_floating(compute) and np.any(np.asarray(b) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    np.power(a, b, out=out, casting="unsafe")


structured("pow", _pow_meta, _pow_impl)


def _pow_scalar_meta(self: Number, exponent: Tensor) -> TensorMeta:
    return _pow_meta(wrapped_number(self, exponent._impl.device), exponent)


def _pow_scalar_impl(out: Array, self: Number, exponent: Tensor) -> None:
    _pow_impl(out, wrapped_number(self, exponent._impl.device), exponent)


structured("pow_scalar", _pow_scalar_meta, _pow_scalar_impl, inplace=False)



# ---- unary ------------------------------------------------------------------------------------

UnaryFn = Callable[[Any], Any]


def _unary(
    op: str,
    fn: UnaryFn,
    *,
    to_float: bool = False,
    result: Callable[[dtype], dtype] | None = None,
    check: DtypeCheck = _accept,
    inplace_check: DtypeCheck | None = None,
) -> None:
    def meta(self: Tensor) -> TensorMeta:
        d = self._impl.dtype
        check(d)
        out_dtype = result(d) if result is not None else (_to_float(d) if to_float else d)
        return TensorMeta(self._impl.sizes, out_dtype, self._impl.device)

    def inplace_meta(self: Tensor) -> TensorMeta:
        assert inplace_check is not None
        inplace_check(self._impl.dtype)
        return meta(self)

    def impl(out: Array, self: Tensor) -> None:
        _apply(out, fn, _operand(self, _to_float(self._impl.dtype) if to_float else self._impl.dtype))

    structured(op, meta, impl, None if inplace_check is None else inplace_meta)


def _is_bool(d: dtype) -> bool:
    return d is bool_


def _rounding_check(op: str) -> DtypeCheck:
    """floor, ceil, trunc: no complex inputs, and no bool kernel."""
    refuse_bool = _refuse(f"{op}_vml_cpu", _is_bool)

    def check(d: dtype) -> None:
        if d.is_complex:
            raise NotImplementedError(f"{op} is not supported for complex inputs")
        refuse_bool(d)

    return check


def _relu_check(d: dtype) -> None:
    if d is bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if d.is_complex:
        raise complex_clamp()


def _sign(a: Array) -> Array:
    result: Array = a.copy() if a.dtype == np.bool_ else np.sign(a)
    return result


def _sigmoid(a: Array) -> Array:
    one = a.dtype.type(1)
    result: Array = one / (one + np.exp(-a))
    return result


def _rsqrt(a: Array) -> Array:
    result: Array = a.dtype.type(1) / np.sqrt(a)
    return result


_FLOAT_UNARY: Final[dict[str, UnaryFn]] = {
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sqrt": np.sqrt,
    "rsqrt": _rsqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "reciprocal": np.reciprocal,
}
for _name, _unary_fn in _FLOAT_UNARY.items():
    _unary(_name, _unary_fn, to_float=True)

_unary(
    "abs",
    np.abs,
    result=lambda d: d.to_real(),
    check=_refuse("abs_cpu", _is_bool),
    inplace_check=_refuse_complex(RuntimeError, "In-place abs is not supported for complex tensors."),
)
_unary(
    "sign",
    _sign,
    check=_refuse_complex(
        NotImplementedError,
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
    ),
)
for _name, _unary_fn in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)):
    _unary(_name, _unary_fn, check=_rounding_check(_name))
_unary("round", np.round, check=_refuse("round_vml_cpu", _bool_or_complex))
_unary(
    "bitwise_not",
    lambda a: np.logical_not(a) if a.dtype == np.bool_ else np.invert(a),
    check=_refuse("bitwise_not_cpu", _is_floating),
)
_unary("logical_not", np.logical_not, result=_to_bool)
_unary("isnan", np.isnan, result=_to_bool)
_unary("isinf", np.isinf, result=_to_bool)
_unary("isfinite", np.isfinite, result=_to_bool)
_unary("relu", lambda a: np.maximum(a, a.dtype.type(0)), check=_relu_check)


def _neg_meta(self: Tensor) -> TensorMeta:
    if self._impl.dtype is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return TensorMeta(self._impl.sizes, self._impl.dtype, self._impl.device)


def _neg_impl(out: Array, self: Tensor) -> None:
    np.negative(array(self), out=out)


structured("neg", _neg_meta, _neg_impl)


# ---- clamp, lerp, addcmul, addcdiv, floor_divide ------------------------------------------------


def _nary_meta(op: str, *operands: Operand | None) -> TensorMeta:
    """Broadcast shape and promoted dtype of the given operands (None entries ignored)."""
    present = [x for x in operands if x is not None]
    tensors = tuple(x for x in present if isinstance(x, Tensor))
    device = same_device(op, tensors)
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_shapes(shape, t._impl.sizes)
    return TensorMeta(shape, result_type(*present), device)


def _clamp_meta(self: Tensor, min: Operand | None = None, max: Operand | None = None) -> TensorMeta:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    m = _nary_meta("clamp", self, min, max)
    if m.dtype.is_complex:
        raise complex_clamp()
    return m


def _clamp_impl(out: Array, self: Tensor, min: Operand | None = None, max: Operand | None = None) -> None:
    compute = _nary_meta("clamp", self, min, max).dtype
    result = _operand(self, compute)
    if min is not None:
        result = np.maximum(result, _operand(min, compute))
    if max is not None:
        result = np.minimum(result, _operand(max, compute))
    out[...] = result


structured("clamp", _clamp_meta, _clamp_impl)
structured(
    "clamp_min",
    lambda self, min: _clamp_meta(self, min, None),
    lambda out, self, min: _clamp_impl(out, self, min, None),
)
structured(
    "clamp_max",
    lambda self, max: _clamp_meta(self, None, max),
    lambda out, self, max: _clamp_impl(out, self, None, max),
)


def _lerp_meta(self: Tensor, end: Tensor, weight: Operand) -> TensorMeta:
    m = _nary_meta("lerp", self, end, weight if isinstance(weight, Tensor) else None)
    if self._impl.dtype is not end._impl.dtype:
        raise RuntimeError(
            f"expected dtype {self._impl.dtype.scalar_type_name} for `end` but got dtype "
            f"{end._impl.dtype.scalar_type_name}"
        )
    if not _is_floating(m.dtype):
        raise not_implemented(f"lerp_kernel_{'tensor' if isinstance(weight, Tensor) else 'scalar'}", m.dtype)
    return TensorMeta(m.sizes, self._impl.dtype, m.device)


def _lerp_impl(out: Array, self: Tensor, end: Tensor, weight: Operand) -> None:
    compute = self._impl.dtype
    a, b = _operand(self, compute), _operand(end, compute)
    w = _operand(weight, compute)
    # PyTorch's formula: exact at both ends and monotone.
    out[...] = np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (compute.numpy_dtype.type(1) - w))


structured("lerp", _lerp_meta, _lerp_impl)


def _addc_meta(op: str) -> Callable[..., TensorMeta]:
    def meta(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> TensorMeta:
        m = _nary_meta(op, self, tensor1, tensor2)
        if op == "addcmul" and m.dtype is bool_:
            raise not_implemented("addcmul_cpu_out", bool_)
        if op == "addcdiv" and not _is_floating(result_type(tensor1, tensor2)):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                "for all dtypes."
            )
        return m

    return meta


def _addcmul_impl(out: Array, self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> None:
    compute = _nary_meta("addcmul", self, tensor1, tensor2).dtype
    v = compute.numpy_dtype.type(value)
    out[...] = _operand(self, compute) + v * _operand(tensor1, compute) * _operand(tensor2, compute)


def _addcdiv_impl(out: Array, self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> None:
    compute = _nary_meta("addcdiv", self, tensor1, tensor2).dtype
    v = compute.numpy_dtype.type(value)
    out[...] = _operand(self, compute) + v * _operand(tensor1, compute) / _operand(tensor2, compute)


structured("addcmul", _addc_meta("addcmul"), _addcmul_impl)
structured("addcdiv", _addc_meta("addcdiv"), _addcdiv_impl)


def _floor_divide_impl(out: Array, self: Tensor, other: Operand) -> None:
    _div_impl(out, self, other, rounding_mode="floor")


structured(
    "floor_divide",
    _binary_meta("floor_divide", check=_refuse("div_floor_cpu", _bool_or_complex)),
    _floor_divide_impl,
)


# ---- max/min of two tensors -------------------------------------------------------------------


def _elementwise_extreme(name: str, target: str) -> None:
    """`max.other`/`max.out` (and min's): CompositeImplicitAutograd kernels calling `target`
    (maximum, minimum) through the dispatcher, as PyTorch's do, so their gradients are
    MaximumBackward0/MinimumBackward0."""
    functional_name, out_name = f"{target}.default", f"{target}.out"

    def functional(self: Tensor, other: Tensor) -> Tensor:
        result: Tensor = aten_op(functional_name)(self, other)
        return result

    def out_variant(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
        result: Tensor = aten_op(out_name)(self, other, out=out)
        return result

    register_variants(f"{name}_other", {"": functional, "_out": out_variant})


_elementwise_extreme("max", "maximum")
_elementwise_extreme("min", "minimum")


# ---- more pointwise: erf family, exp2, frac, sgn, signbit, logit, nan_to_num, deg2rad/rad2deg, ---
# ---- copysign, hypot, xlogy, heaviside, logaddexp/logaddexp2, pow.Scalar, clip, square, float_power


_SQRT_PI: Final = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI: Final = 2.0 / _SQRT_PI


def _erf_series(s: Array) -> Array:
    """erf(s) for float64 0 <= s < 2.5: 2/sqrt(pi) * exp(-s^2) * sum_n (2s^2)^n s / (1*3*...*(2n+1)),
    a series of positive terms."""
    two_s2 = 2.0 * s * s
    term = s.copy()
    total = s.copy()
    for n in range(1, 42):
        term *= two_s2 / (2 * n + 1)
        total += term
        if n % 8 == 0 and not (term > 1e-17 * total).any():
            break
    result: Array = total * np.exp(-s * s) * _TWO_OVER_SQRT_PI
    return result


def erfc_continued_fraction(b: Array) -> Array:
    """b + (1/2) / (b + 1 / (b + (3/2) / (b + ...))) for float64 b >= 1 (or NaN), converged to
    an ulp or two there in 150 terms: erfc(b) = exp(-b^2) / (sqrt(pi) times it)."""
    fraction = b.copy()
    for k in range(150, 0, -1):
        fraction = b + (0.5 * k) / fraction
    return fraction


def _erfc_fraction(b: Array) -> Array:
    """erfc(b) for float64 b >= 1 (or NaN), from its continued fraction; 0 where it underflows,
    infinities included.  exp(-b^2) is taken as exp(-h^2) exp(-(b - h)(b + h)) with h = b rounded
    to 1/16, whose square is exact."""
    fraction = erfc_continued_fraction(b)
    head = np.round(b * 16.0) / 16.0
    with np.errstate(invalid="ignore"):
        gaussian = np.exp(-head * head) * np.exp(-(b - head) * (b + head))
    result: Array = np.where(b == np.inf, 0.0, gaussian / (_SQRT_PI * fraction))
    return result


def erf_array(x: Array) -> Array:
    """The error function of float64 `x`, to a few ulp (the series below |x| = 2.5, one minus the
    continued fraction of erfc above; erf is +-1 in float64 beyond 6)."""
    a = np.abs(x)
    out = np.empty_like(a)
    small = a < 2.5
    out[small] = _erf_series(a[small])
    big = ~small
    out[big] = 1.0 - _erfc_fraction(np.minimum(a[big], 6.0))
    result: Array = np.copysign(out, x)
    return result


def erfc_array(x: Array) -> Array:
    """The complementary error function 1 - erf(x) of float64 `x`, to a few ulp also where it is
    tiny (the continued fraction from |x| = 1 on)."""
    a = np.abs(x)
    tail = np.empty_like(a)
    small = a < 1.0
    tail[small] = 1.0 - _erf_series(a[small])
    big = ~small
    tail[big] = _erfc_fraction(a[big])
    result: Array = np.where(x < 0, 2.0 - tail, tail)
    return result


def erfinv_array(y: Array) -> Array:
    """The inverse error function of float64 `y`: Winitzki's closed-form estimate (relative error
    below 2e-3) refined by three Halley steps on erf(x) = |y| (on erfc(x) = 1 - |y| beyond 0.5,
    where 1 - |y| is exact); +-inf at +-1, NaN outside [-1, 1]."""
    a = np.abs(y)
    inside = a < 1
    v = a[inside]
    log_term = np.log1p(-v * v)
    w = 0.147
    c = 2.0 / (math.pi * w) + 0.5 * log_term
    x = np.sqrt(np.sqrt(c * c - log_term / w) - c)
    tail = v > 0.5
    for _ in range(3):
        residual = np.where(tail, (1.0 - v) - erfc_array(x), erf_array(x) - v)
        slope = _TWO_OVER_SQRT_PI * np.exp(-x * x)
        x = x - residual / (slope + x * residual)
    out = np.where(a == 1, np.inf, np.nan)
    out[inside] = x
    result: Array = np.copysign(out, y)
    return result


def _float64_of(fn: Callable[[Array], Array]) -> UnaryFn:
    """`fn` (a float64 function) applied to an array of any floating dtype."""
    return lambda a: fn(a.astype(np.float64))


def _refuse_non_floating(kernel: str) -> DtypeCheck:
    return _refuse(kernel, lambda d: not d.is_floating_point)


for _name, _array_fn in (("erf", erf_array), ("erfc", erfc_array), ("erfinv", erfinv_array)):
    _unary(_name, _float64_of(_array_fn), to_float=True, check=_refuse(f"{_name}_vml_cpu", _is_complex))
_unary("exp2", np.exp2, to_float=True)
_unary("frac", lambda a: a - np.trunc(a), check=_refuse_non_floating("frac_cpu"))


def _sgn(a: Array) -> Array:
    """z / |z| (0 at 0) for complex values, the sign otherwise."""
    if a.dtype.kind != "c":
        return _sign(a)
    magnitude = np.abs(a)
    result: Array = np.where(magnitude == 0, 0, a / np.where(magnitude == 0, 1, magnitude))
    return result


def _signbit(a: Array) -> Array:
    result: Array = np.signbit(a) if a.dtype.kind == "f" else np.less(a, 0)
    return result


_unary("sgn", _sgn)
_SIGNBIT_CHECK: Final = _refuse_complex(
    NotImplementedError, "signbit is not implemented for complex tensors."
)
_unary("signbit", _signbit, result=_to_bool, check=_SIGNBIT_CHECK)
_SIGNBIT_OUT: Final = KERNELS["signbit_out"]


def _signbit_out(self: Tensor, *, out: Tensor) -> Tensor:
    """signbit's out= kernel: PyTorch takes only a bool `out`."""
    _SIGNBIT_CHECK(self._impl.dtype)
    if out._impl.dtype is not bool_:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    result: Tensor = _SIGNBIT_OUT(self, out=out)
    return result


register_variants("signbit_bool", {"_out": _signbit_out})
for _name, _factor in (("deg2rad", math.pi / 180.0), ("rad2deg", 180.0 / math.pi)):
    _unary(
        _name,
        functools.partial(np.multiply, _factor),
        to_float=True,
        check=_refuse_complex(RuntimeError, f"{_name} is not supported for complex tensors."),
    )


def _logit_meta(self: Tensor, eps: float | None = None) -> TensorMeta:
    d = self._impl.dtype
    if d.is_complex:
        raise not_implemented("logit_cpu", d)
    return TensorMeta(self._impl.sizes, _to_float(d), self._impl.device)


def _logit_impl(out: Array, self: Tensor, eps: float | None = None) -> None:
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when `eps` is given."""
    x = _operand(self, _to_float(self._impl.dtype))
    if eps is not None:
        x = np.clip(x, eps, 1.0 - eps)
    out[...] = np.log(x / (1 - x))


structured("logit", _logit_meta, _logit_impl)


def _nan_to_num_meta(
    self: Tensor, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> TensorMeta:
    return TensorMeta(self._impl.sizes, self._impl.dtype, self._impl.device)


def _replace_non_finite(a: Array, nan: float | None, posinf: float | None, neginf: float | None) -> Array:
    """A real floating array with NaN, +inf and -inf replaced (by 0 and the dtype's largest and
    lowest finite values unless given)."""
    info = numpy_finfo(a.dtype)
    high = info.max if posinf is None else posinf
    low = info.min if neginf is None else neginf
    result: Array = np.where(np.isnan(a), 0.0 if nan is None else nan, np.where(a == np.inf, high, a))
    return np.where(result == -np.inf, low, result).astype(a.dtype)


def _nan_to_num_impl(
    out: Array,
    self: Tensor,
    nan: float | None = None,
    posinf: float | None = None,
    neginf: float | None = None,
) -> None:
    """NaN, +inf and -inf replaced in floating tensors (in both parts of complex ones); other
    dtypes are copied."""
    a = array(self)
    if a.dtype.kind == "c":
        out.real = _replace_non_finite(a.real, nan, posinf, neginf)
        out.imag = _replace_non_finite(a.imag, nan, posinf, neginf)
    elif a.dtype.kind == "f":
        out[...] = _replace_non_finite(a, nan, posinf, neginf)
    else:
        out[...] = a


structured("nan_to_num", _nan_to_num_meta, _nan_to_num_impl)


structured(
    "copysign",
    _binary_meta("copysign", _to_float, _refuse("copysign_cpu", _is_complex)),
    _binary_impl(np.copysign, _true_div_compute),
)
structured("hypot", _binary_meta("hypot", check=_refuse_non_floating("hypot_cpu")), _binary_impl(np.hypot))


def _xlogy(x: Array | Number, y: Array | Number) -> Array:
    """x * log(y), 0 where x is 0 and y is not NaN."""
    result: Array = np.where(np.isnan(y), np.nan, np.where(x == 0, 0, np.multiply(x, np.log(y))))
    return result


structured(
    "xlogy",
    _binary_meta("xlogy", _to_float, _refuse("xlogy_cpu", _is_complex)),
    _binary_impl(_xlogy, _true_div_compute),
)


def _heaviside_meta(self: Tensor, values: Tensor) -> TensorMeta:
    m = _binary_meta("heaviside")(self, values)
    if m.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self._impl.dtype is not values._impl.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return m


def _heaviside(x: Array, values: Array) -> Array:
    """0 below zero, `values` at zero, 1 above."""
    result: Array = np.where(x == 0, values, x > 0)
    return result


structured("heaviside", _heaviside_meta, _binary_impl(_heaviside))


def _logaddexp(a: Array | Number, b: Array | Number) -> Array:
    """log(exp(a) + exp(b)); complex values by the larger real part m: m + log1p(exp(other - m))."""
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype.kind != "c":
        real: Array = np.logaddexp(x, y)
        return real
    first = x.real >= y.real
    larger, other = np.where(first, x, y), np.where(first, y, x)
    result: Array = np.where(
        np.isinf(larger.real) & (larger == other), larger, larger + np.log1p(np.exp(other - larger))
    )
    return result


structured(
    "logaddexp",
    _binary_meta("logaddexp", check=_refuse("logaddexp_cpu", lambda d: not _is_floating(d))),
    _binary_impl(_logaddexp),
)
structured(
    "logaddexp2",
    _binary_meta("logaddexp2", check=_refuse_non_floating("logaddexp2_cpu")),
    _binary_impl(np.logaddexp2),
)


def _with_wrapped_self(op: str) -> Callable[..., Tensor]:
    """The kernel of a `(Scalar self, Tensor other)` overload: the `.Tensor`-like overload `op`
    with `self` as a wrapped number (PyTorch's CompositeExplicitAutograd kernels)."""

    def kernel_fn(self: Number, other: Tensor, **kwargs: Any) -> Tensor:
        result: Tensor = aten_op(op)(wrapped_number(self, other._impl.device), other, **kwargs)
        return result

    return kernel_fn


register_variants(
    "xlogy_scalar_self",
    {"": _with_wrapped_self("xlogy.Tensor"), "_out": _with_wrapped_self("xlogy.OutTensor")},
)
register_variants(
    "remainder_scalar_tensor",
    {"": _with_wrapped_self("remainder.Tensor"), "_out": _with_wrapped_self("remainder.Tensor_out")},
)


forward_kernel("clip", "clamp.default")
forward_kernel("clip_tensor", "clamp.Tensor")
forward_kernel("clip_out", "clamp.out")
forward_kernel("clip_tensor_out", "clamp.Tensor_out")
forward_kernel("clip_", "clamp_.default")
forward_kernel("clip__tensor", "clamp_.Tensor")


def _square(self: Tensor) -> Tensor:
    result: Tensor = aten_op("pow.Tensor_Scalar")(self, 2)
    return result


def _square_(self: Tensor) -> Tensor:
    result: Tensor = aten_op("pow_.Scalar")(self, 2)
    return result


def _square_out(self: Tensor, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("pow.Tensor_Scalar_out")(self, 2, out=out)
    return result


register_variants("square", {"": _square, "_": _square_, "_out": _square_out})


def _float_power_dtype(*operands: Operand) -> dtype:
    """float_power computes in complex128 when an operand is complex, else in float64."""
    complex_ = any(
        x._impl.dtype.is_complex if isinstance(x, Tensor) else isinstance(x, complex) for x in operands
    )
    return complex128 if complex_ else float64


def _float_power_operand(x: Operand, d: dtype) -> Operand:
    """A base or exponent converted to float_power's dtype `d` (a tensor by `to`)."""
    if isinstance(x, Tensor):
        converted: Tensor = aten_op("to.dtype")(x, d)
        return converted
    if isinstance(x, complex) or d is complex128:
        return complex(x)
    return float(x)


def _float_power_pow(self: Operand, exponent: Operand, out: Tensor | None = None) -> Tensor:
    d = _float_power_dtype(self, exponent)
    if out is not None and out._impl.dtype is not d:
        raise RuntimeError(
            f"the output given to float_power has dtype {out._impl.dtype.scalar_type_name} but the "
            f"operation's result requires dtype {d.scalar_type_name}"
        )
    base, power = _float_power_operand(self, d), _float_power_operand(exponent, d)
    if not isinstance(base, Tensor):
        target = "pow.Scalar"
    else:
        target = "pow.Tensor_Tensor" if isinstance(power, Tensor) else "pow.Tensor_Scalar"
    if out is None:
        result: Tensor = aten_op(target)(base, power)
        return result
    written: Tensor = aten_op(f"{target}_out")(base, power, out=out)
    return written


def _float_power(self: Operand, exponent: Operand) -> Tensor:
    return _float_power_pow(self, exponent)


def _float_power_out(self: Operand, exponent: Operand, *, out: Tensor) -> Tensor:
    return _float_power_pow(self, exponent, out)


def _float_power_(self: Tensor, exponent: Operand) -> Tensor:
    d = _float_power_dtype(self, exponent)
    if self._impl.dtype is not d:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self._impl.dtype.scalar_type_name} but the "
            f"operation's result requires dtype {d.scalar_type_name}"
        )
    power = _float_power_operand(exponent, d)
    result: Tensor = aten_op("pow_.Tensor" if isinstance(power, Tensor) else "pow_.Scalar")(self, power)
    return result


register_variants("float_power", {"": _float_power, "_": _float_power_, "_out": _float_power_out})


# ---- isclose, allclose, equal -------------------------------------------------------------------


def _isclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """|self - other| <= atol + rtol * |other| where finite, else equality (NaNs equal with
    `equal_nan`), as PyTorch's CompositeImplicitAutograd isclose computes it."""
    d = self._impl.dtype
    if d is not other._impl.dtype:
        raise RuntimeError(f"{d.scalar_type_name} did not match {other._impl.dtype.scalar_type_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close: Tensor = aten_op("eq.Tensor")(self, other)
    if equal_nan and _is_floating(d):
        both_nan = aten_op("bitwise_and.Tensor")(
            aten_op("isnan.default")(self), aten_op("isnan.default")(other)
        )
        close = aten_op("bitwise_or.Tensor")(close, both_nan)
    if rtol == 0 and atol == 0:
        return close
    if d is bool_:
        self, other = (
            aten_op("to.dtype")(self, get_default_dtype()),
            aten_op("to.dtype")(other, get_default_dtype()),
        )
    allowed = aten_op("add.Scalar")(aten_op("abs.default")(aten_op("mul.Scalar")(other, rtol)), atol)
    actual = aten_op("abs.default")(aten_op("sub.Tensor")(self, other))
    within = aten_op("bitwise_and.Tensor")(
        aten_op("isfinite.default")(actual), aten_op("le.Tensor")(actual, allowed)
    )
    result: Tensor = aten_op("bitwise_or.Tensor")(close, within)
    return result


def _allclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element of `self` is close to the one of `other` (isclose)."""
    close = aten_op("isclose.default")(self, other, rtol, atol, equal_nan)
    return bool(array(aten_op("all.default")(close)))


def _equal(self: Tensor, other: Tensor) -> bool:
    """Same sizes and equal elements (compared in the promoted dtype; NaN equals nothing)."""
    same_device("equal", (self, other))
    if self._impl.sizes != other._impl.sizes:
        return False
    compute = result_type(self, other)
    return bool(np.array_equal(_operand(self, compute), _operand(other, compute)))


register_variants("isclose", {"": _isclose})
register_variants("allclose", {"": _allclose})
register_variants("equal", {"": _equal})
