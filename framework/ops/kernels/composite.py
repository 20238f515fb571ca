"""Factories written with other operators (CompositeExplicitAutograd, as in PyTorch): they call
through the dispatcher, so `empty` picks the backend and `fill_` fills on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework._tensor import Tensor
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import dtype, get_default_dtype
from framework.ops._iter import Number
from framework.ops.kernels._registry import aten_op, dispatched_empty, kernel, resize
from framework.ops.kernels.factories import fill_dtype
from framework.ops.kernels.views import strides_for_memory_format


@kernel("zeros")
def zeros(
    size: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result: Tensor = aten_op("zero_.default")(dispatched_empty(size, dtype, layout, device))
    return result


@kernel("ones")
def ones(
    size: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return full(size, 1, dtype=dtype or get_default_dtype(), layout=layout, device=device)


@kernel("zeros_out")
def zeros_out(size: Sequence[int], *, out: Tensor) -> Tensor:
    resize(out, tuple(size))
    result: Tensor = aten_op("zero_.default")(out)
    return result


@kernel("ones_out")
def ones_out(size: Sequence[int], *, out: Tensor) -> Tensor:
    return full_out(size, 1, out=out)


@kernel("full")
def full(
    size: Sequence[int],
    fill_value: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result: Tensor = aten_op("fill_.Scalar")(
        dispatched_empty(size, fill_dtype(fill_value, dtype), layout, device), fill_value
    )
    return result


@kernel("full_out")
def full_out(size: Sequence[int], fill_value: Number, *, out: Tensor) -> Tensor:
    resize(out, tuple(size))
    result: Tensor = aten_op("fill_.Scalar")(out, fill_value)
    return result


@kernel("empty_like")
def empty_like(
    self: Tensor,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    impl = self._impl
    strides = strides_for_memory_format(impl, memory_format or MemoryFormat.preserve_format)
    result: Tensor = aten_op("empty_strided.default")(
        impl.sizes, strides, dtype=dtype or impl.dtype, layout=layout, device=device or impl.device
    )
    return result


@kernel("full_like")
def full_like(
    self: Tensor,
    fill_value: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    empty = empty_like(self, dtype=dtype, layout=layout, device=device, memory_format=memory_format)
    result: Tensor = aten_op("fill_.Scalar")(empty, fill_value)
    return result


def _constant_like(name: str, value: Number) -> None:
    """Register `name` (zeros_like, ones_like): `full_like` with a fixed value."""

    def constant_like(
        self: Tensor,
        *,
        dtype: dtype | None = None,
        layout: Layout | None = None,
        device: Device | str | None = None,
        pin_memory: bool | None = None,
        memory_format: MemoryFormat | None = None,
    ) -> Tensor:
        return full_like(self, value, dtype=dtype, layout=layout, device=device, memory_format=memory_format)

    constant_like.__name__ = constant_like.__qualname__ = name
    kernel(name)(constant_like)


_constant_like("zeros_like", 0)
_constant_like("ones_like", 1)


@kernel("scalar_tensor")
def scalar_tensor(
    s: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result: Tensor = aten_op("fill_.Scalar")(
        dispatched_empty((), dtype or get_default_dtype(), layout, device), s
    )
    return result


@kernel("arange_end")
def arange_end(
    end: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return arange_start(0, end, dtype=dtype, layout=layout, device=device)


@kernel("arange_start")
def arange_start(
    start: Number,
    end: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result: Tensor = aten_op("arange.start_step")(start, end, 1, dtype=dtype, layout=layout, device=device)
    return result


@kernel("arange_end_out")
def arange_end_out(end: Number, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("arange.start_out")(0, end, 1, out=out)
    return result


@kernel("new_empty")
def new_empty(
    self: Tensor,
    size: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """An uninitialised tensor of `size` with `self`'s dtype and device unless given."""
    impl = self._impl
    return dispatched_empty(size, dtype or impl.dtype, layout, device or impl.device)


@kernel("new_full")
def new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Number,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """`new_empty` filled with `fill_value` (in the tensor's dtype, not one inferred from it)."""
    empty = new_empty(self, size, dtype=dtype, layout=layout, device=device)
    result: Tensor = aten_op("fill_.Scalar")(empty, fill_value)
    return result


def _new_constant(name: str, value: Number) -> None:
    """Register `name` (new_zeros, new_ones): `new_full` with a fixed value."""

    def new_constant(self: Tensor, size: Sequence[int], **options: Any) -> Tensor:
        return new_full(self, size, value, **options)

    new_constant.__name__ = new_constant.__qualname__ = name
    kernel(name)(new_constant)


_new_constant("new_zeros", 0)
_new_constant("new_ones", 1)
