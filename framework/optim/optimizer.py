"""`Optimizer`: parameter groups, per-parameter state, zero_grad, and PyTorch's state_dict format."""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from typing import Any, Final, TypeAlias

import framework
from framework import enable_grad, no_grad
from framework._tensor import Tensor
from framework.nn.modules.module import typename, zero_grad_of

__all__ = [
    "Optimizer",
    "ParamsT",
    "SingleTensorOptimizer",
    "check_betas",
    "check_single_tensor_path",
    "required",
]

ParamsT: TypeAlias = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


class _RequiredParameter:
    """The default of a hyperparameter every parameter group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: Final = _RequiredParameter()


def scalar_dtype() -> framework.dtype:
    """The dtype of the optimizers' `step` counters: float64 when that is the default dtype."""
    return framework.float64 if framework.get_default_dtype() is framework.float64 else framework.float32


def step_counter() -> Tensor:
    """A fresh `state["step"]`: a 0-dim tensor holding 0."""
    return framework.tensor(0.0, dtype=scalar_dtype())


_HYPERPARAMETER_NAMES: Final = {"lr": "learning rate", "eps": "epsilon value"}


def check_non_negative(**hyperparameters: float) -> None:
    """PyTorch's constructor checks, in the order given: a ValueError for the first
    hyperparameter that is not >= 0 (NaN included), "Invalid learning rate: ...",
    "Invalid epsilon value: ..." or "Invalid <name> value: ..."."""
    for name, value in hyperparameters.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {_HYPERPARAMETER_NAMES.get(name, name + ' value')}: {value}")


def check_betas(betas: tuple[float, float]) -> None:
    """PyTorch's check of Adam-style `betas`: each in [0, 1), "Invalid beta parameter at index i: ..."."""
    for index in (0, 1):
        if not 0.0 <= betas[index] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")


def check_adam_hyperparameters(lr: float, eps: float, betas: tuple[float, float], **more: float) -> None:
    """The constructor checks of the Adam family, in PyTorch's order: `lr`, `eps`, `betas`, then the
    hyperparameters in `more` (each must be >= 0)."""
    check_non_negative(lr=lr, eps=eps)
    check_betas(betas)
    check_non_negative(**more)


def with_weight_decay(param: Tensor, grad: Tensor, group: Mapping[str, Any]) -> Tensor:
    """The gradient after the group's `weight_decay` (when nonzero): `grad + weight_decay·param` (L2),
    or, when the group sets `decoupled_weight_decay`, `grad` itself with `param` scaled in place by
    `1 - lr·weight_decay`."""
    weight_decay = group["weight_decay"]
    if weight_decay == 0:
        return grad
    if group.get("decoupled_weight_decay", False):
        param.mul_(1 - group["lr"] * weight_decay)
        return grad
    return grad.add(param, alpha=weight_decay)


def count_step(state: dict[str, Any]) -> float:
    """Add one to the `step` counter in `state` (in place); its new value."""
    state["step"] += 1
    step: float = state["step"].item()
    return step


def adam_moments(
    state: dict[str, Any], grad: Tensor, betas: tuple[float, float]
) -> tuple[float, float, float]:
    """What the steps of Adam, RAdam and NAdam share: count the step and update the moment
    estimates in place, exp_avg ← lerp(exp_avg, grad, 1 - beta1) and
    exp_avg_sq ← beta2·exp_avg_sq + (1 - beta2)·grad² (`grad` after weight decay). The step
    number and the bias corrections 1 - beta1^step and 1 - beta2^step."""
    beta1, beta2 = betas
    step = count_step(state)
    state["exp_avg"].lerp_(grad, 1 - beta1)
    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    return step, 1 - beta1**step, 1 - beta2**step


_UNSUPPORTED_PATHS: Final = ("foreach", "fused", "capturable", "differentiable")


def check_single_tensor_path(optimizer: str, group: Mapping[str, Any]) -> None:
    """Reject PyTorch's multi-tensor, fused, capturable and differentiable implementations: only the
    single-tensor path exists here, so those flags must stay False (or None for foreach/fused)."""
    for flag in _UNSUPPORTED_PATHS:
        if group.get(flag):
            default = "None" if flag in ("foreach", "fused") else "False"
            raise NotImplementedError(
                f"{optimizer}: {flag}=True is not supported, only the single-tensor implementation is "
                f"(use {flag}={default})"
            )


class Optimizer:
    """The base of the optimizers: `param_groups` (dicts holding "params" and hyperparameters,
    missing ones filled from `defaults`) and `state` (a dict per parameter)."""

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups: list[Any] = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (the rest from `defaults`)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        tensors: list[Any] = []
        names: list[str] = []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                param = param[1]
            tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + typename(param)
                )
            if not self.defaults.get("differentiable") and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        check_single_tensor_path(type(self).__name__, param_group)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will "
                "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param group "
                    f"{current} to the optimizer"
                )
        if not seen.isdisjoint(id(p) for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the parameters' gradients (or zero them in place when `set_to_none` is False)."""
        for group in self.param_groups:
            for param in group["params"]:
                zero_grad_of(param, set_to_none)

    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: state}, "param_groups": [group with "params" as indices]}: parameters
        numbered in group order, state tensors shared (not copied), as PyTorch's."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for param in group["params"]:
                index.setdefault(id(param), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: str | None = None) -> Any:
        """A loaded state value for `param`: tensors on its device (and, floating ones except the step
        counter, in its dtype), containers cast element by element."""
        if isinstance(value, Tensor):
            if key != "step" and param.dtype.is_floating_point:
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v, key) for v in value)
        return value

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore state and hyperparameters saved by `state_dict` (of an optimizer over the same
        parameter shapes, group by group)."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                "group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = self._cast_state(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    def _closure_loss(self, closure: Callable[[], Any] | None) -> Any:
        """Run `closure` (which recomputes the loss) with grad enabled; its loss, or None."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One optimisation step over every parameter that has a gradient; returns the closure's loss."""
        raise NotImplementedError

    @staticmethod
    def params_and_grads(group: dict[str, Any]) -> list[tuple[Tensor, Tensor]]:
        """(parameter, gradient) for the parameters of `group` that have a gradient, in order; the
        gradient negated when the group maximizes."""
        pairs = [(p, grad) for p in group["params"] if (grad := p.grad) is not None]
        return [(p, -grad) for p, grad in pairs] if group.get("maximize", False) else pairs


class SingleTensorOptimizer(Optimizer):
    """The base of the optimizers here, which, as PyTorch's single-tensor implementations, update
    each parameter on its own: `step` runs the closure, then `_update` for every parameter that has
    a gradient."""

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One optimisation step: `_update` of every parameter that has a gradient, group by group,
        after the closure (which recomputes the loss) has run; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for param, grad in self.params_and_grads(group):
                self._update(group, param, grad)
        return loss

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor) -> None:
        """One step of `param` of `group` given its gradient (negated when the group maximizes):
        the update rule each optimizer defines."""
        raise NotImplementedError

    def _state_of(self, param: Tensor, *buffers: str) -> dict[str, Any]:
        """The state of `param`, made on first use: a `step` counter, then a zero tensor like
        `param` for each name in `buffers`."""
        state = self.state[param]
        if not state:
            state["step"] = step_counter()
            for name in buffers:
                state[name] = framework.zeros_like(param)
        return state
