"""Views, shape operators and copies.

A view shares its base's storage, key set and version counter and copies nothing: only sizes,
strides and storage offset change (`make_view`), so every view kernel serves CPU and Meta alike.
Operators that cannot always view (`reshape`, `flatten`, `contiguous`, `to`) fall back to a copy;
the copy kernels (`clone`, `copy_`, `_to_copy`) convert between dtypes as PyTorch does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import (
    REDUCED_FLOAT_NUMPY,
    bool_,
    dtype,
    float16,
    float32,
    float64,
    numpy_is_floating,
)
from framework.c10.tensor_impl import CONJ_BIT, MATH_BITS, TensorImpl, apply_math_bits, contiguous_strides
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import (
    INTERNAL_OVERLAP,
    PARTIAL_OVERLAP,
    array,
    aten_op,
    check_out_dtype,
    forward_kernel,
    has_internal_overlap,
    int_list,
    is_meta,
    is_non_overlapping_and_dense,
    kernel,
    make_view,
    resize_output,
    wrap_dim,
)
from framework.ops.kernels.factories import check_layout, resolve_device

Array = npt.NDArray[Any]
Sizes = tuple[int, ...]
Geometry = tuple[Sizes, Sizes]
"""Sizes and strides."""

_PRESERVE: Final = MemoryFormat.preserve_format
_CONTIGUOUS: Final = MemoryFormat.contiguous_format
_CHANNELS_LAST: Final[dict[MemoryFormat, tuple[int, ...]]] = {
    MemoryFormat.channels_last: (1, 3, 2, 0),
    MemoryFormat.channels_last_3d: (1, 4, 3, 2, 0),
}
"""Dimensions of a channels-last layout, from the innermost (channels) to the outermost (batch)."""
_NO_META_DATA: Final = "Cannot copy out of meta tensor; no data!"


# ---- geometry -----------------------------------------------------------------------------------


def infer_size(shape: Sequence[int], numel: int) -> Sizes:
    """`shape` with its -1 entry (at most one) inferred from `numel`, checked against `numel`."""
    sizes = list(shape)
    inferred: int | None = None
    known = 1
    for i, s in enumerate(sizes):
        if s == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {sizes}")
    if numel == known or (inferred is not None and known > 0 and numel % known == 0):
        if inferred is not None:
            if known == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {sizes} because the unspecified "
                    "dimension size -1 can be any value and is ambiguous"
                )
            sizes[inferred] = numel // known
        return tuple(sizes)
    raise RuntimeError(f"shape '{sizes}' is invalid for input of size {numel}")


def view_strides(sizes: Sizes, strides: Sizes, shape: Sizes) -> Sizes | None:
    """Strides that show a tensor of `sizes`/`strides` as `shape` without copying, or None.

    PyTorch's rule (computeStride): split the tensor's dimensions into runs that are contiguous
    among themselves; every run must be covered by whole dimensions of the new shape, laid out
    contiguously from the run's innermost stride.  Size-1 dimensions never break a run."""
    if not sizes:
        return (1,) * len(shape)
    if math.prod(sizes) == 0:
        return strides if sizes == shape else contiguous_strides(shape)
    result = [0] * len(shape)
    view_d = len(shape) - 1
    base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(sizes) - 1, -1, -1):
        tensor_numel *= sizes[d]
        if d > 0 and (sizes[d - 1] == 1 or strides[d - 1] == tensor_numel * base_stride):
            continue
        while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
            result[view_d] = view_numel * base_stride
            view_numel *= shape[view_d]
            view_d -= 1
        if view_numel != tensor_numel:
            return None
        if d > 0:
            base_stride = strides[d - 1]
            tensor_numel = view_numel = 1
    return tuple(result) if view_d == -1 else None


def _storage_nbytes(sizes: Sizes, strides: Sizes, offset: int, itemsize: int) -> int:
    if 0 in sizes:
        return 0
    return itemsize * (offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True)))


def _memory_format(value: MemoryFormat | int | None, default: MemoryFormat) -> MemoryFormat:
    """A `MemoryFormat?` argument (schema defaults arrive as its number)."""
    if value is None:
        return default
    return value if isinstance(value, MemoryFormat) else MemoryFormat(value)


def _channels_last_order(sizes: Sizes, fmt: MemoryFormat) -> tuple[int, ...] | None:
    order = _CHANNELS_LAST[fmt]
    return order if len(sizes) == len(order) else None


def is_contiguous_as(impl: TensorImpl, fmt: MemoryFormat) -> bool:
    """PyTorch's `is_contiguous(memory_format)` for contiguous and channels-last formats."""
    if fmt is _CONTIGUOUS:
        return impl.is_contiguous()
    order = _channels_last_order(impl.sizes, fmt)
    if order is None:
        return False
    expected = 1
    for d in order:
        size = impl.sizes[d]
        if size != 1:
            if impl.strides[d] != expected:
                return False
            expected *= size
    return True


def _strides_like_channels_last(sizes: Sizes, strides: Sizes, fmt: MemoryFormat) -> bool:
    """Whether strides order the dimensions as `fmt` does (ambiguous cases count as row-major)."""
    order = _channels_last_order(sizes, fmt)
    if order is None or strides[1] == 0:
        return False
    lowest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < lowest or (d == 0 and lowest == strides[1]):
            return False
        lowest = strides[d] * sizes[d] if sizes[d] > 1 else strides[d]
    return True


def suggest_memory_format(impl: TensorImpl) -> MemoryFormat:
    """The memory format a tensor's strides suggest (PyTorch's suggest_memory_format)."""
    for fmt in _CHANNELS_LAST:
        if _strides_like_channels_last(impl.sizes, impl.strides, fmt):
            return fmt
    return _CONTIGUOUS


def format_strides(sizes: Sizes, fmt: MemoryFormat) -> Sizes:
    """Dense strides of `fmt` (contiguous or channels-last) for `sizes`."""
    if fmt is _CONTIGUOUS:
        return contiguous_strides(sizes)
    order = _channels_last_order(sizes, fmt)
    if order is None:
        rank = len(_CHANNELS_LAST[fmt])
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    strides = [0] * len(sizes)
    acc = 1
    for d in order:
        strides[d] = acc
        acc *= sizes[d]
    return tuple(strides)


def strides_for_memory_format(impl: TensorImpl, fmt: MemoryFormat) -> Sizes:
    """Strides of a new tensor like `impl` in `fmt`; preserve_format keeps the strides of a
    non-overlapping and dense tensor and otherwise uses the format its strides suggest."""
    if fmt is _PRESERVE:
        if is_non_overlapping_and_dense(impl):
            return impl.strides
        fmt = suggest_memory_format(impl)
    return format_strides(impl.sizes, fmt)


def _view(self: Tensor, geometry: Geometry, offset: int | None = None) -> Tensor:
    sizes, strides = geometry
    return make_view(self, sizes, strides, self._impl.storage_offset if offset is None else offset)


def _restride(self: Tensor, geometry: Geometry) -> Tensor:
    """Give `self` new geometry in place (the in-place view operators)."""
    impl = self._impl
    impl.set_geometry(geometry[0], geometry[1], impl.storage_offset)
    return self


def _without(values: Sizes, dims: Sequence[int]) -> Sizes:
    return tuple(v for d, v in enumerate(values) if d not in dims)


def _narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view of `length` entries of (wrapped) dimension `dim` from `start` (all checked)."""
    impl = self._impl
    sizes = (*impl.sizes[:dim], length, *impl.sizes[dim + 1 :])
    return _view(self, (sizes, impl.strides), impl.storage_offset + start * impl.strides[dim])


def _type_string(impl: TensorImpl) -> str:
    """How PyTorch names a tensor's type in messages (`torch.FloatTensor`, `MetaFloatType`)."""
    name = impl.dtype.scalar_type_name
    return f"Meta{name}Type" if is_meta(impl.device) else f"torch.{name}Tensor"


# ---- as_strided, view, reshape ------------------------------------------------------------------


def _strided_geometry(impl: TensorImpl, size: Sequence[int], stride: Sequence[int], offset: int) -> Geometry:
    sizes, strides = tuple(size), tuple(stride)
    if len(sizes) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in strides):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: {list(strides)}"
        )
    if any(n < 0 for n in sizes):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = impl.dtype.itemsize
    needed = _storage_nbytes(sizes, strides, offset, itemsize)
    if not is_meta(impl.device) and needed > impl.storage.nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, and "
            f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size "
            f"{impl.storage.nbytes}"
        )
    return sizes, strides


@kernel("_reshape_alias")
@kernel("as_strided")
def as_strided(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    impl = self._impl
    offset = impl.storage_offset if storage_offset is None else storage_offset
    return _view(self, _strided_geometry(impl, size, stride, offset), offset)


@kernel("as_strided_")
def as_strided_(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    impl = self._impl
    offset = impl.storage_offset if storage_offset is None else storage_offset
    sizes, strides = _strided_geometry(impl, size, stride, offset)
    impl.set_geometry(sizes, strides, offset)
    return self


def _view_geometry(impl: TensorImpl, size: Sequence[int]) -> Geometry:
    shape = infer_size(size, impl.numel())
    strides = view_strides(impl.sizes, impl.strides, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return shape, strides


@kernel("_unsafe_view")
@kernel("view")
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    return _view(self, _view_geometry(self._impl, size))


@kernel("view_as")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    result: Tensor = aten_op("view.default")(self, list(other._impl.sizes))
    return result


def _reshaped_copy(self: Tensor, sizes: Sizes) -> Tensor:
    result: Tensor = aten_op("_unsafe_view.default")(
        aten_op("clone.default")(self, memory_format=_CONTIGUOUS), list(sizes)
    )
    return result


@kernel("reshape")
def reshape(self: Tensor, shape: Sequence[int]) -> Tensor:
    impl = self._impl
    sizes = infer_size(shape, impl.numel())
    if view_strides(impl.sizes, impl.strides, sizes) is None:
        return _reshaped_copy(self, sizes)
    result: Tensor = aten_op("view.default")(self, list(sizes))
    return result


@kernel("_reshape_copy")
def _reshape_copy(self: Tensor, size: Sequence[int]) -> Tensor:
    return _reshaped_copy(self, infer_size(size, self._impl.numel()))


@kernel("reshape_as")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    result: Tensor = aten_op("reshape.default")(self, list(other._impl.sizes))
    return result


# ---- indexing views -----------------------------------------------------------------------------


@kernel("select")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    impl = self._impl
    if impl.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, impl.dim())
    size = impl.sizes[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(impl.sizes)} at dimension {d}"
        )
    offset = impl.storage_offset + (index % size) * impl.strides[d]
    return _view(self, (_without(impl.sizes, (d,)), _without(impl.strides, (d,))), offset)


@kernel("slice")
def slice_tensor(
    self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    impl = self._impl
    if impl.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, impl.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = impl.sizes[d]
    first = 0 if start is None else start + size if start < 0 else start
    stop = size if end is None else end + size if end < 0 else end
    first = min(max(first, 0), size)
    stop = min(max(stop, first), size)
    sizes = (*impl.sizes[:d], (stop - first + step - 1) // step, *impl.sizes[d + 1 :])
    strides = (*impl.strides[:d], impl.strides[d] * step, *impl.strides[d + 1 :])
    return _view(self, (sizes, strides), impl.storage_offset + first * impl.strides[d])


@kernel("narrow")
def narrow(self: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:
    impl = self._impl
    if impl.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        s = start._impl
        if s.dim() != 0 or s.dtype.is_floating_point or s.dtype.is_complex or s.dtype is bool_:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(array(start))
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, impl.dim())
    size = impl.sizes[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    result: Tensor = aten_op("slice.Tensor")(self, d, start, start + length, 1)
    return result


@kernel("diagonal")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    impl = self._impl
    d1, d2 = wrap_dim(dim1, impl.dim()), wrap_dim(dim2, impl.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    sizes, strides = impl.sizes, impl.strides
    if offset >= 0:
        length = max(min(sizes[d1], sizes[d2] - offset), 0)
        shift = offset * strides[d2]
    else:
        length = max(min(sizes[d1] + offset, sizes[d2]), 0)
        shift = -offset * strides[d1]
    storage_offset = impl.storage_offset + (shift if length > 0 else 0)
    geometry = (
        (*_without(sizes, (d1, d2)), length),
        (*_without(strides, (d1, d2)), strides[d1] + strides[d2]),
    )
    return _view(self, geometry, storage_offset)


# ---- dimension order ----------------------------------------------------------------------------


def _transpose_geometry(impl: TensorImpl, dim0: int, dim1: int) -> Geometry:
    d0, d1 = wrap_dim(dim0, impl.dim()), wrap_dim(dim1, impl.dim())
    sizes, strides = list(impl.sizes), list(impl.strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return tuple(sizes), tuple(strides)


@kernel("transpose")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _view(self, _transpose_geometry(self._impl, dim0, dim1))


@kernel("transpose_")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _restride(self, _transpose_geometry(self._impl, dim0, dim1))


forward_kernel("swapaxes", "transpose.int")
forward_kernel("swapdims", "transpose.int")


def _t_geometry(impl: TensorImpl, op: str) -> Geometry:
    if impl.dim() > 2:
        raise RuntimeError(f"{op}() expects a tensor with <= 2 dimensions, but self is {impl.dim()}D")
    return impl.sizes[::-1], impl.strides[::-1]


@kernel("t")
def t(self: Tensor) -> Tensor:
    return _view(self, _t_geometry(self._impl, "t"))


@kernel("t_")
def t_(self: Tensor) -> Tensor:
    return _restride(self, _t_geometry(self._impl, "t_"))


@kernel("permute")
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    impl = self._impl
    if len(dims) != impl.dim():
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            "the desired ordering of dimensions i.e. "
            f"input.dim() = {impl.dim()} is not equal to len(dims) = {len(dims)}"
        )
    order = [wrap_dim(d, impl.dim()) for d in dims]
    if len(set(order)) != len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view(self, (tuple(impl.sizes[d] for d in order), tuple(impl.strides[d] for d in order)))


@kernel("movedim")
def movedim(self: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    src, dst = int_list(source), int_list(destination)
    ndim = self._impl.dim()
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)"
        )
    wrapped_src = [wrap_dim(d, ndim) for d in src]
    wrapped_dst = [wrap_dim(d, ndim) for d in dst]
    if len(set(wrapped_src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wrapped_dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    # A 0-dim tensor's only dim (0) is not a dimension to move.
    placed = dict(zip(wrapped_dst, wrapped_src, strict=True)) if ndim else {}
    rest = iter(d for d in range(ndim) if d not in placed.values())
    order = [placed[d] if d in placed else next(rest) for d in range(ndim)]
    result: Tensor = aten_op("permute.default")(self, order)
    return result


# ---- size-1 and broadcast dimensions ------------------------------------------------------------


def _expand_geometry(impl: TensorImpl, size: Sequence[int]) -> Geometry:
    target = list(size)
    ndim, n = impl.dim(), len(target)
    if n < ndim:
        raise RuntimeError(
            f"expand({_type_string(impl)}{{{list(impl.sizes)}}}, size={target}): the number of sizes "
            f"provided ({n}) must be greater or equal to the number of dimensions in the tensor ({ndim})"
        )
    sizes, strides = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - ndim)
        if d >= 0:
            size_d, stride_d = impl.sizes[d], impl.strides[d]
        else:
            size_d, stride_d = 1, sizes[i + 1] * strides[i + 1] if i + 1 < n else 0
        want = target[i]
        if want == -1:
            if d < 0:
                raise RuntimeError(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                    f"dimension {i}"
                )
            want = size_d
        if want != size_d:
            if size_d != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size ({size_d}) at "
                    f"non-singleton dimension {i}.  Target sizes: {target}.  Tensor sizes: {list(impl.sizes)}"
                )
            if want < 0:
                raise RuntimeError("numel: integer multiplication overflow")
            stride_d = 0
        sizes[i], strides[i] = want, stride_d
    return tuple(sizes), tuple(strides)


@kernel("expand")
def expand(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    return _view(self, _expand_geometry(self._impl, size))


@kernel("expand_as")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    result: Tensor = aten_op("expand.default")(self, list(other._impl.sizes))
    return result


def _squeeze_geometry(impl: TensorImpl, dim: int | Sequence[int] | None) -> Geometry:
    ndim = impl.dim()
    if dim is None:
        drop = [d for d in range(ndim) if impl.sizes[d] == 1]
    else:
        dims = [wrap_dim(d, ndim) for d in int_list(dim)]
        seen: set[int] = set()
        for d in dims:
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
        drop = [d for d in dims if ndim > 0 and impl.sizes[d] == 1]
    return _without(impl.sizes, drop), _without(impl.strides, drop)


@kernel("squeeze")
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return _view(self, _squeeze_geometry(self._impl, dim))


@kernel("squeeze_")
def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return _restride(self, _squeeze_geometry(self._impl, dim))


def _unsqueeze_geometry(impl: TensorImpl, dim: int) -> Geometry:
    ndim = impl.dim()
    d = wrap_dim(dim, ndim + 1)
    stride = 1 if d >= ndim else impl.sizes[d] * impl.strides[d]
    return (*impl.sizes[:d], 1, *impl.sizes[d:]), (*impl.strides[:d], stride, *impl.strides[d:])


@kernel("unsqueeze")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return _view(self, _unsqueeze_geometry(self._impl, dim))


@kernel("unsqueeze_")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _restride(self, _unsqueeze_geometry(self._impl, dim))


@kernel("flatten")
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    impl = self._impl
    start, end = wrap_dim(start_dim, impl.dim()), wrap_dim(end_dim, impl.dim())
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if impl.dim() == 0:
        shape = [1]
    elif start == end:
        return self
    else:
        shape = [*impl.sizes[:start], math.prod(impl.sizes[start : end + 1]), *impl.sizes[end + 1 :]]
    result: Tensor = aten_op("reshape.default")(self, shape)
    return result


@kernel("unflatten")
def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    impl = self._impl
    d = wrap_dim(dim, impl.dim())
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = infer_size(sizes, impl.sizes[wrap_dim(d, impl.dim(), wrap_scalar=False)])
    except (IndexError, RuntimeError) as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({impl.sizes[d]}) in the input tensor"
        ) from None
    result: Tensor = aten_op("view.default")(self, [*impl.sizes[:d], *inferred, *impl.sizes[d + 1 :]])
    return result


# ---- splitting ----------------------------------------------------------------------------------


@kernel("unbind")
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    impl = self._impl
    d = wrap_dim(dim, impl.dim(), wrap_scalar=False)
    geometry = (_without(impl.sizes, (d,)), _without(impl.strides, (d,)))
    offsets = impl.storage_offset + impl.strides[d] * np.arange(impl.sizes[d])
    return [_view(self, geometry, int(offset)) for offset in offsets]


def _check_splittable(impl: TensorImpl) -> None:
    if impl.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")


def _split_at(self: Tensor, dim: int, lengths: Sequence[int]) -> list[Tensor]:
    starts = np.cumsum(lengths, dtype=np.int64) - lengths
    return [_narrow(self, dim, int(start), length) for start, length in zip(starts, lengths, strict=True)]


@kernel("split")
def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    impl = self._impl
    _check_splittable(impl)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    d = wrap_dim(dim, impl.dim())
    size = impl.sizes[d]
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    count = max(-(-size // split_size), 1) if split_size else 1
    lengths = [split_size] * (count - 1) + [size - split_size * (count - 1)]
    return _split_at(self, d, lengths)


@kernel("split_sizes")
def split_sizes(self: Tensor, split_size: Sequence[int], dim: int = 0) -> list[Tensor]:
    result: list[Tensor] = aten_op("split_with_sizes.default")(self, list(split_size), dim)
    return result


@kernel("split_with_sizes")
def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    impl = self._impl
    _check_splittable(impl)
    d = wrap_dim(dim, impl.dim())
    lengths = list(split_sizes)
    if any(n < 0 for n in lengths):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={lengths}"
        )
    if sum(lengths) != impl.sizes[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {impl.sizes[d]} (input tensor's size at "
            f"dimension {dim}), but got split_sizes={lengths}"
        )
    return _split_at(self, d, lengths)


def chunk_through(prefix: str, self: Tensor, chunks: int, dim: int) -> list[Tensor]:
    """chunk's pieces through `prefix`split (or `prefix`split_with_sizes for an empty dimension)."""
    impl = self._impl
    if impl.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, impl.dim())
    size = impl.sizes[d]
    result: list[Tensor]
    if size == 0:
        result = aten_op(f"{prefix}split_with_sizes.default")(self, [0] * chunks, d)
    else:
        result = aten_op(f"{prefix}split.Tensor")(self, -(-size // chunks), d)
    return result


@kernel("chunk")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    return chunk_through("", self, chunks, dim)


# ---- complex views ------------------------------------------------------------------------------


@kernel("view_as_real")
def view_as_real(self: Tensor) -> Tensor:
    impl = self._impl
    if not impl.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if impl.key_set.repr & CONJ_BIT:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
            "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
            "resulting tensor will NOT alias the original."
        )
    sizes = (*impl.sizes, 2)
    strides = (*(2 * st for st in impl.strides), 1)
    return make_view(self, sizes, strides, 2 * impl.storage_offset, impl.dtype.to_real())


@kernel("view_as_complex")
def view_as_complex(self: Tensor) -> Tensor:
    impl = self._impl
    if impl.dtype not in (float32, float64):
        if impl.dtype is float16:
            raise RuntimeError("view_as_complex: Half tensors need complex32, which is not supported")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of "
            f"scalar type: {impl.dtype.scalar_type_name}"
        )
    if impl.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if impl.sizes[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if impl.strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 for st in impl.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if impl.storage_offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    strides = tuple(st // 2 for st in impl.strides[:-1])
    return make_view(self, impl.sizes[:-1], strides, impl.storage_offset // 2, impl.dtype.to_complex())


def _parts(self: Tensor) -> Tensor:
    """view_as_real of a complex tensor; of a conjugate view, of its unconjugated elements (the
    caller negates the imaginary parts)."""
    if self._impl.key_set.repr & CONJ_BIT:
        self = aten_op("_conj.default")(self)
    result: Tensor = aten_op("view_as_real.default")(self)
    return result


@kernel("real")
def real(self: Tensor) -> Tensor:
    if not self._impl.dtype.is_complex:
        return self
    result: Tensor = aten_op("select.int")(_parts(self), -1, 0)
    return result


@kernel("imag")
def imag(self: Tensor) -> Tensor:
    if not self._impl.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    parts = _parts(self)
    if self._impl.key_set.repr & CONJ_BIT:
        parts = aten_op("_neg_view.default")(parts)
    result: Tensor = aten_op("select.int")(parts, -1, 1)
    return result


# ---- copies -------------------------------------------------------------------------------------


def convert(values: Array, target: dtype) -> Array:
    """`values` converted to `target` as PyTorch's casts do: complex to real keeps the real part,
    other types reach float16 and bfloat16 through float32, floating point reaches uint8 through
    int64, and
    out-of-range values wrap like the C casts PyTorch uses (silently: operators run with NumPy's
    floating-point errors off)."""
    np_target = target.numpy_dtype
    if values.dtype == np_target:
        return values
    if values.dtype.kind == "c" and np_target.kind not in "cb":
        values = values.real
    if np_target in REDUCED_FLOAT_NUMPY and values.dtype != np.float32:
        values = values.astype(np.float32)
    elif np_target == np.uint8 and numpy_is_floating(values.dtype):
        values = values.astype(np.int64)
    return values.astype(np_target)


def _copy_values(dst: Tensor, src: Tensor) -> None:
    """Write `src` (broadcast, converted) into `dst`; nothing to write on the meta device."""
    target = dst._impl.dtype
    if src._impl.dtype.is_complex and not target.is_complex and target is not bool_:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
    if not is_meta(dst._impl.device) and dst._impl.numel():
        flip = (dst._impl.key_set.repr ^ src._impl.key_set.repr) & MATH_BITS
        array(dst)[...] = convert(apply_math_bits(array(src), flip), target)


def _same_data(a: TensorImpl, b: TensorImpl) -> bool:
    return (
        a.storage is b.storage
        and a.storage_offset == b.storage_offset
        and a.sizes == b.sizes
        and a.strides == b.strides
        and a.dtype is b.dtype
        and not (a.key_set.repr ^ b.key_set.repr) & MATH_BITS
    )


def _check_overlap(dst: TensorImpl, src: TensorImpl) -> None:
    """Refuse writes where PyTorch detects aliasing: `dst` has elements sharing memory (a 0-stride
    dimension), or `dst` and `src` are dense and their memory partly overlaps."""
    if has_internal_overlap(dst):
        raise RuntimeError(INTERNAL_OVERLAP)
    if (
        dst.storage is not src.storage
        or dst.numel() == 0
        or src.numel() == 0
        or not is_non_overlapping_and_dense(dst)
        or not is_non_overlapping_and_dense(src)
    ):
        return
    dst_begin, src_begin = dst.storage_offset * dst.dtype.itemsize, src.storage_offset * src.dtype.itemsize
    dst_end, src_end = (
        dst_begin + dst.numel() * dst.dtype.itemsize,
        src_begin + src.numel() * src.dtype.itemsize,
    )
    if (dst_begin, dst_end) == (src_begin, src_end):
        if dst.strides != src.strides:
            raise RuntimeError(PARTIAL_OVERLAP)
    elif dst_begin < src_end and src_begin < dst_end:
        raise RuntimeError(PARTIAL_OVERLAP)


@kernel("copy_")
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    dst, s = self._impl, src._impl
    if _same_data(dst, s):
        return self
    if is_meta(s.device) and not is_meta(dst.device):
        raise NotImplementedError(_NO_META_DATA)
    shape = broadcast_shapes(dst.sizes, s.sizes)
    if shape != dst.sizes:
        raise RuntimeError(
            f"output with shape {list(dst.sizes)} doesn't match the broadcast shape {list(shape)}"
        )
    _check_overlap(dst, s)
    _copy_values(self, src)
    return self


def _empty_strided(sizes: Sizes, strides: Sizes, d: dtype, device: Device) -> Tensor:
    result: Tensor = aten_op("empty_strided.default")(list(sizes), list(strides), dtype=d, device=device)
    return result


def _write_out(out: Tensor, result: Tensor, *, same_dtype: bool = True) -> Tensor:
    """An out= variant's last step: check `out`, resize it and copy the functional result in."""
    o, r = out._impl, result._impl
    if o.device.device_type is not r.device.device_type:
        raise RuntimeError(
            f"Attempting to copy from device {r.device} to device {o.device}, but cross-device copies are "
            "not allowed!"
        )
    if same_dtype:
        check_out_dtype(out, r.dtype)
    resize_output(out, r.sizes)
    _copy_values(out, result)
    return out


@kernel("clone")
def clone(self: Tensor, *, memory_format: MemoryFormat | None = None) -> Tensor:
    impl = self._impl
    fmt = _memory_format(memory_format, _PRESERVE)
    out = _empty_strided(impl.sizes, strides_for_memory_format(impl, fmt), impl.dtype, impl.device)
    _copy_values(out, self)
    return out


@kernel("clone_out")
def clone_out(self: Tensor, *, memory_format: MemoryFormat | None = None, out: Tensor) -> Tensor:
    return _write_out(out, aten_op("clone.default")(self, memory_format=memory_format))


@kernel("copy")
def copy(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    result: Tensor = aten_op("copy_.default")(aten_op("clone.default")(self), src, non_blocking)
    return result


@kernel("copy_out")
def copy_out(self: Tensor, src: Tensor, non_blocking: bool = False, *, out: Tensor) -> Tensor:
    return _write_out(out, aten_op("copy.default")(self, src, non_blocking))


@kernel("_unsafe_view_out")
def _unsafe_view_out(self: Tensor, size: Sequence[int], *, out: Tensor) -> Tensor:
    return _write_out(out, aten_op("_unsafe_view.default")(self, list(size)))


@kernel("contiguous")
def contiguous(self: Tensor, *, memory_format: MemoryFormat | int = _CONTIGUOUS) -> Tensor:
    fmt = _memory_format(memory_format, _CONTIGUOUS)
    if fmt is _PRESERVE:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if is_contiguous_as(self._impl, fmt):
        return self
    result: Tensor = aten_op("clone.default")(self, memory_format=fmt)
    return result


@kernel("_to_copy")
def _to_copy(
    self: Tensor,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    non_blocking: bool = False,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    check_layout(layout)
    impl = self._impl
    target = impl.device if device is None else resolve_device(device)
    if is_meta(impl.device) and not is_meta(target):
        raise NotImplementedError(_NO_META_DATA)
    strides = strides_for_memory_format(impl, _memory_format(memory_format, _PRESERVE))
    out = _empty_strided(impl.sizes, strides, impl.dtype if dtype is None else dtype, target)
    _copy_values(out, self)
    return out


@kernel("_to_copy_out")
def _to_copy_out(
    self: Tensor, *, non_blocking: bool = False, memory_format: MemoryFormat | None = None, out: Tensor
) -> Tensor:
    result = aten_op("_to_copy.default")(self, non_blocking=non_blocking, memory_format=memory_format)
    return _write_out(out, result, same_dtype=False)


def _to(
    self: Tensor,
    dtype: dtype | None,
    layout: Layout | None,
    device: Device | str | None,
    pin_memory: bool | None,
    non_blocking: bool,
    copy: bool,
    memory_format: MemoryFormat | None,
) -> Tensor:
    """`self` itself when it already has the requested dtype, layout, device and memory format
    (and no copy is asked for), else `_to_copy`."""
    impl = self._impl
    fmt = _memory_format(memory_format, _PRESERVE)
    if (
        not copy
        and (dtype is None or dtype is impl.dtype)
        and (layout is None or layout is Layout.strided)
        and (device is None or resolve_device(device) == impl.device)
        and (fmt is _PRESERVE or suggest_memory_format(impl) is fmt)
    ):
        return self
    result: Tensor = aten_op("_to_copy.default")(
        self,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
        non_blocking=non_blocking,
        memory_format=memory_format,
    )
    return result


@kernel("to_dtype_layout")
def to_dtype_layout(
    self: Tensor,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    return _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


@kernel("to_device")
def to_device(
    self: Tensor,
    device: Device | str,
    dtype: dtype,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    return _to(self, dtype, None, device, None, non_blocking, copy, memory_format)


@kernel("to_dtype")
def to_dtype(
    self: Tensor,
    dtype: dtype,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    return _to(self, dtype, None, None, None, non_blocking, copy, memory_format)


@kernel("to_other")
def to_other(
    self: Tensor,
    other: Tensor,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    o = other._impl
    return _to(self, o.dtype, Layout.strided, o.device, None, non_blocking, copy, memory_format)


@kernel("type_as")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    o = other._impl
    result: Tensor = aten_op("to.dtype_layout")(self, dtype=o.dtype, layout=Layout.strided, device=o.device)
    return result
