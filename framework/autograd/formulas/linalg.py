"""Backward formulas of the torch.linalg operators and the matrix operators around them (inverse,
determinants, solve, cholesky, qr, svd, eigh, cross, trace, block_diag, cdist), as PyTorch's
derivatives give them.  Every helper computes with framework operators, so the gradients are
themselves differentiable (double backward).

The decompositions' formulas assume what PyTorch's do: distinct singular values (svd) and
eigenvalues (eigh), full-rank R (qr), a positive-definite input (cholesky).  Several outputs get
one gradient each; an output that received no gradient gets zeros from the engine, and these
helpers treat an all-zero gradient as absent (as PyTorch's undefined gradient), so that, e.g.,
the singular values alone never divide by a zero singular value.
"""

from __future__ import annotations

from collections.abc import Sequence

import framework
from framework._tensor import Tensor
from framework.ops.kernels.linalg_decomp import conj

__all__ = [
    "block_diag_backward",
    "cdist_backward",
    "cholesky_backward",
    "conjugate",
    "euclidean_dist_backward",
    "linalg_det_backward",
    "linalg_eigh_backward",
    "linalg_inv_backward",
    "linalg_qr_backward",
    "linalg_solve_backward_A",
    "linalg_solve_backward_B",
    "mH",
    "pinv_backward",
    "slogdet_backward",
    "svd_backward",
    "trace_backward",
]

Sizes = Sequence[int]


def conjugate(t: Tensor) -> Tensor:
    """The complex conjugate (a real tensor itself)."""
    return conj(t) if t.dtype.is_complex else t


def mH(t: Tensor) -> Tensor:
    """The conjugate transpose of (a batch of) matrices."""
    return conjugate(t.transpose(-2, -1))


def _defined(g: Tensor) -> bool:
    return bool((g != 0).any())


def _eye_like(t: Tensor, n: int) -> Tensor:
    return framework.eye(n, dtype=t.dtype)


def linalg_inv_backward(grad: Tensor, inverse: Tensor) -> Tensor:
    """-A^{-H} grad A^{-H}."""
    h = mH(inverse)
    return -h.matmul(grad.matmul(h))


def _inverse_h(A: Tensor) -> Tensor:
    """A^{-H}, without raising for a singular A (its entries are then not finite)."""
    return mH(framework.linalg.inv_ex(A).inverse)


def linalg_det_backward(grad: Tensor, A: Tensor, det: Tensor) -> Tensor:
    """grad conj(det) A^{-H} while every determinant is non-zero; otherwise the cofactor matrix
    through the SVD A = U diag(S) Vh: conj(det(U) det(Vh)) U diag(prod of the other S) Vh."""
    if bool((det != 0).all()):
        scale = grad * conjugate(det)
        return scale.unsqueeze(-1).unsqueeze(-1) * _inverse_h(A)
    U, S, Vh = framework.linalg.svd(A)
    n = S.shape[-1]
    ones = framework.ones_like(S.narrow(-1, 0, 1))
    before = framework.cat([ones, S.narrow(-1, 0, n - 1).cumprod(-1)], -1) if n > 1 else ones
    after = (
        framework.cat([S.flip([-1]).narrow(-1, 0, n - 1).cumprod(-1).flip([-1]), ones], -1) if n > 1 else ones
    )
    others = before * after
    phase = framework.linalg.det(U) * framework.linalg.det(Vh)
    scale = grad * conjugate(phase)
    return scale.unsqueeze(-1).unsqueeze(-1) * U.matmul(others.unsqueeze(-1) * Vh)


def slogdet_backward(grad_sign: Tensor, grad_logabsdet: Tensor, A: Tensor, sign: Tensor) -> Tensor:
    """(g_logabsdet + i Im(g_sign conj(sign))) A^{-H}; the sign of a real determinant is
    piecewise constant, so its gradient does not contribute."""
    g = grad_logabsdet
    if A.dtype.is_complex:
        g = g + 1j * framework.imag(grad_sign * conjugate(sign))
    return g.unsqueeze(-1).unsqueeze(-1) * _inverse_h(A)


def _is_vector_case(A: Tensor, B: Tensor, left: bool) -> bool:
    return B.ndim == 1 or (left and B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def linalg_solve_backward_B(grad: Tensor, A: Tensor, B: Tensor, left: bool) -> Tensor:
    """gB = A^{-H} grad (left), grad A^{-H} (right)."""
    return framework.linalg.solve(mH(A), grad, left=left)


def linalg_solve_backward_A(grad: Tensor, A: Tensor, B: Tensor, result: Tensor, left: bool) -> Tensor:
    """gA = -gB X^H (left: AX = B), -X^H gB (right: XA = B)."""
    gB = framework.linalg.solve(mH(A), grad, left=left)
    if _is_vector_case(A, B, left):
        gB, result = gB.unsqueeze(-1), result.unsqueeze(-1)
    return -gB.matmul(mH(result)) if left else -mH(result).matmul(gB)


def cholesky_backward(grad: Tensor, upper: bool, L: Tensor) -> Tensor:
    """A = L L^H: gA = L^{-H} Φ(L^H gL) L^{-1}, Φ taking the lower triangle with a halved
    diagonal mirrored to a Hermitian matrix."""
    if upper:
        L, grad = mH(L), mH(grad)
    phi = mH(L).matmul(grad).tril()
    phi = 0.5 * (phi + mH(phi.tril(-1)))
    gA = framework.linalg.solve(mH(L), phi)
    return framework.linalg.solve(L, gA, left=False)


def _qr_tall_backward(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor) -> Tensor:
    """A = QR with rows >= columns: gA = (gQ + Q copyltu(M)) R^{-H}, M = R gR^H - gQ^H Q."""
    M = R.matmul(mH(gR)) - mH(gQ).matmul(Q)
    sym = M.tril() + mH(M.tril(-1))
    return framework.linalg.solve(mH(R), gQ + Q.matmul(sym), left=False)


def linalg_qr_backward(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor, mode: str) -> Tensor:
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if m >= n:
        return _qr_tall_backward(gQ, gR, Q, R)
    # A = [X | Y] = Q [U | V]: X = QU is square, Y = QV.
    U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    Y = Q.matmul(V)
    gX = _qr_tall_backward(gQ + Y.matmul(mH(gV)), gU, Q, U)
    return framework.cat([gX, Q.matmul(gV)], -1)


def _skew(t: Tensor) -> Tensor:
    return t - mH(t)


def svd_backward(
    gU: Tensor, gS: Tensor, gVh: Tensor, U: Tensor, S: Tensor, Vh: Tensor, full_matrices: bool
) -> Tensor:
    """PyTorch's svd_backward on the reduced factors (the first min(rows, cols) columns of U and
    rows of Vh when full_matrices)."""
    if U.ndim < 2:
        raise RuntimeError(
            "linalg.svd: the derivative needs U and Vh, which compute_uv=False does not compute; use "
            "linalg.svd or linalg.svdvals"
        )
    k = S.shape[-1]
    if full_matrices:
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU, gVh = gU.narrow(-1, 0, k), gVh.narrow(-2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    has_u, has_v = _defined(gU), _defined(gVh)
    if not has_u and not has_v:
        return U.matmul(gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)).matmul(Vh)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye_like(S2, k)
    if has_u and has_v:
        gA = (_skew(mH(U).matmul(gU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * _skew(Vh.matmul(mH(gVh)))) / E
    elif has_v:
        gA = S.unsqueeze(-1) * _skew(Vh.matmul(mH(gVh))) / E
    else:
        gA = _skew(mH(U).matmul(gU)) * S.unsqueeze(-2) / E
    gA = gA + framework.diag_embed(gS)
    if m > n and has_u:
        gUSinv = gU / S.unsqueeze(-2)
        gA = U.matmul(gA) + gUSinv - U.matmul(mH(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and has_v:
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA.matmul(Vh) + SinvgVh - SinvgVh.matmul(mH(Vh)).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA).matmul(Vh)


def linalg_eigh_backward(gL: Tensor, gV: Tensor, L: Tensor, V: Tensor) -> Tensor:
    """A = V diag(L) V^H: gA = V (diag(gL) + (V^H gV) / E) V^H, E_ij = L_j - L_i off the
    diagonal."""
    if V.ndim < 2:
        raise RuntimeError(
            "linalg.eigh: the derivative needs the eigenvectors, which compute_v=False does not compute; "
            "use linalg.eigh or linalg.eigvalsh"
        )
    if not _defined(gV):
        return V.matmul(gL.unsqueeze(-1) * mH(V))
    n = L.shape[-1]
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye_like(L, n)
    inner = mH(V).matmul(gV) / E
    inner = inner - framework.diag_embed(inner.diagonal(0, -2, -1)) + framework.diag_embed(gL.to(inner.dtype))
    return V.matmul(inner).matmul(mH(V))


def trace_backward(grad: Tensor, sizes: Sizes) -> Tensor:
    """grad on the main diagonal of a `sizes` matrix, zeros elsewhere."""
    return grad * framework.eye(sizes[0], sizes[1], dtype=grad.dtype)


def block_diag_backward(grad: Tensor, shapes: Sequence[Sizes]) -> list[Tensor]:
    """Each input's block of the gradient (0-D and 1-D inputs were 1x1 and 1xn blocks)."""
    grads = []
    row = col = 0
    for shape in shapes:
        rows, cols = (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])
        grads.append(grad[row : row + rows, col : col + cols].reshape(list(shape)))
        row, col = row + rows, col + cols
    return grads


def cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, dist: Tensor) -> Tensor:
    """The gradient for x1 of the p-norm distances between the rows of x1 and x2 (x2's: the same
    with the operands and the transposed gradient swapped): sum over x2's rows of grad times
    d|x1_i - x2_j|_p / dx1_i, zero where a distance is 0."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    g = grad.unsqueeze(-1)
    d = dist.unsqueeze(-1)
    if p == 0:
        return framework.zeros_like(x1)
    if p == 1:
        term = diff.sign()
    elif p == float("inf"):
        term = diff.sign() * (diff.abs() == d)
    elif p == 2:
        term = framework.where(d == 0, 0.0, diff / d)
    else:
        term = framework.where(d == 0, 0.0, diff.sign() * diff.abs().pow(p - 1) / d.pow(p - 1))
    return (g * term).sum(-2)


def euclidean_dist_backward(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor, which: int) -> Tensor:
    """The gradient of _euclidean_dist for x1 (which = 0) or x2 (which = 1), zero where a
    distance is 0."""
    ratio = framework.where(result == 0, 0.0, grad / result)
    if which == 0:
        return x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
    return x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-2, -1).matmul(x1)


def pinv_backward(grad: Tensor, pinv: Tensor, A: Tensor) -> Tensor:
    """PyTorch's pinv_backward (products arranged to keep the smaller dimension inside)."""
    m, n = A.shape[-2], A.shape[-1]
    pinv_h, grad_h = mH(pinv), mH(grad)
    if m <= n:
        K = grad_h.matmul(pinv)
        K_pinv_h = K.matmul(pinv_h)
        return (
            -mH(pinv.matmul(K))
            + K_pinv_h
            - A.matmul(pinv).matmul(K_pinv_h)
            + pinv_h.matmul(pinv).matmul(grad_h - K.matmul(A))
        )
    K = pinv.matmul(grad_h)
    pinv_h_K = pinv_h.matmul(K)
    return (
        -mH(K.matmul(pinv))
        + (grad_h - A.matmul(K)).matmul(pinv).matmul(pinv_h)
        + pinv_h_K
        - pinv_h_K.matmul(pinv).matmul(A)
    )
