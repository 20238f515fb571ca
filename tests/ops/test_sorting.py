"""Sorting and selection operators against NumPy (always), recorded PyTorch 2.13 results (ties,
NaNs, errors) and live PyTorch (when it is importable): sort/argsort/msort, topk, kthvalue,
median/nanmedian, mode, cummax/cummin, unique/unique_consecutive, searchsorted/bucketize.

Where PyTorch leaves the choice to an unstable selection algorithm (the index topk, kthvalue and
the medians report among equal values), only tie-free inputs are compared for indices; values
always are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from all_dtypes import ALL_DTYPES

import framework
from framework import Tensor

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None

Array = npt.NDArray[Any]
A: Any = framework.ops.aten
NAN = float("nan")
REAL = ALL_DTYPES[:9]
NUMERIC = ALL_DTYPES[1:9]
needs_torch = pytest.mark.skipif(torch is None, reason="live comparison with PyTorch")


def T(values: Any, d: framework.dtype | None = None) -> Tensor:
    return framework.tensor(values) if d is None else framework.tensor(values, dtype=d)


def sample(shape: tuple[int, ...], d: framework.dtype, seed: int = 0) -> Array:
    """Small values with many ties (exact in every real dtype)."""
    values = np.random.default_rng(seed).integers(0, 5, size=shape)
    if d is framework.bool:
        return values > 2
    return values.astype(d.numpy_dtype)


def distinct(shape: tuple[int, ...], seed: int = 0) -> Array:
    """float64 values without ties."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(np.arange(n) * 0.5 - n / 4).reshape(shape)


def descending_order(a: Array, axis: int) -> Array:
    """PyTorch's descending sort order (NumPy oracle, NaN-free input): a stable sort on the
    negated dense rank, so equal elements keep their order."""
    moved = np.moveaxis(a, axis, -1)
    lanes = moved.reshape(-1, moved.shape[-1])
    ranks = np.stack([np.unique(lane, return_inverse=True)[1].reshape(-1) for lane in lanes])
    order = np.argsort(-ranks, axis=-1, kind="stable")
    return np.moveaxis(order.reshape(moved.shape), -1, axis)


# ---- sort, argsort, msort -------------------------------------------------------------------------


@pytest.mark.parametrize("d", REAL, ids=lambda d: d.name)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_is_stable_in_both_directions(d: framework.dtype, descending: bool, dim: int) -> None:
    a = sample((4, 6), d, seed=dim + 3)
    values, indices = framework.sort(framework.from_numpy(a), dim, descending)
    order = descending_order(a, dim) if descending else np.argsort(a, axis=dim, kind="stable")
    assert values.dtype is d and indices.dtype is framework.int64
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, dim))
    np.testing.assert_array_equal(framework.argsort(framework.from_numpy(a), dim, descending).numpy(), order)


def test_sort_puts_nan_last_ascending_and_first_descending() -> None:
    x = T([1.0, 0.0, 1.0, 0.0, 1.0, NAN, 2.0, NAN])
    assert framework.sort(x).indices.tolist() == [1, 3, 0, 2, 4, 6, 5, 7]
    result = x.sort(descending=True)
    assert result.indices.tolist() == [5, 7, 6, 0, 2, 4, 1, 3]
    np.testing.assert_array_equal(result.values.numpy(), [NAN, NAN, 2, 1, 1, 1, 0, 0])
    assert x.sort(stable=True, descending=True).indices.tolist() == [5, 7, 6, 0, 2, 4, 1, 3]
    assert x.argsort(stable=True).tolist() == [1, 3, 0, 2, 4, 6, 5, 7]


def test_sort_returns_named_tuples_and_sorts_0_dim_and_views() -> None:
    result = framework.sort(T([[3, 1], [2, 0]]).t(), dim=0)
    assert type(result).__name__ == "sort" and type(result).__module__ == "framework.return_types"
    assert result.values.tolist() == [[1, 0], [3, 2]] and result.indices.tolist() == [[1, 1], [0, 0]]
    scalar = framework.sort(T(5.0))
    assert scalar.values.shape == () and scalar.values.item() == 5.0 and scalar.indices.item() == 0
    assert framework.msort(T([[3, 1], [2, 0]])).tolist() == [[2, 0], [3, 1]]
    assert T([[3, 1], [2, 0]]).msort().tolist() == [[2, 0], [3, 1]]


def test_sort_out_variants_write_into_the_given_tensors() -> None:
    x = T([3.0, 1.0, 2.0])
    values, indices = framework.empty(0), framework.empty(0, dtype=framework.int64)
    result = A.sort.values(x, values=values, indices=indices)
    assert result[0] is values and result[1] is indices
    assert values.tolist() == [1.0, 2.0, 3.0] and indices.tolist() == [1, 2, 0]
    A.sort.values_stable(x, stable=True, descending=True, values=values, indices=indices)
    assert values.tolist() == [3.0, 2.0, 1.0] and indices.tolist() == [0, 2, 1]
    out = framework.empty(0, dtype=framework.int64)
    assert framework.argsort(x, stable=True, out=out) is out and out.tolist() == [1, 2, 0]
    sorted_out = framework.empty(0)
    assert framework.msort(x, out=sorted_out) is sorted_out and sorted_out.tolist() == [1.0, 2.0, 3.0]


# ---- topk, kthvalue -------------------------------------------------------------------------------


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
def test_topk_on_distinct_values(largest: bool, dim: int) -> None:
    a = distinct((5, 6))
    values, indices = framework.topk(framework.from_numpy(a), 3, dim, largest)
    order = np.argsort(-a if largest else a, axis=dim)
    expected = np.take(order, [0, 1, 2], axis=dim)
    np.testing.assert_array_equal(indices.numpy(), expected)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, expected, dim))


def test_topk_nan_is_largest_and_0_dim_and_empty() -> None:
    values, _ = T([1.0, NAN, 3.0, 2.0]).topk(2)
    np.testing.assert_array_equal(values.numpy(), [NAN, 3.0])
    assert T([1.0, NAN, 3.0, 2.0]).topk(2, largest=False).indices.tolist() == [0, 3]
    for k in (0, 1):
        result = framework.topk(T(4.0), k)
        assert result.values.shape == () and result.values.item() == 4.0 and result.indices.item() == 0
    assert framework.topk(framework.zeros(0, 3), 2).values.shape == (0, 2)
    assert framework.topk(framework.zeros(3), 0).values.shape == (0,)


@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_on_distinct_values(keepdim: bool) -> None:
    a = distinct((4, 5), seed=1)
    for k in range(1, 6):
        values, indices = framework.kthvalue(framework.from_numpy(a), k, 1, keepdim)
        expected = np.argsort(a, axis=1)[:, k - 1 : k]
        want_shape = (4, 1) if keepdim else (4,)
        assert indices.shape == want_shape
        np.testing.assert_array_equal(indices.numpy().reshape(4, 1), expected)
        np.testing.assert_array_equal(values.numpy().reshape(4, 1), np.take_along_axis(a, expected, 1))


def test_kthvalue_counts_nan_as_largest() -> None:
    result = T([1.0, 0.0, 1.0, 0.0, 1.0, NAN, 2.0, NAN]).kthvalue(7)
    assert np.isnan(result.values.item()) and result.indices.item() == 5
    assert T([3, 1, 2], framework.int16).kthvalue(2).values.item() == 2


# ---- median, nanmedian, mode ----------------------------------------------------------------------


@pytest.mark.parametrize("d", NUMERIC, ids=lambda d: d.name)
def test_median_is_the_lower_median(d: framework.dtype) -> None:
    a = sample((3, 4), d, seed=2)
    lower = np.sort(a, axis=1)[:, 1]
    assert framework.median(framework.from_numpy(a), 1).values.tolist() == lower.tolist()
    assert framework.from_numpy(a).median().item() == np.sort(a.reshape(-1))[5]
    assert framework.nanmedian(framework.from_numpy(a), 1).values.tolist() == lower.tolist()


def test_median_and_nanmedian_with_nans() -> None:
    x = T([[NAN, 1.0, 2.0, NAN], [3.0, 1.0, 2.0, 0.0], [NAN, NAN, NAN, NAN]])
    median = framework.median(x, 1)
    np.testing.assert_array_equal(median.values.numpy(), [NAN, 1.0, NAN])
    assert median.indices.tolist() == [0, 1, 0]  # the first NaN, else the lower median
    nan_median = x.nanmedian(1, keepdim=True)
    np.testing.assert_array_equal(nan_median.values.numpy(), [[1.0], [1.0], [NAN]])
    assert nan_median.indices.tolist()[:2] == [[1], [1]]
    assert np.isnan(x.median().item()) and x.nanmedian().item() == 1.0
    assert np.isnan(framework.median(framework.zeros(0)).item())
    assert np.isnan(framework.nanmedian(framework.zeros(0)).item())


def test_median_out_variants() -> None:
    out = framework.empty(0)
    assert A.median.out(T([3.0, 1.0, 2.0]), out=out) is out and out.item() == 2.0
    values, indices = framework.empty(0), framework.empty(0, dtype=framework.int64)
    A.nanmedian.dim_values(T([[NAN, 3.0, 1.0]]), 1, True, values=values, indices=indices)
    assert values.tolist() == [[1.0]] and indices.tolist() == [[2]]


def test_mode_takes_the_smallest_most_frequent_value_and_its_last_index() -> None:
    result = framework.mode(T([1.0, 0.0, 1.0, 0.0, 3.0, 3.0, 2.0, 0.0, 1.0]))
    assert result.values.item() == 0.0 and result.indices.item() == 7
    assert T([2, 2, 1, 1]).mode().indices.item() == 3
    rows = T([[3, 1, 1, 3, 2], [5, 5, 5, 0, 0]]).mode(1, keepdim=True)
    assert rows.values.tolist() == [[1], [5]] and rows.indices.tolist() == [[2], [2]]
    assert T([[True, False, True], [False, False, True]]).mode().values.tolist() == [True, False]
    assert framework.mode(T(3.0)).indices.item() == 0
    values, indices = framework.empty(0), framework.empty(0, dtype=framework.int64)
    A.mode.values(T([3.0, 1.0, 3.0]), values=values, indices=indices)
    assert values.item() == 3.0 and indices.item() == 2


# ---- cummax, cummin -------------------------------------------------------------------------------


def test_cummax_cummin_point_at_the_last_occurrence_and_keep_nan() -> None:
    result = framework.cummax(T([1.0, 3.0, 3.0, 2.0, NAN, 5.0, NAN]), 0)
    np.testing.assert_array_equal(result.values.numpy(), [1, 3, 3, 3, NAN, NAN, NAN])
    assert result.indices.tolist() == [0, 1, 2, 2, 4, 4, 6]
    low = T([1.0, 0.0, 0.0, 2.0, NAN, -5.0]).cummin(0)
    assert low.indices.tolist() == [0, 1, 2, 2, 4, 4]
    assert T([True, False, True]).cummin(0).values.tolist() == [True, False, False]


@pytest.mark.parametrize("d", REAL, ids=lambda d: d.name)
def test_cummax_matches_numpy(d: framework.dtype) -> None:
    a = sample((3, 7), d, seed=4)
    values, indices = framework.cummax(framework.from_numpy(a), 1)
    np.testing.assert_array_equal(values.numpy(), np.maximum.accumulate(a, axis=1))
    found, at = values.numpy(), indices.numpy()
    for r in range(3):
        for j in range(7):
            i = at[r, j]  # the last position up to j holding the running maximum
            assert i <= j and a[r, i] == found[r, j] and not (a[r, i + 1 : j + 1] == found[r, j]).any()


def test_cummax_0_dim_empty_and_out() -> None:
    scalar = framework.cummax(T(2.0), 0)
    assert scalar.values.item() == 2.0 and scalar.indices.item() == 0
    assert framework.cummin(framework.zeros(0, 3), 1).values.shape == (0, 3)
    values, indices = framework.empty(0), framework.empty(0, dtype=framework.int64)
    result = A.cummax.out(T([3.0, 1.0, 4.0]), 0, values=values, indices=indices)
    assert result[0] is values and values.tolist() == [3.0, 3.0, 4.0] and indices.tolist() == [0, 0, 2]


# ---- unique ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", REAL, ids=lambda d: d.name)
def test_unique_matches_numpy(d: framework.dtype) -> None:
    a = sample((3, 5), d, seed=5)
    values, inverse, counts = framework.unique(
        framework.from_numpy(a), return_inverse=True, return_counts=True
    )
    want, want_inverse, want_counts = np.unique(a, return_inverse=True, return_counts=True)
    assert values.dtype is d and inverse.shape == (3, 5)
    np.testing.assert_array_equal(values.numpy(), want)
    np.testing.assert_array_equal(inverse.numpy().reshape(-1), want_inverse.reshape(-1))
    np.testing.assert_array_equal(counts.numpy(), want_counts)


def test_unique_returns_what_was_asked_for() -> None:
    x = T([3, 1, 2, 1, 3])
    assert framework.unique(x).tolist() == [1, 2, 3]
    _, inverse = framework.unique(x, return_inverse=True)
    assert inverse.tolist() == [2, 0, 1, 0, 2]
    _, counts = x.unique(return_counts=True)
    assert counts.tolist() == [2, 1, 2]
    assert len(x.unique(sorted=False, return_inverse=True, return_counts=True)) == 3
    scalar, scalar_inverse = framework.unique(T(5), return_inverse=True)
    assert scalar.tolist() == [5] and scalar_inverse.shape == ()
    nans = framework.unique(T([3.0, NAN, 1.0, NAN]))
    np.testing.assert_array_equal(nans.numpy(), [1.0, 3.0, NAN, NAN])  # NaNs are never merged


def test_unique_along_a_dim() -> None:
    x = T([[1, 2, 1], [1, 0, 1], [0, 1, 0]])
    values, inverse, counts = framework.unique(x, dim=1, return_inverse=True, return_counts=True)
    assert values.tolist() == [[1, 2], [1, 0], [0, 1]]
    assert inverse.tolist() == [0, 1, 0] and counts.tolist() == [2, 1]
    rows = framework.unique(T([[1, 2], [0, 1], [1, 2]]), dim=0)
    assert rows.tolist() == [[0, 1], [1, 2]]
    empty = framework.unique(framework.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)
    assert empty[0].shape == (0, 3) and empty[1].shape == (0,) and empty[2].shape == (0,)


def test_unique_consecutive() -> None:
    x = T([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = framework.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and counts.tolist() == [2, 2, 1, 2, 1]
    assert x.unique_consecutive().tolist() == [1, 2, 3, 1, 2]
    rows, row_counts = T([[1, 2], [1, 2], [0, 1]]).unique_consecutive(return_counts=True, dim=0)
    assert rows.tolist() == [[1, 2], [0, 1]] and row_counts.tolist() == [2, 1]
    three = A.unique_consecutive(x)
    assert len(three) == 3 and three[1].shape == (0,) and three[2].shape == (0,)


def test_unique_has_no_derivative() -> None:
    x = T([1.0, 2.0, 1.0]).requires_grad_()
    result = framework.unique(x)
    assert result.grad_fn is not None and result.grad_fn.name() == "Unique2Backward0"
    with pytest.raises(NotImplementedError, match=r"the derivative for '_unique2' is not implemented\."):
        result.sum().backward()
    assert framework.unique(x, dim=0).grad_fn.name() == "UniqueDimBackward0"
    assert framework.unique_consecutive(x, dim=0).grad_fn.name() == "UniqueConsecutiveBackward0"


# ---- searchsorted, bucketize ----------------------------------------------------------------------


@pytest.mark.parametrize("d", NUMERIC, ids=lambda d: d.name)
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_matches_numpy(d: framework.dtype, right: bool) -> None:
    boundaries = np.sort(sample((7,), d, seed=6))
    values = sample((3, 4), d, seed=7)
    side = "right" if right else "left"
    want = np.searchsorted(boundaries, values, side=side)
    got = framework.searchsorted(framework.from_numpy(boundaries), framework.from_numpy(values), right=right)
    assert got.dtype is framework.int64
    np.testing.assert_array_equal(got.numpy(), want)
    by_side = framework.searchsorted(
        framework.from_numpy(boundaries), framework.from_numpy(values), side=side
    )
    np.testing.assert_array_equal(by_side.numpy(), want)
    buckets = framework.bucketize(framework.from_numpy(values), framework.from_numpy(boundaries), right=right)
    np.testing.assert_array_equal(buckets.numpy(), want)


def test_searchsorted_rows_sorter_scalars_and_int32() -> None:
    boundaries = T([[1, 3, 5, 7], [2, 4, 6, 8]])
    values = T([[3, 6], [1, 9]])
    assert framework.searchsorted(boundaries, values).tolist() == [[1, 3], [0, 4]]
    assert framework.searchsorted(boundaries, values, right=True).tolist() == [[2, 3], [0, 4]]
    unsorted = T([3.0, 1.0, 2.0])
    sorter = framework.argsort(unsorted)
    assert framework.searchsorted(unsorted, T([2.0, 0.0, 4.0]), sorter=sorter).tolist() == [1, 0, 3]
    assert framework.searchsorted(T([1, 3, 5]), 3, right=True).item() == 2
    assert framework.bucketize(4, T([1, 3, 5])).item() == 2
    narrow = framework.searchsorted(T([1, 3, 5]), T([4]), out_int32=True)
    assert narrow.dtype is framework.int32 and narrow.tolist() == [2]
    mixed = framework.searchsorted(T([1, 2, 2, 3]), T([2.5]))
    assert mixed.tolist() == [3]  # compared in the promoted dtype
    out = framework.empty(0, dtype=framework.int64)
    assert framework.searchsorted(T([1, 3]), T([2, 4]), out=out) is out and out.tolist() == [1, 2]


def test_searchsorted_with_nan_boundaries_follows_pytorchs_binary_search() -> None:
    assert framework.searchsorted(T([1.0, 3.0, NAN]), T([NAN, 4.0, 0.0])).tolist() == [3, 3, 0]
    assert framework.searchsorted(framework.zeros(0), T([1.0])).tolist() == [0]


# ---- Meta -----------------------------------------------------------------------------------------


def test_meta_tensors_get_shapes_and_dtypes() -> None:
    x = framework.empty(3, 4, device="meta")
    values, indices = framework.sort(x, 0)
    assert values.device.type == "meta" and values.shape == (3, 4) and indices.dtype is framework.int64
    assert framework.topk(x, 2).values.shape == (3, 2)
    assert framework.kthvalue(x, 2, 0, True).indices.shape == (1, 4)
    assert framework.median(x).shape == () and framework.mode(x, 1).values.shape == (3,)
    assert framework.cummin(x, 1).indices.shape == (3, 4)
    assert framework.searchsorted(framework.empty(5, device="meta"), x).shape == (3, 4)


# ---- errors (PyTorch 2.13's, recorded) ------------------------------------------------------------

ERRORS: list[tuple[str, Callable[[Any], Any], type[Exception], str]] = [
    (
        "sort complex",
        lambda m: m.sort(m.zeros(2, dtype=m.complex64)),
        RuntimeError,
        " Sort does not support complex dtypes on CPU",
    ),
    (
        "sort dim",
        lambda m: m.sort(m.zeros(3), 1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    ("topk k", lambda m: m.topk(m.zeros(3), 4), RuntimeError, "selected index k out of range"),
    (
        "topk bool",
        lambda m: m.topk(m.zeros(3, dtype=m.bool), 1),
        RuntimeError,
        "topk does not support bool dtypes on CPU",
    ),
    (
        "kthvalue k",
        lambda m: m.kthvalue(m.zeros(3), 4),
        RuntimeError,
        "kthvalue(): selected number k out of range for dimension 0",
    ),
    (
        "kthvalue empty",
        lambda m: m.kthvalue(m.zeros(0), 1),
        IndexError,
        "kthvalue(): Expected reduction dim 0 to have non-zero size.",
    ),
    (
        "kthvalue bool",
        lambda m: m.kthvalue(m.zeros(3, dtype=m.bool), 1),
        NotImplementedError,
        "\"kthvalue_cpu\" not implemented for 'Bool'",
    ),
    (
        "median bool",
        lambda m: m.median(m.zeros(3, dtype=m.bool)),
        NotImplementedError,
        "\"median_cpu\" not implemented for 'Bool'",
    ),
    (
        "median dim complex",
        lambda m: m.median(m.zeros(3, dtype=m.complex64), 0),
        NotImplementedError,
        "\"median_out\" not implemented for 'ComplexFloat'",
    ),
    (
        "nanmedian empty dim",
        lambda m: m.nanmedian(m.zeros(2, 0), 1),
        IndexError,
        "median(): Expected reduction dim 1 to have non-zero size.",
    ),
    (
        "mode empty",
        lambda m: m.mode(m.zeros(0)),
        IndexError,
        "mode(): Expected reduction dim 0 to have non-zero size.",
    ),
    (
        "mode complex",
        lambda m: m.mode(m.zeros(2, dtype=m.complex128)),
        NotImplementedError,
        "\"mode_cpu\" not implemented for 'ComplexDouble'",
    ),
    (
        "cummax complex",
        lambda m: m.cummax(m.zeros(2, dtype=m.complex64), 0),
        NotImplementedError,
        "\"cummax_cpu\" not implemented for 'ComplexFloat'",
    ),
    (
        "unique complex",
        lambda m: m.unique(m.zeros(2, dtype=m.complex64)),
        NotImplementedError,
        "\"unique\" not implemented for 'ComplexFloat'",
    ),
    (
        "unique dim complex",
        lambda m: m.unique(m.zeros(2, dtype=m.complex64), dim=0),
        NotImplementedError,
        "\"unique_dim\" not implemented for 'ComplexFloat'",
    ),
    (
        "unique zero dims",
        lambda m: m.unique(m.zeros(2, 0), dim=0),
        RuntimeError,
        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
    ),
    (
        "unique two zero dims",
        lambda m: m.unique(m.zeros(0, 0), dim=0),
        RuntimeError,
        "Number of zero sized dimensions is more than one, so unique cannot be applied ",
    ),
    (
        "unique 0-dim dim",
        lambda m: m.unique(m.tensor(3), dim=0),
        IndexError,
        "Dimension specified as 0 but tensor has no dimensions",
    ),
    (
        "searchsorted side",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="lft"),
        RuntimeError,
        "torch.searchsorted(): side can only be 'left' or 'right' but got lft",
    ),
    (
        "searchsorted opposite",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="left", right=True),
        RuntimeError,
        "torch.searchsorted(): side and right can't be set to opposites, got side of left while "
        "right was True",
    ),
    (
        "searchsorted sorter size",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), sorter=m.tensor([0])),
        RuntimeError,
        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor [2]and "
        "got sorter tensor [1]",
    ),
    (
        "searchsorted sorter dtype",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), sorter=m.tensor([0, 1], dtype=m.int32)),
        RuntimeError,
        "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Int",
    ),
    (
        "searchsorted sorter range",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), sorter=m.tensor([0, 2])),
        RuntimeError,
        "torch.searchsorted(): sorter index out of range",
    ),
    (
        "searchsorted 0-dim boundaries",
        lambda m: m.searchsorted(m.tensor(1), m.tensor([1, 2])),
        RuntimeError,
        "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
    ),
    (
        "searchsorted dims",
        lambda m: m.searchsorted(m.tensor([[1, 2], [3, 4]]), m.tensor([[1, 2, 3]])),
        RuntimeError,
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
        "boundaries tensor and input value tensor must match, but we got boundaries tensor [2, 2] and "
        "input value tensor [1, 3]",
    ),
    (
        "searchsorted scalar",
        lambda m: m.searchsorted(m.tensor([[1, 2]]), 1),
        RuntimeError,
        "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
        "but we got "
        "boundaries tensor dim(2) and input value's dim(0) numel(1)",
    ),
    (
        "searchsorted out dtype",
        lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), out=m.empty(1, dtype=m.int32)),
        RuntimeError,
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
        "depending on "
        "whether out_int32 flag is True, but we got output tensor's dtype Int and out_int32 flag is False",
    ),
    (
        "searchsorted bool",
        lambda m: m.searchsorted(m.tensor([False, True]), m.tensor([True])),
        NotImplementedError,
        "\"searchsorted_out_cpu\" not implemented for 'Bool'",
    ),
    (
        "bucketize 2-dim",
        lambda m: m.bucketize(m.tensor([1, 2]), m.tensor([[1, 2]])),
        RuntimeError,
        "boundaries tensor must be 1 dimension, but got dim(2)",
    ),
]

OUT_ERRORS: list[tuple[str, Callable[[Any], Any], str]] = [
    (
        "sort.values",
        lambda m: m.ops.aten.sort.values(m.zeros(3), values=m.empty(0), indices=m.empty(0)),
        "Expected out tensor to have dtype long int, but got float instead",
    ),
    (
        "topk.values",
        lambda m: m.ops.aten.topk.values(
            m.zeros(3), 1, values=m.empty(0, dtype=m.int64), indices=m.empty(0, dtype=m.int64)
        ),
        "Expected out tensor to have dtype float, but got long int instead",
    ),
    (
        "kthvalue.values",
        lambda m: m.ops.aten.kthvalue.values(
            m.zeros(3), 1, values=m.empty(0, dtype=m.int64), indices=m.empty(0, dtype=m.int64)
        ),
        "output values must be of same type as input",
    ),
    (
        "kthvalue.values indices",
        lambda m: m.ops.aten.kthvalue.values(m.zeros(3), 1, values=m.empty(0), indices=m.empty(0)),
        "output indices must be of scalar type Long",
    ),
    (
        "median.dim_values",
        lambda m: m.ops.aten.median.dim_values(m.zeros(3), 0, values=m.empty(0), indices=m.empty(0)),
        "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.FloatTensor "
        "instead (while "
        "checking arguments for median)",
    ),
    (
        "nanmedian.dim_values",
        lambda m: m.ops.aten.nanmedian.dim_values(
            m.zeros(3), 0, values=m.empty(0, dtype=m.int64), indices=m.empty(0, dtype=m.int64)
        ),
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
        "torch.LongTensor does not equal torch.FloatTensor (while checking arguments for median)",
    ),
    (
        "mode.values",
        lambda m: m.ops.aten.mode.values(m.zeros(3), values=m.empty(0), indices=m.empty(0)),
        "expected scalar type 'Long' but got 'Float' for indices output",
    ),
    (
        "cummax.out",
        lambda m: m.ops.aten.cummax.out(
            m.zeros(3), 0, values=m.empty(0, dtype=m.int64), indices=m.empty(0, dtype=m.int64)
        ),
        "expected scalar_type Float but found Long",
    ),
    (
        "bucketize.Scalar_out",
        lambda m: m.ops.aten.bucketize.Scalar_out(2, m.tensor([1, 3]), out=m.empty(0)),
        "Expected out tensor to have dtype long int, but got float instead",
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(call: Callable[[Any], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        call(framework)
    assert str(raised.value) == message
    if torch is not None:
        with pytest.raises(error) as theirs:
            call(torch)
        assert str(theirs.value).partition("\n")[0] == message


@pytest.mark.parametrize(("call", "message"), [e[1:] for e in OUT_ERRORS], ids=[e[0] for e in OUT_ERRORS])
def test_out_dtype_errors(call: Callable[[Any], Any], message: str) -> None:
    with pytest.raises(RuntimeError) as raised:
        call(framework)
    assert str(raised.value) == message
    if torch is not None:
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        assert str(theirs.value).partition("\n")[0] == message


# ---- live comparison with PyTorch -----------------------------------------------------------------


def _inputs() -> list[Array]:
    rng = np.random.default_rng(8)
    return [
        rng.integers(0, 4, (3, 6)).astype(np.float32),
        np.array([1.0, 0.0, 1.0, 0.0, 1.0, NAN, 2.0, NAN], dtype=np.float32),
        rng.integers(0, 3, (2, 3, 4)),
        np.array(3.0),
        np.zeros((0, 3), dtype=np.float32),
        rng.integers(0, 3, (5, 4)).astype(np.int16).T,
        distinct((4, 5)),
    ]


def _calls() -> list[tuple[str, Callable[[Any, Any], Any]]]:
    calls: list[tuple[str, Callable[[Any, Any], Any]]] = []
    for dim in (0, -1):
        calls += [
            (f"sort {dim}", lambda m, x, d=dim: m.sort(x, d)),
            (f"sort descending {dim}", lambda m, x, d=dim: m.sort(x, d, True)),
            (f"argsort stable {dim}", lambda m, x, d=dim: m.argsort(x, dim=d, stable=True, descending=True)),
            (f"cummax {dim}", lambda m, x, d=dim: m.cummax(x, d)),
            (f"cummin {dim}", lambda m, x, d=dim: m.cummin(x, d)),
            (f"mode {dim}", lambda m, x, d=dim: m.mode(x, d, True)),
            (f"median values {dim}", lambda m, x, d=dim: m.median(x, d).values),
            (f"nanmedian values {dim}", lambda m, x, d=dim: m.nanmedian(x, d, True).values),
            (f"kthvalue values {dim}", lambda m, x, d=dim: m.kthvalue(x, 1, d).values),
            (f"topk values {dim}", lambda m, x, d=dim: m.topk(x, 1, d).values),
            (
                f"unique dim {dim}",
                lambda m, x, d=dim: m.unique(x, dim=d, return_inverse=True, return_counts=True),
            ),
            (
                f"unique_consecutive dim {dim}",
                lambda m, x, d=dim: m.unique_consecutive(x, dim=d, return_inverse=True, return_counts=True),
            ),
        ]
    return [
        *calls,
        ("msort", lambda m, x: m.msort(x)),
        ("median", lambda m, x: m.median(x)),
        ("nanmedian", lambda m, x: m.nanmedian(x)),
        ("unique", lambda m, x: m.unique(x, return_inverse=True, return_counts=True)),
        ("unique_consecutive", lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True)),
        ("_unique", lambda m, x: m._unique(x, return_inverse=True)),
        ("searchsorted", lambda m, x: m.searchsorted(m.tensor([0.0, 1.0, 1.0, 2.5]), x, right=True)),
        ("bucketize", lambda m, x: m.bucketize(x, m.tensor([0.0, 1.0, 1.0, 2.5]))),
    ]


def _results(value: Any) -> list[Array]:
    if isinstance(value, tuple):
        return [r for v in value for r in _results(v)]
    return [value.numpy()]


@needs_torch
@pytest.mark.parametrize(("name", "call"), _calls(), ids=[c[0] for c in _calls()])
def test_against_torch(name: str, call: Callable[[Any, Any], Any]) -> None:
    for a in _inputs():
        if "unique" in name and "dim" in name and a.ndim == 1 and np.isnan(a).any():
            continue  # PyTorch orders NaN slices by its comparator's whims
        try:
            theirs = call(torch, torch.from_numpy(a.copy()))
        except (RuntimeError, IndexError) as e:
            with pytest.raises(type(e), match=None) as raised:
                call(framework, framework.from_numpy(a.copy()))
            assert str(raised.value) == str(e).partition("\n")[0], (name, a)
            continue
        ours = call(framework, framework.from_numpy(a.copy()))
        for o, t in zip(_results(ours), _results(theirs), strict=True):
            assert o.dtype == t.dtype and o.shape == t.shape, (name, a)
            np.testing.assert_array_equal(o, t, err_msg=f"{name} on {a!r}")
