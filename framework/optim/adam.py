"""`Adam` and `AdamW` (amsgrad, maximize, L2 or decoupled weight decay)."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    adam_moments,
    check_adam_hyperparameters,
    with_weight_decay,
)

__all__ = ["Adam", "AdamW"]


class Adam(SingleTensorOptimizer):
    """Adam: first and second moment estimates with bias correction (PyTorch's single-tensor
    update, operation for operation). `decoupled_weight_decay=True` is AdamW."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_adam_hyperparameters(lr, eps, betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, eps = group["lr"], group["eps"]
        amsgrad = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        grad = with_weight_decay(param, grad, group)
        state = self._state_of(param, "exp_avg", "exp_avg_sq", *amsgrad)
        _, bias_correction1, bias_correction2 = adam_moments(state, grad, group["betas"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            max_exp_avg_sq = state["max_exp_avg_sq"]
            framework.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (p ← p·(1 - lr·weight_decay) before the update)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
