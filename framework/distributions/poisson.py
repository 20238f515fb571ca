"""`Poisson(rate)` (as `torch.distributions.Poisson`): samples from the `poisson` operator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.exp_family import ExponentialFamily
from framework.distributions.utils import _batch_shape, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution with rate `rate` (the mean number of events)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Poisson:
        return self._expand_params(Poisson, batch_shape, _instance, "rate")

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with framework.no_grad():
            return framework.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (framework.log(self.rate),)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        (x,) = natural_params
        return framework.exp(x)
