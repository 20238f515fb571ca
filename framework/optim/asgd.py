"""`ASGD`: averaged stochastic gradient descent."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    check_non_negative,
    count_step,
    scalar_dtype,
    step_counter,
    with_weight_decay,
)

__all__ = ["ASGD"]


class ASGD(SingleTensorOptimizer):
    """SGD with a decaying step size eta = lr/(1 + lambd·lr·t)^alpha and a running average `ax` of
    the iterates from step `t0` on (PyTorch's single-tensor update, operation for operation)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_non_negative(lr=lr, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        state = self.state[param]
        if not state:
            state["step"] = step_counter()
            state["eta"] = framework.tensor(lr, dtype=scalar_dtype())
            state["mu"] = framework.ones((), dtype=scalar_dtype())
            state["ax"] = framework.zeros_like(param)
        mu, ax, eta = state["mu"], state["ax"], state["eta"]
        step = count_step(state)
        grad = with_weight_decay(param, grad, group)
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        eta.copy_(framework.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(framework.as_tensor(1 / max(1, step - t0)))
