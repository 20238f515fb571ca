"""Backward formulas of the activations and losses of framework/ops/kernels/activation.py, called
from derivatives.yaml: the derivatives of their backward operators (double backward) and mish's
first derivative.  Every helper computes with framework operators, so what it returns is
differentiable again; `grads` is the pair of gradients of `_prelu_kernel_backward`'s outputs
(None for an output that was not used).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import framework
from framework._tensor import Tensor
from framework.autograd.grad_mode import is_grad_enabled
from framework.ops._iter import Number
from framework.ops.kernels.activation import real_scalar
from framework.ops.kernels.nn import reduction_grad_scale

__all__ = [
    "elu_double_backward",
    "glu_double_backward",
    "glu_double_backward_grad_output",
    "hardswish_double_backward",
    "huber_loss_double_backward",
    "huber_loss_double_backward_grad_output",
    "log_sigmoid_double_backward",
    "mish_backward_formula",
    "prelu_double_backward_grad_output",
    "prelu_double_backward_self",
    "prelu_double_backward_weight",
    "smooth_l1_loss_double_backward",
    "smooth_l1_loss_double_backward_grad_output",
    "soft_margin_loss_double_backward",
    "soft_margin_loss_double_backward_grad_output",
    "softplus_double_backward",
]

_NONE = 0


def _contracted_grad_output(
    backward: Callable[..., Tensor],
    grad: Tensor,
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    reduction: int,
    *params: float,
) -> Tensor:
    """d/dgrad_output of a loss's backward operator `backward(grad_output, self, target,
    reduction, *params)` (linear in grad_output), contracted with grad: the backward of grad
    itself without reduction, else that of ones times grad, summed."""
    if reduction == _NONE:
        return backward(grad, self, target, reduction, *params)
    ones = framework.ones_like(grad_output)
    return (backward(ones, self, target, reduction, *params) * grad).sum()


# ---- activations --------------------------------------------------------------------------------


def elu_double_backward(
    grad: Tensor,
    grad_output: Tensor,
    alpha: Number,
    scale: Number,
    input_scale: Number,
    is_result: bool,
    self_or_result: Tensor,
) -> Tensor:
    """d/d(self_or_result) of elu_backward, times grad: 0 where the input was positive; below,
    grad_output * input_scale from the result, grad_output * input_scale^2 * alpha * scale *
    exp(x * input_scale) from the input."""
    i = real_scalar(input_scale)
    x = self_or_result
    if is_result:
        second = grad * grad_output * i
    else:
        factor = i * i * real_scalar(alpha) * real_scalar(scale)
        second = grad * grad_output * (x.clamp_max(0) * i).exp() * factor
    return second.masked_fill(x.gt(0), 0)


def softplus_double_backward(grad: Tensor, self: Tensor, beta: Number, threshold: Number) -> Tensor:
    """d/dself of softplus_backward (grad already times grad_output): beta s (1 - s) with
    s = sigmoid(beta x), 0 where softplus is linear."""
    scaled = self * real_scalar(beta)
    s = scaled.sigmoid()
    derivative: Tensor = grad * s * (1 - s) * real_scalar(beta)
    return derivative.masked_fill(scaled.gt(real_scalar(threshold)), 0)


def hardswish_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor) -> Tensor:
    """d/dself of hardswish_backward: grad_output / 3 strictly between -3 and 3, times grad."""
    inside = self.gt(-3).logical_and(self.lt(3))
    return (grad * grad_output / 3).masked_fill(inside.logical_not(), 0)


def mish_backward_formula(grad: Tensor, self: Tensor) -> Tensor:
    """The gradient of mish: grad (t + x sigmoid(x) (1 - t^2)) with t = tanh(softplus(x)).  When
    the backward pass records a graph (grad mode on) it is composed of differentiable operators,
    otherwise it is the fused mish_backward operator (which has no derivative, as in PyTorch)."""
    if not is_grad_enabled():
        result: Tensor = framework.mish_backward(grad, self)
        return result
    t = framework.softplus(self).tanh()
    return grad * (t + self * self.sigmoid() * (1 - t * t))


def log_sigmoid_double_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dself of log_sigmoid_backward (grad already times grad_output): -sigmoid(x) (1 - sigmoid(x))."""
    s = self.sigmoid()
    return -grad * s * (1 - s)


def _where_not_positive(value: Tensor, self: Tensor) -> Tensor:
    return value.masked_fill(self.gt(0), 0)


def prelu_double_backward_grad_output(grads: Sequence[Tensor | None], self: Tensor, weight: Tensor) -> Tensor:
    """d/dgrad_output of _prelu_kernel_backward, contracted with the gradients of its two outputs:
    the input's gradient is grad (weight grad where x <= 0), the weight's x grad where x <= 0."""
    grad_input, grad_weight = grads
    total = (
        framework.zeros_like(self)
        if grad_input is None
        else grad_input + _where_not_positive(grad_input * (weight - 1), self)
    )
    if grad_weight is not None:
        total = total + _where_not_positive(grad_weight * self, self)
    return total


def prelu_double_backward_self(grads: Sequence[Tensor | None], grad_output: Tensor, self: Tensor) -> Tensor:
    """d/dself of _prelu_kernel_backward: only the weight's gradient (x grad where x <= 0) varies."""
    grad_weight = grads[1]
    if grad_weight is None:
        return framework.zeros_like(self)
    return _where_not_positive(grad_weight * grad_output, self)


def prelu_double_backward_weight(grads: Sequence[Tensor | None], grad_output: Tensor, self: Tensor) -> Tensor:
    """d/dweight of _prelu_kernel_backward: only the input's gradient (weight grad where x <= 0)
    varies (autograd sums the result to the weight's shape)."""
    grad_input = grads[0]
    if grad_input is None:
        return framework.zeros_like(self)
    return _where_not_positive(grad_input * grad_output, self)


def _glu_halves(t: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    half = t.shape[dim] // 2
    return t.narrow(dim, 0, half), t.narrow(dim, half, half)


def glu_double_backward_grad_output(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    """d/dgrad_output of glu_backward, contracted with grad: grad_a s + grad_b a s (1 - s) for
    halves a, b of self and s = sigmoid(b)."""
    a, b = _glu_halves(self, dim)
    grad_a, grad_b = _glu_halves(grad, dim)
    s = b.sigmoid()
    return grad_a * s + grad_b * a * s * (1 - s)


def glu_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    """d/dself of glu_backward, times grad: for a, grad_b grad_output s'; for b,
    grad_a grad_output s' + grad_b grad_output a s' (1 - 2 s), with s' = s (1 - s)."""
    a, b = _glu_halves(self, dim)
    grad_a, grad_b = _glu_halves(grad, dim)
    s = b.sigmoid()
    ds = s * (1 - s)
    first = grad_b * grad_output * ds
    second = grad_output * ds * (grad_a + grad_b * a * (1 - 2 * s))
    result: Tensor = framework.cat([first, second], dim)
    return result


# ---- losses -------------------------------------------------------------------------------------


def _inside(self: Tensor, target: Tensor, limit: float) -> Tensor:
    """Where |self - target| < limit (the quadratic part of smooth_l1_loss and huber_loss)."""
    return (self - target).abs().lt(limit)


def smooth_l1_loss_double_backward(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    """d/dself of smooth_l1_loss_backward (grad already times grad_output): 1 / beta where
    |x - t| < beta, over numel for a mean."""
    if beta == 0:
        return grad * 0
    scale = reduction_grad_scale(reduction, self.numel()) / beta
    return (grad * scale).masked_fill(_inside(self, target, beta).logical_not(), 0)


def smooth_l1_loss_double_backward_grad_output(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    """d/dgrad_output of smooth_l1_loss_backward, contracted with grad."""
    return _contracted_grad_output(
        framework.smooth_l1_loss_backward, grad, grad_output, self, target, reduction, beta
    )


def huber_loss_double_backward(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    """d/dself of huber_loss_backward (grad already times grad_output): 1 where |x - t| < delta,
    over numel for a mean."""
    scale = reduction_grad_scale(reduction, self.numel())
    return (grad * scale).masked_fill(_inside(self, target, delta).logical_not(), 0)


def huber_loss_double_backward_grad_output(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    """d/dgrad_output of huber_loss_backward, contracted with grad."""
    return _contracted_grad_output(
        framework.huber_loss_backward, grad, grad_output, self, target, reduction, delta
    )


def soft_margin_loss_double_backward(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """d/dself of soft_margin_loss_backward (grad already times grad_output): t^2 s (1 - s) with
    s = sigmoid(-t x), over numel for a mean."""
    s = (-target * self).sigmoid()
    return grad * target * target * s * (1 - s) * reduction_grad_scale(reduction, self.numel())


def soft_margin_loss_double_backward_grad_output(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    """d/dgrad_output of soft_margin_loss_backward, contracted with grad."""
    return _contracted_grad_output(
        framework.soft_margin_loss_backward, grad, grad_output, self, target, reduction
    )
