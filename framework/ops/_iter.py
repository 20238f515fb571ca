"""What PyTorch's TensorIterator decides before a pointwise kernel runs: the broadcast shape and
the result dtype, and whether an output given by the caller can hold it.

Type promotion follows PyTorch's categories: tensors with dimensions outrank zero-dim tensors,
which outrank Python numbers; within a category dtypes promote by `promote_types`, and a lower
category only matters when it is a higher kind (bool < integer < floating < complex).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from framework._tensor import Tensor
from framework.c10.dtypes import (
    DTYPES,
    bool_,
    can_cast,
    default_complex_dtype,
    dtype,
    get_default_dtype,
    int64,
    promote_types,
)
from framework.types import Number as Number

Operand = Tensor | Number


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of two shapes, with PyTorch's error when they do not broadcast."""
    if tuple(a) == tuple(b) or not b:
        return tuple(a)
    if not a:
        return tuple(b)
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):  # from the last dimension, as PyTorch's infer_size
        da = a[i - ndim + len(a)] if i - ndim + len(a) >= 0 else 1
        db = b[i - ndim + len(b)] if i - ndim + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
        out[i] = db if da == 1 else da
    return tuple(out)


def broadcast_all(shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    result: tuple[int, ...] = ()
    for s in shapes:
        result = broadcast_shapes(result, s)
    return result


def number_dtype(value: Number) -> dtype:
    """The dtype a Python number takes in type promotion."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return get_default_dtype()
    return default_complex_dtype()


def _wrapped_dtype(d: dtype) -> dtype:
    """The dtype a wrapped number (a zero-dim tensor made from a Python number) promotes as."""
    if d.is_complex:
        return default_complex_dtype()
    return get_default_dtype() if d.is_floating_point else d


_KINDS: Final[dict[dtype, int]] = {
    d: 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is bool_ else 1 for d in DTYPES.values()
}
"""The kind of each dtype: 0 bool, 1 integer, 2 floating point, 3 complex."""

_NUMBER_KINDS: Final[dict[type, int]] = {bool: 0, int: 1, float: 2, complex: 3}
"""The kind of each Python number type (their subclasses take the general path)."""


def _promote(a: dtype | None, b: dtype) -> dtype:
    return b if a is None else promote_types(a, b)


def _combine_dtypes(higher: dtype, lower: dtype) -> dtype:
    """PyTorch's combine_categories: the lower category counts only if it is of a higher kind,
    and then its dtype wins, except that a complex one makes a floating `higher` complex."""
    higher_kind, lower_kind = _KINDS[higher], _KINDS[lower]
    if higher_kind >= lower_kind:
        return higher
    return higher.to_complex() if higher_kind == 2 else lower


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """`_combine_dtypes` of two categories' results, either of which may be missing (None)."""
    if higher is None:
        return lower
    return higher if lower is None else _combine_dtypes(higher, lower)


def _with_wrapped(d: dtype, wrapped: dtype) -> dtype:
    """The result type of one tensor of dtype `d` with one wrapped number of dtype `wrapped`."""
    return d if _KINDS[wrapped] <= _KINDS[d] else _combine_dtypes(d, _wrapped_dtype(wrapped))


def _with_number(d: dtype, value: Number) -> dtype:
    """The result type of one tensor of dtype `d` with a Python number of an exact number type."""
    return d if _NUMBER_KINDS[type(value)] <= _KINDS[d] else _combine_dtypes(d, number_dtype(value))


def result_type(*operands: Operand) -> dtype:
    """The dtype PyTorch computes for a pointwise operation on `operands`."""
    if len(operands) == 2:
        # The common pairs first: two tensors of one dtype, one tensor with one number.
        a, b = operands
        if isinstance(a, Tensor):
            ia = a._impl
            if isinstance(b, Tensor):
                ib = b._impl
                if ia.wrapped_number:
                    if not ib.wrapped_number:
                        return _with_wrapped(ib.dtype, ia.dtype)
                elif ib.wrapped_number:
                    return _with_wrapped(ia.dtype, ib.dtype)
                elif ia.dtype is ib.dtype:
                    return ia.dtype
            elif not ia.wrapped_number and type(b) in _NUMBER_KINDS:
                return _with_number(ia.dtype, b)
        elif isinstance(b, Tensor) and not b._impl.wrapped_number and type(a) in _NUMBER_KINDS:
            return _with_number(b._impl.dtype, a)
    dim_result: dtype | None = None
    zero_result: dtype | None = None
    wrapped_result: dtype | None = None
    for op in operands:
        if isinstance(op, Tensor) and not op._impl.wrapped_number:
            impl = op._impl
            if impl.sizes:
                dim_result = _promote(dim_result, impl.dtype)
            else:
                zero_result = _promote(zero_result, impl.dtype)
        else:
            d = _wrapped_dtype(op._impl.dtype) if isinstance(op, Tensor) else number_dtype(op)
            # A Python number only contributes its kind, at the default dtype of that kind.
            wrapped_result = _promote(wrapped_result, d)
    result = _combine(dim_result, _combine(zero_result, wrapped_result))
    assert result is not None, "result_type needs at least one operand"
    return result


def check_can_cast(result: dtype, out: dtype) -> None:
    """Refuse writing a `result` dtype into an output of dtype `out` (in-place and out=)."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"result type {result.scalar_type_name} can't be cast to the desired output type "
            f"{out.scalar_type_name}"
        )
