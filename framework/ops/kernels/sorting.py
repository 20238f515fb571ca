"""Sorting and selection kernels: sort (argsort and msort are composites of it), topk, kthvalue,
median/nanmedian, mode, cummax/cummin, the unique family (_unique, _unique2, unique_dim,
unique_consecutive, unique_dim_consecutive), searchsorted and bucketize.

Orderings are PyTorch's: NaN sorts as the largest value, and sorting is stable in both directions
(equal elements keep their order, as PyTorch's CPU sort always does).  Selections take the
element a stable sort puts at the selected position: the same values as PyTorch always, and the
same indices on inputs without ties; among equal values PyTorch's topk and kthvalue report
whatever its unstable selection algorithm leaves there (the medians' indices agreed with it on
every tied input tried).  mode returns the smallest of the most frequent values and the last
index holding it, as PyTorch does for lanes of up to 16 elements (beyond that its unstable sort
may report another index of that value; a NaN, equal to nothing, counts once).  cummax/cummin
point at the last occurrence of the running extreme (a NaN, once seen, stays the extreme).
searchsorted is PyTorch's binary search, run for all values at once, so NaNs among the boundaries
give the same answers as in PyTorch.  The unique operators always sort their results (as PyTorch's CPU kernels
do, whatever `sorted` says) and never merge NaNs; slices holding NaNs sort as NaN-last
lexicographic order puts them, where PyTorch's comparator leaves their order unspecified.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, dtype, int32, int64
from framework.ops._iter import Number, result_type
from framework.ops.kernels._registry import (
    array,
    aten_op,
    check_out_dtype,
    dispatched_empty,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    register_variants,
    resize_output,
    same_device,
    wrap_dim,
)
from framework.ops.kernels.indexing import along_axis_index
from framework.ops.kernels.reductions import _check_nonempty_dims, _emit_many, _reduced_shape
from framework.ops.kernels.views import _type_string

Array = npt.NDArray[Any]
Pick = Callable[[Array, int], Array]
"""Given an input's elements (at least 1-dim) and a dim, the index along that dim (keepdims) of
the element each lane selects."""


def _lined(a: Array) -> Array:
    """A 0-dim array as a 1-element 1-dim one (the kernels then treat dim 0 as a dim of size 1)."""
    return a.reshape(a.shape or (1,))


def _order(a: Array, axis: int, descending: bool) -> Array:
    """The stable sorting permutation of `a` along `axis` (NaN largest): ascending, or descending
    with equal elements still in their original order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    flipped = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    order: Array = (a.shape[axis] - 1) - np.flip(flipped, axis)
    return order


def _check_out_pair(values: Tensor | None, indices: Tensor | None, d: dtype) -> None:
    if values is not None and indices is not None:
        check_out_dtype(values, d)
        check_out_dtype(indices, int64)


# ---- sort, argsort, msort -------------------------------------------------------------------------


def _sort(
    self: Tensor, dim: int, descending: bool, values: Tensor | None, indices: Tensor | None
) -> tuple[Tensor, Tensor]:
    impl = self._impl
    if impl.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    d = wrap_dim(dim, impl.dim())
    _check_out_pair(values, indices, impl.dtype)

    def compute(a: Array) -> tuple[Array, Array]:
        lined = _lined(a)
        order = _order(lined, d, descending)
        return np.take_along_axis(lined, order, d).reshape(a.shape), order.reshape(a.shape)

    specs = ((impl.sizes, impl.dtype, values), (impl.sizes, int64, indices))
    found, index = _emit_many("sort", self, specs, compute)
    return found, index


@kernel("sort_stable")
def sort_stable(
    self: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False
) -> tuple[Tensor, Tensor]:
    return _sort(self, dim, descending, None, None)


@kernel("sort_stable_out")
def sort_stable_out(
    self: Tensor,
    *,
    stable: bool | None,
    dim: int = -1,
    descending: bool = False,
    values: Tensor,
    indices: Tensor,
) -> tuple[Tensor, Tensor]:
    return _sort(self, dim, descending, values, indices)


@kernel("sort")
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = aten_op("sort.stable")(self, stable=False, dim=dim, descending=descending)
    return result


@kernel("sort_out")
def sort_out(
    self: Tensor, dim: int = -1, descending: bool = False, *, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = aten_op("sort.values_stable")(
        self, stable=False, dim=dim, descending=descending, values=values, indices=indices
    )
    return result


@kernel("argsort")
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    result: Tensor = aten_op("sort.default")(self, dim, descending)[1]
    return result


@kernel("argsort_stable")
def argsort_stable(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    result: Tensor = aten_op("sort.stable")(self, stable=stable, dim=dim, descending=descending)[1]
    return result


@kernel("argsort_stable_out")
def argsort_stable_out(
    self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False, out: Tensor
) -> Tensor:
    values = dispatched_empty((0,), self._impl.dtype, None, self._impl.device)
    aten_op("sort.values_stable")(
        self, stable=stable, dim=dim, descending=descending, values=values, indices=out
    )
    return out


@kernel("msort")
def msort(self: Tensor) -> Tensor:
    result: Tensor = aten_op("sort.default")(self, 0, False)[0]
    return result


@kernel("msort_out")
def msort_out(self: Tensor, *, out: Tensor) -> Tensor:
    indices = dispatched_empty((0,), int64, None, self._impl.device)
    aten_op("sort.values")(self, 0, False, values=out, indices=indices)
    return out


# ---- topk -----------------------------------------------------------------------------------------


def _topk(
    self: Tensor,
    k: int,
    dim: int,
    largest: bool,
    values: Tensor | None,
    indices: Tensor | None,
) -> tuple[Tensor, Tensor]:
    impl = self._impl
    ndim = impl.dim()
    d = wrap_dim(dim, ndim)
    if not 0 <= k <= (impl.sizes[d] if ndim else 1):
        raise RuntimeError("selected index k out of range")
    if impl.dtype is bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if impl.dtype.is_complex:
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    _check_out_pair(values, indices, impl.dtype)
    shape = (*impl.sizes[:d], k, *impl.sizes[d + 1 :]) if ndim else ()

    def compute(a: Array) -> tuple[Array, Array]:
        lined = _lined(a)
        order = np.take(_order(lined, d, largest), np.arange(k if ndim else 1), axis=d)
        return np.take_along_axis(lined, order, d).reshape(shape), order.reshape(shape)

    specs = ((shape, impl.dtype, values), (shape, int64, indices))
    found, index = _emit_many("topk", self, specs, compute)
    return found, index


@kernel("topk")
def topk(
    self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> tuple[Tensor, Tensor]:
    return _topk(self, k, dim, largest, None, None)


@kernel("topk_out")
def topk_out(
    self: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    values: Tensor,
    indices: Tensor,
) -> tuple[Tensor, Tensor]:
    return _topk(self, k, dim, largest, values, indices)


# ---- selections along a dim: kthvalue, median.dim, nanmedian.dim, mode ---------------------------


def _select(
    op: str,
    self: Tensor,
    dim: int,
    keepdim: bool,
    pick: Pick,
    values: Tensor | None,
    indices: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """The element `pick` selects in each lane along `dim`, and its index (`dim` kept as size 1
    with `keepdim`)."""
    impl = self._impl
    ndim = impl.dim()
    d = wrap_dim(dim, ndim)
    axes = (d,) if ndim else ()
    shape = _reduced_shape(impl.sizes, axes, keepdim)

    def compute(a: Array) -> tuple[Array, Array]:
        lined = _lined(a)
        index = pick(lined, d)
        return lined[along_axis_index(index, d)].reshape(shape), index.reshape(shape)

    specs = ((shape, impl.dtype, values), (shape, int64, indices))
    found, index = _emit_many(op, self, specs, compute)
    return found, index


def _lane_shape(a: Array, axis: int) -> tuple[int, ...]:
    """The shape of one value per lane along `axis` (keepdims)."""
    return (*a.shape[:axis], 1, *a.shape[axis + 1 :])


def _at_sorted_position(a: Array, axis: int, position: Array) -> Array:
    """The index of the element a stable ascending sort puts at `position` (keepdims) of each
    lane."""
    return np.take_along_axis(_order(a, axis, False), position, axis)


@kernel("kthvalue_out")
def kthvalue_out(
    self: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    impl = self._impl
    ndim = impl.dim()
    d = wrap_dim(dim, ndim)
    _check_nonempty_dims("kthvalue", impl.sizes, (d,) if ndim else (), whole=False)
    if not 1 <= k <= (impl.sizes[d] if ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if values._impl.dtype is not impl.dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices._impl.dtype is not int64:
        raise RuntimeError("output indices must be of scalar type Long")
    if impl.dtype is bool_ or impl.dtype.is_complex:
        raise not_implemented("kthvalue_cpu", impl.dtype)

    def pick(a: Array, axis: int) -> Array:
        return _at_sorted_position(a, axis, np.full(_lane_shape(a, axis), k - 1))

    return _select("kthvalue", self, dim, keepdim, pick, values, indices)


@kernel("kthvalue")
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    device = self._impl.device
    values = dispatched_empty((0,), self._impl.dtype, None, device)
    indices = dispatched_empty((0,), int64, None, device)
    result: tuple[Tensor, Tensor] = aten_op("kthvalue.values")(
        self, k, dim, keepdim, values=values, indices=indices
    )
    return result


def _median_position(a: Array, axis: int, ignore_nan: bool) -> Array:
    """Per lane (keepdims): the sorted position of the lower median, or with a NaN in the lane
    and `ignore_nan` False, of its first NaN (NaNs sort last)."""
    n = a.shape[axis]
    if a.dtype.kind == "f":
        nans = np.isnan(a).sum(axis=axis, keepdims=True)
    else:
        nans = np.zeros(_lane_shape(a, axis), dtype=np.int64)
    position: Array = (
        np.maximum(n - nans - 1, 0) // 2 if ignore_nan else np.where(nans > 0, n - nans, (n - 1) // 2)
    )
    return position


def _check_median_dtype(op: str, d: dtype) -> None:
    if d is bool_ or d.is_complex:
        raise not_implemented(op, d)


def _median_dim(
    op: str,
    ignore_nan: bool,
    self: Tensor,
    dim: int,
    keepdim: bool,
    values: Tensor | None,
    indices: Tensor | None,
) -> tuple[Tensor, Tensor]:
    impl = self._impl
    if values is not None and indices is not None:
        checked = "while checking arguments for median"
        if indices._impl.dtype is not int64:
            raise RuntimeError(
                f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                f"{_type_string(indices._impl)} instead ({checked})"
            )
        if values._impl.dtype is not impl.dtype:
            raise RuntimeError(
                f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                f"but type {_type_string(values._impl)} does not equal {_type_string(impl)} ({checked})"
            )
    ndim = impl.dim()
    _check_nonempty_dims("median", impl.sizes, (wrap_dim(dim, ndim),) if ndim else (), whole=False)
    _check_median_dtype("median_out", impl.dtype)

    def pick(a: Array, axis: int) -> Array:
        return _at_sorted_position(a, axis, _median_position(a, axis, ignore_nan))

    return _select(op, self, dim, keepdim, pick, values, indices)


def _median_all(ignore_nan: bool, self: Tensor) -> Tensor:
    """median()/nanmedian(): the lower median of all elements (NaN for no elements, and for
    median() when any element is NaN)."""
    impl = self._impl
    _check_median_dtype("median_cpu", impl.dtype)

    def compute(a: Array) -> tuple[Array]:
        flat = a.reshape(1, -1)
        if flat.size == 0:
            with np.errstate(invalid="ignore"):
                return (np.array(np.nan).astype(a.dtype),)
        return (flat[0, _at_sorted_position(flat, 1, _median_position(flat, 1, ignore_nan))[0, 0]],)

    (result,) = _emit_many("median", self, (((), impl.dtype, None),), compute)
    return result


def _median_all_out(op: str, self: Tensor, out: Tensor) -> Tensor:
    """median.out/nanmedian.out: the functional result copied into `out`."""
    check_out_dtype(out, self._impl.dtype)
    result: Tensor = aten_op(f"{op}.default")(self)
    resize_output(out, ())
    aten_op("copy_.default")(out, result)
    return out


def _median_kernels(op: str, ignore_nan: bool) -> None:
    """Register `<op>` (median or nanmedian, which skips NaNs) over all elements and along a dim,
    each with its out= variant."""

    def whole(self: Tensor) -> Tensor:
        return _median_all(ignore_nan, self)

    def whole_out(self: Tensor, *, out: Tensor) -> Tensor:
        return _median_all_out(op, self, out)

    def along(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
        return _median_dim(op, ignore_nan, self, dim, keepdim, None, None)

    def along_out(
        self: Tensor, dim: int, keepdim: bool = False, *, values: Tensor, indices: Tensor
    ) -> tuple[Tensor, Tensor]:
        return _median_dim(op, ignore_nan, self, dim, keepdim, values, indices)

    register_variants(op, {"": whole, "_all_out": whole_out, "_dim": along, "_dim_out": along_out})


_median_kernels("median", ignore_nan=False)
_median_kernels("nanmedian", ignore_nan=True)


def _mode_pick(a: Array, axis: int) -> Array:
    """Per lane: the last index of the smallest of the most frequent values (a NaN equals
    nothing, so each NaN counts once)."""
    moved = np.moveaxis(a, axis, -1)
    n = moved.shape[-1]
    lanes = moved.reshape(-1, n)
    order = np.argsort(lanes, axis=1, kind="stable")
    ranked = np.take_along_axis(lanes, order, 1)
    starts = np.ones(lanes.shape, dtype=np.bool_)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    ends = np.ones(lanes.shape, dtype=np.bool_)
    ends[:, :-1] = starts[:, 1:]
    positions = np.arange(n)
    run_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    lengths = np.where(ends, positions - run_start + 1, 0)
    best = lengths.argmax(axis=1)[:, None]
    index = np.take_along_axis(order, best, 1)
    return np.moveaxis(index.reshape((*moved.shape[:-1], 1)), -1, axis)


def _mode(
    self: Tensor, dim: int, keepdim: bool, values: Tensor | None, indices: Tensor | None
) -> tuple[Tensor, Tensor]:
    impl = self._impl
    if values is not None and indices is not None:
        for out, expected, which in ((values, impl.dtype, "values"), (indices, int64, "indices")):
            got = out._impl.dtype
            if got is not expected:
                raise RuntimeError(
                    f"expected scalar type '{expected.scalar_type_name}' but got '{got.scalar_type_name}' "
                    f"for {which} output"
                )
    ndim = impl.dim()
    _check_nonempty_dims("mode", impl.sizes, (wrap_dim(dim, ndim),) if ndim else (), whole=False)
    if impl.dtype.is_complex:
        raise not_implemented("mode_cpu", impl.dtype)
    return _select("mode", self, dim, keepdim, _mode_pick, values, indices)


@kernel("mode")
def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _mode(self, dim, keepdim, None, None)


@kernel("mode_out")
def mode_out(
    self: Tensor, dim: int = -1, keepdim: bool = False, *, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    return _mode(self, dim, keepdim, values, indices)


# ---- cummax, cummin -------------------------------------------------------------------------------


def _cumulative_extreme(
    op: str, accumulate: Any, self: Tensor, dim: int, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    """cummax/cummin into `values` and `indices` (resized): the running extreme along `dim` and
    the last index where it occurred (a NaN, once seen, is the extreme)."""
    impl = self._impl
    for out, expected in ((values, impl.dtype), (indices, int64)):
        got = out._impl.dtype
        if got is not expected:
            raise RuntimeError(
                f"expected scalar_type {expected.scalar_type_name} but found {got.scalar_type_name}"
            )
    same_device(op, (self, values, indices))
    d = wrap_dim(dim, impl.dim())
    if impl.dtype.is_complex:
        raise not_implemented(f"{op}_cpu", impl.dtype)
    resize_output(values, impl.sizes)
    resize_output(indices, impl.sizes)
    if is_meta(impl.device):
        return values, indices
    a = _lined(array(self))
    running = accumulate(a, axis=d)
    reached = a == running
    if a.dtype.kind == "f":
        reached |= np.isnan(a)
    positions = np.arange(a.shape[d]).reshape((-1,) + (1,) * (a.ndim - d - 1))
    array(values)[...] = running.reshape(impl.sizes)
    array(indices)[...] = np.maximum.accumulate(np.where(reached, positions, 0), axis=d).reshape(impl.sizes)
    return values, indices


@kernel("cummax_out")
def cummax_out(self: Tensor, dim: int, *, values: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    return _cumulative_extreme("cummax", np.maximum.accumulate, self, dim, values, indices)


@kernel("cummin_out")
def cummin_out(self: Tensor, dim: int, *, values: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    return _cumulative_extreme("cummin", np.minimum.accumulate, self, dim, values, indices)


def _new_pair(self: Tensor) -> tuple[Tensor, Tensor]:
    """Outputs of the input's shape: values of its dtype and int64 indices."""
    impl = self._impl
    return new_tensor(impl.sizes, impl.dtype, impl.device), new_tensor(impl.sizes, int64, impl.device)


@kernel("cummax")
def cummax(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _cumulative_extreme("cummax", np.maximum.accumulate, self, dim, *_new_pair(self))


@kernel("cummin")
def cummin(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _cumulative_extreme("cummin", np.minimum.accumulate, self, dim, *_new_pair(self))


# ---- unique ---------------------------------------------------------------------------------------


def _unique_rows(rows: Array, sort: bool) -> tuple[Array, Array, Array]:
    """The distinct rows of a 2-dim array (lexicographically sorted, or only runs of equal
    consecutive rows merged), each row's group, and each group's size."""
    n = rows.shape[0]
    order = np.lexsort(rows.T[::-1]) if sort and n else np.arange(n)
    ranked = rows[order]
    starts = np.ones(n, dtype=np.bool_)
    starts[1:] = np.any(ranked[1:] != ranked[:-1], axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, n))
    return ranked[first], inverse, counts


def _tensor_of(value: Array, d: dtype, like: Tensor) -> Tensor:
    result = new_tensor(value.shape, d, like._impl.device)
    array(result)[...] = value
    return result


def _no_output(like: Tensor) -> Tensor:
    return new_tensor((0,), int64, like._impl.device)


def _unique_flat(
    self: Tensor, sort: bool, return_inverse: bool, return_counts: bool
) -> tuple[Tensor, Tensor, Tensor]:
    """_unique2/unique_consecutive: the distinct elements of the flattened input, the group of
    each input element (shaped as the input) and each group's size; the last two only when asked
    for (else empty)."""
    impl = self._impl
    if impl.dtype.is_complex:
        raise not_implemented("unique", impl.dtype)
    a = array(self)
    found, inverse, counts = _unique_rows(a.reshape(-1, 1), sort)
    return (
        _tensor_of(found.reshape(-1), impl.dtype, self),
        _tensor_of(inverse.reshape(a.shape), int64, self) if return_inverse else _no_output(self),
        _tensor_of(counts, int64, self) if return_counts else _no_output(self),
    )


def _unique_along(op: str, self: Tensor, dim: int, sort: bool) -> tuple[Tensor, Tensor, Tensor]:
    """unique_dim/unique_dim_consecutive: the distinct slices along `dim`, the group of each
    slice and each group's size."""
    impl = self._impl
    if impl.dtype.is_complex:
        raise not_implemented(op, impl.dtype)
    d = wrap_dim(dim, impl.dim(), wrap_scalar=False)
    sizes = impl.sizes
    if impl.numel() == 0:
        if sizes.count(0) > 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        if sizes[d] != 0:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
            )
    moved = np.moveaxis(array(self), d, 0)
    found, inverse, counts = _unique_rows(moved.reshape(moved.shape[0], math.prod(moved.shape[1:])), sort)
    slices = np.moveaxis(found.reshape((found.shape[0], *moved.shape[1:])), 0, d)
    return (
        _tensor_of(slices, impl.dtype, self),
        _tensor_of(inverse, int64, self),
        _tensor_of(counts, int64, self),
    )


@kernel("unique2")
def unique2(
    self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    return _unique_flat(self, True, return_inverse, return_counts)


@kernel("unique")
def unique(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:
    found, inverse, _ = _unique_flat(self, True, return_inverse, False)
    return found, inverse


@kernel("unique_dim")
def unique_dim(
    self: Tensor, dim: int, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    return _unique_along("unique_dim", self, dim, True)


@kernel("unique_dim_consecutive")
def unique_dim_consecutive(
    self: Tensor, dim: int, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    return _unique_along("unique_dim", self, dim, False)


@kernel("unique_consecutive")
def unique_consecutive(
    self: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    if dim is None or (dim == 0 and self._impl.dim() == 1):
        return _unique_flat(self, False, return_inverse, return_counts)
    return _unique_along("unique_dim", self, dim, False)


# ---- searchsorted, bucketize ----------------------------------------------------------------------


def _searchsorted_checks(
    boundaries: Tensor,
    values: Tensor | Number,
    out_dtype: dtype | None,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: Tensor | None,
) -> None:
    """PyTorch's searchsorted_pre_check, in its order."""
    bd = boundaries._impl
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(
                f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} while "
                "right was True"
            )
    tensors = (boundaries, values) if isinstance(values, Tensor) else (boundaries,)
    same_device("searchsorted", tensors if sorter is None else (*tensors, sorter))
    if sorter is not None:
        st = sorter._impl
        if st.sizes != bd.sizes:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{list(bd.sizes)}and got sorter tensor {list(st.sizes)}"
            )
        if st.dtype is not int64:
            raise RuntimeError(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                f"{st.dtype.scalar_type_name}"
            )
        if not is_meta(st.device) and st.numel():
            s = array(sorter)
            if s.max() >= bd.sizes[-1] or s.min() < 0:
                raise RuntimeError("torch.searchsorted(): sorter index out of range")
    in_sizes = values._impl.sizes if isinstance(values, Tensor) else ()
    in_numel = values._impl.numel() if isinstance(values, Tensor) else 1
    if not in_sizes and not (in_numel == 1 and bd.dim() == 1):
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
            f"but we got boundaries tensor dim({bd.dim()}) and input value's dim(0) numel({in_numel})"
        )
    if bd.dim() == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if bd.dim() != 1 and (len(in_sizes) != bd.dim() or in_sizes[:-1] != bd.sizes[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(bd.sizes)} and input value tensor {list(in_sizes)}"
        )
    if out_dtype is not None and out_dtype is not (int32 if out_int32 else int64):
        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
            "depending on whether out_int32 flag is True, but we got output tensor's dtype "
            f"{out_dtype.scalar_type_name} and out_int32 flag is {out_int32}"
        )


def _binary_search(bd: Array, sorter: Array | None, v: Array, right: bool) -> Array:
    """PyTorch's lower (upper, with `right`) bound search of each row of `v` in the same row of
    `bd` (in the order `sorter` gives), one halving step for all values at once: `bd` and
    `sorter` are (rows, m), `v` is (rows, k) or (1, k)."""
    m = bd.shape[1]
    start = np.zeros(v.shape, dtype=np.int64)
    end = np.full(v.shape, m, dtype=np.int64)
    for _ in range(m.bit_length()):
        mid = start + ((end - start) >> 1)
        position = np.minimum(mid, m - 1)
        if sorter is not None:
            position = np.take_along_axis(sorter, position, 1)
        probe = np.take_along_axis(bd, position, 1)
        advance = ~(probe > v) if right else ~(probe >= v)
        active = start < end
        start = np.where(active & advance, mid + 1, start)
        end = np.where(active & ~advance, mid, end)
    return start


def _searchsorted(
    boundaries: Tensor,
    values: Tensor | Number,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: Tensor | None,
    out: Tensor | None,
) -> Tensor:
    _searchsorted_checks(
        boundaries, values, None if out is None else out._impl.dtype, out_int32, right, side, sorter
    )
    shape = values._impl.sizes if isinstance(values, Tensor) else ()
    result_dtype = int32 if out_int32 else int64
    device = boundaries._impl.device
    if out is None:
        result = new_tensor(shape, result_dtype, device)
    else:
        resize_output(out, shape)
        result = out
    if is_meta(device) or (isinstance(values, Tensor) and values._impl.numel() == 0):
        return result
    common = result_type(boundaries, values)
    if common is bool_ or common.is_complex:
        raise not_implemented("searchsorted_out_cpu", common)
    bd = array(boundaries).astype(common.numpy_dtype, copy=False)
    v = (array(values) if isinstance(values, Tensor) else np.array(values)).astype(common.numpy_dtype)
    upper = right or side == "right"
    order = None if sorter is None else array(sorter)
    if bd.ndim == 1 and not (bd.dtype.kind == "f" and np.isnan(bd).any()):
        # Without NaN boundaries every binary search finds the bound NumPy's does (NaN values
        # sort last in both).
        found = np.searchsorted(bd, v, side="right" if upper else "left", sorter=order)
    else:
        rows = bd.reshape(math.prod(bd.shape[:-1]), bd.shape[-1])
        search_order = None if order is None else order.reshape(rows.shape)
        found = _binary_search(rows, search_order, v.reshape(rows.shape[0] if bd.ndim > 1 else 1, -1), upper)
    array(result)[...] = found.reshape(shape)
    return result


@kernel("searchsorted")
def searchsorted(
    sorted_sequence: Tensor,
    self: Tensor | Number,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, None)


@kernel("searchsorted_out")
def searchsorted_out(
    sorted_sequence: Tensor,
    self: Tensor | Number,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
    out: Tensor,
) -> Tensor:
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, out)


def _bucketize(
    values: Tensor | Number, boundaries: Tensor, out_int32: bool, right: bool, out: Tensor | None
) -> Tensor:
    if boundaries._impl.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._impl.dim()})")
    return _searchsorted(boundaries, values, out_int32, right, None, None, out)


@kernel("bucketize")
def bucketize(
    self: Tensor | Number, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    return _bucketize(self, boundaries, out_int32, right, None)


@kernel("bucketize_out")
def bucketize_out(
    self: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Tensor
) -> Tensor:
    return _bucketize(self, boundaries, out_int32, right, out)


@kernel("bucketize_scalar_out")
def bucketize_scalar_out(
    self: Number, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Tensor
) -> Tensor:
    """bucketize.Scalar_out (CompositeExplicitAutograd): the functional result copied into `out`."""
    result: Tensor = aten_op("bucketize.Scalar")(self, boundaries, out_int32=out_int32, right=right)
    check_out_dtype(out, result._impl.dtype)
    resize_output(out, result._impl.sizes)
    aten_op("copy_.default")(out, result)
    return out
