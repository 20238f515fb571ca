"""Backward formulas of index_reduce and scatter_reduce (PyTorch's index_reduce_backward and
scatter_reduce_backward).

Both reduce `src` into the positions of `self` that `index` names: scatter_reduce element by
element along `dim` (spread with `gather`, collect with `scatter_add`), index_reduce whole slices
(`index_select`, `index_add`).  One function serves both through those two maps; `which` picks
the gradient of self (0) or of src (1).  For "prod", a src element that is the only zero sent to
its position gets the product of the others (PyTorch's special case); with several zeros sent to
one position the first derivative is still exact (zero), which PyTorch refuses to differentiate
twice and which is not special-cased here.
"""

from __future__ import annotations

from collections.abc import Callable

import framework
from framework._tensor import Tensor

__all__ = ["index_reduce_backward", "scatter_reduce_backward"]

Spread = Callable[[Tensor], Tensor]
"""A self-shaped tensor read at each src element's target (gather / index_select)."""
Collect = Callable[[Tensor, Tensor], Tensor]
"""A self-shaped base with src-shaped values added at their targets (scatter_add / index_add)."""
Reduce = Callable[[Tensor, Tensor], Tensor]
"""The forward operator again, on other self and src."""


def _reduce_backward(
    grad: Tensor,
    self: Tensor,
    src: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
    which: int,
    spread: Spread,
    collect: Collect,
    forward: Reduce,
    clear: Spread,
) -> Tensor:
    if which == 1:
        return _src_backward(grad, self, src, reduce, include_self, result, spread, collect, forward)
    if reduce == "sum":
        grad_self = grad
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        grad_self = grad * forward(masked_self, src) / masked_self
    elif reduce == "mean":
        grad_self = grad / _counts(grad, src, include_self, collect)
    else:
        self_is_result = (self == result).to(self.dtype)
        grad_self = self_is_result * grad / collect(self_is_result, (src == spread(result)).to(self.dtype))
    return grad_self if include_self else clear(grad_self)


def _counts(grad: Tensor, src: Tensor, include_self: bool, collect: Collect) -> Tensor:
    """How many values each position of self averages (at least one)."""
    count = framework.ones_like(grad) if include_self else framework.zeros_like(grad)
    count = collect(count, framework.ones_like(src))
    return count.masked_fill(count == 0, 1)


def _src_backward(
    grad: Tensor,
    self: Tensor,
    src: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
    spread: Spread,
    collect: Collect,
    forward: Reduce,
) -> Tensor:
    if reduce == "sum":
        return spread(grad)
    if reduce == "prod":
        src_zero = src == 0
        zeros_sent = spread(collect(framework.zeros_like(self), src_zero.to(self.dtype)))
        single_zero = src_zero & (zeros_sent == 1)
        others = forward(self, src.masked_fill(single_zero, 1))
        return framework.where(
            single_zero, spread(grad * others), spread(grad * result) / src.masked_fill(src_zero, 1)
        )
    if reduce == "mean":
        return spread(grad) / spread(_counts(grad, src, include_self, collect))
    value = spread(result)
    src_is_result = (src == value).to(self.dtype)
    self_is_result = (self == result).to(self.dtype)
    return src_is_result * spread(grad / collect(self_is_result, src_is_result))


def scatter_reduce_backward(
    grad: Tensor,
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
    which: int,
) -> Tensor:
    """The gradient of `scatter_reduce(self, dim, index, src, reduce, include_self)` for self
    (`which` 0) or src (1)."""
    return _reduce_backward(
        grad,
        self,
        src,
        reduce,
        include_self,
        result,
        which,
        lambda t: t.gather(dim, index),
        lambda base, values: base.scatter_add(dim, index, values),
        lambda s, v: s.scatter_reduce(dim, index, v, reduce, include_self=include_self),
        lambda t: t.scatter(dim, index, 0),
    )


def index_reduce_backward(
    grad: Tensor,
    self: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
    which: int,
) -> Tensor:
    """The gradient of `index_reduce(self, dim, index, source, reduce, include_self)` for self
    (`which` 0) or source (1)."""
    return _reduce_backward(
        grad,
        self,
        source,
        reduce,
        include_self,
        result,
        which,
        lambda t: t.index_select(dim, index),
        lambda base, values: base.index_add(dim, index, values),
        lambda s, v: s.index_reduce(dim, index, v, reduce, include_self=include_self),
        lambda t: t.index_fill(dim, index, 0),
    )
