"""`HalfNormal(scale)`: `|X|` for `X ~ Normal(0, scale)` (as `torch.distributions.HalfNormal`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from framework._tensor import Tensor
from framework.distributions._half import _Half
from framework.distributions.normal import Normal
from framework.distributions.transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(_Half):
    """Half-normal distribution with scale `scale`."""

    base_dist: Normal

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> HalfNormal:
        new = self._get_checked_instance(HalfNormal, _instance)
        super().expand(batch_shape, _instance=new)
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
