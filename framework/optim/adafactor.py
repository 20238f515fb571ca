"""`Adafactor`: Adam-like steps with a factored second moment (row and column averages) for
matrices, relative step sizes and update clipping (PyTorch's `torch.optim.Adafactor`)."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import ParamsT, SingleTensorOptimizer, count_step, step_counter

__all__ = ["Adafactor"]


class Adafactor(SingleTensorOptimizer):
    """At step t, with beta2 decay tau: the second-moment estimate moves towards grad² by t^tau
    (for a gradient of 2+ dims only its row and column means over the last two dims are kept, the
    estimate is their outer product over the mean row factor, floored at eps1), the update is
    grad/sqrt(estimate) (estimate floored at eps1²) shrunk to an RMS of at most `d`, scaled by
    max(eps2, RMS(param))·min(lr, 1/sqrt(t)); decoupled weight decay scales the parameter by
    1 - lr·weight_decay first. eps1 None is the parameter dtype's machine epsilon. PyTorch's
    single-tensor update, operation for operation."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _state_for(self, param: Tensor, grad: Tensor) -> dict[str, Any]:
        """The state of `param`, made on first use: the step counter, then the row and column
        factors (`grad`'s shape with the last, resp. second-to-last, dim 1) of a gradient with 2+
        dims, else a full `variance`."""
        if param.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        state = self.state[param]
        if not state:
            state["step"] = step_counter()
            if grad.dim() > 1:
                state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
                state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
            else:
                state["variance"] = framework.zeros_like(grad)
        return state

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, weight_decay = group["lr"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = framework.finfo(param.dtype).eps
        state = self._state_for(param, grad)
        step = count_step(state)
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / step**0.5)
        alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(2, dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2)
            col_var.lerp_(grad.norm(2, dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            variance.lerp_(grad * grad, one_minus_beta2)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        param.add_(update, alpha=-alpha / denom)
