"""3-d convolution and pooling, max pooling with indices, max unpooling and sliding blocks of
`torch.nn.functional` (re-exported by `framework.nn.functional`), with PyTorch's Python
signatures and defaults over the dispatched operators."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import framework
from framework._tensor import Tensor
from framework.nn._functional_shared import _adaptive_output_size, _max_pool, _unpool_output_size

__all__ = [
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool3d",
    "conv3d",
    "conv_transpose3d",
    "fold",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool3d",
    "unfold",
]

_aten: Any = framework.ops.aten
IntOrSeq = int | Sequence[int]


def _ntuple(value: IntOrSeq, n: int) -> list[int]:
    """One int as `n` copies of itself, else the sequence as a list (PyTorch's `_single`,
    `_pair`, `_triple`)."""
    return [value] * n if isinstance(value, int) else list(value)


# ---- 3-d convolution ----------------------------------------------------------------------------


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrSeq = 1,
    padding: IntOrSeq | str = 0,
    dilation: IntOrSeq = 1,
    groups: int = 1,
) -> Tensor:
    """3-d cross-correlation of (N, C, D, H, W) or (C, D, H, W) inputs; padding may be "valid"
    or "same"."""
    overload = _aten.conv3d.padding if isinstance(padding, str) else _aten.conv3d.default
    return cast(Tensor, overload(input, weight, bias, stride, padding, dilation, groups))


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    output_padding: IntOrSeq = 0,
    groups: int = 1,
    dilation: IntOrSeq = 1,
) -> Tensor:
    """The transposed 3-d convolution of (N, C, D, H, W) or (C, D, H, W) inputs with weight
    (C, F/groups, KD, KH, KW)."""
    return cast(
        Tensor,
        _aten.conv_transpose3d.input(input, weight, bias, stride, padding, output_padding, groups, dilation),
    )


# ---- pooling ------------------------------------------------------------------------------------


def max_pool3d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of (N, C, D, H, W) or (C, D, H, W) inputs (and, with
    return_indices, its flat position in the volume); the stride defaults to the kernel size."""
    return _max_pool("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _with_indices(
    name: str,
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None,
    padding: IntOrSeq,
    dilation: IntOrSeq,
    ceil_mode: bool,
) -> tuple[Tensor, Tensor]:
    values, indices = _max_pool(name, input, kernel_size, stride, padding, dilation, ceil_mode, True)
    return cast(Tensor, values), cast(Tensor, indices)


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool1d's values and indices (whatever `return_indices` says)."""
    return _with_indices("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool2d's values and indices (whatever `return_indices` says)."""
    return _with_indices("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool3d's values and indices (whatever `return_indices` says)."""
    return _with_indices("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool3d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window of (N, C, D, H, W) or (C, D, H, W) inputs; the stride defaults to
    the kernel size."""
    strides = [] if stride is None else stride
    return cast(
        Tensor,
        _aten.avg_pool3d.default(
            input, kernel_size, strides, padding, ceil_mode, count_include_pad, divisor_override
        ),
    )


def _adaptive_sizes(input: Tensor, output_size: int | Sequence[int | None]) -> list[int]:
    return [output_size] * 3 if isinstance(output_size, int) else _adaptive_output_size(input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: int | Sequence[int | None]) -> Tensor:
    """Means over windows that split the last three dimensions into `output_size` (None keeps a
    dimension)."""
    return cast(Tensor, _aten.adaptive_avg_pool3d.default(input, _adaptive_sizes(input, output_size)))


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: int | Sequence[int | None], return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """Maxima over windows that split the last three dimensions into `output_size` (None keeps a
    dimension) and their flat positions in the volume (whatever `return_indices` says)."""
    values, indices = _aten.adaptive_max_pool3d.default(input, _adaptive_sizes(input, output_size))
    return cast(Tensor, values), cast(Tensor, indices)


def adaptive_max_pool3d(
    input: Tensor, output_size: int | Sequence[int | None], return_indices: bool = False
) -> Any:
    """Maxima over windows that split the last three dimensions into `output_size` (and, with
    return_indices, their positions)."""
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: IntOrSeq, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool1d's values and indices (whatever `return_indices` says)."""
    values, indices = _aten.adaptive_max_pool1d.default(input, output_size)
    return cast(Tensor, values), cast(Tensor, indices)


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: int | Sequence[int | None], return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool2d's values and indices (whatever `return_indices` says)."""
    sizes = [output_size] * 2 if isinstance(output_size, int) else _adaptive_output_size(input, output_size)
    values, indices = _aten.adaptive_max_pool2d.default(input, sizes)
    return cast(Tensor, values), cast(Tensor, indices)


# ---- max unpooling ------------------------------------------------------------------------------


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """The partial inverse of max_pool1d (max_unpool2d of a width-1 input): zeros with each
    element of `input` put where `indices` say it came from."""
    kernel = _ntuple(kernel_size, 1)
    strides = kernel if stride is None else _ntuple(stride, 1)
    sizes = _unpool_output_size(input, kernel, strides, _ntuple(padding, 1), output_size)
    out = _aten.max_unpool2d.default(input.unsqueeze(-1), indices.unsqueeze(-1), [*sizes, 1])
    return cast(Tensor, out).squeeze(-1)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """The partial inverse of max_pool3d: zeros with each element of `input` put where `indices`
    (max_pool3d's) say it came from; the output size is that of the pooled input unless given
    (within one stride of it; optionally preceded by the batch and channel sizes)."""
    kernel = _ntuple(kernel_size, 3)
    strides = kernel if stride is None else _ntuple(stride, 3)
    pads = _ntuple(padding, 3)
    sizes = _unpool_output_size(input, kernel, strides, pads, output_size)
    return cast(Tensor, _aten.max_unpool3d.default(input, indices, sizes, strides, pads))


# ---- sliding blocks -----------------------------------------------------------------------------


def unfold(
    input: Tensor, kernel_size: IntOrSeq, dilation: IntOrSeq = 1, padding: IntOrSeq = 0, stride: IntOrSeq = 1
) -> Tensor:
    """The sliding blocks of (N, C, H, W) or (C, H, W) inputs as columns (N, C * prod(kernel), L)."""
    return cast(
        Tensor,
        _aten.im2col.default(
            input, _ntuple(kernel_size, 2), _ntuple(dilation, 2), _ntuple(padding, 2), _ntuple(stride, 2)
        ),
    )


def fold(
    input: Tensor,
    output_size: IntOrSeq,
    kernel_size: IntOrSeq,
    dilation: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    stride: IntOrSeq = 1,
) -> Tensor:
    """Columns (N, C * prod(kernel), L) or (C * prod(kernel), L) summed back into blocks of an
    (N, C, *output_size) tensor (the inverse arrangement of unfold)."""
    return cast(
        Tensor,
        _aten.col2im.default(
            input,
            _ntuple(output_size, 2),
            _ntuple(kernel_size, 2),
            _ntuple(dilation, 2),
            _ntuple(padding, 2),
            _ntuple(stride, 2),
        ),
    )
