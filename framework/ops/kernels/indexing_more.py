"""More indexing kernels: index_add, index_copy, index_fill, index_reduce, scatter_reduce,
masked_scatter, take and put, the *_scatter operators (select, slice, diagonal, as_strided),
take_along_dim, argwhere and fill_diagonal_.

They reuse the checks and helpers of kernels/indexing.py.  The "index_*" operators write slices
of `self` picked along `dim` by a vector of indices; take and put see `self` as flat (row-major
order); the *_scatter operators are a copy of `self` with one view of it overwritten.  Reductions
combine repeated targets unbuffered (`ufunc.at`), each target receiving every value sent to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor, warn_once
from framework.c10.device import MemoryFormat
from framework.c10.dtypes import REDUCED_FLOAT_NUMPY, bool_, dtype, int64
from framework.ops._iter import Number, broadcast_shapes
from framework.ops.kernels._registry import (
    INTERNAL_OVERLAP,
    array,
    aten_op,
    checked_scalar,
    forward_kernel,
    has_internal_overlap,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    out_dtype_message,
    register_variants,
    wrap_dim,
)
from framework.ops.kernels.indexing import (
    _INDEX_DTYPES,
    _check_devices,
    _check_index_values,
    _check_overlap,
    _copy_of,
    _index_array,
    _nonempty_array,
    _prepare_out,
    _scatter_meta,
    _warn_expanded,
    fill_value,
    put_values,
    scatter_target,
)

Array = npt.NDArray[Any]
Check = Callable[..., Any]
Fill = Callable[..., None]

_INDEX_REDUCTIONS: Final = ("prod", "mean", "amax", "amin")
_SCATTER_REDUCTIONS: Final = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS: Final[dict[str, np.ufunc]] = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}


def _register(
    name: str,
    check: Check,
    fill: Fill,
    *,
    functional_kernel: bool = True,
    expanded_example: str | None = None,
) -> None:
    """Register `name` (a contiguous copy of self, then written; unless not `functional_kernel`),
    `name_` (self written in place) and `name_out`.  `check(self, *args, **kwargs)` refuses bad
    arguments and returns what `fill` needs; `fill(target, checked, self, *args, **kwargs)`
    writes into `target`, which holds self's values, on the CPU only.  The in-place variant
    refuses an expanded self, or with `expanded_example` only warns (PyTorch's deprecation)."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        checked = check(self, *args, **kwargs)
        out = _copy_of(self)
        if not is_meta(out._impl.device):
            fill(out, checked, self, *args, **kwargs)
        return out

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        checked = check(self, *args, **kwargs)
        if not is_meta(self._impl.device):
            if expanded_example is not None:
                _warn_expanded(f"{name}_", self, expanded_example)
            elif has_internal_overlap(self._impl):
                raise RuntimeError(INTERNAL_OVERLAP)
            _check_overlap(self, [a for a in args if isinstance(a, Tensor)])
            fill(self, checked, self, *args, **kwargs)
        return self

    def out_variant(self: Tensor, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        checked = check(self, *args, **kwargs)
        _prepare_out(out, self._impl.sizes, self._impl.dtype, out_dtype_message)
        if not is_meta(out._impl.device):
            _check_overlap(out, [a for a in args if isinstance(a, Tensor)])
            array(out)[...] = array(self)
            fill(out, checked, self, *args, **kwargs)
        return out

    variants = {"_": inplace, "_out": out_variant}
    if functional_kernel:
        variants[""] = functional
    register_variants(name, variants)


def _dim_target(dim: int, idx: Array) -> tuple[Any, ...]:
    """The index of the slices `idx` picks along `dim`."""
    return (*(slice(None),) * dim, idx)


def _identity(reduce: str, d: np.dtype[Any]) -> Any:
    """The value a reduction starts from when self's values are left out."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if d.kind == "b":
        return reduce == "amin"
    if d.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(d)
    return info.min if reduce == "amax" else info.max


def _reduce_into(
    a: Array, target: tuple[Any, ...], values: Any, reduce: str, include_self: bool, *, wide_half: bool
) -> None:
    """Combine `values` into `a[target]` by `reduce` (starting from the reduction's identity at the
    targets unless `include_self`).  "mean" then divides each target by how many values it
    received (plus one for self), integers with floor division.  float16 values are combined in
    float32 and rounded once (`wide_half`: scatter_reduce's loops) or rounded at every step
    (index_reduce's); the division is a float16 one either way."""
    acc = a.astype(np.float32) if wide_half and a.dtype in REDUCED_FLOAT_NUMPY else a
    if not include_self:
        acc[target] = _identity(reduce, acc.dtype)
    _UFUNCS[reduce].at(acc, target, np.asarray(values).astype(acc.dtype, copy=False))
    if acc is not a:
        a[...] = acc
    if reduce == "mean":
        count = np.full(a.shape, int(include_self), dtype=np.int64)
        np.add.at(count, target, 1)
        np.maximum(count, 1, out=count)
        if a.dtype.kind in "fc":
            np.divide(a, count.astype(a.dtype), out=a)
        else:
            np.floor_divide(a, count, out=a, casting="unsafe")


def _check_scatter_reduce_dtype(reduce: str, d: dtype) -> None:
    """The reductions PyTorch's CPU scatter_reduce has no kernel for."""
    if (d.is_complex and reduce in ("amax", "amin")) or (d is bool_ and reduce == "mean"):
        raise not_implemented(f"scatter_gather_tensor_cpu_reduce_{reduce}", d)


def _check_index_reduce_dtype(reduce: str, include_self: bool, d: dtype) -> None:
    """The reductions PyTorch's CPU index_reduce has no kernel for."""
    if not include_self and (d is bool_ or d.is_complex):
        raise not_implemented("index_reduce_func_exclude_input_init", d)
    if d.is_complex and reduce in ("amax", "amin"):
        raise not_implemented("maximum_cpu" if reduce == "amax" else "minimum_cpu", d)
    if d is bool_ and reduce == "mean":
        raise not_implemented("div_floor_cpu", d)


# ---- index_add, index_reduce ---------------------------------------------------------------------


def _check_one_device(op: str, self: Tensor, index: Tensor, source: Tensor) -> None:
    """index_add and index_copy want all three on one device (a CPU index with Meta self too)."""
    devices = (self._impl.device, index._impl.device, source._impl.device)
    if len({d.device_type for d in devices}) > 1:
        raise RuntimeError(
            f"{op}(): self, index and source expected to be in the same device, but got (self) {devices[0]}, "
            f"(index) {devices[1]}, and (source) {devices[2]}"
        )


def _index_func_check(op: str, self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """The checks of index_add_ and index_reduce_ (PyTorch's index_func_meta_impl); the wrapped dim."""
    sizes, source_sizes = self._impl.sizes, source._impl.sizes
    d = wrap_dim(dim, len(sizes))
    idx = index._impl
    if idx.dim() > 1:
        raise IndexError(
            f"{op}(): Index is supposed to be a vector, but got dim: {idx.dim()} with type: "
            f"{idx.dtype.scalar_type_name} and size: {list(idx.sizes)}"
        )
    if idx.dtype not in _INDEX_DTYPES:
        raise RuntimeError(
            f"{op}(): Expected dtype int32/int64 for index but got: {idx.dtype.scalar_type_name}"
        )
    if self._impl.dtype is not source._impl.dtype:
        raise RuntimeError(
            f"{op}(): self ({self._impl.dtype.scalar_type_name}) and source "
            f"({source._impl.dtype.scalar_type_name}) must have the same scalar type"
        )
    if d != 0 and d >= len(source_sizes):
        raise RuntimeError(
            f"{op}(): Indexing dim {d} is out of bounds of the source tensor with dim {len(source_sizes)}"
        )
    expected = source_sizes[d] if source_sizes else 1
    if idx.numel() != expected:
        raise RuntimeError(
            f"{op}(): Number of indices ({idx.numel()}) should be equal to source.size(dim): ({expected}), "
            f"for dim: {d}"
        )
    rest, source_rest = list(sizes), list(source_sizes)
    if rest and source_rest:
        del rest[d], source_rest[d]
    if rest != source_rest:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
            f"self.shape = {list(sizes)} source.shape = {list(source_sizes)}"
        )
    return d


def _index_values(index: Tensor) -> Array:
    return _index_array(index).reshape(-1)


def _check_in_self(idx: Array, size: int) -> None:
    if np.any((idx < 0) | (idx >= size)):
        raise IndexError("index out of range in self")


def _index_add_check(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Number = 1) -> int:
    _check_one_device("index_add", self, index, source)
    return _index_func_check("index_add_", self, dim, index, source)


def _index_add_fill(
    out: Tensor, dim: int, self: Tensor, _: int, index: Tensor, source: Tensor, *, alpha: Number = 1
) -> None:
    a = _nonempty_array(array(out))
    idx = _index_values(index)
    if not idx.size or (out._impl.dim() > 1 and not a.size):
        return
    if out._impl.dim() > 1:
        _check_index_values(idx, a.shape[dim], dim)
    else:
        _check_in_self(idx, a.shape[dim])
    values = _nonempty_array(array(source))
    if alpha != 1:
        values = values * np.asarray(alpha).astype(a.dtype)
    np.add.at(a, _dim_target(dim, idx), values.astype(a.dtype, copy=False))


_register("index_add", _index_add_check, _index_add_fill)


def _index_reduce_check(
    self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True
) -> int:
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    _check_devices("index_reduce_", self, (index, source))
    d = _index_func_check("index_reduce_", self, dim, index, source)
    warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time.")
    return d


def _index_reduce_fill(
    out: Tensor,
    dim: int,
    self: Tensor,
    _: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> None:
    a = _nonempty_array(array(out))
    idx = _index_values(index)
    if not idx.size:
        return
    _check_index_reduce_dtype(reduce, include_self, out._impl.dtype)
    _check_in_self(idx, a.shape[dim])
    values = _nonempty_array(array(source))
    _reduce_into(a, _dim_target(dim, idx), values, reduce, include_self, wide_half=False)


_register("index_reduce", _index_reduce_check, _index_reduce_fill)


# ---- index_copy, index_fill ------------------------------------------------------------------------


def _index_copy_check(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """PyTorch's index_copy_ checks; the wrapped dim."""
    _check_one_device("index_copy", self, index, source)
    sizes, source_sizes = self._impl.sizes, source._impl.sizes
    d = wrap_dim(dim, len(sizes))
    idx = index._impl
    if idx.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.dim()})")
    n = idx.numel()
    if not source_sizes and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if len(source_sizes) != len(sizes) and source_sizes and sizes:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({len(source_sizes)}), destination dimensionality ({len(sizes)})"
        )
    if idx.dtype is not int64:
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {idx.dtype.scalar_type_name}"
        )
    if self._impl.dtype is not source._impl.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{self._impl.dtype.scalar_type_name} and (source) {source._impl.dtype.scalar_type_name}"
        )
    rest = [m for i, m in enumerate(sizes) if i != d]
    source_rest = [m for i, m in enumerate(source_sizes) if i != d]
    if rest != source_rest:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{' '.join(map(str, rest))} at dimension {d} and source slice shape: "
            f"{' '.join(map(str, source_rest))} at dimension 0."
        )
    if source_sizes and n != source_sizes[d]:
        raise IndexError(
            f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source_sizes[d]})"
        )
    return d


def _index_copy_fill(out: Tensor, dim: int, self: Tensor, _: int, index: Tensor, source: Tensor) -> None:
    a = _nonempty_array(array(out))
    idx = _index_values(index)
    if not idx.size:
        return
    size = a.shape[dim]
    bad = (idx < 0) | (idx >= size)
    if np.any(bad):
        value = idx[int(np.argmax(bad))]
        raise IndexError(
            f"index_copy_(): index {value} is out of bounds for dimension {dim} with size {size}"
        )
    a[_dim_target(dim, idx)] = _nonempty_array(array(source))


_register("index_copy", _index_copy_check, _index_copy_fill)


def _index_fill_check(
    self: Tensor, dim: int, index: Tensor, value: Tensor | Number
) -> tuple[int, Number | None]:
    """PyTorch's index_fill_ checks; the wrapped dim and the Scalar (None: a value on Meta)."""
    fill = fill_value(value, "index_fill_")
    _check_devices("index_fill_", self, (index, value if isinstance(value, Tensor) else None))
    if index._impl.dtype is not int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(fill, complex) and not self._impl.dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    d = wrap_dim(dim, max(self._impl.dim(), 1))
    if index._impl.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return d, fill


def _index_fill_fill(
    out: Tensor,
    checked: tuple[int, Number | None],
    self: Tensor,
    _: int,
    index: Tensor,
    value: Tensor | Number,
) -> None:
    dim, fill = checked
    a = _nonempty_array(array(out))
    idx = _index_values(index)
    if not idx.size or fill is None:
        return
    size = a.shape[dim]
    bad = (idx < -size) | (idx >= size)
    if np.any(bad):
        raise IndexError(
            f"index {idx[int(np.argmax(bad))]} is out of bounds for dimension {dim} with size {size}"
        )
    a[_dim_target(dim, idx)] = checked_scalar(fill, out._impl.dtype)


_register(
    "index_fill",
    _index_fill_check,
    _index_fill_fill,
    functional_kernel=False,
    expanded_example="tensor[mask] = scalar",
)


@kernel("index_fill")
def index_fill(self: Tensor, dim: int, index: Tensor, value: Tensor | Number) -> Tensor:
    """A copy of self (keeping its strides) filled by index_fill_ (CompositeExplicitAutograd)."""
    result: Tensor = aten_op(
        "index_fill_.int_Scalar" if not isinstance(value, Tensor) else "index_fill_.int_Tensor"
    )(aten_op("clone.default")(self), dim, index, value)
    return result


# ---- scatter_reduce --------------------------------------------------------------------------------


def _scatter_reduce_check(
    self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> int:
    d = _scatter_meta(self, dim, index, src, None)
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return d


def _scatter_reduce_fill(
    out: Tensor,
    dim: int,
    self: Tensor,
    _: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> None:
    if index._impl.numel() == 0:
        return
    _check_scatter_reduce_dtype(reduce, out._impl.dtype)
    a, target, values = scatter_target(out, dim, index, src)
    _reduce_into(a, target, values, reduce, include_self, wide_half=True)


_register("scatter_reduce", _scatter_reduce_check, _scatter_reduce_fill)


# ---- masked_scatter ----------------------------------------------------------------------------------


def _masked_scatter_check(self: Tensor, mask: Tensor, source: Tensor) -> None:
    _check_devices("masked_scatter_", self, (mask, source))
    if self._impl.dtype is not source._impl.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{self._impl.dtype.scalar_type_name} and {source._impl.dtype.scalar_type_name}"
        )
    if mask._impl.dtype is not bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._impl.dtype.scalar_type_name}"
        )
    aten_op("expand.default")(mask, list(self._impl.sizes))


def _masked_scatter_fill(out: Tensor, mask: Tensor, source: Tensor) -> None:
    """Write source's leading elements, in order, where `mask` (broadcast to `out`) is True."""
    a = array(out)
    selected = np.broadcast_to(array(mask), a.shape)
    count = int(np.count_nonzero(selected))
    values = np.ravel(array(source))
    if values.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    a[selected] = values[:count]


@kernel("masked_scatter_")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _masked_scatter_check(self, mask, source)
    if not is_meta(self._impl.device):
        if has_internal_overlap(self._impl):
            raise RuntimeError(INTERNAL_OVERLAP)
        _masked_scatter_fill(self, mask, source)
    return self


@kernel("masked_scatter")
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """self and mask broadcast together, then a copy of self is written (CompositeExplicitAutograd)."""
    sizes = list(broadcast_shapes(mask._impl.sizes, self._impl.sizes))
    expanded = aten_op("expand.default")(self, sizes)
    result: Tensor = aten_op("masked_scatter_.default")(
        aten_op("clone.default")(expanded, memory_format=MemoryFormat.contiguous_format),
        aten_op("expand.default")(mask, sizes),
        source,
    )
    return result


@kernel("masked_scatter_backward")
def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    """The gradient of masked_scatter's source (of `sizes`): the gradient at the masked positions,
    in order, then zeros for the source elements left unused."""
    selected = aten_op("masked_select.default")(grad_output, mask)
    missing = int(np.prod(sizes)) - selected._impl.numel()
    if missing > 0:
        zeros = aten_op("new_zeros.default")(grad_output, [missing])
        selected = aten_op("cat.default")([selected, zeros], 0)
    result: Tensor = aten_op("view.default")(selected, list(sizes))
    return result


# ---- take, put -----------------------------------------------------------------------------------


def _check_long_index(op: str, index: Tensor) -> None:
    if index._impl.dtype is not int64:
        raise RuntimeError(
            f"{op}(): Expected a long tensor for index, but got {index._impl.dtype.scalar_type_name}"
        )


def _flat_positions(index: Tensor, numel: int) -> Array:
    """The flat positions `index` names in a tensor of `numel` elements (negative ones count from
    the end), refusing the first out-of-range one in element order."""
    idx = _index_values(index)
    bad = (idx < -numel) | (idx >= numel)
    if np.any(bad):
        raise IndexError(
            f"out of range: tried to access index {idx[int(np.argmax(bad))]} on a tensor of {numel} elements."
        )
    positions: Array = np.where(idx < 0, idx + numel, idx)
    return positions


def _take_check(self: Tensor, index: Tensor) -> None:
    _check_long_index("take", index)
    _check_devices("take", self, (index,))


def _take_fill(out: Tensor, self: Tensor, index: Tensor) -> None:
    if is_meta(out._impl.device) or index._impl.numel() == 0:
        return
    numel = self._impl.numel()
    if numel == 0:
        raise IndexError("take(): tried to take from an empty tensor")
    array(out)[...] = np.ravel(array(self))[_flat_positions(index, numel)].reshape(out._impl.sizes)


@kernel("take")
def take(self: Tensor, index: Tensor) -> Tensor:
    _take_check(self, index)
    out = new_tensor(index._impl.sizes, self._impl.dtype, self._impl.device)
    _take_fill(out, self, index)
    return out


def _take_out_message(expected: dtype, got: dtype) -> str:
    return (
        "take(): self and out expected to have the same dtype, but got self.dtype = "
        f"{expected.scalar_type_name} and out.dtype = {got.scalar_type_name}"
    )


@kernel("take_out")
def take_out(self: Tensor, index: Tensor, *, out: Tensor) -> Tensor:
    _take_check(self, index)
    _prepare_out(out, index._impl.sizes, self._impl.dtype, _take_out_message)
    if not is_meta(out._impl.device):
        if has_internal_overlap(out._impl):
            raise RuntimeError(INTERNAL_OVERLAP)
        _check_overlap(out, (index, self))
    _take_fill(out, self, index)
    return out


@kernel("put_")
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Write (or with `accumulate`, add) source's elements at the flat positions `index` names."""
    _check_long_index("put_", index)
    _check_devices("put_", self, (index, source))
    if self._impl.dtype is not source._impl.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{self._impl.dtype.scalar_type_name} and source.dtype = {source._impl.dtype.scalar_type_name}"
        )
    n, m = source._impl.numel(), index._impl.numel()
    if n != m:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() "
            f"= {n}, index.numel() = {m}"
        )
    if m == 0 or is_meta(self._impl.device):
        return self
    if self._impl.numel() == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if has_internal_overlap(self._impl):
        raise RuntimeError(INTERNAL_OVERLAP)
    _check_overlap(self, (index, source))
    a = array(self)
    target = np.unravel_index(_flat_positions(index, a.size), a.shape)
    put_values(a, target, np.ravel(array(source)), accumulate)
    return self


@kernel("put")
def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    result: Tensor = aten_op("put_.default")(aten_op("clone.default")(self), index, source, accumulate)
    return result


# ---- select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter ---------------------------------


def _view_scatter(self: Tensor, src: Tensor, view: Callable[[Tensor], Tensor]) -> Tensor:
    """A copy of self with its `view` overwritten by src (converted to self's dtype)."""
    out: Tensor = aten_op("clone.default")(self)
    part = view(out)
    if part._impl.sizes != src._impl.sizes:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src._impl.sizes)}, slice size = {list(part._impl.sizes)}"
        )
    aten_op("copy_.default")(part, src)
    return out


@kernel("select_scatter")
def select_scatter(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _view_scatter(self, src, lambda t: aten_op("select.int")(t, dim, index))


@kernel("slice_scatter")
def slice_scatter(
    self: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    return _view_scatter(self, src, lambda t: aten_op("slice.Tensor")(t, dim, start, end, step))


@kernel("diagonal_scatter")
def diagonal_scatter(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _view_scatter(self, src, lambda t: aten_op("diagonal.default")(t, offset, dim1, dim2))


@kernel("as_strided_scatter")
def as_strided_scatter(
    self: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    return _view_scatter(self, src, lambda t: aten_op("as_strided.default")(t, size, stride, storage_offset))


def _register_out(name: str, functional: Callable[..., Tensor]) -> None:
    """`name_out`: the functional result, copied into an out= tensor of its dtype (resized)."""

    def out_variant(*args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        result = functional(*args, **kwargs)
        _prepare_out(out, result._impl.sizes, result._impl.dtype, out_dtype_message)
        if not is_meta(out._impl.device):
            array(out)[...] = array(result)
        return out

    register_variants(name, {"_out": out_variant})


for _name, _functional in (
    ("masked_scatter", masked_scatter),
    ("put", put),
    ("select_scatter", select_scatter),
    ("slice_scatter", slice_scatter),
    ("diagonal_scatter", diagonal_scatter),
    ("as_strided_scatter", as_strided_scatter),
):
    _register_out(_name, _functional)


# ---- CompositeImplicitAutograd: take_along_dim, argwhere, fill_diagonal_ -----------------------------


def _take_along_dim_args(self: Tensor, indices: Tensor, dim: int | None) -> tuple[Tensor, int, Tensor]:
    """gather's arguments for take_along_dim: self and indices broadcast against each other
    except along `dim`, indices taken modulo self's size there (without `dim`, both flattened,
    unchecked: gather checks them)."""
    view, expand = aten_op("view.default"), aten_op("expand.default")
    if dim is None:
        return view(self, [-1]), 0, view(indices, [-1])
    ndim, index_ndim = self._impl.dim(), indices._impl.dim()
    if ndim != index_ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{ndim} dimensions for input, and {index_ndim} dimensions for indices"
        )
    if indices._impl.dtype is not int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices._impl.dtype.scalar_type_name}"
        )
    d = wrap_dim(dim, ndim)
    sizes = list(self._impl.sizes)
    sizes[d] = indices._impl.sizes[d]
    shape = list(broadcast_shapes(tuple(sizes), indices._impl.sizes))
    index = expand(indices, shape)
    shape[d] = self._impl.sizes[d]
    wrapped = aten_op("remainder.Scalar")(index, self._impl.sizes[d])
    return expand(self, shape), d, wrapped


@kernel("take_along_dim")
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    source, d, index = _take_along_dim_args(self, indices, dim)
    result: Tensor = aten_op("gather.default")(source, d, index)
    return result


@kernel("take_along_dim_out")
def take_along_dim_out(self: Tensor, indices: Tensor, dim: int | None = None, *, out: Tensor) -> Tensor:
    source, d, index = _take_along_dim_args(self, indices, dim)
    result: Tensor = aten_op("gather.out")(source, d, index, out=out)
    return result


forward_kernel("argwhere", "nonzero.default")


@kernel("fill_diagonal_")
def fill_diagonal_(self: Tensor, fill_value: Number, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal past the first two); with `wrap`, a tall matrix's
    diagonal starts again every width + 1 rows."""
    impl = self._impl
    sizes, strides = impl.sizes, impl.strides
    if len(sizes) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = sizes[0], sizes[1]
    if len(sizes) > 2 and any(n != height for n in sizes[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    as_strided, fill = aten_op("as_strided.default"), aten_op("fill_.Scalar")
    size, stride = min(height, width), sum(strides)
    fill(as_strided(self, [size], [stride], impl.storage_offset), fill_value)
    if wrap and len(sizes) == 2 and height > width + 1:
        step = width + 1
        rest = (impl.numel() + step - 1) // step - size
        fill(as_strided(self, [rest], [stride], impl.storage_offset + strides[0] * step), fill_value)
    return self
