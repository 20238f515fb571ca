"""Operators follow IEEE arithmetic silently, as PyTorch's kernels do: no NumPy RuntimeWarning
leaks out of an operator, while NumPy code outside operators keeps the user's error settings."""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import pytest

import framework
from framework import Tensor
from framework.library import Library


@pytest.fixture(autouse=True)
def warnings_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def values(t: Tensor) -> list[float]:
    return [float(v) for v in t.detach().numpy().ravel()]


x = framework.tensor([0.0, -1.0, 1.0])

# Values PyTorch 2.13 gives for the same calls (IEEE results).
CASES: list[tuple[str, Callable[[], Tensor], list[float]]] = [
    ("log", lambda: x.log(), [-math.inf, math.nan, 0.0]),
    ("sqrt", lambda: x.sqrt(), [0.0, math.nan, 1.0]),
    ("rsqrt", lambda: x.rsqrt(), [math.inf, math.nan, 1.0]),
    ("reciprocal", lambda: x.reciprocal(), [math.inf, -1.0, 1.0]),
    ("log1p", lambda: x.log1p(), [0.0, -math.inf, float(np.float32(math.log1p(1.0)))]),
    ("div by zero", lambda: x / 0, [math.nan, -math.inf, math.inf]),
    ("overflowing mul", lambda: framework.tensor([1e30, -1e30]) * 1e30, [math.inf, -math.inf]),
    ("overflowing exp", lambda: framework.tensor([100.0]).exp(), [math.inf]),
    ("sum of infinities", lambda: framework.tensor([math.inf, -math.inf]).sum(), [math.nan]),
    ("pow", lambda: framework.tensor([0.0]).pow(-1.0), [math.inf]),
]


@pytest.mark.parametrize(("name", "fn", "expected"), CASES, ids=[c[0] for c in CASES])
def test_operators_compute_ieee_values_without_warnings(
    name: str, fn: Callable[[], Tensor], expected: list[float]
) -> None:
    np.testing.assert_array_equal(values(fn()), expected)


def test_backward_through_infinities_is_silent() -> None:
    leaf = framework.tensor([0.0, 4.0], requires_grad=True)
    leaf.sqrt().sum().backward()
    assert leaf.grad is not None
    assert values(leaf.grad) == [math.inf, 0.25]


def test_numpy_outside_operators_keeps_the_users_settings() -> None:
    before = np.geterr()
    framework.tensor([0.0]).log()
    assert np.geterr() == before
    with pytest.raises(RuntimeWarning, match="divide by zero encountered in log"):
        np.log(np.zeros(1))


def test_an_error_inside_an_operator_restores_the_users_settings() -> None:
    before = np.geterr()
    with pytest.raises(RuntimeError, match="must match the size"):
        framework.tensor([1.0, 2.0]) + framework.tensor([1.0, 2.0, 3.0])
    assert np.geterr() == before


def test_an_extension_kernel_runs_with_errors_silenced() -> None:
    seen: list[dict[str, str]] = []
    with Library("fperrtest", "DEF") as lib:
        lib.def_("inverse(Tensor self) -> Tensor")

        @lib.impl("inverse", dispatch_key="CPU")
        def inverse(self: Tensor) -> Tensor:
            seen.append(np.geterr())
            return framework.from_numpy(1 / self.numpy())

        result = framework.ops.fperrtest.inverse(framework.tensor([0.0, 2.0]))
    assert values(result) == [math.inf, 0.5]
    assert seen == [{"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}]


def test_the_setting_is_per_thread() -> None:
    """An operator running in one thread does not silence NumPy in another."""
    inside = threading.Event()
    release = threading.Event()
    seen: list[dict[str, str]] = []

    with Library("fperrthread", "DEF") as lib:
        lib.def_("wait(Tensor self) -> Tensor")

        @lib.impl("wait", dispatch_key="CPU")
        def wait(self: Tensor) -> Tensor:
            inside.set()
            release.wait(timeout=10)
            return self.clone()

        worker = threading.Thread(target=lambda: framework.ops.fperrthread.wait(framework.tensor([1.0])))
        worker.start()
        assert inside.wait(timeout=10)
        seen.append(np.geterr())
        release.set()
        worker.join()
    assert seen[0]["divide"] == "warn"
