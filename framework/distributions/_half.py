"""`_Half`, what HalfNormal and HalfCauchy share: the distribution of `|X|` for `X` drawn from a
base distribution with location 0 and scale `scale`, symmetric about 0, so that its density is the
base's doubled on `[0, inf)`."""

from __future__ import annotations

import math
from typing import ClassVar

import framework
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.cauchy import Cauchy
from framework.distributions.normal import Normal
from framework.distributions.transformed_distribution import TransformedDistribution


class _Half(TransformedDistribution):
    """`AbsTransform()` of a `base_dist` with location 0 and scale `scale`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_dist: Normal | Cauchy

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return framework.zeros_like(self.scale)

    def _folded_log_prob(self, value: Tensor) -> Tensor:
        """The base's log density at `value` plus log 2, -inf below 0."""
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return framework.where(value >= 0, log_prob, -math.inf)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(value)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
