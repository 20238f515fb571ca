from __future__ import annotations

import gc
import itertools
import os
import random
import sys
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from framework.c10.device import Device
from framework.c10.storage import (
    _KEPT_BYTES,
    _KEPT_MAX,
    _KEPT_SLABS,
    _LARGE_SIZES,
    ALIGNMENT,
    Allocator,
    CPUAllocator,
    MetaAllocator,
    StorageImpl,
    get_cpu_allocator,
    get_meta_allocator,
    memory_stats,
)

NOT_RESIZABLE = "^Trying to resize storage that is not resizable$"


@pytest.fixture
def allocator() -> CPUAllocator:
    """A private allocator, so counts are not disturbed by buffers other tests leave behind."""
    return CPUAllocator()


@pytest.fixture
def fast_thread_switching() -> Iterator[None]:
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(saved)


def test_allocator_is_abstract() -> None:
    with pytest.raises(TypeError):
        Allocator(Device("cpu"))  # type: ignore[abstract]


def test_live_bytes_rise_and_fall_and_peak_is_kept(allocator: CPUAllocator) -> None:
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 0, "num_allocs": 0}
    a = StorageImpl(1000, allocator)
    b = StorageImpl(24, allocator)
    assert allocator.stats() == {"live_bytes": 1024, "peak_bytes": 1024, "num_allocs": 2}
    del a
    gc.collect()
    assert (allocator.live_bytes, allocator.peak_bytes) == (24, 1024)
    del b
    gc.collect()
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 1024, "num_allocs": 2}
    c = allocator.allocate(10)
    assert (allocator.live_bytes, allocator.peak_bytes) == (10, 1024)
    allocator.reset_peak()
    assert allocator.peak_bytes == 10
    del c
    gc.collect()
    assert allocator.live_bytes == 0


def test_views_keep_the_buffer_alive(allocator: CPUAllocator) -> None:
    storage = StorageImpl(256, allocator)
    assert storage.data is not None
    view = storage.data[100:200].view(np.int32)
    del storage
    gc.collect()
    assert allocator.live_bytes == 256
    view[:] = 7
    del view
    gc.collect()
    assert allocator.live_bytes == 0


def test_storage_in_reference_cycle_is_released_by_gc(allocator: CPUAllocator) -> None:
    storage = StorageImpl(64, allocator)
    cycle: list[object] = [storage]
    cycle.append(cycle)
    del storage, cycle
    gc.collect()
    assert allocator.live_bytes == 0


def test_global_allocator_and_memory_stats() -> None:
    assert get_cpu_allocator() is get_cpu_allocator()
    gc.collect()
    before = memory_stats()
    assert set(before) == {"live_bytes", "peak_bytes", "num_allocs"}
    storage = StorageImpl(4096, get_cpu_allocator())
    during = memory_stats()
    assert during["live_bytes"] == before["live_bytes"] + 4096
    assert during["num_allocs"] == before["num_allocs"] + 1
    assert during["peak_bytes"] >= during["live_bytes"]
    del storage
    gc.collect()
    after = memory_stats()
    assert after["live_bytes"] == before["live_bytes"]
    assert after["peak_bytes"] >= before["live_bytes"] + 4096


def test_empty_allocation_is_not_counted(allocator: CPUAllocator) -> None:
    buffer = allocator.allocate(0)
    assert buffer.dtype == np.uint8 and buffer.shape == (0,)
    storage = StorageImpl(0, allocator)
    assert storage.data_ptr() == 0
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 0, "num_allocs": 0}


@pytest.mark.parametrize("nbytes", [1, 3, 63, 64, 65, 1000, 1 << 20])
def test_alignment_and_size(nbytes: int, allocator: CPUAllocator) -> None:
    buffers = [allocator.allocate(nbytes) for _ in range(8)]
    for buffer in buffers:
        assert buffer.dtype == np.uint8 and buffer.shape == (nbytes,)
        assert buffer.ctypes.data % ALIGNMENT == 0
    storage = StorageImpl(nbytes, allocator)
    assert storage.nbytes == nbytes
    assert storage.data_ptr() % 64 == 0
    assert storage.data is not None and storage.data_ptr() == storage.data.ctypes.data


def test_negative_size_is_rejected(allocator: CPUAllocator) -> None:
    with pytest.raises(RuntimeError, match="negative"):
        StorageImpl(-1, allocator)
    with pytest.raises(RuntimeError, match="negative"):
        get_meta_allocator().allocate(-1)
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 0, "num_allocs": 0}


def test_resize_keeps_prefix_and_updates_accounting(allocator: CPUAllocator) -> None:
    storage = StorageImpl(16, allocator)
    assert storage.data is not None and storage.device == Device("cpu")
    storage.data[:] = np.arange(16, dtype=np.uint8)
    storage.resize_(40)
    assert storage.nbytes == 40 and storage.data.shape == (40,)
    assert storage.data[:16].tolist() == list(range(16))
    assert storage.data_ptr() % ALIGNMENT == 0
    gc.collect()
    assert allocator.live_bytes == 40
    assert allocator.peak_bytes == 56
    storage.resize_(5)
    assert storage.data.tolist() == [0, 1, 2, 3, 4]
    assert storage.data_ptr() == storage.data.ctypes.data
    gc.collect()
    assert allocator.live_bytes == 5
    storage.resize_(0)
    assert storage.nbytes == 0 and storage.data.shape == (0,) and storage.data_ptr() == 0
    gc.collect()
    assert allocator.live_bytes == 0


def test_not_resizable(allocator: CPUAllocator) -> None:
    storage = StorageImpl(8, allocator, resizable=False)
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        storage.resize_(16)
    assert storage.nbytes == 8


def test_meta_storage_has_no_data_and_is_not_counted() -> None:
    gc.collect()
    before = memory_stats()
    storage = StorageImpl(1 << 40, get_meta_allocator())
    assert isinstance(get_meta_allocator(), MetaAllocator)
    assert storage.data is None
    assert storage.data_ptr() == 0
    assert storage.device == Device("meta")
    storage.resize_(12)
    assert storage.nbytes == 12 and storage.data is None
    assert memory_stats()["live_bytes"] == before["live_bytes"]
    assert memory_stats()["num_allocs"] == before["num_allocs"]


def test_from_buffer_shares_memory_and_is_not_counted() -> None:
    gc.collect()
    before = memory_stats()
    array = np.arange(6, dtype=np.float64).reshape(2, 3)
    storage = StorageImpl.from_buffer(array)
    assert memory_stats() == before
    assert storage.nbytes == 48
    assert storage.device == Device("cpu")
    assert storage.allocator is None and not storage.resizable
    assert storage.data_ptr() == array.ctypes.data
    assert storage.data is not None
    storage.data.view(np.float64)[4] = 40.0
    assert array[1, 1] == 40.0
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        storage.resize_(100)


def test_from_buffer_keeps_array_alive() -> None:
    array = np.arange(4, dtype=np.int32)
    alive = weakref.ref(array)
    storage = StorageImpl.from_buffer(array)
    del array
    gc.collect()
    assert alive() is not None
    assert storage.data is not None
    assert storage.data.view(np.int32).tolist() == [0, 1, 2, 3]
    del storage
    gc.collect()
    assert alive() is None


def test_from_buffer_layouts() -> None:
    fortran = np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3))
    storage = StorageImpl.from_buffer(fortran)
    assert storage.nbytes == 12 and storage.data_ptr() == fortran.ctypes.data
    assert StorageImpl.from_buffer(np.array(1.5, dtype=np.float32)).nbytes == 4
    assert StorageImpl.from_buffer(np.zeros((0, 3))).nbytes == 0
    with pytest.raises(ValueError, match="contiguous"):
        StorageImpl.from_buffer(np.zeros((4, 4))[:, ::2])
    with pytest.raises(TypeError, match="object"):
        StorageImpl.from_buffer(np.array([None, 1], dtype=object))


def test_concurrent_allocation_keeps_counters_consistent(
    allocator: CPUAllocator, fast_thread_switching: None
) -> None:
    threads_count, rounds = 8, 300
    errors: list[BaseException] = []
    per_thread_bytes = [0] * threads_count
    start = threading.Barrier(threads_count)

    def worker(slot: int) -> None:
        rng = random.Random(slot)
        kept: list[npt.NDArray[np.uint8]] = []
        try:
            start.wait()
            for _ in range(rounds):
                nbytes = rng.randrange(1, 512)
                per_thread_bytes[slot] += nbytes
                buffer = allocator.allocate(nbytes)
                if buffer.ctypes.data % ALIGNMENT:
                    raise AssertionError("misaligned buffer")
                if rng.random() < 0.5:
                    kept.append(buffer)
                if len(kept) > 20:
                    kept.pop(rng.randrange(len(kept)))
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=worker, args=(slot,)) for slot in range(threads_count)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    gc.collect()
    assert errors == []
    assert allocator.num_allocs == threads_count * rounds
    assert allocator.live_bytes == 0
    assert 0 < allocator.peak_bytes <= sum(per_thread_bytes)


# --- The slab allocator (see the docstring of framework.c10.storage) --------------------------------

CELLS_PER_SLAB_16 = 1 << 10  # A 16-byte request takes a 64-byte cell of a 64 KiB slab.


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _address(buffer: npt.NDArray[np.uint8]) -> int:
    return int(buffer.ctypes.data)


@pytest.mark.parametrize("nbytes", [*range(1, 200), 255, 256, 257, *range(4000, 4200), 8191, 100_000])
def test_every_size_is_aligned_and_exact(nbytes: int, allocator: CPUAllocator) -> None:
    buffers = [allocator.allocate(nbytes) for _ in range(3)]
    for buffer in buffers:
        assert type(buffer) is np.ndarray
        assert buffer.dtype == np.uint8 and buffer.shape == (nbytes,) and buffer.nbytes == nbytes
        assert buffer.flags.c_contiguous and buffer.flags.writeable
        assert _address(buffer) % ALIGNMENT == 0
    assert allocator.live_bytes == 3 * nbytes


def test_buffers_never_overlap(allocator: CPUAllocator) -> None:
    rng = random.Random(0)
    sizes = [rng.choice([1, 7, 64, 65, 500, 1024, 3000, 4096, 4097, 20_000]) for _ in range(3000)]
    buffers = [allocator.allocate(n) for n in sizes]
    spans = sorted((_address(b), _address(b) + b.nbytes) for b in buffers)
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))
    for i, buffer in enumerate(buffers):
        buffer[:] = i % 251
    assert all((buffer == i % 251).all() for i, buffer in enumerate(buffers))
    assert allocator.stats() == {"live_bytes": sum(sizes), "peak_bytes": sum(sizes), "num_allocs": 3000}


def test_small_buffers_share_a_slab_that_dies_with_its_last_buffer(allocator: CPUAllocator) -> None:
    first_slab = [allocator.allocate(16) for _ in range(CELLS_PER_SLAB_16)]
    slab = first_slab[0].base
    assert all(buffer.base is slab for buffer in first_slab)
    next_buffer = allocator.allocate(16)  # The first slab is used up: this one starts another.
    assert next_buffer.base is not slab
    slab_alive = weakref.ref(slab)
    del slab
    survivor = first_slab[CELLS_PER_SLAB_16 // 2][3:5]  # A view of one buffer keeps the slab alive.
    del first_slab
    gc.collect()
    assert slab_alive() is not None
    assert allocator.live_bytes == 16 + 16
    del survivor
    gc.collect()
    assert slab_alive() is None
    assert allocator.live_bytes == 16


@pytest.mark.parametrize("nbytes", [5000, _KEPT_MAX, _KEPT_MAX + 1])
def test_large_buffer_has_its_own_slab(nbytes: int, allocator: CPUAllocator) -> None:
    allocator.allocate(nbytes)  # Slabs are kept from the second buffer of a size on.
    buffer = allocator.allocate(nbytes)
    slab = buffer.base
    assert slab is not None and slab.nbytes == nbytes + ALIGNMENT - 1
    slab_alive = weakref.ref(slab)
    del slab
    view = buffer[4000:4800].view(np.int32)
    del buffer
    gc.collect()
    assert slab_alive() is not None and allocator.live_bytes == nbytes
    del view
    gc.collect()
    assert allocator.live_bytes == 0
    # Slabs of sizes up to _KEPT_MAX are kept for the next buffer of their size.
    assert (slab_alive() is None) == (nbytes > _KEPT_MAX)


def test_a_dead_buffers_slab_serves_the_next_buffer_of_its_size(allocator: CPUAllocator) -> None:
    first = allocator.allocate(5000)
    first_slab = weakref.ref(first.base)
    del first
    assert first_slab() is None  # The first buffer of a size keeps nothing.
    second = allocator.allocate(5000)
    slab, address = weakref.ref(second.base), _address(second)
    second[:] = 1
    del second
    again = allocator.allocate(5000)
    assert again.base is slab() and _address(again) == address
    assert allocator.allocate(5001).base is not slab()
    assert allocator.stats() == {"live_bytes": 5000, "peak_bytes": 10001, "num_allocs": 4}


def test_a_slab_in_use_is_never_reused(allocator: CPUAllocator) -> None:
    allocator.allocate(5000)
    allocator.allocate(6000)
    buffer = allocator.allocate(5000)
    slab = weakref.ref(buffer.base)
    view = buffer[10:20]  # Keeps the buffer, hence its slab, in use.
    del buffer
    held = allocator.allocate(6000).base  # A slab without live buffers, but held from outside.
    for _ in range(3 * _KEPT_SLABS):
        assert allocator.allocate(5000).base is not slab()
        assert allocator.allocate(6000).base is not held
    view[:] = 1
    assert allocator.live_bytes == 5000


def test_reused_slabs_never_hand_out_bytes_in_use(allocator: CPUAllocator) -> None:
    rng = random.Random(1)
    live: list[tuple[npt.NDArray[np.uint8], int, int]] = []  # A buffer or a view, mark, size.
    for i in range(3000):
        nbytes = rng.choice((5000, 8192, 70_000))
        buffer = allocator.allocate(nbytes)
        assert _address(buffer) % ALIGNMENT == 0 and buffer.shape == (nbytes,)
        buffer[:] = i % 251
        live.append((buffer if rng.random() < 0.5 else buffer[100:200], i % 251, nbytes))
        del buffer
        if len(live) > 12:
            live.pop(rng.randrange(len(live)))
        assert all((kept == mark).all() for kept, mark, _ in live)
        assert allocator.live_bytes == sum(nbytes for _, _, nbytes in live)
    assert allocator.num_allocs == 3000
    del live
    assert allocator.live_bytes == 0


def test_kept_slabs_are_bounded(allocator: CPUAllocator) -> None:
    def kept_slabs() -> list[np.ndarray[Any, Any]]:
        return [slab for slabs, _ in allocator._large.values() for slab in slabs]

    # 64 sizes of about 300 KB: _KEPT_SLABS slabs of each would take more than _KEPT_BYTES.
    for nbytes in range(300_000, 300_000 + 64 * 4096, 4096):
        buffers = [allocator.allocate(nbytes) for _ in range(_KEPT_SLABS + 1)]
        del buffers
        slabs = kept_slabs()
        assert sum(slab.nbytes - ALIGNMENT + 1 for slab in slabs) <= _KEPT_BYTES
        assert all(len(slabs) <= _KEPT_SLABS for slabs, _ in allocator._large.values())
    assert 3 * _KEPT_BYTES // 4 < sum(slab.nbytes for slab in kept_slabs()) < 5 * _KEPT_BYTES // 4
    for nbytes in range(10_000, 10_000 + 2 * _LARGE_SIZES):
        allocator.allocate(nbytes)
        assert len(allocator._large) <= _LARGE_SIZES
    allocator.allocate(_KEPT_MAX + 1)
    assert not allocator._large[_KEPT_MAX + 1][0]
    assert allocator.live_bytes == 0


@pytest.mark.parametrize("nbytes", [24, 4096, 1 << 16])
def test_every_kind_of_view_keeps_the_bytes_live(nbytes: int, allocator: CPUAllocator) -> None:
    def views(buffer: npt.NDArray[np.uint8]) -> list[object]:
        return [
            buffer[8:16],
            buffer.view(np.float32)[1:],
            buffer[::2][1:][::2],
            buffer.reshape(2, -1).T,
            # What TensorImpl.numpy_view builds.
            np.ndarray((2,), np.float32, buffer=buffer, offset=8, strides=(8,)),
            np.frombuffer(buffer, np.int16, 2, 4),
            buffer.data[4:],
            np.asarray(buffer),
        ]

    for index in range(len(views(allocator.allocate(nbytes)))):
        buffer = allocator.allocate(nbytes)
        kept = views(buffer)[index]
        del buffer
        gc.collect()
        assert allocator.live_bytes == nbytes, index
        del kept
        gc.collect()
        assert allocator.live_bytes == 0, index


def test_storage_views_keep_the_bytes_live(allocator: CPUAllocator) -> None:
    storage = StorageImpl(64, allocator)
    assert storage.data is not None
    view = np.ndarray((4,), np.float64, buffer=storage.data, offset=16, strides=(8,))
    view_of_view = view[1:3]
    del storage, view
    gc.collect()
    assert allocator.live_bytes == 64
    view_of_view[:] = 1.5
    del view_of_view
    gc.collect()
    assert allocator.live_bytes == 0


def test_peak_is_exact_when_counters_are_read_late(allocator: CPUAllocator) -> None:
    buffers = [allocator.allocate(100) for _ in range(10)]
    del buffers[:]
    a = allocator.allocate(300)
    b = allocator.allocate(5000)
    del a
    c = allocator.allocate(200)
    # Only now are the counters read: the history above is replayed in order.
    assert allocator.stats() == {"live_bytes": 5200, "peak_bytes": 5300, "num_allocs": 13}
    del b, c
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 5300, "num_allocs": 13}
    allocator.reset_peak()
    assert allocator.peak_bytes == 0


def test_numpy_integer_sizes_give_python_int_counters(allocator: CPUAllocator) -> None:
    small = allocator.allocate(np.int64(10))  # type: ignore[arg-type]
    for _ in range(2):  # The first buffer of a size keeps no slab, the second starts keeping.
        allocator.allocate(np.int64(10_000))  # type: ignore[arg-type]
    large = allocator.allocate(np.int64(10_000))  # type: ignore[arg-type]  # On a kept slab.
    assert small.shape == (10,) and large.shape == (10_000,)
    stats = allocator.stats()
    assert stats == {"live_bytes": 10_010, "peak_bytes": 10_010, "num_allocs": 4}
    assert all(type(value) is int for value in stats.values())


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the RSS from /proc")
def test_no_growth_in_an_allocate_and_drop_loop(allocator: CPUAllocator) -> None:
    sizes = (16, 100, 1000, 4096, 10_000)

    def cycles(count: int) -> None:
        for i in range(count):
            allocator.allocate(sizes[i % len(sizes)])[0] = 1

    cycles(20_000)  # Warm up NumPy's, malloc's and Python's own caches.
    gc.collect()
    rss = _rss_bytes()
    cycles(100_000)
    gc.collect()
    assert _rss_bytes() - rss < 4 << 20
    assert allocator.live_bytes == 0
    assert allocator.num_allocs == 120_000
    assert allocator.peak_bytes == 10_000
    assert len(allocator._log) == 0


def test_pending_log_stays_short_without_reads(allocator: CPUAllocator) -> None:
    for _ in range(50_000):
        allocator.allocate(16)
    assert len(allocator._log) < 3 * CELLS_PER_SLAB_16 + 5000
    for _ in range(5_000):
        allocator.allocate(50_000)
    assert len(allocator._log) < 5000


def test_finalizers_reading_stats_during_collections_do_not_deadlock(allocator: CPUAllocator) -> None:
    seen: list[dict[str, int]] = []

    class Reader:
        def __init__(self) -> None:
            self.cycle = self

        def __del__(self) -> None:
            seen.append(allocator.stats())
            allocator.allocate(8)

    buffers = [allocator.allocate(32) for _ in range(10)]
    saved = gc.get_threshold()
    gc.disable()
    try:
        for _ in range(100):
            Reader()
        del buffers
        gc.set_threshold(1)  # Collect at the next tracked allocation, wherever it happens.
        gc.enable()
        allocator.reset_peak()
    finally:
        gc.set_threshold(*saved)
        gc.enable()
    gc.collect()
    assert len(seen) == 100
    assert allocator.stats()["num_allocs"] == 110
    assert allocator.live_bytes == 0


def test_reentrant_drain_returns_at_once_and_loses_nothing(allocator: CPUAllocator) -> None:
    """What a finalizer run by a collection inside a drain sees (the drain allocates lists)."""
    seen: list[dict[str, int]] = []

    class HookedLog(list[int]):
        def __getitem__(self, index: Any) -> Any:
            if isinstance(index, slice) and not seen:  # The drain's snapshot: act like a finalizer.
                seen.append(allocator.stats())
                allocator.allocate(8)
            return super().__getitem__(index)

    log = HookedLog()
    allocator._log = log
    allocator._log_append = log.append
    buffers = [allocator.allocate(32) for _ in range(10)]
    del buffers
    assert allocator.stats() == {"live_bytes": 0, "peak_bytes": 320, "num_allocs": 11}
    assert seen == [{"live_bytes": 0, "peak_bytes": 0, "num_allocs": 0}]


# Many large sizes (each rarely repeated), or a few (their slabs are reused all the time).
@pytest.mark.parametrize("large_sizes", [range(5000, 20_000), (5000, 8192, 20_000)])
def test_thread_stress_mixed_sizes_keeps_exact_counts(
    large_sizes: Sequence[int], allocator: CPUAllocator, fast_thread_switching: None
) -> None:
    threads_count, rounds = 8, 1500
    errors: list[BaseException] = []
    allocated = [0] * threads_count
    biggest = [0] * threads_count
    start = threading.Barrier(threads_count + 1)
    done = threading.Event()

    def worker(slot: int) -> None:
        rng = random.Random(slot)
        kept: list[tuple[npt.NDArray[np.uint8], int]] = []
        try:
            start.wait()
            for _ in range(rounds):
                nbytes = rng.choice(
                    [rng.randrange(1, 300), rng.randrange(300, 5000), rng.choice(large_sizes)]
                )
                allocated[slot] += nbytes
                biggest[slot] = max(biggest[slot], nbytes)
                buffer = allocator.allocate(nbytes)
                if buffer.ctypes.data % ALIGNMENT or buffer.shape != (nbytes,):
                    raise AssertionError("bad buffer")
                mark = rng.randrange(256)
                buffer[:] = mark
                kept.append((buffer, mark))
                if len(kept) > 30:
                    old, old_mark = kept.pop(rng.randrange(len(kept)))
                    if not (old == old_mark).all():
                        raise AssertionError("another thread wrote into this buffer")
        except BaseException as exc:
            errors.append(exc)

    def reader() -> None:
        start.wait()
        while not done.is_set():
            stats = allocator.stats()
            if not 0 <= stats["live_bytes"] <= stats["peak_bytes"]:
                errors.append(AssertionError(f"inconsistent snapshot {stats}"))

    workers = [threading.Thread(target=worker, args=(slot,)) for slot in range(threads_count)]
    watcher = threading.Thread(target=reader)
    for thread in [*workers, watcher]:
        thread.start()
    for thread in workers:
        thread.join()
    done.set()
    watcher.join()
    gc.collect()
    assert errors == []
    assert allocator.num_allocs == threads_count * rounds
    assert allocator.live_bytes == 0
    assert max(biggest) <= allocator.peak_bytes <= sum(allocated)
