"""`framework.unique` and `framework.unique_consecutive`: PyTorch's Python functions (its
torch/functional.py) over the operators `_unique2`, `unique_dim` and `unique_consecutive`, which
always return three tensors; these return the distinct values alone, or with the inverse indices
and/or the counts that were asked for."""

from __future__ import annotations

from typing import Literal, overload

from framework._tensor import Tensor
from framework.ops.kernels._registry import aten_op

__all__ = ["unique", "unique_consecutive"]


def _chosen(
    result: tuple[Tensor, Tensor, Tensor], return_inverse: bool, return_counts: bool
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    output, inverse, counts = result
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


@overload
def unique(
    input: Tensor,
    sorted: bool = ...,
    return_inverse: Literal[False] = ...,
    return_counts: Literal[False] = ...,
    dim: int | None = ...,
) -> Tensor: ...
@overload
def unique(
    input: Tensor,
    sorted: bool,
    return_inverse: Literal[True],
    return_counts: Literal[False] = ...,
    dim: int | None = ...,
) -> tuple[Tensor, Tensor]: ...
@overload
def unique(
    input: Tensor,
    sorted: bool = ...,
    *,
    return_inverse: Literal[True],
    return_counts: Literal[False] = ...,
    dim: int | None = ...,
) -> tuple[Tensor, Tensor]: ...
@overload
def unique(
    input: Tensor, sorted: bool, return_inverse: bool, return_counts: Literal[True], dim: int | None = ...
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]: ...
@overload
def unique(
    input: Tensor,
    sorted: bool = ...,
    return_inverse: bool = ...,
    *,
    return_counts: Literal[True],
    dim: int | None = ...,
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]: ...
@overload
def unique(
    input: Tensor,
    sorted: bool = ...,
    return_inverse: bool = ...,
    return_counts: bool = ...,
    dim: int | None = ...,
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]: ...
def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """The distinct elements of `input` (flattened), or with `dim` its distinct slices along
    `dim`, in ascending (lexicographic) order; with `return_inverse`, also where each element
    (slice) of `input` went; with `return_counts`, also how often each one occurs."""
    if dim is None:
        result = aten_op("_unique2.default")(
            input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    else:
        result = aten_op("unique_dim.default")(
            input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    return _chosen(result, return_inverse, return_counts)


@overload
def unique_consecutive(
    input: Tensor,
    return_inverse: Literal[False] = ...,
    return_counts: Literal[False] = ...,
    dim: int | None = ...,
) -> Tensor: ...
@overload
def unique_consecutive(
    input: Tensor, return_inverse: Literal[True], return_counts: Literal[False] = ..., dim: int | None = ...
) -> tuple[Tensor, Tensor]: ...
@overload
def unique_consecutive(
    input: Tensor, return_inverse: bool = ..., *, return_counts: Literal[True], dim: int | None = ...
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]: ...
@overload
def unique_consecutive(
    input: Tensor, return_inverse: bool = ..., return_counts: bool = ..., dim: int | None = ...
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]: ...
def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """`input` (flattened, or along `dim`) with each run of equal consecutive elements (slices)
    reduced to one; with `return_inverse`, also the run each element (slice) belongs to; with
    `return_counts`, also each run's length."""
    result = aten_op("unique_consecutive.default")(
        input, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )
    return _chosen(result, return_inverse, return_counts)
