"""Kernels by name, for `native_functions.yaml` to refer to, and structured kernels.

A structured kernel is written once as a meta function (argument checks, output shape and dtype)
and an impl function (fills a NumPy output); from the pair come the functional kernel (allocate
the output), the in-place kernel (`self` is the output) and the out= kernel, each working on CPU
and, since on "meta" only the meta function runs, on the Meta backend too.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeVar

import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device, DeviceType, Layout
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dtypes import dtype
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import check_can_cast

KERNELS: Final[dict[str, Callable[..., Any]]] = {}
KERNEL_FACTORIES: Final[dict[str, Callable[[OperatorHandle], Callable[..., Any]]]] = {}
"""Kernels that are made per operator (they redispatch the operator they serve); they receive
the current DispatchKeySet first."""
_CPU: Final = Device("cpu")


F = TypeVar("F", bound=Callable[..., Any])


def kernel(name: str) -> Callable[[F], F]:
    """Register a kernel under `name` (the name `native_functions.yaml` uses)."""

    def register(fn: F) -> F:
        if name in KERNELS:
            raise ValueError(f"kernel name {name!r} registered twice")
        KERNELS[name] = fn
        return fn

    return register


class TensorMeta(NamedTuple):
    """What a meta function decides about one output (a tuple: built on every call)."""

    sizes: tuple[int, ...]
    dtype: dtype
    device: Device = _CPU


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


def aten() -> Any:
    import framework.ops

    return framework.ops.aten


def dispatched_empty(
    size: Sequence[int], dtype: dtype | None, layout: Layout | None, device: Device | str | None
) -> Tensor:
    result: Tensor = aten().empty.memory_format(size, dtype=dtype, layout=layout, device=device)
    return result


MetaFn = Callable[..., TensorMeta]
ImplFn = Callable[..., None]


def structured(name: str, meta: MetaFn, impl: ImplFn) -> None:
    """Register `name` (functional), `name_` (in-place) and `name_out` (out=) from one meta and
    one impl function.  `meta(*args, **kwargs)` takes the functional operator's arguments;
    `impl(out_array, *args, **kwargs)` writes the result into `out_array`."""

    def functional(*args: Any, **kwargs: Any) -> Tensor:
        sizes, dtype, device = meta(*args, **kwargs)
        impl_ = TensorImpl.empty(sizes, dtype, device)
        if impl_.storage.data is not None:
            impl(impl_.numpy_view(), *args, **kwargs)
        return Tensor(impl_)

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        m = meta(self, *args, **kwargs)
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

    for suffix, fn in (("", functional), ("_", inplace), ("_out", out_variant)):
        fn.__name__ = fn.__qualname__ = f"{name}{suffix}"
        kernel(f"{name}{suffix}")(fn)


def make_view(base: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Tensor:
    """A tensor viewing `base`'s storage with other geometry: it shares the storage, the key set
    and the version counter, and copies nothing."""
    impl = base._impl
    return Tensor(
        TensorImpl(
            impl.storage,
            impl.dtype,
            sizes,
            strides,
            offset,
            key_set=impl.key_set,
            version_counter=impl.version_counter,
        )
    )


def not_implemented(op: str, d: dtype) -> RuntimeError:
    """PyTorch's error for a dtype an operator has no kernel for."""
    return RuntimeError(f"\"{op}\" not implemented for '{d.scalar_type_name}'")


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
