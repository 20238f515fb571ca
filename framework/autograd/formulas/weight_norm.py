"""Formula helpers for weight normalization (`_weight_norm_interface`)."""

from __future__ import annotations

from framework._tensor import Tensor

__all__ = ["weight_norm_backward"]


def weight_norm_backward(
    grad: Tensor, v: Tensor, g: Tensor, norms: Tensor, dim: int
) -> tuple[Tensor, Tensor]:
    """(grad_v, grad_g) of `w = g * v / norms` for `dim` 0 or last, from differentiable operators
    as PyTorch's `_weight_norm_differentiable_backward` (the norms, a non-differentiable output,
    enter as constants): with s = sum(grad * v) over the other dimensions, grad_g = s / norms and
    grad_v = g / norms * (grad - v * s / norms^2). As PyTorch, refuses a non-contiguous `v`."""
    if not v.is_contiguous():
        raise RuntimeError("saved_v must be contiguous")
    grad = grad.contiguous()
    shape = [1] * v.dim()
    shape[dim] = v.size(dim)
    flat = (grad * v).view(v.size(0), -1).sum(1) if dim == 0 else (grad * v).view(-1, v.size(-1)).sum(0)
    sums = flat.view(shape)
    norms = norms.view(shape)
    grad_v = (g.view(shape) / norms) * (grad - v * (sums / (norms * norms)))
    grad_g = (sums / norms).view(g.shape)
    return grad_v, grad_g
