"""`NAdam`: Adam with Nesterov momentum (momentum decay schedule, L2 or decoupled weight decay)."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    adam_moments,
    check_adam_hyperparameters,
    scalar_dtype,
    step_counter,
    with_weight_decay,
)

__all__ = ["NAdam"]


class NAdam(SingleTensorOptimizer):
    """Adam whose update looks one momentum step ahead, the momentum coefficient at step t being
    beta1·(1 - 0.5·0.96^(t·momentum_decay)) (PyTorch's single-tensor update, operation for
    operation). `decoupled_weight_decay=True` is NAdamW."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_hyperparameters(lr, eps, betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1 = group["betas"][0]
        momentum_decay = group["momentum_decay"]
        state = self.state[param]
        if not state:
            state["step"] = step_counter()
            state["mu_product"] = framework.tensor(1.0, dtype=scalar_dtype())
            state["exp_avg"] = framework.zeros_like(param)
            state["exp_avg_sq"] = framework.zeros_like(param)
        grad = with_weight_decay(param, grad, group)
        step, _, bias_correction2 = adam_moments(state, grad, group["betas"])
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_value = mu_product.item()
        mu_product_next = mu_product_value * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))
