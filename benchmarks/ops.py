"""Operator speed against NumPy and (where installed) PyTorch, in one run.

    python benchmarks/ops.py

- `a + b` on 4-element float32 tensors: the per-call cost of the whole stack (Python binding,
  dispatcher, type promotion, allocation, kernel). Target: at most 2x PyTorch's eager time.
- a 512x512 float32 matmul: the kernel. Target: at most 1.05x NumPy's.
"""

from __future__ import annotations

import numpy as np
from timing import best_us, interleaved_best_us

import framework


def rows() -> list[tuple[str, float, float, float | None]]:
    x4 = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    a, b = framework.tensor(x4), framework.tensor(x4)
    na, nb = x4.copy(), x4.copy()
    x512 = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    m1, m2 = framework.tensor(x512), framework.tensor(x512)
    results: list[tuple[str, float, float, float | None]] = []
    fw_add = best_us(lambda: a + b, 20_000)
    np_add = best_us(lambda: na + nb, 20_000)
    fw_mm, np_mm = interleaved_best_us([lambda: framework.matmul(m1, m2), lambda: np.matmul(x512, x512)], 4)
    torch_add: float | None = None
    torch_mm: float | None = None
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)
        ta, tb = torch.tensor(x4), torch.tensor(x4)
        tm = torch.tensor(x512)
        torch_add = best_us(lambda: ta + tb, 20_000)
        torch_mm = best_us(lambda: torch.matmul(tm, tm), 20)
    results.append(("a + b, 4 x float32", fw_add, np_add, torch_add))
    results.append(("matmul 512x512 float32", fw_mm, np_mm, torch_mm))
    return results


def main() -> None:
    header = ("case", "framework us", "numpy us", "torch us", "vs numpy", "vs torch")
    print(
        f"{header[0]:28s} {header[1]:>13s} {header[2]:>10s} {header[3]:>10s} {header[4]:>9s} {header[5]:>9s}"
    )
    table = rows()
    for name, fw, npy, tch in table:
        vs_torch = f"{fw / tch:8.2f}x" if tch else "      n/a"
        tch_text = f"{tch:10.2f}" if tch else "       n/a"
        print(f"{name:28s} {fw:13.2f} {npy:10.2f} {tch_text} {fw / npy:8.2f}x {vs_torch}")
    add, mm = table
    if add[3] is not None:
        verdict = "met" if add[1] <= 2 * add[3] else "NOT met"
        print(f"target a + b <= 2x torch: {add[1] / add[3]:.2f}x -> {verdict}")
    verdict = "met" if mm[1] <= 1.05 * mm[2] else "NOT met"
    print(f"target matmul <= 1.05x numpy: {mm[1] / mm[2]:.3f}x -> {verdict}")


if __name__ == "__main__":
    main()
