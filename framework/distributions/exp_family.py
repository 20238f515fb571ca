"""`ExponentialFamily`: distributions whose density is `exp(<t(x), theta> - F(theta) + k(x))`;
entropy and same-family KL divergence follow from the log normalizer `F` by autograd (Bregman
divergence), as in `torch.distributions.exp_family`."""

from __future__ import annotations

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions: subclasses give `_natural_params`,
    `_log_normalizer(*natural_params)` and `_mean_carrier_measure` (E[k(x)])."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters theta, one tensor per parameter."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log normalizer F(theta)."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """The expected carrier measure E[k(x)]."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """Entropy by the Bregman divergence of the log normalizer: `F(theta) - <theta, dF/dtheta>
        - E[k(x)]`."""
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = framework.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = lg_normal - self._mean_carrier_measure
        for np_, g in zip(nparams, gradients, strict=True):
            assert g is not None
            result = result - (np_ * g).reshape(self._batch_shape + Size((-1,))).sum(-1)
        return result
