"""torch.linalg kernels: inverses, determinants, solves and decompositions on NumPy's LAPACK
(`np.linalg`, batched over leading dimensions), the vector and matrix norms, and the composite
operators PyTorch builds on them (linalg.inv over inv_ex, linalg.solve over solve_ex, svdvals over
_linalg_svd, matrix_norm, matrix_rank, multi_dot, matrix_power, vecdot, cross).

Checks come first, with PyTorch's texts and in its order: the dtype (floating point or complex),
at least two dimensions, square matrices.  Kernels serve CPU and Meta; on Meta only the checks and
the output shapes run.  A singular matrix (inverse, solve) or one that is not positive-definite
(cholesky) is reported as LAPACK does, in an int32 `info` per matrix: the 1-based position of the
first zero pivot of the LU factorization with partial pivoting, or the order of the first leading
minor that is not positive-definite.  The `_ex` operators return it; the others raise
`framework.linalg.LinAlgError` with PyTorch's message.  The values a failed factorization leaves
in its outputs are unspecified, as in PyTorch: here they are NaN.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor, warn_once
from framework.c10.dtypes import (
    bool_,
    complex64,
    complex128,
    dtype,
    float32,
    float64,
    int32,
    numpy_finfo,
)
from framework.ops._iter import Number, broadcast_shapes
from framework.ops.kernels._registry import (
    array,
    aten_op,
    forward_kernel,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    same_device,
    wrap_dim,
)

Array = npt.NDArray[Any]
Sizes = tuple[int, ...]


class _LinAlgError(RuntimeError):
    """A matrix for which a linear-algebra function is not defined: singular (inv, solve) or not
    positive-definite (cholesky).  `framework.linalg.LinAlgError`, a RuntimeError, as
    `torch.linalg.LinAlgError` (whose class is named `_LinAlgError` too)."""


LinAlgError: Final = _LinAlgError


# ---- checks -----------------------------------------------------------------------------------


def check_floating(op: str, t: Tensor) -> None:
    """`op` takes floating point or complex tensors."""
    d = t._impl.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {d.scalar_type_name}"
        )


def refuse_float16(op: str, t: Tensor, kernel: str | None = None) -> None:
    """LAPACK has no float16: refused as PyTorch's `kernel` ("not implemented for"), or with the
    generic text when None."""
    d = t._impl.dtype
    if d.is_reduced_float:
        if kernel is not None:
            raise not_implemented(kernel, d)
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {d.scalar_type_name}")


def check_matrix(op: str, t: Tensor) -> None:
    if t._impl.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")


def check_square(op: str, t: Tensor) -> None:
    check_matrix(op, t)
    rows, cols = t._impl.sizes[-2:]
    if rows != cols:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {rows} by {cols} matrices"
        )


def _square_input(op: str, t: Tensor, low_precision: str | None = None) -> None:
    check_floating(op, t)
    refuse_float16(op, t, low_precision)
    check_square(op, t)


def _batch_prefix(t: Tensor, info: Array) -> tuple[str, int] | None:
    """("(Batch element i): " or "", info) of the first failed matrix, None if none failed."""
    failed = np.flatnonzero(info.reshape(-1))
    if failed.size == 0:
        return None
    first = int(failed[0])
    prefix = f"(Batch element {first}): " if t._impl.dim() > 2 else ""
    return prefix, int(info.reshape(-1)[first])


def _raise_failed(A: Tensor, info: Tensor, message: Callable[[str, int], str]) -> None:
    """Raise LinAlgError(message(prefix, info)) for the first matrix of `A` whose `info` is nonzero
    (nothing to check on Meta)."""
    if is_meta(info._impl.device):
        return
    found = _batch_prefix(A, array(info))
    if found is not None:
        raise LinAlgError(message(*found))


def _raise_singular(op: str, A: Tensor, info: Tensor) -> None:
    _raise_failed(
        A,
        info,
        lambda prefix, k: f"{op}: {prefix}The diagonal element {k} is zero, the inversion could not be "
        "completed because the input matrix is singular.",
    )


def _raise_solve_singular(op: str, A: Tensor, info: Tensor) -> None:
    _raise_failed(
        A, info, lambda prefix, _: f"{op}: {prefix}The solver failed because the input matrix is singular."
    )


def _raise_not_positive_definite(op: str, A: Tensor, info: Tensor) -> None:
    _raise_failed(
        A,
        info,
        lambda prefix, k: f"{op}: {prefix}The factorization could not be completed because the input is "
        f"not positive-definite (the leading minor of order {k} is not positive-definite).",
    )


# ---- LAPACK's info ----------------------------------------------------------------------------


def lu_factor_arrays(a: Array) -> tuple[Array, Array, Array]:
    """LAPACK getrf on each matrix of `a` (..., m, n), all matrices at once with one pass per
    column: (LU, the 1-based int32 row interchanges (..., min(m, n)), info).  The pivot of a
    column is its first entry of largest |re| + |im| (LAPACK's i?amax); info is 0, or the 1-based
    index of the first zero pivot (the factorization then goes on, as LAPACK's does)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = a.reshape(-1, m, n).copy()
    rows = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], k), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    for j in range(k):
        column = lu[:, j:, j]
        p = j + np.argmax(np.abs(column.real) + np.abs(column.imag), axis=1)
        pivots[:, j] = p + 1
        lu[rows, j], lu[rows, p] = lu[rows, p], lu[rows, j].copy()
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        lu[:, j + 1 :, j] /= np.where(zero, 1, pivot)[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    batch = a.shape[:-2]
    return lu.reshape(a.shape), pivots.reshape((*batch, k)), info.reshape(batch)


def lu_info(a: Array) -> Array:
    """LAPACK getrf's info for each matrix of `a` (see lu_factor_arrays)."""
    return lu_factor_arrays(a)[2]


def _int32_info(t: Tensor, batch: Sizes) -> Tensor:
    return new_tensor(batch, int32, t._impl.device)


def _per_matrix(a: Array, compute: Any, info: Array) -> Array:
    """`compute` applied to the matrices whose info is 0, NaN for the others."""
    result = np.full(a.shape, np.nan, a.dtype)
    ok = info == 0
    if ok.any():
        result[ok] = compute(a[ok])
    return result


# ---- inverse ----------------------------------------------------------------------------------


@kernel("linalg_inv_ex")
def linalg_inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple[Tensor, Tensor]:
    _square_input("linalg.inv", A)
    impl = A._impl
    inverse = new_tensor(impl.sizes, impl.dtype, impl.device)
    info = _int32_info(A, impl.sizes[:-2])
    if is_meta(impl.device):
        return inverse, info
    a = array(A)
    try:
        inverse._impl.numpy_view()[...] = np.linalg.inv(a)
        info._impl.numpy_view()[...] = 0
    except np.linalg.LinAlgError:
        codes = lu_info(a)
        inverse._impl.numpy_view()[...] = _per_matrix(a, np.linalg.inv, codes)
        info._impl.numpy_view()[...] = codes
    if check_errors:
        _raise_singular("linalg.inv_ex", A, info)
    return inverse, info


@kernel("linalg_inv")
def linalg_inv(A: Tensor) -> Tensor:
    """CompositeImplicitAutograd: inv_ex, then its info checked."""
    _square_input("linalg.inv", A)
    inverse, info = aten_op("linalg_inv_ex.default")(A)
    _raise_singular("linalg.inv", A, info)
    result: Tensor = inverse
    return result


forward_kernel("inverse", "linalg_inv.default")


# ---- determinants -----------------------------------------------------------------------------


@kernel("linalg_det")
def linalg_det(A: Tensor) -> Tensor:
    _square_input("linalg.det", A, low_precision="lu_cpu")
    impl = A._impl
    result = new_tensor(impl.sizes[:-2], impl.dtype, impl.device)
    if not is_meta(impl.device):
        result._impl.numpy_view()[...] = np.linalg.det(array(A))
    return result


forward_kernel("det", "linalg_det.default")


@kernel("linalg_slogdet")
def linalg_slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    _square_input("linalg.slogdet", A)
    impl = A._impl
    sign = new_tensor(impl.sizes[:-2], impl.dtype, impl.device)
    logabsdet = new_tensor(impl.sizes[:-2], impl.dtype.to_real(), impl.device)
    if not is_meta(impl.device):
        s, log = np.linalg.slogdet(array(A))
        sign._impl.numpy_view()[...] = s
        logabsdet._impl.numpy_view()[...] = log
    return sign, logabsdet


@kernel("slogdet")
def slogdet(self: Tensor) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = aten_op("linalg_slogdet.default")(self)
    return result


@kernel("logdet")
def logdet(self: Tensor) -> Tensor:
    """log(det): slogdet's logabsdet, NaN where a real determinant is negative; complex:
    log(sign) + logabsdet."""
    _square_input("logdet", self)
    sign, logabsdet = aten_op("linalg_slogdet.default")(self)
    if self._impl.dtype.is_complex:
        result: Tensor = aten_op("add.Tensor")(aten_op("log.default")(sign), logabsdet)
        return result
    negative = aten_op("eq.Scalar")(sign, -1)
    nan = aten_op("scalar_tensor.default")(math.nan, dtype=logabsdet._impl.dtype)
    result = aten_op("where.self")(negative, nan, logabsdet)
    return result


# ---- solve ------------------------------------------------------------------------------------


def _solve_shapes(A: Tensor, B: Tensor, left: bool) -> tuple[bool, Sizes]:
    """(whether B is a (batch of) vector(s), the result's shape), checked as linalg.solve does."""
    a, b = A._impl, B._impl
    check_floating("linalg.solve", A)
    refuse_float16("linalg.solve", A, "lu_cpu")
    if a.dtype is not b.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{a.dtype.scalar_type_name} and B of type {b.dtype.scalar_type_name} instead"
        )
    check_square("linalg.solve", A)
    vector = b.dim() == 1 or (left and b.dim() == a.dim() - 1 and b.sizes == a.sizes[:-1])
    n = a.sizes[-1]
    matrix = (b.sizes[-1], 1) if vector else b.sizes[-2:] if b.dim() >= 2 else (b.sizes[0], 1)
    needed = matrix[0] if left else matrix[1]
    if needed != n or (not vector and b.dim() < 2):
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and "
            f"{matrix[0]}x{matrix[1]})"
        )
    batch = broadcast_shapes(a.sizes[:-2], b.sizes[:-1] if vector else b.sizes[:-2])
    return vector, batch + ((b.sizes[-1],) if vector else b.sizes[-2:])


@kernel("linalg_solve_ex")
def linalg_solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False
) -> tuple[Tensor, Tensor]:
    vector, sizes = _solve_shapes(A, B, left)
    device = same_device("linalg.solve", (A, B))
    impl = A._impl
    result = new_tensor(sizes, impl.dtype, device)
    batch = sizes[:-1] if vector else sizes[:-2]
    info = _int32_info(A, batch)
    if is_meta(device):
        return result, info
    n = impl.sizes[-1]
    a = np.broadcast_to(array(A), (*batch, n, n))
    b = array(B)[..., None] if vector else array(B)
    b = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    if not left:  # X A = B  <=>  A^T X^T = B^T
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    try:
        x = np.linalg.solve(a, b)
        codes = np.zeros(batch, np.int32)
    except np.linalg.LinAlgError:
        codes = lu_info(a)
        x = np.full(b.shape, np.nan, b.dtype)
        ok = codes == 0
        if ok.any():
            x[ok] = np.linalg.solve(a[ok], b[ok])
    if not left:
        x = np.swapaxes(x, -1, -2)
    result._impl.numpy_view()[...] = x[..., 0] if vector else x
    info._impl.numpy_view()[...] = codes
    if check_errors:
        _raise_solve_singular("torch.linalg.solve_ex", result, info)
    return result, info


@kernel("linalg_solve")
def linalg_solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """CompositeImplicitAutograd: solve_ex, then its info checked."""
    _solve_shapes(A, B, left)
    result, info = aten_op("linalg_solve_ex.default")(A, B, left=left)
    _raise_solve_singular("torch.linalg.solve", result, info)
    solution: Tensor = result
    return solution


# ---- cholesky ---------------------------------------------------------------------------------


def _cholesky_failed(a: Array) -> tuple[Array, int]:
    """What LAPACK's unblocked potrf leaves for a matrix that is not positive-definite: the
    columns before the failing order k factored, column k's diagonal the value that was not
    positive, the rest of the lower triangle as given; and k."""
    n = a.shape[-1]
    k = next(order for order in range(1, n + 1) if not _is_positive_definite(a[:order, :order]))
    out = np.tril(a)
    if k > 1:
        factor = np.linalg.cholesky(a[: k - 1, : k - 1])
        below = np.linalg.solve(factor, a[k - 1 :, : k - 1].conj().T).conj().T
        out[: k - 1, : k - 1] = factor
        out[k - 1 :, : k - 1] = below
        row = below[0]
        out[k - 1, k - 1] = a[k - 1, k - 1] - np.vdot(row, row)
    return out, k


def _is_positive_definite(a: Array) -> bool:
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        return False
    return True


@kernel("linalg_cholesky_ex")
def linalg_cholesky_ex(
    self: Tensor, *, upper: bool = False, check_errors: bool = False
) -> tuple[Tensor, Tensor]:
    _square_input("linalg.cholesky", self, low_precision="cholesky_cpu")
    impl = self._impl
    factor = new_tensor(impl.sizes, impl.dtype, impl.device)
    info = _int32_info(self, impl.sizes[:-2])
    if is_meta(impl.device):
        return factor, info
    a = array(self)
    try:
        lower = np.linalg.cholesky(a)
        codes = np.zeros(impl.sizes[:-2], np.int32)
    except np.linalg.LinAlgError:
        flat = a.reshape(-1, *a.shape[-2:])
        lower = np.empty_like(flat)
        codes = np.zeros(flat.shape[0], np.int32)
        for i, matrix in enumerate(flat):  # per failed matrix: which minor fails
            if _is_positive_definite(matrix):
                lower[i] = np.linalg.cholesky(matrix)
            else:
                lower[i], codes[i] = _cholesky_failed(matrix)
        lower, codes = lower.reshape(a.shape), codes.reshape(impl.sizes[:-2])
    factor._impl.numpy_view()[...] = np.swapaxes(lower, -1, -2).conj() if upper else lower
    info._impl.numpy_view()[...] = codes
    if check_errors:
        _raise_not_positive_definite("linalg.cholesky_ex", self, info)
    return factor, info


@kernel("linalg_cholesky")
def linalg_cholesky(self: Tensor, *, upper: bool = False) -> Tensor:
    _square_input("linalg.cholesky", self, low_precision="cholesky_cpu")
    factor, info = aten_op("linalg_cholesky_ex.default")(self, upper=upper)
    _raise_not_positive_definite("linalg.cholesky", self, info)
    result: Tensor = factor
    return result


@kernel("cholesky")
def cholesky(self: Tensor, upper: bool = False) -> Tensor:
    """Deprecated torch.cholesky: linalg.cholesky_ex (warned once per process, as PyTorch)."""
    warn_once(
        "cholesky",
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
        "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
        "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
        "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
    )
    check_square("cholesky", self)
    if self._impl.dtype not in _LAPACK_DTYPES:
        raise not_implemented("cholesky_cpu", self._impl.dtype)
    factor, info = aten_op("linalg_cholesky_ex.default")(self, upper=upper)
    _raise_not_positive_definite("cholesky", self, info)
    result: Tensor = factor
    return result


# ---- qr ---------------------------------------------------------------------------------------

_QR_MODES: Final = ("reduced", "complete", "r")


@kernel("linalg_qr")
def linalg_qr(A: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    check_floating("linalg.qr", A)
    refuse_float16("linalg.qr", A, "geqrf_cpu")
    check_matrix("linalg.qr", A)
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
            "'complete'"
        )
    impl = A._impl
    m, n = impl.sizes[-2:]
    k = m if mode == "complete" else min(m, n)
    q_sizes = (0,) if mode == "r" else (*impl.sizes[:-2], m, k)
    q = new_tensor(q_sizes, impl.dtype, impl.device)
    r = new_tensor((*impl.sizes[:-2], k, n), impl.dtype, impl.device)
    if is_meta(impl.device) or (impl.numel() == 0 and mode != "complete"):
        if not is_meta(impl.device):
            r._impl.numpy_view()[...] = 0
        return q, r
    if mode == "r":
        r._impl.numpy_view()[...] = np.linalg.qr(array(A), mode="r")
    else:
        qa, ra = np.linalg.qr(array(A), mode="complete" if mode == "complete" else "reduced")
        q._impl.numpy_view()[...] = qa
        r._impl.numpy_view()[...] = ra
    return q, r


# ---- svd --------------------------------------------------------------------------------------


def _check_driver(driver: str | None) -> None:
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
            "backend."
        )


@kernel("_linalg_svd")
def _linalg_svd(
    A: Tensor, full_matrices: bool = False, compute_uv: bool = True, *, driver: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    check_floating("linalg.svd", A)
    refuse_float16("linalg.svd", A, "linalg_svd_cpu")
    check_matrix("linalg.svd", A)
    _check_driver(driver)
    impl = A._impl
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    k = min(m, n)
    device = impl.device
    if compute_uv:
        u_cols, vh_rows = (m, n) if full_matrices else (k, k)
        u = new_tensor((*batch, m, u_cols), impl.dtype, device)
        vh = new_tensor((*batch, vh_rows, n), impl.dtype, device)
    else:
        u = new_tensor((0,), impl.dtype, device)
        vh = new_tensor((0,), impl.dtype, device)
    s = new_tensor((*batch, k), impl.dtype.to_real(), device)
    if is_meta(device):
        return u, s, vh
    a = array(A)
    if impl.numel() == 0:
        s._impl.numpy_view()[...] = 0
        if compute_uv:  # PyTorch gives identities for the factors of an empty matrix
            u._impl.numpy_view()[...] = np.eye(m, u._impl.sizes[-1], dtype=a.dtype)
            vh._impl.numpy_view()[...] = np.eye(vh._impl.sizes[-2], n, dtype=a.dtype)
        return u, s, vh
    if compute_uv:
        ua, sa, vha = np.linalg.svd(a, full_matrices=full_matrices)
        u._impl.numpy_view()[...] = ua
        vh._impl.numpy_view()[...] = vha
    else:
        sa = np.linalg.svd(a, compute_uv=False)
    s._impl.numpy_view()[...] = sa
    return u, s, vh


@kernel("linalg_svd")
def linalg_svd(
    A: Tensor, full_matrices: bool = True, *, driver: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    result: tuple[Tensor, Tensor, Tensor] = aten_op("_linalg_svd.default")(
        A, full_matrices, True, driver=driver
    )
    return result


@kernel("linalg_svdvals")
def linalg_svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values; U and Vh are computed only when A requires grad (the derivative
    needs them), as PyTorch does."""
    result: Tensor = aten_op("_linalg_svd.default")(A, False, A.requires_grad, driver=driver)[1]
    return result


# ---- eigh -------------------------------------------------------------------------------------


def _check_uplo(uplo: str) -> None:
    if uplo not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


@kernel("_linalg_eigh")
def _linalg_eigh(A: Tensor, UPLO: str = "L", compute_v: bool = True) -> tuple[Tensor, Tensor]:
    d = A._impl.dtype
    if not (d.is_floating_point or d.is_complex) or d.is_reduced_float:
        raise not_implemented("linalg_eigh_cpu", d)
    check_square("linalg.eigh", A)
    _check_uplo(UPLO)
    impl = A._impl
    values = new_tensor(impl.sizes[:-1], d.to_real(), impl.device)
    vectors = new_tensor(impl.sizes if compute_v else (0,), d, impl.device)
    if is_meta(impl.device) or impl.numel() == 0:
        return values, vectors
    triangle: Literal["L", "U"] = "U" if UPLO in ("U", "u") else "L"
    if compute_v:
        w, v = np.linalg.eigh(array(A), UPLO=triangle)
        vectors._impl.numpy_view()[...] = v
    else:
        w = np.linalg.eigvalsh(array(A), UPLO=triangle)
    values._impl.numpy_view()[...] = w
    return values, vectors


@kernel("linalg_eigh")
def linalg_eigh(self: Tensor, UPLO: str = "L") -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = aten_op("_linalg_eigh.default")(self, UPLO, True)
    return result


@kernel("linalg_eigvalsh")
def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:
    result: Tensor = aten_op("_linalg_eigh.default")(self, UPLO, self.requires_grad)[0]
    return result


# ---- norms ------------------------------------------------------------------------------------

_MATRIX_ORDERS: Final = (1, -1, 2, -2, math.inf, -math.inf)


def _matrix_norm_dims(self: Tensor, dim: Sequence[int]) -> tuple[int, int]:
    check_floating("linalg.matrix_norm", self)
    check_matrix("linalg.matrix_norm", self)
    dims = list(dim)
    if len(dims) != 2:
        shown = dims[0] if len(dims) == 1 else f"({', '.join(map(str, dims))})"
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    ndim = self._impl.dim()
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    return d0, d1


def _converted(self: Tensor, d: dtype | None) -> Tensor:
    if d is None or d is self._impl.dtype:
        return self
    result: Tensor = aten_op("to.dtype")(self, d)
    return result


def _keep(result: Tensor, dims: tuple[int, int], keepdim: bool) -> Tensor:
    """Re-insert the two reduced dimensions (size 1) when keepdim."""
    if keepdim:
        for d in sorted(dims):
            result = aten_op("unsqueeze.default")(result, d)
    return result


def _singular_value_norm(self: Tensor, order: float | str, dims: tuple[int, int], keepdim: bool) -> Tensor:
    """The 2, -2 and nuclear norms: from the singular values of the matrices moved last."""
    moved = aten_op("movedim.intlist")(self, list(dims), [-2, -1])
    values = aten_op("linalg_svdvals.default")(moved)
    if order == "nuc":
        result = aten_op("sum.dim_IntList")(values, [-1])
    elif order == 2:
        result = aten_op("amax.default")(values, [-1])
    else:
        result = aten_op("amin.default")(values, [-1])
    return _keep(result, dims, keepdim)


def _matrix_norm(
    self: Tensor, order: float | str, dim: Sequence[int], keepdim: bool, d: dtype | None
) -> Tensor:
    dims = _matrix_norm_dims(self, dim)
    if order not in ("fro", "nuc") and order not in _MATRIX_ORDERS:
        shown = order if isinstance(order, str) else f"{order:g}"
        raise RuntimeError(f"linalg.matrix_norm: Order {shown} not supported.")
    x = _converted(self, d)
    if order == "fro":
        result: Tensor = aten_op("linalg_vector_norm.default")(x, 2, list(dims), keepdim)
        return result
    if order in ("nuc", 2, -2):
        refuse_float16("linalg.matrix_norm", x)
        return _singular_value_norm(x, order, dims, keepdim)
    assert isinstance(order, float | int)
    # 1 and -1: the max/min of the columns' 1-norms; inf and -inf: of the rows'.
    summed, reduced = (dims[0], dims[1]) if abs(order) == 1 else (dims[1], dims[0])
    if not keepdim and summed < reduced:
        reduced -= 1
    sums = aten_op("linalg_vector_norm.default")(x, 1, [summed], keepdim)
    pick = aten_op("amax.default") if order > 0 else aten_op("amin.default")
    extreme: Tensor = pick(sums, [reduced], keepdim)
    return extreme


@kernel("linalg_matrix_norm")
def linalg_matrix_norm(
    self: Tensor,
    ord: Number,
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    order = ord.real if isinstance(ord, complex) else float(ord)
    return _matrix_norm(self, order, dim, keepdim, dtype)


@kernel("linalg_matrix_norm_str_ord")
def linalg_matrix_norm_str_ord(
    self: Tensor,
    ord: str = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    return _matrix_norm(self, ord, dim, keepdim, dtype)


def _norm_dims(self: Tensor, dim: int | Sequence[int] | None) -> list[int] | None:
    if dim is None:
        return None
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    return dims


@kernel("linalg_norm")
def linalg_norm(
    self: Tensor,
    ord: Number | None = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    """A vector norm over one dimension (or every dimension when neither ord nor dim is given,
    or the input is 1-D), a matrix norm over two."""
    dims = _norm_dims(self, dim)
    ndim = self._impl.dim()
    if ord is not None and dims is None and ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {ndim}D."
        )
    if ord is None or (dims is not None and len(dims) == 1) or (dims is None and ndim == 1):
        result: Tensor = aten_op("linalg_vector_norm.default")(
            self, 2 if ord is None else ord, dims, keepdim, dtype=dtype
        )
        return result
    return linalg_matrix_norm(self, ord, dims or (-2, -1), keepdim, dtype=dtype)


@kernel("linalg_norm_ord_str")
def linalg_norm_ord_str(
    self: Tensor,
    ord: str,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    dims = _norm_dims(self, dim)
    if dims is None and self._impl.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{self._impl.dim()}D."
        )
    return _matrix_norm(self, ord, dims or (-2, -1), keepdim, dtype)


_LAPACK_DTYPES: Final = (float32, float64, complex64, complex128)


def _check_epsilon_dtype(t: Tensor) -> None:
    """The default tolerances need the dtype's epsilon: float, double and their complex types."""
    if t._impl.dtype not in _LAPACK_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")


# ---- rank, vecdot, cross ------------------------------------------------------------------------


@kernel("linalg_matrix_rank_atol_rtol_float")
def linalg_matrix_rank_atol_rtol_float(
    self: Tensor, *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False
) -> Tensor:
    """The number of singular values (absolute eigenvalues when hermitian) above
    max(atol, rtol * the largest); rtol defaults to eps(dtype) * max(rows, cols) when atol is
    not given (or is 0), else to 0."""
    if self._impl.dim() < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    _check_epsilon_dtype(self)
    if hermitian:
        values = aten_op("abs.default")(aten_op("linalg_eigvalsh.default")(self))
    else:
        values = aten_op("linalg_svdvals.default")(self)
    rows, cols = self._impl.sizes[-2:]
    if rtol is None:
        rtol = (
            0.0
            if atol is not None and atol > 0
            else float(numpy_finfo(values._impl.dtype.numpy_dtype).eps) * max(rows, cols)
        )
    largest = aten_op("amax.default")(values, [-1], True) if values._impl.numel() else values
    threshold = aten_op("clamp_min.default")(
        aten_op("mul.Scalar")(largest, rtol), 0.0 if atol is None else atol
    )
    result: Tensor = aten_op("sum.dim_IntList")(aten_op("gt.Tensor")(values, threshold), [-1])
    return result


@kernel("linalg_vecdot")
def linalg_vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """sum(conj(x) * y) over `dim`."""
    dx, dy = x._impl.dtype, y._impl.dtype
    check_floating("linalg.vecdot", x)
    if dx is not dy:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{dx.scalar_type_name} and y of type {dy.scalar_type_name} instead"
        )
    if dx.is_complex:
        x = conj(x)
    result: Tensor = aten_op("sum.dim_IntList")(aten_op("mul.Tensor")(x, y), [dim])
    return result


def conj(t: Tensor) -> Tensor:
    """The complex conjugate of a complex tensor, as a new tensor (conj_physical: differentiable,
    and right for a conjugate view too)."""
    result: Tensor = aten_op("conj_physical.default")(t)
    return result


def _cross_meta(self: Tensor, other: Tensor, dim: int) -> tuple[Sizes, int]:
    a, b = self._impl, other._impl
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    sizes = broadcast_shapes(a.sizes, b.sizes)
    d = wrap_dim(dim, len(sizes))
    if a.sizes[d] != 3 or b.sizes[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.sizes[d]} and {b.sizes[d]}"
        )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected scalar type {a.dtype.scalar_type_name} but found {b.dtype.scalar_type_name}"
        )
    if a.dtype is bool_:
        raise not_implemented("cross", a.dtype)
    return sizes, d


@kernel("linalg_cross")
def linalg_cross(self: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    sizes, d = _cross_meta(self, other, dim)
    device = same_device("linalg.cross", (self, other))
    result = new_tensor(sizes, self._impl.dtype, device)
    if not is_meta(device):
        result._impl.numpy_view()[...] = np.cross(array(self), array(other), axis=d)
    return result


@kernel("cross")
def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """linalg.cross along `dim`; without it (deprecated, warns), along the first dimension of
    size 3 of the broadcast inputs."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
            "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
            "with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=4,
        )
        sizes = broadcast_shapes(self._impl.sizes, other._impl.sizes)
        dim = next((i for i, s in enumerate(sizes) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    result: Tensor = aten_op("linalg_cross.default")(self, other, dim=dim)
    return result


# ---- multi_dot, chain_matmul, matrix_power ---------------------------------------------------


def _check_multi_dot(tensors: Sequence[Tensor]) -> None:
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        ndim = t._impl.dim()
        if i == 0 and ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {ndim}D")
        if i == n - 1 and i and ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {ndim}D")
        if 0 < i < n - 1 and ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ndim}D")
    first = tensors[0]._impl.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._impl.dtype is not first:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {first.name} and "
                f"tensor {i} {t._impl.dtype.name}"
            )


def _chain_order(shapes: Sequence[Sizes]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i..j splits (dynamic programming over
    multiplication counts)."""
    n = len(shapes)
    dims = [shapes[0][0], *(s[1] for s in shapes)]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf  # type: ignore[call-overload]
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


@kernel("linalg_multi_dot")
def linalg_multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of the matrices in the cheapest order; a 1-D first (last) tensor is a row
    (column) vector, dropped from the result's shape."""
    _check_multi_dot(tensors)
    mats = list(tensors)
    first_vector, last_vector = mats[0]._impl.dim() == 1, mats[-1]._impl.dim() == 1
    if first_vector:
        mats[0] = aten_op("unsqueeze.default")(mats[0], 0)
    if last_vector:
        mats[-1] = aten_op("unsqueeze.default")(mats[-1], -1)
    for i in range(len(mats) - 1):
        left, right = mats[i]._impl.sizes, mats[i + 1]._impl.sizes
        if left[1] != right[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i]._impl.sizes)} and "
                f"{list(tensors[i + 1]._impl.sizes)} cannot be multiplied"
            )
    split = _chain_order([m._impl.sizes for m in mats])
    mm = aten_op("mm.default")

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        result: Tensor = mm(product(i, k), product(k + 1, j))
        return result

    result = product(0, len(mats) - 1)
    rows, cols = result._impl.sizes
    shape = ([] if first_vector else [rows]) + ([] if last_vector else [cols])
    out: Tensor = aten_op("view.default")(result, shape)
    return out


@kernel("chain_matmul")
def chain_matmul(matrices: Sequence[Tensor]) -> Tensor:
    """Deprecated: linalg.multi_dot of 2-D tensors (one tensor: a copy of it)."""
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
        "parameters.",
        UserWarning,
        stacklevel=4,
    )
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t._impl.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t._impl.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        result: Tensor = aten_op("clone.default")(matrices[0])
        return result
    return linalg_multi_dot(matrices)


@kernel("linalg_matrix_power")
def linalg_matrix_power(self: Tensor, n: int) -> Tensor:
    """A^n by repeated squaring (matmul); n = 0 gives identities, n < 0 powers of the inverse."""
    check_square("linalg.matrix_power", self)
    if n == 0:
        eye = aten_op("eye.default")(self._impl.sizes[-1], dtype=self._impl.dtype, device=self._impl.device)
        result: Tensor = aten_op("clone.default")(aten_op("expand_as.default")(eye, self))
        return result
    base = aten_op("linalg_inv.default")(self) if n < 0 else self
    n = abs(n)
    if n == 1:
        return base if base is not self else aten_op("clone.default")(self)
    matmul = aten_op("matmul.default")
    power: Tensor | None = None
    while n:
        if n & 1:
            power = base if power is None else matmul(power, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    assert power is not None
    return power


forward_kernel("matrix_power", "linalg_matrix_power.default")


# ---- pinv -------------------------------------------------------------------------------------


def _tolerance(t: Tensor | None, batch: Sizes) -> Array | None:
    """A tolerance tensor as an array broadcast against the batch (one value per matrix)."""
    return None if t is None else np.broadcast_to(array(t), batch)[..., None]


@kernel("linalg_pinv_atol_rtol_tensor")
def linalg_pinv_atol_rtol_tensor(
    self: Tensor, *, atol: Tensor | None = None, rtol: Tensor | None = None, hermitian: bool = False
) -> Tensor:
    """The pseudo-inverse from the SVD (the eigendecomposition when hermitian): singular values
    above max(atol, rtol * the largest) are inverted, the others dropped; rtol defaults to
    eps(dtype) * max(rows, cols) when atol is not given (or is 0), else to 0."""
    impl = self._impl
    if impl.dim() < 2 or impl.dtype not in _LAPACK_DTYPES:
        raise RuntimeError(
            f"linalg.pinv({impl.dtype.scalar_type_name}{{{list(impl.sizes)}}}): expected a tensor with 2 or "
            "more dimensions of float, double, cfloat or cdouble types"
        )
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    out = new_tensor((*batch, n, m), impl.dtype, impl.device)
    if is_meta(impl.device):
        return out
    a = array(self)
    if impl.numel() == 0:
        out._impl.numpy_view()[...] = 0
        return out
    if hermitian:
        values, vectors = np.linalg.eigh(a)
        magnitude = np.abs(values)
    else:
        u, values, vh = np.linalg.svd(a, full_matrices=False)
        magnitude = values
    absolute = _tolerance(atol, batch)
    relative = _tolerance(rtol, batch)
    if relative is None:
        eps = float(numpy_finfo(magnitude.dtype).eps) * max(m, n)
        relative = np.where(absolute > 0, 0.0, eps) if absolute is not None else np.full((*batch, 1), eps)
    largest = magnitude.max(-1, keepdims=True) if magnitude.shape[-1] else magnitude
    threshold = relative * largest
    if absolute is not None:
        threshold = np.maximum(threshold, absolute)
    keep = magnitude > threshold
    inverted = np.where(keep, 1 / np.where(keep, values, 1), 0).astype(values.dtype)
    if hermitian:
        result = (vectors * inverted[..., None, :]) @ np.swapaxes(vectors, -1, -2).conj()
    else:
        result = np.swapaxes(vh, -1, -2).conj() @ (inverted[..., :, None] * np.swapaxes(u, -1, -2).conj())
    out._impl.numpy_view()[...] = result
    return out


def _scalar_tolerance(value: float | None, like: Tensor) -> Tensor | None:
    if value is None:
        return None
    result: Tensor = aten_op("scalar_tensor.default")(value, dtype=like._impl.dtype.to_real())
    return result


@kernel("linalg_pinv_atol_rtol_float")
def linalg_pinv_atol_rtol_float(
    self: Tensor, *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False
) -> Tensor:
    _check_epsilon_dtype(self)
    result: Tensor = aten_op("linalg_pinv.atol_rtol_tensor")(
        self, atol=_scalar_tolerance(atol, self), rtol=_scalar_tolerance(rtol, self), hermitian=hermitian
    )
    return result


@kernel("linalg_pinv")
def linalg_pinv(self: Tensor, rcond: float, hermitian: bool = False) -> Tensor:
    """The deprecated rcond form: rcond is rtol, atol 0."""
    result: Tensor = aten_op("linalg_pinv.atol_rtol_tensor")(
        self, atol=_scalar_tolerance(0.0, self), rtol=_scalar_tolerance(rcond, self), hermitian=hermitian
    )
    return result
