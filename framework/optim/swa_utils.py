"""Stochastic weight averaging (PyTorch's `torch.optim.swa_utils`): `AveragedModel` keeps a
running average (equal-weight SWA, or EMA) of a model's parameters, `SWALR` anneals each group's
learning rate to a fixed SWA rate, and `update_bn` recomputes batch-norm statistics for the
averaged weights."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

from framework._tensor import Tensor
from framework._tensor_new import tensor
from framework.autograd import no_grad
from framework.c10.device import Device
from framework.c10.dtypes import int64
from framework.nn.modules.batchnorm import _BatchNorm
from framework.nn.modules.module import Module
from framework.optim.lr_scheduler import LRScheduler, _per_group
from framework.optim.optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]

AvgFn = Callable[[Tensor, Tensor, "Tensor | int"], Tensor]
MultiAvgFn = Callable[[list[Tensor], list[Tensor], "Tensor | int"], None]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_floating(t: Tensor) -> bool:
    return bool(t.dtype.is_floating_point or t.dtype.is_complex)


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """An in-place update of lists of averaged tensors toward the current ones by the exponential
    moving average `decay * averaged + (1 - decay) * current` (a lerp for floating tensors)."""
    _check_decay(decay)

    def ema_update(
        ema_params: list[Tensor], current_params: list[Tensor], num_averaged: Tensor | int
    ) -> None:
        with no_grad():
            if _is_floating(ema_params[0]):
                for ema, current in zip(ema_params, current_params, strict=True):
                    ema.lerp_(current, 1 - decay)
            else:
                for ema, current in zip(ema_params, current_params, strict=True):
                    ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """An in-place update of lists of averaged tensors to the equal-weight running mean that
    includes the current ones (`num_averaged` tensors averaged so far)."""

    def swa_update(
        averaged_params: list[Tensor], current_params: list[Tensor], num_averaged: Tensor | int
    ) -> None:
        with no_grad():
            if _is_floating(averaged_params[0]):
                for averaged, current in zip(averaged_params, current_params, strict=True):
                    averaged.lerp_(current, 1 / (num_averaged + 1))
            else:
                for averaged, current in zip(averaged_params, current_params, strict=True):
                    diff = current - averaged
                    if isinstance(num_averaged, Tensor):
                        averaged.addcdiv_(diff, num_averaged + 1)
                    else:
                        averaged.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """The exponential moving average of one tensor: `decay * averaged + (1 - decay) * current`."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Tensor | int) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> AvgFn:
    """The equal-weight running mean of one tensor: `averaged + (current - averaged) / (n + 1)`."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Tensor | int) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A deep copy of `model` (in `.module`, moved to `device` when given) whose parameters
    `update_parameters(model)` averages with `model`'s: the first call copies them, later calls
    apply `avg_fn` per tensor or `multi_avg_fn` per list of tensors of one device and dtype
    (default: the equal-weight SWA mean). `n_averaged` (a long buffer) counts the updates. With
    `use_buffers`, buffers are averaged too; otherwise they are copied from `model`."""

    n_averaged: Tensor

    def __init__(
        self,
        model: Module,
        device: str | Device | None = None,
        avg_fn: AvgFn | None = None,
        multi_avg_fn: MultiAvgFn | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold `model`'s current parameters (and buffers with `use_buffers`) into the average."""
        own: Iterable[Tensor] = (
            itertools.chain(self.module.parameters(), self.module.buffers())
            if self.use_buffers
            else self.parameters()
        )
        theirs: Iterable[Tensor] = (
            itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        )
        averaged_list: list[Tensor] = []
        current_list: list[Tensor] = []
        first = bool(self.n_averaged == 0)
        for averaged, current in zip(own, theirs, strict=False):
            current_value = current.detach().to(averaged.device)
            averaged_list.append(averaged.detach())
            current_list.append(current_value)
            if first:
                averaged.detach().copy_(current_value)
        if not first:
            if self.avg_fn is None:
                groups: dict[tuple[Device, Any], tuple[list[Tensor], list[Tensor]]] = {}
                for averaged, current in zip(averaged_list, current_list, strict=True):
                    mine, other = groups.setdefault((averaged.device, averaged.dtype), ([], []))
                    mine.append(averaged)
                    other.append(current)
                for (device, _), (mine, other) in groups.items():
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(mine, other, n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for averaged, current in zip(mine, other, strict=True):
                            averaged.copy_(avg_fn(averaged, current, n_averaged))
            else:
                for averaged, current in zip(averaged_list, current_list, strict=True):
                    averaged.copy_(self.avg_fn(averaged, current, self.n_averaged.to(averaged.device)))
        if not self.use_buffers:
            with no_grad():
                for mine_buffer, their_buffer in zip(self.module.buffers(), model.buffers(), strict=True):
                    mine_buffer.detach().copy_(their_buffer.detach().to(mine_buffer.device))
        self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: str | Device | None = None) -> None:
    """Recompute every batch-norm layer's running statistics as the plain average over one pass
    of `loader` (the first element of list/tuple batches, moved to `device` when given), then
    restore the layers' momenta and the model's training mode."""
    with no_grad():
        momenta: dict[_BatchNorm, float | None] = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate from its value to `swa_lr` (one per group, or one for
    all) over `anneal_epochs` steps, by a cosine (`anneal_strategy="cos"`) or linear ramp, then
    hold it at `swa_lr`."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch: int = -1,
    ) -> None:
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups, strict=True):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func: Callable[[float], float] = (
            self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        )

    def get_lr(self) -> list[float]:
        """The groups' rates after this step: undo the previous step's interpolation to recover
        the starting rate, then interpolate toward "swa_lr" at the new point of the ramp."""
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)
        ]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the anneal function (restored from the strategy)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
