"""Gradient clipping: `clip_grad_norm_` and `clip_grad_value_` (in place, under no_grad)."""

from __future__ import annotations

from collections.abc import Iterable

import framework
from framework import no_grad
from framework._tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm"]

TensorOrTensors = Tensor | Iterable[Tensor]


def _tensors(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads(parameters: TensorOrTensors) -> list[Tensor]:
    return [grad for p in _tensors(parameters) if (grad := p.grad) is not None]


@no_grad()
def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The `norm_type`-norm of all the tensors taken as one vector (the norm of their norms)."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return framework.tensor(0.0)
    total_norm = framework.norm(framework.stack([framework.norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


@no_grad()
def clip_grads_with_norm_(
    parameters: TensorOrTensors, max_norm: float, total_norm: Tensor, foreach: bool | None = None
) -> None:
    """Scale the gradients by min(max_norm / (total_norm + 1e-6), 1)."""
    grads = _grads(parameters)
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = framework.clamp(clip_coef, max=1.0)
    for grad in grads:
        grad.mul_(clip_coef_clamped)


@no_grad()
def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients so that their total `norm_type`-norm is at most `max_norm`; returns the
    total norm before clipping. `foreach` is accepted and ignored (one implementation)."""
    parameters = _tensors(parameters)
    total_norm = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


@no_grad()
def clip_grad_value_(parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for grad in _grads(parameters):
        grad.clamp_(min=-clip_value, max=clip_value)
