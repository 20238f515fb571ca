"""Max, average and adaptive pooling layers and max unpooling, 1-d, 2-d and 3-d (their settings
kept as given, as PyTorch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from framework._tensor import Tensor
from framework.nn import functional as F
from framework.nn.modules.conv import ntuple
from framework.nn.modules.module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]

Size2 = int | Sequence[int]


class _MaxPoolNd(Module):
    """The settings max pooling layers share (the stride defaults to the kernel size) and their
    forward; a subclass gives the number of spatial dimensions."""

    _spatial_dims: ClassVar[int]

    def __init__(
        self,
        kernel_size: Size2,
        stride: Size2 | None = None,
        padding: Size2 = 0,
        dilation: Size2 = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        max_pool = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[self._spatial_dims - 1]
        return max_pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """The maximum over each (dilated) window of (N, C, L) or (C, L) inputs; `return_indices`
    also returns where it was."""

    _spatial_dims = 1


class MaxPool2d(_MaxPoolNd):
    """The maximum over each (dilated) window; `return_indices` also returns where it was."""

    _spatial_dims = 2


class MaxPool3d(_MaxPoolNd):
    """The maximum over each (dilated) window of (N, C, D, H, W) or (C, D, H, W) inputs;
    `return_indices` also returns where it was."""

    _spatial_dims = 3


class AvgPool1d(Module):
    """The mean over each window of (N, C, L) or (C, L) inputs (padding counted unless
    `count_include_pad` is False)."""

    def __init__(
        self,
        kernel_size: Size2,
        stride: Size2 | None = None,
        padding: Size2 = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = ntuple(kernel_size, 1)
        self.stride = ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    """The settings 2-d and 3-d average pooling layers share (the stride defaults to the kernel
    size) and their forward; a subclass gives the number of spatial dimensions."""

    _spatial_dims: ClassVar[int]

    def __init__(
        self,
        kernel_size: Size2,
        stride: Size2 | None = None,
        padding: Size2 = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        avg_pool = F.avg_pool2d if self._spatial_dims == 2 else F.avg_pool3d
        return avg_pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """The mean over each window (padding counted unless `count_include_pad` is False)."""

    _spatial_dims = 2


class AvgPool3d(_AvgPoolNd):
    """The mean over each window of (N, C, D, H, W) or (C, D, H, W) inputs (padding counted
    unless `count_include_pad` is False)."""

    _spatial_dims = 3


class _AdaptivePoolNd(Module):
    """The setting adaptive pooling layers share: the output size, as given."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """The mean over windows chosen so the output has `output_size` (None keeps an input size)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """The mean over windows chosen so the last dimension has `output_size`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """The mean over windows chosen so the last three dimensions have `output_size` (None keeps
    an input size)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    """The output size and `return_indices`."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The maximum over windows chosen so the last dimension has `output_size`; `return_indices`
    also returns where it was."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The maximum over windows chosen so the output has `output_size` (None keeps an input
    size); `return_indices` also returns where it was."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """The maximum over windows chosen so the last three dimensions have `output_size` (None
    keeps an input size); `return_indices` also returns where it was."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    """The partial inverse of a max pooling: zeros with each input element put where the
    pooling's indices say it came from; a subclass gives the number of spatial dimensions."""

    _spatial_dims: ClassVar[int]

    def __init__(self, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0) -> None:
        super().__init__()
        n = self._spatial_dims
        self.kernel_size = ntuple(kernel_size, n)
        self.stride = ntuple(stride if stride is not None else kernel_size, n)
        self.padding = ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        max_unpool = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._spatial_dims - 1]
        return max_unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d."""

    _spatial_dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d."""

    _spatial_dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d."""

    _spatial_dims = 3
