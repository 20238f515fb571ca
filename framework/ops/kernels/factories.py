"""Factory kernels: tensors made from sizes and options, and the BackendSelect kernel that picks
their backend from `dtype`/`layout`/`device` (no tensor argument carries a key)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch_key import DispatchKeySet
from framework.c10.dtypes import bool_, dtype, get_default_dtype, int64
from framework.c10.generator import fma32, fma64
from framework.c10.tensor_impl import backend_key_for_device
from framework.ops._iter import Number, number_dtype
from framework.ops.kernels._registry import (
    CPU,
    KERNEL_FACTORIES,
    array,
    checked_scalar,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    resize,
)

Real = bool | int | float


def resolve_device(device: Device | str | None) -> Device:
    if device is None:
        return CPU
    return device if isinstance(device, Device) else Device(device)


def check_layout(layout: Layout | None) -> None:
    if layout is not None and layout is not Layout.strided:
        raise RuntimeError(f"layout {layout} is not supported: only framework.strided tensors exist")


def check_sizes(size: Sequence[int]) -> tuple[int, ...]:
    sizes = tuple(size)
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
    return sizes


def make_backend_select(op: OperatorHandle) -> Callable[..., Any]:
    """The BackendSelect kernel of a factory: redispatch to the backend its `device` names."""

    def backend_select(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        device = resolve_device(kwargs.get("device"))
        check_layout(kwargs.get("layout"))
        return op.redispatch(DispatchKeySet.from_bits(1 << backend_key_for_device(device)), *args, **kwargs)

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
    return new_tensor(check_sizes(size), dtype or get_default_dtype(), resolve_device(device))


@kernel("empty_out")
def empty_out(size: Sequence[int], *, memory_format: MemoryFormat | None = None, out: Tensor) -> Tensor:
    if memory_format is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    resize(out, tuple(size))
    return out


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
    sizes = check_sizes(size)
    strides = tuple(stride)
    if len(strides) != len(sizes):
        raise RuntimeError(
            f"dimensionality of sizes ({len(sizes)}) must match dimensionality of strides ({len(strides)})"
        )
    if any(st < 0 for st in strides):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}"
        )
    extent = 0 if 0 in sizes else 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
    d = dtype or get_default_dtype()
    t = new_tensor((extent,), d, resolve_device(device))
    t._impl.set_geometry(sizes, strides, 0)
    return t


@kernel("fill_")
def fill_(self: Tensor, value: bool | int | float | complex) -> Tensor:
    if not is_meta(self._impl.device):
        array(self).fill(checked_scalar(value, self._impl.dtype))
    return self


@kernel("zero_")
def zero_(self: Tensor) -> Tensor:
    if not is_meta(self._impl.device):
        array(self).fill(0)
    return self


def fill_dtype(value: bool | int | float | complex, dtype: dtype | None) -> dtype:
    """`full`'s dtype: the given one, else inferred from the fill value (bool, int64, default float)."""
    if dtype is not None:
        return dtype
    inferred = number_dtype(value)
    return inferred if inferred in (bool_, int64) or inferred.is_complex else get_default_dtype()


@kernel("arange")
def arange(
    start: Real,
    end: Real,
    step: Real = 1,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    all_int = all(isinstance(v, int) for v in (start, end, step))
    d = dtype or (int64 if all_int else get_default_dtype())
    return arange_out(start, end, step, out=new_tensor((0,), d, resolve_device(device)))


def _arange_size(start: Real, end: Real, step: Real, d: dtype) -> int:
    """The element count: in int64 with truncated bounds for int64 results (refusing a step that
    truncates to 0), else `ceil((end - start) / step)` in double."""
    if d is int64:
        lo, hi, by = (int(checked_scalar(v, int64)) for v in (start, end, step))
        if by == 0:
            raise ValueError("step must be nonzero")
        span = hi - lo + by - (1 if by > 0 else -1)
        size: float = abs(span) // abs(by) * (1 if (span < 0) == (by < 0) else -1)
    else:
        size = math.ceil((float(end) - float(start)) / float(step))
    if not 0 <= size <= np.iinfo(np.int64).max:
        raise RuntimeError("invalid size, possible overflow?")
    return int(size)


@kernel("arange_out")
def arange_out(start: Real, end: Real, step: Real = 1, *, out: Tensor) -> Tensor:
    """`out`'s dtype decides: integer results count from `start` by `step`, both truncated to
    int64; floating ones are computed as `_arange_floating` says.  An `out` of another element
    count is resized, with PyTorch's warning when it had elements."""
    impl = out._impl
    d = impl.dtype
    cpu = not is_meta(impl.device)
    if cpu and (d is bool_ or d.is_complex):
        raise not_implemented("arange_cpu", d)
    if not (step > 0 or step < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {float(start):g} -> {float(end):g}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = _arange_size(start, end, step, d)
    if impl.numel() != n:
        if impl.numel():
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(impl.sizes)} is {impl.numel()} "
                f"which does not match the computed number of elements {n}. Note that this may occur as "
                f"a result of rounding error. The out tensor will be resized to a tensor of shape ({n},).",
                UserWarning,
                stacklevel=2,
            )
        impl.resize_((n,))
    if cpu:
        values: npt.NDArray[Any]
        if d.is_floating_point:
            values = _arange_floating(float(start), float(step), n, d)
        else:
            first, by = (int(checked_scalar(v, int64)) for v in (start, step))
            values = (first + np.arange(n, dtype=np.int64) * by).astype(d.numpy_dtype)
        array(out)[...] = values.reshape(impl.sizes)
    return out


def _arange_floating(start: float, step: float, n: int, d: dtype) -> npt.NDArray[Any]:
    """PyTorch's AVX2 CPU arange, bit for bit as it runs on one thread (past 32768 elements its
    results depend on the thread count): it computes in double (float for float16 and bfloat16)
    with fused multiply-adds; elements in whole pairs of 32-byte vectors are `base + j * step`
    from the vector's first value `base = start + i * step` rounded to `d`, the remaining tail
    elements are `start + i * step`."""
    acc = np.dtype(np.float32 if d.is_reduced_float else np.float64)
    lanes = 32 // d.itemsize
    idx = np.arange(n)
    lane = np.where(idx < n - n % (2 * lanes), idx % lanes, 0)
    first, offset = (idx - lane).astype(acc), lane.astype(acc)
    if acc == np.float32:
        by, begin = np.float32(step), np.float32(start)
        base = fma32(first, by, begin).astype(d.numpy_dtype).astype(acc)
        return fma32(offset, by, base).astype(d.numpy_dtype)
    base = fma64(first, step, start).astype(d.numpy_dtype).astype(acc)
    return fma64(offset, step, base).astype(d.numpy_dtype)


@kernel("linspace")
def linspace(
    start: Number,
    end: Number,
    steps: int,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    check_layout(layout)
    d = dtype or get_default_dtype()
    return linspace_out(start, end, steps, out=new_tensor((0,), d, resolve_device(device)))


def _linspace_fma(start: float, end: float, steps: int, compute: np.dtype[Any]) -> npt.NDArray[Any]:
    """PyTorch's CPU linspace in float32 or float64: `step = (end - start) / (steps - 1)`, the
    first half `fma(step, i, start)` and the second `fma(-step, steps - 1 - i, end)` (the kernel
    is compiled with FMA contraction)."""
    t = compute.type
    lo, hi = t(start), t(end)
    step = (hi - lo) / t(steps - 1)
    half = steps // 2
    first = np.arange(half, dtype=compute)
    second = np.arange(steps - half - 1, -1, -1, dtype=compute)
    if compute == np.float32:
        return np.concatenate([fma32(first, step, lo), fma32(second, -step, hi)])
    return np.concatenate([fma64(first, float(step), float(lo)), fma64(second, -float(step), float(hi))])


def _linspace_reduced(start: float, end: float, steps: int, reduced: np.dtype[Any]) -> npt.NDArray[Any]:
    """float16 and bfloat16 as c10::Half and c10::BFloat16 compute them: each operation in float32
    and rounded to `reduced` (so nothing fuses), the step included."""

    def half(x: Any) -> npt.NDArray[np.float32]:
        # beyond the type's range is inf, as in c10
        return np.asarray(x, dtype=np.float32).astype(reduced).astype(np.float32)

    lo, hi = half(start), half(end)
    step = half(half(hi - lo) / half(steps - 1))
    idx = np.arange(steps)
    first = idx < steps // 2
    offsets = half(step * half(np.where(first, idx, steps - 1 - idx)))
    return np.where(first, half(lo + offsets), half(hi - offsets)).astype(reduced)


@kernel("linspace_out")
def linspace_out(start: Number, end: Number, steps: int, *, out: Tensor) -> Tensor:
    """As PyTorch's CPU kernel, bit for bit: start and end converted to the output dtype, then
    float32/float64 (and each part of a complex) computed with fused multiply-adds, float16 and
    bfloat16 in c10::Half / c10::BFloat16 arithmetic, integers in double from the converted ends
    and truncated.  An `out` of another element count is resized (without warning); one of
    `steps` elements keeps its shape."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    impl = out._impl
    if impl.numel() != steps:
        impl.resize_((steps,))
    if is_meta(impl.device) or steps == 0:
        return out
    d = impl.dtype
    first, last = (checked_scalar(v, d) for v in (start, end))
    if steps == 1:
        array(out)[...] = first
        return out
    if d is bool_:
        raise not_implemented("linspace_cpu", d)
    values: npt.NDArray[Any]
    if d.is_reduced_float:
        values = _linspace_reduced(complex(start).real, complex(end).real, steps, d.numpy_dtype)
    elif d.is_complex:
        part = d.to_real().numpy_dtype
        real = _linspace_fma(first.real, last.real, steps, part)
        values = real + 1j * _linspace_fma(first.imag, last.imag, steps, part)
    elif d.is_floating_point:
        values = _linspace_fma(first, last, steps, d.numpy_dtype)
    else:
        values = _linspace_fma(float(first), float(last), steps, np.dtype(np.float64))
    array(out)[...] = values.reshape(impl.sizes).astype(d.numpy_dtype)
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
    return eye_out(n, m, out=new_tensor((0,), dtype or get_default_dtype(), resolve_device(device)))


@kernel("eye_out")
def eye_out(n: int, m: int | None = None, *, out: Tensor) -> Tensor:
    """Ones on the diagonal of an `n` by `m` (default `n`) `out`, resized without warning."""
    cols = n if m is None else m
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if cols < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {cols}")
    resize(out, (n, cols))
    if not is_meta(out._impl.device):
        a = array(out)
        a[...] = 0
        np.fill_diagonal(a, 1)
    return out
