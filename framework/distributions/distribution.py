"""`Distribution`, the abstract base class of `framework.distributions` (as
`torch.distributions.Distribution`): batch/event shapes, sampling with a `sample_shape`,
argument validation against `arg_constraints` and sample validation against `support`."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, TypeVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.utils import lazy_property

__all__ = ["Distribution"]

D = TypeVar("D", bound="Distribution")


class Distribution:
    """Abstract base class for probability distributions.

    Args:
        batch_shape: the shape over which parameters are batched.
        event_shape: the shape of a single sample (without batching).
        validate_args: whether to validate arguments; `None` keeps the class default
            (`Distribution.set_default_validate_args`, on unless Python runs with `-O`).
    """

    has_rsample: bool = False
    has_enumerate_support: bool = False
    _validate_args: bool = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether validation is enabled by default (PyTorch's default mimics `assert`)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: Sequence[int] = Size(),
        event_shape: Sequence[int] = Size(),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    "Please set `arg_constraints = {}` or initialize the distribution "
                    "with `validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # constraints that depend on other parameters cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # a lazily computed parameter (logits given probs) is not checked
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Distribution:
        """A new distribution with batch dimensions expanded to `batch_shape` (parameters are
        expanded views; arguments are not validated again)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """The constraint each tensor argument of the distribution must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint:
        """The constraint describing the distribution's support."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """A `sample_shape`-shaped sample (or batch of samples), drawn without gradient."""
        with framework.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """A reparameterized `sample_shape`-shaped sample, through which gradients flow."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """`n` samples (deprecated: use `sample((n,))`)."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2
        )
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density/mass function at `value`."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at `value`."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at `value`."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a discrete distribution's support, along dimension 0 (over the batch
        dimensions too when `expand`, else with singleton batch dimensions)."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of the distribution, batched over `batch_shape`."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """`exp(entropy())`."""
        return framework.exp(self.entropy())

    def _extended_shape(self, sample_shape: Sequence[int] = Size()) -> Size:
        """`sample_shape + batch_shape + event_shape`, the shape of a sample."""
        return Size(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value: Tensor) -> None:
        """Check that `value` is a tensor whose rightmost sizes match the event shape, that
        broadcasts with `batch_shape + event_shape`, and that lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                "sample validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type[D], _instance: object = None) -> D:
        """The instance `expand` fills: `_instance`, or a bare new object of this class (refused
        for a subclass with its own `__init__` that does not define `expand`)."""
        if _instance is None:
            if type(self).__init__ != cls.__init__:
                raise NotImplementedError(
                    f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                    "__init__ method "
                    "must also define a custom .expand() method."
                )
            _instance = object.__new__(type(self))
        assert isinstance(_instance, cls)
        return _instance

    def _expand_params(self, cls: type[D], batch_shape: Sequence[int], _instance: Any, *params: str) -> D:
        """`expand` for a distribution whose parameters all have its batch shape: a new `cls`
        (or `_instance`) with each of `params` that is set on this one expanded to `batch_shape`,
        and this one's validation setting (arguments are not validated again)."""
        new = self._get_checked_instance(cls, _instance)
        shape = Size(batch_shape)
        for name in params:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names
        )
        return self.__class__.__name__ + "(" + args_string + ")"
