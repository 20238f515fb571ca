"""`Gamma(concentration, rate)` (as `torch.distributions.Gamma`): reparameterized samples from
`_standard_gamma`, whose gradient in the concentration is the implicit reparameterization gradient."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.exp_family import ExponentialFamily
from framework.distributions.utils import _batch_shape, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape `concentration` and inverse scale `rate`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0.0

    def __init__(
        self, concentration: Tensor | float, rate: Tensor | float, validate_args: bool | None = None
    ) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape((concentration, rate), self.concentration), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Gamma:
        return self._expand_params(Gamma, batch_shape, _instance, "concentration", "rate")

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = framework._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=framework.finfo(value.dtype).tiny)  # not recorded by autograd
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        value = framework.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            framework.xlogy(self.concentration, self.rate)
            + framework.xlogy(self.concentration - 1, value)
            - self.rate * value
            - framework.lgamma(self.concentration)
        )

    def entropy(self) -> Tensor:
        return (
            self.concentration
            - framework.log(self.rate)
            + framework.lgamma(self.concentration)
            + (1.0 - self.concentration) * framework.digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x, y = natural_params
        return framework.lgamma(x + 1) + (x + 1) * framework.log(-y.reciprocal())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return framework.special.gammainc(self.concentration, self.rate * value)
