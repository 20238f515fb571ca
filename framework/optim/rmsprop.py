"""`RMSprop` (centered, momentum, weight decay, maximize)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import framework
from framework import no_grad
from framework.optim.optimizer import Optimizer, ParamsT, check_non_negative, step_counter, with_weight_decay

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divide the gradient by a running root mean square of past gradients (PyTorch's
    single-tensor update, operation for operation)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            momentum = group["momentum"]
            for param, grad in self.params_and_grads(group):
                state = self.state[param]
                if not state:
                    state["step"] = step_counter()
                    state["square_avg"] = framework.zeros_like(param)
                    if momentum > 0:
                        state["momentum_buffer"] = framework.zeros_like(param)
                    if group["centered"]:
                        state["grad_avg"] = framework.zeros_like(param)
                square_avg = state["square_avg"]
                state["step"] += 1
                grad = with_weight_decay(param, grad, group)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    param.add_(buf, alpha=-lr)
                else:
                    param.addcdiv_(grad, avg, value=-lr)
        return loss
