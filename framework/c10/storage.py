"""Allocators and ``StorageImpl``: the byte buffers tensors view.

A CPU buffer is a 1-D ``uint8`` NumPy array whose first byte is 64-byte aligned. It is a view
into a slightly larger raw array; the CPU allocator's live-byte count drops when that raw array
is garbage-collected, i.e. once no storage or NumPy view refers to any part of it any more.
Meta storages have a size but no bytes (``data is None``).
"""

from __future__ import annotations

import abc
import ctypes
import threading
import weakref
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework.c10.device import Device, DeviceType

__all__ = [
    "ALIGNMENT",
    "Allocator",
    "CPUAllocator",
    "MetaAllocator",
    "StorageImpl",
    "get_cpu_allocator",
    "get_meta_allocator",
    "memory_stats",
]

ALIGNMENT: Final = 64
"""Byte alignment of every non-empty buffer the CPU allocator hands out."""

_CPU: Final = Device(DeviceType.CPU)
_META: Final = Device(DeviceType.Meta)


def _check_nbytes(nbytes: int) -> None:
    if nbytes < 0:
        raise RuntimeError(f"Trying to allocate a negative number of bytes: {nbytes}")


class Allocator(abc.ABC):
    """Hands out byte buffers for one device; a buffer is released when it is garbage-collected."""

    __slots__ = ("device",)

    def __init__(self, device: Device) -> None:
        self.device: Final = device

    @abc.abstractmethod
    def allocate(self, nbytes: int) -> npt.NDArray[np.uint8] | None:
        """A fresh 1-D uint8 buffer of ``nbytes`` bytes, or ``None`` for devices without host data."""


class CPUAllocator(Allocator):
    """Allocates 64-byte-aligned host buffers and keeps thread-safe usage counters."""

    __slots__ = ("_blocks", "_live_bytes", "_lock", "_num_allocs", "_peak_bytes")

    def __init__(self) -> None:
        super().__init__(_CPU)
        self._lock = threading.RLock()
        self._live_bytes = 0
        self._peak_bytes = 0
        self._num_allocs = 0
        # id(weak reference to a raw block) -> (that weak reference, bytes handed out from it).
        self._blocks: dict[int, tuple[weakref.ref[npt.NDArray[np.uint8]], int]] = {}

    def allocate(self, nbytes: int) -> npt.NDArray[np.uint8]:
        """Uninitialised aligned bytes; counted as live until the buffer is garbage-collected.

        A zero-byte request allocates nothing and is not counted (c10 hands out a null pointer).
        """
        _check_nbytes(nbytes)
        if nbytes == 0:
            return np.empty(0, dtype=np.uint8)
        raw = np.empty(nbytes + ALIGNMENT - 1, dtype=np.uint8)
        offset = -ctypes.addressof(ctypes.c_char.from_buffer(raw.data)) % ALIGNMENT
        buffer = raw[offset : offset + nbytes]
        block = weakref.ref(raw, self._release)
        entry = (block, nbytes)
        # Nothing inside the lock allocates GC-tracked objects, so a collection (which may run
        # _release on this thread) cannot start there; the lock is reentrant regardless.
        with self._lock:
            self._blocks[id(block)] = entry
            self._live_bytes += nbytes
            self._num_allocs += 1
            if self._live_bytes > self._peak_bytes:
                self._peak_bytes = self._live_bytes
        return buffer

    def _release(self, block: weakref.ref[npt.NDArray[np.uint8]]) -> None:
        with self._lock:
            _, nbytes = self._blocks.pop(id(block))
            self._live_bytes -= nbytes

    @property
    def live_bytes(self) -> int:
        """Bytes in buffers that are still reachable."""
        return self._live_bytes

    @property
    def peak_bytes(self) -> int:
        """Highest ``live_bytes`` since creation or the last :meth:`reset_peak`."""
        return self._peak_bytes

    @property
    def num_allocs(self) -> int:
        """Number of non-empty allocations so far."""
        return self._num_allocs

    def reset_peak(self) -> None:
        """Restart peak tracking from the current live bytes."""
        with self._lock:
            self._peak_bytes = self._live_bytes

    def stats(self) -> dict[str, int]:
        """A consistent snapshot: ``live_bytes``, ``peak_bytes`` and ``num_allocs``."""
        with self._lock:
            return {
                "live_bytes": self._live_bytes,
                "peak_bytes": self._peak_bytes,
                "num_allocs": self._num_allocs,
            }


class MetaAllocator(Allocator):
    """The meta device's allocator: sizes only, no bytes, no accounting."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_META)

    def allocate(self, nbytes: int) -> None:
        """Validates ``nbytes`` and returns ``None``: meta storages hold no data."""
        _check_nbytes(nbytes)


_cpu_allocator: Final = CPUAllocator()
_meta_allocator: Final = MetaAllocator()


def get_cpu_allocator() -> CPUAllocator:
    """The process-wide CPU allocator."""
    return _cpu_allocator


def get_meta_allocator() -> MetaAllocator:
    """The process-wide meta allocator."""
    return _meta_allocator


def memory_stats() -> dict[str, int]:
    """The CPU allocator's counters: ``live_bytes``, ``peak_bytes`` and ``num_allocs``."""
    return _cpu_allocator.stats()


class StorageImpl:
    """A device's byte buffer of ``nbytes`` bytes, shared by the tensors that view it.

    ``data`` is a 1-D uint8 array of exactly ``nbytes`` bytes, or ``None`` on the meta device.
    ``allocator`` is ``None`` for storages wrapping foreign memory (:meth:`from_buffer`).
    """

    __slots__ = ("__weakref__", "_data_ptr", "allocator", "data", "device", "nbytes", "resizable")

    def __init__(self, nbytes: int, allocator: Allocator, resizable: bool = True) -> None:
        self.allocator: Allocator | None = allocator
        self.device: Device = allocator.device
        self.resizable: bool = resizable
        self.nbytes: int = nbytes
        self.data: npt.NDArray[np.uint8] | None = allocator.allocate(nbytes)
        self._data_ptr: int | None = None

    @classmethod
    def from_buffer(cls, array: npt.NDArray[Any]) -> StorageImpl:
        """A CPU storage sharing the memory of a contiguous NumPy array (C or Fortran order).

        The storage keeps ``array``'s memory alive, is not resizable and is not counted by the
        CPU allocator, which does not own the memory.
        """
        if array.dtype.hasobject:
            raise TypeError("StorageImpl.from_buffer: object arrays have no byte representation")
        if array.flags.c_contiguous:
            flat = array.reshape(-1)
        elif array.flags.f_contiguous:
            flat = array.T.reshape(-1)
        else:
            raise ValueError("StorageImpl.from_buffer: the array's memory must be contiguous")
        data = flat.view(np.uint8)
        storage = cls.__new__(cls)
        storage.allocator = None
        storage.device = _CPU
        storage.resizable = False
        storage.nbytes = data.size
        storage.data = data
        storage._data_ptr = None
        return storage

    def data_ptr(self) -> int:
        """The address of the first byte (0 on the meta device and for empty storages)."""
        if self._data_ptr is None:
            self._data_ptr = 0 if self.data is None or self.nbytes == 0 else self.data.ctypes.data
        return self._data_ptr

    def resize_(self, nbytes: int) -> None:
        """Change the size in place, keeping the first ``min(old, new)`` bytes."""
        if not self.resizable or self.allocator is None:
            raise RuntimeError("Trying to resize storage that is not resizable")
        new_data = self.allocator.allocate(nbytes)
        old_data = self.data
        if new_data is not None and old_data is not None:
            kept = min(nbytes, self.nbytes)
            new_data[:kept] = old_data[:kept]
        self.data = new_data
        self.nbytes = nbytes
        self._data_ptr = None

    def __repr__(self) -> str:
        return f"StorageImpl(nbytes={self.nbytes}, device={self.device!r}, resizable={self.resizable})"
