"""Backward formulas of the remaining operators (ormqr, conv_tbc), as PyTorch's derivatives give
them.  The helpers compute with framework operators, so the gradients are themselves
differentiable."""

from __future__ import annotations

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.linalg import householder_product_backward, mH
from framework.ops.kernels.misc_ops3 import tbc_taps

__all__ = ["conv_tbc_backward", "ormqr_backward"]


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


def conv_tbc_backward(
    grad: Tensor, input: Tensor, weight: Tensor, bias: Tensor, pad: int, which: int
) -> Tensor:
    """The gradient of conv_tbc for input (which 0), weight (1) or bias (2): per kernel tap k,
    the output gradient rows times weight[k]^T, padded back into the input rows they came from,
    and the input rows^T times the output gradient rows."""
    if which == 2:
        return grad.sum((0, 1))
    ilen, batch, cin = input.shape
    kw, cout = weight.shape[0], weight.shape[2]
    taps = list(tbc_taps(ilen, kw, grad.shape[0], pad))
    if which == 0:
        grad_input = framework.zeros_like(input)
        for k, i, o, t in taps:
            part = grad.narrow(0, o, t).matmul(weight[k].t())
            grad_input = grad_input + framework.nn.functional.pad(part, [0, 0, 0, 0, i, ilen - i - t])
        return grad_input
    grad_weight = [weight.new_zeros((cin, cout)) for _ in range(kw)]
    for k, i, o, t in taps:
        rows = input.narrow(0, i, t).reshape(t * batch, cin)
        grad_weight[k] = rows.t().matmul(grad.narrow(0, o, t).reshape(t * batch, cout))
    return framework.stack(grad_weight)
