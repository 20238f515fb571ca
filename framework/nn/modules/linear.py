"""`Identity`, `Linear` and `LazyLinear`."""

from __future__ import annotations

import math
from typing import Any

import framework
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn import functional as F
from framework.nn import init
from framework.nn.modules.lazy import LazyModuleMixin
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter, UninitializedParameter

__all__ = ["Identity", "LazyLinear", "Linear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


def uniform_bias_(bias: Tensor, weight: Tensor) -> None:
    """PyTorch's default bias initialisation of Linear and convolutions: U(-1/√fan_in, 1/√fan_in)."""
    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Linear(Module):
    """y = x Wᵀ + b, with W of shape (out_features, in_features)."""

    in_features: int
    out_features: int
    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(framework.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(framework.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            uniform_bias_(self.bias, self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is inferred from its first input (its last dimension)."""

    cls_to_become = Linear

    def __init__(
        self,
        out_features: int,
        bias: bool = True,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Materialize the weight (out_features, input.shape[-1]) and bias, and draw them."""
        if self.has_uninitialized_params():
            with framework.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))  # type: ignore[attr-defined]
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))  # type: ignore[attr-defined]
                self.reset_parameters()
