"""`Kumaraswamy(concentration1, concentration0)` (as `torch.distributions.Kumaraswamy`): a uniform
draw through `u -> (1 - u ** (1 / concentration0)) ** (1 / concentration1)`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import AffineTransform, PowerTransform
from framework.distributions.uniform import Uniform
from framework.distributions.utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a: Tensor, b: Tensor, n: int) -> Tensor:
    """The n-th moment ``b * B(1 + n / a, b)`` of Kumaraswamy(a, b)."""
    arg1 = 1 + n / a
    log_value = framework.lgamma(arg1) + framework.lgamma(b) - framework.lgamma(arg1 + b)
    return b * framework.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution on [0, 1] with concentrations `concentration1` (a) and
    `concentration0` (b): density ``a b x^(a - 1) (1 - x^a)^(b - 1)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self,
        concentration1: Tensor | float,
        concentration0: Tensor | float,
        validate_args: bool | None = None,
    ) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            framework.full_like(self.concentration0, 0),
            framework.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Kumaraswamy:
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        super().expand(batch_shape, _instance=new)
        return new

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        # Evaluated in log space for numerical stability.
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        log_mode[(self.concentration0 < 1) | (self.concentration1 < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - framework.pow(self.mean, 2)

    def entropy(self) -> Tensor:
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = framework.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - framework.log(self.concentration1) - framework.log(self.concentration0)
