"""Backward formulas of the complex-number operators (angle, polar), as PyTorch's derivatives
give them; `grad` of a complex output is the conjugate Wirtinger gradient, as in PyTorch."""

from __future__ import annotations

import framework
from framework._tensor import Tensor

__all__ = ["angle_backward", "polar_backward_abs", "polar_backward_angle"]


def angle_backward(grad: Tensor, self: Tensor) -> Tensor:
    """i z / |z|^2 times the gradient (0 at z = 0) for complex z; zeros for real inputs."""
    if not self.is_complex():
        return framework.zeros_like(self)
    zero = framework.zeros((), dtype=self.dtype)
    return framework.where(self == 0, zero, grad * self / self.abs().pow(2) * 1j)


def polar_backward_abs(grad: Tensor, result: Tensor) -> Tensor:
    """Re(conj(grad) sgn(result)): the gradient along the direction of each value."""
    return framework.real(grad.conj() * result.sgn())


def polar_backward_angle(grad: Tensor, result: Tensor) -> Tensor:
    """Re(conj(grad) i result): the gradient along the rotation of each value."""
    return framework.real(grad.conj() * (result * 1j))
