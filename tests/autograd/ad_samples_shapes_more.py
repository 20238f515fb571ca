"""Sample inputs of the derivatives.yaml entries of the shapes area (framework/ops/kernels/
shapes_more.py): rot90, unfold and its backward, the unsafe splits, and the non-differentiable
repeat_interleave(repeats) and new_empty_strided."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_shapes import _long, _rand


def _repeat_interleave() -> list[Sample]:
    return [Sample((_long([1, 0, 2]),))]


def _rot90() -> list[Sample]:
    return [
        Sample((_rand(2, 3, 4), 1, [2, 0])),
        Sample((_rand(3, 4, seed=1).t(), -3), desc="transposed, k = -3"),
    ]


def _unfold() -> list[Sample]:
    return [
        Sample((_rand(2, 5), 1, 2, 1), desc="overlapping windows"),
        Sample((_rand(5, 3, seed=1).t(), -1, 2, 2), desc="transposed, step 2"),
        Sample((_rand(seed=2), 0, 1, 1), desc="0-dim"),
    ]


def _unfold_backward() -> list[Sample]:
    return [
        Sample((_rand(2, 4, 2), [2, 5], 1, 2, 1), desc="overlapping windows"),
        Sample((_rand(3, 2, 3, seed=1), [7, 2], 0, 3, 2), desc="dim 0, leftover element"),
    ]


def _unsafe_split() -> list[Sample]:
    return [Sample((_rand(5, 4), 2)), Sample((_rand(4, 5, seed=1).t(), 2, 1), desc="transposed")]


def _unsafe_split_with_sizes() -> list[Sample]:
    return [Sample((_rand(3, 5), [1, 4], 1))]


def _new_empty_strided() -> list[Sample]:
    return [Sample((_rand(3, 4), [2, 3], [1, 2]))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "repeat_interleave.Tensor": _repeat_interleave,
    "rot90": _rot90,
    "unfold": _unfold,
    "unfold_backward": _unfold_backward,
    "unsafe_split.Tensor": _unsafe_split,
    "unsafe_split_with_sizes": _unsafe_split_with_sizes,
    "new_empty_strided": _new_empty_strided,
}

NO_GRADGRAD: dict[str, str] = {}
