"""`Pareto(scale, alpha)`: the Pareto type-1 distribution, `scale * exp(X)` for
`X ~ Exponential(alpha)` (as `torch.distributions.Pareto`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.exponential import Exponential
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import AffineTransform, ExpTransform
from framework.distributions.utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto distribution with minimum `scale` and shape `alpha`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "alpha": constraints.positive,
        "scale": constraints.positive,
    }

    def __init__(
        self, scale: Tensor | float, alpha: Tensor | float, validate_args: bool | None = None
    ) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Pareto:
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(Size(batch_shape))
        new.alpha = self.alpha.expand(Size(batch_shape))
        super().expand(batch_shape, _instance=new)
        return new

    @property
    def mean(self) -> Tensor:
        # The mean is infinite for alpha <= 1.
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        # The variance is infinite for alpha <= 2.
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
