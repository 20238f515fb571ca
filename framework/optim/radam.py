"""`RAdam`: Adam with the variance of its adaptive learning rate rectified (L2 or decoupled weight
decay)."""

from __future__ import annotations

from typing import Any

from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    adam_moments,
    check_adam_hyperparameters,
    with_weight_decay,
)

__all__ = ["RAdam"]


class RAdam(SingleTensorOptimizer):
    """Adam that takes plain bias-corrected momentum steps until the approximated length of the
    simple moving average, rho_t, exceeds 5, then rectified adaptive steps (PyTorch's
    single-tensor update, operation for operation). `decoupled_weight_decay=True` is RAdamW."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_hyperparameters(lr, eps, betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, eps = group["lr"], group["eps"]
        beta2 = group["betas"][1]
        grad = with_weight_decay(param, grad, group)
        state = self._state_of(param, "exp_avg", "exp_avg_sq")
        step, bias_correction1, bias_correction2 = adam_moments(state, grad, group["betas"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
