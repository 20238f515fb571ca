"""Sample inputs of the sorting and selection entries of derivatives.yaml.

Inputs have no ties (`_distinct`), so every selection is the same after a small perturbation and
finite differences see the gradient the formulas give; NaNs appear only where nanmedian skips
them.  The unique operators have no derivative (backward raises, as in PyTorch) and
searchsorted/bucketize give integer results: their samples check that much.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample
from ad_samples_pointwise import _distinct

import framework
from framework import Tensor


def _with_nans(seed: int, shape: tuple[int, ...], positions: list[tuple[int, ...]]) -> Tensor:
    """Distinct float64 values with NaN at `positions`."""
    values = _distinct(seed, shape).numpy().copy()
    for position in positions:
        values[position] = np.nan
    return framework.from_numpy(values)


def _scalar() -> Tensor:
    return framework.tensor(0.7, dtype=framework.float64)


def _sort_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)),)),
        Sample((_distinct(1, (4, 3)).t(), 0, True), desc="transposed, dim 0, descending"),
        Sample((_distinct(2, (2, 3, 4)), 1), desc="3-dim, middle dim"),
        Sample((_scalar(),), desc="0-dim"),
    ]


def _sort_stable_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 4)),), {"stable": True}),
        Sample(
            (_distinct(1, (4, 3)),), {"stable": False, "dim": 0, "descending": True}, desc="dim 0, descending"
        ),
    ]


def _topk_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)), 2)),
        Sample((_distinct(1, (4, 3)).t(), 3, 1, False), desc="smallest, transposed"),
        Sample((_distinct(2, (4, 3)), 2, 0, True, False), desc="dim 0, unsorted"),
        Sample((_scalar(), 1), desc="0-dim"),
    ]


def _kthvalue_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)), 2)),
        Sample((_distinct(1, (4, 3)), 4, 0, True), desc="dim 0, keepdim"),
        Sample((_scalar(), 1), desc="0-dim"),
    ]


def _median_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)),), desc="odd count"),
        Sample((_distinct(1, (2, 4)).t(),), desc="even count: the lower median"),
    ]


def _median_dim_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)), 1)),
        Sample((_distinct(1, (4, 3)), 0, True), desc="even count, keepdim"),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


def _nanmedian_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)),)),
        Sample((_with_nans(1, (3, 4), [(0, 1), (2, 2)]),), desc="NaNs skipped"),
    ]


def _nanmedian_dim_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)), 1)),
        Sample((_with_nans(1, (3, 4), [(0, 1), (2, 2), (2, 3)]), 1, True), desc="NaNs skipped, keepdim"),
    ]


def _mode_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)),), desc="all distinct: the smallest"),
        Sample((_distinct(1, (4, 3)), 0, True), desc="dim 0, keepdim"),
    ]


def _cumulative_extreme_samples() -> list[Sample]:
    return [
        Sample((_distinct(0, (3, 5)), 1)),
        Sample((_distinct(1, (4, 3)).t(), 0), desc="transposed"),
        Sample((_scalar(), 0), desc="0-dim"),
    ]


def _unique_samples() -> list[Sample]:
    return [Sample((framework.tensor([2.0, 1.0, 2.0, 3.0], dtype=framework.float64), True, True))]


def _unique_dim_samples() -> list[Sample]:
    return [Sample((framework.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]], dtype=framework.float64), 0))]


def _unique_consecutive_samples() -> list[Sample]:
    x = framework.tensor([1.0, 1.0, 2.0, 1.0], dtype=framework.float64)
    return [Sample((x, True, True)), Sample((x.reshape(2, 2), False, False, 1), desc="along dim 1")]


def _boundaries() -> Tensor:
    return framework.tensor([-1.0, 0.0, 0.5, 2.0], dtype=framework.float64)


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "sort": _sort_samples,
    "sort.stable": _sort_stable_samples,
    "topk": _topk_samples,
    "kthvalue": _kthvalue_samples,
    "median": _median_samples,
    "median.dim": _median_dim_samples,
    "nanmedian": _nanmedian_samples,
    "nanmedian.dim": _nanmedian_dim_samples,
    "mode": _mode_samples,
    "cummax": _cumulative_extreme_samples,
    "cummin": _cumulative_extreme_samples,
    "_unique": _unique_samples,
    "_unique2": _unique_samples,
    "unique_dim": _unique_dim_samples,
    "unique_consecutive": _unique_consecutive_samples,
    "unique_dim_consecutive": _unique_dim_samples,
    "searchsorted.Tensor": lambda: [Sample((_boundaries(), _distinct(0, (2, 3))), {"right": True})],
    "searchsorted.Scalar": lambda: [Sample((_boundaries(), 0.25))],
    "bucketize.Tensor": lambda: [Sample((_distinct(0, (2, 3)), _boundaries()))],
    "bucketize.Scalar": lambda: [Sample((0.25, _boundaries()), {"right": True})],
}

NO_GRADGRAD: dict[str, str] = {}
