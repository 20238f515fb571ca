"""torch.linalg.ldl_factor(_ex) and ldl_solve: the Bunch-Kaufman LDL^T (LDL^H) factorization of
symmetric (Hermitian) matrices in LAPACK's sytrf/hetrf format, and the solve with it (sytrs/hetrs).

NumPy has no sytrf, so the factorization is LAPACK's unblocked algorithm (?sytf2/?hetf2 on the
lower triangle), vectorised over the batch: every matrix advances by one pivot step per pass, at
its own column k (a step takes one column with a 1x1 pivot or two with a 2x2 pivot, so matrices of
one batch drift apart); the choice between the two, and the row interchanged with k, follow
LAPACK's tests with alpha = (1 + sqrt(17)) / 8 and its |re| + |im| magnitudes, so pivots agree with
PyTorch's.  The working matrix is kept full (symmetric or Hermitian) in its trailing block, the
lower triangle computed as LAPACK does and mirrored.

The result LD holds L's multipliers below the diagonal and D's 1x1 and 2x2 blocks on the diagonal
and subdiagonal (the upper triangle is zero); pivots are 1-based: a positive p at k means a 1x1
block with rows k and p interchanged, the same negative value -p at k and k+1 a 2x2 block with
rows k+1 and p interchanged.  info is the 1-based column of the first zero pivot (D singular), 0
otherwise.  `hermitian` matters for complex inputs only, as in LAPACK.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, int32
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import (
    array,
    aten_op,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    same_device,
    wrap_dim,
)
from framework.ops.kernels.linalg_decomp import check_floating, check_square

Array = npt.NDArray[Any]

_ALPHA: Final = (1 + math.sqrt(17.0)) / 8
"""Bunch and Kaufman's threshold between 1x1 and 2x2 pivots."""


def _cabs1(x: Array) -> Array:
    """LAPACK's magnitude for pivoting: |re| + |im|."""
    magnitude: Array = np.abs(x.real) + np.abs(x.imag)
    return magnitude


def _adjoint_of(x: Array, hermitian: bool) -> Array:
    """x^H when Hermitian, else x^T (last two dimensions)."""
    t = np.swapaxes(x, -1, -2)
    return t.conj() if hermitian else t


def _square_checks(op: str, A: Tensor, kernel_name: str) -> None:
    check_square(op, A)
    check_floating(op, A)
    if A._impl.dtype.is_reduced_float:
        raise not_implemented(kernel_name, A._impl.dtype)


# ---- factorization ----------------------------------------------------------------------------


def _pivot_step(a: Array, k: Array, active: Array, herm: bool) -> tuple[Array, Array, Array]:
    """LAPACK's pivot choice at column k of each matrix: (kp, the row to interchange; kstep, 1 or
    2; zero, whether column k is zero, then left as it is)."""
    n = a.shape[-1]
    b, rows = np.arange(a.shape[0]), np.arange(n)
    magnitude = (lambda x: np.abs(x.real)) if herm else _cabs1
    absakk = magnitude(a[b, k, k])
    column = np.where(rows > k[:, None], _cabs1(a[b, :, k]), -1.0)
    imax = np.argmax(column, axis=1)
    colmax = np.maximum(column[b, imax], 0.0)
    zero = np.fmax(absakk, colmax) == 0  # a NaN diagonal does not count, as in MKL's sytrf
    row_mask = (rows >= k[:, None]) & (rows != imax[:, None])
    rowmax = np.max(np.where(row_mask, _cabs1(a[b, imax, :]), 0.0), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = zero | (absakk >= _ALPHA * colmax) | (absakk >= _ALPHA * colmax * (colmax / rowmax))
    swap_one = magnitude(a[b, imax, imax]) >= _ALPHA * rowmax
    kstep = np.where(~keep & ~swap_one & active, 2, 1)
    return np.where(keep, k, imax), kstep, zero


def _interchange(a: Array, k: Array, kk: Array, kp: Array, active: Array) -> Array:
    """Rows and columns kk and kp interchanged in each trailing block a[k:, k:] (the columns of L
    before k stay as they are, as in LAPACK)."""
    count, n = a.shape[0], a.shape[-1]
    b, rows = np.arange(count), np.arange(n)
    perm = np.tile(rows, (count, 1))
    perm[b, kk], perm[b, kp] = kp, kk
    permuted = a[b[:, None, None], perm[:, :, None], perm[:, None, :]]
    trailing = (rows[None, :, None] >= k[:, None, None]) & (rows[None, None, :] >= k[:, None, None])
    return np.where(trailing & active[:, None, None], permuted, a)


def _eliminate(a: Array, k: Array, one: Array, two: Array, herm: bool) -> Array:
    """The elimination step of a 1x1 (`one`) or 2x2 (`two`) pivot at k: the Schur complement of
    the trailing block and the multipliers of L in columns k (and k + 1), with LAPACK's formulas."""
    n = a.shape[-1]
    b, rows = np.arange(a.shape[0]), np.arange(n)
    cj = np.conj if herm else np.asarray
    k1 = np.minimum(k + 1, n - 1)
    below, below2 = rows > k[:, None], rows > k1[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        akk = a[b, k, k]
        d11 = 1 / (akk.real if herm else akk)
        x = np.where(below, a[b, :, k], 0)
        update_one = x[:, :, None] * (-d11[:, None, None] * cj(x)[:, None, :])
        xk, xk1 = np.where(below2, a[b, :, k], 0), np.where(below2, a[b, :, k1], 0)
        d21 = a[b, k1, k]
        if herm:
            d = np.abs(d21)
            e11, e22 = a[b, k1, k1].real / d, akk.real / d
            unit = d21 / d
            scale = 1 / (e11 * e22 - 1) / d
            wk = scale[:, None] * (e11[:, None] * xk - unit[:, None] * xk1)
            wkp1 = scale[:, None] * (e22[:, None] * xk1 - unit.conj()[:, None] * xk)
        else:
            e11, e22 = a[b, k1, k1] / d21, akk / d21
            scale = 1 / (e11 * e22 - 1) / d21
            wk = scale[:, None] * (e11[:, None] * xk - xk1)
            wkp1 = scale[:, None] * (e22[:, None] * xk1 - xk)
        update_two = -(xk[:, :, None] * cj(wk)[:, None, :]) - xk1[:, :, None] * cj(wkp1)[:, None, :]
        trailing_one = (one[:, None] & below)[:, :, None] & below[:, None, :]
        trailing_two = (two[:, None] & below2)[:, :, None] & below2[:, None, :]
        update = np.where(trailing_one, update_one, 0) + np.where(trailing_two, update_two, 0)
        lower = rows[:, None] >= rows[None, :]
        a = a + np.where(lower, update, _adjoint_of(update, herm))
        if herm:
            a[:, rows, rows] = a[:, rows, rows].real
        column = np.where(one[:, None] & below, a[b, :, k] * d11[:, None], a[b, :, k])
        a[b, :, k] = np.where(two[:, None] & below2, wk, column)
        a[b, :, k1] = np.where(two[:, None] & below2, wkp1, a[b, :, k1])
    return a


def ldl_factor_arrays(a: Array, hermitian: bool) -> tuple[Array, Array, Array]:
    """LAPACK ?sytrf ('L') on each matrix of `a` (..., n, n), Hermitian ?hetrf for complex `a`
    when `hermitian`: (LD, the int32 pivots (..., n), info (...)).  Only the lower triangle of
    `a` is read."""
    herm = hermitian and np.iscomplexobj(a)
    shape, n = a.shape, a.shape[-1]
    if a.size == 0:
        return a.copy(), np.zeros(shape[:-1], np.int32), np.zeros(shape[:-2], np.int32)
    lower = np.tril(a.reshape(-1, n, n))
    work = lower + _adjoint_of(np.tril(lower, -1), herm)
    if herm:
        work[:, np.arange(n), np.arange(n)] = work[:, np.arange(n), np.arange(n)].real
    count = work.shape[0]
    b = np.arange(count)
    k = np.zeros(count, np.int64)
    pivots = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    for _ in range(n):  # each pass advances every unfinished matrix by at least one column
        active = k < n
        if not active.any():
            break
        k_here = np.minimum(k, n - 1)
        kp, kstep, zero = _pivot_step(work, k_here, active, herm)
        work = _interchange(work, k_here, k_here + kstep - 1, kp, active)
        work = _eliminate(work, k_here, active & ~zero & (kstep == 1), active & (kstep == 2), herm)
        info = np.where(active & zero & (info == 0), k_here + 1, info).astype(np.int32)
        single, double = active & (kstep == 1), active & (kstep == 2)
        pivots[b[single], k_here[single]] = kp[single] + 1
        pivots[b[double], k_here[double]] = -(kp[double] + 1)
        pivots[b[double], k_here[double] + 1] = -(kp[double] + 1)
        k = np.where(active, k + kstep, k)
    return np.tril(work).reshape(shape), pivots.reshape(shape[:-1]), info.reshape(shape[:-2])


def _raise_ldl_failed(op: str, info: Tensor) -> None:
    """PyTorch's RuntimeError for a singular D (its error check has no text of its own for ldl:
    PyTorch's is an internal assert ending in this text)."""
    if is_meta(info._impl.device):
        return
    codes = array(info).reshape(-1)
    failed = np.flatnonzero(codes)
    if failed.size:
        raise RuntimeError(f"{op}: Unknown error code: {codes[failed[0]]}.")


@kernel("linalg_ldl_factor_ex")
def linalg_ldl_factor_ex(
    self: Tensor, *, hermitian: bool = False, check_errors: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    _square_checks("torch.linalg.ldl_factor_ex", self, "ldl_factor_kernel_cpu")
    impl = self._impl
    LD = new_tensor(impl.sizes, impl.dtype, impl.device)
    pivots = new_tensor(impl.sizes[:-1], int32, impl.device)
    info = new_tensor(impl.sizes[:-2], int32, impl.device)
    if is_meta(impl.device):
        return LD, pivots, info
    for out, value in zip((LD, pivots, info), ldl_factor_arrays(array(self), hermitian), strict=True):
        out._impl.numpy_view()[...] = value
    if check_errors:
        _raise_ldl_failed("torch.linalg.ldl_factor_ex", info)
    return LD, pivots, info


@kernel("linalg_ldl_factor")
def linalg_ldl_factor(self: Tensor, *, hermitian: bool = False) -> tuple[Tensor, Tensor]:
    """CompositeImplicitAutograd: ldl_factor_ex, then its info checked."""
    LD, pivots, info = aten_op("linalg_ldl_factor_ex.default")(self, hermitian=hermitian)
    _raise_ldl_failed("torch.linalg.ldl_factor", info)
    return LD, pivots


# ---- solve ------------------------------------------------------------------------------------


def _swap_rows(x: Array, i: Array, j: Array, where: Array) -> None:
    """Rows i and j of each x[b] interchanged where `where[b]`."""
    b = np.flatnonzero(where)
    x[b, i[b]], x[b, j[b]] = x[b, j[b]], x[b, i[b]].copy()


def ldl_solve_arrays(ld: Array, pivots: Array, rhs: Array, hermitian: bool) -> Array:
    """X with A X = B for A factored by ldl_factor_arrays (LAPACK ?sytrs / ?hetrs, 'L'): `ld`
    (count, n, n), `pivots` (count, n) and `rhs` (count, n, m) share one batch dimension."""
    herm = hermitian and np.iscomplexobj(ld)
    cj = np.conj if herm else np.asarray
    count, n = ld.shape[0], ld.shape[-1]
    b, rows = np.arange(count), np.arange(n)
    x = rhs.astype(np.result_type(ld, rhs), copy=True)
    k = np.zeros(count, np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while (k < n).any():  # L D Y = B, forward, one block per matrix and pass
            active = k < n
            kc = np.minimum(k, n - 1)
            k1 = np.minimum(kc + 1, n - 1)
            two = active & (pivots[b, kc] < 0)
            kp = np.abs(pivots[b, kc]).astype(np.int64) - 1
            _swap_rows(x, np.where(two, k1, kc), kp, active)
            last = np.where(two, k1, kc)
            below = (rows > last[:, None]) & active[:, None]
            x -= np.where(below[..., None], ld[b, :, kc, None] * x[b, kc][:, None], 0)
            x -= np.where((below & two[:, None])[..., None], ld[b, :, k1, None] * x[b, k1][:, None], 0)
            dkk = ld[b, kc, kc].real if herm else ld[b, kc, kc]
            one = active & ~two
            x[one, kc[one]] = x[one, kc[one]] / dkk[one, None]
            akm1k = ld[b, k1, kc]
            akm1, ak = ld[b, kc, kc] / cj(akm1k), ld[b, k1, k1] / akm1k
            denom = (akm1 * ak - 1)[:, None]
            bkm1, bk = x[b, kc] / cj(akm1k)[:, None], x[b, k1] / akm1k[:, None]
            x[two, kc[two]] = ((ak[:, None] * bkm1 - bk) / denom)[two]
            x[two, k1[two]] = ((akm1[:, None] * bk - bkm1) / denom)[two]
            k = np.where(active, k + np.where(two, 2, 1), k)
        k = np.full(count, n - 1, np.int64)
        while (k >= 0).any():  # L^T X = Y (L^H), backward
            active = k >= 0
            kc = np.maximum(k, 0)
            two = active & (pivots[b, kc] < 0) & (kc > 0)
            km1 = np.maximum(kc - 1, 0)
            below = (rows > kc[:, None]) & active[:, None]
            lower = np.where(below[..., None], x, 0)
            x[b, kc] -= np.where(
                active[:, None], np.einsum("bi,bim->bm", np.where(below, cj(ld[b, :, kc]), 0), lower), 0
            )
            x[b, km1] -= np.where(
                two[:, None], np.einsum("bi,bim->bm", np.where(below, cj(ld[b, :, km1]), 0), lower), 0
            )
            _swap_rows(x, kc, np.abs(pivots[b, kc]).astype(np.int64) - 1, active)
            k = np.where(active, k - np.where(two, 2, 1), k)
    return x


@kernel("linalg_ldl_solve")
def linalg_ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    op = "torch.linalg.ldl_solve"
    _square_checks(op, LD, "ldl_solve_kernel_cpu")
    ld, piv, rhs = LD._impl, pivots._impl, B._impl
    if piv.sizes != ld.sizes[:-1]:
        raise RuntimeError(
            f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape "
            f"{list(piv.sizes)} instead"
        )
    if piv.dtype.is_floating_point or piv.dtype.is_complex or piv.dtype is bool_:
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got {piv.dtype.scalar_type_name}")
    if rhs.dtype is not ld.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {rhs.dtype.scalar_type_name} "
            f"and A of type {ld.dtype.scalar_type_name} instead."
        )
    wrap_dim(-2, rhs.dim())
    n = ld.sizes[-1]
    if rhs.sizes[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix is "
            f"{rhs.sizes[-2]} by {rhs.sizes[-1]}"
        )
    batch = broadcast_shapes(rhs.sizes[:-2], ld.sizes[:-2])
    device = same_device("linalg.ldl_solve", (LD, pivots, B))
    out = new_tensor((*batch, *rhs.sizes[-2:]), ld.dtype, device)
    if is_meta(device) or out._impl.numel() == 0:
        return out
    flat = (-1, n)
    x = ldl_solve_arrays(
        np.broadcast_to(array(LD), (*batch, n, n)).reshape(-1, n, n),
        np.broadcast_to(array(pivots), (*batch, n)).reshape(flat),
        np.broadcast_to(array(B), out._impl.sizes).reshape(*flat, rhs.sizes[-1]),
        hermitian,
    )
    out._impl.numpy_view()[...] = x.reshape(out._impl.sizes)
    return out
