"""`Adamax`: Adam with the infinity norm of past gradients in place of the second moment."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    check_adam_hyperparameters,
    count_step,
    with_weight_decay,
)

__all__ = ["Adamax"]


class Adamax(SingleTensorOptimizer):
    """exp_inf ← max(beta2·exp_inf, |g| + eps), p ← p - lr/(1 - beta1^t)·exp_avg/exp_inf
    (PyTorch's single-tensor update, operation for operation)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_adam_hyperparameters(lr, eps, betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        state = self._state_of(param, "exp_avg", "exp_inf")
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        step = count_step(state)
        grad = with_weight_decay(param, grad, group)
        exp_avg.lerp_(grad, 1 - beta1)
        framework.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        clr = lr / (1 - beta1**step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
