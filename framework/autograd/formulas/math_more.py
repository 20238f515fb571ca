"""Backward formulas of the math and special-function operators (sinc, mvlgamma, special_i1,
special_i1e), called from derivatives.yaml; built from framework operators, so they
differentiate again."""

from __future__ import annotations

import math

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.complex import conjugate
from framework.autograd.formulas.pointwise import norm_backward
from framework.types import Number

__all__ = [
    "i1_backward",
    "i1e_backward",
    "ldexp_backward_self",
    "logcumsumexp_backward",
    "mvlgamma_backward",
    "renorm_backward",
    "sinc_backward",
    "special_xlog1py_backward_self",
]


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


def logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """d/dx_i of sum_j grad_j logcumsumexp(x)_j = sum_{j >= i} grad_j exp(x_i - result_j), summed
    in log space for the positive and the negative parts of `grad` (no overflow); the log of a
    part's zeros is the dtype's lowest value."""
    if self.dim() == 0:
        return grad

    def reversed_logcumsumexp(t: Tensor) -> Tensor:
        return t.flip([dim]).logcumsumexp(dim).flip([dim])

    lowest = framework.finfo(grad.dtype).min  # not -inf: no inf - inf in the second derivative
    log_magnitude = grad.abs().log()
    log_positive = framework.where(grad > 0, log_magnitude, lowest)
    log_negative = framework.where(grad < 0, log_magnitude, lowest)
    positive = (self + reversed_logcumsumexp(log_positive - result)).exp()
    negative = (self + reversed_logcumsumexp(log_negative - result)).exp()
    return positive - negative


def renorm_backward(grad: Tensor, self: Tensor, p: Number, dim: int, maxnorm: Number) -> Tensor:
    """Gradient of renorm: the slices left alone pass `grad`; a rescaled slice x * maxnorm /
    (norm + 1e-7) passes factor * grad minus maxnorm / (norm + 1e-7)^2 times the norm's gradient
    of sum(x * grad) over the slice."""
    dims = [d for d in range(self.dim()) if d != dim % self.dim()]
    order = float(p)  # type: ignore[arg-type]
    norm = framework.linalg.vector_norm(self, order, dims, True)
    inverse = (norm + 1e-7).reciprocal()
    factor = inverse * maxnorm
    slice_grad = (self * grad).sum(dims, True)
    norm_grad = norm_backward(slice_grad, self, order, norm, dims, True)
    scaled = factor * grad - maxnorm * inverse.pow(2) * norm_grad
    return framework.where(norm > maxnorm, scaled, grad)


# ---- torch.special (session 11) ------------------------------------------------------------------


def i1e_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 where |x| is below the dtype's epsilon."""
    eps = framework.finfo(self.dtype).eps
    not_tiny = self.abs() > eps
    safe = framework.where(not_tiny, self, eps)
    slope = framework.special.i0e(safe) - result * (self.sgn() + safe.reciprocal())
    return grad * framework.where(not_tiny, slope, 0.5)


def special_xlog1py_backward_self(grad: Tensor, self: Tensor, other: Number) -> Tensor:
    """d/dx x log1p(y) = log1p(y); 0 where x is 0 when y <= -1 (no inf or NaN)."""
    slope = framework.special.xlog1py(grad, other)
    return slope if float(other) > -1.0 else slope.masked_fill(self == 0.0, 0.0)  # type: ignore[arg-type]
