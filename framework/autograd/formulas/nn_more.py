"""Backward formulas of the operators of framework/ops/kernels/nn_more.py, called from
derivatives.yaml: group normalization's first derivative."""

from __future__ import annotations

from collections.abc import Sequence

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.nn import _project
from framework.autograd.grad_mode import is_grad_enabled

__all__ = ["group_norm_backward"]


def group_norm_backward(
    grads: Sequence[Tensor],
    input: Tensor,
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """native_group_norm's gradients (input, weight, bias) from those of its three outputs (the
    result, the groups' means and 1/sqrt(var + eps)).  The result's part comes from
    native_group_norm_backward, or, when the graph of the backward is recorded, from the same
    computation in differentiable operators (PyTorch's infinitely differentiable version: the
    fused backward has no derivative); the statistics' parts are added to the input's."""
    grad, grad_mean, grad_rstd = grads
    if is_grad_enabled():
        grad_input, grad_weight, grad_bias = _differentiable(grad, input, mean, rstd, weight, N, C, group)
    else:
        grad_input, grad_weight, grad_bias = framework.native_group_norm_backward(
            grad, input, mean, rstd, weight, N, C, HxW, group, list(output_mask)
        )
    if not output_mask[0]:
        return None, grad_weight, grad_bias
    size = C // group * HxW
    r = rstd.reshape(N, group, 1)
    x_hat = (input.reshape(N, group, -1) - mean.reshape(N, group, 1)) * r
    through_stats = (
        grad_mean.reshape(N, group, 1) / size - grad_rstd.reshape(N, group, 1) * r * r * x_hat / size
    )
    return grad_input + through_stats.reshape(list(input.shape)), grad_weight, grad_bias


def _differentiable(
    grad: Tensor, input: Tensor, mean: Tensor, rstd: Tensor, weight: Tensor | None, N: int, C: int, group: int
) -> tuple[Tensor, Tensor, Tensor]:
    """native_group_norm_backward's three gradients, computed with differentiable operators."""
    r = rstd.reshape(N, group, 1)
    x_hat = (input.reshape(N, group, -1) - mean.reshape(N, group, 1)) * r
    g = grad.reshape(N, C, -1)
    scaled = g if weight is None else g * weight.reshape(1, C, 1)
    grad_input = (r * _project(scaled.reshape(N, group, -1), x_hat, [2])).reshape(list(input.shape))
    return grad_input, (g * x_hat.reshape(N, C, -1)).sum([0, 2]), g.sum([0, 2])
