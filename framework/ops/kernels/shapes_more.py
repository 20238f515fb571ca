"""More shape operators: repeating (repeat_interleave, tile), grids (meshgrid, combinations,
vander), splitting (tensor_split, h/v/dsplit, unsafe_split), joining (h/v/d/column_stack,
concat), rank padding (atleast_Nd), broadcasting, rotation and flips, sliding windows
(`unfold`, a view, and its backward), differences and trapezoid integration, sum_to_size and
new_empty_strided.

As in PyTorch, most are CompositeImplicitAutograd: they call other operators through the
dispatcher, so their autograd graph (and grad_fn names) come from the pieces.  `unfold`,
`unfold_backward` and the self-less `repeat_interleave(repeats)` compute directly (CPU and Meta);
`rot90`, `unsafe_split(_with_sizes)` and `new_empty_strided` are CompositeExplicitAutograd with
derivatives of their own.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Final

import numpy as np

from framework._tensor import Tensor
from framework.autograd.engine import is_expandable_to, sum_to
from framework.c10.device import Device, Layout
from framework.c10.dtypes import bool_, dtype, int32, int64, promote_types
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, broadcast_all
from framework.ops.kernels._registry import (
    CPU,
    array,
    aten_op,
    is_meta,
    kernel,
    make_view,
    new_tensor,
    not_implemented,
    wrap_dim,
)
from framework.ops.kernels.views import _write_out, chunk_through

_MESHGRID_INDEXING: Final = ("xy", "ij")


def _call(name: str, *args: Any, **kwargs: Any) -> Tensor:
    """Run the aten overload `name` through the dispatcher (a tensor result)."""
    result: Tensor = aten_op(name)(*args, **kwargs)
    return result


def _call_list(name: str, *args: Any, **kwargs: Any) -> list[Tensor]:
    """Run the aten overload `name` through the dispatcher (a list of tensors)."""
    result: list[Tensor] = aten_op(name)(*args, **kwargs)
    return result


# ---- repeat_interleave, tile --------------------------------------------------------------------


@kernel("repeat_interleave_index")
def repeat_interleave_index(repeats: Tensor, *, output_size: int | None = None) -> Tensor:
    """Index i repeated repeats[i] times (in the repeats' integer dtype)."""
    impl = repeats._impl
    if impl.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if impl.dtype not in (int32, int64):
        raise not_implemented("repeat_interleave_cpu", impl.dtype)
    if is_meta(impl.device):
        if output_size is None:
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        return new_tensor((output_size,), impl.dtype, impl.device)
    counts = array(repeats)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(counts.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    out = new_tensor((total,), impl.dtype, impl.device)
    array(out)[...] = np.repeat(np.arange(impl.sizes[0]), counts)
    return out


@kernel("repeat_interleave_index_out")
def repeat_interleave_index_out(repeats: Tensor, *, output_size: int | None = None, out: Tensor) -> Tensor:
    return _write_out(out, repeat_interleave_index(repeats, output_size=output_size))


@kernel("repeat_interleave_self_tensor")
def repeat_interleave_self_tensor(
    self: Tensor, repeats: Tensor, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    """Each slice of `self` along `dim` (of the flattened tensor without one) repeated
    repeats[i] times: an index_select with repeat_interleave(repeats)."""
    source = self if dim is not None else _call("flatten.using_ints", self)
    d = 0 if dim is None else dim
    size = source._impl.sizes[wrap_dim(d, source._impl.dim(), wrap_scalar=False)]
    r = repeats._impl
    if r.dim() == 0 or (r.dim() == 1 and r.sizes[0] == 1):
        repeats = _call("expand.default", _call("reshape.default", repeats, [1]), [size])
    elif r.dim() == 1:
        if r.sizes[0] != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {r.sizes[0]} and input.size({d}) = {size}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    index = _call("repeat_interleave.Tensor", repeats, output_size=output_size)
    return _call("index_select.default", source, d, index)


@kernel("repeat_interleave_self_int")
def repeat_interleave_self_int(
    self: Tensor, repeats: int, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    """Each slice of `self` along `dim` repeated `repeats` times: a size-1 dimension inserted
    after `dim`, expanded to `repeats`, copied and merged into `dim`."""
    source = self if dim is not None else _call("flatten.using_ints", self)
    d = wrap_dim(0 if dim is None else dim, self._impl.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    sizes = list(source._impl.sizes)
    expanded = [*sizes[: d + 1], repeats, *sizes[d + 1 :]]
    grown = _call("expand.default", _call("unsqueeze.default", source, d + 1), expanded)
    sizes[d] *= repeats
    if output_size is not None and output_size != sizes[d]:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {sizes[d]} but got {output_size}"
        )
    return _call("view.default", _call("clone.default", grown, memory_format=None), sizes)


@kernel("tile")
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    """`repeat` with `dims` padded by leading ones to the tensor's rank."""
    reps = [1] * (self._impl.dim() - len(dims)) + list(dims)
    return _call("repeat.default", self, reps)


# ---- meshgrid, combinations, vander -------------------------------------------------------------


@kernel("meshgrid")
def meshgrid(tensors: Sequence[Tensor], *, indexing: str | None = None) -> list[Tensor]:
    """Coordinate grids of the 0-D/1-D tensors: each viewed along its own dimension and
    expanded; "xy" indexing swaps the first two dimensions ("ij" keeps them)."""
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=4,
        )
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._impl.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    first = tensors[0]._impl
    for t in tensors[1:]:
        if t._impl.dtype is not first.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t._impl.device != first.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in _MESHGRID_INDEXING:
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    inputs = list(tensors)
    swap = indexing == "xy" and len(inputs) >= 2
    if swap:
        inputs[0], inputs[1] = inputs[1], inputs[0]
    shape = [t._impl.numel() for t in inputs]
    grids = []
    for i, t in enumerate(inputs):
        view_shape = [1] * len(inputs)
        view_shape[i] = -1
        grids.append(_call("expand.default", _call("view.default", t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


@kernel("combinations")
def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The rows of r elements of the 1-D tensor taken in index order (i < j < ..., or i <= j <=
    ... with replacement): grids of the tensor, masked by the same order among index grids."""
    impl = self._impl
    if impl.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(impl.sizes)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _call("empty.memory_format", [0], dtype=impl.dtype, device=impl.device)
    positions = _call("arange.default", impl.sizes[0], dtype=int64, device=impl.device)
    index_grids = meshgrid([positions] * r, indexing="ij")
    mask = _call("full.default", list(index_grids[0]._impl.sizes), True, dtype=bool_, device=impl.device)
    order = "le.Tensor" if with_replacement else "lt.Tensor"
    for left, right in pairwise(index_grids):
        mask = _call("mul.Tensor", mask, _call(order, left, right))
    grids = meshgrid([self] * r, indexing="ij")
    return _call("stack.default", [_call("masked_select.default", g, mask) for g in grids], 1)


@kernel("vander")
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Columns of powers of the 1-D `x` (x**(N-1) ... x**0, or ascending when `increasing`), in
    x's dtype promoted with int64: ones, then cumulative products of x."""
    impl = x._impl
    if impl.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = impl.sizes[0]
    if N is None:
        N = n
    elif N < 0:
        raise RuntimeError("N must be non-negative.")
    result = _call("empty.memory_format", [n, N], dtype=promote_types(impl.dtype, int64), device=impl.device)
    if N > 0:
        _call("fill_.Scalar", _call("select.int", result, 1, 0), 1)
    if N > 1:
        powers = _call("slice.Tensor", result, 1, 1)
        _call("copy_.default", powers, _call("unsqueeze.default", x, 1))
        _call("copy_.default", powers, _call("cumprod.default", powers, 1))
    return result if increasing else _call("flip.default", result, [1])


# ---- splitting ----------------------------------------------------------------------------------


def _check_tensor_split(self: Tensor) -> None:
    ndim = self._impl.dim()
    if ndim == 0:
        raise RuntimeError(
            f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {ndim} dims"
        )


@kernel("tensor_split_sections")
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    """`sections` slices along `dim`, the first size % sections of them one longer."""
    _check_tensor_split(self)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    d = wrap_dim(dim, self._impl.dim())
    base, extra = divmod(self._impl.sizes[d], sections)
    lengths = np.full(sections, base) + (np.arange(sections) < extra)
    ends = np.cumsum(lengths)
    return [_call("slice.Tensor", self, d, int(e - n), int(e)) for n, e in zip(lengths, ends, strict=True)]


@kernel("tensor_split_indices")
def tensor_split_indices(self: Tensor, indices: Sequence[int], dim: int = 0) -> list[Tensor]:
    """The slices between consecutive `indices` along `dim` (and before the first, after the last)."""
    _check_tensor_split(self)
    d = wrap_dim(dim, self._impl.dim())
    bounds = [0, *indices]
    pieces = [_call("slice.Tensor", self, d, s, e) for s, e in pairwise(bounds)]
    pieces.append(_call("slice.Tensor", self, d, bounds[-1], self._impl.sizes[d]))
    return pieces


@kernel("tensor_split_tensor")
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> list[Tensor]:
    """tensor_split by a 0-D tensor (sections) or a 1-D tensor (indices) of int64."""
    spec = tensor_indices_or_sections._impl
    if spec.device.device_type is not CPU.device_type:
        raise RuntimeError(
            f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {spec.device}"
        )
    if spec.dtype is not int64:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{spec.dtype.scalar_type_name}"
        )
    if spec.dim() > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
            f"tensor, but got a tensor with {spec.dim()} dims"
        )
    values = array(tensor_indices_or_sections)
    if spec.dim() == 0:
        return _call_list("tensor_split.sections", self, int(values), dim)
    return _call_list("tensor_split.indices", self, [int(v) for v in values], dim)


def _split_along(
    op: str, min_dim: int, dim: int, self: Tensor, sections: int | Sequence[int]
) -> list[Tensor]:
    """hsplit/vsplit/dsplit: tensor_split along `dim` of a tensor of at least `min_dim`
    dimensions; an int number of sections has to divide that dimension."""
    ndim = self._impl.dim()
    if ndim < min_dim:
        raise RuntimeError(
            f"torch.{op} requires a tensor with at least {min_dim} dimension, but got a tensor with {ndim} "
            "dimensions!"
        )
    if isinstance(sections, int):
        size = self._impl.sizes[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension {size} "
                f"is not divisible by the split_size {sections}!"
            )
        return _call_list("tensor_split.sections", self, sections, dim)
    return _call_list("tensor_split.indices", self, list(sections), dim)


@kernel("hsplit")
def hsplit(self: Tensor, sections: int | Sequence[int]) -> list[Tensor]:
    """Split along dimension 1 (0 for 1-D tensors)."""
    return _split_along("hsplit", 1, 1 if self._impl.dim() > 1 else 0, self, sections)


@kernel("vsplit")
def vsplit(self: Tensor, sections: int | Sequence[int]) -> list[Tensor]:
    return _split_along("vsplit", 2, 0, self, sections)


@kernel("dsplit")
def dsplit(self: Tensor, sections: int | Sequence[int]) -> list[Tensor]:
    return _split_along("dsplit", 3, 2, self, sections)


def _unsafe(pieces: list[Tensor]) -> list[Tensor]:
    """The pieces as tensors sharing their storage but not their base's version counter: not
    views to autograd (PyTorch's unsafe_split)."""
    results = []
    for p in pieces:
        impl = p._impl
        results.append(
            Tensor(
                TensorImpl(
                    impl.storage, impl.dtype, impl.sizes, impl.strides, impl.storage_offset, impl.key_set
                )
            )
        )
    return results


@kernel("unsafe_split")
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    return _unsafe(_call_list("split.Tensor", self, split_size, dim))


@kernel("unsafe_split_with_sizes")
def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return _unsafe(_call_list("split_with_sizes.default", self, list(split_sizes), dim))


@kernel("unsafe_chunk")
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    """chunk's pieces through unsafe_split (or unsafe_split_with_sizes for an empty dimension)."""
    return chunk_through("unsafe_", self, chunks, dim)


# ---- joining ------------------------------------------------------------------------------------


@kernel("atleast_1d")
def atleast_1d(self: Tensor) -> Tensor:
    return _call("reshape.default", self, [1]) if self._impl.dim() == 0 else self


@kernel("atleast_2d")
def atleast_2d(self: Tensor) -> Tensor:
    ndim = self._impl.dim()
    if ndim == 0:
        return _call("reshape.default", self, [1, 1])
    return _call("unsqueeze.default", self, 0) if ndim == 1 else self


@kernel("atleast_3d")
def atleast_3d(self: Tensor) -> Tensor:
    ndim = self._impl.dim()
    if ndim == 0:
        return _call("reshape.default", self, [1, 1, 1])
    if ndim == 1:
        return _call("unsqueeze.default", _call("unsqueeze.default", self, 0), -1)
    return _call("unsqueeze.default", self, -1) if ndim == 2 else self


@kernel("atleast_1d_sequence")
def atleast_1d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [_call("atleast_1d.default", t) for t in tensors]


@kernel("atleast_2d_sequence")
def atleast_2d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [_call("atleast_2d.default", t) for t in tensors]


@kernel("atleast_3d_sequence")
def atleast_3d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [_call("atleast_3d.default", t) for t in tensors]


def _nonempty(op: str, tensors: Sequence[Tensor]) -> None:
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")


def _hstack_parts(tensors: Sequence[Tensor]) -> tuple[list[Tensor], int]:
    _nonempty("hstack", tensors)
    parts = _call_list("atleast_1d.Sequence", list(tensors))
    return parts, 0 if parts[0]._impl.dim() == 1 else 1


def _vstack_parts(tensors: Sequence[Tensor]) -> list[Tensor]:
    _nonempty("vstack", tensors)
    return _call_list("atleast_2d.Sequence", list(tensors))


def _dstack_parts(tensors: Sequence[Tensor]) -> list[Tensor]:
    _nonempty("dstack", tensors)
    return _call_list("atleast_3d.Sequence", list(tensors))


def _column_stack_parts(tensors: Sequence[Tensor]) -> list[Tensor]:
    _nonempty("column_stack", tensors)
    return [_call("reshape.default", t, [t._impl.numel(), 1]) if t._impl.dim() <= 1 else t for t in tensors]


@kernel("hstack")
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """cat along dim 1 of at-least-1-D tensors (dim 0 when they are 1-D)."""
    parts, dim = _hstack_parts(tensors)
    return _call("cat.default", parts, dim)


@kernel("hstack_out")
def hstack_out(tensors: Sequence[Tensor], *, out: Tensor) -> Tensor:
    parts, dim = _hstack_parts(tensors)
    return _call("cat.out", parts, dim, out=out)


@kernel("vstack")
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """cat along dim 0 of at-least-2-D tensors."""
    return _call("cat.default", _vstack_parts(tensors), 0)


@kernel("vstack_out")
def vstack_out(tensors: Sequence[Tensor], *, out: Tensor) -> Tensor:
    return _call("cat.out", _vstack_parts(tensors), 0, out=out)


@kernel("dstack")
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """cat along dim 2 of at-least-3-D tensors."""
    return _call("cat.default", _dstack_parts(tensors), 2)


@kernel("dstack_out")
def dstack_out(tensors: Sequence[Tensor], *, out: Tensor) -> Tensor:
    return _call("cat.out", _dstack_parts(tensors), 2, out=out)


@kernel("column_stack")
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """cat along dim 1, 0-D and 1-D tensors first made columns."""
    return _call("cat.default", _column_stack_parts(tensors), 1)


@kernel("column_stack_out")
def column_stack_out(tensors: Sequence[Tensor], *, out: Tensor) -> Tensor:
    return _call("cat.out", _column_stack_parts(tensors), 1, out=out)


@kernel("concat")
def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return _call("cat.default", list(tensors), dim)


@kernel("concat_out")
def concat_out(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor) -> Tensor:
    return _call("cat.out", list(tensors), dim, out=out)


# ---- broadcasting, ravel, flips and rotation ----------------------------------------------------


@kernel("broadcast_to")
def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return _call("expand.default", self, list(size))


@kernel("broadcast_tensors")
def broadcast_tensors(tensors: Sequence[Tensor]) -> list[Tensor]:
    """The tensors expanded to their common broadcast shape (those of that shape unchanged)."""
    shape = broadcast_all([t._impl.sizes for t in tensors])
    return [t if t._impl.sizes == shape else _call("expand.default", t, list(shape)) for t in tensors]


@kernel("ravel")
def ravel(self: Tensor) -> Tensor:
    return _call("view.default", _call("contiguous.default", self), [-1])


@kernel("fliplr")
def fliplr(self: Tensor) -> Tensor:
    if self._impl.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _call("flip.default", self, [1])


@kernel("flipud")
def flipud(self: Tensor) -> Tensor:
    if self._impl.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _call("flip.default", self, [0])


@kernel("swapdims_")
def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _call("transpose_.default", self, dim0, dim1)


@kernel("rot90")
def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by k quarter turns in the plane of `dims` (from the first towards the second):
    flips and a transpose; no turn is a contiguous copy."""
    ndim = self._impl.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    turns = k % 4
    if turns == 0:
        return _call("clone.default", self, memory_format=None)
    if turns == 2:
        return _call("flip.default", self, [d0, d1])
    flipped = _call("flip.default", self, [d1 if turns == 1 else d0])
    return _call("transpose_.default", flipped, d0, d1)


@kernel("rot90_out")
def rot90_out(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1), *, out: Tensor) -> Tensor:
    return _write_out(out, rot90(self, k, dims))


# ---- unfold (sliding windows) -------------------------------------------------------------------


@kernel("unfold")
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The view of every window of `size` entries along `dimension`, `step` apart: that
    dimension counts the windows and a new last dimension runs through each."""
    impl = self._impl
    ndim = impl.dim()
    d = wrap_dim(dimension, ndim)
    max_size = impl.sizes[d] if ndim else 1
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {max_size} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if ndim == 0:
        return make_view(self, (size,), (1,), impl.storage_offset)
    sizes, strides = list(impl.sizes), list(impl.strides)
    sizes[d] = (impl.sizes[d] - size) // step + 1
    strides[d] = step * impl.strides[d]
    return make_view(self, (*sizes, size), (*strides, impl.strides[d]), impl.storage_offset)


@kernel("unfold_backward")
def unfold_backward(grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    """The gradient of unfold: each window's gradient added back at the positions it covered."""
    g = grad_in._impl
    sizes = tuple(input_sizes)
    out = new_tensor(sizes, g.dtype, g.device)
    if is_meta(g.device):
        return out
    target = array(out)
    target[...] = 0
    if not sizes:
        target[...] = array(grad_in).sum()
        return out
    d = wrap_dim(dim, len(sizes))
    windows = g.sizes[d]
    positions = (np.arange(windows)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    values = np.moveaxis(array(grad_in), -1, d + 1)
    values = values.reshape((*values.shape[:d], windows * size, *values.shape[d + 2 :]))
    index: Any = (*(slice(None),) * d, positions)
    np.add.at(target, index, values)
    return out


# ---- differences and trapezoid integration ------------------------------------------------------


def _check_diff_operand(self: Tensor, other: Tensor | None, dim: int) -> None:
    if other is None:
        return
    impl, o = self._impl, other._impl
    d = wrap_dim(dim, impl.dim(), wrap_scalar=False)
    if o.dim() != impl.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(o.dim()):
        if i != d and o.sizes[i] != impl.sizes[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input except along "
                f"the differencing dimension; input.size({i}) = {impl.sizes[i]}, but got tensor.size({i}) = "
                f"{o.sizes[i]}"
            )


def _diff_input(self: Tensor, n: int, dim: int, prepend: Tensor | None, append: Tensor | None) -> Tensor:
    """Check diff's arguments; `self` with `prepend` and `append` joined along `dim`."""
    if self._impl.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    _check_diff_operand(self, prepend, dim)
    _check_diff_operand(self, append, dim)
    if n == 0 or (prepend is None and append is None):
        return self
    parts = [t for t in (prepend, self, append) if t is not None]
    return _call("cat.default", parts, dim)


def _difference(values: Tensor, dim: int, length: int) -> Tensor:
    """values[1:1+length] - values[:length] along `dim` (logical_xor for bool)."""
    later = _call("narrow.default", values, dim, 1, length)
    earlier = _call("narrow.default", values, dim, 0, length)
    op = "logical_xor.default" if values._impl.dtype is bool_ else "sub.Tensor"
    return _call(op, later, earlier)


@kernel("diff")
def diff(
    self: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None, append: Tensor | None = None
) -> Tensor:
    """The n-th forward difference along `dim` (after joining `prepend` and `append`)."""
    result = _diff_input(self, n, dim, prepend, append)
    if n == 0:
        return _call("copy_.default", _call("zeros_like.default", result), result)
    size = result._impl.sizes[wrap_dim(dim, result._impl.dim())]
    for length in range(size - 1, size - 1 - min(n, size), -1):
        result = _difference(result, dim, length)
    return result


@kernel("diff_out")
def diff_out(
    self: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
    *,
    out: Tensor,
) -> Tensor:
    return _write_out(out, diff(self, n, dim, prepend, append))


def _zeros_without(y: Tensor, dim: int) -> Tensor:
    """Zeros of y's shape without dimension `dim` (the integral over no samples)."""
    impl = y._impl
    sizes = [s for i, s in enumerate(impl.sizes) if i != dim]
    return _call("zeros.default", sizes, dtype=impl.dtype, device=impl.device)


def _real_dx(op: str, y: Tensor, dx: Number) -> float:
    """The spacing `dx` as a float, once y and dx are checked (no bool y, a real dx)."""
    if y._impl.dtype is bool_:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
    return float(dx)


def _spacing(op: str, y: Tensor, x: Tensor, dim: int) -> Tensor:
    """The differences of the sample points `x` along `dim`, x first shaped to broadcast with y
    (a 1-D x lies along `dim`; a lower-rank x gets leading size-1 dimensions)."""
    if y._impl.dtype is bool_ or x._impl.dtype is bool_:
        raise RuntimeError(f"{op}: received a bool input for `x` or `y`, but bool is not supported")
    ndim, xi = y._impl.dim(), x._impl
    if xi.dim() == 1:
        if xi.sizes[0] != y._impl.sizes[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * ndim
        shape[dim] = xi.sizes[0]
        x = _call("view.default", x, shape)
    elif xi.dim() < ndim:
        x = _call("view.default", x, [1] * (ndim - xi.dim()) + list(xi.sizes))
    return _call("sub.Tensor", _call("slice.Tensor", x, dim, 1), _call("slice.Tensor", x, dim, 0, -1))


def _pair_sums(y: Tensor, dim: int) -> Tensor:
    """y[1:] + y[:-1] along `dim`."""
    return _call("add.Tensor", _call("slice.Tensor", y, dim, 1), _call("slice.Tensor", y, dim, 0, -1))


@kernel("trapezoid_x")
def trapezoid_x(y: Tensor, x: Tensor, *, dim: int = -1) -> Tensor:
    """The trapezoid rule along `dim` at sample points `x`: sum(dx * (y[1:] + y[:-1])) / 2."""
    d = wrap_dim(dim, y._impl.dim(), wrap_scalar=False)
    if y._impl.sizes[d] == 0:
        return _zeros_without(y, d)
    dx = _spacing("trapezoid", y, x, d)
    total = _call("sum.dim_IntList", _call("mul.Tensor", _pair_sums(y, d), dx), [d])
    return _call("div.Scalar", total, 2.0)


@kernel("trapezoid_dx")
def trapezoid_dx(y: Tensor, *, dx: Number = 1, dim: int = -1) -> Tensor:
    """The trapezoid rule along `dim` with spacing dx: (sum(y) - (y[0] + y[-1]) / 2) * dx."""
    d = wrap_dim(dim, y._impl.dim(), wrap_scalar=False)
    if y._impl.sizes[d] == 0:
        return _zeros_without(y, d)
    spacing = _real_dx("trapezoid", y, dx)
    ends = _call("add.Tensor", _call("select.int", y, d, 0), _call("select.int", y, d, -1))
    inner = _call("sub.Tensor", _call("sum.dim_IntList", y, [d]), _call("mul.Scalar", ends, 0.5))
    return _call("mul.Scalar", inner, spacing)


@kernel("cumulative_trapezoid_x")
def cumulative_trapezoid_x(y: Tensor, x: Tensor, *, dim: int = -1) -> Tensor:
    """The running trapezoid rule along `dim` at sample points `x`: cumsum(dx * (y[1:] + y[:-1])) / 2."""
    d = wrap_dim(dim, y._impl.dim())
    dx = _spacing("cumulative_trapezoid", y, x, d)
    return _call("div.Scalar", _call("cumsum.default", _call("mul.Tensor", _pair_sums(y, d), dx), d), 2.0)


@kernel("cumulative_trapezoid_dx")
def cumulative_trapezoid_dx(y: Tensor, *, dx: Number = 1, dim: int = -1) -> Tensor:
    """The running trapezoid rule along `dim` with spacing dx."""
    spacing = _real_dx("cumulative_trapezoid", y, dx)
    d = wrap_dim(dim, y._impl.dim())
    return _call("cumsum.default", _call("mul.Scalar", _pair_sums(y, d), spacing / 2.0), d)


# ---- sum_to_size, new_empty_strided -------------------------------------------------------------


@kernel("sum_to_size")
def sum_to_size(self: Tensor, size: Sequence[int]) -> Tensor:
    """`self` summed down to `size`, a shape it broadcasts from (the engine's `sum_to`)."""
    sizes = self._impl.sizes
    if not is_expandable_to(size, sizes):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(sizes)}}}.")
    return sum_to(self, size)


@kernel("new_empty_strided")
def new_empty_strided(
    self: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """An uninitialised tensor of `size` and `stride`, with `self`'s dtype and device unless given."""
    impl = self._impl
    return _call(
        "empty_strided.default",
        list(size),
        list(stride),
        dtype=dtype or impl.dtype,
        layout=layout,
        device=device or impl.device,
    )
