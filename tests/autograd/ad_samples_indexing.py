"""Sample inputs of the index_* family, scatter_reduce, masked_scatter, take/put and the
*_scatter derivatives.

amax/amin samples use distinct values (`_distinct`), so the selected elements stay the same under
finite-difference perturbations; prod samples hold a zero that is the only one sent to its
position (PyTorch's special case in the formula).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample
from ad_samples_pointwise import _distinct

import framework
from framework import Tensor


def _rand(*shape: int, seed: int = 0) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _long(values: object) -> Tensor:
    return framework.tensor(values, dtype=framework.int64)


def _with_zero(t: Tensor, position: tuple[int, ...]) -> Tensor:
    values = t.numpy().copy()
    values[position] = 0.0
    return framework.from_numpy(values)


def _pair(seed: int, self_shape: tuple[int, ...], src_shape: tuple[int, ...]) -> tuple[Tensor, Tensor]:
    """self and src with no value in common (nor within either)."""
    n = int(np.prod(self_shape))
    values = _distinct(seed, (n + int(np.prod(src_shape)),))
    return values[:n].reshape(self_shape).clone(), values[n:].reshape(src_shape).clone()


_ROWS = [0, 2, 0]
"""index_* rows with a repeat."""


def _index_add() -> list[Sample]:
    return [
        Sample((_rand(4, 3), 0, _long(_ROWS), _rand(3, 3, seed=1)), {"alpha": 2.0}),
        Sample(
            (_rand(3, 4, seed=2).t(), 1, _long([2, 2]), _rand(4, 2, seed=3)), desc="transposed self, dim 1"
        ),
        Sample((_rand(seed=4), 0, _long([0]), _rand(seed=5)), desc="0-dim"),
    ]


def _index_reduce() -> list[Sample]:
    amax_self, amax_src = _pair(0, (4, 3), (3, 3))
    amin_self, amin_src = _pair(1, (3, 4), (3, 2))
    return [
        Sample(
            (_rand(4, 3), 0, _long(_ROWS), _with_zero(_rand(3, 3, seed=1), (1, 1)), "prod"), desc="a zero"
        ),
        Sample((_rand(4, 3, seed=2), 0, _long(_ROWS), _rand(3, 3, seed=3), "mean"), {"include_self": False}),
        Sample((amax_self, 0, _long(_ROWS), amax_src, "amax")),
        Sample((amin_self, 1, _long([3, 3]), amin_src, "amin"), {"include_self": False}),
    ]


def _index_copy() -> list[Sample]:
    return [
        Sample((_rand(4, 3), 0, _long([3, 0]), _rand(2, 3, seed=1))),
        Sample((_rand(seed=2), 0, _long([0]), _rand(seed=3)), desc="0-dim"),
    ]


def _index_fill_scalar() -> list[Sample]:
    return [Sample((_rand(3, 4), 1, _long([0, 2, 2]), 1.5))]


def _index_fill_tensor() -> list[Sample]:
    return [Sample((_rand(3, 4), 0, _long([1, 1, 2]), _rand(seed=1)), desc="repeated index")]


_MASK = [[True, False, True, True], [False, False, True, False], [True, True, False, True]]


def _masked_scatter() -> list[Sample]:
    mask = framework.tensor(_MASK)
    return [
        Sample((_rand(3, 4), mask, _rand(9, seed=1)), desc="source longer than needed"),
        Sample((_rand(4, seed=2), mask, _rand(2, 4, seed=3)), desc="self broadcast by the mask"),
    ]


def _masked_scatter_backward() -> list[Sample]:
    return [Sample((_rand(3, 4), framework.tensor(_MASK), [3, 3]))]


def _put() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _long([0, -1, 5]), _rand(3, seed=1))),
        Sample((_rand(3, 4, seed=2), _long([[1, 1], [2, 1]]), _rand(2, 2, seed=3), True), desc="accumulate"),
    ]


def _take() -> list[Sample]:
    return [Sample((_rand(3, 4).t(), _long([[0, -1], [5, 5]])), desc="transposed, repeated index")]


def _select_scatter() -> list[Sample]:
    return [Sample((_rand(3, 4), _rand(4, seed=1), 0, -1))]


def _slice_scatter() -> list[Sample]:
    return [Sample((_rand(4, 3), _rand(2, 3, seed=1), 0, 1, None, 2))]


def _diagonal_scatter() -> list[Sample]:
    return [Sample((_rand(3, 4), _rand(3, seed=1), 1))]


def _as_strided_scatter() -> list[Sample]:
    return [Sample((_rand(3, 4), _rand(2, 2, seed=1), [2, 2], [4, 1], 1))]


_SCATTER_INDEX = [[0, 2, 1], [0, 2, 0]]
"""scatter_reduce targets with repeats (src has its shape: PyTorch's gradient of a larger src fails)."""


def _scatter_reduce_two() -> list[Sample]:
    amax_self, amax_src = _pair(2, (3, 3), (2, 3))
    amin_self, amin_src = _pair(3, (3, 3), (2, 3))
    index = _long(_SCATTER_INDEX)
    return [
        Sample((_rand(3, 3), 0, index, _rand(2, 3, seed=1), "sum")),
        Sample(
            (_rand(3, 3, seed=2), 0, index, _with_zero(_rand(2, 3, seed=3), (1, 1)), "prod"), desc="a zero"
        ),
        Sample(
            (_rand(3, 3, seed=4).t(), 1, index, _rand(2, 3, seed=5), "mean"),
            {"include_self": False},
            desc="transposed self",
        ),
        Sample((amax_self, 0, index, amax_src, "amax")),
        Sample((amin_self, 1, index, amin_src, "amin"), {"include_self": False}),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "index_add": _index_add,
    "index_reduce": _index_reduce,
    "index_copy": _index_copy,
    "index_fill.int_Scalar": _index_fill_scalar,
    "index_fill.int_Tensor": _index_fill_tensor,
    "masked_scatter": _masked_scatter,
    "masked_scatter_backward": _masked_scatter_backward,
    "put": _put,
    "take": _take,
    "select_scatter": _select_scatter,
    "slice_scatter": _slice_scatter,
    "diagonal_scatter": _diagonal_scatter,
    "as_strided_scatter": _as_strided_scatter,
    "scatter_reduce.two": _scatter_reduce_two,
}
NO_GRADGRAD: dict[str, str] = {}
