"""The legacy hook-based weight normalization (PyTorch's `torch.nn.utils.weight_norm`,
deprecated there in favour of `parametrizations.weight_norm`): the parameter is split into a
magnitude `<name>_g` and a direction `<name>_v`, and a forward pre-hook recomputes
`<name> = g * v / ||v||` before every call."""

from __future__ import annotations

import warnings
from typing import TypeVar

from framework._generated.functions import _weight_norm, norm_except_dim
from framework._tensor import Tensor
from framework.autograd import no_grad
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

T_module = TypeVar("T_module", bound=Module)


class WeightNorm:
    """The forward pre-hook that recomputes `<name>` from `<name>_g` and `<name>_v`."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back `<name>` as one parameter holding the current weight."""
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: object) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Reparametrize `module.<name>` as `g * v / ||v||` (norm over every dimension but `dim`; over
    the whole tensor when `dim` is None), with parameters `<name>_g` and `<name>_v`. Deprecated,
    as in PyTorch: warns a FutureWarning."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo `weight_norm` on `module.<name>`."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
