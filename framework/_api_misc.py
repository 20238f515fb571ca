"""Top-level odds and ends of PyTorch's namespace: `gradient`, `typename`, `is_inference`,
`detach`/`detach_`, the deprecated `range` and `set_default_tensor_type`, `asarray`,
`frombuffer`, `from_dlpack`, and process settings (`set_float32_matmul_precision`,
`set_warn_always`, `set_anomaly_enabled`, interop threads, `set_flush_denormal`,
`compiled_with_cxx11_abi`).

Settings that only steer PyTorch's own kernels are recorded and reported back: every matmul here
is NumPy's (float32 precision "highest" whatever is set), there are no inter-op thread pools, and
NumPy cannot flush denormals, so `set_flush_denormal` returns False as PyTorch does on a CPU that
cannot.
"""

from __future__ import annotations

import builtins
import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from framework._generated.functions import cat
from framework._global_state import get_num_threads
from framework._tensor import (
    Tensor,
    from_numpy,
    set_warn_always_flag,
    warn_always_enabled,
    warn_once,
    wrap_dim,
)
from framework._tensor_new import tensor as _new_tensor
from framework._tensor_type import LEGACY_TYPES, _LegacyTensorType
from framework.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import dtype, get_default_dtype, set_default_dtype
from framework.c10.storage import StorageImpl
from framework.c10.tensor_impl import TensorImpl

__all__ = [
    "asarray",
    "compiled_with_cxx11_abi",
    "detach",
    "detach_",
    "from_dlpack",
    "frombuffer",
    "get_device",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "gradient",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_inference",
    "is_warn_always_enabled",
    "range",
    "set_anomaly_enabled",
    "set_default_tensor_type",
    "set_float32_matmul_precision",
    "set_flush_denormal",
    "set_num_interop_threads",
    "set_warn_always",
    "typename",
]

_PRECISIONS: Final = ("highest", "high", "medium")


class _State:
    matmul_precision: str = "highest"
    interop_threads: int | None = None


def typename(obj: Any, /) -> str:
    """The type name of `obj`: a tensor's legacy type (`'framework.FloatTensor'`), otherwise the
    qualified name of `obj` (a class or function) or of its class, without `builtins.`."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_inference(input: Tensor) -> builtins.bool:
    """Whether `input` was made in inference mode (`Tensor.is_inference`)."""
    return input.is_inference()


def detach(input: Tensor) -> Tensor:
    """`input.detach()`: the same data, cut from the graph."""
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """`input.detach_()`: make `input` a leaf that does not require grad."""
    return input.detach_()


def get_device(input: Tensor) -> builtins.int:
    """The device index of `input`: -1 for CPU tensors (as `Tensor.get_device`)."""
    return input.get_device()


# ---- gradient -----------------------------------------------------------------------------------


def _gradient_dims(input: Tensor, dim: builtins.int | Sequence[builtins.int] | None) -> list[builtins.int]:
    ndim = input.dim()
    if dim is None:
        return list(builtins.range(ndim))
    dims = [wrap_dim(d, ndim) for d in ([dim] if isinstance(dim, builtins.int) else dim)]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims


def _along(t: Tensor, d: builtins.int, start: builtins.int, stop: builtins.int | None = None) -> Tensor:
    """`t[start:stop]` along dimension `d` (negative bounds count from the end)."""
    size = t.shape[d]
    begin = start % size if start < 0 else start
    end = size if stop is None else stop % size if stop < 0 else stop
    return t.narrow(d, begin, end - begin)


def _uniform_gradient(x: Tensor, d: builtins.int, h: complex, edge_order: builtins.int) -> Tensor:
    """The gradient along `d` for samples `h` apart: central differences inside, one-sided ones
    (first or second order) at both ends."""
    center = (_along(x, d, 2) - _along(x, d, 0, -2)) / h
    if edge_order == 1:
        prepend = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / h
        append = (_along(x, d, -1) - _along(x, d, -2, -1)) / h
    else:
        prepend = (_along(x, d, 0, 1) * -1.5 + _along(x, d, 1, 2) * 2 - _along(x, d, 2, 3) * 0.5) / h
        append = (_along(x, d, -3, -2) * 0.5 + _along(x, d, -2, -1) * -2 + _along(x, d, -1) * 1.5) / h
    return cat([prepend, center / 2, append], d)


def _coordinate_gradient(x: Tensor, d: builtins.int, coordinates: Tensor, edge_order: builtins.int) -> Tensor:
    """The gradient along `d` for samples at `coordinates` (second-order accurate inside)."""
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coordinates.diff()
    dx1 = dx.narrow(0, 0, dx.shape[0] - 1)
    dx2 = dx.narrow(0, 1, dx.shape[0] - 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _along(x, d, 0, -2) + b * _along(x, d, 1, -1) + c * _along(x, d, 2)
    first, second, last, before_last = dx[0], dx[1], dx[-1], dx[-2]
    if edge_order == 1:
        prepend = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / first
        append = (_along(x, d, -1) - _along(x, d, -2, -1)) / last
    else:
        a0 = -(2.0 * first + second) / (first * (first + second))
        b0 = (first + second) / (first * second)
        c0 = (-first) / (second * (first + second))
        prepend = a0 * _along(x, d, 0, 1) + b0 * _along(x, d, 1, 2) + c0 * _along(x, d, 2, 3)
        a1 = last / (before_last * (last + before_last))
        b1 = -(last + before_last) / (last * before_last)
        c1 = (2 * last + before_last) / (last * (last + before_last))
        append = a1 * _along(x, d, -3, -2) + b1 * _along(x, d, -2, -1) + c1 * _along(x, d, -1)
    return cat([prepend, center, append], d)


def gradient(
    input: Tensor,
    *,
    spacing: complex | Tensor | Sequence[complex] | Sequence[Tensor] = 1,
    dim: builtins.int | Sequence[builtins.int] | None = None,
    edge_order: builtins.int = 1,
) -> tuple[Tensor, ...]:
    """Estimate the gradient of the function sampled by `input` along each dimension of `dim`
    (all by default) with second-order accurate central differences inside and first- or
    second-order (`edge_order`) one-sided differences at the boundaries. `spacing`: one distance
    between samples for every dimension, one per dimension, or the sample coordinates of each
    dimension (1-D tensors). Built from differentiable operators, so gradients flow through it."""
    entries: list[Any]
    if isinstance(spacing, (list, tuple)):
        entries = list(spacing)
        num_dim = input.dim() if dim is None else 1 if isinstance(dim, builtins.int) else len(dim)
        if len(entries) != num_dim:
            if dim is None:
                raise RuntimeError(
                    "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                    f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
                    f"a list of length {len(entries)}"
                )
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                f"arguments to have the same length, but got a spacing argument of length {len(entries)} "
                f"and a dim argument of length {num_dim}."
            )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _gradient_dims(input, dim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if not isinstance(spacing, (list, tuple)):
        entries = [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    results = []
    for d, h in zip(dims, entries, strict=True):
        if isinstance(h, Tensor):
            if h.dim() != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, but got an "
                    f"element with {h.dim()} dimensions!"
                )
            results.append(_coordinate_gradient(input, d, h, edge_order))
        else:
            results.append(_uniform_gradient(input, d, h, edge_order))
    return tuple(results)


# ---- deprecated ---------------------------------------------------------------------------------


def range(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    out: Tensor | None = None,
    dtype: dtype | None = None,
    layout: Layout = Layout.strided,
    device: Device | str | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Deprecated: the 1-D tensor `start, start + step, ...` up to and including `end`
    (`floor((end - start) / step) + 1` values; default floating dtype unless `dtype` is given)."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is "
        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
        "in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if layout is not Layout.strided:
        raise RuntimeError(f"layout {layout} is not supported: only framework.strided tensors exist")
    target = dtype or (out.dtype if out is not None else get_default_dtype())
    count = math.floor((end - start) / step) + 1
    compute = np.float64 if target.is_floating_point or target.is_complex else np.int64
    values = np.add(start, np.multiply(step, np.arange(count, dtype=compute))).astype(target.numpy_dtype)
    result = _new_tensor(values, dtype=target, device=device, requires_grad=requires_grad)
    if out is None:
        return result
    out.resize_(result.shape)
    return out.copy_(result)


def set_default_tensor_type(t: type[Any] | str, /) -> None:
    """Deprecated: make the dtype of the legacy floating type `t` (`framework.DoubleTensor` or
    its name, `'torch.DoubleTensor'`) the default dtype."""
    warn_once(
        "set_default_tensor_type",
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
    )
    if isinstance(t, str):
        prefix, _, name = t.rpartition(".")
        legacy = LEGACY_TYPES.get(name) if prefix in ("framework", "torch") else None
        if legacy is None:
            raise TypeError(f"invalid type: '{t}'")
        t = legacy
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)


# ---- settings -----------------------------------------------------------------------------------


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set: "highest" (the default), "high" or "medium"."""
    return _State.matmul_precision


def set_float32_matmul_precision(precision: str) -> None:
    """Record the internal precision of float32 matrix products. NumPy computes them in float32
    at every setting, which "highest" means; "high" and "medium" only permit less precision.
    Another value warns and changes nothing."""
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _State.matmul_precision = precision


def set_warn_always(b: builtins.bool, /) -> None:
    """When True, warnings PyTorch gives once per process (deprecations...) are given every time."""
    set_warn_always_flag(b)


def is_warn_always_enabled() -> builtins.bool:
    """Whether `set_warn_always(True)` is in force."""
    return warn_always_enabled()


def get_num_interop_threads() -> builtins.int:
    """The number of inter-op threads: the CPUs available, unless `set_num_interop_threads` set it."""
    n = _State.interop_threads
    return get_num_threads() if n is None else n


def set_num_interop_threads(num: builtins.int, /) -> None:
    """Set the number of inter-op threads, once per process (as PyTorch, a second call fails)."""
    if _State.interop_threads is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _State.interop_threads = num


def set_flush_denormal(mode: builtins.bool, /) -> builtins.bool:
    """Whether denormal flushing could be set: False, as NumPy cannot flush denormals."""
    return False


def compiled_with_cxx11_abi() -> builtins.bool:
    """PyTorch's build flag for the C++11 ABI (True for its current builds; no C++ here)."""
    return True


# ---- asarray, frombuffer, DLPack ----------------------------------------------------------------


def _buffer_tensor(buffer: Any, d: dtype, count: builtins.int, offset: builtins.int) -> Tensor:
    """A 1-D CPU tensor of `count` elements of `d` sharing the memory of `buffer` after `offset`
    bytes (all the rest for a negative count), with PyTorch's checks."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    size = d.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
            "bytes) minus 1"
        )
    if count < 0 and (length - offset) % size:
        raise ValueError(
            f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
            f"of element size ({size})"
        )
    if count < 0:
        count = (length - offset) // size
    if offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
            f"be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warn_once(
            "frombuffer",
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
            "This means you can write to the underlying (supposedly non-writable) buffer using the "
            "tensor. You may want to copy the buffer to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest of this "
            "program.",
        )
    values = np.frombuffer(view.cast("B"), dtype=np.uint8, count=count * size, offset=offset)
    return Tensor(TensorImpl(StorageImpl.from_buffer(values), d, (count,)))


def frombuffer(
    buffer: Any,
    *,
    dtype: dtype,
    count: builtins.int = -1,
    offset: builtins.int = 0,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A 1-D tensor sharing the memory of an object implementing the buffer protocol (bytes,
    bytearray, array.array, memoryview...): `count` elements of `dtype` (all, for -1) after
    `offset` bytes."""
    return _buffer_tensor(buffer, dtype, count, offset).requires_grad_(requires_grad)


def from_dlpack(
    ext_tensor: Any, *, device: Device | str | None = None, copy: builtins.bool | None = None
) -> Tensor:
    """A tensor sharing the memory of an object implementing DLPack (`__dlpack__` and
    `__dlpack_device__`: NumPy arrays, tensors of other libraries) or of a DLPack capsule
    (`framework.utils.dlpack.to_dlpack`'s). `copy=True` copies; `device` must be the CPU."""
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(f"from_dlpack: only CPU tensors exist here, got device {device}")
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.clone() if copy else ext_tensor
    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    return from_numpy(np.from_dlpack(source, copy=copy))


def _device(device: Device | str) -> Device:
    return Device(device) if isinstance(device, str) else device


class _Capsule:
    """A DLPack capsule as NumPy's `from_dlpack` takes it (an object with `__dlpack__`)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[builtins.int, builtins.int]:
        return (1, 0)


def asarray(
    obj: Any,
    *,
    dtype: dtype | None = None,
    device: Device | str | None = None,
    copy: builtins.bool | None = None,
    requires_grad: builtins.bool | None = None,
) -> Tensor:
    """`obj` as a tensor, sharing memory when it can: a tensor, a NumPy array, an object with
    DLPack or the buffer protocol (read as elements of `dtype`, else the default dtype) is
    shared unless `copy` is True or `dtype`/`device` differ (refused with `copy=False`); other
    data (numbers, sequences) is copied. `requires_grad` (default: `obj`'s, with a warning)
    is set on the result, which for a shared tensor is `obj` itself."""
    shared: Tensor | None
    if isinstance(obj, Tensor):
        shared = obj
    elif isinstance(obj, np.ndarray):
        shared = from_numpy(obj)
    elif hasattr(obj, "__dlpack__"):
        shared = from_dlpack(obj)
    else:
        try:
            memoryview(obj)
        except TypeError:
            shared = None
        else:
            shared = _buffer_tensor(obj, dtype or get_default_dtype(), -1, 0)
    if shared is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return _new_tensor(obj, dtype=dtype, device=device, requires_grad=bool(requires_grad))
    target_device = shared.device if device is None else _device(device)
    wrong_dtype = dtype is not None and dtype is not shared.dtype
    wrong_device = target_device != shared.device
    if copy is False and wrong_device:
        raise ValueError(f"can't alias tensor from device '{shared.device}' to '{target_device}'.")
    if copy is False and wrong_dtype:
        raise ValueError(
            f"can't alias tensor with dtype '{shared.dtype.scalar_type_name}' into dtype "
            f"'{dtype.scalar_type_name if dtype is not None else ''}'."
        )
    if requires_grad is None and shared.requires_grad:
        warn_once(
            "asarray",
            "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
            "False. Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
        )
    result = shared
    if copy or wrong_dtype or wrong_device:
        result = shared.to(dtype=dtype or shared.dtype, device=target_device, copy=True)
        if requires_grad is False:
            return result.detach()
    if requires_grad is not None:
        result.requires_grad_(requires_grad)
    return result


# ---- Tensor.dim_order ---------------------------------------------------------------------------


def _stride_order(
    sizes: tuple[builtins.int, ...], strides: tuple[builtins.int, ...], a: builtins.int, b: builtins.int
) -> builtins.int:
    """1 when dimension `a` is inner to `b` in memory, -1 when outer, 0 when undecided (PyTorch's
    comparison of two dimensions for an elementwise result's layout)."""

    def ge(x: builtins.int, y: builtins.int) -> builtins.bool:
        return y == 0 or (x != 0 and (x >= y or x % y == 0))

    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if ge(sizes[b], sizes[a]) else 1
    if ge(sb, sa):
        return -1
    return 1 if ge(sa, sb) else 0


def tensor_dim_order(
    impl: TensorImpl, ambiguity_check: builtins.bool | list[MemoryFormat]
) -> tuple[builtins.int, ...]:
    """`Tensor.dim_order` of a tensor (arguments checked by the method)."""
    from framework.ops.kernels.views import is_contiguous_as

    sizes, strides = impl.sizes, impl.strides
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check_multiple = ambiguity_check if isinstance(ambiguity_check, builtins.bool) else True
    several = any(a == b for a, b in itertools.pairwise(strides)) or 1 in sizes
    if check_multiple and several and sum(is_contiguous_as(impl, f) for f in formats) != 1:
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given memory "
            "formats."
        )
    ndim = len(sizes)
    if ndim <= 1:
        return tuple(builtins.range(ndim))
    contiguous = is_contiguous_as(impl, MemoryFormat.contiguous_format)
    channels_last = is_contiguous_as(impl, MemoryFormat.channels_last)
    if contiguous and not channels_last:
        return tuple(builtins.range(ndim))
    if channels_last and not contiguous:
        return (0, *builtins.range(2, ndim), 1)
    perm = list(reversed(builtins.range(ndim)))
    for i in builtins.range(1, ndim):
        dim1 = i
        for dim0 in reversed(builtins.range(i)):
            comparison = _stride_order(sizes, strides, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    if ambiguity_check and any(
        _stride_order(sizes, strides, a, b) != -1 for a, b in itertools.pairwise(perm)
    ):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))
