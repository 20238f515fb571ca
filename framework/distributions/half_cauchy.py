"""`HalfCauchy(scale)`: `|X|` for `X ~ Cauchy(0, scale)` (as `torch.distributions.HalfCauchy`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import framework
from framework._tensor import Tensor
from framework.distributions._half import _Half
from framework.distributions.cauchy import Cauchy
from framework.distributions.transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_Half):
    """Half-Cauchy distribution with scale `scale`."""

    base_dist: Cauchy

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> HalfCauchy:
        new = self._get_checked_instance(HalfCauchy, _instance)
        super().expand(batch_shape, _instance=new)
        return new

    @property
    def mean(self) -> Tensor:
        return framework.full(
            list(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = framework.as_tensor(
            value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device
        )
        return self._folded_log_prob(value)
