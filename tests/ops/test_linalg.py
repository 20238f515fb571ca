"""Linear algebra and joining operators against NumPy (always) and against PyTorch 2.13 (when it is
importable): values, result dtypes and shapes over every dtype, zero-size and zero-dim inputs,
non-contiguous inputs, out= and in-place variants, Meta tensors, and PyTorch's error messages.

Exactness: most value tests use small numbers with two fractional bits, whose products and sums
are exact in every dtype, so results are compared exactly even where summation orders differ
(BLAS blocking, PyTorch's kernels).  Tests on random floats compare bit-for-bit with `np.matmul`
(the kernels make that very call) and with a relative tolerance against PyTorch, whose BLAS sums
in another order.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from all_dtypes import ALL_DTYPES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import framework
from framework import Tensor
from framework.c10.dtypes import DTYPES, dtype

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None  # type: ignore[assignment]

Array = npt.NDArray[Any]
A: Any = framework.ops.aten

NUMERIC = ALL_DTYPES[1:]
BLAS = [framework.float32, framework.float64, framework.complex64, framework.complex128]
RTOL = {"float16": 1e-3, "float32": 1e-5, "float64": 1e-12, "complex64": 1e-5, "complex128": 1e-12}


# ---- helpers --------------------------------------------------------------------------------


def sample(shape: tuple[int, ...], d: dtype, seed: int = 0) -> Array:
    """Small values with two fractional bits (for floats): exact products and sums in every dtype."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape)
    if d is framework.bool:
        return values > 0
    if d is framework.uint8:
        return np.abs(values).astype(np.uint8)
    if d.is_complex:
        return (values + 1j * rng.integers(-3, 4, size=shape) / 2).astype(d.numpy_dtype)
    if d.is_floating_point:
        return (values + rng.integers(0, 4, size=shape) / 4).astype(d.numpy_dtype)
    return values.astype(d.numpy_dtype)


def randn(shape: tuple[int, ...], d: dtype, seed: int = 0) -> Array:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if d.is_complex:
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(d.numpy_dtype)


def T(a: Any) -> Tensor:
    return framework.from_numpy(np.asarray(a))


def meta(shape: tuple[int, ...], d: dtype = framework.float32) -> Tensor:
    result: Tensor = A.empty.memory_format(list(shape), dtype=d, device="meta")
    return result


def product(a: Array, b: Array) -> Array:
    """The reference matrix product: exact (int64/float64/complex128 accumulation of exact values),
    then cast to the inputs' dtype (integers wrap, as PyTorch's do)."""
    wide = np.int64 if a.dtype.kind in "biu" else (np.complex128 if a.dtype.kind == "c" else np.float64)
    return np.asarray(np.matmul(a.astype(wide), b.astype(wide))).astype(a.dtype)


def _to_torch(value: Any) -> Any:
    if isinstance(value, Tensor):
        if value.device.type == "meta":
            return torch.empty(value.shape, dtype=getattr(torch, value.dtype.name), device="meta")
        view, strides = value.numpy(), value.stride()
        assert isinstance(strides, tuple)
        if any(st == 0 and n > 1 for n, st in zip(value.shape, strides, strict=True)):
            with warnings.catch_warnings():  # an expanded input, never written: share it
                warnings.simplefilter("ignore")  # (read-only arrays)
                return torch.from_numpy(view)
        # A copy with the same strides (PyTorch's matmul folds by strides) and resizable storage.
        copy = torch.empty_strided(value.shape, strides, dtype=getattr(torch, value.dtype.name))
        return copy.copy_(torch.from_numpy(view.copy()))
    if isinstance(value, dtype):
        return getattr(torch, value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(v) for v in value)
    return value


def _op(module: Any, name: str) -> Any:
    packet, _, overload = name.partition(".")
    op = getattr(module, packet)
    return getattr(op, overload) if overload else op


def _same(ours: Tensor, theirs: Any, exact: bool) -> None:
    assert ours.dtype is DTYPES[str(theirs.dtype).removeprefix("torch.")], (ours.dtype, theirs.dtype)
    assert ours.shape == tuple(theirs.shape)
    if theirs.device.type == "meta":
        assert ours.device.type == "meta"
        return
    got, want = ours.numpy(), theirs.numpy()
    if exact or not (ours.dtype.is_floating_point or ours.dtype.is_complex):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=RTOL[ours.dtype.name], atol=1e-6, equal_nan=True)


def run(name: str, *args: Any, exact: bool = True, **kwargs: Any) -> Any:
    """Call `aten::name` here and, when PyTorch is importable, there too: same dtype, shape and
    values (exactly, unless `exact` is False); out= tensors are compared afterwards as well."""
    if torch is not None:  # converted first: in-place and out= calls change their arguments
        targs, tkwargs = _to_torch(list(args)), {k: _to_torch(v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _op(A, name)(*args, **kwargs)
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = _op(torch.ops.aten, name)(*targs, **tkwargs)
        _same(result, theirs, exact)
        for key, value in kwargs.items():
            if isinstance(value, Tensor):
                _same(value, tkwargs[key], exact)
    return result


def fails(exc: type[Exception], message: str, name: str, *args: Any, **kwargs: Any) -> None:
    """`aten::name(...)` raises `exc` with exactly PyTorch's `message` (checked live when possible)."""
    with pytest.raises(exc, match=f"^{re.escape(message)}$"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _op(A, name)(*args, **kwargs)
    if torch is not None:
        targs, tkwargs = _to_torch(list(args)), {k: _to_torch(v) for k, v in kwargs.items()}
        with pytest.raises(exc) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _op(torch.ops.aten, name)(*targs, **tkwargs)
        assert str(info.value).splitlines()[0] == message


def ones(shape: tuple[int, ...], d: dtype = framework.float32) -> Tensor:
    return T(np.ones(shape, dtype=d.numpy_dtype))


def empty(d: dtype = framework.float32, shape: tuple[int, ...] = (0,)) -> Tensor:
    """A zero-filled tensor with its own (resizable) storage, for out= arguments."""
    result: Tensor = A.zeros(list(shape), dtype=d)
    return result


def noncontiguous(d: dtype) -> Iterator[tuple[str, Array]]:
    """Transposed, stepped and broadcast (zero-stride) 2-D views, as NumPy arrays sharing memory."""
    base = sample((6, 8), d, seed=7)
    yield "transposed", base[:4, :4].T
    yield "stepped", base[::2, 1::2]
    yield "broadcast", np.broadcast_to(base[0, :4], (3, 4))


F32, F64, I64 = framework.float32, framework.float64, framework.int64


# ---- matmul: every rank case -----------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)),  # dot
    ((2, 3), (3,)),  # mv
    ((3,), (3, 4)),  # vector @ matrix
    ((2, 3), (3, 4)),  # mm
    ((5, 2, 3), (3, 4)),  # folded into mm
    ((5, 2, 3), (3,)),  # folded into mv
    ((3,), (5, 3, 4)),  # vector @ batch
    ((2, 3), (5, 3, 4)),  # matrix @ batch
    ((5, 2, 3), (5, 3, 4)),  # bmm
    ((1, 2, 3), (5, 3, 4)),  # broadcast batch
    ((2, 1, 2, 3), (5, 3, 4)),  # broadcast batch dims of different ranks
    ((0,), (0,)),
    ((2, 0), (0, 3)),
    ((0, 2, 3), (3, 4)),
    ((4, 0, 3), (3,)),
    ((3,), (0, 3, 2)),
    ((2, 3), (0, 3, 4)),
    ((2, 0, 2, 3), (1, 3, 0)),
]


def _ids(shapes: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[str]:
    return [f"{a}@{b}" for a, b in shapes]


@pytest.mark.parametrize("d", NUMERIC, ids=str)
@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES, ids=_ids(MATMUL_SHAPES))
def test_matmul_ranks_and_dtypes(sa: tuple[int, ...], sb: tuple[int, ...], d: dtype) -> None:
    a, b = sample(sa, d, 1), sample(sb, d, 2)
    result = run("matmul", T(a), T(b))
    assert result.dtype is d
    np.testing.assert_array_equal(result.numpy(), product(a, b))


@pytest.mark.parametrize("d", BLAS, ids=str)
@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES[:11], ids=_ids(MATMUL_SHAPES[:11]))
def test_matmul_random_floats_are_numpys_blas(sa: tuple[int, ...], sb: tuple[int, ...], d: dtype) -> None:
    a, b = randn(sa, d, 1), randn(sb, d, 2)
    result = run("matmul", T(a), T(b), exact=False)
    np.testing.assert_array_equal(result.numpy(), np.matmul(a, b))


@pytest.mark.parametrize("d", [framework.int32, framework.float32, framework.complex128], ids=str)
def test_matmul_noncontiguous_inputs(d: dtype) -> None:
    for _, a in noncontiguous(d):
        for _, b in noncontiguous(d):
            result = run("matmul", T(a), T(b.T))
            np.testing.assert_array_equal(result.numpy(), product(a, b.T))
    batch = sample((3, 4, 5), d)
    for view in (batch.transpose(0, 2, 1), batch[:, ::2], np.broadcast_to(batch[:1], (3, 4, 5))):
        for left, right in (
            (view, sample((view.shape[-1], 2), d, 3)),
            (sample((2, view.shape[-2]), d, 4), view),
        ):
            result = run("matmul", T(left), T(right))
            np.testing.assert_array_equal(result.numpy(), product(left, right))


def test_matmul_float16_accumulates_in_float32() -> None:
    # 2048 + 1 + 1 + ... : a float16 running sum stays at 2048 (its spacing there is 2).
    a = np.array([2048.0] + [1.0] * 8, dtype=np.float16)
    b = np.ones(9, dtype=np.float16)
    assert run("matmul", T(a), T(b)).item() == 2056.0
    assert run("mm", T(a[None]), T(b[:, None])).item() == 2056.0
    assert run("dot", T(a), T(b)).item() == 2056.0
    assert run("mv", T(a[None]), T(b)).item() == 2056.0
    assert run("bmm", T(a[None, None]), T(b[None, :, None])).item() == 2056.0


def test_matmul_float16_random_matches_float32_rounding() -> None:
    a, b = randn((16, 40), framework.float16, 1), randn((40, 8), framework.float16, 2)
    result = run("matmul", T(a), T(b), exact=False)
    np.testing.assert_array_equal(
        result.numpy(), np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    )


def test_matmul_integers_are_exact_and_wrap() -> None:
    big = np.array([[2**53 + 1, 3]], dtype=np.int64)
    assert run("matmul", T(big), T(np.array([[1], [0]], dtype=np.int64))).item() == 2**53 + 1
    hundreds = np.full((2, 3), 100, dtype=np.int8)  # 3 * 100 * 100 = 30000 = 48 (mod 256)
    np.testing.assert_array_equal(
        run("matmul", T(hundreds), T(hundreds.T.copy())).numpy(), np.full((2, 2), 48)
    )
    assert run("dot", T(np.full(3, 100, np.uint8)), T(np.full(3, 100, np.uint8))).item() == 48


def test_matmul_writes_into_its_output() -> None:
    a, b = randn((4, 5), F32), randn((5, 3), F32)
    out = T(np.full((4, 3), np.nan, dtype=np.float32))
    storage = out.numpy()
    assert A.matmul.out(T(a), T(b), out=out) is out
    np.testing.assert_array_equal(storage, np.matmul(a, b))


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    m=st.integers(0, 3),
    k=st.integers(0, 3),
    n=st.integers(0, 3),
    left_vector=st.booleans(),
    right_vector=st.booleans(),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None)
def test_matmul_broadcasting_hypothesis(
    shapes: Any, m: int, k: int, n: int, left_vector: bool, right_vector: bool, seed: int
) -> None:
    batch_a, batch_b = shapes.input_shapes
    sa = (k,) if left_vector else (*batch_a, m, k)
    sb = (k,) if right_vector else (*batch_b, k, n)
    a, b = sample(sa, I64, seed), sample(sb, I64, seed + 1)
    # An independent oracle: broadcast multiply and sum over the contracted axis.
    left = a[..., None, :] if left_vector else a
    right = b[:, None] if right_vector else b
    expected = (left[..., :, :, None] * right[..., None, :, :]).sum(axis=-2)
    if left_vector:
        expected = expected[..., 0, :]
    if right_vector:
        expected = expected[..., 0]
    result = run("matmul", T(a), T(b))
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)
    m_result = A.matmul(meta(sa, I64), meta(sb, I64))
    assert (m_result.shape, m_result.dtype, m_result.device.type) == (expected.shape, I64, "meta")


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES, ids=_ids(MATMUL_SHAPES))
def test_matmul_meta(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    result = run("matmul", meta(sa, F64), meta(sb, F64))
    assert result.shape == np.matmul(np.empty(sa), np.empty(sb)).shape
    assert result.dtype is F64 and result.device.type == "meta"


def test_matmul_meta_accepts_bool_like_pytorch() -> None:
    assert A.matmul(meta((2, 3), framework.bool), meta((3,), framework.bool)).shape == (2,)


MATMUL_ERRORS: list[tuple[tuple[int, ...], dtype, tuple[int, ...], dtype, str]] = [
    ((), F32, (3,), F32, "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    ((3,), F32, (), F32, "both arguments to matmul need to be at least 1D, but they are 1D and 0D"),
    (
        (3,),
        F32,
        (4,),
        F32,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
        "but got 3 and 4 elements respectively",
    ),
    ((3,), F32, (3,), F64, "dot : expected both vectors to have same dtype, but found Float and Double"),
    ((2, 3), F32, (4,), F32, "size mismatch, got input (2), mat (2x3), vec (4)"),
    (
        (2, 3),
        F32,
        (3,),
        F64,
        "addmv input tensors must have the same dtype, but got Double, Float, and Double",
    ),
    ((3,), F32, (4, 5), F32, "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
    ((2, 3), F32, (4, 5), F32, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ((2, 3), F32, (3, 2), F64, "expected m1 and m2 to have the same dtype, but got: float != double"),
    ((3,), F32, (3, 2), F64, "expected m1 and m2 to have the same dtype, but got: float != double"),
    ((6, 2, 3), F32, (4, 5), F32, "mat1 and mat2 shapes cannot be multiplied (12x3 and 4x5)"),
    ((6, 2, 3), F32, (4,), F32, "size mismatch, got input (12), mat (12x3), vec (4)"),
    (
        (4, 2, 3, 4),
        F32,
        (4,),
        F64,
        "addmv input tensors must have the same dtype, but got Double, Float, and Double",
    ),
    ((5, 2, 3), F32, (3, 2), F64, "expected m1 and m2 to have the same dtype, but got: float != double"),
    (
        (6, 2, 3),
        F32,
        (6, 4, 5),
        F32,
        "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 4].",
    ),
    (
        (3,),
        F32,
        (6, 4, 5),
        F32,
        "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 4].",
    ),
    (
        (2, 3),
        F32,
        (6, 4, 5),
        F32,
        "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 4].",
    ),
    ((5, 2, 3), F32, (5, 3, 2), F64, "expected scalar type Float but found Double"),
    ((4,), F64, (4, 2, 4, 3), F32, "expected scalar type Double but found Float"),
    (
        (6, 2, 3),
        F32,
        (5, 3, 5),
        F32,
        "The size of tensor a (6) must match the size of tensor b (5) at non-singleton dimension 0",
    ),
    (
        (2, 6, 2, 3),
        F32,
        (3, 3, 5),
        F32,
        "The size of tensor a (6) must match the size of tensor b (3) at non-singleton dimension 1",
    ),
    ((0, 2, 3), F32, (4,), F32, "size mismatch, got input (0), mat (0x3), vec (4)"),
]


@pytest.mark.parametrize(
    ("sa", "da", "sb", "db", "message"), MATMUL_ERRORS, ids=[e[-1][:40] for e in MATMUL_ERRORS]
)
def test_matmul_errors(sa: tuple[int, ...], da: dtype, sb: tuple[int, ...], db: dtype, message: str) -> None:
    fails(RuntimeError, message, "matmul", ones(sa, da), ones(sb, db))
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        A.matmul(meta(sa, da), meta(sb, db))


def test_matmul_error_follows_pytorchs_folding_of_strided_operands() -> None:
    # A batch that cannot be folded without a copy goes to bmm, and so does its error.
    batch = T(np.ones((4, 2, 3, 4), np.float32).transpose(1, 0, 2, 3))
    fails(
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [8, 4] but got: [8, 3].",
        "matmul",
        batch,
        ones((3,)),
    )
    # The transpose of a contiguous batch folds: vector @ batch becomes an mv.
    transposed = T(np.ones((4, 2, 3), np.float32).transpose(0, 2, 1))
    fails(RuntimeError, "size mismatch, got input (8), mat (8x3), vec (4)", "matmul", ones((4,)), transposed)
    fails(
        RuntimeError,
        "size mismatch, got input (0), mat (0x2), vec (4)",
        "matmul",
        ones((4,)),
        ones((0, 2, 3)),
    )


@pytest.mark.parametrize(
    ("sa", "sb", "kernel"),
    [
        ((3,), (3,), "dot"),
        ((2, 3), (3,), "addmv_impl_cpu"),
        ((3,), (3, 2), "addmm_impl_cpu_"),
        ((2, 3), (3, 2), "addmm_impl_cpu_"),
        ((4, 2, 3), (3, 2), "addmm_impl_cpu_"),
        ((4, 2, 3), (3,), "addmv_impl_cpu"),
        ((4, 2, 3), (4, 3, 2), "bmm"),
        ((2, 3), (4, 3, 2), "bmm"),
    ],
)
def test_matmul_bool_is_not_implemented(sa: tuple[int, ...], sb: tuple[int, ...], kernel: str) -> None:
    b = framework.bool
    fails(RuntimeError, f"\"{kernel}\" not implemented for 'Bool'", "matmul", ones(sa, b), ones(sb, b))


def test_matmul_devices_must_match() -> None:
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        A.matmul(ones((2, 3)), meta((3, 2)))


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES[:11], ids=_ids(MATMUL_SHAPES[:11]))
def test_matmul_out(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a, b = sample(sa, F64, 1), sample(sb, F64, 2)
    out = empty(F64)
    assert run("matmul.out", T(a), T(b), out=out) is out
    np.testing.assert_array_equal(out.numpy(), product(a, b))
    m_out = meta((0,), F64)
    assert A.matmul.out(meta(sa, F64), meta(sb, F64), out=m_out) is m_out
    assert m_out.shape == out.shape


def test_matmul_out_resizes_with_pytorchs_warning() -> None:
    out = empty(F32, (5,))
    with pytest.warns(
        UserWarning, match=re.escape("had shape [5], which does not match the required output shape [2, 2]")
    ):
        A.matmul.out(ones((2, 3)), ones((3, 2)), out=out)
    assert out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 3.0))


@pytest.mark.parametrize(
    ("sa", "sb", "out_shape", "message"),
    [
        ((3,), (3,), (0,), "result dtype Long does not match input dtype Float"),
        ((2, 3), (3,), (2,), "addmv input tensors must have the same dtype, but got Long, Float, and Float"),
        ((2, 3), (3,), (5,), "Expected out tensor to have dtype float, but got long int instead"),
        (
            (4, 2, 3),
            (3,),
            (0,),
            "addmv input tensors must have the same dtype, but got Long, Float, and Float",
        ),
        ((3,), (3, 2), (0,), "Expected out tensor to have dtype float, but got long int instead"),
        ((2, 3), (3, 2), (0,), "Expected out tensor to have dtype float, but got long int instead"),
        ((4, 2, 3), (3, 2), (0,), "Expected out tensor to have dtype float, but got long int instead"),
        ((4, 2, 3), (4, 3, 2), (0,), "Expected out tensor to have dtype float, but got long int instead"),
        ((3,), (4, 3, 2), (0,), "Expected out tensor to have dtype float, but got long int instead"),
    ],
)
def test_matmul_out_dtype_errors(
    sa: tuple[int, ...], sb: tuple[int, ...], out_shape: tuple[int, ...], message: str
) -> None:
    fails(RuntimeError, message, "matmul.out", ones(sa), ones(sb), out=empty(I64, out_shape))


# ---- mm, bmm, mv, dot -----------------------------------------------------------------------

PRODUCTS: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = [
    ("mm", (2, 3), (3, 4)),
    ("mm", (0, 3), (3, 4)),
    ("mm", (2, 0), (0, 4)),
    ("bmm", (3, 2, 3), (3, 3, 4)),
    ("bmm", (0, 2, 3), (0, 3, 4)),
    ("bmm", (2, 2, 0), (2, 0, 3)),
    ("mv", (2, 3), (3,)),
    ("mv", (0, 3), (3,)),
    ("mv", (2, 0), (0,)),
    ("dot", (5,), (5,)),
    ("dot", (0,), (0,)),
]


@pytest.mark.parametrize("d", NUMERIC, ids=str)
@pytest.mark.parametrize(("name", "sa", "sb"), PRODUCTS, ids=[f"{n}{a}{b}" for n, a, b in PRODUCTS])
def test_products(name: str, sa: tuple[int, ...], sb: tuple[int, ...], d: dtype) -> None:
    a, b = sample(sa, d, 3), sample(sb, d, 4)
    result = run(name, T(a), T(b))
    assert result.dtype is d
    np.testing.assert_array_equal(result.numpy(), product(a, b))
    out = empty(d)
    assert run(f"{name}.out", T(a), T(b), out=out) is out
    np.testing.assert_array_equal(out.numpy(), product(a, b))
    m = run(name, meta(sa, d), meta(sb, d))
    assert m.shape == result.shape and m.dtype is d


@pytest.mark.parametrize("d", BLAS, ids=str)
def test_products_random_floats(d: dtype) -> None:
    a, b, v = randn((3, 7, 5), d, 1), randn((3, 5, 6), d, 2), randn((5,), d, 3)
    np.testing.assert_array_equal(run("bmm", T(a), T(b), exact=False).numpy(), np.matmul(a, b))
    np.testing.assert_array_equal(run("mm", T(a[0]), T(b[1]), exact=False).numpy(), np.matmul(a[0], b[1]))
    np.testing.assert_array_equal(run("mv", T(a[0]), T(v), exact=False).numpy(), np.matmul(a[0], v))
    np.testing.assert_array_equal(run("dot", T(v), T(a[0, 0]), exact=False).numpy(), np.matmul(v, a[0, 0]))


def test_dot_does_not_conjugate() -> None:
    a = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    assert run("dot", T(a), T(a)).item() == (1 + 2j) ** 2 + (3 - 1j) ** 2


@pytest.mark.parametrize("d", [framework.int16, framework.float32], ids=str)
def test_products_noncontiguous(d: dtype) -> None:
    for _, a in noncontiguous(d):
        np.testing.assert_array_equal(run("mm", T(a), T(a.T)).numpy(), product(a, a.T))
        np.testing.assert_array_equal(run("mv", T(a), T(a[0])).numpy(), product(a, a[0]))
        np.testing.assert_array_equal(run("dot", T(a[:, 1]), T(a[:, 0])).numpy(), product(a[:, 1], a[:, 0]))
    batch = sample((3, 4, 5), d).transpose(2, 1, 0)[::2]
    np.testing.assert_array_equal(
        run("bmm", T(batch), T(batch.transpose(0, 2, 1))).numpy(), product(batch, batch.transpose(0, 2, 1))
    )


def test_products_out_noncontiguous_and_resized() -> None:
    a, b = sample((3, 4), F32, 1), sample((4, 3), F32, 2)
    storage = np.zeros((3, 3), dtype=np.float32)
    out = T(storage.T)
    A.mm.out(T(a), T(b), out=out)
    np.testing.assert_array_equal(storage.T, product(a, b))
    out = empty(F32, (7,))
    with pytest.warns(
        UserWarning, match=re.escape("had shape [7], which does not match the required output shape [3, 3]")
    ):
        A.mm.out(T(a), T(b), out=out)
    np.testing.assert_array_equal(out.numpy(), product(a, b))


PRODUCT_ERRORS: list[tuple[type[Exception], str, str, tuple[Any, ...], dict[str, Any]]] = [
    (RuntimeError, "self must be a matrix", "mm", (ones((3,)), ones((3, 4))), {}),
    (RuntimeError, "mat2 must be a matrix", "mm", (ones((2, 3)), ones((3,))), {}),
    (
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
        "mm",
        (ones((2, 3)), ones((4, 2), F64)),
        {},
    ),
    (
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: int != double",
        "mm",
        (ones((2, 3), framework.int32), ones((3, 2), F64)),
        {},
    ),
    (
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: c10::Half != long int",
        "mm",
        (ones((2, 3), framework.float16), ones((3, 2), I64)),
        {},
    ),
    (
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: unsigned char != signed char",
        "mm",
        (ones((2, 3), framework.uint8), ones((3, 2), framework.int8)),
        {},
    ),
    (
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: short int != c10::complex<float>",
        "mm",
        (ones((2, 3), framework.int16), ones((3, 2), framework.complex64)),
        {},
    ),
    (
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: bool != c10::complex<double>",
        "mm",
        (ones((2, 3), framework.bool), ones((3, 2), framework.complex128)),
        {},
    ),
    (
        RuntimeError,
        "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        "mm",
        (ones((2, 3), framework.bool), ones((3, 2), framework.bool)),
        {},
    ),
    (
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "mm.out",
        (ones((2, 3)), ones((3, 2))),
        {"out": empty(F64)},
    ),
    (RuntimeError, "batch1 must be a 3D tensor", "bmm", (ones((2, 3)), ones((3, 4))), {}),
    (RuntimeError, "batch2 must be a 3D tensor", "bmm", (ones((2, 2, 3)), ones((3, 4))), {}),
    (
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].",
        "bmm",
        (ones((2, 2, 3)), ones((3, 3, 4))),
        {},
    ),
    (
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
        "bmm",
        (ones((2, 2, 3)), ones((2, 4, 4), F64)),
        {},
    ),
    (
        RuntimeError,
        "expected scalar type Int but found Double",
        "bmm",
        (ones((2, 2, 3), framework.int32), ones((2, 3, 4), F64)),
        {},
    ),
    (
        RuntimeError,
        "\"bmm\" not implemented for 'Bool'",
        "bmm",
        (ones((2, 2, 3), framework.bool), ones((2, 3, 4), framework.bool)),
        {},
    ),
    (
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "bmm.out",
        (ones((1, 2, 3)), ones((1, 3, 2))),
        {"out": empty(I64)},
    ),
    (RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)", "mv", (ones((2, 3)), ones((4,))), {}),
    (
        RuntimeError,
        "size mismatch, got input (2), mat (2x3), vec (4)",
        "mv",
        (ones((2, 3), F64), ones((4,))),
        {},
    ),
    (RuntimeError, "vector + matrix @ vector expected, got 1, 2, 2", "mv", (ones((2, 3)), ones((3, 1))), {}),
    (RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1", "mv", (ones((3,)), ones((3,))), {}),
    (IndexError, "Dimension specified as 0 but tensor has no dimensions", "mv", (ones(()), ones((3,))), {}),
    (
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Double, Float, and Double",
        "mv",
        (ones((2, 3)), ones((3,), F64)),
        {},
    ),
    (
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Long, Int, and Long",
        "mv",
        (ones((2, 3), framework.int32), ones((3,), I64)),
        {},
    ),
    (
        RuntimeError,
        "\"addmv_impl_cpu\" not implemented for 'Bool'",
        "mv",
        (ones((2, 3), framework.bool), ones((3,), framework.bool)),
        {},
    ),
    (
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Long, Float, and Float",
        "mv.out",
        (ones((2, 3)), ones((3,))),
        {"out": empty(I64, (2,))},
    ),
    (
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Long, Float, and Float",
        "mv.out",
        (ones((2, 3)), ones((3,))),
        {"out": empty(I64, ())},
    ),
    (
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "mv.out",
        (ones((2, 3)), ones((3,))),
        {"out": empty(I64, (5,))},
    ),
    (
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "mv.out",
        (ones((2, 3)), ones((3,))),
        {"out": empty(I64, (2, 1))},
    ),
    (
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Float, Float, and Double",
        "mv.out",
        (ones((2, 3)), ones((3,), F64)),
        {"out": empty(F32, (2,))},
    ),
    (
        RuntimeError,
        "size mismatch, got input (1), mat (2x3), vec (4)",
        "mv.out",
        (ones((2, 3)), ones((4,))),
        {"out": empty(F32, (1,))},
    ),
    (RuntimeError, "1D tensors expected, but got 2D and 2D tensors", "dot", (ones((2, 3)), ones((2, 3))), {}),
    (RuntimeError, "1D tensors expected, but got 1D and 0D tensors", "dot", (ones((3,)), ones(())), {}),
    (
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
        "dot",
        (ones((3,)), ones((4,), F64)),
        {},
    ),
    (
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Int and Double",
        "dot",
        (ones((3,), framework.int32), ones((3,), F64)),
        {},
    ),
    (
        RuntimeError,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but "
        "got 3 and 4 elements respectively",
        "dot",
        (ones((3,), framework.bool), ones((4,), framework.bool)),
        {},
    ),
    (
        RuntimeError,
        "\"dot\" not implemented for 'Bool'",
        "dot",
        (ones((3,), framework.bool), ones((3,), framework.bool)),
        {},
    ),
    (
        RuntimeError,
        "result dtype Long does not match input dtype Int",
        "dot.out",
        (ones((3,), framework.int32), ones((3,), framework.int32)),
        {"out": empty(I64)},
    ),
]


@pytest.mark.parametrize(
    ("exc", "message", "name", "args", "kwargs"), PRODUCT_ERRORS, ids=[e[1][:50] for e in PRODUCT_ERRORS]
)
def test_product_errors(
    exc: type[Exception], message: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    fails(exc, message, name, *args, **kwargs)


def test_products_meta_accept_bool_like_pytorch() -> None:
    b = framework.bool
    assert A.mm(meta((2, 3), b), meta((3, 2), b)).shape == (2, 2)
    assert A.bmm(meta((4, 2, 3), b), meta((4, 3, 2), b)).shape == (4, 2, 2)
    assert A.mv(meta((2, 3), b), meta((3,), b)).shape == (2,)
    assert A.dot(meta((3,), b), meta((3,), b)).shape == ()


# ---- addmm ----------------------------------------------------------------------------------

ADDMM_SELF_SHAPES = [(2, 4), (4,), (1, 4), (2, 1), (1,), ()]


@pytest.mark.parametrize("d", NUMERIC, ids=str)
@pytest.mark.parametrize("self_shape", ADDMM_SELF_SHAPES, ids=str)
def test_addmm(self_shape: tuple[int, ...], d: dtype) -> None:
    s, a, b = sample(self_shape, d, 1), sample((2, 3), d, 2), sample((3, 4), d, 3)
    beta, alpha = (2, 3) if d is not framework.uint8 else (2, 1)
    result = run("addmm", T(s), T(a), T(b), beta=beta, alpha=alpha)
    wide = product(a, b).astype(np.complex128 if d.is_complex else np.float64)
    expected = beta * s.astype(wide.dtype) + alpha * wide
    assert result.dtype is d and result.shape == (2, 4)
    np.testing.assert_array_equal(result.numpy(), expected.astype(d.numpy_dtype))
    assert run("addmm", meta(self_shape, d), meta((2, 3), d), meta((3, 4), d)).shape == (2, 4)


def test_addmm_scalars_convert_to_the_dtype() -> None:
    s, a, b = ones((2, 2), framework.int32), ones((2, 3), framework.int32), ones((3, 2), framework.int32)
    np.testing.assert_array_equal(run("addmm", s, a, b, alpha=1.5).numpy(), np.full((2, 2), 4))
    np.testing.assert_array_equal(run("addmm", s, a, b, beta=1.5).numpy(), np.full((2, 2), 4))
    np.testing.assert_array_equal(run("addmm", s, a, b, beta=-1.7, alpha=-1.7).numpy(), np.full((2, 2), -4))
    np.testing.assert_array_equal(run("addmm", s, a, b, beta=True, alpha=3).numpy(), np.full((2, 2), 10))
    u = framework.uint8
    assert run("addmm", ones((1, 1), u), ones((1, 1), u), ones((1, 1), u), beta=0, alpha=-1).item() == 255
    assert run("addmm", ones((1, 1), u), ones((1, 1), u), ones((1, 1), u), beta=0, alpha=-129).item() == 127
    c = framework.complex64
    assert run("addmm", ones((1, 1), c), ones((1, 1), c), ones((1, 1), c), beta=1j, alpha=2j).item() == 3j
    assert run("addmm", ones((1, 1)), ones((1, 1)), ones((1, 1)), alpha=1 + 0j).item() == 2.0
    h = framework.float16
    assert run(
        "addmm", ones((1, 1), h), ones((1, 1), h), ones((1, 1), h), beta=0.1, alpha=0.3
    ).item() == np.float16(0.4)
    assert run("addmm", ones((1, 1), h), ones((1, 1), h), ones((1, 1), h), alpha=1e6).item() == np.inf


def test_addmm_beta_zero_ignores_self_and_alpha_zero_skips_blas_products() -> None:
    nan_self = T(np.full((2, 2), np.nan, np.float32))
    np.testing.assert_array_equal(
        run("addmm", nan_self, ones((2, 3)), ones((3, 2)), beta=0).numpy(), np.full((2, 2), 3.0)
    )
    for d in BLAS:
        nan_mat = T(np.full((2, 3), np.nan, d.numpy_dtype))
        result = run("addmm", ones((2, 2), d), nan_mat, ones((3, 2), d), alpha=0)
        np.testing.assert_array_equal(result.numpy(), np.ones((2, 2)))
    both_zero = run("addmm", nan_self, T(np.full((2, 3), np.nan, np.float32)), ones((3, 2)), beta=0, alpha=0)
    np.testing.assert_array_equal(both_zero.numpy(), np.zeros((2, 2)))
    # float16 is not multiplied by BLAS in PyTorch: 0 * NaN stays NaN.
    h = framework.float16
    result = run("addmm", ones((2, 2), h), T(np.full((2, 3), np.nan, np.float16)), ones((3, 2), h), alpha=0)
    assert np.isnan(result.numpy()).all()
    np.testing.assert_array_equal(
        run("addmm", ones((2, 2)), ones((2, 0)), ones((0, 2)), beta=2).numpy(), np.full((2, 2), 2.0)
    )


def test_addmm_random_floats() -> None:
    s, a, b = randn((5, 6), F64, 1), randn((5, 7), F64, 2), randn((7, 6), F64, 3)
    result = run("addmm", T(s), T(a), T(b), beta=0.5, alpha=-2.0, exact=False)
    np.testing.assert_allclose(result.numpy(), 0.5 * s + -2.0 * (a @ b), rtol=1e-12)


def test_addmm_inplace_and_out() -> None:
    s, a, b = sample((2, 4), F32, 1), sample((2, 3), F32, 2), sample((3, 4), F32, 3)
    expected = 2 * s + product(a, b)
    target = T(s.copy())
    assert run("addmm_", target, T(a), T(b), beta=2) is target
    np.testing.assert_array_equal(target.numpy(), expected)
    # in place on a transposed (non-contiguous) self: the product must not overwrite self early
    storage = s.T.copy()
    target = T(storage.T)
    A.addmm_(target, T(a), T(b), beta=2)
    np.testing.assert_array_equal(storage.T, expected)
    out = empty(F32)
    assert run("addmm.out", T(s), T(a), T(b), beta=2, out=out) is out
    np.testing.assert_array_equal(out.numpy(), expected)
    # out= aliasing self
    aliased = T(s.copy())
    A.addmm.out(aliased, T(a), T(b), beta=2, out=aliased)
    np.testing.assert_array_equal(aliased.numpy(), expected)
    m = meta((2, 4))
    assert A.addmm_(m, meta((2, 3)), meta((3, 4))) is m


ADDMM_ERRORS: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = [
    ("addmm", "mat1 must be a matrix, got 3-D tensor", (ones((2, 2)), ones((2, 3, 1)), ones((3, 2))), {}),
    ("addmm", "mat2 must be a matrix, got 1-D tensor", (ones((2, 2)), ones((2, 3)), ones((3,))), {}),
    (
        "addmm",
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
        (ones((3,)), ones((2, 3)), ones((4, 2))),
        {},
    ),
    (
        "addmm",
        "mat1 and mat2 must have the same dtype, but got Double and Float",
        (ones((3,)), ones((2, 3), F64), ones((3, 2))),
        {},
    ),
    (
        "addmm",
        "self and mat2 must have the same dtype, but got Double and Float",
        (ones((2, 2), F64), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm",
        "self and mat2 must have the same dtype, but got Float and Double",
        (ones((2, 2)), ones((2, 3), F64), ones((3, 2), F64)),
        {},
    ),
    (
        "addmm",
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  "
        "Target sizes: [2, 2].  Tensor sizes: [3]",
        (ones((3,)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm",
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  "
        "Target sizes: [2, 2].  Tensor sizes: [3, 2]",
        (ones((3, 2)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm",
        "expand(torch.FloatTensor{[1, 2, 2]}, size=[2, 2]): the number of sizes provided (2) must be "
        "greater or equal to the number of dimensions in the tensor (3)",
        (ones((1, 2, 2)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm",
        "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        (ones((2, 2), framework.bool), ones((2, 3), framework.bool), ones((3, 2), framework.bool)),
        {},
    ),
    (
        "addmm.out",
        "Expected out tensor to have dtype float, but got double instead",
        (ones((2, 2)), ones((2, 3)), ones((3, 2))),
        {"out": empty(F64)},
    ),
    (
        "addmm.out",
        "self and mat2 must have the same dtype, but got Double and Float",
        (ones((2, 2), F64), ones((2, 3)), ones((3, 2))),
        {"out": empty(F64)},
    ),
    (
        "addmm_",
        "Bad in-place call: input tensor size [2] and output tensor size [2, 2] should match",
        (ones((2,)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm_",
        "Bad in-place call: input tensor size [1, 2] and output tensor size [2, 2] should match",
        (ones((1, 2)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm_",
        "Bad in-place call: input tensor size [3] and output tensor size [2, 2] should match",
        (ones((3,)), ones((2, 3)), ones((3, 2))),
        {},
    ),
    (
        "addmm_",
        "mat1 and mat2 shapes cannot be multiplied (2x4 and 3x2)",
        (ones((2, 2)), ones((2, 4)), ones((3, 2))),
        {},
    ),
    (
        "addmm_",
        "self and mat2 must have the same dtype, but got Double and Float",
        (ones((2, 2), F64), ones((2, 3)), ones((3, 2))),
        {},
    ),
]


@pytest.mark.parametrize(
    ("name", "message", "args", "kwargs"), ADDMM_ERRORS, ids=[e[1][:50] for e in ADDMM_ERRORS]
)
def test_addmm_errors(name: str, message: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    fails(RuntimeError, message, name, *args, **kwargs)


@pytest.mark.parametrize(
    ("d", "value", "type_name"),
    [
        (framework.uint8, 256, "uint8_t"),
        (framework.uint8, -256, "uint8_t"),
        (framework.uint8, -1.7, "uint8_t"),
        (framework.int8, 200, "int8_t"),
        (framework.int8, 300.5, "int8_t"),
        (framework.int16, 1e40, "int16_t"),
        (framework.int32, float("nan"), "int"),
        (framework.int32, 1j, "int"),
        (framework.int64, 2**63, "int64_t"),
        (framework.int64, float("inf"), "int64_t"),
        (framework.float16, 1j, "float"),
        (framework.float16, 1e40, "float"),
        (framework.float32, 1e40, "float"),
        (framework.float64, 1j, "double"),
        (framework.complex64, 1e40, "c10::complex<float>"),
    ],
)
def test_addmm_scalar_overflow(d: dtype, value: Any, type_name: str) -> None:
    message = f"value cannot be converted to type {type_name} without overflow"
    fails(RuntimeError, message, "addmm", ones((1, 1), d), ones((1, 1), d), ones((1, 1), d), alpha=value)
    fails(RuntimeError, message, "addmm", ones((1, 1), d), ones((1, 1), d), ones((1, 1), d), beta=value)


# ---- outer / ger ----------------------------------------------------------------------------


@pytest.mark.parametrize("da", ALL_DTYPES, ids=str)
@pytest.mark.parametrize(
    "db",
    [
        framework.bool,
        framework.uint8,
        framework.int32,
        framework.float16,
        framework.float64,
        framework.complex64,
    ],
    ids=str,
)
def test_outer_promotes(da: dtype, db: dtype) -> None:
    a, b = sample((3,), da, 1), sample((4,), db, 2)
    result = run("outer", T(a), T(b))
    want = np.multiply.outer(a, b).astype(result.dtype.numpy_dtype)
    assert result.dtype is framework.promote_types(da, db)
    np.testing.assert_array_equal(result.numpy(), want)


def test_outer_zero_size_noncontiguous_out_and_meta() -> None:
    assert run("outer", ones((0,)), ones((3,))).shape == (0, 3)
    base = sample((4, 6), framework.int32)
    np.testing.assert_array_equal(
        run("outer", T(base[:, 1]), T(base[0, ::2])).numpy(), np.multiply.outer(base[:, 1], base[0, ::2])
    )
    out = empty(F64)
    run("outer.out", T(base[0]), T(base[1]), out=out)
    assert out.dtype is F64
    np.testing.assert_array_equal(out.numpy(), np.multiply.outer(base[0], base[1]))
    m = run("outer", meta((2,), framework.int32), meta((3,), F32))
    assert m.shape == (2, 3) and m.dtype is F32


def test_ger_is_outer_with_a_deprecation_warning() -> None:
    a, b = sample((3,), F32), sample((2,), F32, 1)
    with pytest.warns(
        UserWarning, match="torch.ger is deprecated and will be removed in a future PyTorch release"
    ):
        result = A.ger(T(a), T(b))
    np.testing.assert_array_equal(result.numpy(), np.multiply.outer(a, b))
    out = empty(F64)
    with pytest.warns(UserWarning, match="Use torch.outer instead"):
        assert A.ger.out(T(a), T(b), out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.multiply.outer(a, b))
    run("ger", T(a), T(b))


@pytest.mark.parametrize(
    ("name", "message", "args", "kwargs"),
    [
        ("outer", "outer: Expected 1-D argument self, but got 2-D", (ones((2, 2)), ones((3,))), {}),
        ("outer", "outer: Expected 1-D argument vec2, but got 2-D", (ones((2,)), ones((3, 3))), {}),
        ("outer", "outer: Expected 1-D argument self, but got 0-D", (ones(()), ones((3,))), {}),
        ("ger", "outer: Expected 1-D argument self, but got 2-D", (ones((2, 2)), ones((3,))), {}),
        (
            "outer.out",
            "result type Float can't be cast to the desired output type Long",
            (ones((2,)), ones((3,))),
            {"out": empty(I64)},
        ),
        (
            "ger.out",
            "result type Float can't be cast to the desired output type Long",
            (ones((2,)), ones((3,))),
            {"out": empty(I64)},
        ),
    ],
)
def test_outer_errors(name: str, message: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    fails(RuntimeError, message, name, *args, **kwargs)


# ---- cat ------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_cat_dims_and_dtypes(d: dtype, dim: int) -> None:
    shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    sizes = [1, 0, 3]
    arrays = []
    for i, (shape, size) in enumerate(zip(shapes, sizes, strict=True)):
        shape_list = list(shape)
        shape_list[dim] = size
        arrays.append(sample(tuple(shape_list), d, i))
    result = run("cat", [T(a) for a in arrays], dim)
    assert result.dtype is d
    np.testing.assert_array_equal(result.numpy(), np.concatenate(arrays, axis=dim))
    m = run("cat", [meta(a.shape, d) for a in arrays], dim)
    assert m.shape == result.shape


@pytest.mark.parametrize(
    ("dtypes", "result"),
    [
        ((framework.int8, framework.uint8), framework.int16),
        ((framework.bool, framework.float16), framework.float16),
        ((framework.int64, framework.complex64), framework.complex64),
        ((framework.float64, framework.complex64), framework.complex128),
        ((framework.int32, framework.bool, framework.float32), framework.float32),
    ],
)
def test_cat_promotes(dtypes: tuple[dtype, ...], result: dtype) -> None:
    arrays = [sample((2, i + 1), d, i) for i, d in enumerate(dtypes)]
    out = run("cat", [T(a) for a in arrays], 1)
    assert out.dtype is result
    np.testing.assert_array_equal(
        out.numpy(), np.concatenate([a.astype(result.numpy_dtype) for a in arrays], axis=1)
    )


def test_cat_legacy_empty_tensors_are_skipped_but_promote() -> None:
    x = sample((2, 3), F32)
    np.testing.assert_array_equal(run("cat", [T(x), empty(F32)], 0).numpy(), x)
    np.testing.assert_array_equal(run("cat", [empty(F32), T(x)], 1).numpy(), x)
    skipped = run("cat", [empty(F64), T(x.astype(np.int32))], 0)
    assert skipped.dtype is F64
    np.testing.assert_array_equal(skipped.numpy(), x.astype(np.int32))
    only_empty = run("cat", [empty(framework.int32), empty(F32)], 5)  # no dim check without a kept tensor
    assert only_empty.shape == (0,) and only_empty.dtype is F32
    assert run("cat", [empty(F32, (0, 3)), T(x)], 0).shape == (2, 3)  # 2-D empty tensors are not skipped
    assert run("cat", [T(x)], 0).shape == (2, 3)


def test_cat_noncontiguous_inputs_and_out() -> None:
    views = [a for _, a in noncontiguous(framework.int16)]
    np.testing.assert_array_equal(run("cat", [T(v) for v in views], 0).numpy(), np.concatenate(views, 0))
    storage = np.zeros((4, 10), dtype=np.float32)
    out = T(storage.T)
    pieces = [sample((4, 4), F32), sample((6, 4), F64, 1)]
    A.cat.out([T(p) for p in pieces], 0, out=out)
    np.testing.assert_array_equal(storage.T, np.concatenate(pieces, 0).astype(np.float32))
    out = empty(framework.complex64)
    run("cat.out", [T(p) for p in pieces], 0, out=out)
    assert out.dtype is framework.complex64 and out.shape == (10, 4)


def test_cat_out_resize_warning() -> None:
    out = empty(F32, (3,))
    with pytest.warns(
        UserWarning, match=re.escape("had shape [3], which does not match the required output shape [2]")
    ):
        A.cat.out([ones((2,))], out=out)
    assert out.shape == (2,)


OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


def test_cat_out_overlap_errors() -> None:
    # PyTorch's texts (recorded: the oracle's copies of the arguments cannot share memory).
    base = np.zeros(6, dtype=np.float32)
    whole = T(base)
    with pytest.raises(RuntimeError, match=f"^{re.escape(OVERLAP)}$"):
        A.cat.out([T(base[:3]), T(base[3:])], out=whole)
    with pytest.raises(RuntimeError, match=f"^{re.escape(OVERLAP)}$"):
        A.stack.out([whole, whole], out=whole)
    with pytest.raises(RuntimeError, match=f"^{re.escape(OVERLAP)}$"):
        A.cat.out([T(base[:3]), T(base[::2])], out=T(base[::2]))
    with pytest.raises(RuntimeError, match=f"^{re.escape(INTERNAL_OVERLAP)}$"):
        A.cat.out([ones((2,)), ones((2,))], out=T(np.broadcast_to(np.ones(1, np.float32), (4,))))
    base[:3] = 1
    A.cat.out([T(base[:3])], out=T(base[3:]))  # neighbours share a buffer, not elements
    np.testing.assert_array_equal(base, np.ones(6))


def test_cat_errors() -> None:
    fails(ValueError, "torch.cat(): expected a non-empty list of Tensors", "cat", [])
    fails(
        RuntimeError,
        "zero-dimensional tensor (at position 0) cannot be concatenated",
        "cat",
        [ones(()), ones(())],
    )
    fails(
        RuntimeError,
        "zero-dimensional tensor (at position 1) cannot be concatenated",
        "cat",
        [empty(), ones(())],
    )
    fails(
        RuntimeError,
        "Tensors must have same number of dimensions: got 2 and 3",
        "cat",
        [ones((2, 3)), ones((2, 3, 1))],
    )
    fails(
        RuntimeError,
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor "
        "number 1 in the list.",
        "cat",
        [ones((2, 3)), ones((3, 3))],
        1,
    )
    fails(
        RuntimeError,
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor "
        "number 2 in the list.",
        "cat",
        [ones((2, 3)), ones((2, 4)), ones((3, 4))],
        1,
    )
    fails(
        RuntimeError,
        "Sizes of tensors must match except in dimension 0. Expected size 0 but got size 3 for tensor "
        "number 1 in the list.",
        "cat",
        [ones((2, 0)), ones((2, 3))],
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "cat",
        [ones((2, 3))],
        2,
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
        "cat",
        [empty(), ones((2, 3))],
        5,
    )
    fails(
        TypeError,
        "torch.cat(): input types can't be cast to the desired output type Int",
        "cat.out",
        [ones((2,))],
        out=empty(framework.int32),
    )
    fails(
        TypeError,
        "torch.cat(): input types can't be cast to the desired output type Float",
        "cat.out",
        [ones((2,), framework.complex64)],
        out=empty(),
    )
    with pytest.raises(RuntimeError, match=r"^zero-dimensional tensor"):
        A.cat([meta(())])


@given(
    base=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3),
    extents=st.lists(st.integers(0, 3), min_size=1, max_size=4),
    dim_seed=st.integers(0, 10),
    dtypes=st.lists(st.sampled_from(ALL_DTYPES), min_size=4, max_size=4),
)
@settings(max_examples=60, deadline=None)
def test_cat_hypothesis(
    base: tuple[int, ...], extents: list[int], dim_seed: int, dtypes: list[dtype]
) -> None:
    dim = dim_seed % len(base) - (len(base) if dim_seed % 2 else 0)
    arrays = []
    for i, extent in enumerate(extents):
        shape = list(base)
        shape[dim] = extent
        arrays.append(sample(tuple(shape), dtypes[i], i))
    result = run("cat", [T(a) for a in arrays], dim)
    common = dtypes[0]
    for d in dtypes[1 : len(extents)]:
        common = framework.promote_types(common, d)
    assert result.dtype is common
    np.testing.assert_array_equal(
        result.numpy(), np.concatenate([a.astype(common.numpy_dtype) for a in arrays], axis=dim)
    )


# ---- stack ----------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(d: dtype, dim: int) -> None:
    arrays = [sample((2, 3), d, i) for i in range(3)]
    result = run("stack", [T(a) for a in arrays], dim)
    np.testing.assert_array_equal(result.numpy(), np.stack(arrays, axis=dim))
    assert run("stack", [meta((2, 3), d)] * 3, dim).shape == result.shape


def test_stack_zero_dim_empty_promotion_noncontiguous_and_out() -> None:
    scalars = run("stack", [ones(()), T(np.array(2, dtype=np.int64))])
    assert scalars.dtype is F32
    np.testing.assert_array_equal(scalars.numpy(), [1.0, 2.0])
    assert run("stack", [empty(), empty()]).shape == (2, 0)
    views = [a for _, a in noncontiguous(F64)][1:]  # the stepped and the broadcast view: both 3x4
    np.testing.assert_array_equal(run("stack", [T(v) for v in views], 1).numpy(), np.stack(views, 1))
    mixed = run("stack", [ones((2,), framework.int32), ones((2,), framework.float16)])
    assert mixed.dtype is framework.float16
    out = empty(F64)
    run("stack.out", [ones((2,)), ones((2,))], out=out)
    assert out.dtype is F64 and out.shape == (2, 2)


def test_stack_errors() -> None:
    fails(RuntimeError, "stack expects a non-empty TensorList", "stack", [])
    fails(
        RuntimeError,
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1",
        "stack",
        [ones((2, 3)), ones((2, 4))],
    )
    fails(
        RuntimeError,
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 3] at entry 2",
        "stack",
        [ones((2, 3)), ones((2, 3)), ones((3, 3))],
        1,
    )
    fails(
        RuntimeError,
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1",
        "stack",
        [ones((2, 3)), ones((2, 4))],
        2,
    )
    fails(
        RuntimeError,
        "stack expects each tensor to be equal size, but got [] at entry 0 and [2] at entry 1",
        "stack",
        [ones(()), ones((2,))],
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
        "stack",
        [ones((2, 3))],
        3,
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got -4)",
        "stack",
        [ones((2, 3))],
        -4,
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        "stack",
        [ones(()), ones(())],
        1,
    )
    fails(
        TypeError,
        "torch.cat(): input types can't be cast to the desired output type Int",
        "stack.out",
        [ones((2,)), ones((2,))],
        out=empty(framework.int32),
    )


# ---- flip -----------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dims", [[0], [1], [-1], [0, 2], [2, 0, 1], []], ids=str)
def test_flip(d: dtype, dims: list[int]) -> None:
    x = sample((2, 3, 4), d)
    result = run("flip", T(x), dims)
    np.testing.assert_array_equal(result.numpy(), np.flip(x, axis=tuple(dims)))
    assert result.numpy().base is not x  # a copy, not a view
    out = empty(d)
    run("flip.out", T(x), dims, out=out)
    np.testing.assert_array_equal(out.numpy(), np.flip(x, axis=tuple(dims)))
    assert run("flip", meta((2, 3, 4), d), dims).shape == (2, 3, 4)


def test_flip_zero_dim_zero_size_and_noncontiguous() -> None:
    np.testing.assert_array_equal(run("flip", T(np.array(5.0, np.float32)), [0]).numpy(), 5.0)
    np.testing.assert_array_equal(run("flip", T(np.array(5.0, np.float32)), [-1]).numpy(), 5.0)
    assert run("flip", empty(F32, (2, 0)), [0, 1]).shape == (2, 0)
    for _, view in noncontiguous(framework.int8):
        np.testing.assert_array_equal(run("flip", T(view), [0, 1]).numpy(), view[::-1, ::-1])


def test_flip_errors() -> None:
    fails(RuntimeError, "dim 0 appears multiple times in the list of dims", "flip", ones((2, 3)), [0, 0])
    fails(RuntimeError, "dim 0 appears multiple times in the list of dims", "flip", ones((2, 3)), [0, -2])
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "flip",
        ones((2, 3)),
        [2],
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        "flip",
        ones(()),
        [1],
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "flip.out",
        ones((2, 3)),
        [0],
        out=empty(I64),
    )


@given(
    x=hnp.arrays(np.int32, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)),
    picks=st.lists(st.integers(-4, 3), max_size=4, unique=True),
)
@settings(max_examples=60, deadline=None)
def test_flip_hypothesis(x: Array, picks: list[int]) -> None:
    ndim = max(x.ndim, 1)
    dims = sorted({p % ndim for p in picks if -ndim <= p < ndim})
    result = run("flip", T(x), dims)
    np.testing.assert_array_equal(result.numpy(), np.flip(x, axis=tuple(dims)) if x.ndim else x)


# ---- repeat ---------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("repeats", [[2, 2], [1, 3], [2, 1, 2], [0, 2], [3, 1, 1, 2]], ids=str)
def test_repeat(d: dtype, repeats: list[int]) -> None:
    x = sample((2, 3), d)
    result = run("repeat", T(x), repeats)
    np.testing.assert_array_equal(result.numpy(), np.tile(x, repeats))
    out = empty(d)
    run("repeat.out", T(x), repeats, out=out)
    np.testing.assert_array_equal(out.numpy(), np.tile(x, repeats))
    assert run("repeat", meta((2, 3), d), repeats).shape == result.shape


def test_repeat_zero_dim_zero_size_noncontiguous_and_strided_out() -> None:
    np.testing.assert_array_equal(run("repeat", T(np.array(7, np.int64)), [3, 2]).numpy(), np.full((3, 2), 7))
    assert run("repeat", T(np.array(7, np.int64)), []).shape == ()
    assert run("repeat", empty(F32, (0, 3)), [-1, 1]).shape == (0, 3)  # 0 * -1 is no negative size
    for _, view in noncontiguous(framework.complex64):
        np.testing.assert_array_equal(run("repeat", T(view), [2, 1, 3]).numpy(), np.tile(view, (2, 1, 3)))
    storage = np.zeros((9, 4), dtype=np.int16)
    A.repeat.out(T(sample((2, 3), framework.int16)), [2, 3], out=T(storage.T))
    np.testing.assert_array_equal(storage.T, np.tile(sample((2, 3), framework.int16), (2, 3)))


def test_repeat_errors() -> None:
    message = "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
    fails(RuntimeError, message, "repeat", ones((2, 3)), [2])
    fails(RuntimeError, message, "repeat", ones((2, 3)), [])
    fails(
        RuntimeError,
        "Trying to create tensor with negative dimension -2: [-2, 6]",
        "repeat",
        ones((2, 3)),
        [-1, 2],
    )
    fails(
        RuntimeError,
        "Trying to create tensor with negative dimension -3: [4, -3]",
        "repeat",
        ones((2, 3)),
        [2, -1],
    )
    fails(
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1, 6]",
        "repeat",
        ones((3,)),
        [-1, 2],
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "repeat.out",
        ones((2, 3)),
        [2, 2],
        out=empty(I64),
    )


@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
        elements=st.floats(-9, 9, width=32),
    ),
    extra=st.lists(st.integers(0, 3), max_size=2),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None)
def test_repeat_hypothesis(x: Array, extra: list[int], seed: int) -> None:
    reps = [*extra, *np.random.default_rng(seed).integers(0, 4, size=x.ndim).tolist()]
    np.testing.assert_array_equal(run("repeat", T(x), reps).numpy(), np.tile(x, reps))


# ---- roll -----------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize(
    ("shifts", "dims"),
    [
        ([1], []),
        ([-7], []),
        ([1], [0]),
        ([-1], [1]),
        ([1, 2], [0, 1]),
        ([1, 2], [1, 1]),
        ([100], [2]),
        ([3, -2, 5], [2, 0, -1]),
    ],
    ids=str,
)
def test_roll(d: dtype, shifts: list[int], dims: list[int]) -> None:
    x = sample((2, 3, 4), d)
    expected = np.roll(x, shifts[0]) if dims == [] else np.roll(x, shifts, axis=dims)
    np.testing.assert_array_equal(run("roll", T(x), shifts, dims).numpy(), expected)
    out = empty(d)
    run("roll.out", T(x), shifts, dims, out=out)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert run("roll", meta((2, 3, 4), d), shifts, dims).shape == (2, 3, 4)


def test_roll_accepts_single_ints() -> None:
    x = sample((2, 3), F32)
    np.testing.assert_array_equal(A.roll(T(x), 1).numpy(), np.roll(x, 1))
    np.testing.assert_array_equal(A.roll(T(x), -1, 1).numpy(), np.roll(x, -1, axis=1))
    np.testing.assert_array_equal(A.roll.default(T(x), 2, [0]).numpy(), np.roll(x, 2, axis=0))


def test_roll_zero_dim_zero_size_and_noncontiguous() -> None:
    assert run("roll", T(np.array(3.0, np.float32)), [1]).item() == 3.0
    assert run("roll", empty(F32, (0, 3)), [1], [5]).shape == (0, 3)  # no dim check without elements
    assert run("roll", empty(F32, (0, 3)), [1, 2], [7, 9]).shape == (0, 3)
    for _, view in noncontiguous(framework.uint8):
        np.testing.assert_array_equal(run("roll", T(view), [1]).numpy(), np.roll(view, 1))
        np.testing.assert_array_equal(
            run("roll", T(view), [1, -1], [0, 1]).numpy(), np.roll(view, (1, -1), axis=(0, 1))
        )


def test_roll_errors() -> None:
    fails(RuntimeError, "`shifts` required", "roll", ones((2, 3)), [], [])
    fails(RuntimeError, "`shifts` required", "roll", empty(F32, (0, 3)), [], [])
    fails(RuntimeError, "shifts and dimensions must align. shifts: 2, dims:0", "roll", ones((2, 3)), [1, 2])
    fails(
        RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1", "roll", ones((2, 3)), [1, 2], [0]
    )
    fails(
        RuntimeError,
        "shifts and dimensions must align. shifts: 2, dims:1",
        "roll",
        empty(F32, (0, 3)),
        [1, 2],
        [0],
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "roll",
        ones((2, 3)),
        [1],
        [2],
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
        "roll",
        ones((2, 3)),
        [1],
        [-3],
    )
    fails(IndexError, "Dimension specified as 0 but tensor has no dimensions", "roll", ones(()), [1], [0])
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "roll.out",
        ones((2, 3)),
        [1],
        [0],
        out=empty(F64),
    )


@given(
    x=hnp.arrays(np.int16, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)),
    shifts=st.lists(st.integers(-9, 9), min_size=1, max_size=3),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None)
def test_roll_hypothesis(x: Array, shifts: list[int], seed: int) -> None:
    if x.ndim == 0 or seed % 3 == 0:
        shifts = shifts[:1]
        dims: list[int] = []
        expected = np.roll(x, shifts[0])
    else:
        dims = np.random.default_rng(seed).integers(-x.ndim, x.ndim, size=len(shifts)).tolist()
        expected = np.roll(x, shifts, axis=dims)
    np.testing.assert_array_equal(run("roll", T(x), shifts, dims).numpy(), expected)


# ---- tril / triu ----------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("diagonal", [0, 1, -1, 100, -100])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 3), (2, 0, 4)], ids=str)
def test_tril_triu(d: dtype, diagonal: int, shape: tuple[int, ...]) -> None:
    x = sample(shape, d)
    for name, reference in (("tril", np.tril), ("triu", np.triu)):
        expected = reference(x, diagonal)
        np.testing.assert_array_equal(run(name, T(x), diagonal).numpy(), expected)
        out = empty(d)
        run(f"{name}.out", T(x), diagonal, out=out)
        np.testing.assert_array_equal(out.numpy(), expected)
        target = T(x.copy())
        assert run(f"{name}_", target, diagonal) is target
        np.testing.assert_array_equal(target.numpy(), expected)
        assert run(name, meta(shape, d), diagonal).shape == shape


def test_tril_triu_nan_noncontiguous_and_inplace_views() -> None:
    nan = T(np.full((2, 2), np.nan, np.float32))
    np.testing.assert_array_equal(run("tril", nan).numpy(), [[np.nan, 0], [np.nan, np.nan]])
    for _, view in noncontiguous(F64):
        np.testing.assert_array_equal(run("triu", T(view), 1).numpy(), np.triu(view, 1))
    storage = sample((4, 5), F32)
    expected = storage.copy()
    expected[:, ::2] = np.triu(expected[:, ::2].T, 1).T
    A.triu_(T(storage[:, ::2].T), 1)
    np.testing.assert_array_equal(storage, expected)
    m = meta((3, 3))
    assert A.tril_(m) is m


def test_tril_triu_errors() -> None:
    fails(RuntimeError, "tril: input tensor must have at least 2 dimensions", "tril", ones((3,)))
    fails(RuntimeError, "tril: input tensor must have at least 2 dimensions", "tril", ones(()))
    fails(RuntimeError, "triu: input tensor must have at least 2 dimensions", "triu", ones((3,)))
    fails(RuntimeError, "tril: input tensor must have at least 2 dimensions", "tril_", ones((3,)))
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "tril.out",
        ones((2, 3)),
        out=empty(F64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got long int instead",
        "triu.out",
        ones((2, 3)),
        1,
        out=empty(I64),
    )


@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4),
        elements=st.floats(-9, 9),
    ),
    diagonal=st.integers(-5, 5),
)
@settings(max_examples=60, deadline=None)
def test_tril_triu_hypothesis(x: Array, diagonal: int) -> None:
    np.testing.assert_array_equal(run("tril", T(x), diagonal).numpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(run("triu", T(x), diagonal).numpy(), np.triu(x, diagonal))


# ---- schemas --------------------------------------------------------------------------------


def test_schemas_are_pytorchs() -> None:
    if torch is None:
        pytest.skip("PyTorch is not importable")
    ours = {
        str(h.schema)
        for name in (
            "matmul",
            "mm",
            "bmm",
            "addmm",
            "addmm_",
            "mv",
            "dot",
            "outer",
            "ger",
            "cat",
            "stack",
            "flip",
            "repeat",
            "roll",
            "tril",
            "triu",
            "tril_",
            "triu_",
        )
        for h in framework.c10.dispatch.dispatcher().find_overloads(f"aten::{name}")
    }
    theirs = {str(s) for s in torch._C._jit_get_all_schemas()}
    assert ours <= theirs, ours - theirs
