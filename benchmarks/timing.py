"""Timing helpers shared by the benchmark scripts (run as `python benchmarks/<name>.py`, which puts
this folder on the import path)."""

from __future__ import annotations

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
