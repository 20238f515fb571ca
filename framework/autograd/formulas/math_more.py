"""Backward formulas of the math and special-function operators (sinc, mvlgamma, special_i1),
called from derivatives.yaml; built from framework operators, so they differentiate again."""

from __future__ import annotations

import math

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.linalg import conjugate

__all__ = ["i1_backward", "ldexp_backward_self", "mvlgamma_backward", "sinc_backward"]


def sinc_backward(grad: Tensor, self: Tensor) -> Tensor:
    """sinc'(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0."""
    scaled = self * math.pi
    slope = (scaled * scaled.cos() - scaled.sin()) / (scaled * self)
    return (grad * conjugate(slope)).masked_fill(self == 0, 0)


def mvlgamma_backward(grad: Tensor, self: Tensor, p: int) -> Tensor:
    """grad * sum_j digamma(x - j/2) over j < p."""
    offsets = framework.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=self.dtype, device=self.device)
    return grad * (offsets + self.unsqueeze(-1)).digamma().sum(-1)


def i1_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """i1'(x) = i0(x) - i1(x) / x, 1/2 at x = 0."""
    slope = framework.where(self == 0, 0.5, self.i0() - result / self)
    return grad * slope


def ldexp_backward_self(grad: Tensor, other: Tensor) -> Tensor:
    """grad * 2^other; for an integral `other` the power is PyTorch's integer one (0 for a
    negative exponent, as its gradient is)."""
    if other.dtype.is_floating_point or other.dtype.is_complex:
        return grad * conjugate(framework.pow(2, other))
    return grad * framework.pow(2, other.clamp(min=0)).masked_fill(other < 0, 0)
