"""`Binomial(total_count, probs=None, logits=None)` (as `torch.distributions.Binomial`): the
number of successes in `total_count` independent trials, drawn by the `binomial` operator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions._binary_params import _BinaryParams
from framework.distributions.utils import _GivenParam, broadcast_all

__all__ = ["Binomial"]

C = TypeVar("C", bound="_CountParams")


def _clamp_by_zero(x: Tensor) -> Tensor:
    """`x.clamp(min=0)` whose gradient at 0 is 1/2."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class _CountParams(_GivenParam, _BinaryParams):
    """A distribution of a trial count `total_count` and a success probability `probs` (or its
    log-odds `logits`), broadcast together; the count takes the probability's dtype."""

    total_count: Tensor

    def _set_count(
        self, total_count: Tensor | float, probs: Tensor | float | None, logits: Tensor | float | None
    ) -> Size:
        """Store the count and whichever of `probs` and `logits` is given (exactly one must be),
        broadcast together; return the batch shape (the parameter's size)."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        assert given is not None
        count, self._param = broadcast_all(total_count, given)
        self.total_count = count.type_as(self._param)
        setattr(self, name, self._param)
        return self._param.size()

    def _expand_count(self, cls: type[C], batch_shape: Sequence[int], _instance: Any) -> C:
        new = self._expand_binary(cls, batch_shape, _instance)
        new.total_count = self.total_count.expand(Size(batch_shape))
        return new


class Binomial(_CountParams):
    """Binomial distribution: successes in `total_count` trials of success probability `probs`
    (or log-odds `logits`)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self,
        total_count: Tensor | float = 1,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(self._set_count(total_count, probs, logits), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Binomial:
        return self._expand_count(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with framework.no_grad():
            return framework.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = framework.lgamma(self.total_count + 1)
        log_factorial_k = framework.lgamma(value + 1)
        log_factorial_nmk = framework.lgamma(self.total_count - value + 1)
        # k log(p) + (n - k) log(1 - p) = k logit - n max(logit, 0) - n log1p(exp(-|logit|))
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * framework.log1p(framework.exp(-framework.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - normalize_term - log_factorial_k - log_factorial_nmk

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(framework.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_count("enumerate_support")
        values = framework.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values
