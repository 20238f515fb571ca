"""`LKJCholesky(dim, concentration)` (as `torch.distributions.LKJCholesky`): the LKJ distribution
over Cholesky factors of correlation matrices, sampled by the onion method."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.distributions import constraints
from framework.distributions.beta import Beta
from framework.distributions.distribution import Distribution
from framework.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution of the lower Cholesky factor `L` of a `dim` x `dim` correlation matrix, with
    density proportional to ``det(L L^T) ** (concentration - 1)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(
        self, dim: int, concentration: Tensor | float = 1.0, validate_args: bool | None = None
    ) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Beta draws of the squared row norms below the diagonal (Sec. 3.2 of Lewandowski,
        # Kurowicka and Joe, 2009), vectorized over the rows.
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = framework.arange(
            self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device
        )
        offset = framework.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(shape)
        new._beta = self._beta.expand((*shape, self.dim))
        super(LKJCholesky, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        # The onion method, vectorized over the rows: row i is sqrt(y_i) times a uniform direction
        # in its first i coordinates, completed to unit norm by the diagonal.
        with framework.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = framework.randn(
                self._extended_shape(sample_shape), dtype=y.dtype, device=y.device
            ).tril(-1)
            u_hypersphere = u_normal / framework.linalg.vector_norm(u_normal, dim=-1, keepdim=True)
            u_hypersphere[..., 0, :].fill_(0.0)  # the first row divided 0 by 0
            w = framework.sqrt(y) * u_hypersphere
            eps = framework.finfo(w.dtype).tiny
            diag_elems = framework.clamp(1 - framework.sum(w**2, dim=-1), min=eps).sqrt()
            w += framework.diag_embed(diag_elems)
            return w

    def log_prob(self, value: Tensor) -> Tensor:
        # The density of L is proportional to prod_i L_ii ** (2 (concentration - 1) + dim - i), i >= 2
        # (the determinant's power times the Jacobian of L -> L L^T).
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = framework.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = framework.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = framework.lgamma(alpha) * dm1
        numerator = framework.mvlgamma(alpha - 0.5, dm1)
        # The normalizer's pi term is dim (dim - 1) / 4 log(pi); mvlgamma holds (dim - 1) (dim - 2) / 4.
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
