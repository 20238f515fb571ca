"""`Adamax`: Adam with the infinity norm of past gradients in place of the second moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import framework
from framework import no_grad
from framework.optim.optimizer import (
    Optimizer,
    ParamsT,
    check_adam_hyperparameters,
    step_counter,
    with_weight_decay,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
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

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, eps = group["lr"], group["eps"]
            beta1, beta2 = group["betas"]
            for param, grad in self.params_and_grads(group):
                state = self.state[param]
                if not state:
                    state["step"] = step_counter()
                    state["exp_avg"] = framework.zeros_like(param)
                    state["exp_inf"] = framework.zeros_like(param)
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                step_t += 1
                grad = with_weight_decay(param, grad, group)
                exp_avg.lerp_(grad, 1 - beta1)
                framework.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                clr = lr / (1 - beta1 ** step_t.item())
                param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
