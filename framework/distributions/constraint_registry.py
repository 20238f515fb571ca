"""`biject_to` and `transform_to`, as `torch.distributions.constraint_registry`: registries from
constraints to transforms mapping the unconstrained reals onto them. `biject_to(c)` gives a
bijective transform (for HMC-style reparameterization of a support); `transform_to(c)` gives a
possibly over-parameterized one (for unconstrained optimization of a constrained parameter,
e.g. `transform_to(constraints.simplex)` is a softmax). Both accept new entries through
`.register(constraint, factory)`, also usable as a decorator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from framework.distributions import constraints, transforms
from framework.distributions.utils import _Number

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

Factory = Callable[[Any], transforms.Transform]
F = TypeVar("F", bound=Factory)


class ConstraintRegistry:
    """A registry linking constraints (by type) to transform factories."""

    def __init__(self) -> None:
        self._registry: dict[type, Factory] = {}
        super().__init__()

    @overload
    def register(self, constraint: object, factory: None = None) -> Callable[[F], F]: ...

    @overload
    def register(self, constraint: object, factory: F) -> F: ...

    def register(self, constraint: object, factory: F | None = None) -> F | Callable[[F], F]:
        """Register `factory(constraint) -> Transform` for a constraint subclass, or for the type of a
        singleton constraint instance; without `factory`, returns a decorator."""
        if factory is None:

            def decorate(factory: F) -> F:
                return self.register(constraint, factory)

            return decorate
        # Support use on singleton instances.
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(
                f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: constraints.Constraint) -> transforms.Transform:
        """The transform from the reals onto `constraint`.

        Raises:
            NotImplementedError: when no factory is registered for the constraint's type.
        """
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


@biject_to.register(constraints.real)
@transform_to.register(constraints.real)
def _transform_to_real(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: constraints._IndependentConstraint) -> transforms.Transform:
    base_transform = biject_to(constraint.base_constraint)
    return transforms.IndependentTransform(base_transform, constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: constraints._IndependentConstraint) -> transforms.Transform:
    base_transform = transform_to(constraint.base_constraint)
    return transforms.IndependentTransform(base_transform, constraint.reinterpreted_batch_ndims)


@biject_to.register(constraints.positive)
@biject_to.register(constraints.nonnegative)
@transform_to.register(constraints.positive)
@transform_to.register(constraints.nonnegative)
def _transform_to_positive(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.ExpTransform()


@biject_to.register(constraints.greater_than)
@biject_to.register(constraints.greater_than_eq)
@transform_to.register(constraints.greater_than)
@transform_to.register(constraints.greater_than_eq)
def _transform_to_greater_than(constraint: Any) -> transforms.Transform:
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)]
    )


@biject_to.register(constraints.less_than)
@transform_to.register(constraints.less_than)
def _transform_to_less_than(constraint: constraints._LessThan) -> transforms.Transform:
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)]
    )


@biject_to.register(constraints.interval)
@biject_to.register(constraints.half_open_interval)
@transform_to.register(constraints.interval)
@transform_to.register(constraints.half_open_interval)
def _transform_to_interval(constraint: Any) -> transforms.Transform:
    # Handle the special case of the unit interval.
    lower_is_0 = isinstance(constraint.lower_bound, _Number) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, _Number) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return transforms.SigmoidTransform()
    loc = constraint.lower_bound
    scale = constraint.upper_bound - constraint.lower_bound
    return transforms.ComposeTransform(
        [transforms.SigmoidTransform(), transforms.AffineTransform(loc, scale)]
    )


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: constraints.Constraint) -> transforms.Transform:
    return transforms.PositiveDefiniteTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: constraints._Cat) -> transforms.Transform:
    return transforms.CatTransform(
        [biject_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths
    )


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: constraints._Cat) -> transforms.Transform:
    return transforms.CatTransform(
        [transform_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths
    )


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: constraints._Stack) -> transforms.Transform:
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: constraints._Stack) -> transforms.Transform:
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
