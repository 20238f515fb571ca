"""`StudentT(df, loc, scale)` (as `torch.distributions.StudentT`): reparameterized samples
`loc + scale * X / sqrt(Z / df)` for a standard normal X and `Z ~ Chi2(df)`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.c10.device import MemoryFormat
from framework.distributions import constraints
from framework.distributions.chi2 import Chi2
from framework.distributions.distribution import Distribution
from framework.distributions.utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution with `df` degrees of freedom, location `loc` and scale `scale`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(
        self,
        df: Tensor | float,
        loc: Tensor | float = 0.0,
        scale: Tensor | float = 1.0,
        validate_args: bool | None = None,
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        shape = Size(batch_shape)
        new.df = self.df.expand(shape)
        new.loc = self.loc.expand(shape)
        new.scale = self.scale.expand(shape)
        new._chi2 = self._chi2.expand(shape)
        super(StudentT, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        m = self.loc.clone(memory_format=MemoryFormat.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        m = self.df.clone(memory_format=MemoryFormat.contiguous_format)
        finite = self.df > 2
        m[finite] = self.scale[finite].pow(2) * self.df[finite] / (self.df[finite] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * framework.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + framework.lgamma(0.5 * self.df)
            - framework.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * framework.log1p(y**2.0 / self.df) - z

    def entropy(self) -> Tensor:
        lbeta = framework.lgamma(0.5 * self.df) + math.lgamma(0.5) - framework.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5
            * (self.df + 1)
            * (framework.digamma(0.5 * (self.df + 1)) - framework.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
