"""`InverseGamma(concentration, rate)`: `1 / X` for `X ~ Gamma(concentration, rate)` (as
`torch.distributions.InverseGamma`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.gamma import Gamma
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Inverse gamma distribution with shape `concentration` and scale `rate`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.positive
    has_rsample = True
    base_dist: Gamma

    def __init__(
        self, concentration: Tensor | float, rate: Tensor | float, validate_args: bool | None = None
    ) -> None:
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> InverseGamma:
        new = self._get_checked_instance(InverseGamma, _instance)
        super().expand(batch_shape, _instance=new)
        return new

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        result = self.rate / (self.concentration - 1)
        return framework.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return framework.where(self.concentration > 2, result, math.inf)

    def entropy(self) -> Tensor:
        return (
            self.concentration
            + self.rate.log()
            + self.concentration.lgamma()
            - (1 + self.concentration) * self.concentration.digamma()
        )
