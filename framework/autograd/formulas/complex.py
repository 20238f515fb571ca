"""Backward formulas of the complex-number operators (angle, polar), as PyTorch's derivatives
give them; `grad` of a complex output is the conjugate Wirtinger gradient, as in PyTorch."""

from __future__ import annotations

import framework
from framework._tensor import Tensor
from framework.ops.kernels.linalg_decomp import conj
from framework.types import Number

__all__ = [
    "angle_backward",
    "conj_any",
    "conjugate",
    "handle_r_to_c",
    "mul_tensor_backward",
    "polar_backward_abs",
    "polar_backward_angle",
]


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


def conjugate(t: Tensor) -> Tensor:
    """The complex conjugate of a complex tensor, `t` itself otherwise: the conj(f'(z)) of
    PyTorch's formulas, without a dispatch for the real tensors of ordinary training."""
    return conj(t) if t._impl.dtype.is_complex else t


def conj_any(value: Tensor | Number) -> Tensor | Number:
    """The conjugate of a tensor (a lazy view, `value` itself unless complex) or of a number."""
    return value.conj() if isinstance(value, Tensor) else value.conjugate()


def handle_r_to_c(input: Tensor | Number, gradient: Tensor) -> Tensor:
    """The real part of a complex `gradient` reaching a real input (PyTorch's handle_r_to_c)."""
    real_input = not (input.is_complex() if isinstance(input, Tensor) else isinstance(input, complex))
    return framework.real(gradient) if real_input and gradient.is_complex() else gradient


def mul_tensor_backward(grad: Tensor, other: Tensor | Number, self: Tensor) -> Tensor:
    """grad * conj(other), real for a real `self`."""
    return handle_r_to_c(self, grad * conj_any(other))
