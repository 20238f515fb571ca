"""Constraints, as `torch.distributions.constraints`: objects whose `check(value)` returns a bool
tensor telling which values satisfy them (parameters of distributions, supports of samples).
`event_dim` is the number of rightmost dimensions one check covers; `is_discrete` marks integer
supports. `dependent` marks a constraint that depends on other parameters and cannot be checked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, overload

import framework
from framework._tensor import Tensor

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]

Bound = Tensor | float


class Constraint:
    """Abstract base of constraints: `check(value)` gives a bool tensor of shape
    `value.shape[:value.dim() - event_dim]`."""

    is_discrete: bool = False
    event_dim: int = 0

    def check(self, value: Tensor) -> Tensor:
        """A bool tensor telling, per event, whether `value` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _DependentBase(Constraint):
    """Shared part of `dependent` and `dependent_property`: static facts may be unknown."""

    def __init__(self, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


class _Dependent(_DependentBase):
    """Placeholder for a constraint that depends on other variables; calling it
    (`dependent(is_discrete=False, event_dim=0)`) gives one with those static facts."""

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> _Dependent:
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete, event_dim)


def is_dependent(constraint: object) -> bool:
    """Whether `constraint` is a `dependent` placeholder (which `check` cannot evaluate)."""
    return isinstance(constraint, _DependentBase)


T = TypeVar("T")
R = TypeVar("R")


class _DependentProperty(_DependentBase, Generic[T, R]):
    """A property whose class-level value is a dependent constraint (so `Uniform.support` can be
    inspected statically) and whose instance-level value is the computed constraint."""

    def __init__(
        self, fn: Callable[[T], R], is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
    ) -> None:
        super().__init__(is_discrete, event_dim)
        self.fget = fn
        self.__doc__ = fn.__doc__

    @overload
    def __get__(self, instance: None, owner: Any = None) -> _DependentProperty[T, R]: ...

    @overload
    def __get__(self, instance: T, owner: Any = None) -> R: ...

    def __get__(self, instance: T | None, owner: Any = None) -> R | _DependentProperty[T, R]:
        if instance is None:
            return self
        return self.fget(instance)


@overload
def dependent_property(fn: Callable[[T], R]) -> _DependentProperty[T, R]: ...


@overload
def dependent_property(
    *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
) -> Callable[[Callable[[T], R]], _DependentProperty[T, R]]: ...


def dependent_property(
    fn: Callable[[T], R] | None = None, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
) -> _DependentProperty[T, R] | Callable[[Callable[[T], R]], _DependentProperty[T, R]]:
    """Decorator for a property that is a constraint depending on the instance (`support` of
    `Uniform`), used bare or as `@dependent_property(is_discrete=False, event_dim=0)`."""
    if fn is not None:
        return _DependentProperty(fn, is_discrete, event_dim)

    def decorate(f: Callable[[T], R]) -> _DependentProperty[T, R]:
        return _DependentProperty(f, is_discrete, event_dim)

    return decorate


class _IndependentConstraint(Constraint):
    """Wraps a constraint, treating `reinterpreted_batch_ndims` more dimensions as one event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError(
                f"reinterpreted_batch_ndims must be an int, got {type(reinterpreted_batch_ndims).__name__}"
            )
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape((*result.shape[: result.dim() - self.reinterpreted_batch_ndims], -1))
        return result.all(-1)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The support of a `MixtureSameFamily`: a value is valid when it is in the support of the
    component distribution (checked against every component, then reduced over the events)."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        unsqueezed_value = value.unsqueeze(-1 - self.event_dim)
        result = self.base_constraint.check(unsqueezed_value)
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        num_dim_to_keep = value.dim() - self.event_dim
        result = result.reshape((*result.shape[:num_dim_to_keep], -1))
        return result.all(-1)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _LowerBounded(Constraint):
    """A constraint with a lower bound `lower_bound`."""

    def __init__(self, lower_bound: Bound) -> None:
        self.lower_bound = lower_bound
        super().__init__()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _UpperBounded(Constraint):
    """A constraint with an upper bound `upper_bound`."""

    def __init__(self, upper_bound: Bound) -> None:
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Bounded(Constraint):
    """A constraint with bounds `lower_bound` and `upper_bound`."""

    def __init__(self, lower_bound: Bound, upper_bound: Bound) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"
        )


class _Boolean(Constraint):
    """Values in {0, 1}."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors: entries in {0, 1} summing to 1."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _IntegerInterval(_Bounded):
    """Integers in `[lower_bound, upper_bound]`."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerLessThan(_UpperBounded):
    """Integers `<= upper_bound`."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_LowerBounded):
    """Integers `>= lower_bound`."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    """The extended real line (everything but NaN)."""

    def check(self, value: Tensor) -> Tensor:
        return value == value


class _GreaterThan(_LowerBounded):
    """Reals `> lower_bound`."""

    def check(self, value: Tensor) -> Tensor:
        return value > self.lower_bound


class _GreaterThanEq(_LowerBounded):
    """Reals `>= lower_bound`."""

    def check(self, value: Tensor) -> Tensor:
        return value >= self.lower_bound


class _LessThan(_UpperBounded):
    """Reals `< upper_bound`."""

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound


class _Interval(_Bounded):
    """Reals in `[lower_bound, upper_bound]`."""

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounded):
    """Reals in `[lower_bound, upper_bound)`."""

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (within 1e-6) over the last dimension."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return framework.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        value_tril = value.tril()
        return (value_tril == value).view((*value.shape[:-2], -1)).min(-1)[0]


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower_triangular = _LowerTriangular().check(value)
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower_triangular & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: lower-triangular with a positive diagonal
    and rows of unit Euclidean norm (within ten times the dtype's epsilon per column)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        tol = framework.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = framework.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return framework.full(
            list(value.shape[:-2]),
            value.shape[-2] == value.shape[-1],
            dtype=framework.bool,
            device=value.device,
        )


class _Symmetric(_Square):
    """Symmetric square matrices (within `atol=1e-6`)."""

    def check(self, value: Tensor) -> Tensor:
        square_check = super().check(value)
        if not square_check.all():
            return square_check
        return framework.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues."""

    def check(self, value: Tensor) -> Tensor:
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return framework.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorization."""

    def check(self, value: Tensor) -> Tensor:
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return framework.linalg.cholesky_ex(value).info.eq(0)


class _Cat(Constraint):
    """Applies a sequence of constraints to consecutive slices (of `lengths`) along `dim`."""

    def __init__(
        self, cseq: Sequence[Constraint], dim: int = 0, lengths: Sequence[int] | None = None
    ) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        checks = []
        start = 0
        for constr, length in zip(self.cseq, self.lengths, strict=True):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return framework.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies a sequence of constraints to the slices of `value` along `dim`."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value: Tensor) -> Tensor:
        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return framework.stack([constr.check(v) for v, constr in zip(vs, self.cseq, strict=False)], self.dim)


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
