"""`Beta(concentration1, concentration0)` (as `torch.distributions.Beta`): the first coordinate of
a two-category Dirichlet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.dirichlet import Dirichlet
from framework.distributions.exp_family import ExponentialFamily
from framework.distributions.utils import _Number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution on [0, 1] with concentrations `concentration1` (alpha) and
    `concentration0` (beta)."""

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
        if isinstance(concentration1, _Number) and isinstance(concentration0, _Number):
            pair = framework.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            pair = framework.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(shape)
        super(Beta, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = framework.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x, y = natural_params
        return framework.lgamma(x) + framework.lgamma(y) - framework.lgamma(x + y)
