"""`TensorImpl`: the data of a tensor, as the dispatcher and kernels see it.

A TensorImpl is a strided view (sizes, strides, storage offset, all in elements) of a
`StorageImpl`, with a dtype, a device, the dispatch key set its device implies, a version counter
shared with every view of the same data, and a slot for autograd metadata.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework.c10.autograd_state import is_inference_mode_enabled
from framework.c10.device import Device, DeviceType
from framework.c10.dispatch_key import (
    DispatchKey,
    DispatchKeySet,
    autocast_keys_for_backend,
    autograd_key_for_backend,
)
from framework.c10.dtypes import dtype
from framework.c10.storage import Allocator, StorageImpl, get_cpu_allocator, get_meta_allocator

_new_object: Final = object.__new__
_ndarray: Final = np.ndarray

_BACKEND_OF_DEVICE: Final[dict[DeviceType, DispatchKey]] = {
    DeviceType.CPU: DispatchKey.CPU,
    DeviceType.Meta: DispatchKey.Meta,
    DeviceType.PrivateUse1: DispatchKey.PrivateUse1,
}


CONJ_BIT: Final = 1 << DispatchKey.Conjugate
NEG_BIT: Final = 1 << DispatchKey.Negative
MATH_BITS: Final = CONJ_BIT | NEG_BIT
"""The key-set bits of lazy conjugation and negation (`x.conj()`, `x.conj().imag`)."""


def apply_math_bits(values: npt.NDArray[Any], bits: int) -> npt.NDArray[Any]:
    """`values` conjugated if `bits` has the Conjugate bit, negated if it has the Negative bit
    (a new array then, `values` itself otherwise)."""
    if bits & CONJ_BIT and values.dtype.kind == "c":
        values = np.conjugate(values)
    if bits & NEG_BIT:
        values = np.negative(values)
    return values


def backend_key_for_device(device: Device) -> DispatchKey:
    """The backend dispatch key of tensors on `device`."""
    return _BACKEND_OF_DEVICE[device.device_type]


_KEY_SETS: Final[dict[DeviceType, DispatchKeySet]] = {
    device_type: DispatchKeySet((backend, DispatchKey.ADInplaceOrView, autograd_key_for_backend(backend)))
    | autocast_keys_for_backend(backend)
    for device_type, backend in _BACKEND_OF_DEVICE.items()
}


_INFERENCE_KEY_SETS: Final[dict[DeviceType, DispatchKeySet]] = {
    device_type: DispatchKeySet(backend) | autocast_keys_for_backend(backend)
    for device_type, backend in _BACKEND_OF_DEVICE.items()
}


_EMPTY_SETUP: Final[dict[int, tuple[Allocator, DispatchKeySet, DispatchKeySet]]] = {
    device_type._value_: (allocator, _KEY_SETS[device_type], _INFERENCE_KEY_SETS[device_type])
    for device_type, allocator in (
        (DeviceType.CPU, get_cpu_allocator()),
        (DeviceType.Meta, get_meta_allocator()),
    )
}
"""What `TensorImpl.empty` needs per device type, found with one lookup: the allocator, then the
key sets of a new tensor outside and inside inference mode.  Keyed by the device type's code: an
int hashes in C, an enum member's hash is a Python call."""


def key_set_for_device(device: Device) -> DispatchKeySet:
    """A new tensor's key set on `device`: its backend, ADInplaceOrView, the backend's autograd key
    and its autocast key if it has one (as PyTorch's); in inference mode without ADInplaceOrView
    and autograd (an inference tensor never enters autograd, and its versions and views are not
    tracked)."""
    return (_INFERENCE_KEY_SETS if is_inference_mode_enabled() else _KEY_SETS)[device.device_type]


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    acc = 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def contiguous_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides (in elements) for `sizes` (cached: every new tensor asks)."""
    return _contiguous_strides(tuple(sizes))


def _check_sizes(sizes: tuple[int, ...]) -> None:
    """Refuse a negative size, as PyTorch does when it makes or resizes a tensor."""
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")


_Layout = tuple[tuple[int, ...], int]

_LAYOUTS: Final[dict[tuple[int, ...], _Layout]] = {}
"""The layouts `TensorImpl.empty` has computed, by sizes (cleared when it grows too big)."""

_MAX_LAYOUTS: Final = 4096


def _empty_layout(sizes: tuple[int, ...]) -> _Layout:
    """The contiguous strides and the element count of a new tensor of `sizes`, after checking
    them; remembered in `_LAYOUTS`, which `TensorImpl.empty` reads first (a plain dict lookup
    costs less than an `lru_cache` call; sizes that are refused are not remembered)."""
    _check_sizes(sizes)
    if len(_LAYOUTS) >= _MAX_LAYOUTS:
        _LAYOUTS.clear()
    layout = _LAYOUTS[sizes] = (_contiguous_strides(sizes), math.prod(sizes))
    return layout


class VersionCounter:
    """Counts in-place modifications; shared by a tensor and all its views."""

    __slots__ = ("version",)

    def __init__(self, version: int = 0) -> None:
        self.version = version

    def bump(self) -> None:
        self.version += 1


class TensorImpl:
    """Sizes, strides and offset over a storage, plus dtype, device, keys, version, autograd slot."""

    __slots__ = (
        "_np_data",
        "_np_view",
        "autograd_meta",
        "device",
        "dtype",
        "key_set",
        "sizes",
        "storage",
        "storage_offset",
        "strides",
        "version_counter",
        "wrapped_number",
    )

    def __init__(
        self,
        storage: StorageImpl,
        dtype: dtype,
        sizes: Sequence[int],
        strides: Sequence[int] | None = None,
        storage_offset: int = 0,
        key_set: DispatchKeySet | None = None,
        version_counter: VersionCounter | None = None,
    ) -> None:
        self.storage = storage
        self.dtype = dtype
        self.device: Device = storage.device
        self.sizes: tuple[int, ...] = tuple(sizes)
        self.strides: tuple[int, ...] = contiguous_strides(self.sizes) if strides is None else tuple(strides)
        if len(self.strides) != len(self.sizes):
            raise ValueError(
                f"TensorImpl: sizes {list(self.sizes)} and strides {list(self.strides)} must have "
                "the same length"
            )
        self.storage_offset = storage_offset
        self.key_set = key_set_for_device(self.device) if key_set is None else key_set
        self.version_counter = VersionCounter() if version_counter is None else version_counter
        self.autograd_meta: object | None = None
        self._np_view: npt.NDArray[Any] | None = None
        self._np_data: npt.NDArray[np.uint8] | None = None
        self.wrapped_number = False
        """A zero-dim tensor made from a Python number: type promotion ranks it as that number."""

    @classmethod
    def empty(cls, sizes: Sequence[int], dtype: dtype, device: Device) -> TensorImpl:
        """A new contiguous tensor of `sizes` with fresh (uninitialised) storage on `device`.

        Every operator output is made here, so the fields are set directly (no validation beyond
        the sizes, nothing computed twice), and the NumPy view of the elements that the kernel
        writes through is made at once, as `numpy_view` would make it."""
        sizes = tuple(sizes)
        # Subscripts, not `dict.get`: they cost a third as much.
        try:
            strides, numel = _LAYOUTS[sizes]
        except KeyError:
            strides, numel = _empty_layout(sizes)
        try:
            allocator, key_set, inference_key_set = _EMPTY_SETUP[device.device_type._value_]
        except KeyError:
            raise RuntimeError(f"TensorImpl.empty: no allocator for device '{device}'") from None
        self = _new_object(cls)
        self.storage = storage = StorageImpl(numel * dtype.itemsize, allocator)
        self.dtype = dtype
        self.device = allocator.device
        self.sizes = sizes
        self.strides = strides
        self.storage_offset = 0
        self.key_set = inference_key_set if is_inference_mode_enabled() else key_set
        self.version_counter = VersionCounter()
        self.autograd_meta = None
        self._np_data = data = storage.data
        self._np_view = None if data is None else _ndarray(sizes, dtype.numpy_dtype, data)
        self.wrapped_number = False
        return self

    @classmethod
    def from_numpy(cls, array: npt.NDArray[Any], dtype: dtype) -> TensorImpl:
        """A CPU tensor sharing the memory of `array` (strides converted from bytes to elements)."""
        itemsize = array.dtype.itemsize
        if any(st < 0 for st in array.strides):
            raise ValueError(
                "At least one stride in the given numpy array is negative, and tensors with "
                "negative strides are not currently supported. (You can probably work around this "
                "by making a copy of your array  with array.copy().) "
            )
        if any(st % itemsize for st in array.strides):
            raise ValueError(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy "
                f"array to reallocate the memory. (strides {array.strides}, element size {itemsize})"
            )
        strides = tuple(st // itemsize for st in array.strides)
        extent = (
            0
            if array.size == 0
            else 1 + sum((n - 1) * st for n, st in zip(array.shape, strides, strict=True))
        )
        flat = np.lib.stride_tricks.as_strided(array, shape=(extent,), strides=(itemsize,))
        return cls(StorageImpl.from_buffer(flat), dtype, array.shape, strides)

    def numel(self) -> int:
        return math.prod(self.sizes)

    def dim(self) -> int:
        return len(self.sizes)

    def is_contiguous(self) -> bool:
        """Row-major contiguity, ignoring the strides of size-1 dimensions (as PyTorch does)."""
        if 0 in self.sizes:
            return True
        expected = 1
        for size, stride in zip(reversed(self.sizes), reversed(self.strides), strict=True):
            if size != 1:
                if stride != expected:
                    return False
                expected *= size
        return True

    def set_geometry(self, sizes: Sequence[int], strides: Sequence[int], storage_offset: int) -> None:
        """Change sizes, strides and offset in place (the only way to: it drops the cached view)."""
        self.sizes = tuple(sizes)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset
        self._np_view = None

    def resize_(self, sizes: Sequence[int]) -> None:
        """Make this tensor contiguous of `sizes`, growing the storage if it is too small."""
        sizes = tuple(sizes)
        _check_sizes(sizes)
        needed = (self.storage_offset + math.prod(sizes)) * self.dtype.itemsize
        if needed > self.storage.nbytes:
            self.storage.resize_(needed)
        self.set_geometry(sizes, contiguous_strides(sizes), self.storage_offset)

    def numpy_view(self) -> npt.NDArray[Any]:
        """A NumPy array viewing this tensor's elements in its storage (no copy; cached)."""
        data = self.storage.data
        view = self._np_view
        if view is not None and self._np_data is data:
            return view
        if data is None:
            raise RuntimeError(
                f"Cannot access data of a tensor on device '{self.device}': it has no storage data"
            )
        if self.storage_offset == 0 and self.strides == _contiguous_strides(self.sizes):
            view = _ndarray(self.sizes, self.dtype.numpy_dtype, data)
        else:
            itemsize = self.dtype.itemsize
            view = _ndarray(
                self.sizes,
                self.dtype.numpy_dtype,
                data,
                self.storage_offset * itemsize if self.numel() else 0,
                tuple(st * itemsize for st in self.strides),
            )
        self._np_view = view
        self._np_data = data
        return view

    def logical_values(self) -> npt.NDArray[Any]:
        """The elements as the tensor's readers see them: its NumPy view, conjugated and/or negated
        (a copy) when the key set has the Conjugate or Negative bit."""
        view = self.numpy_view()
        bits = self.key_set.repr & MATH_BITS
        return apply_math_bits(view, bits) if bits else view

    def __repr__(self) -> str:
        return (
            f"TensorImpl(sizes={list(self.sizes)}, strides={list(self.strides)}, "
            f"storage_offset={self.storage_offset}, dtype={self.dtype}, device={self.device}, "
            f"key_set={self.key_set})"
        )
