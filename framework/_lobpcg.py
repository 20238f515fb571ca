"""LOBPCG: the k largest (or smallest) eigenpairs of a symmetric positive-definite (generalized)
eigenproblem A X = B X E by the locally optimal block preconditioned conjugate gradient method
(PyTorch's torch.lobpcg).

Each step is a Rayleigh-Ritz projection of A onto the search subspace S = [X, P, W] (the current
approximation, the previous search direction and the preconditioned residual).  Two variants:

- "ortho" (the default, [StathopoulosEtal2002], [DuerschEtal2018]): S is kept B-orthonormal;
  the new residual block is B-orthogonalized against [X, P] by repeated SVQB passes, so the
  projected problem is a standard symmetric one;
- "basic" ([Knyazev2001]): S is used as it comes and the projected generalized problem is made
  standard through a Cholesky factor of S^T B S (fails on a singular one).

Eigenpairs converge in order: the first `converged_count` columns whose backward-stable relative
residual |A x - B x e| / (|x| (|A| + |e| |B|)) is below `tol` are frozen and dropped from the
search subspace.  A batch of matrices is solved one matrix at a time.  The `tracker` callable
receives the `LOBPCG` worker after every step (its `iparams`, `fparams`, `bparams`, `ivars`,
`fvars`, `bvars`, `tvars`, `A`, `B`, `iK`, `E`, `X`, `S`, `R`); setting
`bvars["force_stop"] = True` stops the iteration.

When A requires grad, A is symmetrized as (A + A^T) / 2 first and the result is recorded as one
`LOBPCGAutogradFunctionBackward` node, whose gradient is the symmetric eigenproblem's: the
eigenvector gradient's component outside span(U) solves a Sylvester equation on the orthogonal
complement of U (no B, real inputs only, as PyTorch).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import framework
from framework._lowrank import _floating_dtype
from framework._tensor import Tensor
from framework.autograd.function import Function
from framework.c10.dtypes import float32, float64

__all__ = ["LOBPCG", "lobpcg"]

Tracker = Callable[["LOBPCG"], None]

_FEPS = {float32: 1.2e-07, float64: 2.23e-16}
"""Machine epsilon as PyTorch's lobpcg rounds it (the default tol is its square root)."""


def _mm(A: Tensor | None, X: Tensor) -> Tensor:
    """A X, with A None meaning the identity."""
    return X if A is None else A.matmul(X)


def _qform(A: Tensor | None, S: Tensor) -> Tensor:
    """S^T A S."""
    return S.mT.matmul(_mm(A, S))


def _symeig(A: Tensor, largest: bool = False) -> tuple[Tensor, Tensor]:
    """The eigenpairs of the symmetric A (upper triangle read), ascending or, when `largest`,
    descending."""
    E, Z = framework.linalg.eigh(A, UPLO="U")
    return (E.flip(-1), Z.flip(-1)) if largest else (E, Z)


class LOBPCG:
    """The state of one LOBPCG run on a single matrix (what `tracker` sees)."""

    def __init__(
        self,
        A: Tensor,
        B: Tensor | None,
        X: Tensor,
        iK: Tensor | None,
        iparams: dict[str, int],
        fparams: dict[str, float],
        bparams: dict[str, bool],
        method: str,
        tracker: Tracker | None,
    ) -> None:
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = framework.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = framework.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = framework.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars: dict[str, Tensor] = {}
        self.ivars: dict[str, int] = {"istep": 0}
        self.fvars: dict[str, float] = {"_": 0.0}
        self.bvars: dict[str, bool] = {"_": False}

    def __str__(self) -> str:
        fields = (
            "iparams",
            "fparams",
            "bparams",
            "ivars",
            "fvars",
            "bvars",
            "tvars",
            "A",
            "B",
            "iK",
            "X",
            "E",
        )
        return "LOBPCG:\n" + "".join(f"  {name}={getattr(self, name)}\n" for name in fields)

    def update(self) -> None:
        """One step (the first one also measures |A| and |B| on X and sets the counters)."""
        if self.ivars["istep"] == 0:
            x_norm = float(framework.norm(self.X))
            self.fvars["X_norm"] = x_norm
            self.fvars["A_norm"] = float(framework.norm(_mm(self.A, self.X))) / x_norm
            self.fvars["B_norm"] = float(framework.norm(_mm(self.B, self.X))) / x_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self) -> None:
        """R = A X - B X diag(E)."""
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """The number of leading eigenpairs whose backward-stable relative residual is below tol
        ([DuerschEtal2018] section 4.3); it never decreases."""
        previous = self.ivars["converged_count"]
        E, X, R = self.E, self.X, self.R
        scale = self.fvars["A_norm"] + E[: X.shape[-1]].abs() * self.fvars["B_norm"]
        rerr = framework.norm(R, 2, (0,)) / (framework.norm(X, 2, (0,)) * scale)
        count = int((rerr < self.fparams["tol"]).int().cumprod(0).sum())
        if count < previous:
            raise AssertionError(
                f"the number of converged eigenpairs (was {previous}, got {count}) cannot decrease"
            )
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self) -> bool:
        """Stop when forced by the tracker, out of iterations, or when k pairs converged."""
        return (
            self.bvars.get("force_stop", False)
            or self.ivars["iterations_left"] == 0
            or self.ivars["converged_count"] >= self.iparams["k"]
        )

    def run(self) -> None:
        """Iterate until `stop_iteration`, calling the tracker after each step."""
        self.update()
        self.call_tracker()
        while not self.stop_iteration():
            self.update()
            self.call_tracker()

    def call_tracker(self) -> None:
        if self.tracker is not None:
            self.tracker(self)

    def _set_search_space(self, P: Tensor | None, W_source: Callable[[], Tensor]) -> None:
        """S = [X, P, W] (W computed after X and P are in place); converged_end its width."""
        n = self.iparams["n"]
        self.S[:, :n] = self.X
        p = 0 if P is None else P.shape[-1]
        if P is not None:
            self.S[:, n : n + p] = P
        W = W_source()
        end = self.ivars["converged_end"] = n + p + W.shape[-1]
        self.S[:, n + p : end] = W

    def _update_basic(self) -> None:
        n, largest = self.iparams["n"], self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._rayleigh_ritz_transform(self.X)
            E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X[:] = self.X.matmul(Ri.matmul(Z))
            self.E[:] = E
            self.update_residual()
            self.update_converged_count()
            self._set_search_space(None, lambda: _mm(self.iK, self.R))
            return
        S_ = self.S[:, nc:ns]
        Ri = self._rayleigh_ritz_transform(S_)
        E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
        self.X[:, nc:] = S_.matmul(Ri.matmul(Z[:, : n - nc]))
        self.E[nc:] = E_[: n - nc]
        P = S_.matmul(Ri.matmul(Z[:, n : 2 * n - nc]))
        self.update_residual()
        nc = self.update_converged_count()
        self._set_search_space(P, lambda: _mm(self.iK, self.R[:, nc:]))

    def _update_ortho(self) -> None:
        n, largest = self.iparams["n"], self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._rayleigh_ritz_transform(self.X)
            Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)[1]
            self.X = self.X.matmul(Ri.matmul(Z))
            self.update_residual()
            self.update_converged_count()
            self._set_search_space(None, lambda: self._ortho(self.R, self.X))
            return
        S_ = self.S[:, nc:ns]
        E_, Z = _symeig(_qform(self.A, S_), largest)
        self.X[:, nc:] = S_.matmul(Z[:, : n - nc])
        self.E[nc:] = E_[: n - nc]
        basis = framework.linalg.qr(Z[: n - nc, n - nc :].mT).Q
        P = S_.matmul(Z[:, n - nc :].matmul(basis))
        self.update_residual()
        nc = self.update_converged_count()
        self._set_search_space(P, lambda: self._ortho(self.R[:, nc:], self.S[:, : n + P.shape[-1]]))

    def _rayleigh_ritz_transform(self, S: Tensor) -> Tensor:
        """The upper-triangular Ri with Ri^T (S^T B S) Ri = I, so that the projected problem
        (S^T A S) C = (S^T B S) C E becomes the standard (Ri^T S^T A S Ri) Z = Z E, C = Ri Z:
        S^T B S is scaled to unit diagonal by d = diag(S^T B S)^-1/2 before its Cholesky factor R,
        and Ri = diag(d) R^-1."""
        SBS = _qform(self.B, S)
        d = SBS.diagonal(0, -2, -1) ** -0.5
        R = framework.linalg.cholesky(SBS * d * d.reshape(-1, 1), upper=True)
        return framework.linalg.solve_triangular(R, d.diag_embed(), upper=True, left=False)

    def _svqb(self, U: Tensor, drop: bool, tau: float) -> Tensor:
        """U made B-orthonormal through the eigendecomposition of its diagonally scaled Gram
        matrix ([DuerschPhD2015] algorithm 4): columns with zero B-norm are removed first;
        eigenvalues below tau times the largest are raised to it, or, when `drop`, their
        directions are dropped."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        nonzero = UBU.diagonal(0, -2, -1) != 0
        if not bool(nonzero.all()):
            U = U[:, nonzero]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
        d_col = (UBU.diagonal(0, -2, -1) ** -0.5).reshape(-1, 1)
        E, Z = _symeig(UBU * d_col * d_col.mT)
        t = tau * float(E.abs().max())
        if drop:
            keep = E > t
            E, Z = E[keep], Z[:, keep]
        else:
            E = E.clamp(min=t)
        return (U * d_col.mT).matmul(Z * E**-0.5)

    def _ortho(self, U: Tensor, V: Tensor) -> Tensor:
        """U made B-orthonormal and B-orthogonal to the B-orthonormal V ([DuerschPhD2015]
        algorithm 3, or 6 with `ortho_use_drop`): up to ortho_i_max projections out of V, each
        followed by up to ortho_j_max SVQB passes, until the relative errors of U^T B U = I and
        V^T B U = 0 are below ortho_tol.  May return fewer columns (none when U lies in span(V))."""
        m, i_max, j_max = self.iparams["m"], self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        tau_ortho, tau_drop = self.fparams["ortho_tol"], self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [key for key in self.fvars if key.startswith("ortho_") and key.endswith("_rerr")]:
            del self.fvars[key]
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = float(framework.norm(_mm(self.B, V)))
        BU = _mm(self.B, U)
        VBU = V.mT.matmul(BU)
        i = j = 0
        for i in range(i_max):
            U = U - V.matmul(VBU)
            for j in range(j_max):
                if use_drop:
                    U = self._svqb(U, j > 0, tau_replace if j > 0 else tau_drop)
                else:
                    U = self._svqb(U, False, tau_replace)
                if U.numel() == 0:
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                UBU = U.mT.matmul(BU)
                eye = framework.eye(UBU.shape[-1], dtype=UBU.dtype, device=UBU.device)
                rerr = float(framework.norm(UBU - eye)) / float(framework.norm(BU) * framework.norm(U))
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = V.mT.matmul(BU)
            rerr = float(framework.norm(VBU)) / (BV_norm * float(framework.norm(U)))
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                raise ValueError(
                    f"Overdetermined shape of U: #B-cols(={m}) >= #U-cols(={U.shape[-1]}) + "
                    f"#V-cols(={V.shape[-1]}) must hold"
                )
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


def _lobpcg(
    A: Tensor,
    k: int | None,
    B: Tensor | None,
    X: Tensor | None,
    n: int | None,
    iK: Tensor | None,
    niter: int | None,
    tol: float | None,
    largest: bool | None,
    method: str | None,
    tracker: Tracker | None,
    ortho_iparams: dict[str, int] | None,
    ortho_fparams: dict[str, float] | None,
    ortho_bparams: dict[str, bool] | None,
) -> tuple[Tensor, Tensor]:
    """lobpcg without autograd: the parameters completed with their defaults, then one worker
    per matrix of the batch (a random initial X drawn per matrix when none is given)."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype, device = _floating_dtype(A), A.device
    tol = _FEPS[dtype] ** 0.5 if tol is None else tol
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
            f"the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)

    def solve(A_: Tensor, B_: Tensor | None, X_: Tensor | None) -> LOBPCG:
        X_ = framework.randn((m, n), dtype=dtype, device=device) if X_ is None else X_
        if X_.shape != (m, n):
            raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
        worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker

    if A.dim() == 2:
        worker = solve(A, B, X)
        return worker.E[:k], worker.X[:, :k]
    batch = A.shape[:-2]
    N = math.prod(batch)
    bA = A.reshape(N, m, m)
    bB = None if B is None else B.reshape(N, m, m)
    bX = None if X is None else X.reshape(N, *X.shape[-2:])
    bE = framework.empty((N, k), dtype=dtype, device=device)
    bU = framework.empty((N, m, k), dtype=dtype, device=device)
    for i in range(N):
        iparams["batch_index"] = i
        worker = solve(bA[i], None if bB is None else bB[i], None if bX is None else bX[i])
        bE[i] = worker.E[:k]
        bU[i] = worker.X[:, :k]
    return bE.reshape(*batch, k), bU.reshape(*batch, m, k)


def _symeig_backward(D_grad: Tensor, U_grad: Tensor, A: Tensor, D: Tensor, U: Tensor) -> Tensor:
    """The gradient for the symmetric A of k of its eigenpairs (D, U): within span(U),
    U (diag(D_grad) + (U^T U_grad) * F) U^T with F_ij = 1 / (d_j - d_i) (0 on the diagonal);
    outside it, -Y U^T, column j of Y being Q (Q^T A Q - d_j I)^-1 Q^T U_grad_j for an
    orthonormal basis Q of the orthogonal complement of span(U)."""
    k, m = U.shape[-1], U.shape[-2]
    gaps = D.unsqueeze(-2) - D.unsqueeze(-1)
    eye_k = framework.eye(k, dtype=A.dtype, device=A.device)
    F = (gaps + eye_k).reciprocal() * (1 - eye_k)
    Ut = U.mT
    grad = U.matmul((framework.diag_embed(D_grad) + Ut.matmul(U_grad) * F).matmul(Ut))
    if k == m:
        return grad
    Q = framework.linalg.qr(U, mode="complete").Q[..., k:]
    Qt = Q.mT
    eye = framework.eye(m - k, dtype=A.dtype, device=A.device)
    shifted = Qt.matmul(A).matmul(Q).unsqueeze(-3) - D[..., :, None, None] * eye
    Y = framework.linalg.solve(shifted, Qt.matmul(U_grad).mT.unsqueeze(-1)).squeeze(-1).mT
    return grad - Q.matmul(Y).matmul(Ut)


class LOBPCGAutogradFunction(Function):
    """lobpcg recorded as one node (A, and B when given, symmetrized by the caller)."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> tuple[Tensor, Tensor]:
        A, B = args[0].contiguous(), args[2]
        B = None if B is None else B.contiguous()
        D, U = _lobpcg(A, args[1], B, *args[3:])
        ctx.save_for_backward(A, B, D, U)
        return D, U

    @staticmethod
    def backward(ctx: Any, D_grad: Tensor, U_grad: Tensor) -> tuple[Tensor | None, ...]:
        A, B, D, U = ctx.saved_tensors
        if A.dtype.is_complex or (B is not None and B.dtype.is_complex):
            raise ValueError(
                "lobpcg.backward does not support complex input yet. Note that lobpcg.forward does though."
            )
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        return (_symeig_backward(D_grad, U_grad, A, D, U), *[None] * 13)


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Tracker | None = None,
    ortho_iparams: dict[str, int] | None = None,
    ortho_fparams: dict[str, float] | None = None,
    ortho_bparams: dict[str, bool] | None = None,
) -> tuple[Tensor, Tensor]:
    """The k (default: X's columns, or 1) largest (`largest`, default True) or smallest
    eigenvalues E (..., k) and eigenvectors X (..., m, k) of A X = B X E for symmetric A and
    symmetric positive-definite B (the identity when None), A (..., m, m) with m >= 3 n.

    X (..., m, n) is the initial approximation (random with n columns, default k, when None);
    iK a preconditioner; niter the iteration limit (default 1000, -1 for none); tol the residual
    tolerance (default sqrt(eps) of A's dtype); method "ortho" (default) or "basic"; tracker a
    callable given the LOBPCG worker after each step; ortho_iparams (ortho_i_max, ortho_j_max,
    default 3), ortho_fparams (ortho_tol, ortho_tol_drop, ortho_tol_replace, default tol) and
    ortho_bparams (ortho_use_drop, default False) tune the "ortho" method.  When A (or B)
    requires grad, A is first symmetrized as (A + A^T) / 2; backward supports real A without B."""
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = None if B is None else (B + B.mT) / 2
        result: tuple[Tensor, Tensor] = LOBPCGAutogradFunction.apply(
            A_sym,
            k,
            B_sym,
            X,
            n,
            iK,
            niter,
            tol,
            largest,
            method,
            tracker,
            ortho_iparams,
            ortho_fparams,
            ortho_bparams,
        )
        return result
    return _lobpcg(
        A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams, ortho_bparams
    )
