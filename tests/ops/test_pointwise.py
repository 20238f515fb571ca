"""Pointwise operators against NumPy (always) and PyTorch (live, when installed): dtypes,
broadcast shapes, non-contiguous inputs, zero-size and zero-dim tensors, out= and in-place."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import framework

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")

FLOAT_DTYPES = ["float32", "float64"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]

# name -> NumPy reference computed in the promoted dtype
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "eq": np.equal,
    "lt": np.less,
    "ge": np.greater_equal,
}
UNARY_FLOAT: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp,
    "log1p": np.log1p,
    "sin": np.sin,
    "tanh": np.tanh,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "neg": np.negative,
    "floor": np.floor,
    "sign": np.sign,
}


def _array(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return rng.uniform(0.1, 5.0, shape).astype(dtype)
    return rng.integers(1, 50, shape).astype(dtype)


def _noncontiguous(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The same values in a strided layout (every other element of a doubled buffer)."""
    wide = np.zeros((*a.shape[:-1], a.shape[-1] * 2), a.dtype) if a.ndim else a.copy()
    if a.ndim:
        wide[..., ::2] = a
        return wide[..., ::2]
    return wide


broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4)


@settings(max_examples=60, deadline=None)
@given(
    shapes=broadcast_pairs,
    op=st.sampled_from(sorted(BINARY)),
    dtype=st.sampled_from(FLOAT_DTYPES + INT_DTYPES),
)
def test_binary_ops_broadcast_against_numpy(shapes: Any, op: str, dtype: str) -> None:
    a = _array(dtype, shapes.input_shapes[0], 1)
    b = _array(dtype, shapes.input_shapes[1], 2)
    got = getattr(framework, op)(framework.from_numpy(_noncontiguous(a)), framework.from_numpy(b))
    expected = BINARY[op](a, b)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize("op", sorted(UNARY_FLOAT))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unary_float_ops_against_numpy(op: str, dtype: str) -> None:
    a = _array(dtype, (3, 4), 3)
    got = getattr(framework, op)(framework.from_numpy(a.T))
    np.testing.assert_allclose(got.numpy(), UNARY_FLOAT[op](a.T), rtol=1e-6 if dtype == "float32" else 1e-14)
    assert got.dtype.numpy_dtype == np.dtype(dtype)


def test_integer_inputs_of_float_ops_promote_to_default_dtype() -> None:
    x = framework.tensor([1, 4, 9])
    assert framework.sqrt(x).dtype is framework.float32
    np.testing.assert_array_equal(framework.sqrt(x).numpy(), [1, 2, 3])
    assert (framework.tensor([1, 2]) / 2).dtype is framework.float32
    assert framework.abs(framework.tensor([-1, 2], dtype=framework.int16)).dtype is framework.int16


def test_zero_size_and_zero_dim() -> None:
    e = framework.empty(0, 3)
    assert (e + 1).shape == (0, 3)
    assert framework.exp(e).shape == (0, 3)
    s = framework.tensor(2.0)
    assert (s * s).shape == () and (s * s).item() == 4.0
    assert (framework.ones(2, 3) + s).shape == (2, 3)


def test_div_rounding_modes() -> None:
    a = framework.tensor([-7, 7, -8])
    b = framework.tensor([2, 2, 3])
    np.testing.assert_array_equal(framework.div(a, b).numpy(), np.array([-3.5, 3.5, -8 / 3], np.float32))
    np.testing.assert_array_equal(framework.div(a, b, rounding_mode="trunc").numpy(), [-3, 3, -2])
    np.testing.assert_array_equal(framework.div(a, b, rounding_mode="floor").numpy(), [-4, 3, -3])
    with pytest.raises(
        RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor'"
    ):
        framework.div(a, b, rounding_mode="round")


def test_clamp_lerp_addcmul_addcdiv() -> None:
    x = framework.tensor([1.0, 5.0, 9.0, float("nan")])
    got = framework.clamp(x, 2, 6).numpy()
    np.testing.assert_array_equal(got[:3], [2, 5, 6])
    assert np.isnan(got[3])
    assert framework.clamp(framework.tensor([1, 5, 9]), 2, 6.5).dtype is framework.float32
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        framework.clamp(x)
    np.testing.assert_array_equal(
        framework.lerp(framework.tensor([1.0, 2.0]), framework.tensor([3.0, 4.0]), 0.25).numpy(), [1.5, 2.5]
    )
    one = framework.tensor([1.0, 2.0])
    np.testing.assert_array_equal(framework.addcmul(one, one, one, value=2).numpy(), [3, 10])
    np.testing.assert_array_equal(framework.addcdiv(one, one, one, value=0.5).numpy(), [1.5, 2.5])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        framework.addcdiv(framework.tensor([1]), framework.tensor([1]), framework.tensor([1]))


def test_comparisons_logical_bitwise() -> None:
    a = framework.tensor([1, 2, 3])
    assert (a > 1).dtype is framework.bool
    np.testing.assert_array_equal((a & 1).numpy(), [1, 0, 1])
    np.testing.assert_array_equal((a | 4).numpy(), [5, 6, 7])
    np.testing.assert_array_equal((~framework.tensor([True, False])).numpy(), [False, True])
    np.testing.assert_array_equal(framework.logical_xor(a > 1, a > 2).numpy(), [False, True, False])
    np.testing.assert_array_equal(
        framework.isnan(framework.tensor([1.0, float("nan")])).numpy(), [False, True]
    )


@needs_torch
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "remainder", "fmod", "pow", "atan2"])
@pytest.mark.parametrize(
    ("da", "db"), [("float32", "float32"), ("int32", "float64"), ("int64", "int8"), ("float16", "float16")]
)
def test_binary_ops_match_torch(op: str, da: str, db: str) -> None:
    import torch

    a = _array(da, (3, 4), 5)
    b = _array(db, (4,), 6)
    if op in ("pow",) and not (da.startswith("float") or db.startswith("float")):
        b = np.abs(b) % 4
    ours = getattr(framework, op)(framework.from_numpy(a), framework.from_numpy(b))
    theirs = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b))
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-3 if "float16" in (da, db) else 1e-6)


@needs_torch
@pytest.mark.parametrize(
    "op", [*sorted(UNARY_FLOAT), "sigmoid", "rsqrt", "reciprocal", "expm1", "round", "trunc"]
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_unary_ops_match_torch(op: str, dtype: str) -> None:
    import torch

    a = _array(dtype, (5, 3), 7)
    ours = getattr(framework, op)(framework.from_numpy(a))
    theirs = getattr(torch, op)(torch.from_numpy(a))
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
