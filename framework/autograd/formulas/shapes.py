"""Backward formulas of the view, shape, copy, indexing, linear-algebra and joining operators.

Every helper computes with framework operators, so the gradients they return are themselves
differentiable (double backward).  Gradients of operators that read elements of their input
(views, gathers, advanced indexing) are built the same way: apply the operator to a grid of
element positions (`arange` shaped like the input) to learn which input element each output
element read, then add the incoming gradient into those positions with `index_put(...,
accumulate=True)`; an input element read several times receives the sum of its gradients.
(`gather`, whose positions are its index, adds the gradient with `scatter_add` directly.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import framework
from framework._tensor import Tensor, wrap_dim
from framework.autograd.formulas.complex import conjugate

__all__ = [
    "as_strided_backward",
    "cat_backward",
    "diagonal_backward",
    "gather_backward",
    "index_backward",
    "index_put_self_backward",
    "index_select_backward",
    "masked_select_backward",
    "matmul_other_backward",
    "matmul_self_backward",
    "maybe_multiply",
    "mm_mat1_backward",
    "mm_mat2_backward",
    "permute_backward",
    "repeat_backward",
    "roll_backward",
    "select_backward",
    "slice_backward",
    "split_backward",
    "split_with_sizes_backward",
    "unbind_backward",
    "unsqueeze_to",
]

Sizes = Sequence[int]


# ---- positions ----------------------------------------------------------------------------------


def _positions(numel: int) -> Tensor:
    """The flat positions 0, 1, ..., numel-1 (int64)."""
    return framework.arange(numel, dtype=framework.int64)


def _position_grid(sizes: Sizes) -> Tensor:
    """A contiguous int64 tensor of `sizes` holding each element's flat (row-major) position."""
    return _positions(math.prod(sizes)).reshape(list(sizes))


def _scatter_add_flat(grad: Tensor, positions: Tensor, numel: int) -> Tensor:
    """A flat tensor of `numel` zeros, with each element of `grad` added at the flat position
    held by the matching element of `positions` (which has as many elements as `grad`)."""
    zeros = framework.zeros(numel, dtype=grad.dtype, device=grad.device)
    return zeros.index_put([positions.reshape(-1)], grad.reshape(-1), True)


def _embed(grad: Tensor, input_sizes: Sizes, read: Callable[[Tensor], Tensor]) -> Tensor:
    """The gradient of an operator `read` that picks elements of an input of `input_sizes`
    (a view, a gather): `grad` added into the input elements the operator read."""
    positions = read(_position_grid(input_sizes))
    return _scatter_add_flat(grad, positions, math.prod(input_sizes)).reshape(list(input_sizes))


# ---- views --------------------------------------------------------------------------------------


def _storage_extent(sizes: Sizes, strides: Sizes, offset: int) -> int:
    """How many storage elements a strided tensor spans from storage element 0 (0 when empty)."""
    if 0 in sizes:
        return 0
    return offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))


def _may_overlap(sizes: Sizes, strides: Sizes) -> bool:
    """Whether two elements of a strided tensor might share memory: False when, taking the
    dimensions of size > 1 by increasing stride, each stride exceeds the span of the previous
    ones (a sufficient condition for no overlap)."""
    span = 0
    for stride, size in sorted((st, n) for n, st in zip(sizes, strides, strict=True) if n > 1):
        if stride <= span:
            return True
        span += (size - 1) * stride
    return False


def as_strided_backward(
    grad: Tensor,
    input_sizes: Sizes,
    input_strides: Sizes,
    input_storage_offset: int,
    size: Sizes,
    stride: Sizes,
    storage_offset: int | None,
) -> Tensor:
    """The gradient of `as_strided(input, size, stride, storage_offset)` for an input of the given
    geometry (sizes, strides, storage offset).

    Gradients flow to memory locations: each output element's gradient is added to the storage
    element it views (overlapping outputs accumulate), and each input element receives the
    gradient of the storage element it views.  When input elements share memory, the gradient of
    a storage element is divided evenly among them (so that their sum is that gradient)."""
    if 0 in input_sizes:
        return framework.zeros(list(input_sizes), dtype=grad.dtype, device=grad.device)
    out_offset = input_storage_offset if storage_offset is None else storage_offset
    shared = min(input_storage_offset, out_offset)
    inp_offset, out_offset = input_storage_offset - shared, out_offset - shared
    extent = max(
        _storage_extent(input_sizes, input_strides, inp_offset), _storage_extent(size, stride, out_offset)
    )
    positions = _positions(extent)
    out_positions = positions.as_strided(list(size), list(stride), out_offset)
    inp_positions = positions.as_strided(list(input_sizes), list(input_strides), inp_offset).reshape(-1)
    storage = _scatter_add_flat(grad, out_positions, extent)
    result = framework.index(storage, [inp_positions])
    if _may_overlap(input_sizes, input_strides):
        ones = framework.ones(1, dtype=grad.dtype, device=grad.device)
        count = _scatter_add_flat(ones.expand(inp_positions.shape), inp_positions, extent)
        result = result / framework.index(count, [inp_positions])
    return result.reshape(list(input_sizes))


def select_backward(grad: Tensor, input_sizes: Sizes, dim: int, index: int) -> Tensor:
    """The gradient of `select(input, dim, index)`: zeros with `grad` at `index` along `dim`."""
    return _embed(grad, input_sizes, lambda grid: grid.select(dim, index))


def slice_backward(
    grad: Tensor, input_sizes: Sizes, dim: int, start: int | None, end: int | None, step: int
) -> Tensor:
    """The gradient of `slice(input, dim, start, end, step)`: zeros with `grad` at the sliced
    entries of `dim`."""
    return _embed(grad, input_sizes, lambda grid: grid.slice(dim, start, end, step))


def diagonal_backward(grad: Tensor, input_sizes: Sizes, offset: int, dim1: int, dim2: int) -> Tensor:
    """The gradient of `diagonal(input, offset, dim1, dim2)`: zeros with `grad` on that diagonal."""
    return _embed(grad, input_sizes, lambda grid: grid.diagonal(offset, dim1, dim2))


def unsqueeze_to(grad: Tensor, dim: int, input_sizes: Sizes) -> Tensor:
    """The gradient of `squeeze(input, dim)`: `grad` with the removed size-1 dimension put back
    (PyTorch's unsqueeze_to: a view, where a reshape could copy)."""
    if not input_sizes:
        return grad
    d = wrap_dim(dim, len(input_sizes))
    return grad.unsqueeze(d) if input_sizes[d] == 1 else grad


def permute_backward(grad: Tensor, dims: Sizes) -> Tensor:
    """The gradient of `permute(input, dims)`: `grad` permuted by the inverse permutation."""
    inverse = [0] * len(dims)
    for position, d in enumerate(dims):
        inverse[wrap_dim(d, len(dims))] = position
    return grad.permute(inverse)


# ---- splitting and joining ----------------------------------------------------------------------


def _along(sizes: Sizes, dim: int, length: int) -> list[int]:
    """`sizes` with the entry of (wrapped) dimension `dim` set to `length`."""
    shape = list(sizes)
    shape[dim] = length
    return shape


def _join_pieces(grads: Sequence[Tensor | None], shapes: Sequence[Sizes]) -> list[Tensor]:
    """`grads` with every None (an output whose gradient is not needed) replaced by zeros of the
    shape that output has, in the dtype of the gradients given."""
    given = next(g for g in grads if g is not None)
    return [
        framework.zeros(list(shape), dtype=given.dtype, device=given.device) if g is None else g
        for g, shape in zip(grads, shapes, strict=True)
    ]


def unbind_backward(grads: Sequence[Tensor | None], input_sizes: Sizes, dim: int) -> Tensor:
    """The gradient of `unbind(input, dim)`: the outputs' gradients stacked along `dim`."""
    d = wrap_dim(dim, len(input_sizes))
    piece = [n for i, n in enumerate(input_sizes) if i != d]
    return framework.stack(_join_pieces(grads, [piece] * len(grads)), d)


def split_with_sizes_backward(
    grads: Sequence[Tensor | None], split_sizes: Sizes, dim: int, input_sizes: Sizes
) -> Tensor:
    """The gradient of `split_with_sizes(input, split_sizes, dim)`: the outputs' gradients
    concatenated along `dim`."""
    d = wrap_dim(dim, len(input_sizes))
    shapes = [_along(input_sizes, d, length) for length in split_sizes]
    return framework.cat(_join_pieces(grads, shapes), d)


def split_backward(grads: Sequence[Tensor | None], split_size: int, dim: int, input_sizes: Sizes) -> Tensor:
    """The gradient of `split(input, split_size, dim)`: piece i has
    min(split_size, size - i * split_size) entries along `dim`."""
    size = input_sizes[wrap_dim(dim, len(input_sizes))]
    lengths = [min(split_size, size - i * split_size) for i in range(len(grads))]
    return split_with_sizes_backward(grads, lengths, dim, input_sizes)


def cat_backward(grad: Tensor, shapes: Sequence[Sizes], dim: int) -> list[Tensor]:
    """The gradients of `cat(tensors, dim)` for inputs of `shapes`: the slices of `grad` along
    `dim`.  An input of shape [0] (skipped by cat whatever its rank) gets an empty gradient."""
    d = wrap_dim(dim, grad.ndim)
    pieces: list[Tensor] = []
    start = 0
    for shape in shapes:
        if tuple(shape) == (0,):
            pieces.append(framework.zeros(0, dtype=grad.dtype, device=grad.device))
            continue
        pieces.append(grad.narrow(d, start, shape[d]))
        start += shape[d]
    return pieces


def repeat_backward(grad: Tensor, repeats: Sizes, input_sizes: Sizes) -> Tensor:
    """The gradient of `repeat(input, repeats)`: the sum of the tiles of `grad` (each output
    dimension r*s seen as (r, s), summed over r; leading new dimensions have s = 1)."""
    if not repeats:
        return grad
    padded = [1] * (len(repeats) - len(input_sizes)) + list(input_sizes)
    tiled = [n for pair in zip(repeats, padded, strict=True) for n in pair]
    summed = grad.reshape(tiled).sum(list(range(0, len(tiled), 2)))
    return summed.reshape(list(input_sizes))


def roll_backward(grad: Tensor, shifts: int | Sizes, dims: int | Sizes) -> Tensor:
    """The gradient of `roll(input, shifts, dims)`: `grad` rolled back by the same shifts."""
    back = [-shifts] if isinstance(shifts, int) else [-shift for shift in shifts]
    return grad.roll(back, dims)


# ---- indexing -----------------------------------------------------------------------------------


def index_select_backward(grad: Tensor, input_sizes: Sizes, dim: int, index: Tensor) -> Tensor:
    """The gradient of `index_select(input, dim, index)`; repeated indices accumulate."""
    return _embed(grad, input_sizes, lambda grid: grid.index_select(dim, index))


def gather_backward(grad: Tensor, input_sizes: Sizes, dim: int, index: Tensor) -> Tensor:
    """The gradient of `gather(input, dim, index)`: `grad` added into zeros at the gathered
    positions with `scatter_add` (PyTorch's formula); repeated indices accumulate."""
    zeros = framework.zeros(list(input_sizes), dtype=grad.dtype, device=grad.device)
    return zeros.scatter_add(dim, index, grad)


def masked_select_backward(grad: Tensor, input_sizes: Sizes, mask: Tensor) -> Tensor:
    """The gradient of `masked_select(input, mask)`; an input element broadcast over several
    selected positions accumulates their gradients."""
    return _embed(grad, input_sizes, lambda grid: grid.masked_select(mask))


def index_backward(grad: Tensor, input_sizes: Sizes, indices: Sequence[Tensor | None]) -> Tensor:
    """The gradient of `index(input, indices)` (advanced indexing); repeated indices accumulate."""
    return _embed(grad, input_sizes, lambda grid: framework.index(grid, list(indices)))


def index_put_self_backward(grad: Tensor, indices: Sequence[Tensor | None], accumulate: bool) -> Tensor:
    """The gradient of `index_put(input, indices, values, accumulate)` for `input`: `grad`, with
    zeros at the overwritten elements unless the values were accumulated."""
    if accumulate:
        return grad
    zero = framework.zeros([], dtype=grad.dtype, device=grad.device)
    return grad.index_put(list(indices), zero)


# ---- matmul -------------------------------------------------------------------------------------


def _column_major(sizes: Sizes, strides: Sizes) -> bool:
    """Whether a matrix is laid out column by column (the transpose of a contiguous one)."""
    return strides[0] == 1 and strides[1] == sizes[0]


def maybe_multiply(t: Tensor, scalar: complex) -> Tensor:
    """`t * scalar`, or `t` itself when the scalar is 1 (PyTorch's maybe_multiply: no copy)."""
    return t if scalar == 1 else t * scalar


def mm_mat1_backward(grad: Tensor, mat2: Tensor, sizes: Sizes, strides: Sizes, alpha: complex) -> Tensor:
    """The gradient of `mm(mat1, mat2)` (times alpha) for `mat1`, laid out column by column when
    `mat1` was (PyTorch's rule): the gradient of a transposed weight is then the transpose of a
    contiguous matrix, so it needs no copy."""
    mat2 = conjugate(mat2)
    if _column_major(sizes, strides):
        return maybe_multiply(mat2.mm(grad.t()).t(), alpha.conjugate())
    return maybe_multiply(grad.mm(mat2.t()), alpha.conjugate())


def mm_mat2_backward(grad: Tensor, mat1: Tensor, sizes: Sizes, strides: Sizes, alpha: complex) -> Tensor:
    """The gradient of `mm(mat1, mat2)` (times alpha) for `mat2`, laid out column by column when
    `mat2` was (as `linear`'s `weight.t()` is)."""
    mat1 = conjugate(mat1)
    if _column_major(sizes, strides):
        return maybe_multiply(grad.t().mm(mat1).t(), alpha.conjugate())
    return maybe_multiply(mat1.t().mm(grad), alpha.conjugate())


def matmul_self_backward(grad: Tensor, self_sizes: Sizes, self_strides: Sizes, other: Tensor) -> Tensor:
    """The gradient of `matmul(self, other)` for `self` (batch dimensions that were broadcast are
    summed by the engine)."""
    self_ndim = len(self_sizes)
    if self_ndim == 2 and other.ndim == 2:
        return mm_mat1_backward(grad, other, self_sizes, self_strides, 1)
    other = conjugate(other)
    if other.ndim == 1:
        return grad * other if self_ndim == 1 else grad.unsqueeze(-1) * other
    if self_ndim == 1:
        return other.matmul(grad.unsqueeze(-1)).squeeze(-1)
    return grad.matmul(other.transpose(-1, -2))


def matmul_other_backward(grad: Tensor, self: Tensor, other_sizes: Sizes, other_strides: Sizes) -> Tensor:
    """The gradient of `matmul(self, other)` for `other` (batch dimensions that were broadcast
    are summed by the engine)."""
    other_ndim = len(other_sizes)
    if self.ndim == 2 and other_ndim == 2:
        return mm_mat2_backward(grad, self, other_sizes, other_strides, 1)
    self = conjugate(self)
    if self.ndim == 1:
        return grad * self if other_ndim == 1 else self.unsqueeze(-1) * grad.unsqueeze(-2)
    if other_ndim == 1:
        return grad.unsqueeze(-2).matmul(self).squeeze(-2)
    return self.transpose(-1, -2).matmul(grad)
