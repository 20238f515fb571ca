"""Timing helpers shared by the benchmark scripts (run as `python benchmarks/<name>.py`, which puts
this folder on the import path)."""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable
from typing import Any


def best_us(fn: Callable[[], Any], number: int, repeat: int = 7) -> float:
    """Microseconds per call: the best of `repeat` runs of `number` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def interleaved_best_us(fns: list[Callable[[], Any]], number: int, rounds: int = 25) -> list[float]:
    """Best time of each function, alternating between them round by round so that drift in the
    machine's speed affects all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e6)
    return best


def interleaved_best_median_us(
    fns: list[Callable[[], Any]], number: int, rounds: int = 7, repeat: int = 5
) -> list[float]:
    """Per function, the best over `rounds` rounds of the median of `repeat` timings of `number`
    calls, in microseconds per call; within a round the functions take turns."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            median = statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6
            best[i] = min(best[i], median)
    return best


def torch_single_threaded() -> Any:
    """The `torch` module with one intra-op thread (the fair comparison for a NumPy-backed
    framework on this machine), or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch
