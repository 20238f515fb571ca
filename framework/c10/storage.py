"""Allocators and ``StorageImpl``: the byte buffers tensors view.

A CPU buffer is a 1-D ``uint8`` NumPy array whose first byte is 64-byte aligned. Meta storages
have a size but no bytes (``data is None``).

How the CPU allocator stays cheap
---------------------------------
Allocating and then releasing a buffer costs about 2 us (``benchmarks/allocator.py``), against
about 6 us for the obvious ``np.empty`` + ctypes address + slice + weak reference + lock per
buffer. The pieces:

*Slabs.* Buffers are cut from *slabs*: instances of a private ``ndarray`` subclass (``_Slab``)
owning a block of raw bytes whose address is looked up (through ctypes, about 1 us) once, when the
slab is made, to find its first aligned byte (``start``). A request of up to ``_SMALL_MAX`` bytes
is rounded up to a size class (64, 128, ..., 4096 bytes); each class takes cells from its current
slab (64 KiB, or 64 cells if that is more) and makes a new slab when that one is used up. Such a
slab is never reused: it goes back to NumPy and ``malloc`` by reference counting once none of its
buffers is reachable, so memory stays flat in a loop that allocates and drops tensors. (Free lists
would not pay for small sizes: every allocation needs a new buffer object anyway, and a slab's
set-up is shared by 64 to 1024 cells.) The price is fragmentation: one long-lived buffer keeps its
whole slab alive, with the slab's dead weak references (below).

*Large buffers.* A larger request gets a slab of its own, just big enough. Making one costs about
3 us, so the slabs of large sizes that come back (a training step's activations and gradients) are
reused. From the second buffer of a size on, the allocator keeps that size's last few slabs in a
deque, oldest first, and a new buffer takes the oldest if no buffer uses it any more, which its
reference count tells: every live buffer holds its slab (as ``.base``), so a slab held only by the
allocating code (``_FREE_SLAB_REFS``) serves nobody, while one held by anything else, even by a
caller through ``.base``, is in use. A slab in use goes back to the front, whence the new slab made
instead pushes it out if the deque is full: a long-lived buffer's slab does not stay kept. Taking a
slab is a deque ``popleft``, atomic under the GIL, so two threads never take the same one. The
kept slabs are a bounded cache: at most ``_KEPT_SLABS`` (4) per size, only for sizes up to
``_KEPT_MAX`` (1 MiB), and at most ``_KEPT_BYTES`` (16 MiB) for all sizes together, reserved as
slabs times size when a size starts being kept (sizes arriving once that is used up keep
nothing). The allocator remembers at most ``_LARGE_SIZES`` (256) large sizes; a new one beyond
that makes it forget them all, with their kept slabs and reservations. Sizes that do not come back
keep nothing and cost what they always did, a new slab each. Kept slabs are not live bytes:
``live_bytes`` counts buffers.

*Buffers.* A buffer is ``np.frombuffer(slab, uint8, nbytes, offset)``: a plain ``ndarray`` whose
``.base`` is the slab. NumPy collapses a new view's ``.base`` down the chain of views to the first
array that owns its memory *or whose own base is of another type*. A slab is of another type, so
every view of a buffer (``data[i:j]``, ``data.view(dtype)``, the ``np.ndarray(shape, dtype,
buffer=data, ...)`` views ``TensorImpl`` builds, and views of those) keeps the *buffer* alive, not
just the slab. (A slab must own its bytes: were it a view of a plain array, buffers would collapse
to that array.) The buffer thus dies exactly when the last storage or view of its bytes dies, and a
weak reference to it reports that moment. Taking a cell is ``next()`` on a ``range`` iterator of
cell offsets, atomic under the GIL, so threads never share a cell. Two threads refilling a class at
once each make a slab; the loser's slab serves one buffer and dies with it.

*Lock-free counters.* Allocation takes no lock (but for the few that start keeping a size's slabs
or forget all sizes). It appends ``nbytes`` to an event log (a ``list``: ``append`` is atomic under
the GIL) and makes a weak reference to the buffer whose callback appends ``_Freed(-nbytes)`` to the
same log. The callback is made of C parts only, ``partial(next, map(log.append,
repeat(_Freed(-nbytes))))`` (each call pulls one item from the ``map``, which appends), and is made
once per size, so a release runs no Python bytecode. The log's order is a valid history of the live
byte count. A *drain* folds the log into the counters under a lock with C-level ``itertools`` (the
running sums give ``live_bytes``, their maximum ``peak_bytes``, the entries that are not ``_Freed``
count ``num_allocs``); it runs whenever a counter is read, and, while the log is long, when a small
size class gets a slab or a large buffer is allocated, which keeps the log short. A weak reference
must outlive its buffer for its callback to run: it is kept in its slab's ``refs`` list, and a slab
outlives its buffers. (A large slab's list holds only its current buffer's: when the slab is
reused, the previous buffer is dead and its callback has run, since NumPy clears an array's weak
references before it drops its base.)

A drain allocates a few objects the cyclic GC tracks, so a collection, and the finalizers it runs,
can start inside it. A finalizer that reads the counters then re-enters the (reentrant) lock on the
same thread; the drain it starts returns at once, so it sees the counters as they were before the
outer drain, which neither deadlocks nor corrupts the running totals.
"""

from __future__ import annotations

import abc
import ctypes
import mmap
import operator
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from itertools import accumulate, repeat
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
    "UntypedStorage",
    "get_cpu_allocator",
    "get_meta_allocator",
    "memory_stats",
]

ALIGNMENT: Final = 64
"""Byte alignment of every non-empty buffer the CPU allocator hands out."""

_CELL_SIZES: Final = (64, 128, 256, 512, 1024, 2048, 4096)
"""The size classes: a small request takes a cell of the smallest class that holds it."""

_SLAB_SIZES: Final = tuple(max(1 << 16, 64 * cell) for cell in _CELL_SIZES)
"""Usable bytes of a slab of each size class: 64 KiB, and at least 64 cells."""

_SMALL_MAX: Final = _CELL_SIZES[-1]
"""The largest request served from shared slabs; larger ones get a slab of their own."""

_SIZE_CLASS: Final = (0, *(max(0, (n - 1).bit_length() - 6) for n in range(1, _SMALL_MAX + 1)))
"""``_SIZE_CLASS[nbytes]``: index in ``_CELL_SIZES`` of the class serving ``nbytes``."""

_DRAIN_AT: Final = 4096
"""Log length beyond which a size class's new slab, or a large allocation, also drains the log."""

_LARGE_SIZES: Final = 256
"""How many large sizes an allocator remembers (release callback and kept slabs) at once."""

_KEPT_SLABS: Final = 4
"""How many slabs of one large size, at most, an allocator keeps for reuse."""

_KEPT_MAX: Final = 1 << 20
"""The largest size whose slabs are kept for reuse; larger slabs die with their buffer."""

_KEPT_BYTES: Final = 16 << 20
"""Bound on the bytes of all the slabs an allocator keeps for reuse, each kept size reserving its
most (``_KEPT_SLABS`` slabs, or fewer to fit)."""

_FREE_SLAB_REFS: Final = 2
"""``sys.getrefcount`` of a slab without live buffers, counted inside ``_take_slab``: the local
``slab`` and getrefcount's argument (each live buffer adds one: it is the buffer's ``.base``)."""

_U8: Final = np.dtype(np.uint8)
_getrefcount: Final = sys.getrefcount
_c_char_from_buffer: Final = ctypes.c_char.from_buffer
_addressof: Final = ctypes.addressof
_CPU: Final = Device(DeviceType.CPU)
_META: Final = Device(DeviceType.Meta)
_frombuffer: Final = np.frombuffer


def _check_nbytes(nbytes: int) -> None:
    if nbytes < 0:
        raise RuntimeError(f"Trying to allocate a negative number of bytes: {nbytes}")


class _Slab(np.ndarray[Any, np.dtype[np.uint8]]):
    """Raw bytes that CPU buffers are carved from, plus the weak references watching them.

    Being a distinct ``ndarray`` type stops NumPy's base collapsing at the buffers (see the module
    docstring). Never handed out: buffers are plain ``ndarray`` objects whose ``.base`` is a slab.
    """

    __slots__ = ("refs", "start")
    refs: list[weakref.ref[npt.NDArray[np.uint8]]]
    start: int
    """The offset of the slab's first 64-byte-aligned byte."""


class _Freed(int):
    """A log entry for a released buffer: minus its size (allocations log plain ints)."""

    __slots__ = ()


_Log = list[int]
_Callback = Callable[[weakref.ref[npt.NDArray[np.uint8]]], object]


def _new_slab(nbytes: int) -> _Slab:
    """A slab with room for ``nbytes`` aligned bytes from ``start`` on, and no weak references."""
    slab = np.ndarray.__new__(_Slab, (nbytes + ALIGNMENT - 1,), _U8)
    slab.refs = []
    slab.start = -_addressof(_c_char_from_buffer(slab.data)) % ALIGNMENT
    return slab


def _take_slab(kept: deque[_Slab], nbytes: int) -> _Slab:
    """The oldest slab of ``kept``, taken out of it, if no buffer uses it; else a new slab for
    ``nbytes`` bytes. A kept slab in use goes back to the front, whence the next ``append`` pushes
    it out if ``kept`` is full."""
    if kept:
        try:
            slab = kept.popleft()
        except IndexError:  # Another thread took the last one meanwhile.
            return _new_slab(nbytes)
        if _getrefcount(slab) == _FREE_SLAB_REFS:
            return slab
        kept.appendleft(slab)
    return _new_slab(nbytes)


def _release_callback(log: _Log, nbytes: int) -> _Callback:
    """A C-only weak-reference callback that appends ``_Freed(-nbytes)`` to ``log`` per call."""
    return partial(next, map(log.append, repeat(_Freed(-nbytes))))


class Allocator(abc.ABC):
    """Hands out byte buffers for one device; a buffer is released when it is garbage-collected."""

    __slots__ = ("device",)

    def __init__(self, device: Device) -> None:
        self.device: Final = device

    @abc.abstractmethod
    def allocate(self, nbytes: int) -> npt.NDArray[np.uint8] | None:
        """A fresh 1-D uint8 buffer of ``nbytes`` bytes, or ``None`` for devices without host data."""


_Large = tuple[deque[_Slab], _Callback]
"""A large size's slabs kept for reuse (oldest first) and its release callback."""


_UNKEPT: Final[deque[_Slab]] = deque(maxlen=0)
"""The kept slabs of a large size whose slabs are not kept: none (``append`` drops them)."""

_SEEN_ONCE: Final[deque[_Slab]] = deque(maxlen=0)
"""Stands for the kept slabs of a large size allocated only once so far: none. Its next
allocation gives it a deque of its own (``CPUAllocator._keep_slabs``)."""

_Keep = Callable[[weakref.ref[npt.NDArray[np.uint8]]], None]
_Current = tuple[_Slab, Iterator[int], _Keep]
"""A size class's current slab, the iterator of its unused cell offsets and its ``refs.append``."""

_NO_REFS: Final[list[weakref.ref[npt.NDArray[np.uint8]]]] = []
_EXHAUSTED: Final[_Current] = (np.ndarray.__new__(_Slab, (0,), _U8), iter(()), _NO_REFS.append)
"""The state of a size class without a slab yet: its first allocation makes one."""


class CPUAllocator(Allocator):
    """Allocates 64-byte-aligned host buffers and keeps thread-safe usage counters.

    See the module docstring for the design: slabs, size classes and a lock-free event log.
    """

    __slots__ = (
        "_callbacks",
        "_current",
        "_draining",
        "_kept_bytes",
        "_large",
        "_live_bytes",
        "_lock",
        "_log",
        "_log_append",
        "_num_allocs",
        "_peak_bytes",
    )

    def __init__(self) -> None:
        super().__init__(_CPU)
        self._current: list[_Current] = [_EXHAUSTED] * len(_CELL_SIZES)
        # +nbytes per allocation, then _Freed(-nbytes) when that buffer dies.
        self._log: _Log = []
        self._log_append = self._log.append
        # The release callback of each small size, made on first use.
        self._callbacks: list[_Callback | None] = [None] * (_SMALL_MAX + 1)
        # Recent large sizes (a cache, cleared when it grows too big) and the bytes reserved for
        # their kept slabs.
        self._large: dict[int, _Large] = {}
        self._kept_bytes = 0
        self._lock = threading.RLock()
        self._draining = False
        self._live_bytes = 0
        self._peak_bytes = 0
        self._num_allocs = 0

    def allocate(self, nbytes: int) -> npt.NDArray[np.uint8]:
        """Uninitialised aligned bytes; counted as live until the buffer is garbage-collected.

        A zero-byte request allocates nothing and is not counted (c10 hands out a null pointer).
        """
        if nbytes <= _SMALL_MAX:
            if nbytes <= 0:
                _check_nbytes(nbytes)
                return np.empty(0, dtype=np.uint8)
            k = _SIZE_CLASS[nbytes]
            slab, offsets, keep = self._current[k]
            offset = next(offsets, -1)
            if offset < 0:
                slab, offset, keep = self._refill(k)
            data = _frombuffer(slab, _U8, nbytes, offset)
            keep(weakref.ref(data, self._callbacks[nbytes] or self._new_callback(nbytes)))
        else:
            large = self._large.get(nbytes)
            kept, callback = self._new_large_size(nbytes) if large is None else large
            if kept is _SEEN_ONCE:
                kept = self._keep_slabs(nbytes, callback)
            slab = _take_slab(kept, nbytes)
            data = _frombuffer(slab, _U8, nbytes, slab.start)
            slab.refs = [weakref.ref(data, callback)]
            kept.append(slab)
            if len(self._log) > _DRAIN_AT:
                self._drain()
        self._log_append(nbytes)
        return data

    def _new_callback(self, nbytes: int) -> _Callback:
        callback = self._callbacks[nbytes] = _release_callback(self._log, nbytes)
        return callback

    def _new_large_size(self, nbytes: int) -> _Large:
        """Remember a large size allocated for the first time (forgetting all others first if
        there are too many): its release callback, and no kept slabs."""
        if len(self._large) >= _LARGE_SIZES:
            with self._lock:
                self._large.clear()
                self._kept_bytes = 0
        callback = _release_callback(self._log, nbytes)
        self._large[nbytes] = (_SEEN_ONCE, callback)
        return _UNKEPT, callback

    def _keep_slabs(self, nbytes: int, callback: _Callback) -> deque[_Slab]:
        """Keep slabs of a large size allocated before: up to ``_KEPT_SLABS`` of them, within what
        is left of ``_KEPT_BYTES``. (Two threads doing this at once for one size count it twice,
        which only errs on the safe side.)"""
        with self._lock:
            room = _KEPT_BYTES - self._kept_bytes
            keep = min(_KEPT_SLABS, int(room // nbytes)) if nbytes <= _KEPT_MAX else 0
            self._kept_bytes += keep * nbytes
            kept: deque[_Slab] = deque(maxlen=keep)
            self._large[nbytes] = (kept, callback)
        return kept

    def _refill(self, k: int) -> tuple[_Slab, int, _Keep]:
        """Give size class ``k`` a new slab and take its first cell."""
        slab = _new_slab(_SLAB_SIZES[k])
        start = slab.start
        offsets = iter(range(start, start + _SLAB_SIZES[k], _CELL_SIZES[k]))
        first = next(offsets)
        keep = slab.refs.append
        self._current[k] = (slab, offsets, keep)
        if len(self._log) > _DRAIN_AT:
            self._drain()
        return slab, first, keep

    def _drain(self) -> None:
        """Fold the pending log entries into the counters."""
        with self._lock:
            if self._draining:  # Re-entered from a finalizer run by a collection inside the drain.
                return
            self._draining = True
            try:
                log = self._log
                # Only drains remove entries, under the lock, and these two steps are atomic each:
                # entries appended in between stay for the next drain.
                pending = log[:]
                del log[: len(pending)]
                if pending:
                    live = self._live_bytes
                    peak = max(accumulate(pending, initial=live))
                    self._live_bytes = int(live + sum(pending))
                    self._num_allocs += len(pending) - operator.countOf(map(type, pending), _Freed)
                    if peak > self._peak_bytes:
                        self._peak_bytes = int(peak)
            finally:
                self._draining = False

    @property
    def live_bytes(self) -> int:
        """Bytes in buffers that are still reachable."""
        self._drain()
        return self._live_bytes

    @property
    def peak_bytes(self) -> int:
        """Highest ``live_bytes`` since creation or the last :meth:`reset_peak`."""
        self._drain()
        return self._peak_bytes

    @property
    def num_allocs(self) -> int:
        """Number of non-empty allocations so far."""
        self._drain()
        return self._num_allocs

    def reset_peak(self) -> None:
        """Restart peak tracking from the current live bytes."""
        with self._lock:
            self._drain()
            self._peak_bytes = self._live_bytes

    def stats(self) -> dict[str, int]:
        """A consistent snapshot: ``live_bytes``, ``peak_bytes`` and ``num_allocs``."""
        with self._lock:
            self._drain()
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

    def share_memory_(self) -> None:
        """Move the bytes into shared memory (an anonymous shared mapping, which processes forked
        afterwards share), in place: every tensor viewing this storage sees the new memory. A
        shared storage is not resizable (as PyTorch's); meta storages and shared ones stay as they are."""
        if self.data is None or self.is_shared():
            return
        mapping = mmap.mmap(-1, max(self.nbytes, 1), flags=mmap.MAP_SHARED)
        data = np.frombuffer(mapping, np.uint8, self.nbytes)
        data[:] = self.data
        self.data = data
        self.allocator = None
        self.resizable = False
        self._data_ptr = None

    def is_shared(self) -> bool:
        """Whether the bytes are in shared memory (after `share_memory_`)."""
        base = None if self.data is None else self.data.base
        return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)

    def copy(self) -> StorageImpl:
        """A new resizable storage on the same device holding a copy of the bytes (foreign memory
        is copied into the CPU allocator's)."""
        allocator = self.allocator or _cpu_allocator
        new = StorageImpl(self.nbytes, allocator)
        if new.data is not None and self.data is not None:
            new.data[:] = self.data
        return new

    def __repr__(self) -> str:
        return f"StorageImpl(nbytes={self.nbytes}, device={self.device!r}, resizable={self.resizable})"


class UntypedStorage:
    """The Python handle on a ``StorageImpl`` (PyTorch's ``torch.UntypedStorage``): the bytes a
    tensor views, as ``Tensor.untyped_storage()`` returns them. Handles made at different times
    share the same ``StorageImpl`` (compare ``data_ptr()`` to tell whether two tensors share
    memory). ``UntypedStorage(n)`` makes a new CPU storage of ``n`` bytes."""

    __slots__ = ("_impl",)

    def __init__(self, size: int | StorageImpl = 0) -> None:
        if isinstance(size, StorageImpl):
            self._impl = size
        else:
            _check_nbytes(size)
            self._impl = StorageImpl(size, _cpu_allocator)
            if self._impl.data is not None:
                self._impl.data[:] = 0

    @property
    def device(self) -> Device:
        return self._impl.device

    @property
    def is_cuda(self) -> bool:
        return False

    def nbytes(self) -> int:
        """The size in bytes."""
        return self._impl.nbytes

    def size(self) -> int:
        """The size in bytes (an untyped storage's elements are bytes)."""
        return self._impl.nbytes

    def __len__(self) -> int:
        return self._impl.nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte (0 on the meta device and for empty storages)."""
        return self._impl.data_ptr()

    def _bytes(self) -> npt.NDArray[np.uint8]:
        data = self._impl.data
        if data is None:
            raise NotImplementedError(f"Cannot access the data of a storage on device '{self.device}'")
        return data

    def __getitem__(self, index: int) -> int:
        return int(self._bytes()[index])

    def __setitem__(self, index: int, value: int) -> None:
        self._bytes()[index] = value

    def tolist(self) -> list[int]:
        """The bytes as a list of ints."""
        values: list[int] = self._bytes().tolist()
        return values

    def resize_(self, size: int) -> UntypedStorage:
        """Change the size in place, keeping the first bytes (not for memory shared with NumPy)."""
        self._impl.resize_(size)
        return self

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes into shared memory, in place (the tensors viewing them follow)."""
        self._impl.share_memory_()
        return self

    def is_shared(self) -> bool:
        return self._impl.is_shared()

    def __repr__(self) -> str:
        data = self._impl.data
        lines = [] if data is None else [f" {b}" for b in data.tolist()]
        lines.append(f"[framework.UntypedStorage(device={self.device}) of size {self._impl.nbytes}]")
        return "\n".join(lines)
