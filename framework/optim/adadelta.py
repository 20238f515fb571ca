"""`Adadelta`: steps scaled by running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any

from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    check_non_negative,
    count_step,
    with_weight_decay,
)

__all__ = ["Adadelta"]


class Adadelta(SingleTensorOptimizer):
    """delta = sqrt(acc_delta + eps)/sqrt(square_avg + eps)·g, p ← p - lr·delta, both averages
    decayed by `rho` (PyTorch's single-tensor update, operation for operation)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_non_negative(eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        state = self._state_of(param, "square_avg", "acc_delta")
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        count_step(state)
        grad = with_weight_decay(param, grad, group)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)
