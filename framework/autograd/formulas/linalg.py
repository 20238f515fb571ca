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
from framework.autograd.formulas.complex import conjugate

__all__ = [
    "block_diag_backward",
    "cdist_backward",
    "cholesky_backward",
    "cholesky_inverse_backward",
    "cholesky_solve_backward_input2",
    "cholesky_solve_backward_self",
    "euclidean_dist_backward",
    "householder_product_backward",
    "linalg_det_backward",
    "linalg_eig_backward",
    "linalg_eigh_backward",
    "linalg_inv_backward",
    "linalg_lstsq_backward",
    "linalg_lu_backward",
    "linalg_lu_solve_LU",
    "linalg_matrix_exp_differential",
    "linalg_qr_backward",
    "linalg_solve_backward_A",
    "linalg_solve_backward_B",
    "lu_factor_ex_backward",
    "lu_unpack_backward",
    "mH",
    "pinv_backward",
    "slogdet_backward",
    "solve_triangular_backward_A",
    "solve_triangular_backward_B",
    "svd_backward",
    "trace_backward",
    "triangular_solve_backward_A",
    "triangular_solve_backward_b",
]

Sizes = Sequence[int]


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


# ---- linalg additions: LU, triangular solves, cholesky_solve/inverse, matrix_exp, eig, lstsq ----


def _tri_solve(A: Tensor, B: Tensor, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    return framework.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def linalg_lu_backward(gL: Tensor, gU: Tensor, P: Tensor, L: Tensor, U: Tensor, pivot: bool) -> Tensor:
    """A = P L U (L: (m, k) unit lower, U: (k, n) upper), PyTorch's formula per shape: square
    gA = P L^{-H} (L^H gL o 1_L + gU U^H o 1_U) U^{-H}; wide and tall split off the extra columns
    (rows) of U (L)."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = mH(L).matmul(gL).tril(-1) + gU.matmul(mH(U)).triu()
        gA = _tri_solve(mH(U), gA, upper=False, left=False)
        gA = _tri_solve(mH(L), gA, upper=True, unitriangular=True)
    elif m < n:
        U1 = U.narrow(-1, 0, k)
        gA = (mH(L).matmul(gL) - gU.triu().matmul(mH(U))).tril(-1)
        gA = _tri_solve(mH(U1), gA, upper=False, left=False)
        gA = framework.cat([gA + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], -1)
        gA = _tri_solve(mH(L), gA, upper=True, unitriangular=True)
    else:
        L1 = L.narrow(-2, 0, k)
        gA = (gU.matmul(mH(U)) - mH(L).matmul(gL.tril(-1))).triu()
        gA = _tri_solve(mH(L1), gA, upper=True, unitriangular=True)
        gA = framework.cat([gA + gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], -2)
        gA = _tri_solve(mH(U), gA, upper=False, left=False)
    return P.matmul(gA) if pivot else gA


def lu_factor_ex_backward(grad: Tensor, LU: Tensor, pivots: Tensor, pivot: bool) -> Tensor:
    """The packed factors' gradient split into L's (first k columns) and U's (first k rows)."""
    P, L, U = framework.lu_unpack(LU, pivots, True, pivot)
    k = min(LU.shape[-2], LU.shape[-1])
    return linalg_lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


def lu_unpack_backward(gL: Tensor, gU: Tensor, m: int, n: int) -> Tensor:
    """L's strictly lower and U's upper triangle packed back into one (m, n) gradient."""
    k = min(m, n)
    if m == n:
        return gL.tril(-1) + gU.triu()
    if m < n:
        return framework.cat([gL.tril(-1) + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], -1)
    return framework.cat([gL.narrow(-2, 0, k).tril(-1) + gU.triu(), gL.narrow(-2, k, m - k)], -2)


def linalg_lu_solve_LU(
    gX: Tensor, LU: Tensor, pivots: Tensor, X: Tensor, left: bool, adjoint: bool
) -> Tensor:
    """PyTorch's gradient of the packed LU factors of linalg.lu_solve."""
    P, L, U = framework.lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        gR = _tri_solve(mH(U), -(gX if left else mH(gX)).matmul(mH(X) if left else X), upper=False)
        gL = _tri_solve(mH(L), gR.matmul(mH(U)), upper=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    gR = -P.mT.matmul(X if left else mH(X)).matmul(mH(gX) if left else gX).matmul(P)
    gR = _tri_solve(mH(L), gR, upper=True, left=False, unitriangular=True)
    gU = _tri_solve(mH(U), mH(L).matmul(gR), upper=False, left=False).triu()
    return gR.tril(-1) + gU


def _triangle(t: Tensor, upper: bool, unitriangular: bool) -> Tensor:
    return t.triu(int(unitriangular)) if upper else t.tril(-int(unitriangular))


def solve_triangular_backward_B(
    grad: Tensor, A: Tensor, upper: bool, left: bool, unitriangular: bool
) -> Tensor:
    """gB = A^{-H} grad (left), grad A^{-H} (right)."""
    return _tri_solve(mH(A), grad, upper=not upper, left=left, unitriangular=unitriangular)


def solve_triangular_backward_A(
    grad: Tensor, A: Tensor, X: Tensor, upper: bool, left: bool, unitriangular: bool
) -> Tensor:
    """gA = -gB X^H (left), -X^H gB (right), restricted to A's triangle."""
    gB = solve_triangular_backward_B(grad, A, upper, left, unitriangular)
    gA = -gB.matmul(mH(X)) if left else -mH(X).matmul(gB)
    return _triangle(gA, upper, unitriangular)


def triangular_solve_backward_b(
    grad_x: Tensor, A: Tensor, upper: bool, transpose: bool, unitriangular: bool
) -> Tensor:
    """gb = op(A)^{-H} grad (op(A) = A^T when transpose), through linalg.solve_triangular (the
    deprecated triangular_solve would warn during backward)."""
    if transpose:
        return _tri_solve(conjugate(A), grad_x, upper=upper, unitriangular=unitriangular)
    return _tri_solve(mH(A), grad_x, upper=not upper, unitriangular=unitriangular)


def triangular_solve_backward_A(
    grad_x: Tensor, grad_m: Tensor, A: Tensor, x: Tensor, upper: bool, transpose: bool, unitriangular: bool
) -> Tensor:
    gb = triangular_solve_backward_b(grad_x, A, upper, transpose, unitriangular)
    gA = -conjugate(x).matmul(gb.mT) if transpose else -gb.matmul(mH(x))
    return _triangle(gA, upper, unitriangular) + grad_m


def cholesky_solve_backward_self(grad: Tensor, input2: Tensor, upper: bool) -> Tensor:
    return framework.cholesky_solve(grad, input2, upper)


def cholesky_solve_backward_input2(grad: Tensor, input2: Tensor, result: Tensor, upper: bool) -> Tensor:
    """-(gB X^H + X gB^H) applied to the factor from the side it multiplies."""
    common = framework.cholesky_solve(grad, input2, upper).matmul(mH(result))
    common = common + mH(common)
    return -input2.matmul(common) if upper else -common.matmul(input2)


def cholesky_inverse_backward(grad: Tensor, L: Tensor, upper: bool, inverse: Tensor) -> Tensor:
    common = inverse.matmul((grad + mH(grad)).matmul(inverse))
    return -L.matmul(common) if upper else -common.matmul(L)


def linalg_matrix_exp_differential(A: Tensor, grad: Tensor) -> Tensor:
    """The adjoint of the Fréchet derivative of exp at A applied to grad: the upper right block
    of exp([[A^H, grad], [0, A^H]])."""
    Ah = mH(A)
    n = A.shape[-1]
    block = framework.cat(
        [framework.cat([Ah, grad], -1), framework.cat([framework.zeros_like(Ah), Ah], -1)], -2
    )
    return framework.linalg.matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)


def linalg_eig_backward(gL: Tensor, gV: Tensor, L: Tensor, V: Tensor, A: Tensor) -> Tensor:
    """A = V diag(L) V^{-1}: gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E*) V^H,
    E*_ij = conj(L_j - L_i); real for a real A.  A loss that depends on the eigenvectors' phases
    is refused, as PyTorch does."""
    VhgV = mH(V).matmul(gV)
    diagonal = VhgV.diagonal(0, -2, -1)
    if not framework.allclose(
        framework.imag(diagonal), framework.zeros_like(framework.real(diagonal)), 1e-2, 1e-2
    ):
        raise RuntimeError(
            "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
            "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined."
        )
    VhgV = VhgV - mH(V).matmul(V * framework.real(diagonal).unsqueeze(-2))
    Lconj = conjugate(L)
    E = Lconj.unsqueeze(-2) - Lconj.unsqueeze(-1) + _eye_like(Lconj, L.shape[-1])
    inner = VhgV / E
    inner = inner - framework.diag_embed(inner.diagonal(0, -2, -1)) + framework.diag_embed(gL)
    gA = framework.linalg.solve(mH(V), inner.matmul(mH(V)))
    return gA if A.dtype.is_complex else framework.real(gA)


def linalg_lstsq_backward(
    gX: Tensor, gR: Tensor, A: Tensor, B: Tensor, X: Tensor, residuals: Tensor, which: int
) -> Tensor:
    """Through pinv(A): X = pinv(A) B; the residuals ||A X - B||^2 (per column) add
    2 (A X - B) gR X^H for A and -2 (A X - B) gR for B (X is stationary there)."""
    vector = B.ndim == A.ndim - 1
    if vector:
        gX, B, X = gX.unsqueeze(-1), B.unsqueeze(-1), X.unsqueeze(-1)
    pinvA = framework.linalg.pinv(A)
    grad = pinv_backward(gX.matmul(mH(B)), pinvA, A) if which == 0 else mH(pinvA).matmul(gX)
    if residuals.numel():
        weight = gR.unsqueeze(-1) if vector else gR.unsqueeze(-2)
        r = (A.matmul(X) - B) * weight
        grad = grad + (2 * r.matmul(mH(X)) if which == 0 else -2 * r)
    return grad.squeeze(-1) if vector and which == 1 else grad


def _householder_vectors(input: Tensor, k: int) -> list[Tensor]:
    """v_i (..., m, 1): a one at row i, input's column i below it, zeros above."""
    m = input.shape[-2]
    eye = framework.eye(m, dtype=input.dtype)
    return [input.narrow(-1, i, 1).tril(-(i + 1)) + eye.narrow(-1, i, 1) for i in range(k)]


def householder_product_backward(grad: Tensor, input: Tensor, tau: Tensor, which: int) -> Tensor:
    """Q E = H_1 ... H_k E with H_i = I - tau_i v_i v_i^H: with a_i = (H_1 ... H_{i-1})^H grad and
    S_i = H_{i+1} ... H_k E, tau_i gets -(a_i^H v_i)^H (S_i^H v_i) and v_i gets
    -conj(tau_i) a_i S_i^H v_i - tau_i S_i a_i^H v_i, kept below the diagonal of column i
    (`which`: 0 for input, 1 for tau)."""
    m, n, k = input.shape[-2], input.shape[-1], tau.shape[-1]
    vs = _householder_vectors(input, k)
    taus = [tau.narrow(-1, i, 1).unsqueeze(-1) for i in range(k)]
    right = [framework.eye(m, n, dtype=input.dtype).expand_as(input)]
    for i in reversed(range(1, k)):
        right.insert(0, right[0] - taus[i] * vs[i].matmul(mH(vs[i]).matmul(right[0])))
    a = grad
    g_tau, g_v = [], []
    for i in range(k):
        v, t_i, S = vs[i], taus[i], right[i]
        w1, w2 = mH(S).matmul(v), mH(a).matmul(v)
        g_tau.append(-mH(w2).matmul(w1).squeeze(-1))
        g_v.append(-conjugate(t_i) * a.matmul(w1) - t_i * S.matmul(w2))
        a = a - conjugate(t_i) * v.matmul(mH(v).matmul(a))
    if which == 1:
        return framework.cat(g_tau, -1)
    columns = [*g_v, framework.zeros_like(input.narrow(-1, 0, n - k))]
    return framework.cat(columns, -1).tril(-1)
