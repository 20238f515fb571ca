"""Backward formulas of the remaining operators (ormqr, conv_tbc, segment_reduce), as PyTorch's
derivatives give them.  The helpers compute with framework operators, so the gradients are
themselves differentiable."""

from __future__ import annotations

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.linalg import householder_product_backward, mH

__all__ = ["ormqr_backward"]


def ormqr_backward(
    grad: Tensor, self: Tensor, tau: Tensor, other: Tensor, left: bool, transpose: bool, which: int
) -> Tensor:
    """The gradient of ormqr for `self` (which 0), tau (1) or other (2).  Other's is op(Q)^H applied
    to grad from the same side; for the reflectors, the gradient of the full (mn, mn) Q = H_1 ... H_k
    goes through householder_product's backward on `self` widened (or cut) to mn columns."""
    if which == 2:
        return framework.ormqr(self, tau, grad, left, not transpose)
    if left:
        g_q = other.matmul(mH(grad)) if transpose else grad.matmul(mH(other))
    else:
        g_q = mH(grad).matmul(other) if transpose else mH(other).matmul(grad)
    mn, cols = self.shape[-2], self.shape[-1]
    square = self.narrow(-1, 0, min(mn, cols))
    if cols < mn:
        square = framework.cat([square, self.new_zeros((*self.shape[:-1], mn - cols))], -1)
    result = householder_product_backward(g_q, square, tau, which)
    if which == 1:
        return result
    if cols < mn:
        return result.narrow(-1, 0, cols)
    return framework.cat([result, self.new_zeros((*self.shape[:-1], cols - mn))], -1)
