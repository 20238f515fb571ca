"""Randomized low-rank SVD and PCA (PyTorch's torch.svd_lowrank and torch.pca_lowrank, Halko,
Martinsson and Tropp's algorithm 4.4/5.1): a basis Q of the range of A - M is found from one
Gaussian sketch A R (R drawn with framework.randn, so a seed gives PyTorch's numbers) refined by
`niter` subspace iterations, each re-orthonormalized by QR; the SVD of the small Q^H (A - M)
gives the factors.  Wide matrices are handled through their adjoint.  Batches of matrices are
supported; sparse tensors do not exist here."""

from __future__ import annotations

import framework
from framework._tensor import Tensor
from framework.c10.dtypes import dtype, float16, float32, float64

__all__ = ["pca_lowrank", "svd_lowrank"]


def _floating_dtype(A: Tensor) -> dtype:
    """A's dtype when it is a real floating type, float32 otherwise."""
    return A.dtype if A.dtype in (float16, float32, float64) else float32


def get_approximate_basis(A: Tensor, q: int, niter: int | None = 2, M: Tensor | None = None) -> Tensor:
    """A (..., m, q) matrix with orthonormal columns whose range approximates that of A - M
    (Halko et al.'s randomized range finder with `niter` (default 2) subspace iterations)."""
    niter = 2 if niter is None else niter
    R = framework.randn(
        A.shape[-1], q, dtype=A.dtype if A.is_complex() else _floating_dtype(A), device=A.device
    )

    def range_of(X: Tensor, adjoint: bool) -> Tensor:
        product = (A.mH if adjoint else A) @ X
        if M is not None:
            product = product - (M.mH if adjoint else M) @ X
        return framework.linalg.qr(product).Q

    Q = range_of(R, adjoint=False)
    for _ in range(niter):
        Q = range_of(range_of(Q, adjoint=True), adjoint=False)
    return Q


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """U, S, V with A - M ~ U diag(S) V^H of rank `q` (default 6): the randomized SVD with
    `niter` (default 2) subspace iterations; `M` broadcasts to A's shape.  Set the seed for
    reproducible results; q should be a little above the rank sought."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = framework.linalg.svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """The randomized PCA of the rows of A (..., m, n): svd_lowrank of A minus its column means
    (when `center`), with q = min(6, m, n) by default; V's columns are the principal directions,
    S**2 / (m - 1) the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
