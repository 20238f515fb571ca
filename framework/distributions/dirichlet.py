"""`Dirichlet(concentration)` (as `torch.distributions.Dirichlet`): reparameterized samples from
`_sample_dirichlet` with the implicit reparameterization gradient of `_dirichlet_grad`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.autograd.function import Function, once_differentiable
from framework.distributions import constraints
from framework.distributions.exp_family import ExponentialFamily
from framework.nn import functional as F

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x: Tensor, concentration: Tensor, grad_output: Tensor) -> Tensor:
    """The gradient of Dirichlet draws `x` in their concentrations: each coordinate's Beta
    reparameterization gradient, projected to keep the draws on the simplex."""
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = framework.ops.aten._dirichlet_grad(x, concentration, total)
    result: Tensor = grad * (grad_output - (x * grad_output).sum(-1, True))
    return result


class _Dirichlet(Function):
    """Dirichlet draws of a concentration tensor, differentiable in the concentration."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        x: Tensor = framework._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex with concentrations `concentration` (last dimension:
    the categories)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.independent(constraints.positive, 1)
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        shape = Size(batch_shape)
        new.concentration = self.concentration.expand(shape + self.event_shape)
        super(Dirichlet, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        result: Tensor = _Dirichlet.apply(self.concentration.expand(shape))
        return result

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (
            framework.xlogy(self.concentration - 1.0, value).sum(-1)
            + framework.lgamma(self.concentration.sum(-1))
            - framework.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # Concentrations all below one: the density peaks at the vertex of the largest one.
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = F.one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            framework.lgamma(self.concentration).sum(-1)
            - framework.lgamma(a0)
            - (k - a0) * framework.digamma(a0)
            - ((self.concentration - 1.0) * framework.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        (x,) = natural_params
        return x.lgamma().sum(-1) - framework.lgamma(x.sum(-1))
