"""The session-10 reductions (count_nonzero, nansum, nanmean, aminmax, var_mean, std_mean):
values against NumPy (always) and PyTorch (live, when installed), result dtypes, PyTorch's
errors and out= variants."""

from __future__ import annotations

import importlib.util
import math
import re
import warnings

import numpy as np
import pytest

import framework

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")

A = np.array([[1.0, 0.0, math.nan, 4.0], [0.0, -2.0, 3.0, math.nan], [5.0, 6.0, -7.0, 0.5]])


def _t(values: np.ndarray) -> framework.Tensor:
    return framework.from_numpy(values.copy())


def test_count_nonzero() -> None:
    x = _t(A)
    assert framework.count_nonzero(x).item() == np.count_nonzero(A)
    assert framework.count_nonzero(x).dtype == framework.int64
    assert x.count_nonzero(1).tolist() == np.count_nonzero(A, axis=1).tolist()
    assert framework.count_nonzero(x, dim=(0, 1)).item() == np.count_nonzero(A)
    assert framework.count_nonzero(x, dim=[]).item() == np.count_nonzero(A)
    assert framework.count_nonzero(framework.tensor([True, False, True])).item() == 2
    assert framework.count_nonzero(framework.tensor(5.0)).item() == 1
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        framework.count_nonzero(x, dim=[0, 0])


def test_nansum() -> None:
    x = _t(A)
    assert framework.nansum(x).item() == np.nansum(A)
    np.testing.assert_array_equal(x.nansum(1, keepdim=True).numpy(), np.nansum(A, axis=1, keepdims=True))
    assert framework.nansum(x, dtype=framework.float64).dtype == framework.float64
    assert framework.nansum(framework.tensor([True, True])).dtype == framework.int64
    assert framework.nansum(framework.tensor([2, 3], dtype=framework.int8)).item() == 5
    out = framework.empty(0, dtype=framework.float64)
    framework.nansum(x, 0, out=out)
    np.testing.assert_array_equal(out.numpy(), np.nansum(A, axis=0))
    with pytest.raises(RuntimeError, match="nansum on CPU does not support complex inputs"):
        framework.nansum(framework.zeros(2, dtype=framework.complex64))
    with pytest.raises(NotImplementedError, match=re.escape("\"nansum_cpu\" not implemented for 'Long'")):
        framework.nansum(x, out=framework.empty(0, dtype=framework.int64))


def test_nanmean() -> None:
    x = _t(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanmean(A, axis=1)
    np.testing.assert_allclose(framework.nanmean(x, 1).numpy(), expected)
    assert math.isnan(framework.nanmean(_t(np.array([math.nan]))).item())
    out = framework.empty(0, dtype=framework.float64)
    framework.nanmean(x, out=out)
    assert out.item() == pytest.approx(np.nansum(A) / 10)
    assert framework.nanmean(x.requires_grad_()).grad_fn.name() == "DivBackward0"
    with pytest.raises(
        RuntimeError,
        match=re.escape("nanmean(): expected input to have floating point or complex dtype but got Long"),
    ):
        framework.nanmean(framework.tensor([1, 2]))


def test_aminmax() -> None:
    x = framework.tensor([[1, 5], [3, 2]])
    low, high = framework.aminmax(x)
    assert (low.item(), high.item()) == (1, 5)
    result = x.aminmax(dim=0, keepdim=True)
    assert type(result).__name__ == "aminmax"
    assert result.min.tolist() == [[1, 2]] and result.max.tolist() == [[3, 5]]
    assert framework.aminmax(x, keepdim=True).min.tolist() == [[1]]
    nan = framework.aminmax(_t(A))
    assert math.isnan(nan.min.item()) and math.isnan(nan.max.item())
    scalar = framework.aminmax(framework.tensor(3.0), dim=0)
    assert (scalar.min.item(), scalar.max.item()) == (3.0, 3.0)
    assert framework.aminmax(framework.zeros(2, 0), dim=0).min.shape == (0,)
    mins, maxs = framework.empty(0, dtype=framework.int64), framework.empty(0, dtype=framework.int64)
    framework.ops.aten.aminmax.out(x, dim=1, min=mins, max=maxs)
    assert mins.tolist() == [1, 2] and maxs.tolist() == [5, 3]
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        framework.aminmax(framework.zeros(0))
    with pytest.raises(
        IndexError, match=re.escape("aminmax: Expected reduction dim 1 to have non-zero size.")
    ):
        framework.aminmax(framework.zeros(2, 0), dim=1)
    with pytest.raises(
        NotImplementedError, match=re.escape("\"aminmax_cpu\" not implemented for 'ComplexFloat'")
    ):
        framework.aminmax(framework.zeros(2, dtype=framework.complex64))
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype float, but got long int instead"
    ):
        framework.ops.aten.aminmax.out(framework.tensor([1.0, 2.0]), min=framework.empty(0), max=mins)


def test_var_mean_std_mean() -> None:
    b = np.array([[1.0, 2.0, 4.0], [0.0, 2.0, 3.0]])
    var, mean = framework.var_mean(_t(b), 1)
    np.testing.assert_allclose(var.numpy(), b.var(axis=1, ddof=1))
    np.testing.assert_allclose(mean.numpy(), b.mean(axis=1))
    std, mean = framework.std_mean(_t(b))
    assert std.item() == pytest.approx(b.std(ddof=1)) and mean.item() == pytest.approx(b.mean())
    std, mean = framework.std_mean(_t(b), [0], False)
    np.testing.assert_allclose(std.numpy(), b.std(axis=0, ddof=0))
    var, mean = framework.var_mean(_t(b), 1, correction=0, keepdim=True)
    assert var.shape == (2, 1) and mean.shape == (2, 1)
    var, mean = framework.var_mean(framework.tensor([1 + 1j, 2]))
    assert var.dtype == framework.float32 and mean.dtype == framework.complex64
    assert var.item() == pytest.approx(1.0) and mean.item() == pytest.approx(1.5 + 0.5j)
    with pytest.warns(UserWarning, match=re.escape("std_mean(): degrees of freedom is <= 0")):
        std, _ = framework.std_mean(framework.tensor([1.0]))
    assert math.isnan(std.item())
    with pytest.raises(RuntimeError, match="std_mean only support floating point and complex dtypes"):
        framework.std_mean(framework.tensor([1, 2]))
    y = framework.tensor([1.0, 2.0], requires_grad=True)
    assert [r.grad_fn.name() for r in framework.var_mean(y)] == ["VarMeanBackward0"] * 2


@needs_torch
def test_against_torch() -> None:
    import torch

    x, tx = _t(A), torch.from_numpy(A.copy())
    np.testing.assert_allclose(framework.nanmean(x, 0).numpy(), torch.nanmean(tx, 0).numpy())
    np.testing.assert_array_equal(framework.nansum(x, 1).numpy(), torch.nansum(tx, 1).numpy())
    np.testing.assert_array_equal(framework.count_nonzero(x, 0).numpy(), torch.count_nonzero(tx, 0).numpy())
    finite = np.nan_to_num(A)
    for ours, theirs in zip(
        framework.std_mean(_t(finite), [1], correction=2),
        torch.std_mean(torch.from_numpy(finite), [1], correction=2),
        strict=True,
    ):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
