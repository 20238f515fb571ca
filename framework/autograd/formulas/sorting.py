"""Backward formulas of the sorting and selection operators (cummax/cummin; the unique operators
have no derivative, as in PyTorch)."""

from __future__ import annotations

import framework
from framework._tensor import Tensor

__all__ = ["cummaxmin_backward", "derivative_not_implemented"]


def cummaxmin_backward(grad: Tensor, input: Tensor, indices: Tensor, dim: int) -> Tensor:
    """Gradient of cummax/cummin: each output's `grad` added to the input element it came from
    (`indices`), with scatter_add as PyTorch."""
    if input.numel() == 0:
        return input
    zeros = framework.zeros(input.shape, dtype=grad.dtype, device=grad.device)
    return zeros.scatter_add(dim, indices, grad)


def derivative_not_implemented(name: str) -> Tensor:
    """Raises PyTorch's error for an operator whose derivatives.yaml entry says
    `not_implemented("<name>")`: its result requires grad, backpropagating through it fails."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
