"""A program using framework's public API as a PyTorch user would; must pass mypy --strict."""

from __future__ import annotations

import numpy as np

import framework
from framework import Tensor
from framework.library import Library, dispatch_table


def affine(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return x @ w + b


def main() -> float:
    framework.manual_seed(0)
    x = framework.rand(4, 3)
    w = framework.randn((3, 2), dtype=framework.float32)
    b = framework.zeros(2)
    y = affine(x, w, b).relu()
    y.add_(1.0)
    total: Tensor = y.sum()
    best: framework.return_types.max = framework.max(y, 1)
    values, indices = y.min(dim=0)
    assert best.values.shape == (4,) and best.indices.dtype == framework.int64
    assert values.shape == indices.shape == (2,)
    ranked: framework.return_types.sort = y.sort(dim=1, descending=True)
    distinct: Tensor = framework.unique(y)
    kept, inverse = framework.unique(y, return_inverse=True)
    assert ranked.indices.shape == (4, 2) and inverse.shape == (4, 2) and kept.shape == distinct.shape
    m = framework.empty(2, 3, device="meta")
    shape: tuple[int, ...] = (m + 1).shape
    assert shape == (2, 3)
    first = y[0, 1:]
    arr: np.ndarray = first.numpy()
    assert arr.shape == (1,)
    lib = Library("typingdemo", "DEF")
    lib.def_("twice(Tensor self) -> Tensor")
    lib.impl("twice", lambda self: self * 2, "CPU")
    table: dict[str, str] = dispatch_table("typingdemo::twice")
    assert table["CPU"] == "CPU"
    lib._destroy()
    return float(total)
