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


# Recorded from PyTorch 2.13 (torch.finfo / torch.iinfo reprs).
FINFO_REPRS = {
    "float16": "finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, "
    "tiny=6.10352e-05, dtype=float16)",
    "float32": "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
    "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)",
    "complex128": "finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, "
    "smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)",
}


@pytest.mark.parametrize("name", FINFO_REPRS)
def test_finfo(name: str) -> None:
    info = framework.finfo(getattr(framework, name))
    assert repr(info) == FINFO_REPRS[name]
    real = np.finfo(getattr(framework, name).to_real().numpy_dtype)
    assert (info.bits, info.eps, info.max, info.min) == (real.bits, real.eps, real.max, real.min)
    assert info.tiny == info.smallest_normal == real.smallest_normal
    assert info == framework.finfo(getattr(framework, name)) and info.__hash__ is None


def test_finfo_defaults_to_the_default_dtype_and_refuses_integers() -> None:
    assert framework.finfo().dtype == "float32"
    with pytest.raises(TypeError, match=r"finfo\(\) requires a floating point input type"):
        framework.finfo(framework.int32)


def test_iinfo() -> None:
    assert repr(framework.iinfo(framework.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    assert (framework.iinfo(framework.uint8).min, framework.iinfo(framework.uint8).max) == (0, 255)
    assert framework.iinfo(framework.int64).min == -(2**63) and framework.iinfo(framework.int64).bits == 64
    with pytest.raises(TypeError, match=r"iinfo\(\) requires an integer input type"):
        framework.iinfo(framework.float32)
    with pytest.raises(TypeError, match=r"framework\.bool is not supported by framework\.iinfo"):
        framework.iinfo(framework.bool)


def test_new_factories_take_the_tensors_dtype_and_device() -> None:
    x = framework.ones(2, 3, dtype=framework.int32)
    assert x.new_zeros(2).tolist() == [0, 0] and x.new_zeros(2).dtype is framework.int32
    assert x.new_ones((2, 2)).tolist() == [[1, 1], [1, 1]]
    assert x.new_full((2,), 1.5).tolist() == [1, 1]  # filled in the tensor's dtype, as PyTorch
    assert x.new_empty(3, 1).shape == (3, 1)
    assert x.new_zeros(2, dtype=framework.float64).dtype is framework.float64
    assert framework.empty(2, device="meta").new_ones(4).device == framework.device("meta")
    leaf = framework.ones(2).new_zeros(3, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf and leaf.grad_fn is None
    assert not framework.ones(2, requires_grad=True).new_zeros(2).requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require"):
        framework.ones(2).new_zeros(2, dtype=framework.int64, requires_grad=True)


def test_new_tensor_copies_with_the_tensors_dtype() -> None:
    x = framework.ones(2, dtype=framework.int32)
    assert x.new_tensor([1.5, 2]).tolist() == [1, 2] and x.new_tensor([1.5]).dtype is framework.int32
    assert x.new_tensor(np.array([1, 2])).dtype is framework.int32
    made = x.new_tensor([1.0, 2.0], dtype=framework.float32, requires_grad=True)
    assert made.requires_grad and made.is_leaf
    source = framework.ones(2)
    with pytest.warns(UserWarning, match=r"rather than tensor\.new_tensor\(sourceTensor\)") as caught:
        copy = x.new_tensor(source)
    assert caught[0].filename == __file__
    copy.add_(1)
    assert source.tolist() == [1.0, 1.0]


def test_tensor_of_a_tensor_warns_and_copies_detached() -> None:
    source = framework.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match=r"rather than framework\.tensor\(sourceTensor\)") as caught:
        copy = framework.tensor(source)
    assert caught[0].filename == __file__
    assert not copy.requires_grad and copy.tolist() == [1.0, 1.0]


def test_as_tensor_shares_memory_where_it_can() -> None:
    array = np.ones(3)
    shared = framework.as_tensor(array)
    shared[0] = 5
    assert array[0] == 5 and shared.dtype is framework.float64
    converted = framework.as_tensor(array, dtype=framework.float32)
    converted[1] = 7
    assert array[1] == 1 and converted.dtype is framework.float32
    x = framework.ones(2, requires_grad=True)
    assert framework.as_tensor(x) is x
    assert type(framework.as_tensor(x, dtype=framework.float64).grad_fn).__name__ == "ToCopyBackward0"
    assert framework.as_tensor([1, 2]).dtype is framework.int64
    assert framework.as_tensor(2.5).item() == 2.5
