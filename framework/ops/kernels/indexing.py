"""Indexing kernels: index_select, gather, scatter/scatter_add, masked_fill, masked_select,
advanced indexing (`index.Tensor`, `index_put_`), where and nonzero.

Every kernel serves CPU and Meta.  On Meta only what is knowable without data runs (argument
checks, output shape and dtype); operators whose output shape depends on the data (nonzero,
masked_select, indexing with bool masks) raise on Meta as PyTorch does.  Index values are
checked against the indexed sizes before any element is written, with PyTorch's messages.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import REDUCED_FLOAT_NUMPY, bool_, dtype, int32, int64, uint8
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, broadcast_all, broadcast_shapes, result_type
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    INTERNAL_OVERLAP,
    PARTIAL_OVERLAP,
    array,
    aten_op,
    checked_scalar,
    has_internal_overlap,
    is_meta,
    is_non_overlapping_and_dense,
    kernel,
    make_view,
    new_tensor,
    out_dtype_message,
    register_variants,
    resize_output,
    same_device,
    select_bits,
    wrap_dim,
)

Array = npt.NDArray[Any]
Shape = tuple[int, ...]
Index = Sequence[Tensor | None]

_INDEX_DTYPES: Final = (int32, int64)
_ADVANCED_INDEX_DTYPES: Final = (int64, int32, uint8, bool_)
_META_NONZERO: Final = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
    "data-independent implementation does not exist. This implementation returns a fake value, assuming "
    "all elements of the tensor are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)
_META_MASKED_SELECT: Final = (
    "aten::masked_select: attempted to run this operator with Meta tensors, but there was no fake impl or "
    "Meta kernel registered. You may have run into this message while using an operator with PT2 "
    "compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs you'll "
    "need to add a fake impl. Please see the following for next steps:  "
    "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


# ---- shared helpers -----------------------------------------------------------------------------


def _nonempty(sizes: Shape) -> Shape:
    """Sizes with a zero-dim tensor seen as one element of one dimension (ensure_nonempty_*)."""
    return sizes or (1,)


def _nonempty_array(a: Array) -> Array:
    """A view of `a` with at least one dimension (a zero-dim array becomes shape (1,))."""
    return a if a.ndim else a[np.newaxis]


def _nbytes_span(impl: TensorImpl) -> tuple[int, int]:
    begin = impl.storage.data_ptr() + impl.storage_offset * impl.dtype.itemsize
    return begin, begin + impl.numel() * impl.dtype.itemsize


class _Overlap(Enum):
    NO = 0
    FULL = 1
    PARTIAL = 2
    TOO_HARD = 3


def _overlap(a: TensorImpl, b: TensorImpl) -> _Overlap:
    """How the memory of two CPU tensors overlaps (PyTorch's get_overlap_status)."""
    if a is b:
        return _Overlap.FULL
    if a.numel() == 0 or b.numel() == 0:
        return _Overlap.NO
    if not (is_non_overlapping_and_dense(a) and is_non_overlapping_and_dense(b)):
        return _Overlap.TOO_HARD
    (a_begin, a_end), (b_begin, b_end) = _nbytes_span(a), _nbytes_span(b)
    if a_begin == b_begin and a_end == b_end:
        return _Overlap.FULL if a.strides == b.strides else _Overlap.PARTIAL
    return _Overlap.PARTIAL if a_begin < b_end and b_begin < a_end else _Overlap.NO


def _check_overlap(written: Tensor, inputs: Sequence[Tensor | None], *, allow_full: bool = False) -> None:
    """Refuse writing into memory an input reads (assert_no_overlap; TensorIterator ops allow an
    output that is exactly an input: `allow_full`)."""
    if is_meta(written._impl.device):
        return
    refused = (_Overlap.PARTIAL,) if allow_full else (_Overlap.PARTIAL, _Overlap.FULL)
    for t in inputs:
        if t is not None and not is_meta(t._impl.device) and _overlap(written._impl, t._impl) in refused:
            raise RuntimeError(PARTIAL_OVERLAP)


def _warn_expanded(op: str, t: Tensor, example: str) -> None:
    if has_internal_overlap(t._impl):
        warnings.warn(
            f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
            f"this operation. This also applies to advanced indexing e.g. {example}",
            UserWarning,
            stacklevel=4,
        )


OutDtypeMessage = Callable[[dtype, dtype], str]


def _same_dtype_message(op: str) -> OutDtypeMessage:
    return lambda expected, got: f"{op}: self and result must have the same scalar type"


def _prepare_out(out: Tensor, sizes: Shape, expected: dtype, message: OutDtypeMessage) -> None:
    """An out= tensor checked for the exact result dtype and resized to the result's sizes."""
    got = out._impl.dtype
    if got is not expected:
        raise RuntimeError(message(expected, got))
    resize_output(out, sizes)


def _check_devices(op: str, self: Tensor, tensors: Sequence[Tensor | None]) -> None:
    """The tensors live on self's device, or on the CPU when self is on Meta (PyTorch accepts CPU
    indices and zero-dim CPU values for tensors of any device)."""
    meta_self = is_meta(self._impl.device)
    others = (t for t in tensors if t is not None and not (meta_self and not is_meta(t._impl.device)))
    same_device(op, (self, *others))


def _copy_of(self: Tensor) -> Tensor:
    """A new contiguous tensor with `self`'s values (the starting point of out-of-place variants)."""
    impl = self._impl
    result = new_tensor(impl.sizes, impl.dtype, impl.device)
    if not is_meta(impl.device):
        array(result)[...] = array(self)
    return result


def _index_array(t: Tensor) -> Array:
    a = array(t)
    return a if a.dtype == np.intp else a.astype(np.intp)


def along_axis_index(idx: Array, dim: int) -> tuple[Array, ...]:
    """The advanced index that pairs each position of `idx` with the element at that position but
    `idx`'s value as its coordinate along `dim` (np.indices(sparse=True) with `idx` at `dim`; what
    np.take_along_axis indexes with)."""
    ndim = idx.ndim
    return tuple(
        idx if i == dim else np.arange(n).reshape((1,) * i + (n,) + (1,) * (ndim - i - 1))
        for i, n in enumerate(idx.shape)
    )


# ---- index_select -------------------------------------------------------------------------------


def _index_select_meta(self: Tensor, dim: int, index: Tensor) -> tuple[Shape, int]:
    same_device("index_select", (self, index))
    sizes = self._impl.sizes
    d = wrap_dim(dim, len(sizes))
    if index._impl.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._impl.dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = index._impl.numel()
    if not sizes:
        if n != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
        return (), d
    if len(sizes) > 1 and sizes[d] == 0 and n:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    return (*sizes[:d], n, *sizes[d + 1 :]), d


def _index_select_fill(out: Tensor, self: Tensor, dim: int, index: Tensor) -> None:
    if is_meta(out._impl.device):
        return
    a = _nonempty_array(array(self))
    idx = _index_array(index).reshape(-1)
    size = a.shape[dim]
    bad = (idx < 0) | (idx >= size)
    if np.any(bad):
        # PyTorch's kernels word this differently: the one for an empty self and the one for dim 1
        # into a contiguous result name the index, the general one does not.
        if a.ndim > 1 and (a.size == 0 or (dim == 1 and out._impl.is_contiguous())):
            first = idx[int(np.argmax(bad))]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={size}")
        raise IndexError("index out of range in self")
    array(out)[...] = np.take(a, idx, axis=dim).reshape(out._impl.sizes)


@kernel("index_select")
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    sizes, d = _index_select_meta(self, dim, index)
    out = new_tensor(sizes, self._impl.dtype, self._impl.device)
    _index_select_fill(out, self, d, index)
    return out


@kernel("index_select_out")
def index_select_out(self: Tensor, dim: int, index: Tensor, *, out: Tensor) -> Tensor:
    sizes, d = _index_select_meta(self, dim, index)
    _prepare_out(out, sizes, self._impl.dtype, _same_dtype_message("index_select()"))
    _check_overlap(out, (self, index))
    _index_select_fill(out, self, d, index)
    return out


# ---- gather, scatter, scatter_add ----------------------------------------------------------------


def _check_index_dtype(op: str, index: Tensor) -> None:
    if index._impl.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


def _check_index_values(idx: Array, size: int, dim: int) -> None:
    """Refuse gather/scatter index values outside [0, size) (no negative indices), naming the first
    one in element order.  `idx` holds intp values and at least one element: seen as unsigned, a
    negative value is past every size, so one maximum checks both bounds."""
    if np.maximum.reduce(idx.view(np.uintp), axis=None) < size:
        return
    bad = (idx < 0) | (idx >= size)
    if np.any(bad):
        value = idx.ravel()[int(np.argmax(bad.ravel()))]
        raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}")


def _gather_meta(self: Tensor, dim: int, index: Tensor) -> int:
    same_device("gather", (self, index))
    sizes, index_sizes = self._impl.sizes, index._impl.sizes
    d = wrap_dim(dim, len(sizes))
    _check_index_dtype("gather", index)
    if index._impl.numel() == 0:
        return d
    self_sizes, idx_sizes = _nonempty(sizes), _nonempty(index_sizes)
    if len(self_sizes) != len(idx_sizes):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i, (n, m) in enumerate(zip(idx_sizes, self_sizes, strict=True)):
        if i != d and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {i} expected index {list(index_sizes)} to be no larger "
                f"than self {list(sizes)} apart from dimension {d}"
            )
    return d


def _gather_fill(out: Tensor, self: Tensor, dim: int, index: Tensor) -> None:
    if is_meta(out._impl.device) or index._impl.numel() == 0:
        return
    a = _nonempty_array(array(self))
    idx = _nonempty_array(_index_array(index))
    _check_index_values(idx, a.shape[dim], dim)
    # Only the leading `index.size(i)` entries of each other dimension take part.
    array(out)[...] = a[along_axis_index(idx, dim)].reshape(out._impl.sizes)


@kernel("gather")
def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    d = _gather_meta(self, dim, index)
    out = new_tensor(index._impl.sizes, self._impl.dtype, self._impl.device)
    _gather_fill(out, self, d, index)
    return out


@kernel("gather_out")
def gather_out(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Tensor) -> Tensor:
    d = _gather_meta(self, dim, index)
    _prepare_out(out, index._impl.sizes, self._impl.dtype, out_dtype_message)
    _check_overlap(out, (self, index))
    _gather_fill(out, self, d, index)
    return out


ScatterSource = Tensor | Number
_SCATTER_REDUCTIONS: Final[dict[str, np.ufunc]] = {"add": np.add, "multiply": np.multiply}


def _scatter_meta(self: Tensor, dim: int, index: Tensor, src: ScatterSource, reduce: str | None) -> int:
    """Checks of scatter and scatter_add (PyTorch's scatter_meta_impl); returns the wrapped dim."""
    tensors = (self, index, src) if isinstance(src, Tensor) else (self, index)
    same_device("scatter", tensors)
    sizes, index_sizes = self._impl.sizes, index._impl.sizes
    d = wrap_dim(dim, len(sizes))
    _check_index_dtype("scatter", index)
    if isinstance(src, Tensor) and src._impl.dtype is not self._impl.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index._impl.numel() != 0:
        _scatter_shape_check(sizes, d, index_sizes, src._impl.sizes if isinstance(src, Tensor) else None)
    if reduce is not None and reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return d


def _scatter_shape_check(sizes: Shape, dim: int, index_sizes: Shape, src_sizes: Shape | None) -> None:
    self_sizes, idx_sizes = _nonempty(sizes), _nonempty(index_sizes)
    if len(self_sizes) != len(idx_sizes):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = False
    for i, n in enumerate(idx_sizes):
        if n > self_sizes[i] and i != dim:
            wrong = True
            break
    if src_sizes is None:
        if wrong:
            raise RuntimeError(_scatter_shape_message(sizes, dim, index_sizes))
        return
    src_nonempty = _nonempty(src_sizes)
    if not wrong and src_sizes != index_sizes:  # an index no larger than src in any dimension
        for i, n in enumerate(idx_sizes):
            if i >= len(src_nonempty):  # PyTorch reads src.size(i) here
                wrap_dim(i, len(src_sizes))
            if n > src_nonempty[i]:
                wrong = True
                break
    if len(src_nonempty) != len(idx_sizes):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        raise RuntimeError(
            f"{_scatter_shape_message(sizes, dim, index_sizes)} and to be no larger size than src "
            f"{list(src_sizes)}"
        )


def _scatter_shape_message(sizes: Shape, dim: int, index_sizes: Shape) -> str:
    return (
        f"Expected index {list(index_sizes)} to be no larger than self {list(sizes)} apart from "
        f"dimension {dim}"
    )


def scatter_target(out: Tensor, dim: int, index: Tensor, src: ScatterSource) -> tuple[Array, Any, Any]:
    """What scatter writes: `out`'s elements (at least one dimension), the advanced index of the
    targets (index values checked) and the values (src's leading part shaped like index, or the
    checked Scalar).  `out` is on the CPU and `index` has elements."""
    a = _nonempty_array(array(out))
    idx = _nonempty_array(_index_array(index))
    _check_index_values(idx, a.shape[dim], dim)
    values: Any
    if isinstance(src, Tensor):
        values = _nonempty_array(array(src))
        if values.shape != idx.shape:
            values = values[tuple(slice(0, n) for n in idx.shape)]
    else:
        values = checked_scalar(src, out._impl.dtype)
    return a, along_axis_index(idx, dim), values


def _scatter_fill(out: Tensor, dim: int, index: Tensor, src: ScatterSource, reduce: str | None) -> None:
    """Write `src` (or the value) into `out` (which already holds `self`) at `index` along `dim`."""
    if is_meta(out._impl.device) or index._impl.numel() == 0:
        return
    a, target, values = scatter_target(out, dim, index, src)
    if reduce is None:
        a[target] = values
        return
    # Unbuffered, in index order: repeated targets all contribute, as in PyTorch's loop, which
    # accumulates float16 and bfloat16 in float32 and rounds once at the end.
    ufunc = _SCATTER_REDUCTIONS[reduce]
    if a.dtype in REDUCED_FLOAT_NUMPY:
        acc = a.astype(np.float32)
        ufunc.at(acc, target, np.asarray(values, dtype=np.float32))
        a[...] = acc
    else:
        ufunc.at(a, target, values)


def _warn_scatter_reduce(src: ScatterSource, reduce: str | None) -> None:
    if reduce is not None and isinstance(src, Tensor):
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
            "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
            UserWarning,
            stacklevel=3,
        )


def _scatter_variants(name: str, default_reduce: str | None) -> None:
    """Register `name`, `name_` and `name_out`: functional, in-place and out= scatter kernels
    (scatter_add is scatter with reduce "add" and no reduce argument)."""
    warns = name == "scatter"

    def functional(
        self: Tensor, dim: int, index: Tensor, src: ScatterSource, *, reduce: str | None = default_reduce
    ) -> Tensor:
        d = _scatter_meta(self, dim, index, src, reduce)
        if warns:
            _warn_scatter_reduce(src, reduce)
        out = _copy_of(self)
        _scatter_fill(out, d, index, src, reduce)
        return out

    def inplace(
        self: Tensor, dim: int, index: Tensor, src: ScatterSource, *, reduce: str | None = default_reduce
    ) -> Tensor:
        d = _scatter_meta(self, dim, index, src, reduce)
        if warns:
            _warn_scatter_reduce(src, reduce)
        if not is_meta(self._impl.device) and has_internal_overlap(self._impl):
            raise RuntimeError(INTERNAL_OVERLAP)
        _check_overlap(self, (index, src if isinstance(src, Tensor) else None))
        _scatter_fill(self, d, index, src, reduce)
        return self

    def out_variant(
        self: Tensor,
        dim: int,
        index: Tensor,
        src: ScatterSource,
        *,
        reduce: str | None = default_reduce,
        out: Tensor,
    ) -> Tensor:
        d = _scatter_meta(self, dim, index, src, reduce)
        if warns:
            _warn_scatter_reduce(src, reduce)
        _prepare_out(out, self._impl.sizes, self._impl.dtype, out_dtype_message)
        _check_overlap(out, (index, src if isinstance(src, Tensor) else None))
        if out._impl is not self._impl and not is_meta(out._impl.device):
            array(out)[...] = array(self)
        _scatter_fill(out, d, index, src, reduce)
        return out

    register_variants(name, {"": functional, "_": inplace, "_out": out_variant})


_scatter_variants("scatter", None)
_scatter_variants("scatter_add", "add")


# ---- masked_fill, masked_select -----------------------------------------------------------------


def _check_mask(mask: Tensor) -> None:
    d = mask._impl.dtype
    if d is not bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {CPP_TYPE_NAMES[d]}"
        )


def fill_value(value: Tensor | Number, op: str = "masked_fill_") -> Number | None:
    """The Scalar a masked_fill (index_fill) value stands for (None: a tensor without data, on Meta)."""
    if not isinstance(value, Tensor):
        return value
    if value._impl.dim() != 0:
        raise RuntimeError(
            f"{op} only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._impl.dim()} dimension(s)."
        )
    return None if is_meta(value._impl.device) else value.item()


def _masked_fill_into(out: Tensor, mask: Tensor | Array, value: Number | None) -> None:
    """Set the elements of `out` where `mask` (broadcast to `out`) is True to `value`."""
    if is_meta(out._impl.device) or value is None:
        return
    a = array(out)
    fill = checked_scalar(value, out._impl.dtype)
    np.copyto(a, fill, where=np.broadcast_to(array(mask) if isinstance(mask, Tensor) else mask, a.shape))


def _masked_fill_check(self: Tensor, mask: Tensor, value: Tensor | Number) -> tuple[Shape, Number | None]:
    """The checks of out-of-place masked_fill: self and mask broadcast together first."""
    _check_devices("masked_fill", self, (mask, value if isinstance(value, Tensor) else None))
    sizes = broadcast_shapes(mask._impl.sizes, self._impl.sizes)
    fill = fill_value(value)
    _check_mask(mask)
    return sizes, fill


@kernel("masked_fill")
def masked_fill(self: Tensor, mask: Tensor, value: Tensor | Number) -> Tensor:
    sizes, fill = _masked_fill_check(self, mask, value)
    out = new_tensor(sizes, self._impl.dtype, self._impl.device)
    if not is_meta(out._impl.device):
        array(out)[...] = array(self)
    _masked_fill_into(out, mask, fill)
    return out


@kernel("masked_fill_")
def masked_fill_(self: Tensor, mask: Tensor, value: Tensor | Number) -> Tensor:
    _check_devices("masked_fill_", self, (mask, value if isinstance(value, Tensor) else None))
    fill = fill_value(value)
    _check_mask(mask)
    sizes = self._impl.sizes
    full = broadcast_shapes(sizes, mask._impl.sizes)
    if full != sizes:
        raise RuntimeError(f"output with shape {list(sizes)} doesn't match the broadcast shape {list(full)}")
    if not is_meta(self._impl.device):
        _warn_expanded("masked_fill_", self, "tensor[mask] = scalar")
    _check_overlap(self, (mask,), allow_full=True)
    _masked_fill_into(self, mask, fill)
    return self


@kernel("masked_fill_out")
def masked_fill_out(self: Tensor, mask: Tensor, value: Tensor | Number, *, out: Tensor) -> Tensor:
    sizes, fill = _masked_fill_check(self, mask, value)
    _prepare_out(out, sizes, self._impl.dtype, out_dtype_message)
    _check_overlap(out, (self, mask), allow_full=True)
    if not is_meta(out._impl.device):
        array(out)[...] = np.broadcast_to(array(self), sizes)
    _masked_fill_into(out, mask, fill)
    return out


def _masked_select_check(self: Tensor, mask: Tensor) -> Shape:
    same_device("masked_select", (self, mask))
    if mask._impl.dtype is not bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return broadcast_shapes(mask._impl.sizes, self._impl.sizes)


def _masked_select_values(self: Tensor, mask: Tensor, sizes: Shape) -> Array:
    selected: Array = np.broadcast_to(array(self), sizes)[np.broadcast_to(array(mask), sizes)]
    return selected


@kernel("masked_select")
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    values = _masked_select_values(self, mask, _masked_select_check(self, mask))
    out = new_tensor(values.shape, self._impl.dtype, self._impl.device)
    array(out)[...] = values
    return out


@kernel("masked_select_out")
def masked_select_out(self: Tensor, mask: Tensor, *, out: Tensor) -> Tensor:
    values = _masked_select_values(self, mask, _masked_select_check(self, mask))
    _prepare_out(out, values.shape, self._impl.dtype, _same_dtype_message("masked_select()"))
    _check_overlap(out, (self, mask))
    array(out)[...] = values
    return out


@kernel("masked_select_meta")
def masked_select_meta(self: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor:
    raise NotImplementedError(_META_MASKED_SELECT)


# ---- advanced indexing: index.Tensor, index_put_ ------------------------------------------------


def _check_too_many(self: Tensor, indices: Index) -> None:
    ndim = self._impl.dim()
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")


def _check_mask_shape(self: Tensor, mask: Tensor, start: int) -> None:
    """A mask indexing dims start, start+1, ... must have their sizes."""
    sizes = self._impl.sizes
    for j, n in enumerate(mask._impl.sizes):
        wrap_dim(start + j, len(sizes))
        if n != sizes[start + j]:
            raise IndexError(
                f"The shape of the mask {list(mask._impl.sizes)} at index {j} does not match the shape of "
                f"the indexed tensor {list(sizes)} at index {start + j}"
            )


IndexEntry = Array | Shape | None
"""One entry of an expanded index: an int index array (data known), its shape alone (Meta), or None."""


def _expand_indices(self: Tensor, indices: Index) -> list[IndexEntry] | None:
    """The index list with dtypes checked and every bool/uint8 mask replaced by the int indices of
    its True elements, one per mask dimension (PyTorch's expandTensors; a zero-dim mask adds none).
    None when a mask is on Meta: what it selects is unknown."""
    if not indices:
        raise IndexError("at least one index must be provided")
    for t in indices:
        if t is not None and t._impl.dtype not in _ADVANCED_INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    expanded: list[IndexEntry] = []
    known = True
    for t in indices:
        if t is None:
            expanded.append(None)
        elif t._impl.dtype in (bool_, uint8):
            if t._impl.dtype is uint8:
                warnings.warn(
                    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                    "instead.",
                    UserWarning,
                    stacklevel=4,
                )
            _check_mask_shape(self, t, len(expanded))
            if is_meta(t._impl.device):
                known = False
                expanded.extend([None] * t._impl.dim())
            elif t._impl.dim():
                expanded.extend(np.nonzero(array(t)))
        else:
            expanded.append(t._impl.sizes if is_meta(t._impl.device) else _index_array(t))
    return expanded if known else None


def _entry_shape(e: Array | Shape) -> Shape:
    return e if isinstance(e, tuple) else e.shape


def _indexing_shape(sizes: Shape, entries: list[IndexEntry]) -> tuple[Shape, list[IndexEntry]]:
    """The result shape of indexing a tensor of `sizes` with `entries`, and the entries to apply.

    The index tensors broadcast together; their shape replaces the indexed dims where those are
    adjacent, and goes first otherwise (as NumPy).  Without index tensors (None entries only) the
    result is all of self.  Masks over several dims can push entries past the last dim: PyTorch
    then refuses adjacent index tensors and drops the others past the end (after broadcasting)."""
    dims = [i for i, e in enumerate(entries) if e is not None]
    if not dims:
        return sizes, entries
    shapes = [_entry_shape(e) for e in entries if e is not None]
    try:
        index_shape = broadcast_all(shapes)
    except RuntimeError:
        listed = ", ".join(str(list(s)) for s in shapes)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        ) from None
    ndim = len(sizes)
    adjacent = dims[-1] - dims[0] + 1 == len(dims)
    if len(entries) > ndim:
        if adjacent:
            wrap_dim(ndim, ndim)
        entries = [_broadcast_entry(e, index_shape) for e in entries[:ndim]]
        dims = [i for i in dims if i < ndim]
        adjacent = dims[-1] - dims[0] + 1 == len(dims)
    if any(sizes[i] == 0 for i in dims) and 0 not in index_shape:
        raise IndexError("index is out of bounds for dimension with size 0")
    if adjacent:
        return (*sizes[: dims[0]], *index_shape, *sizes[dims[-1] + 1 :]), entries
    return (*index_shape, *(n for i, n in enumerate(sizes) if i not in dims)), entries


def _broadcast_entry(e: IndexEntry, shape: Shape) -> IndexEntry:
    if e is None or isinstance(e, tuple):
        return None if e is None else shape
    return np.broadcast_to(e, shape)


def put_values(a: Array, target: Any, values: Array, accumulate: bool) -> None:
    """Write `values` into `a` at the NumPy index `target`, adding them (repeats accumulate) when
    `accumulate`."""
    if accumulate:
        np.add.at(a, target, values)
    else:
        a[target] = values


def _numpy_index(sizes: Shape, entries: Sequence[IndexEntry]) -> tuple[Any, ...]:
    """The NumPy index equal to `entries` (after checking every index value against its dim; only
    called for a non-empty result: PyTorch checks the values it reads)."""
    arrays = [(i, e) for i, e in enumerate(entries) if isinstance(e, np.ndarray)]
    bad = [(e < -sizes[i]) | (e >= sizes[i]) for i, e in arrays]
    if any(np.any(b) for b in bad):
        # PyTorch reports the first bad element in result order, and within it the first index.
        shape = broadcast_all([b.shape for b in bad])
        stacked = np.stack([np.broadcast_to(b, shape).ravel() for b in bad])
        position = int(np.argmax(stacked.any(axis=0)))
        k = int(np.argmax(stacked[:, position]))
        dim, e = arrays[k]
        value = np.broadcast_to(e, shape).ravel()[position]
        raise IndexError(f"index {value} is out of bounds for dimension {k} with size {sizes[dim]}")
    return tuple(slice(None) if e is None else e for e in entries)


def _index_check(op: str, self: Tensor, indices: Index) -> tuple[Shape, list[IndexEntry]]:
    _check_devices(op, self, [t for t in indices if t is not None])
    _check_too_many(self, indices)
    entries = _expand_indices(self, indices)
    if entries is None:
        raise NotImplementedError(_META_NONZERO)
    return _indexing_shape(self._impl.sizes, entries)


def _index_values(self: Tensor, entries: Sequence[IndexEntry]) -> Array:
    values: Array = array(self)[_numpy_index(self._impl.sizes, entries)]
    return values


@kernel("index")
def index(self: Tensor, indices: Index) -> Tensor:
    sizes, entries = _index_check("index", self, indices)
    out = new_tensor(sizes, self._impl.dtype, self._impl.device)
    if not is_meta(out._impl.device) and out._impl.numel():
        array(out)[...] = _index_values(self, entries)
    return out


def _index_out_message(expected: dtype, got: dtype) -> str:
    return (
        f"index_out: self ({expected.scalar_type_name}) and result ({got.scalar_type_name}) must have the "
        "same scalar type"
    )


@kernel("index_out")
def index_out(self: Tensor, indices: Index, *, out: Tensor) -> Tensor:
    sizes, entries = _index_check("index", self, indices)
    _prepare_out(out, sizes, self._impl.dtype, _index_out_message)
    _check_overlap(out, (self, *indices))
    if not is_meta(out._impl.device) and out._impl.numel():
        array(out)[...] = _index_values(self, entries)
    return out


def _masked_fill_dispatch(self: Tensor, indices: Index, values: Tensor) -> tuple[Tensor, int] | None:
    """When index_put_ is a masked fill (one bool/uint8 mask on self's device among None entries,
    one value on the CPU): the mask and how many trailing dims it leaves out (PyTorch's
    canDispatchToMaskedFill)."""
    if values._impl.numel() != 1 or is_meta(values._impl.device):
        return None
    masks = [(i, t) for i, t in enumerate(indices) if t is not None]
    if len(masks) != 1:
        return None
    start, mask = masks[0]
    if mask._impl.dtype not in (bool_, uint8) or mask._impl.device != self._impl.device:
        return None
    _check_mask_shape(self, mask, start)
    _check_mask(mask)
    return mask, self._impl.dim() - start - mask._impl.dim()


def _check_values_shape(values: Tensor, sizes: Shape) -> None:
    v = values._impl.sizes
    if len(v) > len(sizes) or any(n not in (1, m) for n, m in zip(v[::-1], sizes[::-1], strict=False)):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(v)} cannot be broadcast to indexing result of "
            f"shape {list(sizes)}"
        )


def _check_values_dtype(values: Tensor, self: Tensor) -> None:
    if values._impl.dtype is not self._impl.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{self._impl.dtype.scalar_type_name} for the destination and "
            f"{values._impl.dtype.scalar_type_name} for the source."
        )


def _index_put(self: Tensor, indices: Index, values: Tensor, accumulate: bool) -> Tensor:
    """index_put_ on `self`: write (or with `accumulate`, add) `values`, broadcast to the indexing
    result, at `self[indices]`.  Repeated indices: the last write wins, or every value is added."""
    _check_devices("index_put_", self, [values, *(t for t in indices if t is not None)])
    _check_too_many(self, indices)
    meta = is_meta(self._impl.device)
    if not meta:
        _warn_expanded("index_put_", self, "tensor[indices] = tensor")
    if not accumulate:
        dispatch = _masked_fill_dispatch(self, indices, values)
        if dispatch is not None:
            mask, trailing = dispatch
            if not meta:
                shaped = array(mask).reshape(mask._impl.sizes + (1,) * trailing)
                _masked_fill_into(self, shaped, values.item())
            return self
    _check_overlap(self, (values, *indices))
    entries = _expand_indices(self, indices)
    if entries is None:  # a mask on Meta selects an unknown number of elements
        _check_values_dtype(values, self)
        return self
    sizes, entries = _indexing_shape(self._impl.sizes, entries)
    _check_values_shape(values, sizes)
    _check_values_dtype(values, self)
    if meta or not math.prod(sizes):
        return self
    target = _numpy_index(self._impl.sizes, entries)
    put_values(array(self), target, array(values), accumulate)
    return self


@kernel("index_put_")
def index_put_(self: Tensor, indices: Index, values: Tensor, accumulate: bool = False) -> Tensor:
    return _index_put(self, indices, values, accumulate)


@kernel("index_put")
def index_put(self: Tensor, indices: Index, values: Tensor, accumulate: bool = False) -> Tensor:
    return _index_put(_copy_of(self), indices, values, accumulate)


@kernel("index_put_out")
def index_put_out(
    self: Tensor, indices: Index, values: Tensor, accumulate: bool = False, *, out: Tensor
) -> Tensor:
    result = _index_put(_copy_of(self), indices, values, accumulate)
    _prepare_out(out, self._impl.sizes, self._impl.dtype, out_dtype_message)
    if not is_meta(out._impl.device):
        array(out)[...] = array(result)
    return out


# ---- where, nonzero -----------------------------------------------------------------------------


def _where_check(condition: Tensor, self: Tensor, other: Tensor) -> tuple[Shape, dtype, Device]:
    device = same_device("where", (condition, self, other))
    cond = condition._impl.dtype
    if cond is uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
            "future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=3,
        )
    elif cond is not bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{cond.scalar_type_name}"
        )
    sizes = broadcast_all([condition._impl.sizes, self._impl.sizes, other._impl.sizes])
    return sizes, result_type(self, other), device


def _where_fill(out: Tensor, condition: Tensor, self: Tensor, other: Tensor, d: dtype) -> None:
    if is_meta(out._impl.device):
        return
    np_dtype = d.numpy_dtype
    a, b = array(self).astype(np_dtype, copy=False), array(other).astype(np_dtype, copy=False)
    target = array(out)
    if np_dtype.kind == "c":
        target[...] = np.where(array(condition), a, b)
        return
    select_bits(target, array(condition), a, b)


@kernel("where")
def where(condition: Tensor, self: Tensor, other: Tensor) -> Tensor:
    sizes, d, device = _where_check(condition, self, other)
    out = new_tensor(sizes, d, device)
    _where_fill(out, condition, self, other, d)
    return out


def _where_out_message(expected: dtype, got: dtype) -> str:
    return f"Expected out type to be {expected.scalar_type_name} but got {got.scalar_type_name}"


@kernel("where_out")
def where_out(condition: Tensor, self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    sizes, d, _ = _where_check(condition, self, other)
    _prepare_out(out, sizes, d, _where_out_message)
    _check_overlap(out, (condition, self, other), allow_full=True)
    _where_fill(out, condition, self, other, d)
    return out


def _scalar_operand(value: Number, d: dtype, device: Device) -> Tensor:
    """A zero-dim tensor of `d` holding `value`, converted as PyTorch's fill does: checked, except
    into float16 and bfloat16 (computed in float, beyond their range it becomes inf)."""
    t = new_tensor((), d, device)
    if not is_meta(device):
        array(t)[...] = (
            np.float32(value.real).astype(d.numpy_dtype) if d.is_reduced_float else checked_scalar(value, d)
        )
    return t


@kernel("where_scalar")
def where_scalar(condition: Tensor, self: Tensor | Number, other: Tensor | Number) -> Tensor:
    """where.ScalarSelf / ScalarOther / Scalar: the Scalar becomes a zero-dim tensor of the result
    dtype (type promotion counts it as a Python number), then where.self."""
    d = result_type(self, other)
    device = condition._impl.device
    x = self if isinstance(self, Tensor) else _scalar_operand(self, d, device)
    y = other if isinstance(other, Tensor) else _scalar_operand(other, d, device)
    result: Tensor = aten_op("where.self")(condition, x, y)
    return result


@kernel("where_condition")
def where_condition(condition: Tensor) -> list[Tensor]:
    """where(condition): the indices of the non-zero elements, one 1-D tensor per dimension (a
    zero-dim condition counts as one of one element)."""
    impl = condition._impl
    c = condition if impl.dim() else make_view(condition, (1,), (1,), impl.storage_offset)
    nz: Tensor = aten_op("nonzero.default")(c)
    n, k = nz._impl.sizes
    return [make_view(nz, (n,), (k,), nz._impl.storage_offset + j) for j in range(k)]


def _nonzero_indices(self: Tensor) -> Array:
    found: Array = np.argwhere(array(self))
    return found


@kernel("nonzero")
def nonzero(self: Tensor) -> Tensor:
    found = _nonzero_indices(self)
    out = new_tensor(found.shape, int64, self._impl.device)
    array(out)[...] = found
    return out


def _nonzero_out_message(expected: dtype, got: dtype) -> str:
    return f"nonzero: Expected out tensor to have scalar type Long but got scalar type{got.scalar_type_name}"


@kernel("nonzero_out")
def nonzero_out(self: Tensor, *, out: Tensor) -> Tensor:
    found = _nonzero_indices(self)
    _prepare_out(out, found.shape, int64, _nonzero_out_message)
    _check_overlap(out, (self,))
    array(out)[...] = found
    return out


@kernel("nonzero_meta")
def nonzero_meta(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    raise NotImplementedError(_META_NONZERO)
