"""The linear-algebra additions (framework/ops/kernels/linalg_more.py): values against NumPy,
PyTorch's error texts, what lstsq fills per driver, Meta shapes, deprecation warnings, and (when
PyTorch is installed) values, dtypes, grad_fn names and linalg.eig's gradients against it."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")
L = framework.linalg


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def t(a: Any) -> Tensor:
    return framework.tensor(np.asarray(a))


def close(x: Tensor, expected: Any, atol: float = 1e-10) -> None:
    np.testing.assert_allclose(x.numpy(), expected, atol=atol, rtol=1e-10)


A = rand(2, 3, 3, seed=1) + 3 * np.eye(3)
B = rand(2, 3, 2, seed=2)
SPD = A @ np.swapaxes(A, -1, -2)


# ---- LU -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 5), (4, 2)])
def test_lu_reconstructs(shape: tuple[int, ...]) -> None:
    a = rand(*shape, seed=3)
    P, lower, upper = L.lu(t(a))
    close(P @ lower @ upper, a)
    LU, pivots = L.lu_factor(t(a))
    assert pivots.dtype is framework.int32 and pivots.shape[-1] == min(shape[-2:])
    for x, y in zip(framework.lu_unpack(LU, pivots), (P, lower, upper), strict=True):
        close(x, y.numpy())
    complex_a = a + 1j * rand(*shape, seed=4)
    P, lower, upper = L.lu(t(complex_a))
    close(P.to(framework.complex128) @ lower @ upper, complex_a)


def test_lu_unpack_partial_and_pivot_errors() -> None:
    LU, pivots = L.lu_factor(t(A[0]))
    P, lower, upper = framework.lu_unpack(LU, pivots, unpack_data=False)
    assert lower.shape == upper.shape == (0,) and P.shape == (3, 3)
    assert framework.lu_unpack(LU, pivots, unpack_pivots=False).P.shape == (0,)
    with pytest.raises(RuntimeError, match=r"^torch.lu_unpack: LU_pivots is expected to be a contiguous"):
        framework.lu_unpack(LU, pivots.long())
    with pytest.raises(RuntimeError, match=r"^pivots passed to lu_unpack must be between 1 and LU.size"):
        framework.lu_unpack(LU, framework.tensor([4, 2, 3], dtype=framework.int32))


def test_lu_factor_singular() -> None:
    singular = t([[1.0, 2.0], [2.0, 4.0]])
    LU, pivots, info = L.lu_factor_ex(singular)
    assert pivots.tolist() == [2, 2] and info.item() == 2
    close(LU, [[2.0, 4.0], [0.5, 0.0]])
    message = r"^torch.linalg.lu_factor: U\[2,2\] is zero and using it on lu_solve would result in a division"
    with pytest.raises(L.LinAlgError, match=message):
        L.lu_factor(singular)
    with pytest.raises(L.LinAlgError, match=r"^torch.linalg.lu_factor_ex: \(Batch element 1\): U\[2,2\]"):
        L.lu_factor_ex(framework.stack([t(np.eye(2)), singular]), check_errors=True)
    with pytest.raises(
        RuntimeError, match=r"^linalg.lu_factor: LU without pivoting is not implemented on the CPU"
    ):
        L.lu(singular, pivot=False)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left: bool, adjoint: bool) -> None:
    LU, pivots = L.lu_factor(t(A))
    op = np.swapaxes(A, -1, -2) if adjoint else A
    if left:
        expected = np.linalg.solve(op, B)
        close(L.lu_solve(LU, pivots, t(B), left=left, adjoint=adjoint), expected)
    else:
        rhs = np.swapaxes(B, -1, -2)
        expected = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), B), -1, -2)
        close(L.lu_solve(LU, pivots, t(rhs), left=left, adjoint=adjoint), expected)


def test_deprecated_lu() -> None:
    singular = t([[1.0, 2.0], [2.0, 4.0]])
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        LU, pivots = framework.lu(singular)
    close(LU, [[2.0, 4.0], [0.5, 0.0]])
    assert pivots.tolist() == [2, 2]
    with pytest.warns(UserWarning):
        assert singular.lu(get_infos=True)[2].item() == 2


def test_deprecated_lu_solve() -> None:
    LU, pivots = L.lu_factor(t(A))
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        close(framework.lu_solve(t(B), LU, pivots), np.linalg.solve(A, B))
    with pytest.warns(UserWarning):
        close(t(B).lu_solve(LU, pivots), np.linalg.solve(A, B))


# ---- triangular solves, cholesky_solve, cholesky_inverse ---------------------------------------


@pytest.mark.parametrize("upper", [True, False])
def test_solve_triangular(upper: bool) -> None:
    tri = np.triu(A) if upper else np.tril(A)
    close(L.solve_triangular(t(A), t(B), upper=upper), np.linalg.solve(tri, B))
    right = np.swapaxes(B, -1, -2)
    close(
        L.solve_triangular(t(A), t(right), upper=upper, left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(tri, -1, -2), B), -1, -2),
    )
    unit = tri.copy()
    unit[..., range(3), range(3)] = 1
    close(L.solve_triangular(t(A), t(B), upper=upper, unitriangular=True), np.linalg.solve(unit, B))


def test_solve_triangular_broadcasts_promotes_and_gives_inf() -> None:
    x = L.solve_triangular(t(A[0]), t(B).float(), upper=True)
    assert x.dtype is framework.float64 and x.shape == (2, 3, 2)
    singular = L.solve_triangular(t(np.zeros((2, 2))), t(np.ones((2, 1))), upper=True)
    assert not np.isfinite(singular.numpy()).any()


def test_triangular_solve() -> None:
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        solution, coefficient = framework.triangular_solve(t(B), t(A[0]))
    close(solution, np.linalg.solve(np.triu(A[0]), B))
    close(coefficient, np.broadcast_to(A[0], (2, 3, 3)))
    with pytest.warns(UserWarning):
        transposed = t(B).triangular_solve(t(A), upper=False, transpose=True).solution
    close(transposed, np.linalg.solve(np.swapaxes(np.tril(A), -1, -2), B))


def test_cholesky_solve_and_inverse() -> None:
    lower = np.linalg.cholesky(SPD)
    upper = np.swapaxes(lower, -1, -2)
    close(framework.cholesky_solve(t(B), t(lower)), np.linalg.solve(SPD, B))
    close(t(B).cholesky_solve(t(upper), upper=True), np.linalg.solve(SPD, B))
    close(framework.cholesky_inverse(t(lower)), np.linalg.inv(SPD))
    close(t(upper).cholesky_inverse(upper=True), np.linalg.inv(SPD))
    message = r"^cholesky_inverse: The diagonal element 1 is zero, the inversion could not be completed"
    with pytest.raises(L.LinAlgError, match=message):
        framework.cholesky_inverse(t(np.zeros((2, 2))))


# ---- matrix_exp, eig ----------------------------------------------------------------------------


def test_matrix_exp() -> None:
    w, v = np.linalg.eigh(SPD / 4)
    expected = v @ (np.exp(w)[..., None] * np.swapaxes(v, -1, -2))
    close(L.matrix_exp(t(SPD / 4)), expected, atol=1e-9)
    close(framework.matrix_exp(t(np.zeros((2, 2)))), np.eye(2))
    nilpotent = np.array([[0.0, 1.0], [0.0, 0.0]])
    close(t(nilpotent).matrix_exp(), [[1.0, 1.0], [0.0, 1.0]])
    rotation = np.array([[0.0, -math.pi], [math.pi, 0.0]])
    close(L.matrix_exp(t(rotation).to(framework.complex128)), -np.eye(2), atol=1e-12)
    assert L.matrix_exp(t(nilpotent).half()).dtype is framework.float16


def test_eig() -> None:
    w, v = L.eig(t(A))
    assert w.dtype is framework.complex128 and v.dtype is framework.complex128
    a = A.astype(complex)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy()[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(v.numpy(), axis=-2), 1.0)
    close(L.eigvals(t(A)), np.linalg.eigvals(A))
    assert L.eigvals(t(A).float()).dtype is framework.complex64
    with pytest.raises(
        RuntimeError, match=r"^torch.linalg.eig: input tensor should not contain infs or NaNs."
    ):
        L.eig(t([[1.0, math.nan], [0.0, 1.0]]))


def test_householder_product() -> None:
    a = rand(5, 3, seed=25)
    h, tau = np.linalg.qr(a, mode="raw")
    Q = np.linalg.qr(a)[0]
    close(L.householder_product(t(h.T), t(tau)), Q)
    close(framework.orgqr(t(h.T), t(tau)), Q)
    close(t(h.T).orgqr(t(tau[:0])), np.eye(5, 3))


# ---- lstsq --------------------------------------------------------------------------------------

_FILLED = {  # driver: (residuals, rank, singular_values) filled for a full-rank tall A
    "gels": (True, False, False),
    "gelsy": (False, True, False),
    "gelsd": (True, True, True),
    "gelss": (True, True, True),
}


@pytest.mark.parametrize("driver", [None, *_FILLED])
def test_lstsq(driver: str | None) -> None:
    a, b = rand(2, 5, 3, seed=5), rand(2, 5, 2, seed=6)
    solution, residuals, rank, values = L.lstsq(t(a), t(b), driver=driver)
    expected = np.linalg.pinv(a) @ b
    close(solution, expected)
    with_residuals, with_rank, with_values = _FILLED[driver or "gelsy"]
    r = ((a @ expected - b) ** 2).sum(-2)
    assert residuals.shape == (r.shape if with_residuals else (0,))
    if with_residuals:
        close(residuals, r)
    assert rank.dtype is framework.int64
    assert rank.tolist() == ([3, 3] if with_rank else [])
    assert values.shape == ((2, 3) if with_values else (0,))
    if with_values:
        close(values, np.linalg.svd(a, compute_uv=False))


def test_lstsq_rank_deficient_vector_and_wide() -> None:
    a = rand(5, 3, seed=7)
    a[:, 2] = a[:, 0] + a[:, 1]
    b = rand(5, seed=8)
    solution, residuals, rank, _ = L.lstsq(t(a), t(b), driver="gelsd")
    close(solution, np.linalg.lstsq(a, b, rcond=None)[0])
    assert rank.item() == 2 and residuals.shape == (0,)
    wide = rand(2, 4, seed=9)
    close(L.lstsq(t(wide), t(rand(2, 1, seed=10))).solution, np.linalg.pinv(wide) @ rand(2, 1, seed=10))


# ---- composites ---------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"])
def test_cond(p: Any) -> None:
    close(L.cond(t(A), p), np.linalg.cond(A, p), atol=1e-8)


def test_cond_singular_and_empty() -> None:
    assert L.cond(t(np.zeros((3, 3))), 1).item() == math.inf
    assert L.cond(t(np.ones((2, 2))), "fro").item() == math.inf
    assert math.isnan(L.cond(t(np.zeros((3, 3)))).item())
    empty = L.cond(framework.zeros(0, 0), 1)
    assert empty.shape == () and empty.item() == 0


def test_tensorinv_tensorsolve_vander() -> None:
    a = rand(4, 6, 8, 3, seed=11)
    close(L.tensorinv(t(a)), np.linalg.tensorinv(a))
    a = rand(2, 3, 6, seed=12)
    b = rand(2, 3, seed=13)
    close(L.tensorsolve(t(a), t(b)), np.linalg.tensorsolve(a, b))
    a2 = rand(2, 6, 3, seed=14)
    close(L.tensorsolve(t(a2), t(b), dims=(1,)), np.linalg.tensorsolve(a2, b, axes=(1,)))
    x = np.array([1, 2, 3])
    vander = L.vander(t(x))
    assert vander.dtype is framework.int64
    np.testing.assert_array_equal(vander.numpy(), np.vander(x, increasing=True))
    close(L.vander(t(x * 0.5), N=4), np.vander(x * 0.5, 4, increasing=True))


def test_aliases_old_api_and_products() -> None:
    a = rand(4, 3, seed=15)
    close(L.matmul(t(a), t(a.T)), a @ a.T)
    close(L.diagonal(t(A), offset=1), np.diagonal(A, 1, -2, -1))
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        Q, R = framework.qr(t(a), some=False)
    assert Q.shape == (4, 4) and R.shape == (4, 3)
    close(Q @ R, a)
    U, S, V = framework.svd(t(a))
    close(U @ framework.diag_embed(S) @ V.mT, a)
    assert U.shape == (4, 3) and framework.svd(t(a), some=False).U.shape == (4, 4)
    U, S, V = t(a).svd(compute_uv=False)
    assert U.shape == (4, 4) and V.shape == (3, 3) and not U.numpy().any()
    close(framework.pinverse(t(a)), np.linalg.pinv(a))
    close(framework.inner(t(a), t(rand(2, 3, seed=16))), np.inner(a, rand(2, 3, seed=16)))
    close(framework.inner(t(a), t(2.0)), 2 * a)
    u, v = rand(3, seed=17) + 1j * rand(3, seed=18), rand(3, seed=19) + 1j * rand(3, seed=20)
    close(framework.vdot(t(u), t(v)), np.vdot(u, v))
    assert framework.vdot(t(np.arange(3)), t(np.arange(3))).item() == 5
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        close(framework.nuclear_norm(t(a)), np.linalg.norm(a, "nuc"))
    with pytest.warns(UserWarning):
        close(framework.nuclear_norm(t(A), [1, 2], keepdim=True), np.linalg.norm(A, "nuc", (1, 2), True))
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        close(framework.frobenius_norm(t(A), [1, 2]), np.linalg.norm(A, "fro", (1, 2)))


# ---- errors -------------------------------------------------------------------------------------

_SQ = t(A[0])
_PIV = L.lu_factor(_SQ).pivots

ERRORS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (
        lambda: L.lu_factor(t(np.ones(3))),
        RuntimeError,
        "torch.lu_factor: Expected tensor with 2 or more dimensions",
    ),
    (
        lambda: L.lu_factor(t(np.ones((2, 2), np.int64))),
        NotImplementedError,
        "\"lu_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: L.lu_solve(_SQ, _PIV, t(np.ones(3))),
        RuntimeError,
        "linalg.lu_solve: The input tensor B must have at",
    ),
    (lambda: L.lu_solve(_SQ, _PIV, t(np.ones((4, 2)))), RuntimeError, r"AX = B \(3x3 and 4x2\)"),
    (
        lambda: L.lu_solve(_SQ[:2], _PIV, t(B[0])),
        RuntimeError,
        "torch.linalg.lu_solve: A must be batches of square",
    ),
    (
        lambda: L.lu_solve(_SQ, _PIV.long(), t(B[0])),
        RuntimeError,
        "pivots should be a Tensor of scalar type torch.int32",
    ),
    (
        lambda: L.lu_solve(_SQ, _PIV[:2], t(B[0])),
        RuntimeError,
        "Number of pivots per batch should be same as",
    ),
    (
        lambda: L.lu_solve(_SQ, _PIV, t(B[0]).float()),
        RuntimeError,
        "Expected LU and B to have the same dtype",
    ),
    (
        lambda: L.solve_triangular(_SQ, t(np.ones((2, 2))), upper=True, left=False),
        RuntimeError,
        r"linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B \(3x3 and 2x2\)",
    ),
    (
        lambda: L.solve_triangular(_SQ.long(), t(np.ones((3, 2), np.int64)), upper=True),
        NotImplementedError,
        "\"triangular_solve_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: framework.triangular_solve(t(np.ones((4, 2))), _SQ),
        RuntimeError,
        "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b matrix is 4 by 2",
    ),
    (
        lambda: framework.cholesky_solve(t(np.ones(3)), _SQ),
        RuntimeError,
        "b should have at least 2 dimensions",
    ),
    (
        lambda: framework.cholesky_solve(t(B[0]).float(), _SQ),
        RuntimeError,
        "Expected b and A to have the same dtype",
    ),
    (
        lambda: framework.cholesky_inverse(_SQ[:2]),
        RuntimeError,
        "cholesky_inverse: A must be batches of square",
    ),
    (
        lambda: L.matrix_exp(_SQ.long()),
        RuntimeError,
        "linalg.matrix_exp: Expected a floating point or complex",
    ),
    (
        lambda: L.eig(_SQ[:2]),
        RuntimeError,
        "linalg.eig: A must be batches of square matrices, but they are 2 by 3",
    ),
    (lambda: L.eig(_SQ.half()), NotImplementedError, "\"linalg_eig_out_cpu\" not implemented for 'Half'"),
    (lambda: L.lstsq(_SQ, t(B[0]), driver="foo"), RuntimeError, "parameter `driver` should be one of"),
    (
        lambda: L.lstsq(_SQ, t(np.ones((4, 2)))),
        RuntimeError,
        r"input.size\(-2\) should match other.size\(-2\)",
    ),
    (
        lambda: L.lstsq(_SQ.long(), t(B[0]).long()),
        RuntimeError,
        "doesn't handle types other than float and double",
    ),
    (lambda: L.cond(_SQ, 3), RuntimeError, "linalg.cond got an invalid norm type: 3"),
    (
        lambda: L.cond(t(np.ones((2, 3))), 1),
        RuntimeError,
        r"linalg.cond\(ord=1\): A must be batches of square",
    ),
    (
        lambda: L.cond(t(np.ones((2, 3))), -math.inf),
        RuntimeError,
        r"linalg.cond\(ord=-inf\): A must be batches",
    ),
    (lambda: L.tensorinv(t(np.ones((4, 6, 8, 2)))), RuntimeError, r"prod\(self.shape\[ind:\]\) == prod"),
    (lambda: L.tensorinv(_SQ, 0), RuntimeError, "Expected a strictly positive integer for 'ind', but got 0"),
    (
        lambda: L.vander(t([True])),
        RuntimeError,
        "linalg.vander supports floating point, complex, and integer",
    ),
    (lambda: L.vander(t([1.0]), N=1), RuntimeError, "N must be greater than 1."),
    (
        lambda: framework.inner(t(np.ones((2, 3))), t(np.ones(4))),
        RuntimeError,
        "inner\\(\\) the last dimension must",
    ),
    (
        lambda: L.householder_product(t(np.ones((2, 3))), t(np.ones(2))),
        RuntimeError,
        r"householder_product: input.shape\[-2\] must be greater than or equal to input.shape\[-1\]",
    ),
    (
        lambda: L.householder_product(t(np.ones((3, 2))), t(np.ones(2)).float()),
        RuntimeError,
        "tau dtype Float does not match input dtype Double",
    ),
    (lambda: framework.vdot(t(np.ones(3)), t(np.ones(4))), RuntimeError, "inconsistent tensor size"),
    (lambda: framework.vdot(t([True]), t([True])), NotImplementedError, "\"dot\" not implemented for 'Bool'"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_meta_shapes() -> None:
    a = framework.empty(2, 4, 3, device="meta")
    square = framework.empty(2, 3, 3, device="meta")
    b = framework.empty(2, 3, 2, device="meta")
    assert [x.shape for x in L.lu_factor_ex(a)] == [(2, 4, 3), (2, 3), (2,)]
    assert [x.shape for x in L.lu(a)] == [(2, 4, 4), (2, 4, 3), (2, 3, 3)]
    pivots = framework.empty(2, 3, dtype=framework.int32, device="meta")
    assert L.lu_solve(square, pivots, b).shape == (2, 3, 2)
    assert L.solve_triangular(square, b, upper=True).device.type == "meta"
    assert framework.cholesky_inverse(square).shape == (2, 3, 3)
    assert L.matrix_exp(square).shape == (2, 3, 3)
    assert [x.dtype for x in L.eig(square)] == [framework.complex64, framework.complex64]
    assert L.lstsq(a, framework.empty(2, 4, 2, device="meta")).solution.shape == (2, 3, 2)


# ---- against PyTorch ----------------------------------------------------------------------------

TORCH_CALLS: dict[str, Callable[[Any, list[Any]], Any]] = {
    "lu_factor": lambda m, x: m.linalg.lu_factor(x[0]).LU,
    "lu": lambda m, x: m.linalg.lu(x[0]).U,
    "lu_unpack": lambda m, x: m.lu_unpack(*m.linalg.lu_factor(x[0])).L,
    "lu_solve": lambda m, x: m.linalg.lu_solve(*m.linalg.lu_factor(x[0]), x[1], adjoint=True),
    "solve_triangular": lambda m, x: m.linalg.solve_triangular(x[0], x[1], upper=False),
    "triangular_solve": lambda m, x: m.triangular_solve(x[1], x[0]).solution,
    "cholesky_solve": lambda m, x: m.cholesky_solve(x[1], x[0]),
    "cholesky_inverse": lambda m, x: m.cholesky_inverse(x[0], upper=True),
    "matrix_exp": lambda m, x: m.matrix_exp(x[0]),
    "eigvals": lambda m, x: m.linalg.eigvals(x[0]),
    "lstsq": lambda m, x: m.linalg.lstsq(x[0], x[1]).solution,
    "cond": lambda m, x: m.linalg.cond(x[0]),
    "cond_1": lambda m, x: m.linalg.cond(x[0], 1),
    "vdot": lambda m, x: m.vdot(x[1][0, :, 0], x[1][1, :, 1]),
    "householder_product": lambda m, x: m.linalg.householder_product(x[1], x[1][:, 0, :]),
    "svd": lambda m, x: m.svd(x[0])[1],
    "pinverse": lambda m, x: m.pinverse(x[1]),
}


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(TORCH_CALLS))
def test_against_torch(name: str) -> None:
    import torch

    call = TORCH_CALLS[name]
    ours = call(framework, [t(a).requires_grad_() for a in (A, B)])
    theirs = call(torch, [torch.tensor(a, requires_grad=True) for a in (A, B)])
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-9, rtol=1e-9)
    assert str(ours.dtype).rpartition(".")[2] == str(theirs.dtype).rpartition(".")[2]
    assert ours.grad_fn.name() == theirs.grad_fn.name()


@needs_torch
def test_eig_gradients_against_torch() -> None:
    import torch

    def loss(m: Any, x: Any) -> Any:
        w, v = m.linalg.eig(x)
        weights = m.arange(3.0, dtype=m.float64)
        return (m.real(w) ** 2 + m.imag(w)).sum() + (
            (m.view_as_real(v) ** 2).sum(-1) * weights
        ).sum()  # |v_ij|^2: phase invariant

    ours_input, theirs_input = t(A).requires_grad_(), torch.tensor(A, requires_grad=True)
    (ours,) = framework.autograd.grad(loss(framework, ours_input), ours_input)
    (theirs,) = torch.autograd.grad(loss(torch, theirs_input), theirs_input)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-9, rtol=1e-9)
    bad = t(A).requires_grad_()
    with pytest.raises(RuntimeError, match=r"^linalg_eig_backward: The eigenvectors in the complex case"):
        framework.imag(L.eig(bad).eigenvectors).sum().backward()


@needs_torch
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_shapes_against_torch(driver: str) -> None:
    import torch

    cases = [(rand(2, 5, 3, seed=21), rand(1, 5, 2, seed=22)), (rand(2, 3, 4, seed=23), rand(2, 3, seed=24))]
    for a, b in cases:
        ours = L.lstsq(t(a), t(b), driver=driver)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for x, y in zip(ours, theirs, strict=True):
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-9)
