"""Sample inputs of the view, shape, copy, indexing, linear-algebra and joining derivatives."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _rand(*shape: int, seed: int = 0) -> Tensor:
    """A float64 tensor of standard normal values."""
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _long(values: object) -> Tensor:
    return framework.tensor(values, dtype=framework.int64)


def _mask(values: object) -> Tensor:
    return framework.tensor(values, dtype=framework.bool)


# ---- views --------------------------------------------------------------------------------------


def _as_strided() -> list[Sample]:
    base = _rand(5, 6, seed=1)
    return [
        Sample((_rand(3, 4), [2, 3], [4, 1], 1), desc="block with an offset"),
        Sample((_rand(6, seed=2), [3, 3], [1, 1], 0), desc="overlapping windows"),
        Sample((_rand(4, seed=3), [3, 4], [0, 1]), desc="stride 0 (expanded)"),
        Sample((base[1:4, 1:5], [2, 2], [6, 2], 8), desc="view of a view, storage offset"),
        Sample((_rand(4, 3, seed=4).t(), [2, 2], [1, 3]), desc="transposed input, offset None"),
        Sample((_rand(6, seed=5)[::2], [3], [1], 0), desc="reads storage the input does not view"),
        Sample((_rand(2, 3, seed=6), [2, 2, 2], [0, 3, 1], 1), desc="stride 0 and an offset"),
        Sample((_rand(3, 4, seed=7), [0, 2], [1, 1]), desc="empty output"),
    ]


def _as_strided_() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [2, 3], [4, 1], 1)),
        Sample((_rand(6, seed=2), [3, 3], [1, 1], 0), desc="overlapping windows"),
    ]


def _view() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [2, 6])),
        Sample((_rand(3, 4, seed=1), [-1])),
        Sample((_rand(2, 3, 4, seed=2)[:, 1], [2, 2, 2]), desc="non-contiguous view"),
        Sample((_rand(seed=3), [1, 1]), desc="0-dim"),
    ]


def _unsafe_view() -> list[Sample]:
    return [Sample((_rand(3, 4), [4, 3])), Sample((_rand(2, 6, seed=1), [12]))]


def _reshape_alias() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [4, 3], [3, 1])),
        Sample((_rand(4, 6, seed=1)[:, ::2], [2, 2, 3], [12, 6, 2]), desc="non-contiguous input"),
    ]


def _reshape_copy() -> list[Sample]:
    return [Sample((_rand(3, 4), [2, 6])), Sample((_rand(4, 3, seed=1).t(), [-1]), desc="transposed")]


def _select() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, 1)),
        Sample((_rand(4, 3, seed=1).t(), 1, -1), desc="transposed, negative index"),
        Sample((_rand(2, 3, 4, seed=2)[1:], -1, 2), desc="view of a view"),
        Sample((_rand(5, seed=3), 0, 3), desc="to 0-dim"),
    ]


def _slice() -> list[Sample]:
    return [
        Sample((_rand(3, 5), 1, 0, 4, 2)),
        Sample((_rand(6, 3, seed=1).t(), 1, -4, None, 1), desc="transposed, negative start"),
        Sample((_rand(6, 4, seed=2)[1:], 0, 1, 100, 3), desc="view of a view, end past the size"),
        Sample((_rand(4, 2, seed=3),), desc="defaults"),
        Sample((_rand(4, 2, seed=4), 0, 3, 1), desc="empty"),
    ]


def _diagonal() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample((_rand(3, 4, seed=1), 1)),
        Sample((_rand(3, 4, seed=2), -1, 1, 0), desc="negative offset, swapped dims"),
        Sample((_rand(2, 3, 3, seed=3), 0, -1, 1), desc="batched"),
        Sample((_rand(4, 3, seed=4).t(), 2), desc="transposed"),
        Sample((_rand(3, 4, seed=5), 5), desc="empty"),
    ]


def _transpose() -> list[Sample]:
    return [
        Sample((_rand(2, 3, 4), 0, 2)),
        Sample((_rand(2, 3, 4, seed=1), -1, 1)),
        Sample((_rand(4, 3, seed=2).t(), 0, 1), desc="transposed"),
    ]


def _transpose_() -> list[Sample]:
    return [Sample((_rand(2, 3, 4), 0, 2)), Sample((_rand(3, 4, seed=1), -1, 0))]


def _t() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample((_rand(4, seed=1),), desc="1-D"),
        Sample((_rand(seed=2),), desc="0-dim"),
        Sample((_rand(4, 3, seed=3)[::2],), desc="non-contiguous"),
    ]


def _t_() -> list[Sample]:
    return [Sample((_rand(3, 4),)), Sample((_rand(4, seed=1),), desc="1-D")]


def _permute() -> list[Sample]:
    return [
        Sample((_rand(2, 3, 4), [2, 0, 1])),
        Sample((_rand(2, 3, 4, seed=1), [-1, 0, -2])),
        Sample((_rand(4, 3, seed=2).t(), [1, 0]), desc="transposed"),
        Sample((_rand(seed=3), []), desc="0-dim"),
    ]


def _expand() -> list[Sample]:
    return [
        Sample((_rand(3, 1), [3, 4])),
        Sample((_rand(4, seed=1), [2, 3, 4]), desc="new leading dims"),
        Sample((_rand(1, 3, seed=2), [2, -1, -1]), desc="-1 sizes"),
        Sample((_rand(seed=3), [2, 3]), desc="0-dim"),
        Sample((_rand(6, 1, seed=4)[::2], [3, 4]), desc="non-contiguous"),
    ]


def _squeeze() -> list[Sample]:
    return [
        Sample((_rand(3, 1, 4, 1),)),
        Sample((_rand(1, 1, seed=1),), desc="to 0-dim"),
        Sample((_rand(4, 1, 3, seed=2).transpose(0, 2),), desc="non-contiguous"),
    ]


def _squeeze_dim() -> list[Sample]:
    return [
        Sample((_rand(3, 1, 4), 1)),
        Sample((_rand(3, 4, 1, seed=1), -1)),
        Sample((_rand(3, 4, seed=2), 0), desc="not size 1: unchanged"),
        Sample((_rand(seed=3), 0), desc="0-dim"),
    ]


def _squeeze_dims() -> list[Sample]:
    return [
        Sample((_rand(3, 1, 4, 1), [1, 3])),
        Sample((_rand(1, 3, 1, seed=1), [-1, 1])),
        Sample((_rand(4, 1, 3, seed=2).transpose(0, 2), [1]), desc="non-contiguous"),
    ]


def _squeeze_() -> list[Sample]:
    return [Sample((_rand(3, 1, 4, 1),))]


def _squeeze__dim() -> list[Sample]:
    return [Sample((_rand(3, 1, 4), 1)), Sample((_rand(3, 4, seed=1), 0), desc="not size 1")]


def _squeeze__dims() -> list[Sample]:
    return [Sample((_rand(3, 1, 4, 1), [1, 3]))]


def _unsqueeze() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0)),
        Sample((_rand(3, 4, seed=1), -1)),
        Sample((_rand(4, 3, seed=2).t(), 1), desc="transposed"),
        Sample((_rand(seed=3), 0), desc="0-dim"),
    ]


def _unsqueeze_() -> list[Sample]:
    return [Sample((_rand(3, 4), 1)), Sample((_rand(3, 4, seed=1), -1))]


def _unbind() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample((_rand(2, 3, 4, seed=1), -1)),
        Sample((_rand(4, 3, seed=2).t(), 1), desc="transposed"),
    ]


def _split() -> list[Sample]:
    return [
        Sample((_rand(5, 4), 2)),
        Sample((_rand(3, 5, seed=1), 3, -1)),
        Sample((_rand(3, 4, seed=2), 7, 1), desc="one piece"),
        Sample((_rand(4, 5, seed=3).t(), 2, 1), desc="transposed"),
    ]


def _split_with_sizes() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [1, 3], 1)),
        Sample((_rand(5, 2, seed=1), [2, 0, 3])),
        Sample((_rand(4, 5, seed=2).t(), [3, 1], -1), desc="transposed"),
    ]


def _view_as_real() -> list[Sample]:
    values = np.random.default_rng(0).standard_normal((3, 2))
    return [Sample((framework.from_numpy(values[:, 0] + 1j * values[:, 1]),))]


def _view_as_complex() -> list[Sample]:
    return [Sample((_rand(3, 2),))]


# ---- copies -------------------------------------------------------------------------------------


def _clone() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample((_rand(4, 3, seed=1).t(),), {"memory_format": framework.contiguous_format}),
        Sample((_rand(seed=2),), desc="0-dim"),
    ]


def _copy_() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _rand(3, 4, seed=1))),
        Sample((_rand(3, 4, seed=2), _rand(4, seed=3)), desc="broadcast src"),
        Sample((_rand(3, 4, seed=4), _rand(4, 3, seed=5).t()), desc="transposed src"),
    ]


def _copy() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _rand(3, 4, seed=1))),
        Sample((_rand(3, 4, seed=2), _rand(1, 4, seed=3)), desc="broadcast src"),
    ]


def _to_copy() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample(
            (_rand(4, 3, seed=1).t(),),
            {"dtype": framework.float64, "memory_format": framework.contiguous_format},
        ),
    ]


# ---- indexing -----------------------------------------------------------------------------------


def _index_select() -> list[Sample]:
    return [
        Sample((_rand(4, 3), 0, _long([2, 0, 2])), desc="repeated index"),
        Sample((_rand(4, 3, seed=1).t(), 1, _long([3, 1])), desc="transposed"),
        Sample((_rand(3, 4, seed=2), -1, _long(1)), desc="0-dim index"),
        Sample((_rand(seed=3), 0, _long([0])), desc="0-dim input"),
    ]


def _gather() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long([[0, 1, 2, 0], [1, 1, 0, 2]])), desc="repeated index"),
        Sample((_rand(3, 4, seed=1), 1, _long([[3, 0], [1, 1], [2, 0]]))),
        Sample((_rand(4, 3, seed=2).t(), -1, _long([[0, 3, 3]])), desc="transposed, smaller index"),
    ]


_SCATTER_INDEX = [[0, 2, 1, 0], [2, 0, 0, 1]]
"""Distinct rows per column: no position is written twice."""
_REPEATED_INDEX = [[0, 2, 1, 0], [0, 2, 0, 0], [1, 2, 1, 0]]


def _scatter_src() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long(_SCATTER_INDEX), _rand(2, 4, seed=1))),
        Sample(
            (_rand(4, 3, seed=4).t(), 1, _long([[3, 1], [0, 2], [2, 3]]), _rand(3, 2, seed=5)),
            desc="transposed",
        ),
    ]


def _scatter_value() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long(_REPEATED_INDEX), 2.5)),
        Sample((_rand(4, 3, seed=1).t(), 1, _long([[3, 1], [0, 0], [2, 3]]), -1)),
    ]


def _scatter_reduce() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long(_REPEATED_INDEX), _rand(3, 4, seed=1)), {"reduce": "add"}),
        Sample((_rand(3, 4, seed=2), 0, _long(_REPEATED_INDEX), _rand(3, 4, seed=3)), {"reduce": "multiply"}),
    ]


def _scatter_value_reduce() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long(_REPEATED_INDEX), 1.5), {"reduce": "add"}),
        Sample((_rand(3, 4, seed=1), 0, _long(_REPEATED_INDEX), -1.5), {"reduce": "multiply"}),
    ]


def _scatter_add() -> list[Sample]:
    return [
        Sample((_rand(3, 4), 0, _long(_REPEATED_INDEX), _rand(3, 4, seed=1))),
        Sample((_rand(4, 3, seed=4).t(), 1, _long([[3, 3, 0]]), _rand(1, 3, seed=5)), desc="transposed"),
    ]


def _masked_select() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _mask([[True, False, True, True]] * 2 + [[False, False, True, False]]))),
        Sample((_rand(3, 4, seed=1), _mask([True, False, False, True])), desc="broadcast mask"),
        Sample(
            (_rand(4, seed=2), _mask([[True, False, True, True], [False, True, True, False]])),
            desc="broadcast input",
        ),
        Sample((_rand(4, 3, seed=3).t(), _mask([[True, True, False, True]] * 3)), desc="transposed"),
    ]


def _index() -> list[Sample]:
    return [
        Sample((_rand(4, 3), [_long([2, 0, 2])]), desc="repeated index"),
        Sample((_rand(3, 4, seed=1), [None, _long([[1, 3], [3, 3]])])),
        Sample((_rand(3, 4, seed=2), [_long([[0], [2]]), _long([1, 3, 1])]), desc="broadcast indices"),
        Sample((_rand(3, 4, seed=3), [_mask([True, False, True])]), desc="mask"),
        Sample((_rand(2, 3, 4, seed=4), [_long([1, 0]), None, _long([3, 3])]), desc="non-adjacent indices"),
        Sample((_rand(4, 3, seed=5).t(), [_long([0, 0]), _long([3, 1])]), desc="transposed"),
    ]


def _index_put() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [_long([2, 0])], _rand(2, 4, seed=1))),
        Sample(
            (_rand(3, 4, seed=2), [_long([2, 0, 2])], _rand(4, seed=3), True),
            desc="accumulate, broadcast values",
        ),
        Sample((_rand(3, 4, seed=4), [None, _long([1, 3])], _rand(3, 1, seed=5)), desc="broadcast values"),
        Sample(
            (_rand(3, 4, seed=6), [_mask([[True, False, True, False]] * 3)], _rand(1, seed=7)), desc="mask"
        ),
        Sample(
            (_rand(4, 3, seed=8).t(), [_long([0, 2]), _long([1, 1])], _rand(2, seed=9), True),
            desc="transposed",
        ),
    ]


def _zeros_in(t: Tensor, positions: Sequence[tuple[int, int]]) -> Tensor:
    """`t` with exact zeros at `positions`."""
    values = t.numpy().copy()
    for p in positions:
        values[p] = 0.0
    return framework.from_numpy(values)


def _nonzero() -> list[Sample]:
    return [Sample((_zeros_in(_rand(3, 4), [(0, 1), (2, 2)]),))]


# ---- linear algebra -----------------------------------------------------------------------------


def _matmul() -> list[Sample]:
    return [
        Sample((_rand(4), _rand(4, seed=1)), desc="1-D @ 1-D"),
        Sample((_rand(3, 4), _rand(4, seed=2)), desc="2-D @ 1-D"),
        Sample((_rand(4), _rand(4, 2, seed=3)), desc="1-D @ 2-D"),
        Sample((_rand(3, 4), _rand(4, 2, seed=4)), desc="2-D @ 2-D"),
        Sample((_rand(2, 3, 4), _rand(4, 2, seed=5)), desc="3-D @ 2-D"),
        Sample((_rand(3), _rand(2, 3, 2, seed=6)), desc="1-D @ 3-D"),
        Sample((_rand(2, 3, 4), _rand(4, seed=7)), desc="3-D @ 1-D"),
        Sample((_rand(2, 1, 2, 3), _rand(3, 3, 2, seed=8)), desc="broadcast batch"),
        Sample((_rand(4, 3, seed=9).t(), _rand(2, 4, seed=10).t()), desc="transposed"),
    ]


def _mm() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _rand(4, 2, seed=1))),
        Sample((_rand(4, 3, seed=2).t(), _rand(2, 4, seed=3).t()), desc="transposed"),
    ]


def _bmm() -> list[Sample]:
    return [
        Sample((_rand(2, 3, 4), _rand(2, 4, 2, seed=1))),
        Sample((_rand(2, 4, 3, seed=2).transpose(1, 2), _rand(2, 4, 2, seed=3)), desc="transposed"),
    ]


def _addmm() -> list[Sample]:
    return [
        Sample((_rand(3, 2), _rand(3, 4, seed=1), _rand(4, 2, seed=2))),
        Sample(
            (_rand(2, seed=3), _rand(3, 4, seed=4), _rand(4, 2, seed=5)),
            {"beta": 0.5, "alpha": -2},
            desc="broadcast self",
        ),
        Sample(
            (_rand(3, 1, seed=6), _rand(4, 3, seed=7).t(), _rand(4, 2, seed=8)), {"beta": 0}, desc="beta 0"
        ),
    ]


def _mv() -> list[Sample]:
    return [
        Sample((_rand(3, 4), _rand(4, seed=1))),
        Sample((_rand(4, 3, seed=2).t(), _rand(8, seed=3)[::2]), desc="non-contiguous"),
    ]


def _dot() -> list[Sample]:
    return [
        Sample((_rand(4), _rand(4, seed=1))),
        Sample((_rand(8, seed=2)[::2], _rand(4, seed=3)), desc="strided"),
    ]


def _outer() -> list[Sample]:
    return [
        Sample((_rand(3), _rand(4, seed=1))),
        Sample((_rand(8, seed=2)[::2], _rand(2, seed=3)), desc="strided"),
    ]


# ---- joining and rearranging --------------------------------------------------------------------


def _cat() -> list[Sample]:
    return [
        Sample(([_rand(2, 3), _rand(1, 3, seed=1), _rand(3, 3, seed=2)],)),
        Sample(([_rand(2, 3, seed=3), _rand(2, 1, seed=4)], -1)),
        Sample(
            ([_rand(2, 3, seed=5), _rand(0, seed=6), _rand(3, 2, seed=7).t()], 0),
            desc="legacy empty, transposed",
        ),
        Sample(([_rand(4, seed=8)],), desc="one tensor"),
    ]


def _stack() -> list[Sample]:
    return [
        Sample(([_rand(2, 3), _rand(2, 3, seed=1)],)),
        Sample(([_rand(2, 3, seed=2), _rand(3, 2, seed=3).t(), _rand(2, 3, seed=4)], -1), desc="transposed"),
        Sample(([_rand(seed=5), _rand(seed=6)], 0), desc="0-dim"),
    ]


def _flip() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [0])),
        Sample((_rand(2, 3, 4, seed=1), [0, -1])),
        Sample((_rand(4, 3, seed=2).t(), [1]), desc="transposed"),
    ]


def _repeat() -> list[Sample]:
    return [
        Sample((_rand(2, 3), [2, 1])),
        Sample((_rand(3, seed=1), [2, 2]), desc="new leading dim"),
        Sample((_rand(seed=2), [3]), desc="0-dim"),
        Sample((_rand(seed=3), []), desc="0-dim, no repeats"),
        Sample((_rand(3, 2, seed=4).t(), [1, 2, 2]), desc="transposed"),
    ]


def _roll() -> list[Sample]:
    return [
        Sample((_rand(3, 4), [1], [0])),
        Sample((_rand(3, 4, seed=1), [1, -2], [0, 1])),
        Sample((_rand(3, 4, seed=2), [5]), desc="flattened"),
        Sample((_rand(4, 3, seed=3).t(), [2], [-1]), desc="transposed"),
    ]


def _triangle() -> list[Sample]:
    return [
        Sample((_rand(3, 4),)),
        Sample((_rand(3, 4, seed=1), 1)),
        Sample((_rand(2, 3, 3, seed=2), -1), desc="batched"),
        Sample((_rand(4, 3, seed=3).t(), 2), desc="transposed"),
    ]


# ---- factories taking a tensor ------------------------------------------------------------------


def _like(*extra: object) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        return [Sample((_rand(3, 4), *extra))]

    return samples


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "as_strided": _as_strided,
    "as_strided_": _as_strided_,
    "view": _view,
    "_unsafe_view": _unsafe_view,
    "_reshape_alias": _reshape_alias,
    "_reshape_copy": _reshape_copy,
    "select.int": _select,
    "slice.Tensor": _slice,
    "diagonal": _diagonal,
    "transpose.int": _transpose,
    "transpose_": _transpose_,
    "t": _t,
    "t_": _t_,
    "permute": _permute,
    "expand": _expand,
    "squeeze": _squeeze,
    "squeeze.dim": _squeeze_dim,
    "squeeze.dims": _squeeze_dims,
    "squeeze_": _squeeze_,
    "squeeze_.dim": _squeeze__dim,
    "squeeze_.dims": _squeeze__dims,
    "unsqueeze": _unsqueeze,
    "unsqueeze_": _unsqueeze_,
    "unbind.int": _unbind,
    "split.Tensor": _split,
    "split_with_sizes": _split_with_sizes,
    "view_as_real": _view_as_real,
    "view_as_complex": _view_as_complex,
    "clone": _clone,
    "copy_": _copy_,
    "copy": _copy,
    "_to_copy": _to_copy,
    "index_select": _index_select,
    "gather": _gather,
    "scatter.src": _scatter_src,
    "scatter.value": _scatter_value,
    "scatter.reduce": _scatter_reduce,
    "scatter.value_reduce": _scatter_value_reduce,
    "scatter_add": _scatter_add,
    "masked_select": _masked_select,
    "index.Tensor": _index,
    "index_put": _index_put,
    "nonzero": _nonzero,
    "matmul": _matmul,
    "mm": _mm,
    "bmm": _bmm,
    "addmm": _addmm,
    "mv": _mv,
    "dot": _dot,
    "outer": _outer,
    "cat": _cat,
    "stack": _stack,
    "flip": _flip,
    "repeat": _repeat,
    "roll": _roll,
    "tril": _triangle,
    "triu": _triangle,
    "empty_like": _like(),
    "zeros_like": _like(),
    "new_empty": _like([2, 3]),
    "new_zeros": _like([2, 3]),
    "new_ones": _like([2, 3]),
    "new_full": _like([2, 3], 2.5),
    "ones_like": _like(),
    "full_like": _like(2.5),
    "rand_like": _like(),
    "randn_like": _like(),
    "randint_like": _like(5),
    "randint_like.low_dtype": _like(1, 5),
}

_NO_DERIVATIVE = "no derivative, as in PyTorch: backward raises"
NO_GRADGRAD: dict[str, str] = {
    "copy": _NO_DERIVATIVE,
    "scatter.reduce": _NO_DERIVATIVE,
    "scatter.value_reduce": _NO_DERIVATIVE,
    "randint_like": _NO_DERIVATIVE,
    "randint_like.low_dtype": _NO_DERIVATIVE,
}
