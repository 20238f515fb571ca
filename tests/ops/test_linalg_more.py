"""framework.linalg and the matrix operators around it: values against NumPy, PyTorch's error
texts, LinAlgError and the `info` of the _ex operators, return types, Meta shapes, the yaml's
python_module, and (when PyTorch is installed) values, dtypes and grad_fn names against it."""

from __future__ import annotations

import importlib.util
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor
from framework.ops._native import NativeFunctionsError, parse_native_functions

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")
L = framework.linalg


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def spd(*shape: int, seed: int = 0) -> np.ndarray:
    a = rand(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def t(a: Any) -> Tensor:
    return framework.tensor(np.asarray(a))


def close(x: Tensor, expected: Any, atol: float = 1e-10) -> None:
    np.testing.assert_allclose(x.numpy(), expected, atol=atol, rtol=1e-10)


# ---- values against NumPy -----------------------------------------------------------------------

A3 = rand(2, 3, 3, seed=1)
S3 = spd(2, 3, 3, seed=2)


def test_norms() -> None:
    x = rand(3, 4, seed=3)
    close(L.vector_norm(t(x)), np.linalg.norm(x.ravel()))
    close(L.vector_norm(t(x), 3, dim=1, keepdim=True), np.sum(np.abs(x) ** 3, 1, keepdims=True) ** (1 / 3))
    close(L.vector_norm(t(x), math.inf, dim=[0]), np.abs(x).max(0))
    for order in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        close(L.matrix_norm(t(x), order), np.linalg.norm(x, order))
        close(L.norm(t(x), order), np.linalg.norm(x, order))
    close(L.matrix_norm(t(A3), "nuc", keepdim=True), np.linalg.norm(A3, "nuc", axis=(-2, -1), keepdims=True))
    close(L.matrix_norm(t(A3), 1, dim=(0, 2)), np.linalg.norm(A3, 1, axis=(0, 2)))
    close(L.norm(t(x)), np.linalg.norm(x))
    close(L.norm(t(x), 1, dim=0), np.linalg.norm(x, 1, axis=0))
    assert L.vector_norm(t(x).float(), dtype=framework.float64).dtype is framework.float64
    assert L.vector_norm(t(x.astype(np.complex64))).dtype is framework.float32


def test_inverse_determinants_solve() -> None:
    close(L.inv(t(A3)), np.linalg.inv(A3))
    close(t(A3).inverse(), np.linalg.inv(A3))
    close(L.det(t(A3)), np.linalg.det(A3))
    close(framework.det(t(A3)), np.linalg.det(A3))
    sign, logabsdet = L.slogdet(t(A3))
    expected_sign, expected_log = np.linalg.slogdet(A3)
    close(sign, expected_sign)
    close(logabsdet, expected_log)
    close(framework.logdet(t(S3)), np.log(np.linalg.det(S3)))
    assert math.isnan(framework.logdet(t(np.diag([-1.0, 2.0]))).item())
    b = rand(3, 2, seed=4)
    close(L.solve(t(A3), t(b)), np.linalg.solve(A3, b))
    v = rand(3, seed=5)
    close(L.solve(t(A3[0]), t(v)), np.linalg.solve(A3[0], v))
    close(L.solve(t(A3), t(rand(2, 3, seed=6))), np.linalg.solve(A3, rand(2, 3, seed=6)[..., None])[..., 0])
    right = rand(2, 3, seed=7)
    close(L.solve(t(A3[0]), t(right), left=False), right @ np.linalg.inv(A3[0]))
    result, info = L.solve_ex(t(A3), t(b))
    close(result, np.linalg.solve(A3, b))
    assert info.dtype is framework.int32 and info.tolist() == [0, 0]


def test_decompositions() -> None:
    factor = L.cholesky(t(S3))
    close(factor, np.linalg.cholesky(S3))
    close(L.cholesky(t(S3), upper=True), np.swapaxes(np.linalg.cholesky(S3), -1, -2))
    a = rand(4, 3, seed=8)
    q, r = L.qr(t(a))
    close(q @ r, a)
    close(q.transpose(0, 1) @ q, np.eye(3))
    assert L.qr(t(a), mode="complete").Q.shape == (4, 4)
    assert L.qr(t(a), mode="r").Q.shape == (0,)
    close(L.qr(t(a), mode="r").R, r.numpy())
    for full in (True, False):
        u, s, vh = L.svd(t(a), full_matrices=full)
        k = s.shape[-1]
        close(u[:, :k] @ framework.diag(s) @ vh[:k], a)
        assert u.shape == ((4, 4) if full else (4, 3))
    close(L.svdvals(t(A3)), np.linalg.svd(A3, compute_uv=False))
    values, vectors = L.eigh(t(S3))
    close(values, np.linalg.eigvalsh(S3))
    close(t(S3) @ vectors, (vectors * values.unsqueeze(-2)).numpy())
    lower_only = np.tril(S3)
    close(L.eigvalsh(t(lower_only)), np.linalg.eigvalsh(S3))
    close(L.eigvalsh(t(np.swapaxes(lower_only, -1, -2)), UPLO="U"), np.linalg.eigvalsh(S3))


def test_pinv() -> None:
    a = rand(2, 4, 3, seed=34)
    close(L.pinv(t(a)), np.linalg.pinv(a))
    close(L.pinv(t(S3), hermitian=True), np.linalg.pinv(S3, hermitian=True))
    low_rank = rand(4, 1, seed=35) @ rand(1, 3, seed=36)
    close(L.pinv(t(low_rank)), np.linalg.pinv(low_rank))
    assert L.pinv(t(low_rank), atol=1e3).abs().sum().item() == 0
    with pytest.raises(
        RuntimeError, match=r"^linalg.pinv\(Long\{\[2, 2\]\}\): expected a tensor with 2 or more"
    ):
        L.pinv(t(np.ones((2, 2), np.int64)))


def test_rank_products_powers() -> None:
    a = rand(4, 2, seed=9) @ rand(2, 5, seed=10)
    assert L.matrix_rank(t(a)).item() == np.linalg.matrix_rank(a) == 2
    assert L.matrix_rank(t(S3), hermitian=True).tolist() == [3, 3]
    assert L.matrix_rank(t(a), atol=1e3).item() == 0
    x, y = rand(4, 3, seed=11), rand(4, 3, seed=12)
    close(L.cross(t(x), t(y)), np.cross(x, y))
    close(framework.cross(t(x.T), t(y.T), dim=0), np.cross(x.T, y.T, axis=0))
    close(L.vecdot(t(x), t(y)), (x * y).sum(-1))
    mats = [rand(2, 3, seed=13), rand(3, 4, seed=14), rand(4, 5, seed=15), rand(5, seed=16)]
    close(L.multi_dot([t(m) for m in mats]), np.linalg.multi_dot(mats))
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        close(framework.chain_matmul(*[t(m) for m in mats[:3]]), np.linalg.multi_dot(mats[:3]))
    for n in (0, 1, 3, -2):
        close(L.matrix_power(t(A3), n), np.linalg.matrix_power(A3, n), atol=1e-8)


def test_diagonals_and_indices() -> None:
    v = rand(3, seed=17)
    close(framework.diag(t(v), 1), np.diag(v, 1))
    close(framework.diag(t(A3[0]), -1), np.diag(A3[0], -1))
    close(framework.diagflat(t(A3[0]), 1), np.diagflat(A3[0], 1))
    embedded = framework.diag_embed(t(A3), 1, 0, 2)
    assert embedded.shape == (4, 2, 4, 3)
    close(embedded.diagonal(1, 0, 2), A3)
    assert framework.trace(t(rand(3, 4))).item() == pytest.approx(np.trace(rand(3, 4)))
    assert framework.trace(t(np.arange(6, dtype=np.int32).reshape(2, 3))).dtype is framework.int64
    for row, col, offset in ((3, 4, 1), (3, 2, -1), (4, 4, 0), (0, 3, 0)):
        lower = framework.tril_indices(row, col, offset)
        assert lower.dtype is framework.int64
        assert lower.tolist() == [list(i) for i in np.tril_indices(row, offset, col)]
        upper = framework.triu_indices(row, col, offset, dtype=framework.int32)
        assert upper.tolist() == [list(i) for i in np.triu_indices(row, offset, col)]


def test_products() -> None:
    a, b = rand(2, 3, seed=18), rand(3, 2, 2, seed=19)
    close(framework.kron(t(a), t(b)), np.kron(a, b))
    close(framework.tensordot(t(A3), t(S3), dims=([1, 2], [2, 1])), np.tensordot(A3, S3, ([1, 2], [2, 1])))
    close(framework.tensordot(t(A3), t(S3[0]), 2), np.tensordot(A3, S3[0], 2))
    close(framework.tensordot(t(a), t(a.T), dims=framework.tensor(1)), a @ a.T)
    vec = rand(3, seed=20)
    for equation, operands in (
        ("bij,bjk->bik", (A3, S3)),
        ("bii->bi", (A3,)),
        ("bij->", (A3,)),
        ("...ij,jk", (A3, a.T)),
        ("ij,jk,kl->il", (a, A3[0], a.T)),
        ("i,j", (vec, vec)),
        ("bij,j->bi", (A3, vec)),
        ("bij,bij->b", (A3, S3)),
        ("ji", (a,)),
        ("Ab,bA->", (a, a.T)),
    ):
        close(framework.einsum(equation, *[t(o) for o in operands]), np.einsum(equation, *operands))
    close(framework.einsum(t(A3), [0, 1, 2], t(S3), [0, 2, 3], [0, 1, 3]), A3 @ S3)
    close(framework.einsum("ij,jk", [t(a), t(a.T)]), a @ a.T)
    path = framework.ops.aten.einsum("ij,jk,kl->il", [t(a), t(A3[0]), t(a.T)], path=[1, 2, 0, 1])
    close(path, a @ A3[0] @ a.T)
    m, x = rand(2, 3, seed=21), rand(3, seed=22)
    close(framework.addmv(t(x[:2]), t(m), t(x), beta=0.5, alpha=2), 0.5 * x[:2] + 2 * m @ x)
    close(framework.addr(t(m), t(x[:2]), t(x), alpha=3), m + 3 * np.outer(x[:2], x))
    close(framework.baddbmm(t(A3), t(A3), t(S3), beta=2), 2 * A3 + A3 @ S3)
    close(framework.addbmm(t(A3[0]), t(A3), t(S3), alpha=0.5), A3[0] + 0.5 * (A3 @ S3).sum(0))
    inplace = t(A3[0])
    inplace.addbmm_(t(A3), t(S3))
    close(inplace, A3[0] + (A3 @ S3).sum(0))
    bools = framework.addr(t(np.zeros((2, 2), bool)), t(np.array([True, False])), t(np.array([True, True])))
    assert bools.tolist() == [[True, True], [False, False]]


def test_block_diag_cartesian_prod_distances() -> None:
    a, v = rand(2, 3, seed=23), rand(2, seed=24)
    block = framework.block_diag(t(a), t(v), framework.tensor(5.0))
    assert block.shape == (4, 6)
    close(block[:2, :3], a)
    close(block[2, 3:5], v)
    assert block[3, 5].item() == 5.0 and block[:2, 3:].abs().sum().item() == 0
    assert framework.block_diag().shape == (1, 0)
    pairs = framework.cartesian_prod(t(np.array([1, 2])), t(np.array([3, 4, 5])))
    assert pairs.tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    x1, x2 = rand(2, 4, 3, seed=25), rand(5, 3, seed=26)
    diff = x1[..., :, None, :] - x2[None, None]
    for p in (0.0, 1.0, 2.0, 3.0, math.inf):
        expected = (
            np.count_nonzero(diff, -1)
            if p == 0
            else np.abs(diff).max(-1)
            if p == math.inf
            else (np.abs(diff) ** p).sum(-1) ** (1 / p)
        )
        close(framework.cdist(t(x1), t(x2), p=p), expected)
    close(framework.cdist(t(x1), t(x2), compute_mode="use_mm_for_euclid_dist"), np.linalg.norm(diff, axis=-1))
    many = rand(30, 3, seed=27)
    close(
        framework.cdist(t(many), t(many[:4])), np.linalg.norm(many[:, None] - many[None, :4], axis=-1), 1e-7
    )
    close(framework.dist(t(x1), t(x2[0]), 3), (np.abs(x1 - x2[0]) ** 3).sum() ** (1 / 3))


# ---- errors, LinAlgError, info --------------------------------------------------------------------


def test_linalg_error_is_a_runtime_error_with_pytorchs_messages() -> None:
    singular = t(np.zeros((2, 2)))
    assert issubclass(L.LinAlgError, RuntimeError)
    with pytest.raises(L.LinAlgError, match=r"^linalg.inv: The diagonal element 1 is zero, the inversion"):
        L.inv(singular)
    batch = t(np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]]))
    with pytest.raises(
        L.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"
    ):
        L.inv(batch)
    inverse, info = L.inv_ex(batch)
    assert info.tolist() == [0, 2]
    close(inverse[0], np.eye(2))
    with pytest.raises(L.LinAlgError, match=r"^linalg\.inv_ex: "):
        L.inv_ex(batch, check_errors=True)
    with pytest.raises(
        L.LinAlgError, match=r"^torch.linalg.solve: The solver failed because the input matrix"
    ):
        L.solve(singular, t(np.ones(2)))
    assert L.solve_ex(singular, t(np.ones(2))).info.item() == 1
    not_pd = t(np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0])]))
    message = (
        r"^linalg.cholesky: \(Batch element 1\): The factorization could not be completed because the input "
        r"is not positive-definite \(the leading minor of order 2 is not positive-definite\)."
    )
    with pytest.raises(L.LinAlgError, match=message):
        L.cholesky(not_pd)
    factor, info = L.cholesky_ex(not_pd)
    assert info.tolist() == [0, 2]
    close(factor[1, 1, 1], -1.0)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: L.inv(t(np.ones((2, 3)))),
            RuntimeError,
            "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            lambda: L.inv(t(np.ones(3))),
            RuntimeError,
            "linalg.inv: The input tensor A must have at least 2 dimensions.",
        ),
        (
            lambda: L.inv(t(np.ones((2, 2), np.int64))),
            RuntimeError,
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long",
        ),
        (
            lambda: L.inv(t(np.ones((2, 2), np.float16))),
            RuntimeError,
            "linalg.inv: Low precision dtypes not supported. Got Half",
        ),
        (
            lambda: L.det(t(np.ones((2, 2), np.float16))),
            NotImplementedError,
            "\"lu_cpu\" not implemented for 'Half'",
        ),
        (
            lambda: framework.logdet(t(np.ones((2, 3)))),
            RuntimeError,
            "logdet: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            lambda: L.solve(t(np.eye(2)), t(np.ones(3))),
            RuntimeError,
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)",
        ),
        (
            lambda: L.solve(t(np.eye(2)), t(np.ones((2, 3))), left=False),
            RuntimeError,
            "linalg.solve: Incompatible shapes of A and B for the equation XA = B (2x2 and 2x3)",
        ),
        (
            lambda: L.solve(t(np.eye(2)).float(), t(np.ones(2))),
            RuntimeError,
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type "
            "Double instead",
        ),
        (
            lambda: L.qr(t(np.ones((2, 3))), mode="bad"),
            RuntimeError,
            "qr received unrecognized mode 'bad' but expected one of 'reduced' (default), 'r', or 'complete'",
        ),
        (
            lambda: L.svd(t(np.ones((2, 3))), driver="gesvd"),
            RuntimeError,
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
            "backend.",
        ),
        (
            lambda: L.eigh(t(np.eye(2)), UPLO="X"),
            RuntimeError,
            "Expected UPLO argument to be 'L' or 'U', but got X",
        ),
        (
            lambda: L.eigh(t(np.ones((2, 2), np.int64))),
            NotImplementedError,
            "\"linalg_eigh_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: L.matrix_norm(t(np.ones((2, 2))), 3),
            RuntimeError,
            "linalg.matrix_norm: Order 3 not supported.",
        ),
        (
            lambda: L.matrix_norm(t(np.ones((2, 2))), dim=(0, 0)),
            RuntimeError,
            "linalg.matrix_norm: dims must be different. Got (0, 0)",
        ),
        (
            lambda: L.norm(t(np.ones((2, 2, 2))), "fro"),
            RuntimeError,
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.",
        ),
        (
            lambda: L.cross(t(np.ones((2, 4))), t(np.ones((2, 4)))),
            RuntimeError,
            "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4",
        ),
        (
            lambda: L.multi_dot([t(np.ones((2, 2))), t(np.ones((3, 2)))]),
            RuntimeError,
            "multi_dot(): tensors 0 and 1 with shapes [2, 2] and [3, 2] cannot be multiplied",
        ),
        (
            lambda: L.multi_dot([t(np.ones((2, 2)))]),
            RuntimeError,
            "multi_dot(): expected at least 2 tensors but got 1",
        ),
        (
            lambda: L.vecdot(t(np.ones(3)), t(np.ones(3)).float()),
            RuntimeError,
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Double and y of "
            "type Float instead",
        ),
        (
            lambda: framework.trace(t(np.ones(3))),
            RuntimeError,
            "trace: expected a matrix, but got tensor with dim 1",
        ),
        (
            lambda: framework.diag(t(np.ones((2, 2, 2)))),
            RuntimeError,
            "diag(): Supports 1D or 2D tensors. Got 3D",
        ),
        (
            lambda: framework.diag_embed(t(np.ones(3)), dim1=0, dim2=0),
            RuntimeError,
            "diagonal dimensions cannot be identical 0, 0",
        ),
        (
            lambda: framework.tril_indices(3, 3, dtype=framework.float32),
            NotImplementedError,
            "\"tril_indices\" not implemented for 'Float'",
        ),
        (
            lambda: framework.tensordot(t(np.ones((2, 3))), t(np.ones((3, 2))), dims=([1], [1])),
            RuntimeError,
            "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 2 in "
            "dim 1",
        ),
        (
            lambda: framework.tensordot(t(np.ones((2, 3))), t(np.ones((3, 2))), dims=-1),
            RuntimeError,
            "tensordot expects dims >= 0, but got dims=-1",
        ),
        (
            lambda: framework.einsum("ij,jk", t(np.ones((2, 3))), t(np.ones((2, 2)))),
            RuntimeError,
            "einsum(): subscript j has size 2 for operand 1 which does not broadcast with previously seen "
            "size 3",
        ),
        (
            lambda: framework.einsum("ij->k", t(np.ones((2, 3)))),
            RuntimeError,
            "einsum(): output subscript k does not appear in the equation for any input operand",
        ),
        (
            lambda: framework.einsum("ijk->ij", t(np.ones((2, 3)))),
            RuntimeError,
            "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions "
            "(2) for operand 0 and no ellipsis was given",
        ),
        (
            lambda: framework.einsum("ii", t(np.ones((2, 3)))),
            RuntimeError,
            "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2",
        ),
        (
            lambda: framework.einsum("i,i", t(np.ones(2))),
            RuntimeError,
            "einsum(): fewer operands were provided than specified in the equation",
        ),
        (
            lambda: framework.block_diag(t(np.ones((2, 2, 2)))),
            RuntimeError,
            "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions",
        ),
        (
            lambda: framework.cartesian_prod(t(np.ones((2, 3)))),
            RuntimeError,
            "Expect a 1D vector, but got shape [2, 3]",
        ),
        (
            lambda: framework.cdist(t(np.ones(3)), t(np.ones(3))),
            RuntimeError,
            "cdist only supports at least 2D tensors, X1 got: 1D",
        ),
        (
            lambda: framework.cdist(t(np.ones((2, 3))), t(np.ones((2, 4)))),
            RuntimeError,
            "X1 and X2 must have the same number of columns. X1: 3 X2: 4",
        ),
        (
            lambda: framework.cdist(t(np.ones((2, 3))), t(np.ones((2, 3))), compute_mode="bad"),
            ValueError,
            "bad is not a valid value for compute_mode",
        ),
        (
            lambda: framework.addbmm(t(np.ones((2, 2))), t(np.ones((2, 2, 3))), t(np.ones((2, 2, 2)))),
            RuntimeError,
            "Incompatible matrix sizes for bmm (2x3 and 2x2)",
        ),
        (
            lambda: framework.addr(t(np.ones((2, 3))), t(np.ones((2, 2))), t(np.ones(3))),
            RuntimeError,
            "addr: Expected 1-D argument vec1, but got 2-D",
        ),
    ],
)
def test_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as info:
            call()
    assert str(info.value) == message


def test_cross_without_dim_warns_and_picks_the_first_size_3_dimension() -> None:
    x, y = rand(3, 2, seed=28), rand(3, 2, seed=29)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        close(framework.cross(t(x), t(y)), np.cross(x, y, axis=0))


# ---- return types, Meta, gradients --------------------------------------------------------------


def test_return_types() -> None:
    result = L.slogdet(t(A3))
    assert type(result) is framework.return_types.linalg_slogdet
    assert type(framework.slogdet(t(A3))) is framework.return_types.slogdet
    assert L.qr(t(A3)).R.shape == (2, 3, 3)
    assert L.svd(t(A3)).Vh.shape == (2, 3, 3)
    assert L.eigh(t(S3)).eigenvectors.shape == (2, 3, 3)
    assert L.inv_ex(t(A3)).info.shape == (2,)
    assert L.cholesky_ex(t(S3)).L.shape == (2, 3, 3)
    assert L.solve_ex(t(A3), t(A3)).result.shape == (2, 3, 3)


def test_meta_shapes() -> None:
    a = framework.empty(2, 4, 3, device="meta")
    square = framework.empty(2, 3, 3, device="meta")
    assert L.inv(square).shape == (2, 3, 3)
    assert L.det(square).shape == (2,)
    assert L.svd(a, full_matrices=False).U.shape == (2, 4, 3)
    assert L.qr(a, mode="complete").Q.shape == (2, 4, 4)
    assert L.eigh(square).eigenvalues.shape == (2, 3)
    assert framework.diag_embed(a).shape == (2, 4, 3, 3)
    assert framework.trace(a[0]).shape == ()
    assert framework.tril_indices(3, 3, device="meta").device.type == "meta"


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix() -> None:
    a = rand(3, 3, seed=30)
    a[2] = a[0] + a[1]
    x = t(a).requires_grad_()
    L.det(x).backward()
    cofactor = np.array(
        [
            [(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
            for i in range(3)
        ]
    )
    close(x.grad, cofactor, 1e-9)


def test_svdvals_of_a_rank_deficient_matrix_have_a_finite_gradient() -> None:
    x = t(rand(4, 1, seed=31) @ rand(1, 3, seed=32)).requires_grad_()
    L.svdvals(x).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_python_module_in_the_yaml() -> None:
    entry = "- func: linalg_foo(Tensor self) -> Tensor\n  python_module: {}\n"
    with pytest.raises(NativeFunctionsError, match="unknown python_module 'sparse'"):
        parse_native_functions(entry.format("sparse"))
    with pytest.raises(NativeFunctionsError, match="a python_module linalg operator is named linalg_"):
        parse_native_functions(entry.format("linalg").replace("linalg_foo", "foo"))
    assert "linalg_det" not in dir(framework) and "det" in framework.linalg.__all__


# ---- against PyTorch ------------------------------------------------------------------------------


def _cases() -> list[tuple[str, Callable[[Any, list[Any]], Any]]]:
    return [
        ("vector_norm", lambda m, x: m.linalg.vector_norm(x[0], 3, dim=1)),
        ("matrix_norm -inf", lambda m, x: m.linalg.matrix_norm(x[0], -math.inf, keepdim=True)),
        ("matrix_norm 1", lambda m, x: m.linalg.matrix_norm(x[0], 1)),
        ("norm nuc", lambda m, x: m.linalg.norm(x[0], "nuc", dim=(1, 2))),
        ("inv", lambda m, x: m.linalg.inv(x[0])),
        ("det", lambda m, x: m.det(x[0])),
        ("slogdet", lambda m, x: m.linalg.slogdet(x[0]).logabsdet),
        ("logdet", lambda m, x: m.logdet(x[1])),
        ("solve", lambda m, x: m.linalg.solve(x[0], x[2])),
        ("cholesky", lambda m, x: m.linalg.cholesky(x[1])),
        ("qr", lambda m, x: m.linalg.qr(x[0]).R),
        ("svdvals", lambda m, x: m.linalg.svdvals(x[0])),
        ("pinv", lambda m, x: m.linalg.pinv(x[0], rtol=0.1)),
        ("eigvalsh", lambda m, x: m.linalg.eigvalsh(x[1])),
        ("cross", lambda m, x: m.linalg.cross(x[0], x[1])),
        ("multi_dot", lambda m, x: m.linalg.multi_dot([x[0][0], x[1][0], x[0][1]])),
        ("matrix_power", lambda m, x: m.linalg.matrix_power(x[0], -1)),
        ("vecdot", lambda m, x: m.linalg.vecdot(x[0], x[1])),
        ("diag", lambda m, x: m.diag(x[2][0])),
        ("diag_embed", lambda m, x: m.diag_embed(x[0])),
        ("diagflat", lambda m, x: m.diagflat(x[2])),
        ("trace", lambda m, x: m.trace(x[0][0])),
        ("kron", lambda m, x: m.kron(x[0][0], x[1][0])),
        ("tensordot", lambda m, x: m.tensordot(x[0], x[1][0], 1)),
        ("einsum", lambda m, x: m.einsum("bij,bjk->bik", x[0], x[1])),
        ("einsum sum", lambda m, x: m.einsum("bij->", x[0])),
        ("addmv", lambda m, x: m.addmv(x[2][0], x[0][0], x[2][1], alpha=2)),
        ("addr", lambda m, x: m.addr(x[0][0], x[2][0], x[2][1])),
        ("baddbmm", lambda m, x: m.baddbmm(x[0], x[0], x[1])),
        ("addbmm", lambda m, x: m.addbmm(x[0][0], x[0], x[1])),
        ("block_diag", lambda m, x: m.block_diag(x[0][0], x[2][0])),
        ("cartesian_prod", lambda m, x: m.cartesian_prod(x[2][0], x[2][1])),
        ("cdist", lambda m, x: m.cdist(x[0], x[1], p=1.0)),
        ("cdist mm", lambda m, x: m.cdist(x[0], x[1], compute_mode="use_mm_for_euclid_dist")),
        ("dist", lambda m, x: m.dist(x[0], x[1])),
    ]


@needs_torch
@pytest.mark.parametrize(("name", "call"), _cases(), ids=[name for name, _ in _cases()])
def test_against_torch(name: str, call: Callable[[Any, list[Any]], Any]) -> None:
    import torch

    arrays = [A3, S3, rand(2, 3, seed=33)]
    ours = call(framework, [t(a).requires_grad_() for a in arrays])
    theirs = call(torch, [torch.tensor(a, requires_grad=True) for a in arrays])
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-10, rtol=1e-10)
    assert str(ours.dtype).rpartition(".")[2] == str(theirs.dtype).rpartition(".")[2]
    if name != "diag":  # PyTorch: DiagonalBackward0_copy (diagonal_copy); here diagonal + clone
        assert ours.grad_fn.name() == theirs.grad_fn.name()
