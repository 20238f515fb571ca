"""`FisherSnedecor(df1, df2)`: the F-distribution (as `torch.distributions.FisherSnedecor`),
sampled as the ratio of two scaled gamma draws."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.c10.device import MemoryFormat
from framework.distributions import constraints
from framework.distributions.distribution import Distribution
from framework.distributions.gamma import Gamma
from framework.distributions.utils import _batch_shape, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """Fisher-Snedecor (F) distribution with degrees of freedom `df1` and `df2`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "df1": constraints.positive,
        "df2": constraints.positive,
    }
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Tensor | float, df2: Tensor | float, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(_batch_shape((df1, df2), self.df1), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> FisherSnedecor:
        new = self._get_checked_instance(FisherSnedecor, _instance)
        shape = Size(batch_shape)
        new.df1 = self.df1.expand(shape)
        new.df2 = self.df2.expand(shape)
        new._gamma1 = self._gamma1.expand(shape)
        new._gamma2 = self._gamma2.expand(shape)
        super(FisherSnedecor, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        df2 = self.df2.clone(memory_format=MemoryFormat.contiguous_format)
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1
        mode[mode <= 0] = math.nan
        return mode * self.df2 / (self.df2 + 2)

    @property
    def variance(self) -> Tensor:
        df2 = self.df2.clone(memory_format=MemoryFormat.contiguous_format)
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # X1 ~ Gamma(df1 / 2, df1) and X2 ~ Gamma(df2 / 2, df2): X1 / X2 ~ F(df1, df2).
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = framework.finfo(x2.dtype).tiny
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * framework.log(value)
        t3 = (ct1 + ct2) * framework.log1p(ct3 * value)
        return t1 + t2 - t3
