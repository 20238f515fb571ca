"""More torch.linalg kernels: the LU family (linalg.lu_factor(_ex), linalg.lu, lu_unpack,
linalg.lu_solve, the deprecated lu_solve and torch.lu's _lu_with_info), triangular solves
(linalg.solve_triangular, the deprecated triangular_solve), cholesky_solve and cholesky_inverse,
linalg.matrix_exp, linalg.eig and eigvals, linalg.lstsq, linalg.householder_product (and orgqr, geqrf),
vdot; and the composite operators PyTorch builds on other operators: linalg.cond, tensorinv,
tensorsolve, vander, linalg.matmul, linalg.diagonal, the old torch.qr and torch.svd, pinverse,
inner, nuclear_norm and frobenius_norm.

NumPy is the engine.  The LU factorization with partial pivoting is `lu_factor_arrays`
(linalg_decomp.py: one vectorised pass per column over the whole batch); triangular systems are
solved by substitution, one vectorised step per row, so that a zero on the diagonal gives the
infinities and NaNs LAPACK's trsm gives instead of an error.  The least-squares solutions come
from the SVD for every driver (gelsy, gelsd and gelss give the minimum-norm solution, gels assumes
full rank, where the solution is the same; the rank is the number of singular values above rcond
times the largest); which of residuals, rank and singular_values are filled follows the driver,
as PyTorch's CPU kernel does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, int32, int64, numpy_finfo, promote_types
from framework.c10.tensor_impl import TensorImpl
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
)
from framework.ops.kernels.linalg import _check_dot, _refuse_bool
from framework.ops.kernels.linalg_decomp import (
    _LAPACK_DTYPES,
    _raise_failed,
    _raise_singular,
    check_floating,
    check_matrix,
    check_square,
    conj,
    lu_factor_arrays,
)

Array = npt.NDArray[Any]
Sizes = tuple[int, ...]


# ---- helpers ----------------------------------------------------------------------------------


def _lapack_dtype(kernel_name: str, t: Tensor) -> None:
    """LAPACK serves float, double and their complex types: others refused as PyTorch's
    `kernel_name` ("not implemented for")."""
    d = t._impl.dtype
    if not (d.is_floating_point or d.is_complex) or d.is_reduced_float:
        raise not_implemented(kernel_name, d)


def _mH(a: Array) -> Array:
    return np.swapaxes(a, -1, -2).conj()


def substitute(t: Array, b: Array, upper: bool, unit: bool = False) -> Array:
    """The solution of T X = B for triangular T (..., n, n) and B (..., n, k) with the same batch
    shape: back (upper) or forward (lower) substitution, one vectorised step per row; `unit`
    takes T's diagonal as ones.  A zero on the diagonal gives inf/NaN, as LAPACK's trsm."""
    n = t.shape[-1]
    x = np.zeros(b.shape, np.result_type(t, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in reversed(range(n)) if upper else range(n):
            done = slice(i + 1, n) if upper else slice(0, i)
            row = b[..., i, :] - (t[..., i, None, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = row if unit else row / t[..., i, i, None]
    return x


def _broadcast_pair(a: Array, b: Array) -> tuple[Array, Array]:
    """`a` (..., n, n) and `b` (..., n, k) broadcast to one batch shape."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.broadcast_to(a, (*batch, *a.shape[-2:])), np.broadcast_to(b, (*batch, *b.shape[-2:]))


def _warn_deprecated(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=4)


# ---- LU ---------------------------------------------------------------------------------------


def _lu_checks(A: Tensor, pivot: bool) -> None:
    _lapack_dtype("lu_cpu", A)
    if A._impl.dim() < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A._impl.sizes)} "
            "instead"
        )
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _raise_lu_singular(op: str, A: Tensor, info: Tensor) -> None:
    _raise_failed(
        A,
        info,
        lambda prefix, k: f"{op}: {prefix}U[{k},{k}] is zero and using it on lu_solve would result in a "
        "division by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
    )


@kernel("linalg_lu_factor_ex")
def linalg_lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    _lu_checks(A, pivot)
    impl = A._impl
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    lu = new_tensor(impl.sizes, impl.dtype, impl.device)
    pivots = new_tensor((*batch, min(m, n)), int32, impl.device)
    info = new_tensor(batch, int32, impl.device)
    if is_meta(impl.device):
        return lu, pivots, info
    factors = lu_factor_arrays(array(A))
    for out, value in zip((lu, pivots, info), factors, strict=True):
        out._impl.numpy_view()[...] = value
    if check_errors:
        _raise_lu_singular("torch.linalg.lu_factor_ex", A, info)
    return lu, pivots, info


@kernel("linalg_lu_factor")
def linalg_lu_factor(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor]:
    """CompositeImplicitAutograd: lu_factor_ex, then its info checked."""
    _lu_checks(A, pivot)
    lu, pivots, info = aten_op("linalg_lu_factor_ex.default")(A, pivot=pivot)
    _raise_lu_singular("torch.linalg.lu_factor", A, info)
    return lu, pivots


@kernel("_lu_with_info")
def _lu_with_info(
    self: Tensor, pivot: bool = True, check_errors: bool = True
) -> tuple[Tensor, Tensor, Tensor]:
    """Deprecated torch.lu's operator: lu_factor_ex, its info not checked (check_errors is
    ignored, as in PyTorch)."""
    _warn_deprecated(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
        "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
        "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
        "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
        "torch.linalg.lu_factor_ex(A, compute_pivots)"
    )
    result: tuple[Tensor, Tensor, Tensor] = aten_op("linalg_lu_factor_ex.default")(self, pivot=pivot)
    return result


def _triangles(lu: Array) -> tuple[Array, Array]:
    """L (unit lower, (..., m, k)) and U (upper, (..., k, n)) packed in an LU factorization."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return lower, np.triu(lu[..., :k, :])


def _permutation(pivots: Array, m: int) -> Array:
    """perm (..., m): row j of P^T A is row perm[j] of A, for LAPACK's 1-based interchanges."""
    flat = pivots.reshape(-1, pivots.shape[-1]) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        perm[rows, j], perm[rows, p] = perm[rows, p], perm[rows, j].copy()
    return perm.reshape((*pivots.shape[:-1], m))


def _permutation_matrix(pivots: Array, m: int, d: Any) -> Array:
    """P with A = P L U: P[perm[j], j] = 1."""
    perm = _permutation(pivots, m)
    p = np.zeros((*perm.shape, m), d)
    np.put_along_axis(p, perm[..., :, None], 1, axis=-1)
    return np.swapaxes(p, -1, -2)


@kernel("linalg_lu")
def linalg_lu(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    _lu_checks(A, pivot)
    impl = A._impl
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    k = min(m, n)
    p = new_tensor((*batch, m, m), impl.dtype, impl.device)
    lower = new_tensor((*batch, m, k), impl.dtype, impl.device)
    upper = new_tensor((*batch, k, n), impl.dtype, impl.device)
    if is_meta(impl.device):
        return p, lower, upper
    lu, pivots, _ = lu_factor_arrays(array(A))
    lower._impl.numpy_view()[...], upper._impl.numpy_view()[...] = _triangles(lu)
    p._impl.numpy_view()[...] = _permutation_matrix(pivots, m, lu.dtype)
    return p, lower, upper


def _check_pivots_dtype(op: str, pivots: Tensor) -> None:
    if pivots._impl.dtype is not int32:
        raise RuntimeError(
            f"{op}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\nNote: this "
            "function is intended to be used with the output produced by torch.linalg.lu_factor"
        )


def _check_pivot_range(pivots: Array, m: int) -> None:
    if pivots.size and (pivots.min() < 1 or pivots.max() > m):
        raise RuntimeError(
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass "
            "the result of lu_factor?"
        )


@kernel("lu_unpack")
def lu_unpack(
    LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True
) -> tuple[Tensor, Tensor, Tensor]:
    """P, L and U of an LU factorization (an output not asked for is an empty tensor)."""
    impl = LU_data._impl
    if impl.dim() < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(impl.sizes)} instead"
        )
    _check_pivots_dtype("torch.lu_unpack", LU_pivots)
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    k = min(m, n)
    device = impl.device
    p = new_tensor((*batch, m, m) if unpack_pivots else (0,), impl.dtype, device)
    lower = new_tensor((*batch, m, k) if unpack_data else (0,), impl.dtype, device)
    upper = new_tensor((*batch, k, n) if unpack_data else (0,), impl.dtype, device)
    if is_meta(device):
        return p, lower, upper
    if unpack_data:
        lower._impl.numpy_view()[...], upper._impl.numpy_view()[...] = _triangles(array(LU_data))
    if unpack_pivots:
        pivots = np.broadcast_to(array(LU_pivots), (*batch, k))
        _check_pivot_range(pivots, m)
        p._impl.numpy_view()[...] = _permutation_matrix(pivots, m, impl.dtype.numpy_dtype)
    return p, lower, upper


def _check_equation_shapes(op: str, n: int, B: Tensor, left: bool) -> None:
    """PyTorch's check that the matrices B fit n x n matrices A in AX = B (`left`) or XA = B."""
    rows, cols = B._impl.sizes[-2:]
    if (rows if left else cols) != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and {rows}x{cols})"
        )


def _lu_solve_checks(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:
    op = "linalg.lu_solve"
    lu, b = LU._impl, B._impl
    check_floating(f"torch.{op}", LU)
    if lu.dtype.is_reduced_float:
        raise not_implemented("linalg.lu_solve_cpu", lu.dtype)
    if lu.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor LU must have at least 2 dimensions.")
    if b.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    check_square(f"torch.{op}", LU)
    n = lu.sizes[-1]
    _check_equation_shapes(op, n, B, left)
    if pivots._impl.dtype is not int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if lu.dtype is not b.dtype:
        raise RuntimeError(
            f"{op}: Expected LU and B to have the same dtype, but found LU of type "
            f"{lu.dtype.scalar_type_name} "
            f"and B of type {b.dtype.scalar_type_name} instead"
        )
    if pivots._impl.dim() == 0 or pivots._impl.sizes[-1] != n:
        raise RuntimeError(f"{op}: Number of pivots per batch should be same as the dimension of the matrix")


def _lu_solve_arrays(lu: Array, pivots: Array, b: Array, adjoint: bool) -> Array:
    """X with A X = B (A^H X = B when adjoint) for A = P L U packed in `lu`."""
    n = lu.shape[-1]
    lu, b = _broadcast_pair(lu, b)
    perm = np.broadcast_to(_permutation(pivots, n), (*b.shape[:-2], n))
    lower, upper = _triangles(lu)
    if adjoint:  # U^H L^H P^T X = B
        y = substitute(_mH(lower), substitute(_mH(upper), b, upper=False), upper=True, unit=True)
        return np.take_along_axis(y, np.argsort(perm, axis=-1)[..., :, None], axis=-2)
    permuted = np.take_along_axis(b, perm[..., :, None], axis=-2)
    return substitute(upper, substitute(lower, permuted, upper=False, unit=True), upper=True)


@kernel("linalg_lu_solve")
def linalg_lu_solve(
    LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False
) -> Tensor:
    """X with op(A) X = B (left) or X op(A) = B, op(A) = A^H when adjoint, A = P L U."""
    _lu_solve_checks(LU, pivots, B, left)
    lu, b = LU._impl, B._impl
    device = same_device("linalg.lu_solve", (LU, pivots, B))
    batch = broadcast_shapes(lu.sizes[:-2], b.sizes[:-2])
    out = new_tensor((*batch, *b.sizes[-2:]), lu.dtype, device)
    if is_meta(device):
        return out
    rhs = array(B) if left else _mH(array(B))  # X A = B  <=>  A^H X^H = B^H
    x = _lu_solve_arrays(array(LU), array(pivots), rhs, adjoint if left else not adjoint)
    out._impl.numpy_view()[...] = x if left else _mH(x)
    return out


@kernel("lu_solve")
def lu_solve(self: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """Deprecated: linalg.lu_solve(LU_data, LU_pivots, self)."""
    _warn_deprecated(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
        "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
        "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)"
    )
    result: Tensor = aten_op("linalg_lu_solve.default")(LU_data, LU_pivots, self)
    return result


# ---- triangular solves ------------------------------------------------------------------------


@kernel("linalg_solve_triangular")
def linalg_solve_triangular(
    self: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    """X with A X = B (left) or X A = B for a triangular A (`self`), batches broadcast; the
    result's dtype is A's and B's promoted."""
    op = "linalg.solve_triangular"
    a, b = self._impl, B._impl
    result_dtype = promote_types(a.dtype, b.dtype)
    if not (result_dtype.is_floating_point or result_dtype.is_complex) or result_dtype.is_reduced_float:
        raise not_implemented("triangular_solve_cpu", result_dtype)
    if b.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    check_square(op, self)
    _check_equation_shapes(op, a.sizes[-1], B, left)
    device = same_device(op, (self, B))
    out = new_tensor((*broadcast_shapes(a.sizes[:-2], b.sizes[:-2]), *b.sizes[-2:]), result_dtype, device)
    if is_meta(device):
        return out
    t, rhs = array(self).astype(result_dtype.numpy_dtype), array(B).astype(result_dtype.numpy_dtype)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        t, rhs, upper = np.swapaxes(t, -1, -2), np.swapaxes(rhs, -1, -2), not upper
    x = substitute(*_broadcast_pair(t, rhs), upper=upper, unit=unitriangular)
    out._impl.numpy_view()[...] = x if left else np.swapaxes(x, -1, -2)
    return out


@kernel("triangular_solve")
def triangular_solve(
    self: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False
) -> tuple[Tensor, Tensor]:
    """Deprecated: (X with op(A) X = b, op(A) = A^T when transpose, and a copy of A broadcast to
    the batch)."""
    b, a = self._impl, A._impl
    for name, given in (("b", b), ("A", a)):
        if given.dim() < 2:
            raise RuntimeError(
                f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it has "
                f"{given.dim()} dimensions instead"
            )
    _linear_solve_checks("triangular_solve", self, A)
    _warn_deprecated(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
        "in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does "
        "not return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be "
        "replaced with\nX = torch.linalg.solve_triangular(A, B)."
    )
    device = same_device("triangular_solve", (self, A))
    batch = broadcast_shapes(b.sizes[:-2], a.sizes[:-2])
    solution = new_tensor((*batch, *b.sizes[-2:]), b.dtype, device)
    coefficient = new_tensor((*batch, *a.sizes[-2:]), a.dtype, device)
    if is_meta(device):
        return solution, coefficient
    t, rhs = _broadcast_pair(array(A), array(self))
    coefficient._impl.numpy_view()[...] = t
    if transpose:
        t, upper = np.swapaxes(t, -1, -2), not upper
    solution._impl.numpy_view()[...] = substitute(t, rhs, upper=upper, unit=unitriangular)
    return solution, coefficient


def _linear_solve_checks(name: str, b: Tensor, A: Tensor) -> None:
    """PyTorch's checks of the right-hand sides `b` and the matrices `A` of a solve (with its CPU
    kernel's dtype check once the dtypes agree): one dtype, square `A`, `A`'s columns matching
    `b`'s rows."""
    bi, ai = b._impl, A._impl
    if bi.dtype is not ai.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {bi.dtype.scalar_type_name} and A "
            f"of type {ai.dtype.scalar_type_name} instead."
        )
    _lapack_dtype(f"{name}_cpu", A)
    check_square_plain(A)
    if ai.sizes[-1] != bi.sizes[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {ai.sizes[-2]} by {ai.sizes[-1]} but "
            f"each b matrix is {bi.sizes[-2]} by {bi.sizes[-1]}"
        )


def check_square_plain(A: Tensor) -> None:
    """A batch of square matrices, with PyTorch's text without an operator prefix."""
    rows, cols = A._impl.sizes[-2:]
    if rows != cols:
        raise RuntimeError(f"A must be batches of square matrices, but they are {rows} by {cols} matrices")


# ---- cholesky_solve, cholesky_inverse -----------------------------------------------------------


@kernel("cholesky_solve")
def cholesky_solve(self: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """X with A X = B for A = L L^H (U^H U when upper), given B (`self`) and the factor
    (`input2`); batches broadcast."""
    b, f = self._impl, input2._impl
    if b.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.dim()} dimensions instead")
    if f.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {f.dim()} dimensions instead")
    _linear_solve_checks("cholesky_solve", self, input2)
    device = same_device("cholesky_solve", (self, input2))
    out = new_tensor((*broadcast_shapes(b.sizes[:-2], f.sizes[:-2]), *b.sizes[-2:]), b.dtype, device)
    if is_meta(device):
        return out
    factor, rhs = _broadcast_pair(array(input2), array(self))
    lower = _mH(factor) if upper else factor
    out._impl.numpy_view()[...] = substitute(_mH(lower), substitute(lower, rhs, upper=False), upper=True)
    return out


@kernel("cholesky_inverse")
def cholesky_inverse(self: Tensor, upper: bool = False) -> Tensor:
    """(L L^H)^{-1} for the lower factor L (U^H U with the upper factor U when upper)."""
    op = "cholesky_inverse"
    check_matrix(op, self)
    check_square(op, self)
    _lapack_dtype("cholesky_inverse_out_cpu", self)
    impl = self._impl
    out = new_tensor(impl.sizes, impl.dtype, impl.device)
    info = new_tensor(impl.sizes[:-2], int32, impl.device)
    if is_meta(impl.device):
        return out
    factor = array(self)
    zero = np.diagonal(factor, 0, -2, -1) == 0
    info._impl.numpy_view()[...] = np.where(zero.any(-1), zero.argmax(-1) + 1, 0)
    _raise_singular(op, self, info)
    lower = _mH(factor) if upper else factor
    n = impl.sizes[-1]
    inverse_lower = substitute(
        lower, np.broadcast_to(np.eye(n, dtype=factor.dtype), factor.shape), upper=False
    )
    out._impl.numpy_view()[...] = _mH(inverse_lower) @ inverse_lower
    return out


# ---- matrix_exp -------------------------------------------------------------------------------

_PADE13: Final = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13: Final = 5.371920351148152


def matrix_exp_array(a: Array) -> Array:
    """exp of each matrix of `a` (..., n, n): the degree 13 Padé approximant with scaling and
    squaring (Higham 2005), each matrix scaled by its own power of two."""
    n = a.shape[-1]
    norm = np.abs(a).sum(-2).max(-1) if a.size else np.zeros(a.shape[:-2])
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.ceil(np.log2(norm / _THETA13))
    squarings = np.where(np.isfinite(exponent) & (exponent > 0), exponent, 0).astype(np.int64)
    scaled = a / (2.0**squarings)[..., None, None]
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    b = _PADE13
    a2 = scaled @ scaled
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = scaled @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    result = np.linalg.solve(v - u, v + u) if a.size else eye.copy()
    for step in range(int(squarings.max(initial=0))):
        result = np.where((squarings > step)[..., None, None], result @ result, result)
    return result.astype(a.dtype)


@kernel("linalg_matrix_exp")
def linalg_matrix_exp(self: Tensor) -> Tensor:
    op = "linalg.matrix_exp"
    check_floating(op, self)
    check_matrix(op, self)
    check_square(op, self)
    impl = self._impl
    out = new_tensor(impl.sizes, impl.dtype, impl.device)
    if not is_meta(impl.device):
        a = array(self)
        low = impl.dtype.is_reduced_float
        value = matrix_exp_array(a.astype(np.float32) if low else a)
        out._impl.numpy_view()[...] = value.astype(a.dtype) if low else value
    return out


forward_kernel("matrix_exp", "linalg_matrix_exp.default")


# ---- eig --------------------------------------------------------------------------------------


@kernel("linalg_eig")
def linalg_eig(self: Tensor) -> tuple[Tensor, Tensor]:
    """The eigenvalues and unit-norm eigenvectors (LAPACK geev's), complex for every input."""
    op = "linalg.eig"
    impl = self._impl
    d = impl.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {d.scalar_type_name}")
    if d.is_reduced_float:
        raise not_implemented("linalg_eig_out_cpu", d)
    check_matrix(op, self)
    check_square(op, self)
    values = new_tensor(impl.sizes[:-1], d.to_complex(), impl.device)
    vectors = new_tensor(impl.sizes, d.to_complex(), impl.device)
    if is_meta(impl.device) or impl.numel() == 0:
        return values, vectors
    a = array(self)
    if not np.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = np.linalg.eig(a)
    values._impl.numpy_view()[...] = w
    vectors._impl.numpy_view()[...] = v
    return values, vectors


@kernel("linalg_eigvals")
def linalg_eigvals(self: Tensor) -> Tensor:
    result: Tensor = aten_op("linalg_eig.default")(self)[0]
    return result


# ---- householder_product ----------------------------------------------------------------------


def check_tau_batch(op: str, a: TensorImpl, t: TensorImpl) -> None:
    """PyTorch's checks that `tau` has one dimension less than `input` and its batch dimensions
    (householder_product, ormqr)."""
    if a.dim() - t.dim() != 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to {t.dim()} "
            f"and input.ndim is equal to {a.dim()}"
        )
    if t.sizes[:-1] != a.sizes[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(t.sizes[:-1])}"
        )


def _householder_checks(input: Tensor, tau: Tensor) -> None:
    op = "torch.linalg.householder_product"
    a, t = input._impl, tau._impl
    if a.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if t.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if a.sizes[-2] < a.sizes[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if a.sizes[-1] < t.sizes[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    check_tau_batch(op, a, t)
    if t.dtype is not a.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {t.dtype.scalar_type_name} does not match input dtype "
            f"{a.dtype.scalar_type_name}"
        )
    _lapack_dtype("orgqr_cpu", input)


def householder_vector(a: Array, i: int) -> Array:
    """The i-th Householder vector (..., m, 1) packed below the diagonal of `a`: zeros above row
    i, a one at row i."""
    v = np.zeros((*a.shape[:-1], 1), a.dtype)
    v[..., i, 0] = 1
    v[..., i + 1 :, 0] = a[..., i + 1 :, i]
    return v


@kernel("linalg_householder_product")
def linalg_householder_product(input: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H (LAPACK's orgqr)."""
    _householder_checks(input, tau)
    impl = input._impl
    out = new_tensor(impl.sizes, impl.dtype, impl.device)
    if is_meta(impl.device):
        return out
    a, taus = array(input), array(tau)
    m, n = impl.sizes[-2:]
    x = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for i in reversed(range(taus.shape[-1])):
        v = householder_vector(a, i)
        x -= taus[..., i, None, None] * v @ (_mH(v) @ x)
    out._impl.numpy_view()[...] = x
    return out


forward_kernel("orgqr", "linalg_householder_product.default")


@kernel("geqrf")
def geqrf(self: Tensor) -> tuple[Tensor, Tensor]:
    """LAPACK's geqrf (NumPy's raw QR): R on and above the diagonal, the Householder vectors
    below it, and their scales tau (..., min(m, n)), for householder_product/orgqr."""
    impl = self._impl
    if impl.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_dtype("geqrf_cpu", self)
    m, n = impl.sizes[-2:]
    a = new_tensor(impl.sizes, impl.dtype, impl.device)
    tau = new_tensor((*impl.sizes[:-2], min(m, n)), impl.dtype, impl.device)
    if is_meta(impl.device) or impl.numel() == 0:
        return a, tau
    h, scales = np.linalg.qr(array(self), mode="raw")
    a._impl.numpy_view()[...] = np.swapaxes(h, -1, -2)
    tau._impl.numpy_view()[...] = scales
    return a, tau


# ---- lstsq ------------------------------------------------------------------------------------

_LSTSQ_DRIVERS: Final = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_checks(self: Tensor, b: Tensor, driver: str | None) -> bool:
    """Whether `b` is a (batch of) vector(s), checked as PyTorch's linalg.lstsq does."""
    op = "torch.linalg.lstsq"
    a, o = self._impl, b._impl
    if a.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if o.dim() < 1:
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if a.dtype is not o.dtype:
        raise RuntimeError(
            f"{op}: Expected input and other to have the same dtype, but got input's dtype "
            f"{a.dtype.scalar_type_name} and other's dtype {o.dtype.scalar_type_name}"
        )
    if not (o.dim() <= a.dim() <= o.dim() + 1):
        raise RuntimeError(
            f"{op}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )
    vector = o.dim() == a.dim() - 1
    if o.sizes[-1 if vector else -2] != a.sizes[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-{1 if vector else 2})")
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if a.dtype not in _LAPACK_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    return vector


@kernel("linalg_lstsq")
def linalg_lstsq(
    self: Tensor, b: Tensor, rcond: float | None = None, *, driver: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The least-squares solutions of A X = B (minimum norm), and, as the driver (default
    gelsy) gives them: the squared residuals per column (gels, gelsd, gelss; only for tall A, and
    for gelsd and gelss only when every matrix has full rank), the ranks (all but gels), the
    singular values (gelsd, gelss); what a driver does not give is an empty tensor."""
    vector = _lstsq_checks(self, b, driver)
    driver = driver or "gelsy"
    a_impl, b_impl = self._impl, b._impl
    device = same_device("torch.linalg.lstsq", (self, b))
    m, n = a_impl.sizes[-2:]
    rhs_sizes = (*b_impl.sizes, 1) if vector else b_impl.sizes
    batch = broadcast_shapes(a_impl.sizes[:-2], rhs_sizes[:-2])
    k = rhs_sizes[-1]
    d = a_impl.dtype
    solution = new_tensor((*batch, n) if vector else (*batch, n, k), d, device)
    if is_meta(device):
        empty = new_tensor((0,), d.to_real(), device)
        return solution, empty, new_tensor((0,), int64, device), new_tensor((0,), d.to_real(), device)
    a = np.broadcast_to(array(self), (*batch, m, n))
    rhs = np.broadcast_to(array(b).reshape(rhs_sizes), (*batch, m, k))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    cutoff = float(numpy_finfo(s.dtype).eps) * max(m, n) if rcond is None or rcond < 0 else rcond
    largest = s[..., :1] if s.shape[-1] else s
    keep = s > cutoff * largest
    inverted = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(s.dtype)
    x = _mH(vh) @ (inverted[..., :, None] * (_mH(u) @ rhs))
    solution._impl.numpy_view()[...] = x[..., 0] if vector else x
    ranks = keep.sum(-1)
    full = m > n and (driver == "gels" or (driver != "gelsy" and bool((ranks == n).all())))
    residual_value = (np.abs(a @ x - rhs) ** 2).sum(-2)
    residuals = new_tensor((batch if vector else (*batch, k)) if full else (0,), d.to_real(), device)
    if full:
        residuals._impl.numpy_view()[...] = residual_value[..., 0] if vector else residual_value
    rank = new_tensor((0,) if driver == "gels" else batch, int64, device)
    if driver != "gels":
        rank._impl.numpy_view()[...] = ranks
    with_values = driver in ("gelsd", "gelss")
    values = new_tensor((*batch, min(m, n)) if with_values else (0,), d.to_real(), device)
    if with_values:
        values._impl.numpy_view()[...] = s
    return solution, residuals, rank, values


# ---- vdot -------------------------------------------------------------------------------------


@kernel("vdot")
def vdot(self: Tensor, other: Tensor) -> Tensor:
    """sum(conj(self) * other) of two vectors, with dot's checks."""
    a, b = self._impl, other._impl
    _check_dot(a.sizes, b.sizes, a.dtype, b.dtype)
    _refuse_bool("dot", a.dtype)
    device = same_device("vdot", (self, other))
    out = new_tensor((), a.dtype, device)
    if not is_meta(device):
        out._impl.numpy_view()[...] = np.vdot(array(self), array(other))
    return out


# ---- composites -------------------------------------------------------------------------------


def _cond_p_checks(self: Tensor, p: Number | str) -> None:
    if self._impl.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")


def _cond_from_inverse(self: Tensor, p: Number | str) -> Tensor:
    """norm(A) * norm(A^{-1}), inf for a singular A."""
    shown = p if isinstance(p, str) else f"{p:g}"
    rows, cols = self._impl.sizes[-2:]
    if rows != cols:
        raise RuntimeError(
            f"linalg.cond(ord={shown}): A must be batches of square matrices, but they are {rows} by {cols} "
            "matrices"
        )
    if self._impl.numel() == 0:
        return aten_op("zeros.default")(list(self._impl.sizes[:-2]), dtype=self._impl.dtype.to_real())  # type: ignore[no-any-return]
    inverse, info = aten_op("linalg_inv_ex.default")(self)
    singular = aten_op("gt.Scalar")(
        aten_op("unsqueeze.default")(aten_op("unsqueeze.default")(info, -1), -1), 0
    )
    inverse = aten_op("masked_fill.Scalar")(inverse, singular, math.inf)
    norm = aten_op("linalg_matrix_norm.str_ord" if isinstance(p, str) else "linalg_matrix_norm.default")
    product = aten_op("mul.Tensor")(norm(self, p), norm(inverse, p))
    result: Tensor = aten_op("nan_to_num.default")(product, math.inf, math.inf)
    return result


@kernel("linalg_cond")
def linalg_cond(self: Tensor, p: Number | None = None) -> Tensor:
    """The condition number in the p-norm: from the singular values for p = None, 2, -2, as
    norm(A) norm(A^{-1}) (inf when A is singular) for 1, -1, inf, -inf."""
    _cond_p_checks(self, 2 if p is None else p)
    if p is not None and abs(p) != 2:
        return _cond_from_inverse(self, p)
    if self._impl.numel() == 0:
        return aten_op("zeros.default")(list(self._impl.sizes[:-2]), dtype=self._impl.dtype.to_real())  # type: ignore[no-any-return]
    values = aten_op("linalg_svdvals.default")(self)
    largest = aten_op("narrow.default")(values, -1, 0, 1)
    smallest = aten_op("narrow.default")(values, -1, values._impl.sizes[-1] - 1, 1)
    ratio = aten_op("div.Tensor")(*((smallest, largest) if p == -2 else (largest, smallest)))
    result: Tensor = aten_op("squeeze.dim")(ratio, -1)
    return result


@kernel("linalg_cond_p_str")
def linalg_cond_p_str(self: Tensor, p: str) -> Tensor:
    _cond_p_checks(self, p)
    return _cond_from_inverse(self, p)


@kernel("linalg_tensorinv")
def linalg_tensorinv(self: Tensor, ind: int = 2) -> Tensor:
    """The inverse of `self` as a map from its last dimensions to its first `ind`: the shape
    self.shape[ind:] + self.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    sizes = list(self._impl.sizes)
    rows, cols = math.prod(sizes[:ind]), math.prod(sizes[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but "
            f"got {cols} != {rows}"
        )
    inverse = aten_op("linalg_inv.default")(aten_op("reshape.default")(self, [rows, cols]))
    result: Tensor = aten_op("reshape.default")(inverse, sizes[ind:] + sizes[:ind])
    return result


@kernel("linalg_tensorsolve")
def linalg_tensorsolve(self: Tensor, other: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(self, X, X.ndim) = other: `dims` of self moved last first."""
    ndim = self._impl.dim()
    if dims is not None:
        kept = [d for d in range(ndim) if d not in {d % ndim for d in dims}]
        self = aten_op("permute.default")(self, kept + [d % ndim for d in dims])
    sizes = list(self._impl.sizes)
    k = other._impl.dim()
    rows, cols = math.prod(sizes[:k]), math.prod(sizes[k:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    matrix = aten_op("reshape.default")(self, [rows, cols])
    solution = aten_op("linalg_solve.default")(matrix, aten_op("reshape.default")(other, [rows]))
    result: Tensor = aten_op("reshape.default")(solution, sizes[k:])
    return result


@kernel("linalg_vander")
def linalg_vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The powers x^0, ..., x^(N-1) along a new last dimension (N defaults to x's last size):
    cumulative products of x; integers are computed in int64."""
    impl = x._impl
    if impl.dtype is bool_ or impl.dtype.is_reduced_float:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{impl.dtype.scalar_type_name}"
        )
    count = N if N is not None else (impl.sizes[-1] if impl.dim() else 0)
    if count <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = aten_op("ones_like.default")(aten_op("unsqueeze.default")(x, -1))
    powers = aten_op("cumprod.default")(
        aten_op("expand.default")(aten_op("unsqueeze.default")(x, -1), [*impl.sizes, count - 1]), -1
    )
    result: Tensor = aten_op("cat.default")([aten_op("to.dtype")(ones, powers._impl.dtype), powers], -1)
    return result


forward_kernel("linalg_matmul", "matmul.default")


forward_kernel("linalg_diagonal", "diagonal.default")


@kernel("qr")
def qr(self: Tensor, some: bool = True) -> tuple[Tensor, Tensor]:
    """Deprecated: linalg.qr in mode 'reduced' (some) or 'complete'."""
    _warn_deprecated(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
        "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
        "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
        "'complete')"
    )
    result: tuple[Tensor, Tensor] = aten_op("linalg_qr.default")(self, "reduced" if some else "complete")
    return result


@kernel("svd")
def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """The old SVD: U, S and V (not V^H); without compute_uv, U and V are zero matrices of
    shape (m, m) and (n, n)."""
    U, S, Vh = aten_op("_linalg_svd.default")(self, not some, compute_uv or self.requires_grad)
    if compute_uv:
        V = aten_op("transpose.int")(Vh, -2, -1)
        return U, S, conj(V) if V._impl.dtype.is_complex else V
    impl = self._impl
    batch, (m, n) = impl.sizes[:-2], impl.sizes[-2:]
    zeros = aten_op("zeros.default")
    options = {"dtype": impl.dtype, "device": impl.device}
    return zeros([*batch, m, m], **options), S, zeros([*batch, n, n], **options)


forward_kernel("pinverse", "linalg_pinv.default")


@kernel("inner")
def inner(self: Tensor, other: Tensor) -> Tensor:
    """The products summed over the last dimensions of both (a plain product with a 0-D one)."""
    a, b = self._impl, other._impl
    if a.dim() == 0 or b.dim() == 0:
        result: Tensor = aten_op("mul.Tensor")(self, other)
        return result
    if a.sizes[-1] != b.sizes[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(a.sizes)} and {list(b.sizes)}"
        )
    result = aten_op("tensordot.default")(self, other, [-1], [-1])
    return result


_NUCLEAR_WARNING: Final = (
    "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
    "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead"
)


@kernel("nuclear_norm")
def nuclear_norm(self: Tensor, keepdim: bool = False) -> Tensor:
    if self._impl.dim() != 2:
        raise RuntimeError(
            f"Expected a tensor with 2 dimensions, but got a tensor with {self._impl.dim()} dimension"
            f"{'' if self._impl.dim() == 1 else 's'} instead."
        )
    return nuclear_norm_dim(self, [0, 1], keepdim)


@kernel("nuclear_norm_dim")
def nuclear_norm_dim(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    _warn_deprecated(_NUCLEAR_WARNING)
    result: Tensor = aten_op("linalg_matrix_norm.str_ord")(self, "nuc", list(dim), keepdim)
    return result


@kernel("frobenius_norm_dim")
def frobenius_norm_dim(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """Deprecated: the 2-norm over one or two dimensions."""
    _warn_deprecated(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed "
        "in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead"
    )
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    result: Tensor = aten_op("norm.ScalarOpt_dim")(self, 2, list(dim), keepdim)
    return result
