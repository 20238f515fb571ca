"""index_add, index_copy, index_fill, index_reduce, scatter_reduce, masked_scatter, take, put,
the *_scatter operators, take_along_dim, argwhere, fill_diagonal_ and unravel_index: values
against NumPy oracles (element loops for the reductions), variants (in-place, out=, Meta),
PyTorch's error messages, and (when PyTorch is importable) values and dtypes against PyTorch 2.13
over every dtype.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from all_dtypes import ALL_DTYPES

import framework
from framework import Tensor

try:
    import torch
except ImportError:  # pragma: no cover - the oracle is optional
    torch = None

Array = npt.NDArray[Any]
needs_torch = pytest.mark.skipif(torch is None, reason="live comparison with PyTorch")


def t(values: Any, dtype: Any = None) -> Tensor:
    return framework.tensor(values, dtype=dtype)


def long(values: Any) -> Tensor:
    return framework.tensor(values, dtype=framework.int64)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
ROWS = np.array([0, 2, 0])
SOURCE = RNG.standard_normal((3, 3))


# ---- index_add, index_copy, index_fill -------------------------------------------------------------


def test_index_add_accumulates_repeats_scaled_by_alpha() -> None:
    expected = X.copy()
    np.add.at(expected, ROWS, 2.5 * SOURCE)
    result = framework.from_numpy(X).index_add(0, long(ROWS), framework.from_numpy(SOURCE), alpha=2.5)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-15)
    columns = t([[1, 2], [3, 4]], framework.int64).index_add(
        1, long([1, 1]), t([[5, 6], [7, 8]], framework.int64)
    )
    assert columns.tolist() == [[1, 13], [3, 19]]


def test_index_copy_and_index_fill() -> None:
    copied = framework.from_numpy(X).index_copy(0, long([3, 1, 0]), framework.from_numpy(SOURCE))
    expected = X.copy()
    expected[[3, 1, 0]] = SOURCE
    assert np.array_equal(copied.numpy(), expected)
    filled = framework.from_numpy(X).index_fill(1, long([0, -1]), 2.5)
    expected = X.copy()
    expected[:, [0, -1]] = 2.5
    assert np.array_equal(filled.numpy(), expected)
    by_tensor = framework.zeros(2, 3, dtype=framework.int32).index_fill(
        0, long([1]), t(7.9, framework.float64)
    )
    assert by_tensor.tolist() == [[0, 0, 0], [7, 7, 7]] and by_tensor.dtype == framework.int32
    scalar = framework.zeros(()).index_fill(0, long(0), 1.0)
    assert scalar.item() == 1.0


def test_in_place_and_out_variants() -> None:
    x = framework.from_numpy(X.copy())
    returned = x.index_add_(0, long(ROWS), framework.from_numpy(SOURCE))
    assert returned is x and x._version == 1
    out = framework.empty(0, dtype=framework.float64)
    framework.index_copy(framework.from_numpy(X), 0, long([3, 1, 0]), framework.from_numpy(SOURCE), out=out)
    assert out.shape == (4, 3) and np.array_equal(out.numpy()[[3, 1, 0]], SOURCE)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        framework.index_add(
            framework.from_numpy(X), 0, long(ROWS), framework.from_numpy(SOURCE), out=framework.empty(0)
        )
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        framework.zeros(1, 3).expand(4, 3).index_add_(0, long([0]), framework.ones(1, 3))
    with pytest.warns(UserWarning, match="Use of index_fill_ on expanded tensors is deprecated"):
        framework.zeros(1, 3).expand(4, 3).index_fill_(0, long([0]), 1.0)
    assert framework.zeros(3, 4).t().index_fill(0, long([0]), 1.0).stride() == (1, 4)


# ---- index_reduce, scatter_reduce ------------------------------------------------------------------

_REDUCE: dict[str, Callable[[Array], Any]] = {
    "sum": np.sum,
    "prod": np.prod,
    "mean": np.mean,
    "amax": np.max,
    "amin": np.min,
}


def _reduced(self: Array, groups: dict[tuple[int, ...], list[Any]], reduce: str, include_self: bool) -> Array:
    """self with each position in `groups` replaced by the reduction of its values (and self's)."""
    out = self.copy()
    for position, values in groups.items():
        values = [*values, self[position]] if include_self else values
        out[position] = _REDUCE[reduce](np.array(values))
    return out


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_against_loops(reduce: str, include_self: bool) -> None:
    groups: dict[tuple[int, ...], list[Any]] = {}
    for k, row in enumerate(ROWS):
        for j in range(X.shape[1]):
            groups.setdefault((int(row), j), []).append(SOURCE[k, j])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = framework.from_numpy(X).index_reduce(
            0, long(ROWS), framework.from_numpy(SOURCE), reduce, include_self=include_self
        )
    np.testing.assert_allclose(result.numpy(), _reduced(X, groups, reduce, include_self), rtol=1e-14)


SCATTER_INDEX = np.array([[0, 3, 1], [0, 3, 3]])


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_against_loops(reduce: str, include_self: bool) -> None:
    src = SOURCE[:2]
    groups: dict[tuple[int, ...], list[Any]] = {}
    for (i, j), row in np.ndenumerate(SCATTER_INDEX):
        groups.setdefault((int(row), j), []).append(src[i, j])
    result = framework.from_numpy(X).scatter_reduce(
        0, long(SCATTER_INDEX), framework.from_numpy(src), reduce, include_self=include_self
    )
    np.testing.assert_allclose(result.numpy(), _reduced(X, groups, reduce, include_self), rtol=1e-14)


def test_integer_mean_floors() -> None:
    self = t([[1, 1]], framework.int64)
    result = self.scatter_reduce(0, long([[0, 0], [0, 0]]), t([[-4, 2], [0, 2]], framework.int64), "mean")
    assert result.tolist() == [[-1, 1]]


# ---- masked_scatter, take, put ------------------------------------------------------------------------

MASK = np.array([[True, False, True], [False, False, True], [True, True, False], [False, True, True]])


def test_masked_scatter_writes_source_in_order() -> None:
    source = np.arange(10.0)
    result = framework.from_numpy(X).masked_scatter(framework.from_numpy(MASK), framework.from_numpy(source))
    expected = X.copy()
    expected[MASK] = source[: MASK.sum()]
    assert np.array_equal(result.numpy(), expected)
    broadcast = framework.zeros(3, dtype=framework.float64).masked_scatter(
        framework.from_numpy(MASK), framework.from_numpy(source)
    )
    assert broadcast.shape == (4, 3) and np.array_equal(broadcast.numpy()[MASK], source[: MASK.sum()])


def test_take_and_put_see_self_flat() -> None:
    x = framework.from_numpy(X).t()
    flat = X.T.ravel()
    assert np.array_equal(x.take(long([[0, -1], [5, 5]])).numpy(), flat[[[0, -1], [5, 5]]])
    put = x.put(long([0, -1, 0]), t([1.0, 2.0, 3.0], framework.float64))
    expected = flat.copy()
    expected[[-1, 0]] = [2.0, 3.0]
    assert np.array_equal(put.numpy().ravel(), expected)
    added = x.put(long([0, -1, 0]), t([1.0, 2.0, 3.0], framework.float64), accumulate=True)
    expected = flat.copy()
    np.add.at(expected, [0, -1, 0], [1.0, 2.0, 3.0])
    assert np.array_equal(added.numpy().ravel(), expected)
    target = framework.zeros(2, 3).t()
    target.put_(long([1]), t([5.0]))
    assert target.tolist() == [[0.0, 5.0], [0.0, 0.0], [0.0, 0.0]]


# ---- *_scatter, take_along_dim, argwhere, fill_diagonal_, unravel_index -------------------------------


def _scattered(view: Callable[[Array], Array], src: Array) -> Array:
    out = X.copy()
    view(out)[...] = src
    return out


@pytest.mark.parametrize(
    ("call", "view", "src"),
    [
        (lambda x, s: framework.select_scatter(x, s, 0, -1), lambda a: a[-1], np.ones(3)),
        (lambda x, s: x.slice_scatter(s, 0, 1, None, 2), lambda a: a[1::2], np.ones((2, 3))),
        (lambda x, s: framework.diagonal_scatter(x, s, -1), lambda a: np.einsum("ii->i", a[1:]), np.ones(3)),
        (
            lambda x, s: framework.as_strided_scatter(x, s, [2, 2], [3, 1], 1),
            lambda a: np.lib.stride_tricks.as_strided(a.ravel()[1:], (2, 2), (24, 8)),
            np.ones((2, 2)),
        ),
    ],
)
def test_view_scatters(call: Any, view: Any, src: Array) -> None:
    x = framework.from_numpy(X)
    result = call(x, framework.from_numpy(src))
    assert np.array_equal(result.numpy(), _scattered(view, src))
    assert np.array_equal(x.numpy(), X)


def test_take_along_dim() -> None:
    x = framework.from_numpy(X)
    indices = np.array([[0], [7], [-1], [2]])
    expected = np.take_along_axis(X, indices % 3, axis=1)
    assert np.array_equal(x.take_along_dim(long(indices), 1).numpy(), expected)
    broadcast = framework.take_along_dim(x, long([[2, 0, 1]]), 0)
    assert np.array_equal(broadcast.numpy(), np.take_along_axis(X, np.array([[2, 0, 1]]), 0))
    assert np.array_equal(framework.take_along_dim(x, long([11, 0])).numpy(), X.ravel()[[11, 0]])


def test_argwhere_and_unravel_index() -> None:
    assert np.array_equal(framework.argwhere(framework.from_numpy(MASK)).numpy(), np.argwhere(MASK))
    assert framework.argwhere(t(1.0)).shape == (1, 0)
    flat = np.array([[5, 7], [0, 23]])
    rows, cols, depth = framework.unravel_index(long(flat), (2, 3, 4))
    for ours, theirs in zip((rows, cols, depth), np.unravel_index(flat, (2, 3, 4)), strict=True):
        assert ours.dtype == framework.int64 and np.array_equal(ours.numpy(), theirs)
    assert [c.item() for c in framework.unravel_index(t(5, framework.int32), 4)] == [1]


@pytest.mark.parametrize(
    ("shape", "wrap"), [((7, 3), True), ((7, 3), False), ((3, 5), True), ((3, 3, 3), False)]
)
def test_fill_diagonal(shape: tuple[int, ...], wrap: bool) -> None:
    expected = np.zeros(shape)
    np.fill_diagonal(expected, 5.0, wrap=wrap)
    result = framework.zeros(*shape).fill_diagonal_(5.0, wrap=wrap)
    assert np.array_equal(result.numpy(), expected)


def test_grad_fn_of_composite_operators() -> None:
    x = framework.from_numpy(X).requires_grad_()
    assert x.take_along_dim(long([[0, 1, 2]]), 0).grad_fn.name() == "GatherBackward0"
    assert x.clone().fill_diagonal_(1.0).grad_fn.name() == "torch::autograd::CopySlices"
    assert not framework.argwhere(x).requires_grad


def test_meta_tensors_give_shapes() -> None:
    x = framework.empty(4, 3, device="meta")
    source = framework.empty(3, 3, device="meta")
    assert x.index_add(0, long(ROWS).to("meta"), source).shape == (4, 3)
    assert x.scatter_reduce(0, long(SCATTER_INDEX).to("meta"), source[:2], "amax").device.type == "meta"
    assert x.take(long([[0, 1]])).shape == (1, 2)
    assert (
        x.masked_scatter(
            framework.ones(4, 3, dtype=framework.bool), framework.empty(12, device="meta")
        ).device.type
        == "meta"
    )
    assert framework.select_scatter(x, framework.empty(3, device="meta"), 0, 0).shape == (4, 3)


# ---- errors ------------------------------------------------------------------------------------------

Z = framework.zeros(3, 4)
I2 = long([0, 2])
ONES = framework.ones(2, 4)

ERRORS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (
        lambda: Z.index_add(0, long([[0], [1]]), ONES),
        IndexError,
        "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [2, 1]",
    ),
    (
        lambda: Z.index_add(0, I2.float(), ONES),
        RuntimeError,
        "index_add_(): Expected dtype int32/int64 for index but got: Float",
    ),
    (
        lambda: Z.index_add(0, I2, ONES.double()),
        RuntimeError,
        "index_add_(): self (Float) and source (Double) must have the same scalar type",
    ),
    (
        lambda: Z.index_add(0, I2, framework.ones(3, 4)),
        RuntimeError,
        "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0",
    ),
    (
        lambda: Z.index_add(0, I2, framework.ones(2, 5)),
        RuntimeError,
        "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
        "self.shape = [3, 4] source.shape = [2, 5]",
    ),
    (
        lambda: Z.index_add(0, long([0, -1]), ONES),
        RuntimeError,
        "index -1 is out of bounds for dimension 0 with size 3",
    ),
    (
        lambda: framework.zeros(3).index_add(0, long([3]), framework.ones(1)),
        IndexError,
        "index out of range in self",
    ),
    (
        lambda: Z.index_copy(0, I2, ONES.double()),
        RuntimeError,
        "index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) "
        "Double",
    ),
    (
        lambda: Z.index_copy(0, I2.int(), ONES),
        RuntimeError,
        "index_copy_(): Expected a long tensor for index, but got Int",
    ),
    (
        lambda: framework.zeros(2, 3, 4).index_copy(1, long([0]), framework.ones(2, 1, 5)),
        RuntimeError,
        "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 2 4 "
        "at dimension 1 and source slice shape: 2 5 at dimension 0.",
    ),
    (
        lambda: Z.index_copy(0, long([0, 3]), ONES),
        IndexError,
        "index_copy_(): index 3 is out of bounds for dimension 0 with size 3",
    ),
    (
        lambda: Z.index_copy(0, I2, framework.ones(3, 4)),
        IndexError,
        "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)",
    ),
    (
        lambda: Z.index_copy(0, I2, t(1.0)),
        IndexError,
        "index_copy_(): When source is scalar, index should have one element (got 2)",
    ),
    (
        lambda: Z.index_fill(0, long([0, 3]), 1),
        IndexError,
        "index 3 is out of bounds for dimension 0 with size 3",
    ),
    (lambda: Z.index_fill(0, I2.int(), 1), IndexError, "index_fill_(): Expected dtype int64 for index."),
    (
        lambda: Z.index_fill(0, I2, framework.ones(2)),
        RuntimeError,
        "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).",
    ),
    (lambda: Z.index_fill(0, long([[0]]), 1), RuntimeError, "Index has to be a vector/scalar"),
    (
        lambda: Z.index_fill(0, I2, 1j),
        RuntimeError,
        "index_fill_(): Converting complex Scalar to non-complex type is not supported",
    ),
    (
        lambda: Z.to(framework.uint8).index_fill(0, I2, 300),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    (
        lambda: Z.index_reduce(0, I2, ONES, "sum"),
        RuntimeError,
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.",
    ),
    (lambda: Z.index_reduce(0, long([0, 3]), ONES, "prod"), IndexError, "index out of range in self"),
    (
        lambda: Z.to(framework.complex64).index_reduce(0, I2, ONES.to(framework.complex64), "amax"),
        NotImplementedError,
        "\"maximum_cpu\" not implemented for 'ComplexFloat'",
    ),
    (
        lambda: Z.bool().index_reduce(0, I2, ONES.bool(), "prod", include_self=False),
        NotImplementedError,
        "\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'",
    ),
    (
        lambda: Z.scatter_reduce(0, long([[0]]), ONES, "add"),
        RuntimeError,
        "reduce argument must be either sum, prod, mean, amax or amin, got add",
    ),
    (
        lambda: Z.scatter_reduce(0, long([[0]]), ONES.double(), "sum"),
        RuntimeError,
        "scatter(): Expected self.dtype to be equal to src.dtype",
    ),
    (
        lambda: Z.scatter_reduce(0, long([[3]]), ONES, "sum"),
        RuntimeError,
        "index 3 is out of bounds for dimension 0 with size 3",
    ),
    (
        lambda: Z.to(framework.complex64).scatter_reduce(
            0, long([[0]]), ONES.to(framework.complex64), "amin"
        ),
        NotImplementedError,
        "\"scatter_gather_tensor_cpu_reduce_amin\" not implemented for 'ComplexFloat'",
    ),
    (
        lambda: Z.masked_scatter(Z > 0, framework.ones(12).double()),
        RuntimeError,
        "masked_scatter: expected self and source to have same dtypes but gotFloat and Double",
    ),
    (
        lambda: Z.masked_scatter(Z == 0, framework.ones(5)),
        RuntimeError,
        "Number of elements of source < number of ones in mask",
    ),
    (
        lambda: Z.masked_scatter((Z == 0).long(), framework.ones(12)),
        RuntimeError,
        "masked_scatter_ only supports boolean masks, but got mask with dtype Long",
    ),
    (
        lambda: framework.zeros(4).masked_scatter_(
            framework.ones(3, 4, dtype=framework.bool), framework.ones(12)
        ),
        RuntimeError,
        "the number of sizes provided (1) must be greater or equal to the number of dimensions in the "
        "tensor (2)",
    ),
    (
        lambda: Z.take(long([12])),
        IndexError,
        "out of range: tried to access index 12 on a tensor of 12 elements.",
    ),
    (
        lambda: Z.take(long([-13])),
        IndexError,
        "out of range: tried to access index -13 on a tensor of 12 elements.",
    ),
    (lambda: Z.take(long([1]).int()), RuntimeError, "take(): Expected a long tensor for index, but got Int"),
    (lambda: framework.zeros(0).take(long([0])), IndexError, "take(): tried to take from an empty tensor"),
    (
        lambda: framework.take(Z, long([1]), out=framework.empty(0, dtype=framework.float64)),
        RuntimeError,
        "take(): self and out expected to have the same dtype, but got self.dtype = Float and out.dtype = "
        "Double",
    ),
    (
        lambda: Z.put(long([1, 2]), framework.ones(3)),
        IndexError,
        "put_(): Expected source and index to have the same number of elements, but got source.numel() = 3, "
        "index.numel() = 2",
    ),
    (
        lambda: Z.put(long([1, 2]), framework.ones(2).double()),
        RuntimeError,
        "put_(): self and source expected to have the same dtype, but got self.dtype = Float and "
        "source.dtype = Double",
    ),
    (
        lambda: Z.put(long([1, 12]), framework.ones(2)),
        IndexError,
        "out of range: tried to access index 12 on a tensor of 12 elements.",
    ),
    (
        lambda: framework.zeros(0).put_(long([0]), framework.ones(1)),
        IndexError,
        "put_(): Tried to put elements into an empty tensor",
    ),
    (
        lambda: Z.take_along_dim(long([0]), 0),
        RuntimeError,
        "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 "
        "dimensions for input, and 1 dimensions for indices",
    ),
    (
        lambda: Z.take_along_dim(long([[0]]).int(), 0),
        RuntimeError,
        "torch.take_along_dim(): dtype of indices should be Long but got Int",
    ),
    (
        lambda: Z.take_along_dim(long([13])),
        RuntimeError,
        "index 13 is out of bounds for dimension 0 with size 12",
    ),
    (
        lambda: framework.select_scatter(Z, framework.ones(3), 0, 0),
        RuntimeError,
        "expected src to have a size equal to the slice of self. src size = [3], slice size = [4]",
    ),
    (
        lambda: framework.slice_scatter(Z, framework.ones(3, 4), 0, 0, 2),
        RuntimeError,
        "expected src to have a size equal to the slice of self. src size = [3, 4], slice size = [2, 4]",
    ),
    (
        lambda: framework.select_scatter(Z, framework.ones(4), 0, 5),
        IndexError,
        "select(): index 5 out of range for tensor of size [3, 4] at dimension 0",
    ),
    (lambda: framework.zeros(3).fill_diagonal_(1), RuntimeError, "dimensions must larger than 1"),
    (
        lambda: framework.zeros(3, 3, 4).fill_diagonal_(1),
        RuntimeError,
        "all dimensions of input must be of equal length",
    ),
    (lambda: framework.unravel_index(t([1.0]), (2,)), TypeError, "expected 'indices' to be integer dtype"),
    (
        lambda: framework.unravel_index(long([1]), (2, 1.0)),
        TypeError,
        "expected 'shape' sequence to only contain ints, but got <class 'float'>",
    ),
    (
        lambda: framework.unravel_index(long([1]), (2, -1)),
        ValueError,
        "'shape' cannot have negative values, but got (2, -1)",
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), ERRORS)
def test_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


# ---- against PyTorch, every dtype -------------------------------------------------------------------


def _calls(lib: Any, x: Any, d: Any) -> list[Any]:
    """One call of each operator on `x` (4x3) and dtype `d`, through `lib`."""
    index, rows = lib.tensor([[0, 3, 1], [0, 3, 3]]), lib.tensor([0, 2, 0])
    src = (x[:3] * 2).to(d)
    mask = lib.tensor(MASK)
    return [
        lambda: x.index_add(0, rows, src),
        lambda: x.index_copy(0, lib.tensor([3, 1, 0]), src),
        lambda: x.index_fill(1, lib.tensor([0, -1]), 1),
        lambda: x.index_reduce(0, rows, src, "prod"),
        lambda: x.index_reduce(0, rows, src, "amin"),
        lambda: x.scatter_reduce(0, index, src, "sum", include_self=False),
        lambda: x.scatter_reduce(0, index, src, "mean"),
        lambda: x.scatter_reduce(0, index, src, "amax"),
        lambda: x.masked_scatter(mask, src),
        lambda: x.take(lib.tensor([[0, -1], [5, 5]])),
        lambda: x.put(lib.tensor([0, -1, 0]), src[0], accumulate=True),
        lambda: x.take_along_dim(lib.tensor([[0], [7], [-1], [2]]), 1),
        lambda: lib.diagonal_scatter(x, src[0], -1),
        lambda: lib.argwhere(x),
    ]


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call()
    except Exception as e:  # the outcome is compared
        return type(e).__name__, str(e).splitlines()[0]
    return result.numpy(), str(result.dtype).split(".")[-1]


@needs_torch
@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_against_torch(d: Any) -> None:
    values = (RNG.standard_normal((4, 3)) * 3).astype(d.numpy_dtype)
    ours = [_outcome(c) for c in _calls(framework, framework.from_numpy(values.copy()), d)]
    theirs = [_outcome(c) for c in _calls(torch, torch.from_numpy(values.copy()), getattr(torch, d.name))]
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert isinstance(a[0], str) == isinstance(b[0], str), (k, a, b)
        if isinstance(a[0], str):
            assert a == b, k
        else:
            assert a[1] == b[1], k
            np.testing.assert_allclose(a[0], b[0], rtol=1e-6, err_msg=str(k))
