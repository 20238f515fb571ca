"""Kernels by name, for `native_functions.yaml` to refer to, and structured kernels.

A structured kernel is written once as a meta function (argument checks, output shape and dtype)
and an impl function (fills a NumPy output); from the pair come the functional kernel (allocate
the output), the in-place kernel (`self` is the output) and the out= kernel, each working on CPU
and, since on "meta" only the meta function runs, on the Meta backend too.

It also holds what the kernel modules share: dimension wrapping, PyTorch's dtype names and out=
dtype check, the overflow-checked Scalar conversion, and memory-overlap checks.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework._tensor import wrap_dim as wrap_dim
from framework.c10.device import Device, DeviceType, Layout
from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    numpy_finfo,
    uint8,
)
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, check_can_cast

KERNELS: Final[dict[str, Callable[..., Any]]] = {}
KERNEL_FACTORIES: Final[dict[str, Callable[[OperatorHandle], Callable[..., Any]]]] = {}
"""Kernels that are made per operator (they redispatch the operator they serve); they receive
the current DispatchKeySet first."""
CPU: Final = Device("cpu")


F = TypeVar("F", bound=Callable[..., Any])


def kernel(name: str) -> Callable[[F], F]:
    """Register a kernel under `name` (the name `native_functions.yaml` uses)."""

    def register(fn: F) -> F:
        if name in KERNELS:
            raise ValueError(f"kernel name {name!r} registered twice")
        KERNELS[name] = fn
        return fn

    return register


def register_variants(name: str, variants: Mapping[str, Callable[..., Any]]) -> None:
    """Register each of an operator's kernels as `name + suffix`, which also becomes its
    `__name__` and `__qualname__` (`variants` maps suffixes such as "_" and "_out" to kernels)."""
    for suffix, fn in variants.items():
        fn.__name__ = fn.__qualname__ = f"{name}{suffix}"
        kernel(f"{name}{suffix}")(fn)


class TensorMeta(NamedTuple):
    """What a meta function decides about one output (a tuple: built on every call)."""

    sizes: tuple[int, ...]
    dtype: dtype
    device: Device = CPU


def new_tensor(sizes: tuple[int, ...], dtype: dtype, device: Device) -> Tensor:
    return Tensor(TensorImpl.empty(sizes, dtype, device))


def is_meta(device: Device) -> bool:
    return device.device_type is DeviceType.Meta


def array(t: Tensor) -> npt.NDArray[Any]:
    """The NumPy view of a CPU tensor's elements."""
    return t._impl.numpy_view()


def resize_output(out: Tensor, sizes: tuple[int, ...]) -> None:
    """Give an out= tensor the required shape (PyTorch's resize_output, warning included)."""
    impl = out._impl
    if impl.sizes == sizes:
        return
    if impl.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(impl.sizes)}, "
            f"which does not match the required output shape {list(sizes)}. This behavior is "
            "deprecated, and in a future PyTorch release outputs will not be resized unless they "
            "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
            "to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=4,
        )
    impl.resize_(sizes)


def resize(out: Tensor, sizes: tuple[int, ...]) -> None:
    """PyTorch's `Tensor.resize_` as most out= factories use it: no warning, and a tensor that has
    the sizes already keeps its strides."""
    if out._impl.sizes != sizes:
        out._impl.resize_(sizes)


_ATEN: list[Any] = []


def aten() -> Any:
    """`framework.ops.aten` (imported on first use: kernels are defined before it exists)."""
    if not _ATEN:
        import framework.ops

        _ATEN.append(framework.ops.aten)
    return _ATEN[0]


_ATEN_CALLS: Final[dict[str, Callable[..., Any]]] = {}


def aten_op(name: str) -> Callable[..., Any]:
    """The dispatch function of the aten overload `name` ("sum.dim_IntList", "view.default"),
    found once: what a kernel calls to run another operator through the dispatcher."""
    call = _ATEN_CALLS.get(name)
    if call is None:
        base, _, overload = name.partition(".")
        handle = dispatcher().find_schema_or_throw(f"aten::{base}", "" if overload == "default" else overload)
        call = _ATEN_CALLS[name] = handle.call
    return call


def dispatched_empty(
    size: Sequence[int], dtype: dtype | None, layout: Layout | None, device: Device | str | None
) -> Tensor:
    result: Tensor = aten_op("empty.memory_format")(size, dtype=dtype, layout=layout, device=device)
    return result


MetaFn = Callable[..., TensorMeta]
ImplFn = Callable[..., None]


def structured(
    name: str, meta: MetaFn, impl: ImplFn, inplace_meta: MetaFn | None = None, *, inplace: bool = True
) -> None:
    """Register `name` (functional), `name_` (in-place, unless `inplace` is false: an operator
    whose first argument is not a tensor) and `name_out` (out=) from one meta and one impl
    function.  `meta(*args, **kwargs)` takes the functional operator's arguments;
    `impl(out_array, *args, **kwargs)` writes the result into `out_array`; `inplace_meta`, if
    given, replaces `meta` for the in-place variant (which may refuse more)."""

    def functional(*args: Any, **kwargs: Any) -> Tensor:
        sizes, dtype, device = meta(*args, **kwargs)
        impl_ = TensorImpl.empty(sizes, dtype, device)
        if impl_.storage.data is not None:
            impl(impl_.numpy_view(), *args, **kwargs)
        return Tensor(impl_)

    def inplace_variant(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        m = (inplace_meta or meta)(self, *args, **kwargs)
        if m.sizes != self._impl.sizes:
            raise RuntimeError(
                f"output with shape {list(self._impl.sizes)} doesn't match the broadcast shape "
                f"{list(m.sizes)}"
            )
        check_can_cast(m.dtype, self._impl.dtype)
        if not is_meta(m.device):
            impl(self._impl.numpy_view(), self, *args, **kwargs)
        return self

    def out_variant(*args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        m = meta(*args, **kwargs)
        check_can_cast(m.dtype, out._impl.dtype)
        resize_output(out, m.sizes)
        if not is_meta(m.device):
            impl(out._impl.numpy_view(), *args, **kwargs)
        return out

    variants = {"": functional, "_out": out_variant}
    if inplace:
        variants["_"] = inplace_variant
    register_variants(name, variants)


def forward_kernel(name: str, target: str) -> None:
    """Register kernel `name` as a call of the aten overload `target` with the same arguments (a
    CompositeImplicitAutograd alias, as clip is of clamp and det of linalg_det)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return aten_op(target)(*args, **kwargs)

    register_variants(name, {"": call})


def make_view(
    base: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int, dtype: dtype | None = None
) -> Tensor:
    """A tensor viewing `base`'s storage with other geometry (and, given `dtype`, as elements of
    that dtype): it shares the storage, the key set and the version counter, and copies nothing."""
    impl = base._impl
    return Tensor(
        TensorImpl(
            impl.storage,
            impl.dtype if dtype is None else dtype,
            sizes,
            strides,
            offset,
            key_set=impl.key_set,
            version_counter=impl.version_counter,
        )
    )


def complex_clamp() -> NotImplementedError:
    """PyTorch's error for clamping complex values (clamp, relu, hardtanh, mm-based cdist)."""
    return NotImplementedError("clamp is not supported for complex types")


def not_implemented(op: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype an operator has no kernel for (a NotImplementedError, which is
    a RuntimeError in Python as in PyTorch)."""
    return NotImplementedError(f"\"{op}\" not implemented for '{d.scalar_type_name}'")


def same_device(op: str, tensors: tuple[Tensor, ...]) -> Device:
    """The device all tensor arguments share (PyTorch refuses mixing devices)."""
    device = tensors[0]._impl.device
    for t in tensors[1:]:
        other = t._impl.device
        if other is not device and other.device_type is not device.device_type:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{device} and {other}! (when checking argument for {op})"
            )
    return device


INTERNAL_OVERLAP: Final = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP: Final = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


def is_non_overlapping_and_dense(impl: TensorImpl) -> bool:
    """Whether the elements fill a block of memory exactly once, in some dimension order
    (contiguous tensors, zero-size ones included, always do)."""
    if impl.is_contiguous():
        return True
    sizes, strides = impl.sizes, impl.strides
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    expected = 1
    for d in sorted(range(len(sizes)), key=lambda d: (sizes[d] < 2, strides[d])):
        if sizes[d] < 2:
            return True
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def has_internal_overlap(impl: TensorImpl) -> bool:
    """Whether some elements share memory (a stride 0 over a size > 1: an expanded tensor)."""
    if is_non_overlapping_and_dense(impl):
        return False
    return any(st == 0 and n > 1 for n, st in zip(impl.sizes, impl.strides, strict=True))


_UNSIGNED: Final[dict[int, np.dtype[Any]]] = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}
"""The unsigned integer dtype of each item size (the bit patterns select_bits works on)."""


def select_bits(target: npt.NDArray[Any], condition: npt.NDArray[Any], a: npt.NDArray[Any], b: Any) -> None:
    """`target[...] = where(condition, a, b)` for real dtypes, with `b` an array or None (zero:
    all bits clear) and a non-zero `condition` element counting as true, by integer arithmetic on
    the bit patterns: `a * condition`, or `b ^ ((a ^ b) * condition)`.  Exact for every value, NaN
    payloads and signed zeros included, where np.where branches per element and is several times
    slower on irregular masks (relu's backward has them).  The inputs broadcast to `target`, which
    may also be one of them (NumPy buffers overlapping operands)."""
    bits = _UNSIGNED[target.dtype.itemsize]
    keep = condition if condition.dtype == np.bool_ else condition.astype(np.bool_)
    if b is None:
        np.multiply(a.view(bits), keep, out=target.view(bits))
        return
    other = b.view(bits)
    np.bitwise_xor(np.multiply(np.bitwise_xor(a.view(bits), other), keep), other, out=target.view(bits))


def int_list(value: int | Sequence[int]) -> list[int]:
    """An `int[]` argument as a list (a single int stands for a list of one)."""
    return [value] if isinstance(value, int) else list(value)


# ---- dtype names, out= dtype checks and checked Scalar conversion --------------------------------

CPP_TYPE_NAMES: Final[dict[dtype, str]] = {
    bool_: "bool",
    uint8: "unsigned char",
    int8: "signed char",
    int16: "short int",
    int32: "int",
    int64: "long int",
    float16: "c10::Half",
    bfloat16: "c10::BFloat16",
    float32: "float",
    float64: "double",
    complex64: "c10::complex<float>",
    complex128: "c10::complex<double>",
}
"""The C++ type names PyTorch's messages print for dtypes (caffe2 `TypeMeta` names)."""

_C_TYPE_NAMES: Final[dict[dtype, str]] = {
    **CPP_TYPE_NAMES,
    uint8: "uint8_t",
    int8: "int8_t",
    int16: "int16_t",
    int64: "int64_t",
}
"""The type names of c10's overflow-checked Scalar conversions ("value cannot be converted to
type int8_t without overflow")."""


def out_dtype_message(expected: dtype, got: dtype) -> str:
    """PyTorch's refusal of an out= tensor of another dtype than the result's."""
    return (
        f"Expected out tensor to have dtype {CPP_TYPE_NAMES[expected]}, but got {CPP_TYPE_NAMES[got]} instead"
    )


def check_out_dtype(out: Tensor, expected: dtype) -> None:
    """Refuse an out= tensor whose dtype is not exactly `expected`, with PyTorch's message."""
    got = out._impl.dtype
    if got is not expected:
        raise RuntimeError(out_dtype_message(expected, got))


@functools.cache
def _limits(d: dtype) -> tuple[float, float]:
    """The lowest and highest finite values of `d` (of its real part); exact for integers."""
    base = d.to_real().numpy_dtype
    if d.is_floating_point or d.is_complex:
        info = numpy_finfo(base)
        return float(info.min), float(info.max)
    integral = np.iinfo(base)
    return integral.min, integral.max


def _overflows(value: Number, d: dtype) -> bool:
    """c10's `overflows<To, From>` for a Scalar of Python type `From` converted to `d`."""
    if isinstance(value, complex):
        if not d.is_complex and value.imag != 0:
            return True
        return _overflows(value.real, d) or _overflows(value.imag, d)
    if isinstance(value, bool):
        return False
    low, high = _limits(d)
    if isinstance(value, int):
        if d is uint8:  # negative integers may wrap around into an unsigned type, within one period
            return value > high or -value > high
        return value < low or value > high
    if d.is_floating_point or d.is_complex:
        return math.isfinite(value) and not low <= value <= high
    return math.isnan(value) or not low <= value <= high


def checked_scalar(value: Number, d: dtype) -> Any:
    """A Scalar as a NumPy scalar of `d`, refusing values `d` cannot hold (c10's checked_convert:
    "value cannot be converted to type int8_t without overflow").  Floats truncate towards zero,
    negative integers wrap into uint8, any non-zero value is True."""
    if d is bool_:
        return np.bool_(value != 0)
    if _overflows(value, d):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[d]} without overflow")
    if d.is_complex:
        return d.numpy_dtype.type(value)
    real = value.real if isinstance(value, complex) else value
    if d.is_floating_point:
        return d.numpy_dtype.type(real)
    return np.array(int(real), dtype=np.int64).astype(d.numpy_dtype)[()]
