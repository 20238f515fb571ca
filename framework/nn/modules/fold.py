"""`Fold` and `Unfold`: sliding blocks of image-like tensors (their settings kept as given, as
PyTorch)."""

from __future__ import annotations

from collections.abc import Sequence

from framework._tensor import Tensor
from framework.nn import functional as F
from framework.nn.modules.module import Module

__all__ = ["Fold", "Unfold"]

Size2 = int | Sequence[int]


class Fold(Module):
    """Columns (N, C * prod(kernel_size), L) or (C * prod(kernel_size), L) summed back into the
    blocks of an (N, C, *output_size) tensor (overlapping blocks add up)."""

    def __init__(
        self,
        output_size: Size2,
        kernel_size: Size2,
        dilation: Size2 = 1,
        padding: Size2 = 0,
        stride: Size2 = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """The sliding blocks of (N, C, H, W) or (C, H, W) inputs as columns
    (N, C * prod(kernel_size), L)."""

    def __init__(
        self, kernel_size: Size2, dilation: Size2 = 1, padding: Size2 = 0, stride: Size2 = 1
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )
