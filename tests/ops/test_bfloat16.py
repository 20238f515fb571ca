"""bfloat16, the dtype NumPy lacks: elements are ml_dtypes' bfloat16, arithmetic runs in float32 and
rounds once (PyTorch's CPU "opmath"), promotion, RNG streams, printing and the NumPy boundary are
PyTorch's.  The oracle for values is "compute in float32, round to bfloat16" (ml_dtypes rounds to
nearest even, as c10::BFloat16); PyTorch itself is compared live where installed.  Which operators
accept bfloat16 at all is checked for every overload by tests/ops/test_dtype_support.py."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import framework
from framework import bfloat16

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch (oracle) not installed")

BF16 = np.dtype(ml_dtypes.bfloat16)


def values(
    shape: tuple[int, ...], seed: int = 0, low: float = -3.0, high: float = 3.0
) -> np.ndarray[Any, Any]:
    """float32 values that bfloat16 holds exactly (so both libraries start from the same elements)."""
    raw = np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)
    return raw.astype(BF16).astype(np.float32)


def bf(a: np.ndarray[Any, Any]) -> framework.Tensor:
    return framework.tensor(a).to(bfloat16)


def rounded(a: Any) -> np.ndarray[Any, Any]:
    """float32 values rounded to bfloat16 and back: what a bfloat16 result holds."""
    return np.asarray(a, dtype=np.float32).astype(BF16).astype(np.float32)


def floats(t: framework.Tensor) -> np.ndarray[Any, Any]:
    return t.float().numpy()


def test_dtype_properties() -> None:
    assert bfloat16.is_floating_point and not bfloat16.is_complex and bfloat16.is_signed
    assert bfloat16.itemsize == 2 and bfloat16.scalar_type_name == "BFloat16"
    assert framework.bfloat16 is framework.BFloat16Tensor.dtype
    assert str(bfloat16) == "framework.bfloat16"
    info = framework.finfo(bfloat16)
    assert (info.bits, info.eps, info.resolution) == (16, 0.0078125, 0.01)
    assert info.max == float(ml_dtypes.finfo(BF16).max) and info.tiny == 2.0**-126
    assert framework.promote_types(bfloat16, framework.float16) is framework.float32
    assert framework.promote_types(bfloat16, framework.int64) is bfloat16
    assert framework.promote_types(bfloat16, framework.complex64) is framework.complex64
    assert (framework.ones(2, dtype=bfloat16) + 1.5).dtype is bfloat16  # a Python float keeps the dtype


UNARY: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "reciprocal": np.reciprocal,
    "abs": np.abs,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_compute_in_float32_and_round_once(name: str) -> None:
    x = values((64,), low=0.1, high=4.0)
    result = getattr(framework, name)(bf(x))
    assert result.dtype is bfloat16
    np.testing.assert_allclose(floats(result), rounded(UNARY[name](x)), rtol=0, atol=0)


@pytest.mark.parametrize(
    ("name", "fn"),
    [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)],
)
def test_binary_ops_compute_in_float32_and_round_once(name: str, fn: Callable[[Any, Any], Any]) -> None:
    a, b = values((5, 7), seed=1), values((7,), seed=2, low=0.5, high=2.0)
    result = getattr(framework, name)(bf(a), bf(b))
    assert result.dtype is bfloat16 and result.shape == (5, 7)
    np.testing.assert_array_equal(floats(result), rounded(fn(a, b)))
    scaled = framework.add(bf(a), bf(b), alpha=3)  # a + 3b in float32, one rounding
    np.testing.assert_array_equal(floats(scaled), rounded(a + np.float32(3) * b))


def test_mixed_dtypes_promote() -> None:
    a = values((4,))
    assert (bf(a) + framework.tensor(a)).dtype is framework.float32
    assert (bf(a) + framework.tensor(a).half()).dtype is framework.float32
    assert (bf(a) + framework.arange(4)).dtype is bfloat16
    assert (bf(a) * 2).dtype is bfloat16


def test_reductions_and_matmul_accumulate_in_float32() -> None:
    a, b = values((6, 8), seed=3), values((8, 5), seed=4)
    np.testing.assert_array_equal(floats(bf(a).sum(dim=1)), rounded(a.sum(axis=1, dtype=np.float32)))
    assert bf(a).mean().dtype is bfloat16
    np.testing.assert_array_equal(floats(bf(a) @ bf(b)), rounded(a @ b))


def test_conversions_round_to_nearest_even() -> None:
    x = np.array([1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 3.0e38, -1e-40, 7.0], dtype=np.float64)
    converted = framework.tensor(x).to(bfloat16)
    # 1 + 2^-8 is a tie (rounds to even 1.0), 1 + 3*2^-8 rounds up; float64 goes through float32.
    np.testing.assert_array_equal(floats(converted), rounded(x.astype(np.float32)))
    assert framework.tensor([1, 2, 300], dtype=bfloat16).tolist() == [1.0, 2.0, 300.0]
    assert framework.tensor(257, dtype=bfloat16).item() == 256.0  # 8 significant bits


def test_random_streams_match_pytorch_for_the_same_seed() -> None:
    # Recorded from PyTorch 2.13: torch.manual_seed(0); torch.rand(6, dtype=torch.bfloat16), ...
    framework.manual_seed(0)
    assert framework.rand(6, dtype=bfloat16).tolist() == [
        0.49609375, 0.76953125, 0.08837890625, 0.1318359375, 0.306640625, 0.6328125,
    ]  # fmt: skip
    framework.manual_seed(0)
    assert framework.randn(20, dtype=bfloat16).tolist()[:6] == [
        -1.125, -1.15625, -0.25, -0.43359375, -1.3515625, -1.6953125,
    ]  # fmt: skip
    framework.manual_seed(0)
    assert framework.randint(0, 100, (6,), dtype=bfloat16).tolist() == [44.0, 39.0, 33.0, 60.0, 63.0, 79.0]


def test_printing_matches_pytorch() -> None:
    t = framework.tensor([[1.1, 2.5, -3.7], [1e-3, 300.0, 0.0]]).bfloat16()
    assert repr(t) == (
        "tensor([[ 1.1016e+00,  2.5000e+00, -3.7031e+00],\n"
        "        [ 9.9945e-04,  3.0000e+02,  0.0000e+00]], dtype=framework.bfloat16)"
    )
    assert repr(framework.ones(3, dtype=bfloat16)) == "tensor([1., 1., 1.], dtype=framework.bfloat16)"


def test_numpy_boundary_is_pytorchs() -> None:
    t = framework.ones(2, dtype=bfloat16)
    for convert in (t.numpy, lambda: np.asarray(t), lambda: t.numpy(force=True)):
        with pytest.raises(TypeError, match=r"^Got unsupported ScalarType BFloat16$"):
            convert()
    with pytest.raises(TypeError, match=r"can't convert np\.ndarray of type ml_dtypes\.bfloat16"):
        framework.from_numpy(np.zeros(2, BF16))
    np.testing.assert_array_equal(t.float().numpy(), [1.0, 1.0])


def test_modules_and_autograd() -> None:
    framework.manual_seed(0)
    layer = framework.nn.Linear(4, 3).bfloat16()
    assert {p.dtype for p in layer.parameters()} == {bfloat16}
    x = framework.tensor(values((2, 4)), dtype=bfloat16, requires_grad=True)
    loss = layer(x).square().sum()
    loss.backward()
    assert x.grad is not None and x.grad.dtype is bfloat16 and layer.weight.grad is not None
    assert layer.weight.grad.dtype is bfloat16


@needs_torch
def test_against_torch() -> None:
    import torch

    a, b = values((4, 6), seed=5), values((6, 3), seed=6, low=0.5, high=2.0)
    pairs = [(bf(a), torch.tensor(a).bfloat16()), (bf(b), torch.tensor(b).bfloat16())]
    (fa, ta), (fb, tb) = pairs
    for ours, theirs in [
        (fa @ fb, ta @ tb),
        (fa.softmax(-1), ta.softmax(-1)),
        (framework.nn.functional.gelu(fa), torch.nn.functional.gelu(ta)),
        (fa.cumsum(0), ta.cumsum(0)),
        (fa.var(1), ta.var(1)),
        (fa / 3, ta / 3),
    ]:
        assert ours.dtype is bfloat16 and theirs.dtype == torch.bfloat16
        np.testing.assert_array_equal(floats(ours), theirs.float().numpy())
