"""`_BinaryParams`, the `probs`/`logits` parameter pair the distributions over a success/failure
trial share (Bernoulli, LogitRelaxedBernoulli, Geometric): exactly one is given, the other is
computed from it when first read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.distribution import Distribution
from framework.distributions.utils import (
    _batch_shape,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

B = TypeVar("B", bound="_BinaryParams")


class _BinaryParams(Distribution):
    """A distribution parameterized by a success probability `probs` or its log-odds `logits`."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    _param: Tensor

    def _set_param(self, probs: Tensor | float | None, logits: Tensor | float | None) -> Size:
        """Store whichever of `probs` and `logits` is given (exactly one must be) as a tensor, also
        as `_param`; return the batch shape it gives."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        assert given is not None
        (self._param,) = broadcast_all(given)
        setattr(self, name, self._param)
        return _batch_shape((given,), self._param)

    def _expand_binary(self, cls: type[B], batch_shape: Sequence[int], _instance: Any) -> B:
        """`expand` of the parameter pair: `_expand_params` of probs and logits (those set), with
        `_param` the expanded logits if set, else probs."""
        new = self._expand_params(cls, batch_shape, _instance, "probs", "logits")
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)
