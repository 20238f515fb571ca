"""Dispatch overhead: a one-tensor operator called through framework.ops and the dispatcher,
against calling its kernel directly; PyTorch's torch.library equivalent where installed.

    python benchmarks/dispatch_overhead.py

Prints microseconds per call (best of several repeats) and the overhead over the direct call.
Target (issue 2): at most 1.5 us of dispatch overhead per call.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import framework
from framework.c10.dispatch import dispatcher
from framework.library import Library

NUMBER = 200_000
REPEAT = 7


def best_us(fn: Callable[[], Any]) -> float:
    return min(timeit.repeat(fn, number=NUMBER, repeat=REPEAT)) / NUMBER * 1e6


def framework_rows() -> list[tuple[str, float]]:
    lib = Library("bench", "DEF")
    lib.def_("ident(Tensor self) -> Tensor")

    def kernel(self: framework.Tensor) -> framework.Tensor:
        return self

    lib.impl("ident", kernel, "CPU")
    x = framework.from_numpy(np.zeros(4, np.float32))
    handle = dispatcher().find_schema_or_throw("bench::ident")
    packet = framework.ops.bench.ident
    overload = framework.ops.bench.ident.default
    return [
        ("kernel called directly", best_us(lambda: kernel(x))),
        ("dispatcher: OperatorHandle.call", best_us(lambda: handle.call(x))),
        ("framework.ops.bench.ident.default", best_us(lambda: overload(x))),
        ("framework.ops.bench.ident (packet)", best_us(lambda: packet(x))),
    ]


def torch_rows() -> list[tuple[str, float]]:
    try:
        import torch
    except ImportError:
        return []
    torch.set_num_threads(1)
    lib = torch.library.Library("bench", "DEF")
    lib.define("ident(Tensor self) -> Tensor")

    def kernel(self: Any) -> Any:
        return self

    lib.impl("ident", kernel, "CPU")
    x = torch.zeros(4)
    overload = torch.ops.bench.ident.default
    packet = torch.ops.bench.ident
    rows = [
        ("torch: kernel called directly", best_us(lambda: kernel(x))),
        ("torch: torch.ops.bench.ident.default", best_us(lambda: overload(x))),
        ("torch: torch.ops.bench.ident (packet)", best_us(lambda: packet(x))),
        ("torch: torch.neg (C++ op, for scale)", best_us(lambda: torch.neg(x))),
    ]
    lib._destroy()
    return rows


def main() -> None:
    rows = framework_rows()
    base = rows[0][1]
    print(f"{'call':45s} {'us/call':>9s} {'overhead us':>12s}")
    for name, t in rows:
        print(f"{name:45s} {t:9.3f} {t - base:12.3f}")
    trows = torch_rows()
    if trows:
        tbase = trows[0][1]
        for name, t in trows:
            print(f"{name:45s} {t:9.3f} {t - tbase:12.3f}")
    else:
        print("torch not installed: no PyTorch comparison")
    worst = max(t - base for _, t in rows[1:3])
    print(
        f"target: overhead <= 1.5 us through the dispatcher and an OpOverload: {worst:.3f} us -> "
        f"{'met' if worst <= 1.5 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
