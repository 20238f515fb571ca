"""The custom autograd Functions behind PyTorch's deprecated Python Tensor methods
(torch.autograd._functions): `Resize`, the non-inplace Tensor.resize and Tensor.resize_as."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.autograd.function import Function

if TYPE_CHECKING:
    from framework._tensor import Tensor

__all__ = ["Resize"]


class Resize(Function):
    """`tensor` viewed with other sizes of the same number of elements (sharing its storage when
    it is contiguous, a contiguous copy otherwise); the gradient is viewed back."""

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, sizes: Sequence[int]) -> Tensor:
        ctx.sizes = sizes
        ctx.numel = math.prod(sizes)
        if tensor.numel() != ctx.numel:
            wanted, given = "x".join(map(str, sizes)), "x".join(map(str, tensor.size()))
            raise RuntimeError(
                f"requested resize to {wanted} ({ctx.numel} elements in total), but the given tensor has a "
                f"size of {given} ({tensor.numel()} elements). autograd's resize can only change the shape "
                "of a given tensor, while preserving the number of elements. "
            )
        ctx.input_sizes = tensor.size()
        source = tensor.detach() if tensor.is_contiguous() else tensor.contiguous()
        return source.view(*sizes)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        if grad_output.numel() != ctx.numel:
            raise AssertionError(
                f"Expected grad_output to have {ctx.numel} elements, but got {grad_output.numel()}"
            )
        return grad_output.contiguous().view(ctx.input_sizes), None
