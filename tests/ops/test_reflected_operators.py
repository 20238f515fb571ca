"""Reflected operators (`2 - t`, `2 / t`, `2 ** t`, ...) as PyTorch's Tensor defines them: the
function each calls, so the numbers, the graph nodes and the errors are PyTorch's."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import framework
from framework import Tensor

HAS_TORCH = importlib.util.find_spec("torch") is not None


def _leaf(values: list[float]) -> Tensor:
    return framework.tensor(values, dtype=framework.float64, requires_grad=True)


@pytest.mark.parametrize(
    ("expression", "node", "expected"),
    [
        ("2 - x", "RsubBackward1", [-1.0, -5.0, -9.0]),
        ("2 ** x", "PowBackward2", [8.0, 128.0, 2048.0]),
        ("2 // x", "torch::autograd::NotImplemented", [0.0, 0.0, 0.0]),
        ("2 % x", "torch::autograd::NotImplemented", [2.0, 2.0, 2.0]),
        ("2 / x", "MulBackward0", [2 / 3, 2 / 7, 2 / 11]),
    ],
)
def test_reflected_operator_values_and_nodes(expression: str, node: str, expected: list[float]) -> None:
    # PyTorch 2.13: 2 - x is rsub (RsubBackward1), 2 ** x is pow.Scalar (PowBackward2), 2 // x and
    # 2 % x have no derivative, 2 / x is x.reciprocal() * 2 (MulBackward0).
    x = _leaf([3.0, 7.0, 11.0])
    result = eval(expression, {"x": x})
    assert result.grad_fn.name() == node
    np.testing.assert_allclose(result.detach().numpy(), expected, rtol=1e-15)


def test_rtruediv_is_reciprocal_times_number() -> None:
    """`3 / x` rounds as `x.reciprocal() * 3` (PyTorch's numbers), not as a true division."""
    a = np.random.default_rng(0).uniform(0.1, 10.0, 10_000).astype(np.float32)
    result = (3 / framework.from_numpy(a)).numpy()
    expected = (np.float32(1) / a) * np.float32(3)
    np.testing.assert_array_equal(result, expected)
    assert (result != np.float32(3) / a).any()  # the two roundings differ somewhere
    x = _leaf([2.0, 4.0])
    (3 / x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-3 / 4, -3 / 16], rtol=1e-15)
    assert (3 / x).grad_fn.next_functions[0][0].name() == "ReciprocalBackward0"


def test_rsub_function() -> None:
    x, y = _leaf([1.0, 2.0]), _leaf([10.0, 20.0])
    result = framework.rsub(x, y, alpha=2)
    assert result.grad_fn.name() == "RsubBackward0"
    np.testing.assert_array_equal(result.detach().numpy(), [8.0, 16.0])
    result.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-2.0, -2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])
    scalar = framework.rsub(x, 5, 3)
    assert scalar.grad_fn.name() == "RsubBackward1"
    np.testing.assert_array_equal(scalar.detach().numpy(), [2.0, -1.0])
    assert (5 - framework.tensor([1, 2])).dtype == framework.int64
    assert (2.5 - framework.tensor([1, 2])).dtype == framework.float32
    with pytest.raises(
        RuntimeError, match="with a bool tensor is not supported"
    ):
        1 - framework.tensor([True])
    assert not hasattr(framework.Tensor, "rsub")  # function only, as in PyTorch


def test_pow_number_base() -> None:
    e = _leaf([0.5, 1.0, 2.0])
    result = framework.pow(0.0, e)
    np.testing.assert_array_equal(result.detach().numpy(), [0.0, 0.0, 0.0])
    (grad,) = framework.autograd.grad(result.sum(), e, create_graph=True)
    np.testing.assert_array_equal(grad.detach().numpy(), [0.0, 0.0, 0.0])
    (double,) = framework.autograd.grad(grad.sum(), e)
    assert np.isnan(double.numpy()).all()  # as PyTorch: 0 * log(0) in the untaken branch
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        2 ** framework.tensor([-1])
    out = framework.empty(2)
    assert framework.pow(2, framework.tensor([1.0, 3.0]), out=out) is out
    np.testing.assert_array_equal(out.numpy(), [2.0, 8.0])
    assert (2 ** framework.tensor([1, 3])).dtype == framework.int64


@pytest.mark.parametrize(
    ("expression", "symbol"), [("2 @ x", "@"), ("[1.0, 2.0] - x", "-"), ("'a' ** x", r"\*\* or pow\(\)")]
)
def test_reflected_operator_refuses_other_operands(expression: str, symbol: str) -> None:
    x = framework.tensor([1.0, 2.0])
    with pytest.raises(
        TypeError, match=f"unsupported operand type\\(s\\) for {symbol}: '[a-z]+' and 'Tensor'"
    ):
        eval(expression, {"x": x})


def test_remainder_number_dividend_out() -> None:
    out = framework.empty(2)
    framework.remainder(7, framework.tensor([2.0, -3.0]), out=out)
    np.testing.assert_array_equal(out.numpy(), np.remainder(7.0, [2.0, -3.0]))


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("expression", ["2 - x", "2 / x", "2 ** x", "2.5 % x", "-3 // x", "1.5 - x * 2"])
def test_reflected_operators_against_torch(expression: str) -> None:
    import torch

    values = np.random.default_rng(1).uniform(0.5, 4.0, 64).astype(np.float32)
    x, tx = (
        framework.from_numpy(values.copy()).requires_grad_(),
        torch.from_numpy(values.copy()).requires_grad_(),
    )
    result, expected = eval(expression, {"x": x}), eval(expression, {"x": tx})
    # float32 pow rounds differently from NumPy's by up to 1 ulp; the rest is bit for bit.
    rtol = 2e-7 if "**" in expression else 0.0
    np.testing.assert_allclose(result.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=0)
    assert result.grad_fn.name() == expected.grad_fn.name()
