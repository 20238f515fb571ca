"""More matrix operators: diagonals (diag_embed, diag, diagflat, trace), index factories
(tril_indices, triu_indices), products built from other operators (einsum, tensordot, kron,
cartesian_prod) and distances (cdist, dist); block_diag.

diag_embed, trace, block_diag, _cdist_forward, _euclidean_dist and the index factories compute
on NumPy (CPU and Meta); einsum, tensordot, kron, diag, diagflat, cartesian_prod and cdist are
CompositeImplicitAutograd as in PyTorch: they call other operators through the dispatcher, so
their gradients come from those operators' nodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from framework._tensor import Tensor
from framework.c10.device import Device, Layout
from framework.c10.dtypes import bool_, dtype, get_default_dtype, int32, int64, promote_types
from framework.ops._iter import Number, broadcast_shapes
from framework.ops.kernels._registry import (
    array,
    aten_op,
    complex_clamp,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    same_device,
    wrap_dim,
)
from framework.ops.kernels.factories import check_layout, resolve_device

Sizes = tuple[int, ...]


# ---- diagonals --------------------------------------------------------------------------------


@kernel("diag_embed")
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose diagonals (`offset`, in the plane of `dim1` and `dim2` of the result) hold
    the last dimension of `self`; zeros elsewhere."""
    impl = self._impl
    ndim = impl.dim() + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    length = impl.sizes[-1] if impl.dim() else 1
    side = length + abs(offset)
    batch = list(impl.sizes[:-1])
    sizes: list[int] = []
    for d in range(ndim):
        sizes.append(side if d in (d1, d2) else batch.pop(0))
    out = new_tensor(tuple(sizes), impl.dtype, impl.device)
    if is_meta(impl.device):
        return out
    target = out._impl.numpy_view()
    target[...] = 0
    plane = np.moveaxis(target, (d1, d2), (-2, -1))
    steps = np.arange(length)
    plane[..., steps + max(-offset, 0), steps + max(offset, 0)] = array(self)
    return out


@kernel("diag")
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input becomes the `diagonal`-th diagonal of a square matrix (diag_embed); of a 2-D
    input, the `diagonal`-th diagonal is copied out."""
    ndim = self._impl.dim()
    if ndim == 1:
        result: Tensor = aten_op("diag_embed.default")(self, diagonal)
        return result
    if ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    result = aten_op("clone.default")(aten_op("diagonal.default")(self, diagonal))
    return result


@kernel("diagflat")
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    flat = aten_op("reshape.default")(aten_op("contiguous.default")(self), [-1])
    result: Tensor = aten_op("diag_embed.default")(flat, offset)
    return result


@kernel("trace")
def trace(self: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix (integers sum in int64)."""
    impl = self._impl
    if impl.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {impl.dim()}")
    if impl.dtype is bool_:
        raise not_implemented("trace", impl.dtype)
    d = impl.dtype if impl.dtype.is_floating_point or impl.dtype.is_complex else int64
    out = new_tensor((), d, impl.device)
    if not is_meta(impl.device):
        out._impl.numpy_view()[...] = np.trace(array(self), dtype=d.numpy_dtype)
    return out


# ---- tril_indices / triu_indices --------------------------------------------------------------


def _triangle_indices(op: str, upper: bool) -> None:
    def factory(
        row: int,
        col: int,
        offset: int = 0,
        *,
        dtype: dtype | None = int64,
        layout: Layout | None = None,
        device: Device | str | None = None,
        pin_memory: bool | None = None,
    ) -> Tensor:
        check_layout(layout)
        d = int64 if dtype is None else dtype
        if d not in (int32, int64):
            raise not_implemented(op, d)
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        # triu keeps j >= i + offset: the complement of tril(offset - 1).
        lower = np.tril(np.ones((row, col), np.bool_), offset - 1 if upper else offset)
        rows, cols = np.nonzero(~lower if upper else lower)
        out = new_tensor((2, rows.size), d, resolve_device(device))
        if not is_meta(out._impl.device):
            out._impl.numpy_view()[...] = np.stack((rows, cols))
        return out

    kernel(op)(factory)


_triangle_indices("tril_indices", upper=False)
_triangle_indices("triu_indices", upper=True)


# ---- block_diag -------------------------------------------------------------------------------


def _as_block(t: Tensor, i: int) -> Sizes:
    sizes = t._impl.sizes
    if len(sizes) > 2:
        raise RuntimeError(
            "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
            f"{i} has {len(sizes)} dimensions"
        )
    return (1, 1) if not sizes else (1, sizes[0]) if len(sizes) == 1 else sizes


@kernel("block_diag")
def block_diag(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors (0-D: 1x1, 1-D: a row) as the diagonal blocks of one matrix (promoted dtype)."""
    if not tensors:
        return new_tensor((1, 0), get_default_dtype(), Device("cpu"))
    blocks = [_as_block(t, i) for i, t in enumerate(tensors)]
    device = same_device("block_diag", tuple(tensors))
    d = tensors[0]._impl.dtype
    for t in tensors[1:]:
        d = promote_types(d, t._impl.dtype)
    out = new_tensor((sum(b[0] for b in blocks), sum(b[1] for b in blocks)), d, device)
    if is_meta(device):
        return out
    target = out._impl.numpy_view()
    target[...] = 0
    row = col = 0
    for t, (rows, cols) in zip(tensors, blocks, strict=True):
        target[row : row + rows, col : col + cols] = array(t).reshape(rows, cols)
        row, col = row + rows, col + cols
    return out


# ---- cartesian_prod, kron, tensordot ----------------------------------------------------------


@kernel("cartesian_prod")
def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    """Rows of every combination of the 1-D tensors' elements (the first varies slowest)."""
    for t in tensors:
        if t._impl.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._impl.sizes)}")
    if len(tensors) == 1:
        return tensors[0]
    sizes = [t._impl.sizes[0] for t in tensors]
    columns = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = -1
        grid = aten_op("expand.default")(aten_op("view.default")(t, shape), sizes)
        columns.append(aten_op("reshape.default")(grid, [-1]))
    result: Tensor = aten_op("stack.default")(columns, 1)
    return result


@kernel("kron")
def kron(self: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: both tensors padded to the same rank, interleaved with size-1
    dimensions, multiplied by broadcasting and folded pairwise."""
    ndim = max(self._impl.dim(), other._impl.dim())
    a_sizes = (1,) * (ndim - self._impl.dim()) + self._impl.sizes
    b_sizes = (1,) * (ndim - other._impl.dim()) + other._impl.sizes
    a = aten_op("reshape.default")(self, [s for size in a_sizes for s in (size, 1)])
    b = aten_op("reshape.default")(other, [s for size in b_sizes for s in (1, size)])
    product = aten_op("mul.Tensor")(a, b)
    result: Tensor = aten_op("_unsafe_view.default")(
        product, [x * y for x, y in zip(a_sizes, b_sizes, strict=True)]
    )
    return result


@kernel("tensordot")
def tensordot(self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int]) -> Tensor:
    """Contract `dims_self` of self with `dims_other` of other: both permuted to matrices, one mm."""
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self._impl.dtype is not other._impl.dtype:
        raise RuntimeError("both inputs should have same dtype")
    a_sizes, b_sizes = self._impl.sizes, other._impl.sizes
    contracted_a = [wrap_dim(d, len(a_sizes)) for d in dims_self]
    contracted_b = [wrap_dim(d, len(b_sizes)) for d in dims_other]
    for da, db in zip(contracted_a, contracted_b, strict=True):
        if a_sizes[da] != b_sizes[db]:
            raise RuntimeError(
                "contracted dimensions need to match, but first has size "
                f"{a_sizes[da]} in dim {da} and second "
                f"has size {b_sizes[db]} in dim {db}"
            )
    free_a = [d for d in range(len(a_sizes)) if d not in contracted_a]
    free_b = [d for d in range(len(b_sizes)) if d not in contracted_b]
    size = math.prod(a_sizes[d] for d in contracted_a)
    left = aten_op("reshape.default")(
        aten_op("permute.default")(self, free_a + contracted_a), [math.prod(a_sizes[d] for d in free_a), size]
    )
    right = aten_op("reshape.default")(
        aten_op("permute.default")(other, contracted_b + free_b),
        [size, math.prod(b_sizes[d] for d in free_b)],
    )
    shape = [a_sizes[d] for d in free_a] + [b_sizes[d] for d in free_b]
    result: Tensor = aten_op("reshape.default")(aten_op("mm.default")(left, right), shape)
    return result


# ---- einsum -----------------------------------------------------------------------------------

_ELLIPSIS: Final = "..."
Term = list[str]
"""One operand's subscripts: letters, and "..." for an ellipsis."""


def _parse_term(text: str, operand: int, start: int) -> Term:
    term: Term = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if text[i : i + 3] != _ELLIPSIS or _ELLIPSIS in term:
                what = "output" if operand < 0 else f"operand {operand}"
                raise RuntimeError(f"einsum(): found '.' for {what} that is not part of any ellipsis")
            term.append(_ELLIPSIS)
            i += 3
            continue
        if not c.isascii() or not c.isalpha():
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {start + i} in the equation string, subscripts "
                "must be in [a-zA-Z]"
            )
        term.append(c)
        i += 1
    return term


def _parse_equation(equation: str, n: int) -> tuple[list[Term], Term | None]:
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    texts = lhs.split(",")
    if len(texts) < n:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(texts) > n:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    terms, start = [], 0
    for i, text in enumerate(texts):
        terms.append(_parse_term(text, i, start))
        start += len(text) + 1
    return terms, (_parse_term(rhs, -1, len(lhs) + 2) if arrow else None)


def _letter_order(c: str) -> int:
    """PyTorch orders subscripts A-Z before a-z."""
    return ord(c) - ord("A") if c.isupper() else 26 + ord(c) - ord("a")


def _output_term(terms: list[Term], output: Term | None) -> Term:
    letters = [c for term in terms for c in term if c != _ELLIPSIS]
    if output is None:
        once = sorted((c for c in set(letters) if letters.count(c) == 1), key=_letter_order)
        return ([_ELLIPSIS] if any(_ELLIPSIS in t for t in terms) else []) + once
    for c in output:
        if c == _ELLIPSIS:
            continue
        if output.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        if c not in letters:
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input operand"
            )
    return output


def _labelled(t: Tensor, term: Term, index: int, n_ellipsis: int) -> tuple[Tensor, list[str]]:
    """The operand with one label per dimension (ellipsis dimensions "0", "1", ... right-aligned to
    `n_ellipsis`), repeated labels reduced to their diagonal."""
    ndim = t._impl.dim()
    letters = len(term) - (1 if _ELLIPSIS in term else 0)
    if _ELLIPSIS in term:
        if letters > ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({letters}) is more than the number of "
                f"dimensions ({ndim}) for operand {index}"
            )
    elif letters != ndim:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({letters}) does not match the number of "
            f"dimensions ({ndim}) for operand {index} and no ellipsis was given"
        )
    labels: list[str] = []
    for c in term:
        if c == _ELLIPSIS:
            k = ndim - letters
            labels += [str(n_ellipsis - k + j) for j in range(k)]
        else:
            labels.append(c)
    while True:
        repeated = next((c for c in labels if labels.count(c) > 1), None)
        if repeated is None:
            return t, labels
        first = labels.index(repeated)
        second = labels.index(repeated, first + 1)
        a, b = t._impl.sizes[first], t._impl.sizes[second]
        if a != b:
            raise RuntimeError(
                f"einsum(): subscript {repeated} is repeated for operand {index} but the sizes don't match, "
                f"{b} != {a}"
            )
        t = aten_op("diagonal.default")(t, 0, first, second)
        labels = [c for i, c in enumerate(labels) if i not in (first, second)] + [repeated]


def _aligned(t: Tensor, labels: list[str], order: list[str]) -> Tensor:
    """`t` permuted to `order`, with size-1 dimensions for the labels it lacks."""
    present = [c for c in order if c in labels]
    t = aten_op("permute.default")(t, [labels.index(c) for c in present])
    for i, c in enumerate(order):
        if c not in labels:
            t = aten_op("unsqueeze.default")(t, i)
    return t


def _contract(left: Tensor, right: Tensor, summed: list[int]) -> Tensor:
    """sum over `summed` of left * right (aligned, broadcasting), as one bmm: dims of both become
    the batch, dims of one side its rows or columns; the summed dims stay with size 1."""
    ls, rs = left._impl.sizes, right._impl.sizes
    if not summed:
        result: Tensor = aten_op("mul.Tensor")(left, right)
        return result
    own_left = [d for d in summed if ls[d] != 1 and rs[d] == 1]
    own_right = [d for d in summed if rs[d] != 1 and ls[d] == 1]
    if own_left:
        left = aten_op("sum.dim_IntList")(left, own_left, True)
    if own_right:
        right = aten_op("sum.dim_IntList")(right, own_right, True)
    ls, rs = left._impl.sizes, right._impl.sizes
    ndim = len(ls)
    both = [d for d in summed if ls[d] != 1]
    rest = [d for d in range(ndim) if d not in summed]
    batch = [d for d in rest if (ls[d] != 1 and rs[d] != 1) or ls[d] == rs[d] == 1]
    rows = [d for d in rest if ls[d] != 1 and rs[d] == 1]
    cols = [d for d in rest if ls[d] == 1 and rs[d] != 1]
    ones = [d for d in summed if d not in both]

    def size(sizes: Sizes, dims: list[int]) -> int:
        return math.prod(sizes[d] for d in dims)

    a = aten_op("reshape.default")(
        aten_op("permute.default")(left, batch + rows + both + cols + ones),
        [size(ls, batch), size(ls, rows), size(ls, both)],
    )
    b = aten_op("reshape.default")(
        aten_op("permute.default")(right, batch + both + cols + rows + ones),
        [size(rs, batch), size(rs, both), size(rs, cols)],
    )
    product = aten_op("bmm.default")(a, b)
    order = batch + rows + cols + both + ones
    shape = [max(ls[d], rs[d]) for d in batch + rows + cols] + [1] * len(both + ones)
    unfolded = aten_op("reshape.default")(product, shape)
    result = aten_op("permute.default")(unfolded, [order.index(d) for d in range(ndim)])
    return result


def _path_steps(n: int, path: Sequence[int] | None) -> list[tuple[int, int, bool]]:
    """The pairwise contractions: (i, j, whether the result goes last).  Without a path, left to
    right (the result takes the first place); a path (opt_einsum's, flattened) names pairs of
    positions in the current list, each result appended at its end."""
    if path is None:
        return [(0, 1, False)] * (n - 1)
    if len(path) != 2 * (n - 1):
        raise RuntimeError(f"einsum(): the path must have {n - 1} pairs of operand indices, got {list(path)}")
    return [(min(path[k], path[k + 1]), max(path[k], path[k + 1]), True) for k in range(0, len(path), 2)]


@kernel("einsum")
def einsum(equation: str, tensors: Sequence[Tensor], *, path: Sequence[int] | None = None) -> Tensor:
    """Einstein summation: diagonals for repeated subscripts; subscripts only one operand has
    (and the output lacks) summed first; then pairwise contractions (left to right, or along
    `path`), each summing the subscripts no remaining operand has, one bmm per pair."""
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    terms, given_output = _parse_equation(equation, len(tensors))
    n_ellipsis = max(
        (t._impl.dim() - len(term) + 1 for t, term in zip(tensors, terms, strict=True) if _ELLIPSIS in term),
        default=0,
    )
    output = _output_term(terms, given_output)
    out_labels = [
        lab for c in output for lab in ([str(j) for j in range(n_ellipsis)] if c == _ELLIPSIS else [c])
    ]
    operands = [
        _labelled(t, term, i, n_ellipsis) for i, (t, term) in enumerate(zip(tensors, terms, strict=True))
    ]
    others = sorted({c for _, labels in operands for c in labels} - set(out_labels))
    order = out_labels + others
    sizes: dict[str, int] = {}
    for i, (t, labels) in enumerate(operands):
        for c, s in zip(labels, t._impl.sizes, strict=True):
            seen = sizes.get(c, 1)
            if s != 1 and seen != 1 and s != seen:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {s} for operand {i} which does not broadcast with "
                    f"previously seen size {seen}"
                )
            sizes[c] = s if s != 1 else seen

    def summed(own: set[str], rest: Sequence[set[str]]) -> list[int]:
        elsewhere = set().union(*rest)
        return [d for d, c in enumerate(order) if c in others and c in own and c not in elsewhere]

    items: list[tuple[Tensor, set[str]]] = []
    for i, (t, labels) in enumerate(operands):
        aligned = _aligned(t, labels, order)
        alone = summed(set(labels), [set(lab) for k, (_, lab) in enumerate(operands) if k != i])
        kept = set(labels) - {order[d] for d in alone}
        if alone and len(operands) == 1:  # the others are last: summing them leaves the output
            result: Tensor = aten_op("sum.dim_IntList")(aligned, alone)
            return result
        items.append((aten_op("sum.dim_IntList")(aligned, alone, True) if alone else aligned, kept))
    for i, j, append in _path_steps(len(items), path):
        if not 0 <= i < j < len(items):
            raise RuntimeError(f"einsum(): invalid operand indices ({i}, {j}) in the path")
        (left, own_left), (right, own_right) = items[i], items[j]
        rest = [lab for k, (_, lab) in enumerate(items) if k not in (i, j)]
        product = (_contract(left, right, summed(own_left | own_right, rest)), own_left | own_right)
        del items[j], items[i]
        items.insert(len(items) if append else i, product)
    result = items[0][0]
    if others:
        result = aten_op("reshape.default")(result, list(result._impl.sizes[: len(out_labels)]))
    return result


# ---- distances --------------------------------------------------------------------------------


def _cdist_checks(x1: Tensor, x2: Tensor, p: float) -> None:
    for name, t in (("X1", x1), ("X2", x2)):
        if t._impl.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t._impl.dim()}D")
    for name, t in (("X1", x1), ("X2", x2)):
        d = t._impl.dtype
        if not d.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {d.scalar_type_name}")
    c1, c2 = x1._impl.sizes[-1], x2._impl.sizes[-1]
    if c1 != c2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._impl.dtype.is_reduced_float:
        raise not_implemented("cdist", x1._impl.dtype)
    if x1._impl.dtype is not x2._impl.dtype:
        raise RuntimeError(
            f"expected scalar type {x1._impl.dtype.scalar_type_name} but found "
            f"{x2._impl.dtype.scalar_type_name}"
        )


def _cdist_shape(x1: Tensor, x2: Tensor) -> Sizes:
    batch = broadcast_shapes(x1._impl.sizes[:-2], x2._impl.sizes[:-2])
    return (*batch, x1._impl.sizes[-2], x2._impl.sizes[-2])


def p_distance(diff: Any, p: float, axis: int) -> Any:
    """The p-norm of `diff` along `axis` (p = 0 counts non-zeros, inf takes the max)."""
    magnitude = np.abs(diff)
    if p == 0:
        return np.count_nonzero(magnitude, axis=axis).astype(diff.dtype)
    if p == math.inf:
        return magnitude.max(axis=axis, initial=0)
    if p == 1:
        return magnitude.sum(axis=axis)
    if p == 2:
        return np.sqrt(np.square(magnitude).sum(axis=axis))
    return np.power(np.power(magnitude, p).sum(axis=axis), 1 / p)


@kernel("_cdist_forward")
def _cdist_forward(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None) -> Tensor:
    """Pairwise p-norm distances between the rows of x1 and x2 (batch dimensions broadcast)."""
    _cdist_checks(x1, x2, p)
    device = same_device("cdist", (x1, x2))
    sizes = _cdist_shape(x1, x2)
    out = new_tensor(sizes, x1._impl.dtype, device)
    if not is_meta(device):
        diff = array(x1)[..., :, None, :] - array(x2)[..., None, :, :]
        out._impl.numpy_view()[...] = p_distance(diff, p, -1)
    return out


@kernel("_euclidean_dist")
def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """Euclidean distances of the rows through one matrix product:
    |a - b|^2 = |a|^2 - 2 a.b + |b|^2, clamped at 0 (as PyTorch's mm-based cdist)."""
    d = x1._impl.dtype
    if d.is_complex:
        raise complex_clamp()
    if not d.is_floating_point:  # PyTorch's integer sums are int64, which sqrt_ cannot write to
        raise RuntimeError("result type Float can't be cast to the desired output type Long")
    device = same_device("_euclidean_dist", (x1, x2))
    sizes = _cdist_shape(x1, x2)
    out = new_tensor(sizes, x1._impl.dtype, device)
    if not is_meta(device):
        a, b = array(x1), array(x2)
        a_norm = np.square(a).sum(-1, keepdims=True)
        b_norm = np.square(b).sum(-1, keepdims=True)
        left = np.concatenate([-2 * a, a_norm, np.ones_like(a_norm)], -1)
        right = np.concatenate([b, np.ones_like(b_norm), b_norm], -1)
        squared = np.matmul(left, np.swapaxes(right, -1, -2))
        out._impl.numpy_view()[...] = np.sqrt(np.maximum(squared, 0))
    return out


_MM_THRESHOLD: Final = 25
"""Above this many rows, cdist's default mode computes Euclidean distances by a matrix product."""


@kernel("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: int | None = None) -> Tensor:
    """_cdist_forward, or for p = 2 with compute_mode 1 (or None/0 and more than 25 rows) the
    matrix-product form _euclidean_dist over the broadcast batch."""
    _cdist_checks(x1, x2, p)
    r1, r2 = x1._impl.sizes[-2], x2._impl.sizes[-2]
    mode = 0 if compute_mode is None else compute_mode
    if mode not in (0, 1, 2):
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    use_mm = p == 2 and (mode == 1 or (mode == 0 and (r1 > _MM_THRESHOLD or r2 > _MM_THRESHOLD)))
    if not use_mm:
        result: Tensor = aten_op("_cdist_forward.default")(x1, x2, p, compute_mode)
        return result
    sizes = _cdist_shape(x1, x2)
    batch = list(sizes[:-2])
    cols = x1._impl.sizes[-1]
    a = aten_op("reshape.default")(aten_op("expand.default")(x1, [*batch, r1, cols]), [-1, r1, cols])
    b = aten_op("reshape.default")(aten_op("expand.default")(x2, [*batch, r2, cols]), [-1, r2, cols])
    result = aten_op("view.default")(aten_op("_euclidean_dist.default")(a, b), list(sizes))
    return result


@kernel("dist")
def dist(self: Tensor, other: Tensor, p: Number = 2) -> Tensor:
    """norm(self - other, p), the operands broadcast."""
    result: Tensor = aten_op("norm.Scalar")(aten_op("sub.Tensor")(self, other), p)
    return result
