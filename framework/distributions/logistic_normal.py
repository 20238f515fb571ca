"""`LogisticNormal(loc, scale)`: a `Normal` mapped onto the simplex by stick breaking (as
`torch.distributions.LogisticNormal`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.independent import Independent
from framework.distributions.normal import Normal
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """`StickBreakingTransform()(X)` for `X ~ Normal(loc, scale)` over the last dimension; samples
    have one more element than `loc` and lie on the simplex."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.simplex
    has_rsample = True
    base_dist: Independent

    def __init__(self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> LogisticNormal:
        new = self._get_checked_instance(LogisticNormal, _instance)
        super().expand(batch_shape, _instance=new)
        return new

    def _normal(self) -> Normal:
        normal = self.base_dist.base_dist
        assert isinstance(normal, Normal)
        return normal

    @property
    def loc(self) -> Tensor:
        return self._normal().loc

    @property
    def scale(self) -> Tensor:
        return self._normal().scale
