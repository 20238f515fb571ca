"""`Geometric(probs=None, logits=None)`: the number of failures before the first success (as
`torch.distributions.Geometric`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions._binary_params import _BinaryParams
from framework.distributions.utils import broadcast_all
from framework.nn.functional import binary_cross_entropy_with_logits

__all__ = ["Geometric"]


class Geometric(_BinaryParams):
    """Geometric distribution on {0, 1, ...} with success probability `probs` (or `logits`)."""

    support = constraints.nonnegative_integer

    def __init__(
        self,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                invalid_value = value.data[~valid]
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to be positive but found invalid values:\n{invalid_value}"
                )

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Geometric:
        return self._expand_binary(Geometric, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return framework.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        tiny = framework.finfo(self.probs.dtype).tiny
        with framework.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=framework.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
