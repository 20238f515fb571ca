"""`TypedStorage` (what `Tensor.storage()` returns; deprecated in PyTorch, which warns once) and
the legacy storage types `FloatStorage`, `LongStorage`, ... (`Tensor.storage_type()`).

A typed storage is an `UntypedStorage` (the tensor's bytes, shared) read as elements of one
dtype: indexing, `tolist`, `size()` count elements, and writes go to the tensor's memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._legacy_class import LegacyClass, legacy_classes
from framework.c10.device import Device
from framework.c10.dtypes import (
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from framework.c10.dtypes import dtype as _dtype
from framework.c10.storage import UntypedStorage

__all__ = ["LEGACY_STORAGES", "TypedStorage", "legacy_storage"]


def warn_typed_storage_removal() -> None:
    """PyTorch's deprecation warning for typed storages, given once per process (every time under
    `set_warn_always(True)`)."""
    from framework._tensor import warn_once

    warn_once(
        "TypedStorage",
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
        "only storage class. This should only matter to you if you are using storages directly.  To "
        "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
    )


class TypedStorage:
    """A storage of elements of `dtype`: `TypedStorage(size or sequence, dtype=..., device=...)`
    makes a new one, `TypedStorage(wrap_storage=untyped, dtype=...)` views existing bytes."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(
        self,
        data: int | Sequence[Any] = 0,
        *,
        dtype: _dtype | None = None,
        device: Device | str | None = None,
        wrap_storage: UntypedStorage | None = None,
        _internal: bool = False,
    ) -> None:
        if not _internal:
            warn_typed_storage_removal()
        self.dtype: _dtype = get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
            return
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"TypedStorage: only CPU storages can be made here, got device {device}")
        if isinstance(data, int):
            self._untyped_storage = UntypedStorage(data * self.dtype.itemsize)
            return
        values = np.asarray(data, dtype=self.dtype.numpy_dtype).reshape(-1)
        self._untyped_storage = UntypedStorage(values.size * self.dtype.itemsize)
        self._elements()[:] = values

    def _elements(self) -> npt.NDArray[Any]:
        return self._untyped_storage._bytes().view(self.dtype.numpy_dtype)

    @property
    def device(self) -> Device:
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return False

    def untyped(self) -> UntypedStorage:
        """The bytes, as an `UntypedStorage` sharing them."""
        return self._untyped_storage

    def size(self) -> int:
        """The number of elements."""
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        """Move the bytes into shared memory, in place (the tensors viewing them follow)."""
        self._untyped_storage.share_memory_()
        return self

    def _index(self, index: object) -> int:
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise RuntimeError(f"can't index a {type(self)} with {type(index)}")
        size = self.size()
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return int(index) % size

    def __getitem__(self, index: int) -> Any:
        return self._elements()[self._index(index)].item()

    def __setitem__(self, index: int, value: Any) -> None:
        self._elements()[self._index(index)] = value

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def tolist(self) -> list[Any]:
        values: list[Any] = self._elements().tolist()
        return values

    def fill_(self, value: Any) -> TypedStorage:
        self._elements()[:] = value
        return self

    def resize_(self, size: int) -> None:
        """Change the number of elements in place, keeping the first ones."""
        self._untyped_storage.resize_(size * self.dtype.itemsize)

    def __repr__(self) -> str:
        values = "\n ".join(str(v) for v in self.tolist())
        return (
            f" {values}\n[framework.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
            f"size {self.size()}]"
        )


class _LegacyStorageType(LegacyClass):
    """The metaclass of the legacy storage types: calling one makes a `TypedStorage` of its
    dtype; `isinstance` checks a storage's dtype."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, TypedStorage) and instance.dtype is cls.dtype

    def __call__(cls, data: int | Sequence[Any] = 0, *, device: Device | str | None = None) -> TypedStorage:
        return TypedStorage(data, dtype=cls.dtype, device=device)


LEGACY_STORAGES: Final = legacy_classes(
    _LegacyStorageType,
    "Storage",
    (uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128, bool_),
)
"""The legacy storage types by name: `FloatStorage`, `LongStorage`, ..."""


def legacy_storage(d: _dtype) -> _LegacyStorageType:
    """The legacy storage type of dtype `d` (`Tensor.storage_type()`)."""
    return LEGACY_STORAGES[f"{d.scalar_type_name}Storage"]
