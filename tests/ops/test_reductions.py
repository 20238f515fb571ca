"""Reductions against NumPy (always) and against PyTorch 2.13 (when it is importable): values,
result dtypes, dims and keepdim, zero-size and zero-dim inputs, non-contiguous inputs, out= and
in-place variants, Meta tensors, and PyTorch's error messages and warnings.

Float tolerances: PyTorch sums float32 with a cascade of float32 partial sums, these kernels
accumulate float32 in float64 (and float16 in float32), so float results may differ in the last
bits; integer and bool results, indices, shapes and dtypes are compared exactly.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterator
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
from framework.library import dispatch_table

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None

Array = npt.NDArray[Any]
A: Any = framework.ops.aten

INTEGRAL = ALL_DTYPES[:6]
FLOATING = [framework.float16, framework.float32, framework.float64]
COMPLEX = [framework.complex64, framework.complex128]
REAL = INTEGRAL + FLOATING
RTOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12, "complex64": 2e-6, "complex128": 1e-12}


# ---- helpers --------------------------------------------------------------------------------


def sample(shape: tuple[int, ...], d: dtype, seed: int = 0) -> Array:
    """Small values (exact in every dtype) of `d`'s NumPy type."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-4, 5, size=shape)
    if d is framework.bool:
        return values > 0
    if d is framework.uint8:
        return np.abs(values).astype(np.uint8)
    if d.is_complex:
        return (values + 1j * rng.integers(-4, 5, size=shape)).astype(d.numpy_dtype)
    if d.is_floating_point:
        return (values + rng.integers(0, 4, size=shape) / 4).astype(d.numpy_dtype)
    return values.astype(d.numpy_dtype)


def T(a: Array) -> Tensor:
    return framework.from_numpy(np.asarray(a))


def meta(shape: tuple[int, ...], d: dtype = framework.float32) -> Tensor:
    result: Tensor = A.empty.memory_format(list(shape), dtype=d, device="meta")
    return result


def empty(d: dtype, shape: tuple[int, ...] = (0,)) -> Tensor:
    result: Tensor = A.zeros(list(shape), dtype=d)
    return result


def check(
    result: Tensor,
    expected: Any,
    d: dtype,
    shape: tuple[int, ...] | None = None,
    rtol: float = 0,
    atol: float = 0,
) -> None:
    """`result` has dtype `d`, the shape of `expected` (or `shape`), and its values (floats within
    `rtol`, by default the dtype's own tolerance, plus `atol`)."""
    want = np.asarray(expected)
    assert result.dtype is d
    assert result.shape == (want.shape if shape is None else shape)
    got = result.numpy()
    if d.is_floating_point or d.is_complex:
        tolerance = rtol or RTOL[d.name]
        np.testing.assert_allclose(got, want.astype(d.numpy_dtype), rtol=tolerance, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want.astype(d.numpy_dtype))


def _to_torch(value: Any) -> Any:
    if isinstance(value, Tensor):
        if value.device.type == "meta":
            return torch.empty(value.shape, dtype=getattr(torch, value.dtype.name), device="meta")
        return torch.tensor(value.numpy())
    if isinstance(value, dtype):
        return getattr(torch, value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(v) for v in value)
    return value


def _torch_op(name: str) -> Any:
    packet, _, overload = name.partition(".")
    op = getattr(torch.ops.aten, packet)
    return getattr(op, overload) if overload else op


def _same(ours: Any, theirs: Any, rtol: float = 0) -> None:
    if isinstance(ours, tuple):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            _same(o, t, rtol)
        return
    assert isinstance(ours, Tensor)
    assert ours.dtype is DTYPES[str(theirs.dtype).removeprefix("torch.")], (ours.dtype, theirs.dtype)
    assert ours.shape == tuple(theirs.shape)
    if theirs.device.type == "meta":
        assert ours.device.type == "meta"
        return
    got, want = ours.numpy(), theirs.numpy()
    if ours.dtype.is_floating_point or ours.dtype.is_complex:
        np.testing.assert_allclose(got, want, rtol=rtol or RTOL[ours.dtype.name], atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def run(name: str, *args: Any, rtol_: float = 0, **kwargs: Any) -> Any:
    """Call `aten::name` here and, when PyTorch is importable, there too: same dtypes, shapes and
    values (out= tensors are compared afterwards as well; floats within `rtol_`, by default the
    dtype's own tolerance)."""
    result = _op(name)(*args, **kwargs)
    if torch is not None:
        targs, tkwargs = _to_torch(list(args)), {k: _to_torch(v) for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = _torch_op(name)(*targs, **tkwargs)
        _same(result, theirs, rtol_)
        for key, value in kwargs.items():
            if isinstance(value, Tensor):
                _same(value, tkwargs[key], rtol_)
    return result


def _op(name: str) -> Any:
    packet, _, overload = name.partition(".")
    op = getattr(A, packet)
    return getattr(op, overload) if overload else op


def fails(exc: type[Exception], message: str, name: str, *args: Any, **kwargs: Any) -> None:
    """`aten::name(...)` raises `exc` with exactly PyTorch's `message` (checked live when possible)."""
    with pytest.raises(exc, match=f"^{re.escape(message)}$"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _op(name)(*args, **kwargs)
    if torch is not None:
        targs, tkwargs = _to_torch(list(args)), {k: _to_torch(v) for k, v in kwargs.items()}
        with pytest.raises(exc) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _torch_op(name)(*targs, **tkwargs)
        assert str(info.value).splitlines()[0] == message


def noncontiguous(d: dtype) -> Iterator[tuple[str, Array]]:
    """Transposed, stepped and broadcast (zero-stride) views, as NumPy arrays sharing memory."""
    base = sample((4, 6), d, seed=7)
    yield "transposed", base.T
    yield "stepped", base[::2, 1::2]
    yield "broadcast", np.broadcast_to(base[0], (3, 6))


# ---- dims -----------------------------------------------------------------------------------

DIM_OPS: list[tuple[str, Callable[[Tensor, Any], Any]]] = [
    ("sum", lambda t, d: A.sum.dim_IntList(t, d)),
    ("mean", lambda t, d: A.mean.dim(t, d)),
    ("prod", lambda t, d: A.prod.dim_int(t, d[0])),
    ("max", lambda t, d: A.max.dim(t, d[0])),
    ("amax", lambda t, d: A.amax(t, d)),
    ("argmin", lambda t, d: A.argmin(t, d[0])),
    ("var", lambda t, d: A.var.correction(t, d)),
    ("norm", lambda t, d: A.norm.ScalarOpt_dim(t, 2, d)),
    ("logsumexp", lambda t, d: A.logsumexp(t, d)),
    ("all", lambda t, d: A.all.dims(t, d)),
    ("cumsum", lambda t, d: A.cumsum(t, d[0])),
]


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")
@pytest.mark.parametrize(("name", "call"), DIM_OPS, ids=[n for n, _ in DIM_OPS])
def test_dim_out_of_range(name: str, call: Callable[[Tensor, Any], Any]) -> None:
    x = T(sample((2, 3), framework.float32))
    for bad in (2, -3):
        with pytest.raises(
            IndexError, match=re.escape(f"expected to be in range of [-2, 1], but got {bad})")
        ):
            call(x, [bad])
    z = T(np.float32(1.5).reshape(()))
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    ):
        call(z, [1])
    for ok in (0, -1):
        result = call(z, [ok])
        assert (result[0] if isinstance(result, tuple) else result).shape == ()


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "var", "norm", "logsumexp", "all"])
def test_repeated_dims(name: str) -> None:
    call = dict(DIM_OPS)[name]
    x = T(sample((2, 3), framework.float32))
    for dims in ([0, 0], [1, -1]):
        wrapped = dims[0] % 2
        with pytest.raises(RuntimeError, match=f"^dim {wrapped} appears multiple times in the list of dims$"):
            call(x, dims)
    if torch is not None:
        with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
            torch.sum(torch.ones(2, 3), (1, -1))


def test_dim_error_matches_torch() -> None:
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "sum.dim_IntList",
        T(sample((2, 3), framework.float32)),
        [2],
    )
    fails(
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
        "amax",
        T(sample((2, 3), framework.float32)),
        [0, -2],
    )


# ---- sum ------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_sum_dtypes(d: dtype) -> None:
    a = sample((3, 4), d)
    result_dtype = d if (d.is_floating_point or d.is_complex) else framework.int64
    wide = a.astype(np.complex128 if d.is_complex else np.float64 if d.is_floating_point else np.int64)
    check(run("sum", T(a)), wide.sum(), result_dtype)
    check(run("sum.dim_IntList", T(a), [1]), wide.sum(axis=1), result_dtype)
    check(run("sum.dim_IntList", T(a), [0, 1], True), wide.sum(keepdims=True), result_dtype)
    check(run("sum.dim_IntList", T(a), -2), wide.sum(axis=0), result_dtype)


@pytest.mark.parametrize("dims", [None, [], [0], [2], [-1, 0], (0, 1, 2)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_dims(dims: Any, keepdim: bool) -> None:
    a = sample((2, 3, 4), framework.float64)
    axis = None if not dims else tuple(dims)
    check(run("sum.dim_IntList", T(a), dims, keepdim), a.sum(axis=axis, keepdims=keepdim), framework.float64)


def test_sum_dtype_argument_converts_first() -> None:
    a = np.array([[0.5, 0.75, 2.5], [1.5, -1.25, 3.0]], dtype=np.float32)
    check(run("sum", T(a), dtype=framework.int32), np.int32(0 + 0 + 2 + 1 - 1 + 3), framework.int32)
    check(
        run("sum.dim_IntList", T(a), [1], dtype=framework.float64),
        a.astype(np.float64).sum(1),
        framework.float64,
    )
    check(run("sum", T(a), dtype=framework.bool), True, framework.bool)
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    check(run("sum.dim_IntList", T(i), [1], dtype=framework.float16), [3.0, 12.0], framework.float16)
    check(
        run("sum", T(np.full(300, 100, dtype=np.int64)), dtype=framework.int8),
        np.int8(30000 % 256),
        framework.int8,
    )
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        check(A.sum(T(np.array([1.5 + 2j, 1 - 1j])), dtype=framework.float32), 2.5, framework.float32)


def test_sum_zero_size_and_zero_dim() -> None:
    e = np.zeros((0, 3), dtype=np.float32)
    check(run("sum", T(e)), 0.0, framework.float32)
    check(run("sum.dim_IntList", T(e), [0]), np.zeros(3), framework.float32)
    check(run("sum.dim_IntList", T(e), [1], True), np.zeros((0, 1)), framework.float32)
    check(run("sum", T(np.zeros(0, dtype=np.bool_))), 0, framework.int64)
    z = np.array(2.5, dtype=np.float32)
    for dims in ([0], [-1], [], None):
        check(run("sum.dim_IntList", T(z), dims, True), 2.5, framework.float32)


@pytest.mark.parametrize("d", [framework.int32, framework.float32, framework.complex64], ids=str)
def test_sum_noncontiguous(d: dtype) -> None:
    for _, a in noncontiguous(d):
        wide = a.astype(np.complex128 if d.is_complex else np.float64 if d.is_floating_point else np.int64)
        result_dtype = d if d.is_floating_point or d.is_complex else framework.int64
        check(run("sum.dim_IntList", T(a), [0]), wide.sum(0), result_dtype)
        check(run("sum.dim_IntList", T(a), [1], True), wide.sum(1, keepdims=True), result_dtype)
        check(run("sum", T(a)), wide.sum(), result_dtype)


def test_sum_float32_precision() -> None:
    # PyTorch sums float32 in a cascade of float32 partial sums; this kernel sums in float64 and
    # rounds once, so the two agree to a few ulps, not bit for bit.
    a = np.random.default_rng(1).standard_normal((1000, 37)).astype(np.float32)
    expected = a.astype(np.float64).sum(0)
    np.testing.assert_allclose(A.sum.dim_IntList(T(a), [0]).numpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(A.sum(T(a)).numpy(), expected.sum(), rtol=1e-6)
    if torch is not None:
        np.testing.assert_allclose(A.sum(T(a)).numpy(), torch.sum(torch.from_numpy(a)).numpy(), rtol=1e-5)


def test_sum_float16_accumulates_wide() -> None:
    a = np.full(5000, 0.1, dtype=np.float16)
    check(run("sum", T(a)), np.float16(a.astype(np.float32).sum()), framework.float16)
    check(run("sum", T(np.full(4, 30000, dtype=np.float16))), np.inf, framework.float16)
    check(run("sum", T(np.array([2048, 1, 1], dtype=np.float16))), 2050.0, framework.float16)


def test_sum_out_variants() -> None:
    x = np.array([[0.5, 0.5], [1.5, 1.25]], dtype=np.float32)
    # sum.IntList_out converts the input to out's dtype (or the requested one) first.
    out = empty(framework.int64)
    assert run("sum.IntList_out", T(x), [1], out=out) is out
    check(out, [0, 2], framework.int64)
    out = empty(framework.float64)
    check(run("sum.IntList_out", T(x), [1], out=out), [1.0, 2.75], framework.float64)
    check(run("sum.IntList_out", T(x), [1], out=empty(framework.bool)), [True, True], framework.bool)
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    check(run("sum.IntList_out", T(i), [1], out=empty(framework.int32)), [3, 12], framework.int32)
    fails(
        RuntimeError,
        "Expected out tensor to have dtype double, but got float instead",
        "sum.IntList_out",
        T(x),
        [1],
        dtype=framework.float64,
        out=empty(framework.float32),
    )
    # sum.out wants exactly the dtype sum would return.
    check(run("sum.out", T(x), out=empty(framework.float32)), 3.75, framework.float32)
    check(
        run("sum.out", T(x), dtype=framework.float64, out=empty(framework.float64)), 3.75, framework.float64
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype long int, but got short int instead",
        "sum.out",
        T(i),
        out=empty(framework.int16),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "sum.out",
        T(x),
        out=empty(framework.float64),
    )


def test_out_resize_warns_like_pytorch() -> None:
    out = empty(framework.float32, (5,))
    with pytest.warns(
        UserWarning, match=re.escape("had shape [5], which does not match the required output shape [2]")
    ):
        A.sum.IntList_out(T(sample((2, 3), framework.float32)), [1], out=out)
    assert out.shape == (2,)


def test_out_may_alias_input() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = T(a.copy())
    A.cumsum.out(x, 1, out=x)
    check(x, np.cumsum(a, 1), framework.float32)
    y = T(a.copy())
    with pytest.warns(UserWarning):
        A.sum.IntList_out(y, [1], out=y)
    check(y, a.sum(1), framework.float32)


# ---- mean -----------------------------------------------------------------------------------


@pytest.mark.parametrize("d", FLOATING + COMPLEX, ids=str)
def test_mean_values(d: dtype) -> None:
    a = sample((3, 4), d)
    wide = a.astype(np.complex128 if d.is_complex else np.float64)
    check(run("mean", T(a)), wide.mean(), d)
    check(run("mean.dim", T(a), [1]), wide.mean(1), d)
    check(run("mean.dim", T(a), [0, 1], True), wide.mean(keepdims=True), d)
    check(run("mean.dim", T(a), None), wide.mean(), d)
    check(run("mean.dim", T(a), []), wide.mean(), d)
    for _, v in noncontiguous(d):
        check(run("mean.dim", T(v), [0]), v.astype(wide.dtype).mean(0), d)


@pytest.mark.parametrize("d", INTEGRAL, ids=str)
def test_mean_of_integers_is_refused(d: dtype) -> None:
    fails(
        RuntimeError,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
        f"dtype. Got: {d.scalar_type_name}",
        "mean",
        T(sample((2,), d)),
    )
    check(
        run("mean", T(sample((2, 3), d)), dtype=framework.float64),
        sample((2, 3), d).astype(np.float64).mean(),
        framework.float64,
    )


def test_mean_dtype_and_out() -> None:
    x = np.array([[0.5, 0.5], [1.5, 1.25]], dtype=np.float32)
    fails(
        RuntimeError,
        "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
        "dtype. Got: Long",
        "mean",
        T(x),
        dtype=framework.int64,
    )
    check(run("mean.dim", T(x), [0], dtype=framework.float64), [1.0, 0.875], framework.float64)
    check(run("mean.out", T(x), [1], out=empty(framework.float64)), [0.5, 1.375], framework.float64)
    check(run("mean.out", T(x), [1], out=empty(framework.complex64)), [0.5, 1.375], framework.complex64)
    fails(
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
        "mean.out",
        T(x),
        [1],
        out=empty(framework.int64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype double, but got float instead",
        "mean.out",
        T(x),
        [1],
        dtype=framework.float64,
        out=empty(framework.float32),
    )
    fails(
        RuntimeError,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
        "dtype. Got: Long",
        "mean.out",
        T(np.arange(3)),
        [0],
        out=empty(framework.float32),
    )
    check(run("mean.dtype_out", T(x), out=empty(framework.float64)), 0.9375, framework.float64)


def test_mean_of_nothing_is_nan() -> None:
    e = np.zeros((0, 3), dtype=np.float32)
    check(run("mean", T(e)), np.nan, framework.float32)
    check(run("mean.dim", T(e), [0]), [np.nan] * 3, framework.float32)
    check(run("mean.dim", T(e), [1]), np.zeros(0), framework.float32)
    check(run("mean.dim", T(np.array(3.0)), [0]), 3.0, framework.float64)


# ---- prod -----------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_prod_dtypes(d: dtype) -> None:
    a = sample((3, 4), d, seed=3)
    result_dtype = d if d.is_floating_point or d.is_complex else framework.int64
    wide = a.astype(np.complex128 if d.is_complex else np.float64 if d.is_floating_point else np.int64)
    check(run("prod", T(a)), wide.prod(), result_dtype)
    check(run("prod.dim_int", T(a), 1), wide.prod(1), result_dtype)
    check(run("prod.dim_int", T(a), -2, True), wide.prod(0, keepdims=True), result_dtype)


def test_prod_edges_and_out() -> None:
    e = np.zeros((0, 3), dtype=np.float32)
    check(run("prod", T(e)), 1.0, framework.float32)
    check(run("prod.dim_int", T(e), 0), np.ones(3), framework.float32)
    big = np.full(5, 1000, dtype=np.int64)
    check(run("prod", T(big)), np.int64(1000) ** 5, framework.int64)
    check(run("prod", T(np.arange(1, 7)), dtype=framework.int8), np.int8(720 - 768), framework.int8)
    x = np.array([[0.5, 2.0], [1.5, 1.25]], dtype=np.float32)
    check(run("prod.int_out", T(x), 1, out=empty(framework.int64)), [0, 1], framework.int64)
    check(run("prod.int_out", T(x), 1, out=empty(framework.float64)), [1.0, 1.875], framework.float64)
    check(run("prod.out", T(x), out=empty(framework.float32)), 1.875, framework.float32)
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "prod.out",
        T(x),
        out=empty(framework.float64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype long int, but got int instead",
        "prod.out",
        T(np.arange(3, dtype=np.int32)),
        out=empty(framework.int32),
    )
    for _, v in noncontiguous(framework.float64):
        check(run("prod.dim_int", T(v), 0), v.prod(0), framework.float64)


# ---- max, min -------------------------------------------------------------------------------


@pytest.mark.parametrize("d", REAL, ids=str)
def test_max_min_all(d: dtype) -> None:
    a = sample((3, 4), d, seed=5)
    check(run("max", T(a)), a.max(), d)
    check(run("min", T(a)), a.min(), d)
    for _, v in noncontiguous(d):
        check(run("max", T(v)), v.max(), d)


def test_max_all_nan_empty_complex_and_out() -> None:
    check(run("max", T(np.array([1.0, np.nan, 3.0], dtype=np.float32))), np.nan, framework.float32)
    check(run("min", T(np.array([1.0, np.nan, -3.0]))), np.nan, framework.float64)
    check(run("max", T(np.array(3))), 3, framework.int64)
    for op in ("max", "min"):
        fails(
            RuntimeError,
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
            "dim with the 'dim' argument.",
            op,
            empty(framework.float32, (0, 3)),
        )
        fails(
            RuntimeError,
            f"\"{op}_all\" not implemented for 'ComplexFloat'",
            op,
            T(np.ones(2, dtype=np.complex64)),
        )
    x = np.array([[1.0, 5.0], [2.0, -1.0]], dtype=np.float32)
    check(run("max.unary_out", T(x), out=empty(framework.float64)), 5.0, framework.float64)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        check(A.min.unary_out(T(x), out=empty(framework.float32, (3,))), -1.0, framework.float32)
    fails(
        RuntimeError,
        "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) to be "
        "true, but got false.  (Could this error message be improved?  If so, please report an enhancement "
        "request to PyTorch.)",
        "max.unary_out",
        T(x),
        out=empty(framework.int64),
    )


@pytest.mark.parametrize("d", REAL, ids=str)
def test_max_min_dim(d: dtype) -> None:
    a = sample((4, 5), d, seed=11)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            values, indices = run("max.dim", T(a), dim, keepdim)
            check(values, a.max(dim, keepdims=keepdim), d)
            check(indices, a.argmax(dim, keepdims=keepdim), framework.int64)
            values, indices = run("min.dim", T(a), dim, keepdim)
            check(values, a.min(dim, keepdims=keepdim), d)
            check(indices, a.argmin(dim, keepdims=keepdim), framework.int64)


def test_max_dim_ties_nan_zero_dim_and_empty() -> None:
    values, indices = run("max.dim", T(np.array([1.0, 3.0, 3.0, 2.0], dtype=np.float32)), 0)
    check(values, 3.0, framework.float32)
    check(indices, 1, framework.int64)
    values, indices = run("min.dim", T(np.array([[3, 1, 1], [0, 0, 2]], dtype=np.int8)), 1)
    check(indices, [1, 0], framework.int64)
    values, indices = run("max.dim", T(np.array([1.0, np.nan, 3.0, np.nan])), 0)
    check(values, np.nan, framework.float64)
    check(indices, 1, framework.int64)
    values, indices = run("min.dim", T(np.array([[1.0, 0.0, np.nan, np.nan]], dtype=np.float16)), 1, True)
    check(indices, [[2]], framework.int64)
    values, indices = run("max.dim", T(np.array(7.5, dtype=np.float32)), -1, True)
    check(values, 7.5, framework.float32)
    check(indices, 0, framework.int64)
    values, indices = run("max.dim", empty(framework.float32, (0, 3)), 1)
    assert values.shape == indices.shape == (0,)
    fails(
        IndexError,
        "max(): Expected reduction dim 0 to have non-zero size.",
        "max.dim",
        empty(framework.float32, (0, 3)),
        0,
    )
    fails(
        IndexError,
        "min(): Expected reduction dim 1 to have non-zero size.",
        "min.dim",
        empty(framework.float32, (2, 0)),
        -1,
    )
    fails(
        RuntimeError, "max(): does not support complex input", "max.dim", T(np.ones(2, dtype=np.complex64)), 0
    )
    fails(
        RuntimeError,
        "min(): does not support complex input",
        "min.dim",
        T(np.ones(2, dtype=np.complex128)),
        0,
    )
    fails(
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 3)",
        "max.dim",
        T(np.ones(2, dtype=np.complex64)),
        3,
    )


def test_max_dim_out() -> None:
    a = sample((3, 4), framework.float32, seed=2)
    values, indices = empty(framework.float32), empty(framework.int64)
    result = run("max.dim_max", T(a), 1, max=values, max_values=indices)
    assert result[0] is values and result[1] is indices
    check(values, a.max(1), framework.float32)
    check(indices, a.argmax(1), framework.int64)
    result = run(
        "min.dim_min", T(a), 0, True, min=empty(framework.float32), min_indices=empty(framework.int64)
    )
    check(result[1], a.argmin(0, keepdims=True), framework.int64)
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "max.dim_max",
        T(a),
        1,
        max=empty(framework.float64),
        max_values=empty(framework.int64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype long int, but got int instead",
        "min.dim_min",
        T(a),
        1,
        min=empty(framework.float32),
        min_indices=empty(framework.int32),
    )


@pytest.mark.parametrize(
    ("d", "name"),
    [
        (framework.bool, "bool"),
        (framework.uint8, "unsigned char"),
        (framework.int8, "signed char"),
        (framework.int16, "short int"),
        (framework.int32, "int"),
        (framework.int64, "long int"),
        (framework.float16, "c10::Half"),
        (framework.float32, "float"),
        (framework.complex64, "c10::complex<float>"),
        (framework.complex128, "c10::complex<double>"),
    ],
    ids=str,
)
def test_out_dtype_messages_name_cpp_types(d: dtype, name: str) -> None:
    fails(
        RuntimeError,
        f"Expected out tensor to have dtype double, but got {name} instead",
        "max.dim_max",
        T(np.ones(2)),
        0,
        max=empty(d),
        max_values=empty(framework.int64),
    )


# ---- amax, amin -----------------------------------------------------------------------------


@pytest.mark.parametrize("d", REAL, ids=str)
def test_amax_amin(d: dtype) -> None:
    a = sample((2, 3, 4), d, seed=4)
    for dims in ([], [1], [0, 2], [-1, -3], 2):
        axis = None if dims == [] else (dims if isinstance(dims, int) else tuple(dims))
        for keepdim in (False, True):
            check(run("amax", T(a), dims, keepdim), a.max(axis=axis, keepdims=keepdim), d)
            check(run("amin", T(a), dims, keepdim), a.min(axis=axis, keepdims=keepdim), d)
    check(run("amax", T(a)), a.max(), d)
    for _, v in noncontiguous(d):
        check(run("amin", T(v), [0]), v.min(0), d)


def test_amax_edges_and_out() -> None:
    check(run("amax", T(np.array([[1.0, np.nan], [2.0, 0.0]])), [1]), [np.nan, 2.0], framework.float64)
    check(run("amax", T(np.array(2.0, dtype=np.float32))), 2.0, framework.float32)
    check(run("amin", empty(framework.float32, (0, 3)), [1]), np.zeros(0), framework.float32)
    fails(
        RuntimeError,
        "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
        "with the 'dim' argument.",
        "amax",
        empty(framework.float32, (0, 3)),
    )
    fails(
        IndexError,
        "amin(): Expected reduction dim 0 to have non-zero size.",
        "amin",
        empty(framework.float32, (0, 3)),
        [0],
    )
    fails(
        RuntimeError,
        "\"max_values_cpu\" not implemented for 'ComplexFloat'",
        "amax",
        T(np.ones(2, dtype=np.complex64)),
    )
    fails(
        RuntimeError,
        "\"min_values_cpu\" not implemented for 'ComplexDouble'",
        "amin",
        T(np.ones(2, dtype=np.complex128)),
        [0],
    )
    x = np.array([[1.0, 5.0], [2.0, -1.0]], dtype=np.float32)
    check(run("amax.out", T(x), [0], out=empty(framework.float32)), [2.0, 5.0], framework.float32)
    check(run("amin.out", T(x > 1), [1], out=empty(framework.bool)), [False, False], framework.bool)
    fails(
        RuntimeError,
        "Expected the dtype for input and out to match, but got Float for input's dtype and Double for "
        "out's dtype.",
        "amax.out",
        T(x),
        [1],
        out=empty(framework.float64),
    )


# ---- argmax, argmin -------------------------------------------------------------------------


@pytest.mark.parametrize("d", REAL[1:], ids=str)
def test_argmax_argmin(d: dtype) -> None:
    a = sample((3, 5), d, seed=9)
    check(run("argmax", T(a)), a.argmax(), framework.int64)
    check(run("argmin", T(a), None, True), np.array(a.argmin()).reshape(1, 1), framework.int64)
    for dim in (0, 1, -2):
        check(run("argmax", T(a), dim), a.argmax(dim), framework.int64)
        check(run("argmin", T(a), dim, True), a.argmin(dim, keepdims=True), framework.int64)
    for _, v in noncontiguous(d):
        check(run("argmax", T(v)), v.argmax(), framework.int64)
        check(run("argmin", T(v), 1), v.argmin(1), framework.int64)


def test_argmax_edges_and_out() -> None:
    check(run("argmax", T(np.array([1.0, 5.0, np.nan, 3.0, np.nan], dtype=np.float32))), 2, framework.int64)
    check(run("argmin", T(np.array([1.0, 0.0, 0.0, 2.0]))), 1, framework.int64)
    check(run("argmax", T(np.array(4.0)), 0), 0, framework.int64)
    check(run("argmax", T(np.array(4.0)), None, True), 0, framework.int64)
    check(run("argmax", empty(framework.float32, (0, 3)), 1), np.zeros(0), framework.int64)
    fails(
        IndexError,
        "argmax(): Expected reduction dim to be specified for input.numel() == 0.",
        "argmax",
        empty(framework.float32, (0, 3)),
    )
    fails(
        IndexError,
        "argmin(): Expected reduction dim 0 to have non-zero size.",
        "argmin",
        empty(framework.float32, (0, 3)),
        0,
    )
    fails(RuntimeError, "argmax(): does not support bool input", "argmax", T(np.ones(2, dtype=np.bool_)))
    fails(
        RuntimeError,
        "argmin(): does not support complex input",
        "argmin",
        T(np.ones(2, dtype=np.complex64)),
        0,
    )
    x = np.array([[1.0, 5.0], [2.0, -1.0]], dtype=np.float32)
    check(run("argmax.out", T(x), 1, out=empty(framework.int64)), [1, 0], framework.int64)
    check(run("argmin.out", T(x), out=empty(framework.int64)), 3, framework.int64)
    fails(
        RuntimeError,
        "Expected out tensor to have dtype long int, but got int instead",
        "argmax.out",
        T(x),
        1,
        out=empty(framework.int32),
    )


# ---- var, std -------------------------------------------------------------------------------


def _var(a: Array, axis: Any, correction: float, keepdim: bool = False) -> Array:
    x = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    n = (
        x.size
        if axis is None
        else math.prod(x.shape[d] for d in (axis if isinstance(axis, tuple) else (axis,)))
    )
    squares = np.abs(x - x.mean(axis=axis, keepdims=True)) ** 2
    result: Array = squares.sum(axis=axis, keepdims=keepdim) / max(n - correction, 0)
    return result


@pytest.mark.parametrize("d", FLOATING + COMPLEX, ids=str)
def test_var_std_values(d: dtype) -> None:
    a = sample((4, 5), d, seed=6)
    real = d.to_real()
    check(run("var", T(a)), _var(a, None, 1), real)
    check(run("var", T(a), False), _var(a, None, 0), real)
    check(run("std", T(a)), np.sqrt(_var(a, None, 1)), real)
    check(run("var.dim", T(a), [1]), _var(a, 1, 1), real)
    check(run("std.dim", T(a), [0], False, True), np.sqrt(_var(a, 0, 0, True)), real)
    check(run("var.correction", T(a), [0, 1], correction=2, keepdim=True), _var(a, (0, 1), 2, True), real)
    check(run("std.correction", T(a), None, correction=0.5), np.sqrt(_var(a, None, 0.5)), real)
    check(run("var.correction", T(a), [], correction=-1), _var(a, None, -1), real)
    for _, v in noncontiguous(d):
        check(run("var.correction", T(v), [1]), _var(v, 1, 1), real)


def test_var_degrees_of_freedom() -> None:
    message = (
        "degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input "
        "numel divided by output numel)."
    )
    with pytest.warns(UserWarning, match=re.escape(f"var(): {message}")):
        check(A.var(empty(framework.float32, (0, 3))), np.nan, framework.float32)
    with pytest.warns(UserWarning, match=re.escape(f"std(): {message}")):
        check(A.std(T(np.ones(1, dtype=np.float32))), np.nan, framework.float32)
    with pytest.warns(UserWarning, match=re.escape(f"var(): {message}")):
        check(A.var.correction(T(np.array([1.0, 2.0])), correction=3), np.inf, framework.float64)
    with pytest.warns(UserWarning, match=re.escape(f"var(): {message}")):
        check(A.var.dim(empty(framework.float32, (0, 3)), [1]), np.zeros(0), framework.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(A.var.correction(T(np.array(3.0)), correction=0), 0.0, framework.float64)
    for name, args, kwargs in [
        ("var", (empty(framework.float32, (0, 3)), [0]), {}),
        ("std.correction", (T(np.array([1.0, 2.0])),), {"correction": 2}),
    ]:
        with pytest.warns(UserWarning):
            run(name, *args, **kwargs)


def test_var_dtypes_and_out() -> None:
    for d in INTEGRAL:
        fails(
            RuntimeError,
            "std and var only support floating point and complex dtypes",
            "var",
            T(sample((3,), d)),
        )
    fails(
        RuntimeError,
        "std and var only support floating point and complex dtypes",
        "std.correction",
        T(sample((3,), framework.int32)),
        [0],
    )
    x = sample((2, 4), framework.float32)
    check(
        run("var.correction_out", T(x), [1], out=empty(framework.float64)), _var(x, 1, 1), framework.float64
    )
    check(run("var.out", T(x), [1], False, out=empty(framework.float32)), _var(x, 1, 0), framework.float32)
    check(run("std.out", T(x), [0], out=empty(framework.float32)), np.sqrt(_var(x, 0, 1)), framework.float32)
    c = sample((2, 4), framework.complex64)
    check(
        run("var.correction_out", T(c), [1], out=empty(framework.complex64)),
        _var(c, 1, 1),
        framework.complex64,
    )
    check(
        run("std.correction_out", T(c), [1], out=empty(framework.float64)),
        np.sqrt(_var(c, 1, 1)),
        framework.float64,
    )
    fails(
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
        "var.correction_out",
        T(x),
        [1],
        out=empty(framework.int64),
    )


# ---- norm -----------------------------------------------------------------------------------


def _norm(a: Array, p: float, axis: Any = None, keepdim: bool = False) -> Array:
    m = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
    if p == 0:
        return np.asarray((m != 0).sum(axis=axis, keepdims=keepdim))
    if p == math.inf:
        return np.asarray(m.max(axis=axis, keepdims=keepdim))
    if p == -math.inf:
        return np.asarray(m.min(axis=axis, keepdims=keepdim))
    with np.errstate(divide="ignore"):
        return np.asarray((m**p).sum(axis=axis, keepdims=keepdim) ** (1 / p))


@pytest.mark.parametrize("p", [2, 1, 0, math.inf, -math.inf, 3, 0.5, -1, 2.5, True], ids=str)
@pytest.mark.parametrize("d", FLOATING + COMPLEX, ids=str)
def test_norm_orders(d: dtype, p: float) -> None:
    a = sample((3, 4), d, seed=8)
    real = d.to_real()
    check(run("norm.Scalar", T(a), p), _norm(a, p), real)
    check(run("norm.ScalarOpt_dim", T(a), p, [1]), _norm(a, p, 1), real)
    check(run("norm.ScalarOpt_dim", T(a), p, [0, 1], True), _norm(a, p, (0, 1), True), real)
    check(run("norm.ScalarOpt_dim", T(a), p, -2), _norm(a, p, 0), real)


def test_norm_defaults_zeros_and_noncontiguous() -> None:
    a = sample((3, 4), framework.float32)
    check(run("norm", T(a)), _norm(a, 2), framework.float32)
    check(run("norm.ScalarOpt_dim", T(a), None, [1]), _norm(a, 2, 1), framework.float32)
    check(run("norm.Scalar", T(np.array([0.0, 1.0])), -2), 0.0, framework.float64)
    check(run("norm.Scalar", T(np.array([0.0, 2.0, 3.0], dtype=np.float32)), 0), 2.0, framework.float32)
    check(run("norm.Scalar", T(np.full(4, 300, dtype=np.float16))), 600.0, framework.float16)
    check(run("norm.Scalar", T(np.arange(6, dtype=np.float32)), 100), np.inf, framework.float32)
    check(run("norm.Scalar", T(np.array([1.0, np.nan, 2.0])), math.inf), np.nan, framework.float64)
    for _, v in noncontiguous(framework.float64):
        check(run("norm.ScalarOpt_dim", T(v), 1, [0]), _norm(v, 1, 0), framework.float64)
    e = empty(framework.float32, (0, 3))
    check(run("norm.Scalar", e), 0.0, framework.float32)
    check(run("norm.ScalarOpt_dim", e, 1, [0]), np.zeros(3), framework.float32)
    check(run("norm.ScalarOpt_dim", e, -math.inf, [1]), np.zeros(0), framework.float32)


def test_norm_empty_without_identity() -> None:
    e = empty(framework.float32, (0, 3))
    tail = "because the operation does not have an identity"
    fails(
        RuntimeError,
        f"linalg.vector_norm cannot compute the inf norm on an empty tensor {tail}",
        "norm.Scalar",
        e,
        math.inf,
    )
    fails(
        RuntimeError,
        f"linalg.vector_norm cannot compute the -1 norm on an empty tensor {tail}",
        "norm.ScalarOpt_dim",
        e,
        -1,
        [],
    )
    fails(
        RuntimeError,
        "linalg.vector_norm cannot compute the -inf norm on the dimension -2because this dimension is "
        "empty and the operation does not have an identity",
        "norm.ScalarOpt_dim",
        e,
        -math.inf,
        [-2],
    )
    fails(
        RuntimeError,
        "linalg.vector_norm cannot compute the -0.5 norm on the dimension 1because this dimension is empty "
        "and the operation does not have an identity",
        "norm.ScalarOpt_dim",
        empty(framework.float32, (2, 0, 3)),
        -0.5,
        [0, 1],
    )


def test_norm_dtypes() -> None:
    x = sample((2, 3), framework.float32)
    i = T(np.arange(3))
    c = sample((2, 3), framework.complex64)
    fails(
        RuntimeError,
        "norm(): input dtype should be either floating point or complex. Got Long instead.",
        "norm.Scalar",
        i,
    )
    fails(
        RuntimeError,
        "norm(): input dtype should be either floating point or complex. Got Long instead.",
        "norm.ScalarOpt_dim",
        i,
        2,
        [0],
    )
    fails(
        RuntimeError,
        "norm(): input dtype should be either floating point or complex. Got Bool instead.",
        "norm.out",
        T(np.ones(2, dtype=np.bool_)),
        2,
        [0],
        out=empty(framework.float32),
    )
    fails(
        RuntimeError,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
        "norm.ScalarOpt_dtype",
        i,
        2,
        dtype=framework.float32,
    )
    fails(
        RuntimeError,
        "norm(): the desired output dtype should be either floating point or complex. Got Long instead.",
        "norm.ScalarOpt_dim_dtype",
        i,
        2,
        [0],
        False,
        dtype=framework.int64,
    )
    fails(
        RuntimeError,
        "linalg.vector_norm: Expected a non-complex scalar as the order of norm.",
        "norm.Scalar",
        T(x),
        1j,
    )
    fails(
        RuntimeError,
        "linalg.vector_norm: the dtype of the input (Float) should be convertible without narrowing to the "
        "specified dtype (Half)",
        "norm.ScalarOpt_dim_dtype",
        T(x),
        2,
        [0],
        False,
        dtype=framework.float16,
    )
    fails(
        RuntimeError,
        "linalg.vector_norm: dtype should be real for real inputs, but got ComplexFloat",
        "norm.ScalarOpt_dim_dtype",
        T(x),
        2,
        [0],
        False,
        dtype=framework.complex64,
    )
    fails(
        RuntimeError,
        "linalg.vector_norm: dtype should be complex for complex inputs, but got Double",
        "norm.ScalarOpt_dim_dtype",
        T(c),
        2,
        [0],
        False,
        dtype=framework.float64,
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got c10::complex<float> instead",
        "norm.ScalarOpt_dtype",
        T(c),
        2,
        dtype=framework.complex64,
    )
    check(
        run("norm.ScalarOpt_dim_dtype", T(x), 2, [1], False, dtype=framework.float64),
        _norm(x, 2, 1),
        framework.float64,
    )
    check(
        run("norm.ScalarOpt_dim_dtype", T(x.astype(np.float16)), 1, [0], True, dtype=framework.float32),
        _norm(x.astype(np.float16), 1, 0, True),
        framework.float32,
    )
    check(run("norm.ScalarOpt_dtype", T(x), 2, dtype=framework.float64), _norm(x, 2), framework.float64)


def test_norm_out_variants() -> None:
    x = sample((2, 3), framework.float32)
    c = sample((2, 3), framework.complex64)
    check(run("norm.out", T(x), 2, [1], out=empty(framework.float32)), _norm(x, 2, 1), framework.float32)
    check(run("norm.out", T(c), 2, [0], out=empty(framework.float32)), _norm(c, 2, 0), framework.float32)
    check(
        run("norm.dtype_out", T(x), 1, [1], False, dtype=framework.float64, out=empty(framework.float64)),
        _norm(x, 1, 1),
        framework.float64,
    )
    check(
        run("norm.dtype_out", T(c), 2, [0], False, dtype=framework.complex64, out=empty(framework.float32)),
        _norm(c, 2, 0),
        framework.float32,
    )
    check(run("norm.Scalar_out", T(x), out=empty(framework.float32)), _norm(x, 2), framework.float32)
    check(
        run("norm.ScalarOpt_dtype_out", T(x), 3, dtype=framework.float64, out=empty(framework.float64)),
        _norm(x, 3),
        framework.float64,
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "norm.out",
        T(x),
        2,
        [1],
        out=empty(framework.float64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got c10::complex<float> instead",
        "norm.out",
        T(c),
        2,
        [0],
        out=empty(framework.complex64),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype double, but got float instead",
        "norm.ScalarOpt_dtype_out",
        T(x),
        2,
        dtype=framework.float64,
        out=empty(framework.float32),
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        "norm.Scalar_out",
        T(x),
        out=empty(framework.float64),
    )


# ---- logsumexp ------------------------------------------------------------------------------


def _logsumexp(a: Array, axis: Any, keepdim: bool = False) -> Array:
    x = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(np.exp(x).sum(axis=axis, keepdims=keepdim)))


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_logsumexp_values(d: dtype) -> None:
    a = sample((3, 4), d, seed=12)
    result = d if d.is_floating_point or d.is_complex else framework.float32
    check(run("logsumexp", T(a), [1]), _logsumexp(a, 1), result)
    check(run("logsumexp", T(a), [0, 1], True), _logsumexp(a, (0, 1), True), result)
    check(run("logsumexp", T(a), -2), _logsumexp(a, 0), result)
    check(run("logsumexp", T(a), [], True), _logsumexp(a, None, True), result)


def test_logsumexp_is_stable_and_handles_infinities() -> None:
    big = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]], dtype=np.float32)
    check(
        run("logsumexp", T(big), [1]),
        [1000 + math.log(2), -1000 + math.log(1 + math.exp(-1))],
        framework.float32,
    )
    inf = math.inf
    x = np.array([[-inf, -inf], [1.0, -inf], [inf, 1.0], [inf, -inf], [np.nan, 1.0]])
    check(run("logsumexp", T(x), [1]), [-inf, 1.0, inf, inf, np.nan], framework.float64)
    check(run("logsumexp", T(np.array([complex(-inf, 0), 1 + 0j])), [0]), 1 + 0j, framework.complex128)
    check(run("logsumexp", empty(framework.float32, (0, 3)), [0]), [-inf] * 3, framework.float32)
    check(run("logsumexp", empty(framework.float32, (0, 3)), [1]), np.zeros(0), framework.float32)
    check(run("logsumexp", T(np.array(5.0, dtype=np.float32)), []), 5.0, framework.float32)
    for _, v in noncontiguous(framework.float64):
        check(run("logsumexp", T(v), [0]), _logsumexp(v, 0), framework.float64)


def test_logsumexp_errors_and_out() -> None:
    x = sample((2, 3), framework.float32)
    # PyTorch's own inconsistency for dim=[] without keepdim, reproduced.
    fails(
        RuntimeError, "output with shape [] doesn't match the broadcast shape [1, 1]", "logsumexp", T(x), []
    )
    fails(
        RuntimeError,
        "output with shape [] doesn't match the broadcast shape [1]",
        "logsumexp",
        T(np.ones(3)),
        [],
    )
    # PyTorch exponentiates float32 input in float32 (its vectorised exp may differ from NumPy's in
    # the last bit) and sums into the float64 out: float32-level agreement.
    result = run("logsumexp.out", T(x), [1], out=empty(framework.float64), rtol_=2e-7)
    check(result, _logsumexp(x, 1), framework.float64, rtol=2e-7)
    check(
        run("logsumexp.out", T(np.arange(4).reshape(2, 2)), [0], out=empty(framework.complex64)),
        _logsumexp(np.arange(4).reshape(2, 2), 0),
        framework.complex64,
    )
    fails(
        RuntimeError,
        "logsumexp(): Expected floating point type for result tensor, but got: Long",
        "logsumexp.out",
        T(x),
        [1],
        out=empty(framework.int64),
    )


# ---- all, any -------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_all_any(d: dtype) -> None:
    a = sample((3, 4), d, seed=13)
    result = framework.uint8 if d is framework.uint8 else framework.bool
    check(run("all", T(a)), a.all(), result)
    check(run("any", T(a)), a.any(), result)
    check(run("all.dim", T(a), 1), a.all(1), result)
    check(run("any.dim", T(a), -2, True), a.any(0, keepdims=True), result)
    check(run("all.dims", T(a), [0, 1], True), a.all(keepdims=True), result)
    check(run("any.dims", T(a), None), a.any(), result)
    check(run("all.dims", T(a), []), a.astype(bool), result)
    for _, v in noncontiguous(d):
        check(run("any.dim", T(v), 0), v.any(0), result)


def test_all_any_edges_and_out() -> None:
    check(run("all", T(np.array([np.nan, 1.0]))), True, framework.bool)
    check(run("all", T(np.array([0j, 1j]))), False, framework.bool)
    check(run("all", empty(framework.float32, (0, 3))), True, framework.bool)
    check(run("any", empty(framework.float32, (0, 3))), False, framework.bool)
    check(run("any.dim", empty(framework.float32, (0, 3)), 1), np.zeros(0, dtype=bool), framework.bool)
    check(run("all.dim", T(np.array(2.0)), 0), True, framework.bool)
    x = np.array([[0.5, 0.0], [1.0, 2.0]], dtype=np.float32)
    check(run("all.all_out", T(x), out=empty(framework.uint8)), 0, framework.uint8)
    check(run("all.out", T(x), 1, True, out=empty(framework.uint8)), [[0], [1]], framework.uint8)
    check(run("any.dims_out", T(x), [1], out=empty(framework.bool)), [True, True], framework.bool)
    check(run("any.all_out", T(x.astype(np.uint8)), out=empty(framework.bool)), True, framework.bool)
    fails(
        RuntimeError,
        "all only supports bool tensor for result, got: Float",
        "all.all_out",
        T(x),
        out=empty(framework.float32),
    )
    fails(
        RuntimeError,
        "any only supports bool tensor for result, got: Long",
        "any.out",
        T(x),
        1,
        out=empty(framework.int64),
    )
    fails(RuntimeError, "dim 0 appears multiple times in the list of dims", "all.dims", T(x), [0, 0])


# ---- cumsum, cumprod ------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_cumsum_cumprod_dtypes(d: dtype) -> None:
    a = sample((3, 4), d, seed=14)
    result = d if d.is_floating_point or d.is_complex else framework.int64
    wide = a.astype(np.complex128 if d.is_complex else np.float64 if d.is_floating_point else np.int64)
    for dim in (0, 1, -1):
        check(run("cumsum", T(a), dim), np.cumsum(wide, dim), result)
        check(run("cumprod", T(a), dim), np.cumprod(wide, dim), result)
    for _, v in noncontiguous(d):
        check(run("cumsum", T(v), 1), np.cumsum(v.astype(wide.dtype), 1), result)


def test_cumsum_dtype_inplace_and_out() -> None:
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    f = np.array([[0.5, 0.5], [1.5, 1.25]], dtype=np.float32)
    check(run("cumsum", T(i), 1, dtype=framework.float16), np.cumsum(i, 1), framework.float16)
    check(run("cumsum", T(f), 1, dtype=framework.int32), [[0, 0], [1, 2]], framework.int32)
    check(
        run("cumprod", T(f), 0, dtype=framework.float64),
        np.cumprod(f.astype(np.float64), 0),
        framework.float64,
    )
    x = T(i.astype(np.uint8))
    assert A.cumsum_(x, 0) is x
    check(x, np.cumsum(i, 0), framework.uint8)
    y = T(f.copy())
    assert A.cumprod_(y, 1, dtype=framework.float32) is y
    check(y, np.cumprod(f, 1), framework.float32)
    if torch is not None:
        tx = torch.from_numpy(i.astype(np.uint8)).cumsum_(0)
        np.testing.assert_array_equal(x.numpy(), tx.numpy())
    fails(
        RuntimeError,
        "Bad in-place call: input tensor dtype long int and output tensor dtype float should match",
        "cumsum_",
        T(i.copy()),
        1,
        dtype=framework.float32,
    )
    fails(
        RuntimeError,
        "Bad in-place call: input tensor dtype float and output tensor dtype double should match",
        "cumprod_",
        T(f.copy()),
        1,
        dtype=framework.float64,
    )
    fails(RuntimeError, "\"cumsum_out_cpu\" not implemented for 'Bool'", "cumsum_", T(i > 2), 1)
    fails(
        RuntimeError,
        "\"cumprod_out_cpu\" not implemented for 'Bool'",
        "cumprod",
        T(f),
        0,
        dtype=framework.bool,
    )
    check(run("cumsum.out", T(i), 1, out=empty(framework.int32)), np.cumsum(i, 1), framework.int32)
    check(run("cumsum.out", T(f), 1, out=empty(framework.int64)), [[0, 0], [1, 2]], framework.int64)
    check(
        run("cumprod.out", T(i), 0, dtype=framework.float64, out=empty(framework.float64)),
        np.cumprod(i, 0),
        framework.float64,
    )
    fails(
        RuntimeError,
        "Expected out tensor to have dtype double, but got float instead",
        "cumsum.out",
        T(f),
        1,
        dtype=framework.float64,
        out=empty(framework.float32),
    )
    fails(
        RuntimeError,
        "\"cumprod_out_cpu\" not implemented for 'Bool'",
        "cumprod.out",
        T(i > 2),
        1,
        out=empty(framework.bool),
    )


def test_cumsum_edges() -> None:
    check(run("cumsum", T(np.array(5.0, dtype=np.float32)), 0), 5.0, framework.float32)
    check(run("cumprod", T(np.array(5)), -1), 5, framework.int64)
    check(run("cumsum", empty(framework.float32, (0, 3)), 0), np.zeros((0, 3)), framework.float32)
    # float16 accumulates in float32 (as PyTorch), so 2048 + 1 + 1 reaches 2050.
    check(
        run("cumsum", T(np.array([2048, 1, 1], dtype=np.float16)), 0), [2048, 2048, 2050], framework.float16
    )
    check(
        run("cumprod", T(np.array([1j, 1j, 1j], dtype=np.complex64)), 0), [1j, -1, -1j], framework.complex64
    )
    check(
        run("cumprod", T(np.full(70, 2, dtype=np.int64)), 0),
        np.cumprod(np.full(70, 2, dtype=np.int64)),
        framework.int64,
    )


# ---- Meta -----------------------------------------------------------------------------------

META_CASES: list[tuple[str, Callable[[Tensor], Any], tuple[int, ...], dtype]] = [
    ("sum", lambda t: A.sum(t), (), framework.float32),
    ("sum.dim_IntList", lambda t: A.sum.dim_IntList(t, [1], True), (2, 1, 4), framework.float32),
    ("sum int", lambda t: A.sum(t, dtype=framework.int16), (), framework.int16),
    ("mean.dim", lambda t: A.mean.dim(t, [0, 2]), (3,), framework.float32),
    ("prod.dim_int", lambda t: A.prod.dim_int(t, -1), (2, 3), framework.float32),
    ("max", lambda t: A.max(t), (), framework.float32),
    ("amin", lambda t: A.amin(t, [1], True), (2, 1, 4), framework.float32),
    ("argmax", lambda t: A.argmax(t, None, True), (1, 1, 1), framework.int64),
    ("var", lambda t: A.var(t), (), framework.float32),
    ("std.dim", lambda t: A.std.dim(t, [1]), (2, 4), framework.float32),
    ("norm", lambda t: A.norm(t), (), framework.float32),
    (
        "norm.ScalarOpt_dim_dtype",
        lambda t: A.norm.ScalarOpt_dim_dtype(t, 1, [0], True, dtype=framework.float64),
        (1, 3, 4),
        framework.float64,
    ),
    ("logsumexp", lambda t: A.logsumexp(t, [2]), (2, 3), framework.float32),
    ("all.dims", lambda t: A.all.dims(t, [0]), (3, 4), framework.bool),
    ("any", lambda t: A.any(t), (), framework.bool),
    ("cumsum", lambda t: A.cumsum(t, 1, dtype=framework.float64), (2, 3, 4), framework.float64),
    ("cumprod_", lambda t: A.cumprod_(t, 0), (2, 3, 4), framework.float32),
]


@pytest.mark.parametrize(("name", "call", "shape", "d"), META_CASES, ids=[c[0] for c in META_CASES])
def test_meta_gives_shape_and_dtype(
    name: str, call: Callable[[Tensor], Any], shape: tuple[int, ...], d: dtype
) -> None:
    result = call(meta((2, 3, 4)))
    assert result.device.type == "meta"
    assert result.shape == shape
    assert result.dtype is d


def test_meta_max_dim_out_and_errors() -> None:
    values, indices = A.max.dim(meta((2, 3)), 1, True)
    assert values.shape == indices.shape == (2, 1)
    assert (values.dtype, indices.dtype) == (framework.float32, framework.int64)
    out = meta((0,), framework.float64)
    assert A.mean.out(meta((2, 3)), [1], out=out) is out
    assert out.shape == (2,)
    assert A.cumsum(meta((2, 3), framework.int32), 0).dtype is framework.int64
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        A.mean(meta((2,), framework.int64))
    with pytest.raises(IndexError, match="Dimension out of range"):
        A.sum.dim_IntList(meta((2,)), [3])
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        A.max(meta((0, 2)))


# ---- dispatch keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qualname", "key"),
    [
        ("aten::sum", "CompositeExplicitAutograd"),
        ("aten::sum.out", "CompositeExplicitAutograd"),
        ("aten::sum.dim_IntList", "CPU"),
        ("aten::mean", "CompositeExplicitAutograd"),
        ("aten::mean.out", "CPU"),
        ("aten::prod.out", "CompositeExplicitAutograd"),
        ("aten::max.dim", "CPU"),
        ("aten::var", "CompositeImplicitAutograd"),
        ("aten::std.dim", "CompositeImplicitAutograd"),
        ("aten::var.correction", "CPU"),
        ("aten::norm.Scalar", "CompositeExplicitAutograd"),
        ("aten::norm.ScalarOpt_dim", "CPU"),
        ("aten::logsumexp", "CompositeExplicitAutograd"),
        ("aten::all.dims", "CPU"),
        ("aten::cumsum_", "CPU"),
    ],
)
def test_registered_at_pytorchs_keys(qualname: str, key: str) -> None:
    table = dispatch_table(qualname)
    assert table["CPU"] == key
    assert table["Meta"] == ("Meta" if key == "CPU" else key)


# ---- overload resolution through the packet -------------------------------------------------


def test_packets_pick_pytorchs_overloads() -> None:
    a = sample((2, 3), framework.float32)
    x = T(a)
    check(A.sum(x), a.sum(), framework.float32)
    check(A.sum(x, [1]), a.sum(1), framework.float32)
    assert isinstance(A.max(x, 1), tuple)
    check(A.max(x), a.max(), framework.float32)
    check(A.var(x, [1], correction=0), _var(a, 1, 0), framework.float32)
    check(A.var(x, [1]), _var(a, 1, 1), framework.float32)
    check(A.norm(x, 1, [1]), _norm(a, 1, 1), framework.float32)
    check(A.all(x, 1), a.all(1), framework.bool)
    check(A.any(x, [0, 1]), a.any(), framework.bool)
    out = empty(framework.float32)
    assert A.sum(x, [0], out=out) is out


# ---- properties (hypothesis) ----------------------------------------------------------------


@st.composite
def arrays_and_dims(draw: st.DrawFn, dtypes: st.SearchStrategy[Any]) -> tuple[Array, list[int], bool]:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    np_dtype = draw(dtypes)
    a = draw(
        hnp.arrays(np_dtype, shape, elements=st.integers(-8, 8).map(float) if np_dtype.kind == "f" else None)
    )
    ndim = len(shape)
    dims = draw(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=max(ndim, 1)))
    negate = draw(st.booleans())
    dims = [d - max(ndim, 1) if negate else d for d in dims]
    return a, dims, draw(st.booleans())


SMALL_INTS = st.sampled_from([np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)])
FLOATS = st.sampled_from([np.dtype(np.float32), np.dtype(np.float64)])


def _axis(dims: list[int], ndim: int) -> tuple[int, ...]:
    return tuple(sorted({d % max(ndim, 1) for d in dims})) if ndim else ()


@settings(max_examples=60, deadline=None)
@given(arrays_and_dims(SMALL_INTS))
def test_sum_prod_any_match_numpy(case: tuple[Array, list[int], bool]) -> None:
    a, dims, keepdim = case
    axis = _axis(dims, a.ndim) if dims else tuple(range(a.ndim))
    x = T(a)
    expected = a.astype(np.int64)
    check(
        run("sum.dim_IntList", x, dims, keepdim), expected.sum(axis=axis, keepdims=keepdim), framework.int64
    )
    check(
        run("any.dims", x, dims, keepdim), a.any(axis=_axis(dims, a.ndim), keepdims=keepdim), framework.bool
    )
    if len(dims) == 1:
        check(
            run("prod.dim_int", x, dims[0], keepdim),
            expected.prod(axis=axis, keepdims=keepdim),
            framework.int64,
        )
        check(
            run("cumsum", x, dims[0]),
            np.cumsum(expected.reshape(a.shape or (1,)), axis[0] if axis else 0).reshape(a.shape),
            framework.int64,
        )


@settings(max_examples=60, deadline=None)
@given(arrays_and_dims(FLOATS))
def test_float_reductions_match_numpy(case: tuple[Array, list[int], bool]) -> None:
    a, dims, keepdim = case
    d = framework.float32 if a.dtype == np.float32 else framework.float64
    axis = _axis(dims, a.ndim) if dims else tuple(range(a.ndim))
    x = T(a)
    wide = a.astype(np.float64)
    check(run("mean.dim", x, dims, keepdim), _mean(wide, axis, keepdim), d)
    check(
        run("norm.ScalarOpt_dim", x, 2, dims, keepdim), np.sqrt((wide**2).sum(axis=axis, keepdims=keepdim)), d
    )
    reduced = math.prod(a.shape[i] for i in axis)
    if reduced:
        check(run("amax", x, dims, keepdim), wide.max(axis=axis, keepdims=keepdim), d)
        # log(sum) of a float sum near 1 keeps only its absolute precision.
        lse = A.logsumexp(x, dims or list(range(a.ndim)), True)
        check(lse, _logsumexp(a, axis, True), d, atol=4 * float(np.finfo(a.dtype).eps))
    if reduced > 1 and a.size:
        check(run("var.correction", x, dims, keepdim=keepdim), _var(a, axis, 1, keepdim), d)
    if len(dims) == 1 and reduced:
        values, indices = run("max.dim", x, dims[0], keepdim)
        lined = wide.reshape(a.shape or (1,))
        check(
            indices,
            np.argmax(lined, axis=axis[0] if axis else 0, keepdims=True).reshape(values.shape),
            framework.int64,
        )
        check(values, lined.max(axis=axis[0] if axis else 0, keepdims=True).reshape(values.shape), d)


def _mean(a: Array, axis: tuple[int, ...], keepdim: bool) -> Array:
    with np.errstate(invalid="ignore"):
        return np.asarray(a.sum(axis=axis, keepdims=keepdim) / math.prod(a.shape[i] for i in axis))
