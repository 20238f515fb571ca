"""Tensor.__getitem__ / __setitem__ against NumPy's indexing (PyTorch's semantics agree with
NumPy's on the cases compared here), views vs copies, and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import framework

BASE = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

GET_CASES: list[Any] = [
    0,
    -1,
    (1, 2),
    (1, 2, 3),
    slice(None, None, 2),
    (slice(1, None), slice(None, 3)),
    (Ellipsis, 1),
    (None, 0),
    (0, None, slice(None), None),
    (slice(None), None, 1),
    [0, 2],
    ([0, 2], [1, 3]),
    (slice(None), [0, 3]),
    (slice(None), [0, 3], 1),
    (0, [0, 1], [2, 4]),
    ([[0, 1], [2, 0]],),
    ([0, 1], slice(None), [1, 2]),
    (Ellipsis,),
    (),
]


@pytest.mark.parametrize("index", GET_CASES, ids=repr)
def test_getitem_matches_numpy(index: Any) -> None:
    x = framework.from_numpy(BASE.copy())
    np_index = (
        tuple(np.array(i) if isinstance(i, list) else i for i in index)
        if isinstance(index, tuple)
        else (np.array(index) if isinstance(index, list) else index)
    )
    expected = BASE[np_index]
    got = x[index]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_boolean_mask_and_tensor_indices() -> None:
    x = framework.from_numpy(BASE.copy())
    mask = BASE > 40
    np.testing.assert_array_equal(x[x > 40].numpy(), BASE[mask])
    np.testing.assert_array_equal(x[0][framework.from_numpy(mask[0])].numpy(), BASE[0][mask[0]])
    idx = framework.tensor([2, 0])
    np.testing.assert_array_equal(x[idx].numpy(), BASE[[2, 0]])
    np.testing.assert_array_equal(x[:, idx.to(framework.int32)].numpy(), BASE[:, [2, 0]])


def test_ints_are_basic_indices_unlike_numpy() -> None:
    # PyTorch applies an int as `select` before the advanced indices; NumPy treats it as one of
    # them, so x[1, :, [4, 0, 0]] is (4, 3) here and (3, 4) in NumPy.
    x = framework.from_numpy(BASE.copy())
    got = x[1, :, [4, 0, 0]]
    assert got.shape == (4, 3)
    np.testing.assert_array_equal(got.numpy(), BASE[1][:, [4, 0, 0]])


def test_basic_indexing_returns_views() -> None:
    x = framework.from_numpy(BASE.copy())
    v = x[1, :, ::2]
    assert v._impl.storage is x._impl.storage
    assert v._impl.version_counter is x._impl.version_counter
    v.fill_(-1.0)
    assert (x.numpy()[1, :, ::2] == -1).all()
    advanced = x[[0, 1]]
    assert advanced._impl.storage is not x._impl.storage


def test_setitem_matches_numpy() -> None:
    cases: list[tuple[Any, Any]] = [
        (0, 7.0),
        ((slice(None), 1), np.arange(5, dtype=np.float32)),
        ((Ellipsis, 0), -3.0),
        ([0, 2], 9.0),
        ((slice(None), [1, 3], 2), np.array([1.0, 2.0], np.float32)),
        (BASE > 50, 0.0),
    ]
    for index, value in cases:
        expected = BASE.copy()
        expected[index] = value
        x = framework.from_numpy(BASE.copy())
        framework_index = framework.from_numpy(index) if isinstance(index, np.ndarray) else index
        x[framework_index] = framework.from_numpy(value) if isinstance(value, np.ndarray) else value
        np.testing.assert_array_equal(x.numpy(), expected, err_msg=repr(index))


def test_indexing_errors() -> None:
    x = framework.from_numpy(BASE.copy())
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        x[0, 0, 0][0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[framework.tensor([0.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        x["a"]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
