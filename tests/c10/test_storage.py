from __future__ import annotations

import gc
import random
import sys
import threading
import weakref
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pytest

from framework.c10.device import Device
from framework.c10.storage import (
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
