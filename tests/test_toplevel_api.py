"""Top-level names scripts written for PyTorch use: device selection, version, formatting a
0-dim tensor, is_tensor/numel, and max/min of two tensors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import framework
from framework import nn


def test_no_cuda_device_is_ever_available() -> None:
    assert framework.cuda.is_available() is False
    assert framework.cuda.device_count() == 0
    chosen = framework.device("cuda" if framework.cuda.is_available() else "cpu")
    assert framework.ones(2).to(chosen).device == framework.device("cpu")


def test_version_is_the_installed_distributions() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", framework.__version__)


def test_a_zero_dim_tensor_formats_as_its_value() -> None:
    assert f"{framework.tensor(3.14159):.2f}" == "3.14"
    assert f"{framework.tensor(7):>4}|" == "   7|"
    assert f"{framework.tensor(True)}" == "True"
    assert f"{framework.ones(2)}" == "tensor([1., 1.])"


@pytest.mark.parametrize(
    "value", [framework.ones(2), nn.Parameter(framework.tensor(1.0))], ids=["1-dim", "parameter"]
)
def test_other_tensors_take_no_format_spec(value: framework.Tensor) -> None:
    message = f"unsupported format string passed to {type(value).__name__}.__format__"
    with pytest.raises(TypeError, match=message):
        f"{value:.2f}"


def test_is_tensor_and_numel() -> None:
    assert framework.is_tensor(framework.ones(1)) and not framework.is_tensor(np.ones(1))
    assert framework.numel(framework.ones(2, 3)) == 6


def test_max_and_min_of_two_tensors_are_maximum_and_minimum() -> None:
    a = framework.tensor([1.0, 5.0, -2.0], requires_grad=True)
    b = framework.tensor([3.0, 5.0, -4.0], requires_grad=True)
    high, low = framework.max(a, b), a.min(b)
    assert high.tolist() == [3.0, 5.0, -2.0] and low.tolist() == [1.0, 5.0, -4.0]
    assert type(high.grad_fn).__name__ == "MaximumBackward0"
    assert type(low.grad_fn).__name__ == "MinimumBackward0"
    (high + low).sum().backward()
    assert a.grad is not None and b.grad is not None
    assert a.grad.tolist() == [1.0, 1.0, 1.0] and b.grad.tolist() == [1.0, 1.0, 1.0]
    mixed = framework.max(framework.tensor([1, 2]), framework.tensor([1.5, 0.0]))
    assert mixed.dtype is framework.float32 and mixed.tolist() == [1.5, 2.0]
    out = framework.empty(3)
    assert framework.min(a.detach(), b.detach(), out=out) is out and out.tolist() == [1.0, 5.0, -4.0]
    with pytest.raises(RuntimeError, match=r"^maximum\(\): functions with out=\.\.\. arguments don't"):
        framework.max(a, b, out=framework.empty(3))
