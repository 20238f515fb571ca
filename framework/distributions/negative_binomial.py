"""`NegativeBinomial(total_count, probs=None, logits=None)` (as
`torch.distributions.NegativeBinomial`): successes before `total_count` failures, sampled as a
Poisson draw of a gamma-distributed rate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.binomial import _CountParams
from framework.distributions.gamma import Gamma
from framework.distributions.utils import lazy_property
from framework.nn import functional as F

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_CountParams):
    """Negative binomial distribution: successes of probability `probs` (or log-odds `logits`)
    before `total_count` failures."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        total_count: Tensor | float,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(self._set_count(total_count, probs, logits), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> NegativeBinomial:
        return self._expand_count(NegativeBinomial, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return self.total_count * framework.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / framework.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self) -> Gamma:
        # Not validated: the count may be zero.
        return Gamma(concentration=self.total_count, rate=framework.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        with framework.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return framework.poisson(rate)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(
            self.logits
        )
        log_normalization = (
            -framework.lgamma(self.total_count + value)
            + framework.lgamma(1.0 + value)
            + framework.lgamma(self.total_count)
        )
        # total_count == value == 0 has probability one, though lgamma(0) is infinite.
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
