"""`Rprop`: resilient backpropagation, per-element step sizes driven by the gradient's sign."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.optim.optimizer import ParamsT, SingleTensorOptimizer, check_non_negative, count_step

__all__ = ["Rprop"]


class Rprop(SingleTensorOptimizer):
    """Each element keeps its own step size: multiplied by `etas[1]` where the gradient kept its
    sign since the last step, by `etas[0]` where it flipped (and that element then skips the step),
    clamped to `step_sizes`; the parameter moves by the step size against the gradient's sign
    (PyTorch's single-tensor update, operation for operation; complex parameters as pairs of reals)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state = self._state_of(param, "prev")
        if "step_size" not in state:
            lr = group["lr"]
            state["step_size"] = framework.full_like(grad, complex(lr, lr) if param.is_complex() else lr)
        prev, step_size = state["prev"], state["step_size"]
        count_step(state)
        if param.is_complex():
            grad, prev, param, step_size = (framework.view_as_real(t) for t in (grad, prev, param, step_size))
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
