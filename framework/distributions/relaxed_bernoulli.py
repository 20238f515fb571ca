"""`LogitRelaxedBernoulli` and `RelaxedBernoulli(temperature, probs=None, logits=None)`: the
Concrete / Gumbel-softmax relaxation of a Bernoulli (as `torch.distributions.RelaxedBernoulli`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions._binary_params import _BinaryParams
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import SigmoidTransform
from framework.distributions.utils import _GivenParam, broadcast_all, clamp_probs

if TYPE_CHECKING:
    from framework.distributions.relaxed_categorical import ExpRelaxedCategorical

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_GivenParam, _BinaryParams):
    """The logit of a `RelaxedBernoulli` sample, with temperature `temperature`."""

    support = constraints.real

    def __init__(
        self,
        temperature: Tensor,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        self.temperature = temperature
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._expand_binary(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(framework.rand(list(shape), dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _Relaxed(TransformedDistribution):
    """What RelaxedBernoulli and RelaxedOneHotCategorical share: a reparameterizable transform of a
    base distribution that carries `temperature`, `logits` and `probs`."""

    has_rsample = True
    base_dist: LogitRelaxedBernoulli | ExpRelaxedCategorical

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    """A reparameterizable relaxation of `Bernoulli` on `[0, 1]`: `sigmoid` of a
    `LogitRelaxedBernoulli` sample."""

    arg_constraints = _BinaryParams.arg_constraints
    support = constraints.unit_interval
    base_dist: LogitRelaxedBernoulli

    def __init__(
        self,
        temperature: Tensor,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        super().expand(batch_shape, _instance=new)
        return new
