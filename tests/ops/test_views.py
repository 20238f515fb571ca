"""Views, shape operators and copies against NumPy (always) and PyTorch 2.13 (when importable).

Checked: values, sizes, strides and storage offsets, that views share their base's storage and
version counter and copy nothing, every dtype, zero-size and zero-dim inputs, non-contiguous
inputs (transposed, sliced with steps, expanded), the in-place and out= variants, Meta tensors,
and PyTorch's error messages and warnings.  Every comparison is exact: these operators move or
convert elements, they do no arithmetic.

The PyTorch oracle runs the same operator on a torch tensor with the same storage contents and
geometry (`mirror`), so strides and storage offsets are compared too.
"""

from __future__ import annotations

import itertools
import math
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
from framework.c10.device import MemoryFormat
from framework.c10.dtypes import dtype

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None

Array = npt.NDArray[Any]
A: Any = framework.ops.aten
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")

DTYPE_IDS = [d.name for d in ALL_DTYPES]
CHANNELS_LAST_3D = MemoryFormat.channels_last_3d


# ---- helpers ------------------------------------------------------------------------------------


def sample(shape: Sequence[int], d: dtype = framework.float32) -> Array:
    """Distinct-looking values of dtype `d` (C-contiguous)."""
    n = np.arange(math.prod(shape), dtype=np.int64)
    kind = d.numpy_dtype.kind
    if kind == "b":
        values: Array = n % 3 == 1
    elif kind in "iu":
        values = (n * 7 + 3) % 100 - (0 if kind == "u" else 50)
    elif kind == "f":
        values = n * 0.5 - 3.25
    else:
        values = n * 0.5 + 1j * (n - 2.0)
    return values.astype(d.numpy_dtype).reshape(tuple(shape))


def tensor(arr: Array) -> Tensor:
    return framework.from_numpy(arr)


def meta(shape: Sequence[int], d: dtype = framework.float32) -> Tensor:
    result: Tensor = A.empty.memory_format(list(shape), dtype=d, device="meta")
    return result


def empty(shape: Sequence[int], d: dtype = framework.float32) -> Tensor:
    """A resizable CPU tensor (for out= arguments; from_numpy tensors cannot grow)."""
    result: Tensor = A.empty.memory_format(list(shape), dtype=d)
    return result


def geometry(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    impl = t._impl
    return impl.sizes, impl.strides, impl.storage_offset


def assert_view(view: Tensor, base: Tensor) -> None:
    """`view` shares `base`'s storage and version counter (nothing was copied)."""
    assert view._impl.storage is base._impl.storage
    assert view._impl.version_counter is base._impl.version_counter
    assert view._impl.key_set == base._impl.key_set
    if view.device.type == "cpu" and view.numel() and base.numel():
        start = base._impl.storage.data_ptr()
        assert start <= view.data_ptr() < start + base._impl.storage.nbytes


def assert_copy(result: Tensor, source: Tensor) -> None:
    assert result._impl.storage is not source._impl.storage
    assert result._impl.version_counter is not source._impl.version_counter


def values(t: Tensor) -> Array:
    return t.numpy()


def mirror(t: Tensor) -> Any:
    """A torch tensor with `t`'s storage contents, dtype, device and geometry."""
    impl = t._impl
    torch_dtype = getattr(torch, impl.dtype.name)
    count = impl.storage.nbytes // impl.dtype.itemsize
    if impl.storage.data is None:
        storage = torch.empty(count, dtype=torch_dtype, device="meta")
    else:
        data = impl.storage.data[: count * impl.dtype.itemsize]
        storage = torch.from_numpy(data.view(impl.dtype.numpy_dtype).copy())
    return storage.as_strided(impl.sizes, impl.strides, impl.storage_offset)


def same_as_torch(ours: Any, theirs: Any) -> None:
    """Our result (a tensor or a list of them) equals torch's: geometry, dtype, device, values."""
    if isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            same_as_torch(a, b)
        return
    assert geometry(ours) == (tuple(theirs.shape), theirs.stride(), theirs.storage_offset())
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.device.type == theirs.device.type
    if theirs.device.type == "cpu":
        np.testing.assert_array_equal(values(ours), theirs.numpy())


def oracle(ours: Any, torch_fn: Callable[..., Any], *inputs: Tensor) -> None:
    """Compare with `torch_fn` applied to mirrors of `inputs` (when PyTorch is importable)."""
    if torch is not None:
        same_as_torch(ours, torch_fn(*(mirror(t) for t in inputs)))


def raises(exc: type[BaseException], message: str, fn: Callable[[], Any]) -> None:
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


def transposed(shape: Sequence[int], d: dtype = framework.float32) -> tuple[Tensor, Array]:
    """A transposed (non-contiguous) tensor and its NumPy values."""
    arr = sample(tuple(reversed(shape)), d).T
    return tensor(arr), arr


def stepped(shape: Sequence[int], d: dtype = framework.float32) -> tuple[Tensor, Array]:
    """A tensor sliced with step 2 in its last dimension and its NumPy values."""
    base = sample((*shape[:-1], 2 * shape[-1]), d)
    arr = base[..., ::2]
    return tensor(arr), arr


def layouts(shape: Sequence[int], d: dtype = framework.float32) -> list[tuple[Tensor, Array]]:
    """Tensors of `shape` laid out contiguously, transposed (F order), with a step of 2 in the last
    dimension, and expanded from a smaller tensor (stride 0), each with its NumPy values."""
    arr = sample(shape, d)
    result = [(tensor(arr), arr), (tensor(np.asfortranarray(arr)), arr)]
    if shape:
        base = np.zeros((*shape[:-1], 2 * shape[-1]), d.numpy_dtype)
        base[..., ::2] = arr
        result.append((tensor(base[..., ::2]), arr))
        row = sample(shape[1:], d)
        result.append((A.expand(tensor(row), list(shape)), np.broadcast_to(row, tuple(shape))))
    return result


LAYOUT_IDS = ["contiguous", "fortran", "stepped", "expanded"]


# ---- view, reshape, as_strided ------------------------------------------------------------------


VIEW_CASES = [
    ((2, 3), [3, 2]),
    ((2, 3), [-1]),
    ((2, 3), [1, -1, 1]),
    ((2, 3, 4), [6, -1]),
    ((2, 3, 4), [2, 1, 3, 1, 4]),
    ((), [1, 1]),
    ((), []),
    ((1,), []),
    ((0, 3), [3, 0]),
    ((0, 3), [-1]),
    ((0, 3), [3, -1]),
    ((4, 0, 2), [0, 8]),
]


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("shape", "size"), VIEW_CASES)
def test_view_contiguous(shape: tuple[int, ...], size: list[int], d: dtype) -> None:
    arr = sample(shape, d)
    x = tensor(arr)
    v = A.view(x, size)
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), arr.reshape(size))
    assert v._impl.is_contiguous()
    oracle(v, lambda t: t.view(size), x)


@pytest.mark.parametrize(
    ("shape", "order", "size", "strides"),
    [
        ((2, 3), (1, 0), [3, 2, 1], (1, 3, 3)),  # a trailing size-1 dim takes the run's stride
        ((4, 6), (1, 0), [2, 3, 4], (3, 1, 6)),  # split a transposed dim
        ((2, 3, 4), (0, 2, 1), [2, 12], None),  # merging across the transpose is impossible
        ((2, 3, 4), (2, 0, 1), [4, 6], (1, 4)),  # merge the two dims that stayed in order
        ((3, 1, 4), (1, 0, 2), [3, 4], (4, 1)),  # size-1 dims never break a run
    ],
)
def test_view_non_contiguous(
    shape: tuple[int, ...], order: tuple[int, ...], size: list[int], strides: tuple[int, ...] | None
) -> None:
    arr = sample(shape).transpose(order)
    x = tensor(arr)
    if strides is None:
        raise_incompatible = "view size is not compatible with input tensor's size and stride"
        with pytest.raises(RuntimeError, match=raise_incompatible):
            A.view(x, size)
        if torch is not None:
            with pytest.raises(RuntimeError, match=raise_incompatible):
                mirror(x).view(size)
        return
    v = A.view(x, size)
    assert_view(v, x)
    assert v._impl.strides == strides
    np.testing.assert_array_equal(values(v), arr.reshape(size))
    oracle(v, lambda t: t.view(size), x)


def test_view_of_a_slice_keeps_the_offset() -> None:
    arr = sample((4, 6))
    x = A.slice(tensor(arr), 0, 1, 3)
    v = A.view(x, [3, 4])
    assert geometry(v) == ((3, 4), (4, 1), 6)
    np.testing.assert_array_equal(values(v), arr[1:3].reshape(3, 4))


@pytest.mark.parametrize(
    ("shape", "size", "message"),
    [
        ((2, 3), [5], "shape '[5]' is invalid for input of size 6"),
        ((2, 3), [-1, 4], "shape '[-1, 4]' is invalid for input of size 6"),
        ((2, 3), [-1, -1], "only one dimension can be inferred"),
        ((2, 3), [-2, 3], "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
        (
            (0, 3),
            [0, -1],
            "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size "
            "-1 can be any value and is ambiguous",
        ),
    ],
)
def test_view_and_reshape_size_errors(shape: tuple[int, ...], size: list[int], message: str) -> None:
    for op in (A.view, A.reshape, A._reshape_copy, A._unsafe_view):
        raises(RuntimeError, message, lambda op=op: op(tensor(sample(shape)), size))
        raises(RuntimeError, message, lambda op=op: op(meta(shape), size))
    if torch is not None:
        with pytest.raises(RuntimeError) as info:
            torch.zeros(shape).view(size)
        assert str(info.value) == message


def test_view_incompatible_error_message() -> None:
    x, _ = transposed((2, 3))
    message = (
        "view size is not compatible with input tensor's size and stride (at least one dimension spans "
        "across "
        "two contiguous subspaces). Use .reshape(...) instead."
    )
    raises(RuntimeError, message, lambda: A.view(x, [6]))
    raises(RuntimeError, message, lambda: A.view(A.t(meta((2, 3))), [6]))


@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
@pytest.mark.parametrize(
    ("shape", "size"), [((2, 3), [6]), ((2, 3), [3, -1]), ((2, 1, 3), [1, 6]), ((1, 4), [4])]
)
def test_reshape_views_when_it_can_and_copies_otherwise(
    shape: tuple[int, ...], size: list[int], layout: int
) -> None:
    x, arr = layouts(shape)[layout]
    r = A.reshape(x, size)
    np.testing.assert_array_equal(values(r), arr.reshape(size))
    can_view = True
    try:
        A.view(x, size)
    except RuntimeError:
        can_view = False
    if can_view:
        assert_view(r, x)
    else:
        assert_copy(r, x)
        assert r._impl.is_contiguous()
    oracle(r, lambda t: t.reshape(size), x)


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
def test_reshape_copy_always_copies(d: dtype) -> None:
    arr = sample((2, 3), d)
    for x, expected in ((tensor(arr), arr), (tensor(np.asfortranarray(arr)), arr)):
        r = A._reshape_copy(x, [3, -1])
        assert_copy(r, x)
        assert geometry(r) == ((3, 2), (2, 1), 0)
        np.testing.assert_array_equal(values(r), expected.reshape(3, 2))


def test_unsafe_view_and_its_out_variant() -> None:
    arr = sample((2, 3))
    x = tensor(arr)
    v = A._unsafe_view(x, [3, 2])
    assert_view(v, x)
    out = empty([0])
    assert A._unsafe_view.out(x, [3, 2], out=out) is out
    np.testing.assert_array_equal(values(out), arr.reshape(3, 2))
    raises(
        RuntimeError,
        "Expected out tensor to have dtype float, but got int instead",
        lambda: A._unsafe_view.out(x, [6], out=empty([0], framework.int32)),
    )


def test_view_as_and_reshape_as() -> None:
    arr = sample((2, 3))
    x = tensor(arr)
    other = meta((3, 1, 2))
    v = A.view_as(x, other)
    assert_view(v, x)
    assert v.shape == (3, 1, 2)
    xt, arr_t = transposed((2, 3))
    r = A.reshape_as(xt, tensor(np.zeros(6, np.int8)))
    assert_copy(r, xt)
    np.testing.assert_array_equal(values(r), arr_t.reshape(6))


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
def test_as_strided(d: dtype) -> None:
    arr = sample((12,), d)
    x = tensor(arr)
    v = A.as_strided(x, [3, 2], [1, 4], 2)
    assert_view(v, x)
    assert geometry(v) == ((3, 2), (1, 4), 2)
    expected = np.lib.stride_tricks.as_strided(arr[2:], (3, 2), (arr.itemsize, 4 * arr.itemsize))
    np.testing.assert_array_equal(values(v), expected)
    oracle(v, lambda t: t.as_strided([3, 2], [1, 4], 2), x)


def test_as_strided_defaults_to_the_tensor_offset_and_allows_overlap() -> None:
    arr = sample((10,))
    x = A.slice(tensor(arr), 0, 3)
    v = A.as_strided(x, [3, 3], [1, 1])
    assert geometry(v) == ((3, 3), (1, 1), 3)
    np.testing.assert_array_equal(values(v), np.stack([arr[3:6], arr[4:7], arr[5:8]]))
    z = A.as_strided(x, [0, 5], [100, 100], 50)  # nothing to read: no bounds to check
    assert geometry(z) == ((0, 5), (100, 100), 50)
    assert A._reshape_alias(x, [2, 2], [2, 1]).numpy().tolist() == [[3.0 * 0.5 - 3.25, -1.25], [-0.75, -0.25]]


def test_as_strided_in_place() -> None:
    x = tensor(sample((6,)))
    same = A.as_strided_(x, [2], [2], 1)
    assert same is x
    assert geometry(x) == ((2,), (2,), 1)
    np.testing.assert_array_equal(values(x), sample((6,))[1::2][:2])


@pytest.mark.parametrize(
    ("size", "stride", "offset", "message"),
    [
        (
            [3, 3],
            [3, 1],
            None,
            "setStorage: sizes [3, 3], strides [3, 1], storage offset 0, and itemsize 4 requiring a storage "
            "size "
            "of 36 are out of bounds for storage of size 24",
        ),
        ([2], [-1], None, "as_strided: Negative strides are not supported at the moment, got strides: [-1]"),
        ([-1], [1], None, "Storage size calculation overflowed with sizes=[-1] and strides=[1]"),
        ([2, 2], [1], None, "mismatch in length of strides and shape"),
        ([2], [1], -1, "Tensor: invalid storage offset -1"),
    ],
)
def test_as_strided_errors(size: list[int], stride: list[int], offset: int | None, message: str) -> None:
    x = tensor(sample((2, 3)))
    raises(RuntimeError, message, lambda: A.as_strided(x, size, stride, offset))
    raises(RuntimeError, message, lambda: A.as_strided_(x, size, stride, offset))
    if torch is not None:
        with pytest.raises(RuntimeError) as info:
            mirror(x).as_strided(size, stride, offset)
        assert str(info.value) == message


def test_as_strided_on_meta_checks_no_bounds() -> None:
    v = A.as_strided(meta((2, 3)), [3, 3], [3, 1])
    assert geometry(v) == ((3, 3), (3, 1), 0)
    assert v.device.type == "meta"


# ---- select, slice, narrow, diagonal ------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_select(layout: int, d: dtype) -> None:
    x, arr = layouts((2, 3, 4), d)[layout]
    for dim, index in ((0, 1), (1, -1), (-1, 2), (2, -4)):
        v = A.select.int(x, dim, index)
        assert_view(v, x)
        np.testing.assert_array_equal(values(v), np.take(arr, index, axis=dim))
        oracle(v, lambda t, dim=dim, index=index: t.select(dim, index), x)


def test_select_to_zero_dim_and_of_zero_size() -> None:
    x = tensor(sample((3,)))
    v = A.select(x, 0, 2)
    assert geometry(v) == ((), (), 2)
    assert v.item() == sample((3,))[2]
    z = A.select(tensor(sample((2, 0))), 0, 1)
    assert z.shape == (0,)


@pytest.mark.parametrize(
    ("start", "end", "step"),
    [
        (None, None, 1),
        (1, 4, 1),
        (-3, 100, 2),
        (8, 3, 2),
        (-30, -20, 2),
        (20, 30, 2),
        (None, None, 3),
        (0, -1, 4),
    ],
)
def test_slice(start: int | None, end: int | None, step: int) -> None:
    arr = sample((3, 10))
    x = tensor(arr)
    v = A.slice.Tensor(x, 1, start, end, step)
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), arr[:, start:end:step])
    oracle(v, lambda t: torch.ops.aten.slice.Tensor(t, 1, start, end, step), x)


def test_slice_of_non_contiguous_and_zero_size() -> None:
    x, arr = transposed((4, 6))
    v = A.slice(x, 0, 1, None, 2)
    assert geometry(v) == ((2, 6), (2, 4), 1)
    np.testing.assert_array_equal(values(v), arr[1::2])
    e = A.slice(tensor(sample((0, 2))), 0, 1, 5, 3)
    assert geometry(e) == ((0, 2), (6, 1), 0)


@given(
    size=st.integers(0, 8),
    start=st.none() | st.integers(-12, 12),
    end=st.none() | st.integers(-12, 12),
    step=st.integers(1, 4),
)
@settings(max_examples=100, deadline=None)
def test_slice_matches_python_slicing(size: int, start: int | None, end: int | None, step: int) -> None:
    arr = sample((2, size))
    x = tensor(arr)
    v = A.slice(x, -1, start, end, step)
    np.testing.assert_array_equal(values(v), arr[:, start:end:step])
    expected_offset = slice(start, end, step).indices(size)[0] if v.shape[1] else None
    if expected_offset is not None:
        assert v.storage_offset() == expected_offset


@pytest.mark.parametrize(
    ("dim", "start", "length"), [(0, 1, 2), (1, -2, 2), (1, 5, 0), (-1, 0, 5), (0, -3, 3)]
)
def test_narrow(dim: int, start: int, length: int) -> None:
    x, arr = transposed((3, 5))
    v = A.narrow(x, dim, start, length)
    assert_view(v, x)
    first = start + arr.shape[dim] if start < 0 else start
    np.testing.assert_array_equal(values(v), np.take(arr, range(first, first + length), axis=dim))
    oracle(v, lambda t: t.narrow(dim, start, length), x)
    w = A.narrow.Tensor(x, dim, tensor(np.array(start, np.int64)), length)
    assert geometry(w) == geometry(v)


@pytest.mark.parametrize(
    ("offset", "dim1", "dim2"),
    [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (5, 0, 1), (-5, 1, 0), (1, 2, 0), (0, -1, -2)],
)
@pytest.mark.parametrize("layout", range(3), ids=LAYOUT_IDS[:3])
def test_diagonal(offset: int, dim1: int, dim2: int, layout: int) -> None:
    x, arr = layouts((3, 4, 5))[layout]
    v = A.diagonal(x, offset, dim1, dim2)
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), np.diagonal(arr, offset, dim1, dim2))
    oracle(v, lambda t: t.diagonal(offset, dim1, dim2), x)


def test_diagonal_of_an_offset_view() -> None:
    x = A.slice(tensor(sample((2, 3, 4))), 1, 1)
    v = A.diagonal(x, 1, 2, 0)
    assert geometry(v) == ((2, 1), (4, 13), 16)
    oracle(v, lambda t: t.diagonal(1, 2, 0), x)


# ---- transpose, t, permute, movedim ------------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
def test_transpose_and_swaps(d: dtype) -> None:
    for x, arr in layouts((2, 3, 4), d):
        for dim0, dim1 in ((0, 1), (2, 0), (-1, -2), (1, 1)):
            for op in (A.transpose.int, A.swapaxes, A.swapdims):
                v = op(x, dim0, dim1)
                assert_view(v, x)
                np.testing.assert_array_equal(values(v), np.swapaxes(arr, dim0, dim1))
            assert v is not x


def test_transpose_in_place() -> None:
    x, arr = transposed((2, 3))
    assert A.transpose_(x, 0, -1) is x
    assert geometry(x) == ((3, 2), (2, 1), 0)
    np.testing.assert_array_equal(values(x), arr.T)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)])
def test_t(shape: tuple[int, ...]) -> None:
    arr = sample(shape)
    x = tensor(arr)
    v = A.t(x)
    assert v is not x
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), arr.T)
    oracle(v, lambda t: t.t(), x)
    y = tensor(arr.copy())
    assert A.t_(y) is y
    np.testing.assert_array_equal(values(y), arr.T)


@pytest.mark.parametrize("dims", [[0, 1, 2], [2, 0, 1], [-1, 0, 1], [1, 2, -3]])
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_permute(dims: list[int], layout: int) -> None:
    x, arr = layouts((2, 3, 4))[layout]
    v = A.permute(x, dims)
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), np.transpose(arr, [d % 3 for d in dims]))
    oracle(v, lambda t: t.permute(dims), x)
    assert geometry(A.permute(tensor(np.array(1.5)), [])) == ((), (), 0)


@pytest.mark.parametrize(
    ("source", "destination"),
    [(0, 2), (-1, 0), ([0, 3], [2, 0]), ([1, 2], [-1, -2]), ([], []), ([0, 1, 2, 3], [3, 2, 1, 0])],
)
def test_movedim_and_moveaxis(source: int | list[int], destination: int | list[int]) -> None:
    x, arr = transposed((2, 3, 4, 5))
    for op in (A.movedim, A.moveaxis):
        v = op(x, source, destination)
        assert_view(v, x)
        np.testing.assert_array_equal(values(v), np.moveaxis(arr, source, destination))
    oracle(A.movedim(x, source, destination), lambda t: t.movedim(source, destination), x)


def test_movedim_of_a_zero_dim_tensor() -> None:
    x = tensor(np.array(2.5, np.float32))
    for source in (0, -1):
        assert geometry(A.movedim.int(x, source, 0)) == ((), (), 0)


@given(data=st.data(), ndim=st.integers(0, 5))
@settings(max_examples=60, deadline=None)
def test_permute_and_movedim_match_numpy(data: st.DataObject, ndim: int) -> None:
    shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    arr = sample(shape)
    x = tensor(arr)
    perm = data.draw(st.permutations(range(ndim)))
    v = A.permute(x, perm)
    assert v._impl.strides == tuple(x._impl.strides[d] for d in perm)
    np.testing.assert_array_equal(values(v), np.transpose(arr, perm))
    count = data.draw(st.integers(0, ndim))
    source = data.draw(st.permutations(range(ndim)))[:count]
    destination = data.draw(st.permutations(range(ndim)))[:count]
    np.testing.assert_array_equal(
        values(A.movedim(x, source, destination)), np.moveaxis(arr, source, destination)
    )


# ---- expand, squeeze, unsqueeze, flatten, unflatten --------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("shape", "size", "strides"),
    [
        ((3, 1), [2, 3, 4], (0, 1, 0)),
        ((3, 1), [1, 3, 4], (3, 1, 0)),
        ((3, 1), [1, 1, 3, 4], (3, 3, 1, 0)),
        ((3, 1), [-1, 5], (1, 0)),
        ((3, 1), [3, 0], (1, 0)),
        ((), [2, 3], (0, 0)),
        ((), [1], (0,)),
        ((), [], ()),
        ((2, 3), [2, 3], (3, 1)),
    ],
)
def test_expand(shape: tuple[int, ...], size: list[int], strides: tuple[int, ...], d: dtype) -> None:
    arr = sample(shape, d)
    x = tensor(arr)
    v = A.expand(x, size)
    assert v is not x
    assert_view(v, x)
    assert v._impl.strides == strides
    target = tuple(s if s != -1 else arr.shape[i - len(size) + arr.ndim] for i, s in enumerate(size))
    np.testing.assert_array_equal(values(v), np.broadcast_to(arr, target))
    oracle(v, lambda t: t.expand(size), x)
    w = A.expand_as(x, meta(target, framework.int8))
    assert geometry(w) == geometry(v)


def test_expand_of_a_stepped_tensor() -> None:
    x, arr = stepped((3,))
    v = A.expand(x, [1, 2, 3])
    assert v._impl.strides == (0, 0, 2)  # a leading size-1 dim: size * stride of the next dim
    np.testing.assert_array_equal(values(v), np.broadcast_to(arr, (1, 2, 3)))


@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_expand_matches_broadcast_to(data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    kept = [data.draw(st.sampled_from([s, -1, 2] if s == 1 else [s, -1])) for s in shape]
    final = (*lead, *(s if k == -1 else k for s, k in zip(shape, kept, strict=True)))
    arr = sample(shape)
    x = tensor(arr)
    v = A.expand(x, [*lead, *kept])
    np.testing.assert_array_equal(values(v), np.broadcast_to(arr, final))
    for i, stride in enumerate(v._impl.strides[len(lead) :]):
        assert stride == (x._impl.strides[i] if final[len(lead) + i] == shape[i] else 0)
    assert all(stride == 0 for size, stride in zip(lead, v._impl.strides, strict=False) if size != 1)
    oracle(v, lambda t: t.expand([*lead, *kept]), x)


@pytest.mark.parametrize(
    ("dim", "shape"),
    [
        (None, (2, 3)),
        (0, (2, 1, 3, 1)),
        (2, (1, 2, 3, 1)),
        (1, (1, 2, 1, 3, 1)),
        (-1, (1, 2, 1, 3)),
        ([0, 2], (2, 3, 1)),
        ([], (1, 2, 1, 3, 1)),
        ([-1, 1, 2], (1, 2, 3)),
    ],
)
def test_squeeze(dim: int | list[int] | None, shape: tuple[int, ...]) -> None:
    arr = sample((1, 2, 1, 3, 1))
    x = tensor(arr)
    v = A.squeeze(x) if dim is None else A.squeeze(x, dim)
    assert v.shape == shape
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), arr.reshape(shape))
    oracle(v, (lambda t: t.squeeze()) if dim is None else (lambda t: t.squeeze(dim)), x)
    y = tensor(arr)
    same = A.squeeze_(y) if dim is None else A.squeeze_(y, dim)
    assert same is y
    assert geometry(y) == geometry(v)


def test_squeeze_overloads_and_zero_dim() -> None:
    x = tensor(sample((1, 2)))
    assert A.squeeze.dim(x, 0).shape == (2,)
    assert A.squeeze.dims(x, [0, 1]).shape == (2,)
    assert A.squeeze.default(x).shape == (2,)
    s = tensor(np.array(1.5))
    for v in (A.squeeze(s), A.squeeze(s, 0), A.squeeze(s, [-1]), A.squeeze(s, [])):
        assert geometry(v) == ((), (), 0)
    assert A.squeeze(tensor(sample((0, 1))), 1).shape == (0,)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_unsqueeze(dim: int, layout: int) -> None:
    x, arr = layouts((2, 3))[layout]
    v = A.unsqueeze(x, dim)
    assert_view(v, x)
    np.testing.assert_array_equal(values(v), np.expand_dims(arr, dim))
    oracle(v, lambda t: t.unsqueeze(dim), x)
    y = A.as_strided(x, x.shape, x._impl.strides)
    assert A.unsqueeze_(y, dim) is y
    assert geometry(y) == geometry(v)


def test_unsqueeze_strides() -> None:
    assert A.unsqueeze(tensor(np.array(1.0)), 0)._impl.strides == (1,)
    assert A.unsqueeze(tensor(sample((2, 0))), 2)._impl.strides == (1, 1, 1)
    x, _ = stepped((2, 2))
    assert A.unsqueeze(x, 0)._impl.strides == (8, 4, 2)


@pytest.mark.parametrize(("start", "end"), [(0, -1), (1, 2), (0, 1), (2, 2), (-2, -1)])
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_flatten(start: int, end: int, layout: int) -> None:
    x, arr = layouts((2, 3, 4))[layout]
    v = A.flatten(x, start, end)
    s, e = start % 3, end % 3
    shape = (*arr.shape[:s], math.prod(arr.shape[s : e + 1]), *arr.shape[e + 1 :])
    np.testing.assert_array_equal(values(v), arr.reshape(shape))
    if s == e:
        assert v is x
    oracle(v, lambda t: t.flatten(start, end), x)


def test_flatten_zero_dim_and_zero_size() -> None:
    v = A.flatten(tensor(np.array(3.0)))
    assert geometry(v) == ((1,), (1,), 0)
    assert A.flatten(tensor(sample((2, 0, 3))), 1).shape == (2, 0)


@pytest.mark.parametrize(
    ("dim", "sizes"), [(1, [3, 1]), (-1, [1, 3]), (0, [-1, 1]), (1, [1, -1, 1]), (0, [2])]
)
def test_unflatten(dim: int, sizes: list[int]) -> None:
    x, arr = transposed((2, 3))
    v = A.unflatten(x, dim, sizes)
    assert_view(v, x)
    d = dim % 2
    shape = list(arr.shape)
    shape[d : d + 1] = [
        s if s != -1 else arr.shape[d] // math.prod(t for t in sizes if t != -1) for s in sizes
    ]
    np.testing.assert_array_equal(values(v), arr.reshape(shape))
    oracle(v, lambda t: t.unflatten(dim, sizes), x)


# ---- unbind, split, chunk -----------------------------------------------------------------------


def expected_pieces(arr: Array, lengths: Sequence[int], dim: int) -> list[Array]:
    bounds = np.cumsum([0, *lengths])
    return [np.take(arr, range(a, b), axis=dim) for a, b in itertools.pairwise(bounds)]


def assert_pieces(pieces: Sequence[Tensor], expected: Sequence[Array], base: Tensor) -> None:
    assert isinstance(pieces, list)
    assert len(pieces) == len(expected)
    for piece, arr in zip(pieces, expected, strict=True):
        assert_view(piece, base)
        np.testing.assert_array_equal(values(piece), arr)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_unbind(dim: int, layout: int) -> None:
    x, arr = layouts((2, 3))[layout]
    pieces = A.unbind(x, dim)
    assert_pieces(pieces, [np.take(arr, i, axis=dim) for i in range(arr.shape[dim])], x)
    oracle(pieces, lambda t: t.unbind(dim), x)
    assert A.unbind(tensor(sample((0, 2)))) == []


@pytest.mark.parametrize(
    ("size", "split_size", "lengths"),
    [(5, 2, [2, 2, 1]), (5, 7, [5]), (6, 3, [3, 3]), (0, 2, [0]), (0, 0, [0])],
)
def test_split(size: int, split_size: int, lengths: list[int]) -> None:
    x, arr = transposed((size, 2))
    pieces = A.split.Tensor(x, split_size)
    assert_pieces(pieces, expected_pieces(arr, lengths, 0), x)
    oracle(pieces, lambda t: t.split(split_size), x)


@pytest.mark.parametrize(("sizes", "dim"), [([1, 2], 1), ([3, 0], -1), ([0, 3, 0], 1), ([2], 0)])
def test_split_with_sizes(sizes: list[int], dim: int) -> None:
    x, arr = stepped((2, 3))
    for pieces in (A.split_with_sizes(x, sizes, dim), A.split.sizes(x, sizes, dim), A.split(x, sizes, dim)):
        assert_pieces(pieces, expected_pieces(arr, sizes, dim % 2), x)
    oracle(A.split_with_sizes(x, sizes, dim), lambda t: t.split(sizes, dim), x)


@pytest.mark.parametrize(
    ("size", "chunks", "lengths"),
    [(5, 3, [2, 2, 1]), (6, 4, [2, 2, 2]), (2, 5, [1, 1]), (0, 3, [0, 0, 0]), (7, 1, [7]), (1, 2, [1])],
)
def test_chunk(size: int, chunks: int, lengths: list[int]) -> None:
    x, arr = transposed((2, size))
    pieces = A.chunk(x, chunks, 1)
    assert_pieces(pieces, expected_pieces(arr, lengths, 1), x)
    oracle(pieces, lambda t: t.chunk(chunks, 1), x)


@given(size=st.integers(0, 12), split_size=st.integers(1, 6), chunks=st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_split_and_chunk_cover_the_dimension(size: int, split_size: int, chunks: int) -> None:
    arr = sample((size, 2))
    x = tensor(arr)
    for pieces in (A.split(x, split_size), A.chunk(x, chunks)):
        assert all(p.shape[1] == 2 for p in pieces)
        np.testing.assert_array_equal(np.concatenate([values(p) for p in pieces]), arr)
    assert all(p.shape[0] == split_size for p in A.split(x, split_size)[:-1])
    assert len(A.chunk(x, chunks)) <= chunks


# ---- view_as_real, view_as_complex, real, imag --------------------------------------------------


@pytest.mark.parametrize("d", [framework.complex64, framework.complex128], ids=["complex64", "complex128"])
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_view_as_real_real_imag(layout: int, d: dtype) -> None:
    x, arr = layouts((2, 3), d)[layout]
    r = A.view_as_real(x)
    assert_view(r, x)
    assert r.dtype is d.to_real()
    np.testing.assert_array_equal(values(r), np.stack([arr.real, arr.imag], axis=-1))
    oracle(r, lambda t: torch.view_as_real(t), x)
    re, im = A.real(x), A.imag(x)
    assert_view(re, x)
    assert_view(im, x)
    np.testing.assert_array_equal(values(re), arr.real)
    np.testing.assert_array_equal(values(im), arr.imag)
    oracle([re, im], lambda t: [t.real, t.imag], x)


def test_view_as_real_writes_through() -> None:
    arr = sample((3,), framework.complex64)
    x = tensor(arr)
    A.fill_(A.imag(x), 7.0)
    np.testing.assert_array_equal(arr.imag, [7.0, 7.0, 7.0])
    assert geometry(A.view_as_real(tensor(np.array(1 + 2j)))) == ((2,), (1,), 0)


@pytest.mark.parametrize("d", [framework.float32, framework.float64], ids=["float32", "float64"])
def test_view_as_complex(d: dtype) -> None:
    arr = sample((3, 4), d)
    x = A.view(tensor(arr), [3, 2, 2])
    c = A.view_as_complex(x)
    assert_view(c, x)
    assert c.dtype is d.to_complex()
    assert geometry(c) == ((3, 2), (2, 1), 0)
    np.testing.assert_array_equal(values(c), arr[:, ::2] + 1j * arr[:, 1::2])
    oracle(c, lambda t: torch.view_as_complex(t), x)
    sliced = A.slice(x, 0, 1)
    assert geometry(A.view_as_complex(sliced)) == ((2, 2), (2, 1), 2)
    roundtrip = A.view_as_real(A.view_as_complex(x))
    assert geometry(roundtrip) == geometry(x)


@pytest.mark.parametrize("d", ALL_DTYPES[:9], ids=DTYPE_IDS[:9])
def test_real_of_a_real_tensor_is_itself(d: dtype) -> None:
    x = tensor(sample((2,), d))
    assert A.real(x) is x
    raises(RuntimeError, "imag is not implemented for tensors with non-complex dtypes.", lambda: A.imag(x))


# ---- contiguous, clone, memory formats ----------------------------------------------------------


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", range(4), ids=LAYOUT_IDS)
def test_contiguous(layout: int, d: dtype) -> None:
    x, arr = layouts((2, 3), d)[layout]
    c = A.contiguous(x)
    np.testing.assert_array_equal(values(c), arr)
    assert c._impl.is_contiguous()
    if x._impl.is_contiguous():
        assert c is x
    else:
        assert_copy(c, x)
        assert geometry(c) == ((2, 3), (3, 1), 0)


def test_contiguous_channels_last() -> None:
    x = tensor(sample((2, 3, 4, 5)))
    c = A.contiguous(x, memory_format=framework.channels_last)
    assert geometry(c) == ((2, 3, 4, 5), (60, 1, 15, 3), 0)
    np.testing.assert_array_equal(values(c), values(x))
    assert A.contiguous(c, memory_format=framework.channels_last) is c
    n1hw = tensor(sample((2, 1, 4, 5)))
    assert A.contiguous(n1hw, memory_format=framework.channels_last) is n1hw
    c3 = A.contiguous(tensor(sample((2, 3, 4, 5, 6))), memory_format=CHANNELS_LAST_3D)
    assert c3._impl.strides == (360, 1, 90, 18, 3)
    oracle(c, lambda t: t.contiguous(memory_format=torch.channels_last), x)


@pytest.mark.parametrize(
    ("make", "strides"),
    [
        (lambda: A.t(tensor(sample((3, 3)))), (1, 3)),  # dense: strides kept
        (lambda: stepped((3, 2))[0], (2, 1)),  # not dense: row-major
        (lambda: A.expand(tensor(sample((3,))), [2, 3]), (3, 1)),  # overlapping: row-major
        (lambda: A.as_strided(tensor(sample((3,))), [3, 1], [1, 7]), (1, 7)),  # size-1 strides kept
        (lambda: A.permute(tensor(sample((2, 3, 4, 5))), [0, 2, 3, 1]), (60, 5, 1, 20)),
        (lambda: tensor(sample((2, 0, 3))), (3, 3, 1)),
        (lambda: tensor(np.array(2.0)), ()),
        (
            lambda: A.slice(
                A.contiguous(tensor(sample((2, 3, 4, 6))), memory_format=framework.channels_last),
                3,
                0,
                None,
                2,
            ),
            (36, 1, 9, 3),
        ),  # not dense but channels-last-like: channels-last
    ],
)
def test_clone_preserves_the_layout(make: Callable[[], Tensor], strides: tuple[int, ...]) -> None:
    x = make()
    c = A.clone(x)
    assert_copy(c, x)
    assert c._impl.strides == strides
    assert c.shape == x.shape
    np.testing.assert_array_equal(values(c), values(x))
    oracle(c, lambda t: t.clone(), x)


def test_clone_memory_formats() -> None:
    x, arr = transposed((2, 3, 4, 5))
    assert A.clone(x, memory_format=framework.contiguous_format)._impl.strides == (60, 20, 5, 1)
    cl = A.clone(x, memory_format=framework.channels_last)
    assert cl._impl.strides == (60, 1, 15, 3)
    np.testing.assert_array_equal(values(cl), arr)
    assert A.clone(x, memory_format=framework.preserve_format)._impl.strides == x._impl.strides
    assert A.clone(tensor(sample((2, 0, 4, 5))), memory_format=framework.channels_last)._impl.strides == (
        0,
        1,
        0,
        0,
    )
    m = A.clone(A.t(meta((3, 2))))
    assert (m.device.type, geometry(m)) == ("meta", ((2, 3), (1, 2), 0))


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_IDS)
def test_clone_out(d: dtype) -> None:
    x, arr = transposed((2, 3), d)
    out = empty([0], d)
    assert A.clone.out(x, out=out) is out
    assert geometry(out) == ((2, 3), (3, 1), 0)
    np.testing.assert_array_equal(values(out), arr)
    kept = A.t(empty([3, 2], d))
    A.clone.out(tensor(arr.copy()), out=kept)
    assert kept._impl.strides == (1, 2)
    np.testing.assert_array_equal(values(kept), arr)


def test_clone_out_resizes_with_a_warning_and_checks_dtype_and_device() -> None:
    x = tensor(sample((2, 3)))
    with pytest.warns(
        UserWarning, match=r"An output with one or more elements was resized since it had shape \[4\]"
    ):
        A.clone.out(x, out=empty([4]))
    raises(
        RuntimeError,
        "Expected out tensor to have dtype float, but got c10::complex<double> instead",
        lambda: A.clone.out(x, out=empty([0], framework.complex128)),
    )
    raises(
        RuntimeError,
        "Attempting to copy from device cpu to device meta, but cross-device copies are not allowed!",
        lambda: A.clone.out(x, out=meta([0])),
    )
    out = meta([0])
    assert A.clone.out(meta([2, 3]), out=out).shape == (2, 3)


# ---- copy_ and dtype conversion -----------------------------------------------------------------

CONVERSION_SOURCES: dict[str, list[Any]] = {
    "bool": [False, True, True, False, True],
    "uint8": [0, 1, 200, 100, 255],
    "int8": [0, 1, -2, 100, -128],
    "int16": [0, 1, -2, 300, -129],
    "int32": [0, 1, -2, 70000, -129],
    "int64": [0, 1, -2, 2**40 + 3, -129],
    "float16": [0.0, 1.5, -2.75, 100.25, 7.0],
    "float32": [0.0, 1.5, -2.75, 100.25, 1e-3],
    "float64": [0.0, 1.5, -2.75, 100.25, 1 + 2**-11 + 2**-40],
    "complex64": [0j, 1.5 + 2j, -2.75 - 1j, 100.25 + 0j, 1j],
    "complex128": [0j, 1.5 + 2j, -2.75 - 1j, 100.25 + 0j, 1j],
}


def reference_cast(items: list[Any], target: dtype) -> Array:
    """PyTorch's conversions written out per element: complex to real keeps the real part, to bool
    is `!= 0`, floating to integral truncates toward zero and wraps modulo 2**bits (uint8 through
    int64, as PyTorch documents), and float16 is reached through float32."""
    converted: list[Any] = []
    for v in items:
        if target.is_complex:
            converted.append(complex(v))
        elif target is framework.bool:
            converted.append(v != 0)
        else:
            r = v.real if isinstance(v, complex) else v
            if target.is_floating_point:
                converted.append(float(np.float32(r)) if target is framework.float16 else float(r))
            else:
                bits = 8 * target.itemsize
                i = math.trunc(r) % 2**bits
                converted.append(i - 2**bits if target.is_signed and i >= 2 ** (bits - 1) else i)
    with np.errstate(over="ignore"):
        return np.array(converted, dtype=target.numpy_dtype)


@pytest.mark.parametrize("target", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("source", ALL_DTYPES, ids=DTYPE_IDS)
def test_copy_converts_like_pytorch(source: dtype, target: dtype) -> None:
    items = CONVERSION_SOURCES[source.name]
    src = tensor(np.array(items, dtype=source.numpy_dtype))
    dst = tensor(np.zeros(len(items), dtype=target.numpy_dtype))
    discards_imaginary = source.is_complex and not target.is_complex and target is not framework.bool
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert A.copy_(dst, src) is dst
    messages = [str(w.message) for w in caught]
    assert messages == (
        ["Casting complex values to real discards the imaginary part"] if discards_imaginary else []
    )
    exact = np.array(items, dtype=source.numpy_dtype).tolist()
    np.testing.assert_array_equal(values(dst), reference_cast(exact, target))
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = mirror(tensor(np.zeros(len(items), dtype=target.numpy_dtype))).copy_(mirror(src))
        np.testing.assert_array_equal(values(dst), theirs.numpy())


def test_float64_reaches_float16_through_float32() -> None:
    x = tensor(np.array([1 + 2**-11 + 2**-40], np.float64))
    assert A._to_copy(x, dtype=framework.float16).item() == 1.0  # NumPy's direct cast gives 1.00098
    assert A._to_copy(tensor(np.array([-1.5, 256.0, 1e10, np.nan])), dtype=framework.uint8).tolist() == [
        255,
        0,
        0,
        0,
    ]


@pytest.mark.parametrize(
    ("dst_shape", "src_shape"),
    [((2, 3), (3,)), ((2, 3), ()), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((0, 3), (1,))],
)
@pytest.mark.parametrize("layout", range(3), ids=LAYOUT_IDS[:3])
def test_copy_broadcasts_into_any_layout(
    dst_shape: tuple[int, ...], src_shape: tuple[int, ...], layout: int
) -> None:
    src_arr = sample(src_shape, framework.int32)
    dst, _ = layouts(dst_shape, framework.float64)[layout]
    version = dst._impl.version_counter
    A.copy_(dst, tensor(src_arr))
    np.testing.assert_array_equal(values(dst), np.broadcast_to(src_arr.astype(np.float64), dst_shape))
    assert dst._impl.version_counter is version


def test_copy_from_a_non_contiguous_source_and_between_views() -> None:
    src, arr = transposed((3, 4))
    dst = tensor(np.zeros((3, 4), np.float32))
    A.copy_(dst, src)
    np.testing.assert_array_equal(values(dst), arr)
    buf = np.arange(6.0, dtype=np.float32)
    b = tensor(buf)
    A.copy_(A.slice(b, 0, 0, 4, 2), A.slice(b, 0, 1, 5, 2))  # strided: not dense, allowed
    np.testing.assert_array_equal(buf, [1, 1, 3, 3, 4, 5])
    x = tensor(sample((3, 3)))
    assert A.copy_(x, x) is x
    assert A.copy_(x, A.view(x, [3, 3])) is x


@pytest.mark.parametrize(
    ("make", "exc", "message"),
    [
        (
            lambda: A.copy_(tensor(sample((2, 3))), tensor(sample((4,)))),
            RuntimeError,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        ),
        (
            lambda: A.copy_(tensor(sample((2, 3))), tensor(sample((2, 2, 3)))),
            RuntimeError,
            "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]",
        ),
        (
            lambda: A.copy_(A.expand(tensor(sample((3,))), [2, 3]), tensor(sample((2, 3)))),
            RuntimeError,
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.",
        ),
        (
            lambda: (lambda b: A.copy_(A.slice(b, 0, 1), A.slice(b, 0, 0, 4)))(tensor(sample((5,)))),
            RuntimeError,
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
            "single "
            "memory location. Please clone() the tensor before performing the operation.",
        ),
        (
            lambda: (lambda b: A.copy_(b, A.t(b)))(tensor(sample((3, 3)))),
            RuntimeError,
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
            "single "
            "memory location. Please clone() the tensor before performing the operation.",
        ),
        (
            lambda: A.copy_(tensor(sample((2,))), meta((2,))),
            NotImplementedError,
            "Cannot copy out of meta tensor; no data!",
        ),
        (
            lambda: A.copy_(meta((2, 3)), meta((4,))),
            RuntimeError,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        ),
    ],
    ids=[
        "broadcast",
        "bigger-source",
        "internal-overlap",
        "partial-overlap",
        "transposed-self",
        "from-meta",
        "meta",
    ],
)
def test_copy_errors(make: Callable[[], Any], exc: type[BaseException], message: str) -> None:
    raises(exc, message, make)


def test_copy_onto_meta_checks_shapes_only() -> None:
    m = meta((2, 3))
    assert A.copy_(m, tensor(sample((3,)))) is m
    assert A.copy_(tensor(sample((0, 2))), tensor(sample((2,)))).shape == (0, 2)
    assert A.copy_(A.expand(tensor(sample((1,))), [0, 3]), tensor(sample((3,)))).shape == (0, 3)


def test_copy_functional_and_out() -> None:
    x, arr = transposed((2, 3), framework.int32)
    src = tensor(np.array([2.7, -1.2, 9.9], np.float32))
    r = A.copy(x, src)
    assert_copy(r, x)
    assert r.dtype is framework.int32
    np.testing.assert_array_equal(values(r), np.broadcast_to(np.array([2, -1, 9], np.int32), (2, 3)))
    np.testing.assert_array_equal(values(x), arr)
    out = empty([0], framework.int32)
    assert A.copy.out(x, src, out=out) is out
    np.testing.assert_array_equal(values(out), values(r))
    raises(
        RuntimeError,
        "Expected out tensor to have dtype int, but got long int instead",
        lambda: A.copy.out(x, src, out=empty([0], framework.int64)),
    )


# ---- _to_copy, to, type_as ----------------------------------------------------------------------


@pytest.mark.parametrize("target", ALL_DTYPES, ids=DTYPE_IDS)
def test_to_copy(target: dtype) -> None:
    x, arr = transposed((2, 3), framework.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = A._to_copy(x, dtype=target)
    assert_copy(r, x)
    assert r.dtype is target
    assert r._impl.strides == x._impl.strides  # preserve_format keeps a dense layout
    np.testing.assert_array_equal(values(r), reference_cast(arr.ravel().tolist(), target).reshape(2, 3))
    oracle(r, lambda t: t.to(getattr(torch, target.name)), x)


def test_to_copy_devices_and_memory_format() -> None:
    x, _ = transposed((2, 3))
    m = A._to_copy(x, device="meta")
    assert (m.device.type, geometry(m)) == ("meta", ((2, 3), (1, 2), 0))
    raises(
        NotImplementedError, "Cannot copy out of meta tensor; no data!", lambda: A._to_copy(m, device="cpu")
    )
    assert A._to_copy(m).device.type == "meta"
    c = A._to_copy(x, memory_format=framework.contiguous_format)
    assert c._impl.strides == (3, 1)
    raises(
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
        lambda: A._to_copy(x, memory_format=framework.channels_last),
    )
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        assert A._to_copy(tensor(np.array([1 + 2j])), dtype=framework.float32).tolist() == [1.0]


def test_to_copy_out() -> None:
    x, arr = transposed((2, 3), framework.float32)
    out = empty([0], framework.int16)
    assert A._to_copy.out(x, out=out) is out
    assert geometry(out) == ((2, 3), (3, 1), 0)
    np.testing.assert_array_equal(values(out), np.trunc(arr).astype(np.int16))
    raises(
        RuntimeError,
        "Attempting to copy from device cpu to device meta, but cross-device copies are not allowed!",
        lambda: A._to_copy.out(x, out=meta([0])),
    )


def test_to_returns_self_when_nothing_changes() -> None:
    x = tensor(sample((2, 3)))
    assert A.to.dtype(x, framework.float32) is x
    assert A.to.dtype_layout(x) is x
    assert A.to.dtype_layout(x, dtype=framework.float32, layout=framework.strided, device="cpu") is x
    assert A.to.device(x, framework.device("cpu"), framework.float32) is x
    assert A.to.other(x, tensor(np.zeros(1, np.float32))) is x
    assert A.to.dtype(x, framework.float32, memory_format=framework.contiguous_format) is x
    assert A.type_as(x, tensor(np.zeros(1, np.float32))) is x
    t = A.t(x)
    assert A.to.dtype_layout(t, memory_format=framework.contiguous_format) is t  # PyTorch compares the
    # suggested memory format, which is row-major for any 2-D tensor


def test_to_copies_when_asked_or_when_something_changes() -> None:
    x = tensor(sample((2, 3)))
    for r in (
        A.to.dtype(x, framework.float32, copy=True),
        A.to.dtype_layout(x, device="cpu:0"),
        A.to.dtype(x, framework.float64),
        A.to.device(x, "cpu", framework.int64),
        A.to.other(x, tensor(np.zeros(1, np.int8))),
        A.type_as(x, tensor(np.zeros(1, np.complex64))),
    ):
        assert_copy(r, x)
        np.testing.assert_array_equal(values(r), sample((2, 3)).astype(r.dtype.numpy_dtype))
    m = A.to.other(x, meta([1]))
    assert (m.device.type, m.shape) == ("meta", (2, 3))
    cl = A.to.dtype_layout(tensor(sample((2, 3, 4, 5))), memory_format=framework.channels_last)
    assert cl._impl.strides == (60, 1, 15, 3)


def test_to_through_the_packet() -> None:
    x = tensor(sample((2,)))
    assert A.to(x, framework.float32) is x
    assert A.to(x, framework.float64).dtype is framework.float64
    assert A.to(x, dtype=framework.int32).dtype is framework.int32
    assert A.to(x, meta([1])).device.type == "meta"
    assert A.to(x, "meta", framework.float16).dtype is framework.float16


# ---- errors -------------------------------------------------------------------------------------

X: Any = tensor(sample((2, 3)))
X3: Any = tensor(sample((2, 3, 4)))
S: Any = tensor(np.array(1.5, np.float32))
V: Any = tensor(sample((3,)))

ERRORS: list[tuple[str, Callable[[Any, Any, Any, Any], Any], type[BaseException], str]] = [
    (
        "select-0d",
        lambda x, x3, s, v: s.select(0, 0),
        IndexError,
        "select() cannot be applied to a 0-dim tensor.",
    ),
    (
        "select-index",
        lambda x, x3, s, v: x.select(0, 5),
        IndexError,
        "select(): index 5 out of range for tensor of size [2, 3] at dimension 0",
    ),
    (
        "select-negative",
        lambda x, x3, s, v: x.select(-1, -4),
        IndexError,
        "select(): index -4 out of range for tensor of size [2, 3] at dimension 1",
    ),
    (
        "select-dim",
        lambda x, x3, s, v: x.select(2, 0),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        "transpose-0d",
        lambda x, x3, s, v: s.transpose(0, 1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "slice-0d",
        lambda x, x3, s, v: s.slice(0, 0, 1),
        IndexError,
        "slice() cannot be applied to a 0-dim tensor.",
    ),
    ("slice-step-0", lambda x, x3, s, v: x.slice(0, 0, 2, 0), RuntimeError, "slice step must be positive"),
    (
        "slice-step-negative",
        lambda x, x3, s, v: x.slice(0, 0, 2, -1),
        RuntimeError,
        "slice step must be positive",
    ),
    (
        "slice-dim",
        lambda x, x3, s, v: v.slice(1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "narrow-0d",
        lambda x, x3, s, v: s.narrow(0, 0, 1),
        RuntimeError,
        "narrow() cannot be applied to a 0-dim tensor.",
    ),
    (
        "narrow-start",
        lambda x, x3, s, v: x.narrow(1, 4, 1),
        IndexError,
        "start out of range (expected to be in range of [-3, 3], but got 4)",
    ),
    (
        "narrow-start-negative",
        lambda x, x3, s, v: v.narrow(0, -4, 0),
        IndexError,
        "start out of range (expected to be in range of [-3, 3], but got -4)",
    ),
    (
        "narrow-length",
        lambda x, x3, s, v: x.narrow(1, 1, 5),
        RuntimeError,
        "start (1) + length (5) exceeds dimension size (3).",
    ),
    (
        "narrow-wrapped-start",
        lambda x, x3, s, v: v.narrow(0, -2, 5),
        RuntimeError,
        "start (1) + length (5) exceeds dimension size (3).",
    ),
    (
        "narrow-negative-length",
        lambda x, x3, s, v: v.narrow(1, 0, -1),
        RuntimeError,
        "narrow(): length must be non-negative.",
    ),
    (
        "narrow-tensor-start",
        lambda x, x3, s, v: x.narrow(1, s, 1),
        RuntimeError,
        "start must be an 0-dim integral Tensor.",
    ),
    (
        "permute-length",
        lambda x, x3, s, v: x.permute([0, 1, 2]),
        RuntimeError,
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
        "desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3",
    ),
    (
        "permute-duplicate",
        lambda x, x3, s, v: x.permute([0, 0]),
        RuntimeError,
        "permute(): duplicate dims are not allowed.",
    ),
    (
        "permute-dim",
        lambda x, x3, s, v: x.permute([0, 2]),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        "t-3d",
        lambda x, x3, s, v: x3.t(),
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    (
        "t_-3d",
        lambda x, x3, s, v: x3.t_(),
        RuntimeError,
        "t_() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    (
        "expand-fewer",
        lambda x, x3, s, v: x.expand([3]),
        RuntimeError,
        "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or "
        "equal to the number of dimensions in the tensor (2)",
    ),
    (
        "expand-mismatch",
        lambda x, x3, s, v: x.expand([2, 4]),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
        "Target sizes: [2, 4].  Tensor sizes: [2, 3]",
    ),
    (
        "expand-leading-minus-one",
        lambda x, x3, s, v: x.expand([-1, 2, 3]),
        RuntimeError,
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0",
    ),
    (
        "expand-negative",
        lambda x, x3, s, v: x.expand([-2, 3]),
        RuntimeError,
        "The expanded size of the tensor (-2) must match the existing size (2) at non-singleton dimension 0. "
        " Target sizes: [-2, 3].  Tensor sizes: [2, 3]",
    ),
    (
        "expand-negative-leading",
        lambda x, x3, s, v: v.expand([-2, 3]),
        RuntimeError,
        "numel: integer multiplication overflow",
    ),
    (
        "expand-as",
        lambda x, x3, s, v: x.expand_as(x3[0].t()),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0.  "
        "Target sizes: [4, 3].  Tensor sizes: [2, 3]",
    ),
    (
        "squeeze-dim",
        lambda x, x3, s, v: x.squeeze(3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    (
        "squeeze-dims",
        lambda x, x3, s, v: x.squeeze([0, 5]),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
    ),
    (
        "squeeze-duplicate",
        lambda x, x3, s, v: x.squeeze([0, -2]),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
    ),
    (
        "squeeze-0d",
        lambda x, x3, s, v: s.squeeze([1]),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "unsqueeze-dim",
        lambda x, x3, s, v: x.unsqueeze(3),
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
    ),
    (
        "unsqueeze-0d",
        lambda x, x3, s, v: s.unsqueeze(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 2)",
    ),
    (
        "flatten-order",
        lambda x, x3, s, v: x3.flatten(2, 1),
        RuntimeError,
        "flatten() has invalid args: start_dim cannot come after end_dim",
    ),
    (
        "flatten-0d",
        lambda x, x3, s, v: s.flatten(0, 1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "unflatten-empty",
        lambda x, x3, s, v: x.unflatten(1, []),
        RuntimeError,
        "unflatten: sizes must be non-empty",
    ),
    (
        "unflatten-product",
        lambda x, x3, s, v: x.unflatten(-1, [2, 2]),
        RuntimeError,
        "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor",
    ),
    (
        "unflatten-inferred",
        lambda x, x3, s, v: x.unflatten(1, [-1, 2]),
        RuntimeError,
        "unflatten: Provided sizes [-1, 2] don't multiply up to the size of dim 1 (3) in the input tensor",
    ),
    (
        "unflatten-two-inferred",
        lambda x, x3, s, v: x.unflatten(1, [-1, -1]),
        RuntimeError,
        "unflatten got an unexpected error:\nonly one dimension can be inferred",
    ),
    (
        "unflatten-0d",
        lambda x, x3, s, v: s.unflatten(0, [1]),
        RuntimeError,
        "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions",
    ),
    (
        "unbind-0d",
        lambda x, x3, s, v: s.unbind(),
        IndexError,
        "Dimension specified as 0 but tensor has no dimensions",
    ),
    (
        "unbind-dim",
        lambda x, x3, s, v: v.unbind(1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "split-negative",
        lambda x, x3, s, v: x.split(-1),
        RuntimeError,
        "split expects split_size be non-negative, but got split_size=-1",
    ),
    (
        "split-0d",
        lambda x, x3, s, v: s.split(1),
        RuntimeError,
        "split expects at least a 1-dimensional tensor",
    ),
    (
        "split-zero",
        lambda x, x3, s, v: x.split(0, 1),
        RuntimeError,
        "split_size can only be 0 if dimension size is 0, but got dimension size of 3",
    ),
    (
        "split-sizes-sum",
        lambda x, x3, s, v: x.split([1, 1], -1),
        RuntimeError,
        "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but "
        "got split_sizes=[1, 1]",
    ),
    (
        "split-sizes-negative",
        lambda x, x3, s, v: x.split([-1, 4], 1),
        RuntimeError,
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[-1, 4]",
    ),
    (
        "split-sizes-0d",
        lambda x, x3, s, v: s.split([1]),
        RuntimeError,
        "split expects at least a 1-dimensional tensor",
    ),
    (
        "chunk-0d",
        lambda x, x3, s, v: s.chunk(1),
        RuntimeError,
        "chunk expects at least a 1-dimensional tensor",
    ),
    (
        "chunk-zero",
        lambda x, x3, s, v: x.chunk(0),
        RuntimeError,
        "chunk expects `chunks` to be greater than 0, got: 0",
    ),
    (
        "diagonal-same",
        lambda x, x3, s, v: x.diagonal(0, 1, -1),
        RuntimeError,
        "diagonal dimensions cannot be identical 1, -1",
    ),
    (
        "diagonal-1d",
        lambda x, x3, s, v: v.diagonal(),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "view-as-real",
        lambda x, x3, s, v: x.view_as_real(),
        RuntimeError,
        "view_as_real is only supported for complex tensors",
    ),
    (
        "view-as-complex-dtype",
        lambda x, x3, s, v: x.int().view_as_complex(),
        RuntimeError,
        "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar "
        "type: Int",
    ),
    (
        "view-as-complex-last",
        lambda x, x3, s, v: x.view_as_complex(),
        RuntimeError,
        "Tensor must have a last dimension of size 2",
    ),
    (
        "view-as-complex-stride",
        lambda x, x3, s, v: x3[:, :2, :2].transpose(1, 2).view_as_complex(),
        RuntimeError,
        "Tensor must have a last dimension with stride 1",
    ),
    (
        "view-as-complex-strides",
        lambda x, x3, s, v: x[:, :2].view_as_complex(),
        RuntimeError,
        "Tensor must have a stride divisible by 2 for all but last dimension",
    ),
    (
        "view-as-complex-offset",
        lambda x, x3, s, v: x3[:, 1, 1:3].view_as_complex(),
        RuntimeError,
        "Tensor must have a storage_offset divisible by 2",
    ),
    (
        "view-as-complex-0d",
        lambda x, x3, s, v: s.view_as_complex(),
        RuntimeError,
        "Input tensor must have one or more dimensions",
    ),
    (
        "movedim-lengths",
        lambda x, x3, s, v: x3.movedim([0, 1], [0]),
        RuntimeError,
        "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of "
        "dims as destination ([0] dims)",
    ),
    (
        "movedim-source",
        lambda x, x3, s, v: x3.movedim([0, -3], [0, 1]),
        RuntimeError,
        "movedim: repeated dim in `source` ([0, -3])",
    ),
    (
        "movedim-destination",
        lambda x, x3, s, v: x3.movedim([0, 1], [1, 1]),
        RuntimeError,
        "movedim: repeated dim in `destination` ([1, 1])",
    ),
    (
        "movedim-dim",
        lambda x, x3, s, v: x3.movedim(3, 0),
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
    ),
    (
        "swapaxes-dim",
        lambda x, x3, s, v: x.swapaxes(0, 3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    (
        "contiguous-preserve",
        lambda x, x3, s, v: x.t().contiguous(memory_format="preserve_format"),
        RuntimeError,
        "preserve memory format is unsupported by the contiguous operator",
    ),
    (
        "contiguous-channels-last",
        lambda x, x3, s, v: x.contiguous(memory_format="channels_last"),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    (
        "clone-channels-last-3d",
        lambda x, x3, s, v: x3.clone(memory_format="channels_last_3d"),
        RuntimeError,
        "required rank 5 tensor to use channels_last_3d format",
    ),
]


class Ours:
    """The torch-like method calls the ERRORS table uses, run through `framework.ops.aten`."""

    def __init__(self, t: Tensor) -> None:
        self.wrapped = t

    def __getitem__(self, index: Any) -> Ours:
        if not isinstance(index, tuple):
            index = (index,)
        result = self.wrapped
        dim = 0
        for item in index:
            if isinstance(item, int):
                result = A.select(result, dim, item)
            else:
                result = A.slice(result, dim, item.start, item.stop, item.step or 1)
                dim += 1
        return Ours(result)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(a.wrapped if isinstance(a, Ours) else a for a in args)
            if "memory_format" in kwargs:
                kwargs["memory_format"] = MemoryFormat[kwargs["memory_format"]]
            if name == "int":
                return Ours(A._to_copy(self.wrapped, dtype=framework.int32))
            op = {
                "slice": A.slice.Tensor,
                "view_as_real": A.view_as_real,
                "view_as_complex": A.view_as_complex,
            }
            result = (
                op[name](self.wrapped, *args)
                if name in op
                else getattr(A, name)(self.wrapped, *args, **kwargs)
            )
            return Ours(result) if isinstance(result, Tensor) else result

        return call


class Theirs:
    """The same calls on torch mirrors."""

    def __init__(self, t: Any) -> None:
        self.wrapped = t

    def __getitem__(self, index: Any) -> Theirs:
        return Theirs(self.wrapped[index])

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(a.wrapped if isinstance(a, Theirs) else a for a in args)
            if "memory_format" in kwargs:
                kwargs["memory_format"] = getattr(torch, kwargs["memory_format"])
            if name in ("slice", "view_as_real", "view_as_complex"):
                fn = torch.ops.aten.slice.Tensor if name == "slice" else getattr(torch, name)
                return fn(self.wrapped, *args)
            result = getattr(self.wrapped, name)(*args, **kwargs)
            return Theirs(result) if isinstance(result, torch.Tensor) else result

        return call


@pytest.mark.parametrize(("name", "call", "exc", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name: str, call: Callable[..., Any], exc: type[BaseException], message: str) -> None:
    raises(exc, message, lambda: call(Ours(X), Ours(X3), Ours(S), Ours(V)))
    if torch is not None:
        with pytest.raises(exc) as info:
            call(Theirs(mirror(X)), Theirs(mirror(X3)), Theirs(mirror(S)), Theirs(mirror(V)))
        assert str(info.value).split("\nException raised from")[0] == message


def test_expand_error_names_meta_tensors() -> None:
    raises(
        RuntimeError,
        "expand(MetaIntType{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
        "the "
        "number of dimensions in the tensor (2)",
        lambda: A.expand(meta((2, 3), framework.int32), [3]),
    )


def test_view_as_complex_of_half_is_refused() -> None:
    raises(
        RuntimeError,
        "view_as_complex: Half tensors need complex32, which is not supported",
        lambda: A.view_as_complex(tensor(np.zeros(2, np.float16))),
    )


# ---- Meta, sharing, overloads -------------------------------------------------------------------

META_VIEWS: list[tuple[str, Callable[[Tensor], Any]]] = [
    ("as_strided", lambda t: A.as_strided(t, [3, 2], [1, 3], 1)),
    ("view", lambda t: A.view(t, [4, -1])),
    ("reshape-view", lambda t: A.reshape(t, [24])),
    ("reshape-copy", lambda t: A.reshape(A.transpose(t, 0, 2), [24])),
    ("reshape_copy", lambda t: A._reshape_copy(t, [6, 4])),
    ("select", lambda t: A.select(t, 1, -1)),
    ("slice", lambda t: A.slice(t, 2, 1, None, 2)),
    ("narrow", lambda t: A.narrow(t, 0, 1, 1)),
    ("diagonal", lambda t: A.diagonal(t, -1, 2, 1)),
    ("transpose", lambda t: A.transpose(t, 0, 2)),
    ("t", lambda t: A.t(A.select(t, 0, 0))),
    ("permute", lambda t: A.permute(t, [2, 0, 1])),
    ("movedim", lambda t: A.movedim(t, [0, 1], [2, 0])),
    ("expand", lambda t: A.expand(A.unsqueeze(t, 1), [2, 5, 3, 4])),
    ("squeeze", lambda t: A.squeeze(A.unsqueeze(t, 0))),
    ("unsqueeze", lambda t: A.unsqueeze(t, -1)),
    ("flatten", lambda t: A.flatten(t, 1)),
    ("unflatten", lambda t: A.unflatten(t, 2, [2, -1])),
    ("unbind", lambda t: A.unbind(t, 2)),
    ("split", lambda t: A.split(t, 3, -1)),
    ("split_with_sizes", lambda t: A.split(t, [1, 2], 1)),
    ("chunk", lambda t: A.chunk(t, 3, 2)),
    ("contiguous", lambda t: A.contiguous(A.t(A.select(t, 0, 0)))),
    ("clone", lambda t: A.clone(A.permute(t, [2, 0, 1]))),
    ("to_copy", lambda t: A._to_copy(A.t(A.select(t, 0, 0)), dtype=framework.int8)),
]


@pytest.mark.parametrize(("name", "op"), META_VIEWS, ids=[m[0] for m in META_VIEWS])
def test_meta_matches_cpu_geometry(name: str, op: Callable[[Tensor], Any]) -> None:
    cpu = op(tensor(sample((2, 3, 4))))
    on_meta = op(meta((2, 3, 4)))
    pieces_cpu = cpu if isinstance(cpu, list) else [cpu]
    pieces_meta = on_meta if isinstance(on_meta, list) else [on_meta]
    assert len(pieces_cpu) == len(pieces_meta)
    for c, m in zip(pieces_cpu, pieces_meta, strict=True):
        assert m.device.type == "meta"
        assert (geometry(m), m.dtype) == (geometry(c), c.dtype)


def test_complex_views_on_meta() -> None:
    c = meta((2, 3), framework.complex128)
    r = A.view_as_real(c)
    assert (r.dtype, geometry(r), r.device.type) == (framework.float64, ((2, 3, 2), (6, 2, 1), 0), "meta")
    assert geometry(A.imag(c)) == ((2, 3), (6, 2), 1)
    assert geometry(A.view_as_complex(r)) == ((2, 3), (3, 1), 0)


def test_views_share_storage_version_counter_and_data_ptr() -> None:
    arr = sample((4, 6))
    x = tensor(arr)
    chain = A.unsqueeze(A.select(A.t(A.slice(x, 1, 2)), 0, 1), 0)
    assert_view(chain, x)
    assert chain.data_ptr() == x.data_ptr() + 3 * arr.itemsize
    A.fill_(chain, -1.0)
    assert (arr[:, 3] == -1.0).all()
    for piece in A.split(x, 2, 1) + A.unbind(x) + A.chunk(x, 3):
        assert piece._impl.version_counter is x._impl.version_counter
    assert A.clone(x)._impl.version_counter is not x._impl.version_counter


def test_in_place_views_change_only_geometry() -> None:
    arr = sample((2, 1, 3))
    x = tensor(arr)
    storage, version = x._impl.storage, x._impl.version_counter
    assert A.squeeze_(x, 1) is x
    assert A.unsqueeze_(x, 0) is x
    assert A.transpose_(x, 1, 2) is x
    assert A.t_(A.squeeze_(x, 0)) is x
    assert geometry(x) == ((2, 3), (3, 1), 0)
    assert (x._impl.storage, x._impl.version_counter) == (storage, version)
    np.testing.assert_array_equal(values(x), arr.reshape(2, 3))


def test_packet_picks_the_overload() -> None:
    x = tensor(sample((2, 3)))
    assert A.squeeze(A.unsqueeze(x, 0), 0).shape == (2, 3)
    assert [p.shape for p in A.split(x, 2, 1)] == [(2, 2), (2, 1)]
    assert [p.shape for p in A.split(x, [1, 2], 1)] == [(2, 1), (2, 2)]
    assert A.movedim(x, 0, 1).shape == (3, 2)
    assert A.movedim(x, [0], [1]).shape == (3, 2)
    assert A.narrow(x, 1, tensor(np.array(1)), 2).shape == (2, 2)
    assert set(A.squeeze.overloads()) == {"default", "dim", "dims"}
    assert set(A.to.overloads()) == {"dtype_layout", "device", "dtype", "other"}


def test_zero_dim_views() -> None:
    s = tensor(np.array(4.5, np.float32))
    for v in (
        A.view(s, []),
        A.reshape(s, []),
        A.expand(s, []),
        A.t(s),
        A.permute(s, []),
        A.squeeze(s),
        A.clone(s),
    ):
        assert geometry(v) == ((), (), 0)
        assert v.item() == 4.5
    assert geometry(A.view(s, [-1])) == ((1,), (1,), 0)
    assert geometry(A.unsqueeze(s, -1)) == ((1,), (1,), 0)


# ---- view and reshape on random layouts ---------------------------------------------------------


@st.composite
def strided_arrays(draw: st.DrawFn) -> Array:
    """Arrays of up to 4 dims, sliced with steps 1 or 2 (step 0: broadcast from size 1), transposed."""
    shape = draw(st.lists(st.integers(0, 4), max_size=4))
    steps = [draw(st.integers(0, 2)) for _ in shape]
    base = sample([s * k if k else 1 for s, k in zip(shape, steps, strict=True)])
    arr = base[tuple(slice(None, None, k or 1) for k in steps)] if shape else base
    arr = np.broadcast_to(arr, shape)
    return arr.transpose(draw(st.permutations(range(len(shape)))))


def regroup(draw: Callable[[st.SearchStrategy[Any]], Any], sizes: Sequence[int]) -> list[int]:
    """A shape with the same number of elements: the sizes' factors, shuffled and regrouped."""
    if 0 in sizes:
        return draw(st.permutations([*sizes, 1]))
    factors = [f for s in sizes for f in _prime_factors(s)]
    shuffled = draw(st.permutations(factors))
    cuts = sorted(draw(st.lists(st.integers(0, len(shuffled)), max_size=3)))
    bounds = [0, *cuts, len(shuffled)]
    return [math.prod(shuffled[a:b]) for a, b in itertools.pairwise(bounds)]


def _prime_factors(n: int) -> list[int]:
    factors: list[int] = []
    p = 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


@given(data=st.data(), arr=strided_arrays())
@settings(max_examples=200, deadline=None)
def test_view_and_reshape_on_random_layouts(data: st.DataObject, arr: Array) -> None:
    x = tensor(arr)
    shape = regroup(data.draw, arr.shape)
    try:
        v = A.view(x, shape)
    except RuntimeError as e:
        assert "view size is not compatible" in str(e)
        v = None
    r = A.reshape(x, shape)
    np.testing.assert_array_equal(values(r), arr.reshape(shape))
    if v is not None:
        assert_view(v, x)
        assert geometry(r) == geometry(v)
        np.testing.assert_array_equal(values(v), arr.reshape(shape))
    else:
        assert_copy(r, x)
    if torch is not None:
        try:
            theirs = mirror(x).view(shape)
        except RuntimeError:
            theirs = None
        assert (v is None) == (theirs is None)
        if v is not None:
            same_as_torch(v, theirs)
