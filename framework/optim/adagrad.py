"""`Adagrad` (learning-rate decay, initial accumulator, weight decay, maximize)."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import (
    ParamsT,
    SingleTensorOptimizer,
    check_non_negative,
    count_step,
    step_counter,
    with_weight_decay,
)

__all__ = ["Adagrad"]


class Adagrad(SingleTensorOptimizer):
    """Divide the gradient by the root of the sum of past squared gradients (PyTorch's
    single-tensor update, operation for operation); state is made for every parameter at once."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_non_negative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = step_counter()
                state["sum"] = framework.full_like(param, group["initial_accumulator_value"])

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        state = self.state[param]
        state_sum = state["sum"]
        step = count_step(state)
        grad = with_weight_decay(param, grad, group)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
