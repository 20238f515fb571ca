"""Complex numbers: angle, polar, complex, conj_physical, and the conjugate and negative views.

`_conj` and `_neg_view` are views whose key set has the Conjugate (Negative) key toggled: the
elements stay where they are and every reader sees them conjugated (negated).  The fallbacks of
framework/ops/math_bits.py materialize such inputs before any other kernel runs, so only the
kernels registered as fallthrough there (views, copy_, clone, conj_physical_, ...) ever see a
tensor with a bit; they handle it themselves.  conj, resolve_conj, resolve_neg and conj_physical
are CompositeImplicitAutograd as in PyTorch (graphs record ConjBackward0, CloneBackward0 or
ConjPhysicalBackward0)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dispatch_key import DispatchKeySet
from framework.c10.dtypes import float16, float32, float64
from framework.c10.tensor_impl import CONJ_BIT, NEG_BIT, TensorImpl
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import (
    TensorMeta,
    array,
    aten_op,
    check_out_dtype,
    kernel,
    make_view,
    not_implemented,
    resize_output,
    same_device,
    structured,
)
from framework.ops.kernels.pointwise import _to_float

Array = npt.NDArray[Any]


def _toggled_view(self: Tensor, bit: int) -> Tensor:
    """A view of all of `self` whose key set has `bit` toggled."""
    impl = self._impl
    view = make_view(self, impl.sizes, impl.strides, impl.storage_offset)
    view._impl.key_set = DispatchKeySet.from_bits(impl.key_set.repr ^ bit)
    return view


@kernel("_conj")
def _conj(self: Tensor) -> Tensor:
    if not self._impl.dtype.is_complex:
        raise RuntimeError(
            f"_conj: the conjugate bit is only for complex tensors, got {self._impl.dtype.scalar_type_name} "
            "(conj() returns a tensor that is not complex itself)"
        )
    return _toggled_view(self, CONJ_BIT)


@kernel("_neg_view")
def _neg_view(self: Tensor) -> Tensor:
    return _toggled_view(self, NEG_BIT)


@kernel("conj")
def conj(self: Tensor) -> Tensor:
    if not self._impl.dtype.is_complex:
        return self
    result: Tensor = aten_op("_conj.default")(self)
    return result


def _resolve(self: Tensor, bit: int) -> Tensor:
    """`self` itself without `bit`, else a clone (which materializes every bit)."""
    if not self._impl.key_set.repr & bit:
        return self
    result: Tensor = aten_op("clone.default")(self)
    return result


@kernel("resolve_conj")
def resolve_conj(self: Tensor) -> Tensor:
    return _resolve(self, CONJ_BIT)


@kernel("resolve_neg")
def resolve_neg(self: Tensor) -> Tensor:
    return _resolve(self, NEG_BIT)


@kernel("is_conj")
def is_conj(self: Tensor) -> bool:
    return bool(self._impl.key_set.repr & CONJ_BIT)


@kernel("is_neg")
def is_neg(self: Tensor) -> bool:
    return bool(self._impl.key_set.repr & NEG_BIT)


# ---- conj_physical --------------------------------------------------------------------------


@kernel("conj_physical")
def conj_physical(self: Tensor) -> Tensor:
    if not self._impl.dtype.is_complex:
        return self
    result: Tensor = aten_op("_conj_physical.default")(self)
    return result


def _conjugate_into(out: Array, values: Array) -> None:
    """`out[...] = conj(values)`; values that are not complex are copied."""
    if values.dtype.kind == "c":
        np.conjugate(values, out=out)
    else:
        out[...] = values


@kernel("_conj_physical")
def _conj_physical(self: Tensor) -> Tensor:
    if self._impl.key_set.repr & CONJ_BIT:
        result: Tensor = aten_op("clone.default")(aten_op("conj.default")(self))
        return result
    impl = self._impl
    out = TensorImpl.empty(impl.sizes, impl.dtype, impl.device)
    if out.storage.data is not None:
        _conjugate_into(out.numpy_view(), array(self))
    return Tensor(out)


@kernel("conj_physical_out")
def conj_physical_out(self: Tensor, *, out: Tensor) -> Tensor:
    check_out_dtype(out, self._impl.dtype)
    resize_output(out, self._impl.sizes)
    if out._impl.storage.data is not None:
        _conjugate_into(array(out), array(self))
    return out


@kernel("conj_physical_")
def conj_physical_(self: Tensor) -> Tensor:
    """Conjugates the stored elements: the same change whatever bits `self` has."""
    if self._impl.dtype.is_complex and self._impl.storage.data is not None:
        values = array(self)
        np.conjugate(values, out=values)
    return self


# ---- angle ----------------------------------------------------------------------------------


def _angle_meta(self: Tensor) -> TensorMeta:
    impl = self._impl
    d = impl.dtype
    return TensorMeta(impl.sizes, d.to_real() if d.is_complex else _to_float(d), impl.device)


def _angle_impl(out: Array, self: Tensor) -> None:
    a = array(self)
    if a.dtype.kind == "c":
        out[...] = np.angle(a)
    else:
        # pi for negative values, 0 otherwise (-0.0 included), NaN for NaN.
        values = a.astype(out.dtype, copy=False) if out.dtype.kind == "f" else a
        out[...] = np.where(values < 0, math.pi, np.where(np.isnan(values), values, 0))


structured("angle", _angle_meta, _angle_impl, inplace=False)


# ---- polar and complex ----------------------------------------------------------------------


def _pair_meta(op: str, first: Tensor, second: Tensor) -> TensorMeta:
    """complex(real, imag) and polar(abs, angle) take two tensors of one floating dtype, which
    broadcast: their shape, that dtype (the result has the matching complex dtype) and device."""
    a, b = first._impl.dtype, second._impl.dtype
    if a not in (float16, float32, float64) or b not in (float16, float32, float64):
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{a.scalar_type_name} and {b.scalar_type_name}"
        )
    if a is not b:
        raise RuntimeError(
            f"Expected object of scalar type {a.scalar_type_name} but got scalar type "
            f"{b.scalar_type_name} for second argument"
        )
    device = same_device(op, (first, second))
    return TensorMeta(broadcast_shapes(first._impl.sizes, second._impl.sizes), a, device)


def _pair_op(op: str, combine: Callable[[Array, Array], Array]) -> None:
    def fill(out: TensorImpl, first: Tensor, second: Tensor) -> None:
        if out.storage.data is not None:
            out.numpy_view()[...] = combine(array(first), array(second))

    def functional(first: Tensor, second: Tensor) -> Tensor:
        m = _pair_meta(op, first, second)
        if m.dtype is float16:
            if op == "polar":
                raise not_implemented("polar_cpu", float16)
            raise RuntimeError("complex: Half inputs make a ComplexHalf tensor, which is not supported")
        impl = TensorImpl.empty(m.sizes, m.dtype.to_complex(), m.device)
        fill(impl, first, second)
        return Tensor(impl)

    def out_variant(first: Tensor, second: Tensor, *, out: Tensor) -> Tensor:
        m = _pair_meta(op, first, second)
        got = out._impl.dtype
        if m.dtype is float16 or got is not m.dtype.to_complex():
            expected = "ComplexHalf" if m.dtype is float16 else m.dtype.to_complex().scalar_type_name
            raise RuntimeError(
                f"Expected object of scalar type {expected} but got scalar type "
                f"{got.scalar_type_name} for argument 'out'"
            )
        resize_output(out, m.sizes)
        fill(out._impl, first, second)
        return out

    kernel(op)(functional)
    kernel(f"{op}_out")(out_variant)


def _polar(magnitude: Array, angle: Array) -> Array:
    result: Array = magnitude * np.cos(angle) + 1j * (magnitude * np.sin(angle))
    return result


def _complex(real: Array, imag: Array) -> Array:
    result: Array = np.empty(np.broadcast_shapes(real.shape, imag.shape), np.result_type(real, 1j))
    result.real = real
    result.imag = imag
    return result


_pair_op("polar", _polar)
_pair_op("complex", _complex)
