"""Indexing operators against NumPy (always) and PyTorch 2.13 (when importable): index_select,
gather, scatter/scatter_add, masked_fill, masked_select, index.Tensor, index_put_, where and
nonzero over every dtype, zero-size and zero-dim inputs, non-contiguous inputs, out= and in-place
variants, Meta tensors, and PyTorch's error messages and warnings.

Every value is compared exactly: these operators move elements without arithmetic, except the
accumulating ones (scatter_add, scatter reduce, index_put_ with accumulate), whose repeated
targets are combined in the same order as PyTorch's CPU loops (float16 scatter reductions in
float32, as PyTorch), so even float sums match bit for bit.  The one tolerance: PyTorch's complex
product rounds differently from NumPy's, so scatter's "multiply" of complex values is compared to
PyTorch within a few ulps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from all_dtypes import ALL_DTYPES
from hypothesis import given, settings
from hypothesis import strategies as st

import framework
from framework import Tensor
from framework.c10.dtypes import dtype
from framework.ops import aten
from framework.ops.kernels._registry import make_view

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None

Array = npt.NDArray[Any]

DTYPES: list[dtype] = ALL_DTYPES
DTYPE_IDS = [d.name for d in DTYPES]
NP_DTYPES = [d.numpy_dtype for d in DTYPES]


# ---- helpers ------------------------------------------------------------------------------------


def sample(shape: Sequence[int], np_dtype: Any, seed: int = 0) -> Array:
    """Distinct-ish values of `np_dtype` (NaN-free)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(np_dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "u":
        return rng.integers(0, 100, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-50, 50, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def T(values: Any, np_dtype: Any = None) -> Tensor:
    """A tensor owning a copy of `values`."""
    return framework.from_numpy(np.array(values, dtype=np_dtype))


def V(a: Array) -> Tensor:
    """A tensor viewing `a` itself (keeps its strides: transposed, stepped, broadcast)."""
    return framework.from_numpy(a)


def E(np_dtype: Any, shape: Sequence[int] = (0,)) -> Tensor:
    """An empty (resizable) CPU tensor: an out= argument."""
    d = framework.from_numpy(np.zeros(0, np_dtype)).dtype
    result: Tensor = aten.empty.memory_format(list(shape), dtype=d)
    return result


def meta(shape: Sequence[int], d: dtype = framework.float32) -> Tensor:
    result: Tensor = aten.empty.memory_format(list(shape), dtype=d, device="meta")
    return result


def assert_tensor(t: Tensor, expected: Array) -> None:
    """Same dtype, shape and values (NaN equal to NaN)."""
    assert t.dtype.numpy_dtype == expected.dtype, (t.dtype, expected.dtype)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    np.testing.assert_array_equal(t.numpy(), expected)


def assert_meta(t: Tensor, shape: Sequence[int], d: dtype) -> None:
    assert t.device.type == "meta"
    assert t.shape == tuple(shape)
    assert t.dtype is d


def tt(a: Any) -> Any:
    """The torch tensor for a NumPy array (a contiguous copy)."""
    return torch.from_numpy(np.array(a, order="C"))


def oracle(call: Callable[[Any], Any]) -> Array | None:
    """`call(torch)` as a NumPy array, or None without torch."""
    if torch is None:
        return None
    return np.asarray(call(torch).numpy())


def check_oracle(result: Tensor, call: Callable[[Any], Any]) -> None:
    expected = oracle(call)
    if expected is not None:
        assert_tensor(result, expected)


def raises(
    exc: type[Exception],
    message: str,
    call: Callable[[], Any],
    torch_call: Callable[[Any], Any] | None = None,
) -> None:
    """`call()` raises `exc` with exactly `message`; so does PyTorch's `torch_call(torch)`."""
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message
    if torch is not None and torch_call is not None:
        with pytest.raises(exc) as tinfo:
            torch_call(torch)
        assert str(tinfo.value) == message


OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)

NONZERO_META = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
    "data-independent implementation does not exist. This implementation returns a fake value, assuming all "
    "elements of the tensor are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


def non_contiguous(a: Array) -> list[Array]:
    """`a`'s values as transposed, stepped and broadcast views (each has a.shape)."""
    views = []
    if a.ndim >= 2:
        views.append(np.ascontiguousarray(a.T).T)
    wide = np.repeat(a, 2, axis=-1) if a.ndim else a
    views.append(wide[..., ::2] if a.ndim else wide)
    if a.ndim and a.shape[0] == 1:
        views.append(np.broadcast_to(a, a.shape))
    return views


# ---- index_select -------------------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("shape", "dim", "index"),
    [
        ((3, 4), 0, [2, 0, 2]),
        ((3, 4), 1, [3, 1]),
        ((3, 4), -1, [0]),
        ((2, 3, 4), 1, [1, 1, 0, 2]),
        ((5,), 0, []),
        ((0, 3), 1, [2, 0]),
        ((2, 0), 0, [1]),
    ],
)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_index_select(
    np_dtype: Any, shape: tuple[int, ...], dim: int, index: list[int], index_dtype: Any
) -> None:
    a = sample(shape, np_dtype)
    idx = np.array(index, dtype=index_dtype)
    expected = np.take(a, idx, axis=dim)
    result = aten.index_select(T(a), dim, T(idx))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.index_select(tt(a), dim, tt(idx)))


def test_index_select_zero_dim() -> None:
    assert_tensor(aten.index_select(T(np.float32(5)), 0, T([0])), np.array(5, np.float32))
    assert_tensor(aten.index_select(T(np.float32(5)), -1, T(np.int64(0))), np.array(5, np.float32))
    # A zero-dim index selects one entry and keeps the dimension.
    a = sample((3, 4), np.float64)
    assert_tensor(aten.index_select(T(a), 1, T(np.int64(2))), a[:, [2]])


def test_index_select_non_contiguous() -> None:
    a = sample((4, 6), np.int16)
    idx = np.array([5, 0, 5, 1, 2, 3, 4], np.int64)
    for view in non_contiguous(a):
        assert_tensor(aten.index_select(V(view), 1, V(idx[::2])), a[:, idx[::2]])
    assert_tensor(aten.index_select(V(np.broadcast_to(a[:1], (3, 6))), 0, T([2, 0])), np.repeat(a[:1], 2, 0))


def test_index_select_out() -> None:
    a = sample((3, 4), np.float32)
    out = E(np.float32)
    result = aten.index_select.out(T(a), 0, T([2, 1]), out=out)
    assert result is out
    assert_tensor(out, a[[2, 1]])
    wrong_shape = E(np.float32, (5,))
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        aten.index_select(T(a), 1, T([0]), out=wrong_shape)
    assert_tensor(wrong_shape, a[:, [0]])
    raises(
        RuntimeError,
        "index_select(): self and result must have the same scalar type",
        lambda: aten.index_select.out(T(a), 0, T([1]), out=E(np.float64)),
        lambda torch: torch.index_select(tt(a), 0, tt([1]), out=torch.zeros(0, dtype=torch.float64)),
    )
    base = T(np.arange(6.0))
    raises(
        RuntimeError,
        OVERLAP,
        lambda: aten.index_select.out(base, 0, T([0, 1]), out=make_view(base, (2,), (1,), 1)),
    )


def test_index_select_meta() -> None:
    assert_meta(aten.index_select(meta((3, 4)), 0, meta((5,), framework.int64)), (5, 4), framework.float32)
    assert_meta(
        aten.index_select(meta((3, 4), framework.int8), 1, meta((), framework.int32)), (3, 1), framework.int8
    )
    out = meta((0,))
    assert aten.index_select.out(meta((3, 4)), 1, meta((2,), framework.int64), out=out) is out
    assert_meta(out, (3, 2), framework.float32)


def test_index_select_errors() -> None:
    a = sample((3, 4), np.float32)
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        lambda: aten.index_select(T(a), 2, T([0])),
        lambda torch: torch.index_select(tt(a), 2, tt([0])),
    )
    raises(
        IndexError,
        "index_select(): Index is supposed to be a vector",
        lambda: aten.index_select(T(a), 0, T([[1]])),
        lambda torch: torch.index_select(tt(a), 0, tt([[1]])),
    )
    for bad in (np.float32, np.int16, np.uint8, np.bool_):
        raises(
            RuntimeError,
            "index_select(): Expected dtype int32 or int64 for index",
            lambda bad=bad: aten.index_select(T(a), 0, T([1], bad)),
            lambda torch, bad=bad: torch.index_select(tt(a), 0, tt(np.array([1], bad))),
        )
    for value in (3, -1, 100):
        raises(
            IndexError,
            "index out of range in self",
            lambda value=value: aten.index_select(T(a), 0, T([0, value])),
            lambda torch, value=value: torch.index_select(tt(a), 0, tt([0, value])),
        )
    raises(
        RuntimeError,
        "index_select(): Index to scalar can have only 1 value, got 2 value(s)",
        lambda: aten.index_select(T(np.float32(1)), 0, T([0, 0])),
        lambda torch: torch.index_select(torch.tensor(1.0), 0, torch.tensor([0, 0])),
    )
    raises(
        RuntimeError,
        "index_select(): self indexing axis dim should be positive",
        lambda: aten.index_select(T(np.zeros((0, 3))), 0, T([0])),
        lambda torch: torch.index_select(torch.zeros(0, 3), 0, torch.tensor([0])),
    )


def test_index_select_out_of_range_wordings() -> None:
    # PyTorch's kernel for dim 1 (into a contiguous result) and for an empty self names the index.
    for shape, dim in [((3, 4), 1), ((3, 4, 5), 1), ((3, 0), 0)]:
        a = np.zeros(shape, np.float32)
        size = shape[dim]
        raises(
            RuntimeError,
            f"INDICES element is out of DATA bounds, id=-{size + 1} axis_dim={size}",
            lambda a=a, dim=dim, size=size: aten.index_select(T(a), dim, T([0, -size - 1, 9])),
            lambda torch, a=a, dim=dim, size=size: torch.index_select(
                tt(a), dim, torch.tensor([0, -size - 1, 9])
            ),
        )
    for shape, dim in [((3, 4, 5), 2), ((3, 4), 0), ((4,), 0), ((0,), 0)]:
        a = np.zeros(shape, np.float32)
        raises(
            IndexError,
            "index out of range in self",
            lambda a=a, dim=dim: aten.index_select(T(a), dim, T([9])),
            lambda torch, a=a, dim=dim: torch.index_select(tt(a), dim, torch.tensor([9])),
        )
    # An empty index selects nothing and checks nothing.
    assert_tensor(aten.index_select(T(np.zeros((2, 0))), 1, T(np.zeros(0, np.int64))), np.zeros((2, 0)))


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    data=st.data(),
)
def test_index_select_hypothesis(shape: list[int], data: st.DataObject) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[dim]
    picks = data.draw(st.lists(st.integers(0, size - 1), max_size=6)) if size else []
    a = sample(shape, np.float64, seed=len(picks))
    result = aten.index_select(T(a), dim, T(np.array(picks, np.int64)))
    assert_tensor(result, np.take(a, np.array(picks, np.int64), axis=dim))


# ---- gather -------------------------------------------------------------------------------------


def gather_reference(a: Array, dim: int, idx: Array) -> Array:
    grids = list(np.indices(idx.shape))
    grids[dim] = idx
    result: Array = a[tuple(grids)]
    return result


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("shape", "dim", "index_shape"),
    [
        ((3, 4), 0, (2, 4)),
        ((3, 4), 1, (3, 6)),
        ((3, 4), -1, (2, 2)),
        ((2, 3, 4), 1, (2, 5, 1)),
        ((4,), 0, (7,)),
        ((3, 0), 0, (2, 0)),
        ((3, 4), 0, (0, 4)),
    ],
)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_gather(
    np_dtype: Any, shape: tuple[int, ...], dim: int, index_shape: tuple[int, ...], index_dtype: Any
) -> None:
    a = sample(shape, np_dtype)
    rng = np.random.default_rng(1)
    idx = (
        rng.integers(0, shape[dim], index_shape).astype(index_dtype)
        if shape[dim]
        else np.zeros(index_shape, index_dtype)
    )
    expected = gather_reference(a, dim % len(shape), idx)
    result = aten.gather(T(a), dim, T(idx))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.gather(tt(a), dim, tt(idx)))


def test_gather_zero_dim_and_empty() -> None:
    assert_tensor(aten.gather(T(np.float32(3)), 0, T(np.int64(0))), np.array(3, np.float32))
    assert_tensor(aten.gather(T(np.float32(3)), 0, T([0, 0])), np.array([3, 3], np.float32))
    assert_tensor(aten.gather(T([1.0, 2.0]), 0, T(np.int64(1))), np.array(2.0))
    # An empty index skips the shape checks (PyTorch does too).
    assert_tensor(aten.gather(T(np.zeros((3, 4))), 0, T(np.zeros((0, 9), np.int64))), np.zeros((0, 9)))
    assert_tensor(aten.gather(T(np.zeros((3, 4))), 0, T(np.zeros(0, np.int64))), np.zeros(0))


def test_gather_non_contiguous() -> None:
    a = sample((4, 6), np.complex64)
    idx = np.random.default_rng(2).integers(0, 6, (4, 10))
    expected = gather_reference(a, 1, idx[:, ::2])
    for view in non_contiguous(a):
        assert_tensor(aten.gather(V(view), 1, V(idx[:, ::2])), expected)
    idx_b = np.broadcast_to(np.array([[3, 0]]), (4, 2))
    assert_tensor(aten.gather(T(a), 1, V(idx_b)), gather_reference(a, 1, idx_b))


def test_gather_out_and_meta() -> None:
    a = sample((3, 4), np.int32)
    idx = np.array([[0, 2], [1, 1]])
    out = E(np.int32)
    assert aten.gather.out(T(a), 1, T(idx), out=out) is out
    assert_tensor(out, gather_reference(a, 1, idx))
    raises(
        RuntimeError,
        "Expected out tensor to have dtype int, but got long int instead",
        lambda: aten.gather(T(a), 1, T(idx), out=E(np.int64)),
        lambda torch: torch.gather(tt(a), 1, tt(idx), out=torch.zeros(0, dtype=torch.int64)),
    )
    base = T(np.arange(6.0))
    raises(RuntimeError, OVERLAP, lambda: aten.gather(base, 0, T([0, 1]), out=make_view(base, (2,), (1,), 1)))
    assert_meta(
        aten.gather(meta((3, 4), framework.float16), 0, meta((2, 4), framework.int64)),
        (2, 4),
        framework.float16,
    )
    assert_meta(
        aten.gather(meta((3, 4)), 1, meta((3, 7), framework.int32), sparse_grad=True),
        (3, 7),
        framework.float32,
    )


def test_gather_errors() -> None:
    a = sample((3, 4), np.float32)
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        lambda: aten.gather(T(a), 2, T([[0]])),
        lambda torch: torch.gather(tt(a), 2, tt([[0]])),
    )
    for bad in (np.float32, np.int16, np.bool_):
        raises(
            RuntimeError,
            "gather(): Expected dtype int32/int64 for index",
            lambda bad=bad: aten.gather(T(a), 0, T([[1]], bad)),
            lambda torch, bad=bad: torch.gather(tt(a), 0, tt(np.array([[1]], bad))),
        )
    raises(
        RuntimeError,
        "Index tensor must have the same number of dimensions as input tensor",
        lambda: aten.gather(T(a), 0, T([1])),
        lambda torch: torch.gather(tt(a), 0, tt([1])),
    )
    raises(
        RuntimeError,
        "Size does not match at dimension 1 expected index [2, 5] to be no larger than self [3, 4] "
        "apart from dimension 0",
        lambda: aten.gather(T(a), 0, T(np.zeros((2, 5), np.int64))),
        lambda torch: torch.gather(tt(a), 0, torch.zeros(2, 5, dtype=torch.long)),
    )
    raises(
        RuntimeError,
        "Size does not match at dimension 0 expected index [4, 2] to be no larger than self [3, 4] "
        "apart from dimension 1",
        lambda: aten.gather(T(a), 1, T(np.zeros((4, 2), np.int64))),
        lambda torch: torch.gather(tt(a), 1, torch.zeros(4, 2, dtype=torch.long)),
    )
    for value in (3, -1):
        raises(
            RuntimeError,
            f"index {value} is out of bounds for dimension 0 with size 3",
            lambda value=value: aten.gather(T(a), 0, T([[0, value]])),
            lambda torch, value=value: torch.gather(tt(a), 0, tt([[0, value]])),
        )
    raises(
        RuntimeError,
        "index 0 is out of bounds for dimension 0 with size 0",
        lambda: aten.gather(T(np.zeros((0, 4))), 0, T(np.zeros((1, 4), np.int64))),
        lambda torch: torch.gather(torch.zeros(0, 4), 0, torch.zeros(1, 4, dtype=torch.long)),
    )
    # The first bad index in element order is named.
    raises(
        RuntimeError,
        "index 9 is out of bounds for dimension 0 with size 3",
        lambda: aten.gather(T(a), 0, T([[0, 9], [7, 0]])),
        lambda torch: torch.gather(tt(a), 0, tt([[0, 9], [7, 0]])),
    )


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_gather_hypothesis(shape: list[int], data: st.DataObject) -> None:
    dim = data.draw(st.integers(0, len(shape) - 1))
    index_shape = [
        data.draw(st.integers(0, n)) if i != dim else data.draw(st.integers(0, 5))
        for i, n in enumerate(shape)
    ]
    rng = np.random.default_rng(sum(index_shape))
    idx = rng.integers(0, shape[dim], index_shape)
    a = sample(shape, np.float32, seed=3)
    assert_tensor(aten.gather(T(a), dim, T(idx)), gather_reference(a, dim, idx))


# ---- scatter, scatter_add -----------------------------------------------------------------------


def scatter_reference(a: Array, dim: int, idx: Array, src: Any, reduce: str | None = None) -> Array:
    """`a` with `src` (an array, or a value) scattered: assignment (last wins) or unbuffered
    add/multiply, float16 accumulated in float32 (as PyTorch does)."""
    grids = list(np.indices(idx.shape))
    grids[dim] = idx
    values = src[tuple(slice(0, n) for n in idx.shape)] if np.ndim(src) else src
    if reduce is None:
        result = a.copy()
        result[tuple(grids)] = values
        return result
    acc = a.astype(np.float32) if a.dtype == np.float16 else a.copy()
    getattr(np, reduce).at(acc, tuple(grids), np.asarray(values).astype(acc.dtype))
    return acc.astype(a.dtype)


SCATTER_CASES = [
    ((3, 4), 0, np.array([[0, 1, 2], [2, 0, 1]])),
    ((3, 4), 1, np.array([[3, 0], [1, 1], [2, 2]])),
    ((3, 4), -2, np.array([[1, 1, 1, 1], [1, 1, 1, 1]])),
    ((2, 3, 4), 2, np.array([[[0, 0, 3]], [[2, 2, 2]]])),
    ((5,), 0, np.array([4, 4, 0, 4])),
    ((3, 4), 0, np.zeros((0, 4), np.int64)),
]


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("shape", "dim", "idx"), SCATTER_CASES)
def test_scatter_src(np_dtype: Any, shape: tuple[int, ...], dim: int, idx: Array) -> None:
    a = sample(shape, np_dtype, 1)
    src = sample((4, 4, 4)[: len(shape)], np_dtype, 2)
    expected = scatter_reference(a, dim % len(shape), idx, src)
    result = aten.scatter.src(T(a), dim, T(idx), T(src))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.scatter(tt(a), dim, tt(idx), tt(src)))
    self_t = T(a)
    assert aten.scatter_.src(self_t, dim, T(idx), T(src)) is self_t
    assert_tensor(self_t, expected)
    out = E(np_dtype)
    assert aten.scatter.src_out(T(a), dim, T(idx), T(src), out=out) is out
    assert_tensor(out, expected)


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("shape", "dim", "idx"), SCATTER_CASES)
def test_scatter_add(np_dtype: Any, shape: tuple[int, ...], dim: int, idx: Array) -> None:
    a = sample(shape, np_dtype, 1)
    src = sample((4, 4, 4)[: len(shape)], np_dtype, 2)
    expected = scatter_reference(a, dim % len(shape), idx, src, "add")
    result = aten.scatter_add(T(a), dim, T(idx), T(src))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.scatter_add(tt(a), dim, tt(idx), tt(src)))
    self_t = T(a)
    assert aten.scatter_add_(self_t, dim, T(idx), T(src)) is self_t
    assert_tensor(self_t, expected)
    out = E(np_dtype)
    assert aten.scatter_add.out(T(a), dim, T(idx), T(src), out=out) is out
    assert_tensor(out, expected)


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce(np_dtype: Any, reduce: str) -> None:
    a = sample((3, 4), np_dtype, 4)
    src = sample((3, 4), np_dtype, 5)
    idx = np.array([[0, 0, 2, 1], [0, 2, 2, 1]])
    expected = scatter_reference(a, 0, idx, src, reduce)
    with pytest.warns(
        UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"
    ):
        result = aten.scatter.reduce(T(a), 0, T(idx), T(src), reduce=reduce)
    assert_tensor(result, expected)
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.scatter(tt(a), 0, tt(idx), tt(src), reduce=reduce).numpy()
        if reduce == "multiply" and theirs.dtype.kind == "c":
            # PyTorch's complex product rounds the real and imaginary parts differently from
            # NumPy's (ac - bd) + (ad + bc)i: the results may differ in the last bit.
            np.testing.assert_allclose(result.numpy(), theirs, rtol=4 * np.finfo(theirs.dtype).eps)
        else:
            assert_tensor(result, theirs)
    self_t = T(a)
    with pytest.warns(UserWarning):
        assert aten.scatter_.reduce(self_t, 0, T(idx), T(src), reduce=reduce) is self_t
    assert_tensor(self_t, expected)


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
def test_scatter_value(np_dtype: Any) -> None:
    a = sample((3, 4), np_dtype, 6)
    idx = np.array([[0, 1, 2], [2, 0, 0]])
    value = 1 if np.dtype(np_dtype) != np.bool_ else True
    expected = scatter_reference(a, 0, idx, np.array(value).astype(np_dtype))
    result = aten.scatter.value(T(a), 0, T(idx), value)
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.scatter(tt(a), 0, tt(idx), value))
    self_t = T(a)
    assert aten.scatter_.value(self_t, 0, T(idx), value) is self_t
    assert_tensor(self_t, expected)
    out = E(np_dtype)
    aten.scatter.value_out(T(a), 0, T(idx), value, out=out)
    assert_tensor(out, expected)
    for reduce in ("add", "multiply"):
        expected = scatter_reference(a, 0, idx, np.array(value).astype(np_dtype), reduce)
        result = aten.scatter.value_reduce(T(a), 0, T(idx), value, reduce=reduce)
        assert_tensor(result, expected)
        check_oracle(
            result, lambda torch, reduce=reduce: torch.scatter(tt(a), 0, tt(idx), value, reduce=reduce)
        )
        self_t = T(a)
        aten.scatter_.value_reduce(self_t, 0, T(idx), value, reduce=reduce)
        assert_tensor(self_t, expected)
        out = E(np_dtype)
        aten.scatter.value_reduce_out(T(a), 0, T(idx), value, reduce=reduce, out=out)
        assert_tensor(out, expected)


def test_scatter_value_conversion() -> None:
    # Floats truncate into integer tensors; -1 wraps into uint8; anything non-zero is True.
    idx = T([1])
    assert_tensor(aten.scatter(T(np.zeros(3, np.int32)), 0, idx, 7.9), np.array([0, 7, 0], np.int32))
    assert_tensor(aten.scatter(T(np.zeros(3, np.uint8)), 0, idx, -1), np.array([0, 255, 0], np.uint8))
    assert_tensor(aten.scatter(T(np.zeros(3, np.bool_)), 0, idx, 1j), np.array([False, True, False]))
    assert_tensor(
        aten.scatter(T(np.zeros(3, np.int32)), 0, T([1, 1]), 2.5, reduce="add"), np.array([0, 4, 0], np.int32)
    )
    raises(
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
        lambda: aten.scatter(T(np.zeros(3, np.int8)), 0, idx, 300),
        lambda torch: torch.scatter(torch.zeros(3, dtype=torch.int8), 0, torch.tensor([1]), 300),
    )
    raises(
        RuntimeError,
        "value cannot be converted to type float without overflow",
        lambda: aten.scatter(T(np.zeros(3, np.float32)), 0, idx, 1j),
        lambda torch: torch.scatter(torch.zeros(3), 0, torch.tensor([1]), 1j),
    )


def test_scatter_duplicates_and_order() -> None:
    # Repeated targets: the last write wins; with add, every value counts, summed in index order.
    assert_tensor(
        aten.scatter(T(np.zeros(3)), 0, T([1, 1, 1, 2, 2]), T([1.0, 2, 3, 4, 5])), np.array([0.0, 3, 5])
    )
    assert_tensor(
        aten.scatter_add(T(np.zeros(3)), 0, T([1, 1, 1, 2, 2]), T([1.0, 2, 3, 4, 5])), np.array([0.0, 6, 9])
    )
    rng = np.random.default_rng(7)
    src = rng.standard_normal((50, 6)).astype(np.float32)
    idx = rng.integers(0, 3, (50, 6))
    result = aten.scatter_add(T(np.zeros((3, 6), np.float32)), 0, T(idx), T(src))
    check_oracle(result, lambda torch: torch.scatter_add(torch.zeros(3, 6), 0, tt(idx), tt(src)))
    result = aten.scatter(T(np.zeros((3, 6), np.float32)), 0, T(idx), T(src))
    check_oracle(result, lambda torch: torch.scatter(torch.zeros(3, 6), 0, tt(idx), tt(src)))


def test_scatter_zero_dim_and_non_contiguous() -> None:
    assert_tensor(
        aten.scatter(T(np.float32(1)), 0, T(np.int64(0)), T(np.float32(5))), np.array(5, np.float32)
    )
    assert_tensor(aten.scatter(T(np.float32(1)), 0, T([0]), T([5.0], np.float32)), np.array(5.0, np.float32))
    assert_tensor(aten.scatter(T(np.zeros(3)), 0, T(np.int64(2)), T(5.0)), np.array([0.0, 0, 5]))
    assert_tensor(aten.scatter(T(np.zeros(3)), 0, T([0]), T(5.0)), np.array([5.0, 0, 0]))
    a = sample((4, 6), np.int64, 8)
    src = sample((4, 6), np.int64, 9)
    idx = np.array([[5, 0, 3], [1, 2, 4], [0, 0, 0], [5, 5, 5]])
    expected = scatter_reference(a, 1, idx, src)
    for view in non_contiguous(a):
        assert_tensor(aten.scatter(V(view), 1, T(idx), V(np.ascontiguousarray(src.T).T)), expected)
    # In place into a transposed view writes through to its base.
    base = np.ascontiguousarray(a.T)
    view = V(base.T)
    aten.scatter_(view, 1, T(idx), T(src))
    np.testing.assert_array_equal(base.T, expected)


def test_scatter_meta() -> None:
    idx = meta((2, 3), framework.int64)
    assert_meta(aten.scatter(meta((3, 4)), 0, idx, meta((4, 4))), (3, 4), framework.float32)
    assert_meta(aten.scatter(meta((3, 4), framework.int8), 1, idx, 7), (3, 4), framework.int8)
    assert_meta(aten.scatter_add(meta((3, 4)), 0, idx, meta((2, 3))), (3, 4), framework.float32)
    self_t = meta((3, 4))
    assert aten.scatter_(self_t, 0, idx, 1.0) is self_t
    out = meta((0,))
    aten.scatter_add.out(meta((3, 4)), 0, idx, meta((2, 3)), out=out)
    assert_meta(out, (3, 4), framework.float32)
    raises(
        RuntimeError,
        "scatter(): Expected self.dtype to be equal to src.dtype",
        lambda: aten.scatter(meta((3, 4)), 0, idx, meta((2, 3), framework.float64)),
    )


def test_scatter_errors() -> None:
    a = np.zeros((3, 4), np.float32)
    src = np.arange(100, 112, dtype=np.float32).reshape(3, 4)
    idx = np.array([[0, 1, 2], [2, 0, 1]])
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
        lambda: aten.scatter(T(a), 5, T(idx), T(src)),
        lambda torch: torch.scatter(tt(a), 5, tt(idx), tt(src)),
    )
    raises(
        RuntimeError,
        "scatter(): Expected dtype int32/int64 for index",
        lambda: aten.scatter(T(a), 0, T(idx, np.int16), T(src)),
        lambda torch: torch.scatter(tt(a), 0, tt(idx.astype(np.int16)), tt(src)),
    )
    raises(
        RuntimeError,
        "scatter(): Expected dtype int32/int64 for index",
        lambda: aten.scatter_add(T(a), 0, T(idx, np.float32), T(src)),
        lambda torch: torch.scatter_add(tt(a), 0, tt(idx.astype(np.float32)), tt(src)),
    )
    raises(
        RuntimeError,
        "scatter(): Expected self.dtype to be equal to src.dtype",
        lambda: aten.scatter_add(T(a), 0, T(idx), T(src, np.float64)),
        lambda torch: torch.scatter_add(tt(a), 0, tt(idx), tt(src.astype(np.float64))),
    )
    raises(
        RuntimeError,
        "Index tensor must have the same number of dimensions as self tensor",
        lambda: aten.scatter(T(a), 0, T([0, 1]), T(src)),
        lambda torch: torch.scatter(tt(a), 0, tt([0, 1]), tt(src)),
    )
    raises(
        RuntimeError,
        "Index tensor must have the same number of dimensions as src tensor",
        lambda: aten.scatter(T(a), 0, T(np.zeros((2, 2), np.int64)), T(np.zeros((2, 2, 2), np.float32))),
        lambda torch: torch.scatter(tt(a), 0, torch.zeros(2, 2, dtype=torch.long), torch.zeros(2, 2, 2)),
    )
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        lambda: aten.scatter(T(a), 0, T(np.zeros((2, 2), np.int64)), T(np.zeros(4, np.float32))),
        lambda torch: torch.scatter(tt(a), 0, torch.zeros(2, 2, dtype=torch.long), torch.zeros(4)),
    )
    raises(
        RuntimeError,
        "Expected index [3, 4] to be no larger than self [3, 4] apart from dimension 0 and to be no "
        "larger size than src [2, 4]",
        lambda: aten.scatter(T(a), 0, T(np.zeros((3, 4), np.int64)), T(src[:2])),
        lambda torch: torch.scatter(tt(a), 0, torch.zeros(3, 4, dtype=torch.long), tt(src[:2])),
    )
    raises(
        RuntimeError,
        "Expected index [2, 5] to be no larger than self [3, 4] apart from dimension 0",
        lambda: aten.scatter(T(a), 0, T(np.zeros((2, 5), np.int64)), 1.0),
        lambda torch: torch.scatter(tt(a), 0, torch.zeros(2, 5, dtype=torch.long), 1.0),
    )
    raises(
        RuntimeError,
        "reduce argument must be either add or multiply.",
        lambda: aten.scatter(T(a), 0, T(idx), 2.0, reduce="mean"),
        lambda torch: torch.scatter(tt(a), 0, tt(idx), 2.0, reduce="mean"),
    )
    for value in (3, -1):
        raises(
            RuntimeError,
            f"index {value} is out of bounds for dimension 0 with size 3",
            lambda value=value: aten.scatter(T(a), 0, T([[value]]), T(src)),
            lambda torch, value=value: torch.scatter(tt(a), 0, tt([[value]]), tt(src)),
        )
    raises(
        RuntimeError,
        "index 4 is out of bounds for dimension 1 with size 4",
        lambda: aten.scatter_add(T(a), 1, T([[4]]), T(src)),
        lambda torch: torch.scatter_add(tt(a), 1, tt([[4]]), tt(src)),
    )
    raises(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        lambda: aten.scatter(T(a), 0, T(idx), T(src), out=E(np.float64, (3, 4))),
        lambda torch: torch.scatter(tt(a), 0, tt(idx), tt(src), out=torch.zeros(3, 4, dtype=torch.float64)),
    )


def test_scatter_overlap() -> None:
    internal = (
        "unsupported operation: more than one element of the written-to tensor refers to a single memory "
        "location. Please clone() the tensor before performing the operation."
    )
    base = T(np.zeros(3, np.float32))
    expanded = make_view(base, (2, 3), (0, 1), 0)
    raises(
        RuntimeError,
        internal,
        lambda: aten.scatter_(expanded, 0, T([[0, 0, 0]]), T(np.ones((1, 3), np.float32))),
    )
    raises(
        RuntimeError,
        internal,
        lambda: aten.scatter_add_(expanded, 0, T([[0, 0, 0]]), T(np.ones((1, 3), np.float32))),
    )
    a = T(np.arange(3.0))
    raises(RuntimeError, OVERLAP, lambda: aten.scatter_(a, 0, T([0, 1]), a))
    ints = T(np.arange(3))
    raises(RuntimeError, OVERLAP, lambda: aten.scatter_(ints, 0, ints, T(np.arange(3))))
    raises(RuntimeError, OVERLAP, lambda: aten.scatter(a, 0, T([0]), a, out=a))
    # out may be self: the scatter happens in place.
    b = T(np.arange(3.0))
    assert aten.scatter(b, 0, T([0]), T([9.0]), out=b) is b
    assert_tensor(b, np.array([9.0, 1, 2]))


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_scatter_add_hypothesis(shape: list[int], data: st.DataObject) -> None:
    dim = data.draw(st.integers(0, len(shape) - 1))
    index_shape = [
        data.draw(st.integers(0, n)) if i != dim else data.draw(st.integers(0, 6))
        for i, n in enumerate(shape)
    ]
    rng = np.random.default_rng(sum(index_shape) + dim)
    idx = rng.integers(0, shape[dim], index_shape)
    src = rng.integers(-9, 9, index_shape).astype(np.int64)
    a = sample(shape, np.int64, seed=4)
    assert_tensor(aten.scatter_add(T(a), dim, T(idx), T(src)), scatter_reference(a, dim, idx, src, "add"))


# ---- masked_fill --------------------------------------------------------------------------------


FILL_VALUES: dict[str, Any] = {
    "bool": True,
    "uint8": 7,
    "int8": -7,
    "int16": 300,
    "int32": -70000,
    "int64": 2**40,
    "float16": 2.5,
    "float32": -1.25,
    "float64": 1e300,
    "complex64": 1 - 2j,
    "complex128": 3j,
}


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("shape", "mask_shape"),
    [
        ((2, 3), (2, 3)),
        ((2, 3), (3,)),
        ((2, 3), (2, 1)),
        ((2, 3), ()),
        ((0, 3), (3,)),
        ((), ()),
        ((4,), (4,)),
    ],
)
def test_masked_fill(np_dtype: Any, shape: tuple[int, ...], mask_shape: tuple[int, ...]) -> None:
    a = sample(shape, np_dtype, 1)
    mask = sample(mask_shape, np.bool_, 2)
    value = FILL_VALUES[np.dtype(np_dtype).name]
    expected = np.where(mask, np.array(value).astype(np_dtype), a)
    result = aten.masked_fill.Scalar(T(a), T(mask), value)
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.masked_fill(tt(a), tt(mask), value))
    assert_tensor(aten.masked_fill.Tensor(T(a), T(mask), T(np.array(value).astype(np_dtype))), expected)
    self_t = T(a)
    assert aten.masked_fill_.Scalar(self_t, T(mask), value) is self_t
    assert_tensor(self_t, expected)
    self_t = T(a)
    assert aten.masked_fill_.Tensor(self_t, T(mask), T(np.array(value))) is self_t
    assert_tensor(self_t, expected)
    out = E(np_dtype)
    assert aten.masked_fill.Scalar_out(T(a), T(mask), value, out=out) is out
    assert_tensor(out, expected)
    out = E(np_dtype)
    aten.masked_fill.Tensor_out(T(a), T(mask), T(np.array(value)), out=out)
    assert_tensor(out, expected)


def test_masked_fill_broadcasts_self() -> None:
    # Out of place, self broadcasts to the mask's shape; in place it cannot.
    a = np.array([1.0, 2, 3], np.float32)
    mask = np.array([[True], [False]])
    expected = np.array([[-1.0, -1, -1], [1, 2, 3]], np.float32)
    result = aten.masked_fill(T(a), T(mask), -1)
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.masked_fill(tt(a), tt(mask), -1))
    out = E(np.float32)
    aten.masked_fill.Scalar_out(T(a), T(mask), -1, out=out)
    assert_tensor(out, expected)
    raises(
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
        lambda: aten.masked_fill_(T(a), T(mask), -1),
        lambda torch: tt(a).masked_fill_(tt(mask), -1),
    )
    assert_meta(aten.masked_fill(meta((3,)), meta((2, 1), framework.bool), 2.5), (2, 3), framework.float32)


def test_masked_fill_non_contiguous() -> None:
    a = sample((4, 6), np.float64, 3)
    mask = sample((4, 6), np.bool_, 4)
    expected = np.where(mask, 0.5, a)
    for view in non_contiguous(a):
        assert_tensor(aten.masked_fill(V(view), V(np.ascontiguousarray(mask.T).T), 0.5), expected)
    base = np.ascontiguousarray(a.T)
    aten.masked_fill_(V(base.T), V(mask[:, ::1]), 0.5)
    np.testing.assert_array_equal(base.T, expected)
    row = np.array([True, False, True, False, True, False])
    assert_tensor(aten.masked_fill(T(a), V(np.broadcast_to(row, (4, 6))), 0.5), np.where(row, 0.5, a))


CONVERSIONS = [
    # (dtype, value, expected element or None when PyTorch refuses the value)
    ("bool", 300, True),
    ("bool", 1e300, True),
    ("bool", float("nan"), True),
    ("bool", 1j, True),
    ("bool", 0.0, False),
    ("uint8", -1, 255),
    ("uint8", -255, 1),
    ("uint8", -256, None),
    ("uint8", 300, None),
    ("uint8", 2.7, 2),
    ("uint8", -1.0, None),
    ("uint8", float("nan"), None),
    ("uint8", float("inf"), None),
    ("uint8", 1 + 0j, 1),
    ("int8", -128, -128),
    ("int8", 128, None),
    ("int8", -2.9, -2),
    ("int8", 1j, None),
    ("int16", 70000.0, None),
    ("int32", 2**31 - 1, 2**31 - 1),
    ("int32", 2**31, None),
    ("int64", 2**63 - 1, 2**63 - 1),
    ("int64", 1e39, None),
    ("float16", 65504, 65504.0),
    ("float16", 70000.0, None),
    ("float16", 2**63 - 1, None),
    ("float16", float("inf"), float("inf")),
    ("float32", 1e39, None),
    ("float32", 2**63 - 1, float(2**63)),
    ("float32", float("nan"), float("nan")),
    ("float32", 1j, None),
    ("float32", True, 1.0),
    ("float64", 1e300, 1e300),
    ("float64", 2 + 0j, 2.0),
    ("complex64", 1e39, None),
    ("complex64", 1 - 1j, 1 - 1j),
    ("complex128", 1e300j, 1e300j),
]
C_NAMES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


@pytest.mark.parametrize(("name", "value", "element"), CONVERSIONS)
def test_masked_fill_value_conversion(name: str, value: Any, element: Any) -> None:
    np_dtype = np.dtype(name)
    if element is None:
        message = f"value cannot be converted to type {C_NAMES[name]} without overflow"
        raises(
            RuntimeError,
            message,
            lambda: aten.masked_fill(T(np.zeros(2, np_dtype)), T([True, False]), value),
            lambda torch: torch.masked_fill(tt(np.zeros(2, np_dtype)), torch.tensor([True, False]), value),
        )
        # A zero-dim value tensor goes through the same conversion (from its item()).
        if not isinstance(value, bool):
            with pytest.raises(RuntimeError, match="without overflow"):
                aten.masked_fill(T(np.zeros(2, np_dtype)), T([True, False]), T(np.array(value)))
        return
    result = aten.masked_fill(T(np.zeros(2, np_dtype)), T([True, False]), value)
    assert_tensor(result, np.array([element, 0]).astype(np_dtype))
    check_oracle(
        result, lambda torch: torch.masked_fill(tt(np.zeros(2, np_dtype)), torch.tensor([True, False]), value)
    )


def test_masked_fill_errors_and_warnings() -> None:
    a = sample((2, 3), np.float32)
    for bad, name in [
        (np.uint8, "unsigned char"),
        (np.int8, "signed char"),
        (np.int16, "short int"),
        (np.int64, "long int"),
        (np.float16, "c10::Half"),
        (np.float32, "float"),
        (np.complex64, "c10::complex<float>"),
        (np.complex128, "c10::complex<double>"),
    ]:
        message = f"masked_fill_ only supports boolean masks, but got mask with dtype {name}"
        raises(
            RuntimeError,
            message,
            lambda bad=bad: aten.masked_fill(T(a), T([1, 0, 1], bad), 1.0),
            lambda torch, bad=bad: torch.masked_fill(tt(a), tt(np.array([1, 0, 1], bad)), 1.0),
        )
        raises(RuntimeError, message, lambda bad=bad: aten.masked_fill_(T(a), T([1, 0, 1], bad), 1.0))
    for ndim in (1, 2):
        raises(
            RuntimeError,
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{ndim} dimension(s).",
            lambda ndim=ndim: aten.masked_fill(
                T(a), T([True, False, True]), T(np.zeros((1,) * ndim, np.float32))
            ),
            lambda torch, ndim=ndim: torch.masked_fill(
                tt(a), torch.tensor([True, False, True]), torch.zeros((1,) * ndim)
            ),
        )
    raises(
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
        lambda: aten.masked_fill(T(a), T([True, False]), 1.0),
        lambda torch: torch.masked_fill(tt(a), torch.tensor([True, False]), 1.0),
    )
    raises(
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
        lambda: aten.masked_fill_(T(a), T([True, False]), 1.0),
        lambda torch: tt(a).masked_fill_(torch.tensor([True, False]), 1.0),
    )
    raises(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        lambda: aten.masked_fill.Scalar_out(T(a), T([True, False, True]), 1.0, out=E(np.float64)),
        lambda torch: torch.ops.aten.masked_fill.Scalar_out(
            tt(a), torch.tensor([True, False, True]), 1.0, out=torch.zeros(0, dtype=torch.float64)
        ),
    )
    base = T(np.zeros(3, np.float32))
    expanded = make_view(base, (2, 3), (0, 1), 0)
    with pytest.warns(UserWarning, match="Use of masked_fill_ on expanded tensors is deprecated"):
        aten.masked_fill_(expanded, T([True, False, True]), 1.0)
    assert_tensor(base, np.array([1.0, 0, 1], np.float32))


def test_masked_fill_meta() -> None:
    mask = meta((2, 3), framework.bool)
    assert_meta(aten.masked_fill(meta((2, 3), framework.int16), mask, 3), (2, 3), framework.int16)
    assert_meta(aten.masked_fill(meta((2, 3)), mask, meta(())), (2, 3), framework.float32)
    assert_meta(aten.masked_fill(meta((2, 3)), mask, T(np.float32(1))), (2, 3), framework.float32)
    self_t = meta((2, 3))
    assert aten.masked_fill_(self_t, mask, 1.0) is self_t
    raises(
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype float",
        lambda: aten.masked_fill(meta((2, 3)), meta((2, 3)), 1.0),
    )


# ---- masked_select ------------------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("shape", "mask_shape"),
    [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 1)), ((), ()), ((0, 3), (3,)), ((2, 3), ())],
)
def test_masked_select(np_dtype: Any, shape: tuple[int, ...], mask_shape: tuple[int, ...]) -> None:
    a = sample(shape, np_dtype, 1)
    mask = sample(mask_shape, np.bool_, 3)
    full = np.broadcast_shapes(shape, mask_shape)
    expected = np.broadcast_to(a, full)[np.broadcast_to(mask, full)]
    result = aten.masked_select(T(a), T(mask))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.masked_select(tt(a), tt(mask)))
    out = E(np_dtype)
    assert aten.masked_select.out(T(a), T(mask), out=out) is out
    assert_tensor(out, expected)


def test_masked_select_non_contiguous_and_errors() -> None:
    a = sample((4, 6), np.int8, 5)
    mask = sample((4, 6), np.bool_, 6)
    for view in non_contiguous(a):
        assert_tensor(aten.masked_select(V(view), V(np.ascontiguousarray(mask.T).T)), a[mask])
    raises(
        RuntimeError,
        "masked_select: expected BoolTensor for mask",
        lambda: aten.masked_select(T(a), T(mask, np.uint8)),
        lambda torch: torch.masked_select(tt(a), tt(mask.astype(np.uint8))),
    )
    raises(
        RuntimeError,
        "The size of tensor a (4) must match the size of tensor b (6) at non-singleton dimension 1",
        lambda: aten.masked_select(T(a), T([True, False, True, True])),
        lambda torch: torch.masked_select(tt(a), torch.tensor([True, False, True, True])),
    )
    raises(
        RuntimeError,
        "masked_select(): self and result must have the same scalar type",
        lambda: aten.masked_select(T(a), T(mask), out=E(np.float64)),
        lambda torch: torch.masked_select(tt(a), tt(mask), out=torch.zeros(0, dtype=torch.float64)),
    )
    with pytest.warns(UserWarning, match="was resized"):
        aten.masked_select(T(a), T(mask), out=E(np.int8, (1,)))
    base = T(np.arange(6.0))
    raises(
        RuntimeError,
        OVERLAP,
        lambda: aten.masked_select(
            base, T([True, True, False, False, False, False]), out=make_view(base, (2,), (1,), 1)
        ),
    )
    with pytest.raises(NotImplementedError) as info:
        aten.masked_select(meta((2, 3)), meta((2, 3), framework.bool))
    assert str(info.value).startswith("aten::masked_select: attempted to run this operator with Meta tensors")
    if torch is not None:
        with pytest.raises(NotImplementedError) as tinfo:
            torch.masked_select(
                torch.empty(2, 3, device="meta"), torch.empty(2, 3, dtype=torch.bool, device="meta")
            )
        assert str(tinfo.value) == str(info.value)


# ---- nonzero, where(condition) ------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(2, 3), (5,), (), (0, 3), (2, 0, 2), (2, 2, 3)])
def test_nonzero(np_dtype: Any, shape: tuple[int, ...]) -> None:
    a = sample(shape, np_dtype, 2)
    if np.dtype(np_dtype) != np.bool_:
        a = np.where(sample(shape, np.bool_, 9), a, np.zeros((), np_dtype))
    expected = np.argwhere(a).astype(np.int64)
    result = aten.nonzero(T(a))
    assert_tensor(result, expected)
    check_oracle(result, lambda torch: torch.nonzero(tt(a)))
    out = E(np.int64)
    assert aten.nonzero.out(T(a), out=out) is out
    assert_tensor(out, expected)
    columns = aten.where.default(T(a))
    assert isinstance(columns, list)
    reference = np.nonzero(a) if a.ndim else np.nonzero(a.reshape(1))
    assert len(columns) == len(reference)
    for column, ref in zip(columns, reference, strict=True):
        assert_tensor(column, ref.astype(np.int64))
    if torch is not None:
        for column, ref in zip(columns, torch.where(tt(a)), strict=True):
            assert_tensor(column, ref.numpy())


def test_nonzero_special_values() -> None:
    # NaN is non-zero, -0.0 is zero, a complex number is non-zero if either part is.
    assert_tensor(aten.nonzero(T([0.0, np.nan, -0.0, 1e-30])), np.array([[1], [3]]))
    assert_tensor(aten.nonzero(T([0, 1j, 0, 1 + 0j])), np.array([[1], [3]]))
    assert_tensor(aten.nonzero(T(np.float32(3))), np.zeros((1, 0), np.int64))
    assert_tensor(aten.nonzero(T(np.float32(0))), np.zeros((0, 0), np.int64))
    (only,) = aten.where.default(T(True))
    assert_tensor(only, np.array([0]))
    (none,) = aten.where.default(T(0.0))
    assert_tensor(none, np.zeros(0, np.int64))


def test_nonzero_non_contiguous_out_and_meta() -> None:
    a = sample((4, 6), np.bool_, 3)
    for view in non_contiguous(a):
        assert_tensor(aten.nonzero(V(view)), np.argwhere(a))
    raises(
        RuntimeError,
        "nonzero: Expected out tensor to have scalar type Long but got scalar typeInt",
        lambda: aten.nonzero(T(a), out=E(np.int32)),
        lambda torch: torch.nonzero(tt(a), out=torch.zeros(0, dtype=torch.int32)),
    )
    with pytest.warns(UserWarning, match="was resized"):
        aten.nonzero(T(a), out=E(np.int64, (9,)))
    ints = T([[1, 0], [0, 1]])  # its nonzero has its shape
    raises(RuntimeError, OVERLAP, lambda: aten.nonzero(ints, out=ints))
    message = NONZERO_META
    raises(
        NotImplementedError,
        message,
        lambda: aten.nonzero(meta((2, 3))),
        lambda torch: torch.nonzero(torch.empty(2, 3, device="meta")),
    )
    raises(
        NotImplementedError,
        message,
        lambda: aten.where.default(meta((2, 3))),
        lambda torch: torch.where(torch.empty(2, 3, device="meta")),
    )
    raises(
        NotImplementedError, message, lambda: aten.nonzero.out(meta((2, 3)), out=meta((0,), framework.int64))
    )


# ---- where --------------------------------------------------------------------------------------


WHERE_PAIRS = [
    (np.float32, np.float32),
    (np.int32, np.float64),
    (np.int8, np.uint8),
    (np.bool_, np.int16),
    (np.float64, np.complex64),
    (np.bool_, np.bool_),
    (np.int64, np.float16),
    (np.complex128, np.float32),
]


@pytest.mark.parametrize(("x_dtype", "y_dtype"), WHERE_PAIRS)
@pytest.mark.parametrize(
    ("cond_shape", "x_shape", "y_shape"),
    [
        ((2, 3), (2, 3), (2, 3)),
        ((3,), (2, 1), ()),
        ((), (2, 3), (3,)),
        ((0, 3), (1, 3), (0, 1)),
        ((), (), ()),
    ],
)
def test_where(x_dtype: Any, y_dtype: Any, cond_shape: Any, x_shape: Any, y_shape: Any) -> None:
    cond = sample(cond_shape, np.bool_, 1)
    x = sample(x_shape, x_dtype, 2)
    y = sample(y_shape, y_dtype, 3)
    result = aten.where.self(T(cond), T(x), T(y))
    if (x.ndim == 0) == (y.ndim == 0):  # same promotion category: plain promote_types
        d = framework.promote_types(T(x).dtype, T(y).dtype).numpy_dtype
        assert_tensor(result, np.where(cond, x.astype(d), y.astype(d)))
    check_oracle(result, lambda torch: torch.where(tt(cond), tt(x), tt(y)))
    out = E(result.dtype.numpy_dtype)
    assert aten.where.self_out(T(cond), T(x), T(y), out=out) is out
    assert_tensor(out, result.numpy())


def test_where_zero_dim_promotion() -> None:
    # A zero-dim operand only raises the result's category (int32 tensor and float64 scalar tensor
    # give float64, int8 and a uint8 tensor give int16).
    cond = np.array([True, False, True])
    result = aten.where(T(cond), T(np.array([1, 2, 3], np.int32)), T(np.float64(2.5)))
    assert_tensor(result, np.array([1.0, 2.5, 3.0]))
    result = aten.where(T(cond), T(np.array([1, 2, 3], np.float32)), T(np.float64(2.5)))
    assert_tensor(result, np.array([1.0, 2.5, 3.0], np.float32))
    result = aten.where(T(cond), T(np.array([1, 2, 3], np.int8)), T(np.array([2], np.uint8)))
    assert_tensor(result, np.array([1, 2, 3], np.int16))


@pytest.mark.parametrize(
    ("self_value", "other_value", "expected"),
    [
        (np.array([1, 2], np.int32), 2.5, np.array([1.0, 2.5], np.float32)),
        (np.array([1, 2], np.int8), 3, np.array([1, 3], np.int8)),
        (np.array([1, 2], np.uint8), -1, np.array([1, 255], np.uint8)),
        (np.array([1.0, 2.0]), 1j, np.array([1, 1j], np.complex128)),
        (np.array([1.0, 2.0], np.float32), 1j, np.array([1, 1j], np.complex64)),
        (np.int8(4), 2.5, np.array([4.0, 2.5], np.float32)),
        (2, 2.5, np.array([2.0, 2.5], np.float32)),
        (2, 3, np.array([2, 3], np.int64)),
        (True, 2, np.array([1, 2], np.int64)),
        (True, False, np.array([True, False])),
        (1j, 2, np.array([1j, 2], np.complex64)),
        (7, np.array([1, 2], np.int8), np.array([7, 2], np.int8)),
    ],
)
def test_where_scalars(self_value: Any, other_value: Any, expected: Array) -> None:
    cond = np.array([True, False])
    x = T(self_value) if isinstance(self_value, np.ndarray | np.generic) else self_value
    y = T(other_value) if isinstance(other_value, np.ndarray | np.generic) else other_value
    result = aten.where(T(cond), x, y)
    assert_tensor(result, expected)

    def torch_call(torch: Any) -> Any:
        tx = tt(self_value) if isinstance(self_value, np.ndarray | np.generic) else self_value
        ty = tt(other_value) if isinstance(other_value, np.ndarray | np.generic) else other_value
        return torch.where(tt(cond), tx, ty)

    check_oracle(result, torch_call)


def test_where_scalar_into_float16() -> None:
    # PyTorch fills the scalar operand into float16 without an overflow check: it becomes inf.
    result = aten.where(T([True, False]), T(np.zeros(2, np.float16)), 1e300)
    assert_tensor(result, np.array([0, np.inf], np.float16))
    check_oracle(
        result,
        lambda torch: torch.where(torch.tensor([True, False]), torch.zeros(2, dtype=torch.float16), 1e300),
    )


def test_where_non_contiguous_meta_and_errors() -> None:
    cond = sample((4, 6), np.bool_, 1)
    x = sample((4, 6), np.float32, 2)
    y = sample((1, 6), np.float32, 3)
    expected = np.where(cond, x, y)
    for view in non_contiguous(x):
        assert_tensor(
            aten.where(V(np.ascontiguousarray(cond.T).T), V(view), V(np.broadcast_to(y, (4, 6)))), expected
        )
    assert_meta(
        aten.where(meta((3,), framework.bool), meta((2, 1), framework.int32), meta((), framework.float64)),
        (2, 3),
        framework.float64,
    )
    assert_meta(aten.where(meta((3,), framework.bool), meta((3,), framework.int8), 300), (3,), framework.int8)
    assert_meta(aten.where(meta((3,), framework.bool), 1, 2.0), (3,), framework.float32)
    raises(
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Float",
        lambda: aten.where(T(x), T(x), T(x)),
        lambda torch: torch.where(tt(x), tt(x), tt(x)),
    )
    raises(
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Long",
        lambda: aten.where(T([1, 0]), 1, 2),
        lambda torch: torch.where(torch.tensor([1, 0]), 1, 2),
    )
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        result = aten.where(T(cond, np.uint8), T(x), T(y))
    assert_tensor(result, expected)
    raises(
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (6) at non-singleton dimension 1",
        lambda: aten.where(T([True, False]), T(x), T(y)),
        lambda torch: torch.where(torch.tensor([True, False]), tt(x), tt(y)),
    )
    raises(
        RuntimeError,
        "Expected out type to be Float but got Double",
        lambda: aten.where(T(cond), T(x), T(y), out=E(np.float64)),
        lambda torch: torch.where(tt(cond), tt(x), tt(y), out=torch.zeros(0, dtype=torch.float64)),
    )
    raises(
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
        lambda: aten.where(T([True]), T(np.array([1], np.int8)), 300),
        lambda torch: torch.where(torch.tensor([True]), torch.tensor([1], dtype=torch.int8), 300),
    )
    raises(
        RuntimeError,
        "value cannot be converted to type float without overflow",
        lambda: aten.where(T([True]), 1e300, 2),
        lambda torch: torch.where(torch.tensor([True]), 1e300, 2),
    )
    # An out tensor that is one of the inputs is fine; a partial overlap is not.
    a = T(np.arange(3.0))
    assert_tensor(aten.where(T([True, True, False]), a, a, out=a), np.arange(3.0))
    b = T(np.arange(6.0))
    raises(
        RuntimeError,
        OVERLAP,
        lambda: aten.where(
            T([True, False, True]),
            make_view(b, (3,), (1,), 0),
            make_view(b, (3,), (1,), 0),
            out=make_view(b, (3,), (1,), 1),
        ),
    )


def test_where_bit_patterns_and_uint8_condition() -> None:
    # The selected elements keep their exact bits (NaN payloads, signed zeros, infinities) with
    # either operand broadcast, also into an out= tensor that is one of the inputs.
    x = np.array([np.nan, -0.0, np.inf, 1.5, -np.inf, 0.0], np.float32)
    x[0] = np.frombuffer(np.uint32(0xFFC00123).tobytes(), np.float32)[0]
    y = np.array([-0.0], np.float32)
    cond = np.array([True, True, True, False, True, False])
    for a, b in ((x, y), (y, x)):
        expected = np.where(cond, a, b)
        got = aten.where(T(cond), T(a), T(b)).numpy()
        assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    into = T(x)
    aten.where(T(cond), into, T(y), out=into)
    assert into.numpy().view(np.uint32).tolist() == np.where(cond, x, y).view(np.uint32).tolist()
    # A uint8 condition counts every non-zero element as true (PyTorch 2.13: [-1, 7, 7, 7]).
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        result = aten.where(
            T([0, 1, 2, 255], np.uint8), T(np.full(4, 7, np.int32)), T(np.full(4, -1, np.int32))
        )
    assert_tensor(result, np.array([-1, 7, 7, 7], np.int32))


# ---- index.Tensor -------------------------------------------------------------------------------


def I(values: Any, np_dtype: Any = np.int64) -> Tensor:  # noqa: E743 - short, as the other builders
    """An int64 index tensor."""
    return T(values, np_dtype)


def numpy_index(entries: Sequence[Array | None]) -> tuple[Any, ...]:
    return tuple(slice(None) if e is None else e for e in entries)


def reference_index(a: Array, entries: Sequence[Array | None]) -> Array | None:
    """NumPy's `a[entries]`, or None where PyTorch raises IndexError.  NumPy checks every index
    value; PyTorch only those an element of the result reads (none when the result is empty)."""
    try:
        return np.array(a[numpy_index(entries)])
    except (IndexError, ValueError):
        valid = [e if e is None or e.dtype == np.bool_ else np.zeros_like(e) for e in entries]
    try:
        shape = a[numpy_index(valid)].shape
    except (IndexError, ValueError):  # the index arrays do not broadcast together
        return None
    return np.zeros(shape, a.dtype) if 0 in shape else None


INDEX_CASES: list[tuple[tuple[int, ...], list[Any]]] = [
    ((2, 3, 4), [np.array([1, 0])]),
    ((2, 3, 4), [None, np.array([2, 0])]),
    ((2, 3, 4), [np.array([1, 0]), None, np.array([3, 0])]),  # separated: result dims go first
    ((2, 3, 4), [None, np.array([1, 0]), np.array([3, 0])]),  # adjacent: they stay in place
    ((2, 3, 4), [np.array([[1], [0]]), np.array([0, 2, 1])]),  # broadcast index tensors
    ((2, 3, 4), [None, None, np.array([-1, -4])]),
    ((2, 3, 4), [np.array([True, False])]),
    ((2, 3, 4), [np.array([[True, False, True], [False, False, True]])]),
    ((2, 3, 4), [None, np.array([True, False, True])]),
    ((2, 3, 4), [np.array([True, True]), None, np.array([0, 3])]),
    ((2, 3, 4), [np.array([1]), np.array([True, False, True])]),
    ((2, 3, 4), [np.array(1)]),
    ((2, 3, 4), [np.array(1), None, np.array(2)]),
    ((2, 3, 4), [np.zeros(0, np.int64)]),
    ((2, 3, 4), [None, np.zeros(0, np.int64), np.zeros(0, np.int64)]),
    ((0, 3), [None, np.array([2, 1])]),
    ((0, 3), [np.zeros(0, np.int64)]),
    ((3,), [np.array([[0, 1], [2, 2]])]),
    ((5,), [np.array([4, 4, 0, 4], np.int32)]),
    ((2, 3, 4, 5), [None, np.array([0, 2]), None, np.array([[1], [4]])]),
    ((2, 3, 4), [np.ones((2, 3, 4), np.bool_)]),
]


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("shape", "entries"), INDEX_CASES)
def test_index(np_dtype: Any, shape: tuple[int, ...], entries: list[Any]) -> None:
    a = sample(shape, np_dtype, 1)
    expected = a[numpy_index(entries)]
    indices = [None if e is None else T(e) for e in entries]
    result = aten.index.Tensor(T(a), indices)
    assert_tensor(result, np.array(expected))
    check_oracle(
        result,
        lambda torch: torch.ops.aten.index.Tensor(tt(a), [None if e is None else tt(e) for e in entries]),
    )
    out = E(np_dtype)
    assert aten.index.Tensor_out(T(a), indices, out=out) is out
    assert_tensor(out, np.array(expected))


def test_index_zero_dim_bool_entries() -> None:
    # PyTorch expands a zero-dim mask to no index at all: the following index moves up a dim.
    a = sample((2, 3, 4), np.float32)
    for mask in (True, False):
        result = aten.index(T(a), [T(mask), I([0])])
        assert_tensor(result, a[[0]])
        check_oracle(
            result,
            lambda torch, mask=mask: torch.ops.aten.index.Tensor(
                tt(a), [torch.tensor(mask), torch.tensor([0])]
            ),
        )
    assert_tensor(aten.index(T(a), [I([1]), T(True)]), a[[1]])


def test_index_uint8_mask_warns() -> None:
    a = sample((2, 3, 4), np.float32)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        result = aten.index(T(a), [T([1, 0], np.uint8)])
    assert_tensor(result, a[[0]])


def test_index_non_contiguous() -> None:
    a = sample((4, 6), np.complex128, 2)
    rows = np.array([3, 3, 0, 1, 2, 0])
    cols = np.array([[5], [0]])
    expected = a[rows[::2], cols]
    for view in non_contiguous(a):
        assert_tensor(aten.index(V(view), [V(rows[::2]), V(cols)]), expected)
    assert_tensor(
        aten.index(T(a), [None, V(np.broadcast_to(np.array([1, 4]), (3, 2)))]),
        a[:, np.broadcast_to([1, 4], (3, 2))],
    )
    mask = sample((4, 6), np.bool_, 5)
    assert_tensor(aten.index(T(a), [V(np.ascontiguousarray(mask.T).T)]), a[mask])


def test_index_meta() -> None:
    m = meta((2, 3, 4), framework.int16)
    assert_meta(
        aten.index(m, [meta((2,), framework.int64), None, meta((3, 1), framework.int32)]),
        (3, 2, 3),
        framework.int16,
    )
    assert_meta(aten.index(m, [None, meta((5,), framework.int64)]), (2, 5, 4), framework.int16)
    # CPU indices are accepted with a Meta self (their values are not checked).
    assert_meta(aten.index(m, [I([1, 9])]), (2, 3, 4), framework.int16)
    assert_meta(aten.index(m, [T([True, False])]), (1, 3, 4), framework.int16)
    out = meta((0,), framework.int16)
    aten.index.Tensor_out(m, [meta((7,), framework.int64)], out=out)
    assert_meta(out, (7, 3, 4), framework.int16)
    raises(NotImplementedError, NONZERO_META, lambda: aten.index(m, [meta((2,), framework.bool)]))
    raises(
        IndexError,
        "tensors used as indices must be long, int, byte or bool tensors",
        lambda: aten.index(m, [meta((2,), framework.float32)]),
    )
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        aten.index(T(np.zeros(3)), [meta((2,), framework.int64)])


def test_index_errors() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)

    def both(entries: list[Any]) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        return (
            lambda: aten.index(T(a), [None if e is None else T(e) for e in entries]),
            lambda torch: torch.ops.aten.index.Tensor(tt(a), [None if e is None else tt(e) for e in entries]),
        )

    cases: list[tuple[type[Exception], str, list[Any]]] = [
        (IndexError, "too many indices for tensor of dimension 3 (got 4)", [np.array([0])] * 4),
        (
            IndexError,
            "too many indices for tensor of dimension 3 (got 4)",
            [np.array([0.0])] + [np.array([0])] * 3,
        ),
        (IndexError, "tensors used as indices must be long, int, byte or bool tensors", [np.array([1.0])]),
        (
            IndexError,
            "tensors used as indices must be long, int, byte or bool tensors",
            [None, np.array([1], np.int16)],
        ),
        (
            IndexError,
            "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor "
            "[2, 3, 4] at index 0",
            [np.array([True, False, True])],
        ),
        (
            IndexError,
            "The shape of the mask [1, 3] at index 0 does not match the shape of the indexed tensor "
            "[2, 3, 4] at index 1",
            [None, np.array([[True, False, True]])],
        ),
        (
            IndexError,
            "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]",
            [np.array([1, 0]), np.array([0, 2, 1])],
        ),
        (
            IndexError,
            "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3], [1, 1]",
            [np.array([0, 1]), np.array([0, 1, 2]), np.array([[0]])],
        ),
        (IndexError, "index 2 is out of bounds for dimension 0 with size 2", [np.array([2])]),
        (IndexError, "index 3 is out of bounds for dimension 0 with size 3", [None, np.array([3])]),
        (IndexError, "index -5 is out of bounds for dimension 0 with size 4", [None, None, np.array([-5])]),
        (
            IndexError,
            "index 7 is out of bounds for dimension 1 with size 4",
            [np.array([0]), None, np.array([7])],
        ),
        (IndexError, "index 5 is out of bounds for dimension 0 with size 2", [np.array([0, 5, 9])]),
        (
            IndexError,
            "index 7 is out of bounds for dimension 1 with size 3",
            [np.array([0, 5]), np.array([7, 0])],
        ),
        (IndexError, "at least one index must be provided", []),
    ]
    for exc, message, entries in cases:
        call, torch_call = both(entries)
        raises(exc, message, call, torch_call)
    raises(
        IndexError,
        "index is out of bounds for dimension with size 0",
        lambda: aten.index(T(np.zeros((0, 3))), [I(0)]),
        lambda torch: torch.ops.aten.index.Tensor(torch.zeros(0, 3), [torch.tensor(0)]),
    )
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        lambda: aten.index(T(np.zeros((2, 3))), [None, T(np.ones((3, 1), np.bool_))]),
        lambda torch: torch.ops.aten.index.Tensor(
            torch.zeros(2, 3), [None, torch.ones(3, 1, dtype=torch.bool)]
        ),
    )
    raises(
        IndexError,
        "too many indices for tensor of dimension 0 (got 1)",
        lambda: aten.index(T(np.float32(5)), [I(0)]),
        lambda torch: torch.ops.aten.index.Tensor(torch.tensor(5.0), [torch.tensor(0)]),
    )
    raises(
        RuntimeError,
        "index_out: self (Double) and result (Float) must have the same scalar type",
        lambda: aten.index.Tensor_out(T(a), [I([1])], out=E(np.float32)),
        lambda torch: torch.ops.aten.index.Tensor_out(tt(a), [torch.tensor([1])], out=torch.zeros(0)),
    )
    base = T(np.arange(6.0))
    raises(
        RuntimeError,
        OVERLAP,
        lambda: aten.index.Tensor_out(base, [I([0, 1])], out=make_view(base, (2,), (1,), 1)),
    )


def test_index_degenerate_lists() -> None:
    a = sample((2, 3, 4), np.int16, 3)
    # None entries only: all of self (PyTorch fails an internal assert here unless self is empty).
    assert_tensor(aten.index(T(a), [None, None]), a)
    check_oracle(
        aten.index(T(np.zeros((2, 0), np.float32)), [None]),
        lambda torch: torch.ops.aten.index.Tensor(torch.zeros(2, 0), [None]),
    )
    # Entries pushed past the last dim by a 2-D mask: dropped after a None, refused when adjacent.
    x = sample((1, 3, 3), np.float32, 4)
    mask = np.array([[True, False, True]])
    result = aten.index(T(x), [T(mask), None, I([100])])
    assert_tensor(result, x[mask])
    check_oracle(
        result, lambda torch: torch.ops.aten.index.Tensor(tt(x), [tt(mask), None, torch.tensor([100])])
    )
    raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
        lambda: aten.index(T(x), [T(mask), I([0, 1]), I([0])]),
        lambda torch: torch.ops.aten.index.Tensor(tt(x), [tt(mask), torch.tensor([0, 1]), torch.tensor([0])]),
    )
    # Index values are only checked where the result reads them: an empty result reads none.
    empty = np.zeros((3, 2, 1, 0), np.float32)
    result = aten.index(T(empty), [None, I([[5, 5]]), I([7])])
    assert_tensor(result, np.zeros((3, 1, 2, 0), np.float32))
    check_oracle(
        result,
        lambda torch: torch.ops.aten.index.Tensor(
            tt(empty), [None, torch.tensor([[5, 5]]), torch.tensor([7])]
        ),
    )
    t = T(empty)
    aten.index_put_(t, [None, I([[5, 5]]), I([7])], T(np.float32(1)))
    assert_tensor(t, empty)


index_entry = st.one_of(
    st.none(),
    st.lists(st.integers(-3, 2), min_size=0, max_size=4).map(lambda v: np.array(v, np.int64)),
    st.lists(st.integers(-3, 2), min_size=1, max_size=3).map(lambda v: np.array(v, np.int64).reshape(-1, 1)),
    st.integers(-3, 2).map(lambda v: np.array(v, np.int64)),
)


@settings(max_examples=150, deadline=None)
@given(
    shape=st.lists(st.integers(3, 4), min_size=1, max_size=4),
    entries=st.lists(index_entry, min_size=1, max_size=4),
    with_mask=st.booleans(),
)
def test_index_hypothesis(shape: list[int], entries: list[Any], with_mask: bool) -> None:
    entries = entries[: len(shape)]
    if with_mask:
        mask_dims = min(2, len(shape))
        entries = [sample(shape[:mask_dims], np.bool_, len(entries)), *entries][: len(shape) - mask_dims + 1]
    a = sample(shape, np.int32, 2)
    indices = [None if e is None else T(e) for e in entries]
    expected = reference_index(a, entries)
    if expected is None:
        with pytest.raises(IndexError):
            aten.index(T(a), indices)
        return
    result = aten.index(T(a), indices)
    assert_tensor(result, expected)
    if any(e is not None for e in entries):  # PyTorch fails an internal assert on None entries only
        check_oracle(
            result,
            lambda torch: torch.ops.aten.index.Tensor(tt(a), [None if e is None else tt(e) for e in entries]),
        )


# ---- index_put_ ---------------------------------------------------------------------------------


INDEX_PUT_CASES: list[tuple[tuple[int, ...], list[Any], tuple[int, ...]]] = [
    ((2, 3, 4), [np.array([1, 0])], (2, 3, 4)),
    ((2, 3, 4), [np.array([1, 0])], (4,)),  # values broadcast
    ((2, 3, 4), [np.array([1, 0])], ()),
    ((2, 3, 4), [np.array([1, 0]), None, np.array([3, 0])], (2, 3)),
    ((2, 3, 4), [None, np.array([1, 0]), np.array([3, 0])], (2, 1)),
    ((2, 3, 4), [np.array([0]), None, np.array([0, 1])], (2, 3)),
    ((2, 3, 4), [np.array([[1], [0]]), np.array([0, 2, 1])], (2, 3, 1)),
    ((3,), [np.array([1, 1, 1, -1])], (4,)),  # repeated indices
    ((3, 2), [np.array([2, 2, 0])], (3, 2)),
    ((2, 3, 4), [np.array([[True, False, True], [False, True, True]])], (4,)),
    ((2, 3, 4), [None, np.array([True, False, True])], (2, 2, 4)),
    ((2, 3, 4), [np.zeros(0, np.int64)], ()),
    ((0, 3), [None, np.array([2, 1])], (2,)),
    ((2, 3), [np.array(1), np.array(2)], ()),
]


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("shape", "entries", "values_shape"), INDEX_PUT_CASES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(
    np_dtype: Any, shape: Any, entries: list[Any], values_shape: Any, accumulate: bool
) -> None:
    a = sample(shape, np_dtype, 1)
    values = sample(values_shape, np_dtype, 2)
    expected = a.copy()
    if accumulate:
        np.add.at(expected, numpy_index(entries), values)
    else:
        expected[numpy_index(entries)] = values
    indices = [None if e is None else T(e) for e in entries]
    self_t = T(a)
    assert aten.index_put_(self_t, indices, T(values), accumulate) is self_t
    assert_tensor(self_t, expected)
    check_oracle(
        self_t,
        lambda torch: torch.ops.aten.index_put_(
            tt(a), [None if e is None else tt(e) for e in entries], tt(values), accumulate
        ),
    )
    source = T(a)
    result = aten.index_put(source, indices, T(values), accumulate=accumulate)
    assert_tensor(result, expected)
    assert_tensor(source, a)
    out = E(np_dtype)
    assert aten.index_put.out(T(a), indices, T(values), accumulate, out=out) is out
    assert_tensor(out, expected)


def test_index_put_repeated_indices() -> None:
    # Without accumulate the last write wins; with it every value is added, in index order.
    t = T(np.zeros(3, np.float32))
    aten.index_put_(t, [I([1, 1, 1])], T([1.0, 2, 3], np.float32))
    assert_tensor(t, np.array([0.0, 3, 0], np.float32))
    t = T(np.zeros(3, np.float32))
    aten.index_put_(t, [I([1, 1, 1, -1])], T([1.0, 2, 3, 4], np.float32), True)
    assert_tensor(t, np.array([0.0, 6, 4], np.float32))
    t = T(np.zeros(3, np.int8))
    aten.index_put_(t, [I([1, 1])], T([100, 100], np.int8), True)
    assert_tensor(t, np.array([0, -56, 0], np.int8))  # int8 wraps
    t = T(np.zeros(3, np.bool_))
    aten.index_put_(t, [I([1, 1])], T([True, False]), True)
    assert_tensor(t, np.array([False, True, False]))
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 4, 200)
    values = rng.standard_normal(200).astype(np.float32)
    t = T(np.zeros(4, np.float32))
    aten.index_put_(t, [T(idx)], T(values), True)
    check_oracle(t, lambda torch: torch.zeros(4).index_put_((tt(idx),), tt(values), accumulate=True))


def test_index_put_masked_fill_path() -> None:
    # One bool mask and one value: PyTorch runs masked_fill_, which converts the value (any dtype,
    # any shape of one element) and refuses uint8 masks.
    t = T(np.zeros(3, np.float32))
    aten.index_put_(t, [T([True, False, True])], T(5))
    assert_tensor(t, np.array([5.0, 0, 5], np.float32))
    t = T(np.zeros(3, np.float32))
    aten.index_put_(t, [T([True, False, True])], T(np.array([[5.0]])))
    assert_tensor(t, np.array([5.0, 0, 5], np.float32))
    t = T(np.zeros((2, 3), np.float32))
    aten.index_put_(t, [None, T([True, False, True])], T([5.0], np.float32))
    assert_tensor(t, np.array([[5.0, 0, 5], [5, 0, 5]], np.float32))
    t = T(np.zeros((3, 2), np.float32))
    aten.index_put_(t, [T([True, False, True])], T(np.float32(5)))
    assert_tensor(t, np.array([[5.0, 5], [0, 0], [5, 5]], np.float32))
    t = T(np.zeros((2, 3, 4), np.float32))
    aten.index_put_(t, [T(True)], T(np.float32(1)))
    assert_tensor(t, np.ones((2, 3, 4), np.float32))
    raises(
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char",
        lambda: aten.index_put_(T(np.zeros(3, np.float32)), [T([1, 0, 1], np.uint8)], T(np.float32(3))),
        lambda torch: torch.zeros(3).index_put_(
            (torch.tensor([1, 0, 1], dtype=torch.uint8),), torch.tensor(3.0)
        ),
    )
    raises(
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
        lambda: aten.index_put_(T(np.zeros(3, np.int8)), [T([True, False, True])], T(300)),
        lambda torch: torch.zeros(3, dtype=torch.int8).index_put_(
            (torch.tensor([True, False, True]),), torch.tensor(300)
        ),
    )
    raises(
        IndexError,
        "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at index 0",
        lambda: aten.index_put_(T(np.zeros(3, np.float32)), [T([True, False])], T(np.float32(1))),
        lambda torch: torch.zeros(3).index_put_((torch.tensor([True, False]),), torch.tensor(1.0)),
    )
    # With accumulate there is no masked fill: uint8 masks work (deprecated) and dtypes must match.
    t = T(np.zeros(3, np.float32))
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        aten.index_put_(t, [T([1, 0, 1], np.uint8)], T(np.float32(3)), True)
    assert_tensor(t, np.array([3.0, 0, 3], np.float32))


def test_index_put_none_entries_only() -> None:
    # None entries only write (or add) the values broadcast over all of self, as NumPy's a[:] = v.
    a = sample((2, 3), np.int32, 5)
    t = T(a)
    aten.index_put_(t, [None], T(np.array([1, 2, 3], np.int32)))
    assert_tensor(t, np.array([[1, 2, 3], [1, 2, 3]], np.int32))
    t = T(a)
    aten.index_put_(t, [None, None], T(np.int32(1)), True)
    assert_tensor(t, a + 1)


def test_index_put_non_contiguous() -> None:
    a = sample((4, 6), np.float64, 4)
    rows = np.array([3, 0, 1])
    values = sample((3, 6), np.float64, 5)
    expected = a.copy()
    expected[rows] = values
    base = np.ascontiguousarray(a.T)
    view = V(base.T)
    aten.index_put_(view, [V(np.repeat(rows, 2)[::2])], V(np.ascontiguousarray(values.T).T))
    np.testing.assert_array_equal(base.T, expected)
    expected = a.copy()
    expected[:, [5, 1]] = values[:1, :2]
    t = T(a)
    aten.index_put_(t, [None, T([5, 1])], V(np.broadcast_to(values[:1, :2], (4, 2))))
    assert_tensor(t, expected)


def test_index_put_meta() -> None:
    m = meta((2, 3, 4))
    assert aten.index_put_(m, [meta((2,), framework.int64)], meta((4,))) is m
    assert_meta(
        aten.index_put(m, [None, meta((5,), framework.int64)], meta(()), True), (2, 3, 4), framework.float32
    )
    assert aten.index_put_(m, [meta((2,), framework.bool)], meta((7, 3, 4))) is m  # count unknown
    raises(
        RuntimeError,
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 3, 4]",
        lambda: aten.index_put_(m, [meta((2,), framework.int64)], meta((3,))),
    )
    raises(
        RuntimeError,
        "Index put requires the source and destination dtypes match, got Float for the destination "
        "and Long for the source.",
        lambda: aten.index_put_(m, [meta((2,), framework.bool)], meta((4,), framework.int64)),
    )
    out = meta((0,))
    aten.index_put.out(m, [meta((1,), framework.int64)], meta(()), out=out)
    assert_meta(out, (2, 3, 4), framework.float32)


def test_index_put_errors() -> None:
    a = np.zeros((2, 3, 4), np.float32)

    def both(
        entries: list[Any], values: Array, accumulate: bool = False
    ) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        return (
            lambda: aten.index_put_(
                T(a), [None if e is None else T(e) for e in entries], T(values), accumulate
            ),
            lambda torch: torch.ops.aten.index_put_(
                tt(a), [None if e is None else tt(e) for e in entries], tt(values), accumulate
            ),
        )

    cases: list[tuple[type[Exception], str, list[Any], Array, bool]] = [
        (
            RuntimeError,
            "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of "
            "shape [2, 3, 4]",
            [np.array([1, 0])],
            np.zeros(3, np.float32),
            False,
        ),
        (
            RuntimeError,
            "shape mismatch: value tensor of shape [1, 2, 3, 4] cannot be broadcast to indexing "
            "result of shape [2, 3, 4]",
            [np.array([1, 0])],
            np.zeros((1, 2, 3, 4), np.float32),
            True,
        ),
        (
            RuntimeError,
            "shape mismatch: value tensor of shape [3, 2] cannot be broadcast to indexing result of "
            "shape [2, 3]",
            [np.array([1, 0]), None, np.array([3, 0])],
            np.zeros((3, 2), np.float32),
            False,
        ),
        (
            RuntimeError,
            "Index put requires the source and destination dtypes match, got Float for the "
            "destination and Long for the source.",
            [np.array([1, 0])],
            np.array(5),
            False,
        ),
        (
            RuntimeError,
            "Index put requires the source and destination dtypes match, got Float for the "
            "destination and Double for the source.",
            [np.array([1, 0])],
            np.array(5.0),
            True,
        ),
        (
            IndexError,
            "index 3 is out of bounds for dimension 0 with size 3",
            [None, np.array([3])],
            np.float32(1),
            False,
        ),
        (
            IndexError,
            "index 2 is out of bounds for dimension 0 with size 2",
            [np.array([2])],
            np.float32(1),
            True,
        ),
        (
            IndexError,
            "too many indices for tensor of dimension 3 (got 4)",
            [np.array([0])] * 4,
            np.float32(1),
            False,
        ),
        (
            IndexError,
            "tensors used as indices must be long, int, byte or bool tensors",
            [np.array([0.0])],
            np.float32(1),
            False,
        ),
    ]
    for exc, message, entries, values, accumulate in cases:
        call, torch_call = both(entries, np.asarray(values), accumulate)
        raises(exc, message, call, torch_call)
    raises(
        IndexError,
        "at least one index must be provided",
        lambda: aten.index_put_(T(a), [], T(np.float32(1)), True),
    )
    raises(
        IndexError,
        "too many indices for tensor of dimension 0 (got 1)",
        lambda: aten.index_put_(T(np.float32(1)), [T(True)], T(np.float32(1))),
        lambda torch: torch.ops.aten.index_put_(torch.tensor(1.0), [torch.tensor(True)], torch.tensor(1.0)),
    )
    raises(
        RuntimeError,
        "Expected out tensor to have dtype float, but got double instead",
        lambda: aten.index_put.out(T(a), [I([0])], T(np.float32(1)), out=E(np.float64)),
        lambda torch: torch.ops.aten.index_put.out(
            tt(a), [torch.tensor([0])], torch.tensor(1.0), out=torch.zeros(0, dtype=torch.float64)
        ),
    )


def test_index_put_overlap() -> None:
    t = T(np.arange(4.0))
    raises(RuntimeError, OVERLAP, lambda: aten.index_put_(t, [I([0, 1])], make_view(t, (2,), (1,), 1)))
    ints = T(np.zeros(3, np.int64))
    raises(RuntimeError, OVERLAP, lambda: aten.index_put_(ints, [make_view(ints, (1,), (1,), 0)], T(1)))
    base = T(np.zeros(1, np.float32))
    expanded = make_view(base, (3,), (0,), 0)
    with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors is deprecated"):
        aten.index_put_(expanded, [I([0])], T(np.float32(1)))
    assert_tensor(base, np.array([1.0], np.float32))


@settings(max_examples=150, deadline=None)
@given(
    shape=st.lists(st.integers(3, 4), min_size=1, max_size=3),
    entries=st.lists(index_entry, min_size=1, max_size=3),
    accumulate=st.booleans(),
)
def test_index_put_hypothesis(shape: list[int], entries: list[Any], accumulate: bool) -> None:
    entries = entries[: len(shape)]
    a = sample(shape, np.int64, 1)
    selected = reference_index(a, entries)
    if selected is None:
        with pytest.raises(IndexError):
            aten.index_put_(T(a), [None if e is None else T(e) for e in entries], T(np.int64(1)), accumulate)
        return
    if selected.size == 0:
        t = T(a)
        aten.index_put_(t, [None if e is None else T(e) for e in entries], T(np.int64(1)), accumulate)
        assert_tensor(t, a)
        return
    result_shape = selected.shape
    values = sample(result_shape[1:], np.int64, 2)  # broadcast over the leading dim
    expected = a.copy()
    if accumulate:
        np.add.at(expected, numpy_index(entries), values)
    else:
        expected[numpy_index(entries)] = values
    t = T(a)
    aten.index_put_(t, [None if e is None else T(e) for e in entries], T(values), accumulate)
    assert_tensor(t, expected)
    if any(e is not None for e in entries):  # PyTorch fails on None entries only
        check_oracle(
            t,
            lambda torch: torch.ops.aten.index_put_(
                tt(a), [None if e is None else tt(e) for e in entries], tt(values), accumulate
            ),
        )


# ---- registration -------------------------------------------------------------------------------


def test_schemas_match_pytorch() -> None:
    names = {
        "index_select",
        "gather",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "masked_fill",
        "masked_fill_",
        "masked_select",
        "index",
        "index_put",
        "index_put_",
        "where",
        "nonzero",
    }
    from framework.ops._native import NATIVE

    ours = {str(f.schema) for f in NATIVE if f.schema.name.split("::")[-1] in names}
    assert len(ours) == 40
    if torch is not None:
        theirs = {str(s) for s in torch._C._jit_get_all_schemas()}
        assert ours <= theirs, sorted(ours - theirs)
