"""`Bernoulli(probs=None, logits=None)` (as `torch.distributions.Bernoulli`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions._binary_params import _BinaryParams
from framework.distributions.exp_family import ExponentialFamily
from framework.distributions.utils import _GivenParam, broadcast_all
from framework.nn.functional import binary_cross_entropy_with_logits

__all__ = ["Bernoulli"]


class Bernoulli(_GivenParam, _BinaryParams, ExponentialFamily):
    """Bernoulli distribution parameterized by `probs` or `logits` (not both); samples are 0/1 in
    the parameter's dtype."""

    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0.0

    def __init__(
        self,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Bernoulli:
        return self._expand_binary(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with framework.no_grad():
            return framework.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = framework.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (framework.logit(self.probs),)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        (x,) = natural_params
        return framework.log1p(framework.exp(x))
