"""Factory kernels: tensors made from sizes and options, and the BackendSelect kernel that picks
their backend from `dtype`/`layout`/`device` (no tensor argument carries a key)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device, Layout
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch_key import DispatchKeySet
from framework.c10.dtypes import bool_, dtype, get_default_dtype, int64
from framework.c10.tensor_impl import backend_key_for_device
from framework.ops._iter import number_dtype
from framework.ops.kernels._registry import CPU, KERNEL_FACTORIES, array, is_meta, kernel, new_tensor


def resolve_device(device: Device | str | None) -> Device:
    if device is None:
        return CPU
    return device if isinstance(device, Device) else Device(device)


def check_layout(layout: Layout | None) -> None:
    if layout is not None and layout is not Layout.strided:
        raise RuntimeError(f"layout {layout} is not supported: only framework.strided tensors exist")


def check_sizes(op: str, size: Sequence[int]) -> tuple[int, ...]:
    sizes = tuple(size)
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: {list(sizes)}")
    return sizes


def make_backend_select(op: OperatorHandle) -> Callable[..., Any]:
    """The BackendSelect kernel of a factory: redispatch to the backend its `device` names."""

    def backend_select(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        device = resolve_device(kwargs.get("device"))
        check_layout(kwargs.get("layout"))
        return op.redispatch(DispatchKeySet(backend_key_for_device(device)), *args, **kwargs)

    return backend_select


KERNEL_FACTORIES["backend_select"] = make_backend_select


@kernel("empty")
def empty(
    size: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    memory_format: Any = None,
) -> Tensor:
    check_layout(layout)
    return new_tensor(check_sizes("empty", size), dtype or get_default_dtype(), resolve_device(device))


@kernel("empty_strided")
def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    sizes = check_sizes("empty_strided", size)
    strides = tuple(stride)
    if len(strides) != len(sizes):
        raise RuntimeError(
            f"empty_strided: mismatch in length of strides and shape (sizes {list(sizes)}, strides "
            f"{list(strides)})"
        )
    extent = 0 if 0 in sizes else 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
    d = dtype or get_default_dtype()
    t = new_tensor((extent,), d, resolve_device(device))
    t._impl.set_geometry(sizes, strides, 0)
    return t


@kernel("fill_")
def fill_(self: Tensor, value: bool | int | float | complex) -> Tensor:
    if not is_meta(self._impl.device):
        array(self)[...] = value
    return self


@kernel("zero_")
def zero_(self: Tensor) -> Tensor:
    if not is_meta(self._impl.device):
        array(self)[...] = 0
    return self


def fill_dtype(value: bool | int | float | complex, dtype: dtype | None) -> dtype:
    """`full`'s dtype: the given one, else inferred from the fill value (bool, int64, default float)."""
    if dtype is not None:
        return dtype
    inferred = number_dtype(value)
    return inferred if inferred in (bool_, int64) or inferred.is_complex else get_default_dtype()


@kernel("arange")
def arange(
    start: bool | int | float,
    end: bool | int | float,
    step: bool | int | float = 1,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    d = dtype or (int64 if all_int else get_default_dtype())
    n = math.ceil((end - start) / step)
    out = new_tensor((n,), d, resolve_device(device))
    if not is_meta(out._impl.device):
        # PyTorch computes start + i * step in double (or int64) and casts.
        index: npt.NDArray[Any] = np.arange(n, dtype=np.int64 if all_int else np.float64)
        values = start + index * step
        array(out)[...] = values.astype(d.numpy_dtype)
    return out


@kernel("linspace")
def linspace(
    start: bool | int | float,
    end: bool | int | float,
    steps: int,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    d = dtype or get_default_dtype()
    out = new_tensor((steps,), d, resolve_device(device))
    if not is_meta(out._impl.device) and steps:
        # As PyTorch: start/end converted to the output dtype, the step in it (float32 for
        # float16, double for integers), the first half counted from `start` and the second from
        # `end`; float32 steps are applied as one fused multiply-add (exact in double).
        if d.is_floating_point or d.is_complex:
            compute = np.dtype(np.float32) if d.itemsize == 2 else d.numpy_dtype
            lo, hi = compute.type(start), compute.type(end)
        else:
            compute = np.dtype(np.float64)
            lo, hi = compute.type(int(start)), compute.type(int(end))
        step = (hi - lo) / compute.type(steps - 1) if steps > 1 else compute.type(0)
        fused = compute == np.float32
        wide = np.float64 if fused else compute.type
        idx = np.arange(steps)
        values = np.where(
            idx < steps // 2,
            wide(lo) + wide(step) * idx.astype(wide),
            wide(hi) - wide(step) * (steps - idx - 1).astype(wide),
        )
        array(out)[...] = values.astype(d.numpy_dtype)
    return out


@kernel("eye")
def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    cols = n if m is None else m
    if n < 0 or cols < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else cols}")
    out = new_tensor((n, cols), dtype or get_default_dtype(), resolve_device(device))
    if not is_meta(out._impl.device):
        array(out)[...] = np.eye(n, cols, dtype=out.dtype.numpy_dtype)
    return out
