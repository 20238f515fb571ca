"""CPU allocator cost: ``CPUAllocator.allocate`` and ``TensorImpl.empty`` against NumPy and PyTorch.

    python benchmarks/allocator.py

Prints microseconds per call, best of several repeats. Each call's result is dropped at once, so
the figures include releasing the buffer again (for the allocator: its weak-reference callback and
its share of the lazy counter updates). Times are process CPU time (``time.process_time``), which
other busy processes on the machine disturb far less than wall-clock time. ``timeit`` switches the
cyclic GC off while timing; the "gc on" column times the framework with it on, as programs run.
The sizes: small (cells of shared slabs), large ones whose slabs are kept for reuse (up to 1 MiB;
each call here reuses the slab the previous call's buffer left), and one too large to be kept (a
new slab per call). Target: ``allocate`` costs about 2 us but for sizes too large to be kept, and
``TensorImpl.empty`` about 5 us whatever the size of its storage.
"""

from __future__ import annotations

import gc
import time
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from framework.c10.device import Device
from framework.c10.dtypes import float32
from framework.c10.storage import get_cpu_allocator
from framework.c10.tensor_impl import TensorImpl

NUMBER = 20_000
REPEAT = 25
SIZES = (16, 4096, 5120, 1 << 20, 4 << 20)
EMPTY_SIZES = ((4,), (128, 10), (128, 256))


def best_us(fn: Callable[[], Any], gc_on: bool = False) -> float:
    timer = timeit.Timer(fn, setup=gc.enable if gc_on else "pass", timer=time.process_time)
    return min(timer.repeat(number=NUMBER, repeat=REPEAT)) / NUMBER * 1e6


def _torch() -> Any:
    """The ``torch`` module, or ``None`` if it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


Row = tuple[str, float, float, float, float | None]


def rows() -> list[Row]:
    """(what, framework us, framework us with the GC on, numpy us, torch us or None) per call."""
    torch = _torch()
    allocate = get_cpu_allocator().allocate
    cpu = Device("cpu")
    calls: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any] | None]] = [
        (
            f"allocate({nbytes})",
            partial(allocate, nbytes),
            partial(np.empty, nbytes, np.uint8),
            None if torch is None else partial(torch.empty, nbytes, dtype=torch.uint8),
        )
        for nbytes in SIZES
    ]
    calls += [
        (
            f"TensorImpl.empty({sizes}, float32, cpu)",
            partial(TensorImpl.empty, sizes, float32, cpu),
            partial(np.empty, sizes, np.float32),
            None if torch is None else partial(torch.empty, sizes, dtype=torch.float32),
        )
        for sizes in EMPTY_SIZES
    ]
    return [
        (
            name,
            best_us(ours),
            best_us(ours, gc_on=True),
            best_us(numpy_call),
            None if torch_call is None else best_us(torch_call),
        )
        for name, ours, numpy_call, torch_call in calls
    ]


def main() -> None:
    gc.collect()
    print(f"{'us/call':44s} {'framework':>10s} {'(gc on)':>8s} {'np.empty':>9s} {'torch.empty':>12s}")
    for name, ours, ours_gc, numpy_us, torch_us in rows():
        torch_text = "n/a" if torch_us is None else f"{torch_us:.3f}"
        print(f"{name:44s} {ours:10.3f} {ours_gc:8.3f} {numpy_us:9.3f} {torch_text:>12s}")
    print(f"allocator stats after the run: {get_cpu_allocator().stats()}")


if __name__ == "__main__":
    main()
