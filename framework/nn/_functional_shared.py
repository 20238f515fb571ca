"""Helpers `framework.nn.functional` and its continuations `_functional_more` and
`_functional_3d` share: the max pooling call, adaptive pooling's and max unpooling's output
sizes and the normalizations' one-value check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import framework
from framework._tensor import Tensor

_aten: Any = framework.ops.aten


def _max_pool(
    name: str,
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    return_indices: bool,
) -> Any:
    """max_pool1d/2d/3d through the operator `name` (`name`_with_indices when return_indices: values
    and positions), the stride defaulting to the kernel size."""
    op = getattr(_aten, f"{name}_with_indices" if return_indices else name)
    result = op.default(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)
    if return_indices:
        values, indices = result
        return cast(Tensor, values), cast(Tensor, indices)
    return cast(Tensor, result)


def _adaptive_output_size(input: Tensor, output_size: Sequence[int | None]) -> list[int]:
    """An adaptive pooling's output sizes of the last dimensions, None keeping the input's."""
    given = list(output_size)
    if input.dim() <= len(given):
        raise ValueError(f"Input dimension should be at least {len(given) + 1}")
    defaults = input.shape[-len(given) :]
    return [d if v is None else v for v, d in zip(given, defaults, strict=True)]


def _unpool_output_size(
    input: Tensor,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    output_size: Sequence[int] | None,
) -> list[int]:
    """A max unpooling's output sizes: those of the input its pooling had (the default), or
    `output_size` (optionally preceded by the batch and channel sizes), which must lie within one
    stride of the default."""
    n = len(kernel)
    default = [(input.shape[d - n] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        sizes = default
    else:
        given = output_size[2:] if len(output_size) == n + 2 else output_size
        if len(given) != n:
            raise ValueError(
                f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                f"of '{len(given)}'"
            )
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < given[d] < high:
                raise ValueError(f'invalid output_size "{given}" (dim {d} must be between {low} and {high})')
        sizes = list(given)
    for d in range(n):
        if sizes[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                f"output_size[{d}]={sizes[d]}"
            )
    return sizes


def _verify_batch_size(size: Sequence[int], shown: str) -> None:
    """PyTorch's refusal to normalize over one value per channel: `size` (batch, channels,
    spatial sizes...), shown as `shown` in the message."""
    values = size[0] if size else 1
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {shown}")
