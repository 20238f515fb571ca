"""`Chi2(df)`: the chi-squared distribution, `Gamma(df / 2, 1 / 2)` (as `torch.distributions.Chi2`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared distribution with `df` degrees of freedom."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        super().expand(batch_shape, new)
        return new

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
