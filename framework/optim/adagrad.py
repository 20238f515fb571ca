"""`Adagrad` (learning-rate decay, initial accumulator, weight decay, maximize)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import framework
from framework import no_grad
from framework.optim.optimizer import Optimizer, ParamsT, check_non_negative, step_counter, with_weight_decay

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
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

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            for param, grad in self.params_and_grads(group):
                state = self.state[param]
                state_sum, step_t = state["sum"], state["step"]
                step_t += 1
                step = step_t.item()
                grad = with_weight_decay(param, grad, group)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                param.addcdiv_(grad, std, value=-clr)
        return loss
