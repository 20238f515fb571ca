"""Pointwise kernels: one meta function per family (broadcast shape, PyTorch's type promotion,
dtype checks) and one NumPy impl per operator, registered as structured kernels (functional,
in-place and out= variants, CPU and Meta)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, dtype, get_default_dtype
from framework.ops._iter import Number, broadcast_shapes, number_dtype, result_type
from framework.ops._python_args import wrapped_number
from framework.ops.kernels._registry import (
    KERNELS,
    TensorMeta,
    array,
    aten_op,
    kernel,
    not_implemented,
    register_variants,
    same_device,
    structured,
)

Operand = Tensor | Number
Array = npt.NDArray[Any]


def _operand(x: Operand, compute: dtype) -> Array | Number:
    """A NumPy operand in the compute dtype (Python numbers become NumPy scalars of it)."""
    if isinstance(x, Tensor):
        a = array(x)
        return a if a.dtype == compute.numpy_dtype else a.astype(compute.numpy_dtype)
    scalar: Number = compute.numpy_dtype.type(x)
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
            b = np.multiply(b, compute.numpy_dtype.type(alpha))
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


@kernel("remainder_scalar_tensor")
def remainder_scalar_tensor(self: Number, other: Tensor) -> Tensor:
    """remainder.Scalar_Tensor (CompositeExplicitAutograd): remainder.Tensor of the wrapped number."""
    result: Tensor = aten_op("remainder.Tensor")(wrapped_number(self, other._impl.device), other)
    return result


@kernel("remainder_scalar_tensor_out")
def remainder_scalar_tensor_out(self: Number, other: Tensor, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("remainder.Tensor_out")(wrapped_number(self, other._impl.device), other, out=out)
    return result


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
        a = array(self)
        compute = _to_float(self._impl.dtype) if to_float else self._impl.dtype
        _apply(out, fn, a if a.dtype == compute.numpy_dtype else a.astype(compute.numpy_dtype))

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
        raise NotImplementedError("clamp is not supported for complex types")


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
        raise NotImplementedError("clamp is not supported for complex types")
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
