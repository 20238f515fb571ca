"""`framework.testing`: assert_close's verdicts and messages (recorded from PyTorch, and live when
it is installed) over tensors, NumPy values, numbers, None and containers; make_tensor's values for
a seed (recorded from PyTorch), layout options and errors."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import needs_torch, torch

import framework
from framework.testing import assert_close, make_tensor


def _cases(lib: Any) -> list[tuple[Any, Any, dict[str, Any]]]:
    t = lib.tensor
    return [
        (t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.0]), {}),
        (t([[1.0, 2.0], [3, 4]]), t([[1.0, 2.0], [3, 5]]), {}),
        (t([1, 2, 3]), t([1, 2, 4]), {}),
        (t([1.0, 2.0, 3.0]), t([1, 2, 3]), {}),
        (t([1.0, 2.0, 3.0]), t([1.0, 2.0]), {}),
        (t([1.0, math.nan]), t([1.0, math.nan]), {}),
        (t([1.0, math.nan]), t([1.0, math.nan]), {"equal_nan": True}),
        (t(1.0), t(2.0), {}),
        (1.0, 1.1, {}),
        (1, 2, {}),
        (1, 1.0, {}),
        (1, 1.0, {"check_dtype": False}),
        ([t(1.0), t(2.0)], [t(1.0), t(3.0)], {}),
        ({"a": t(1.0)}, {"a": t(3.0)}, {}),
        ({"a": t(1.0)}, {"b": t(3.0)}, {}),
        ([1, 2], [1], {}),
        (t([1.0, 2.0]), t([1.0, 3.0]), {"msg": "boom"}),
        (t([1.0, 2.0]), t([1.0, 3.0]), {"msg": lambda m: "X" + m}),
        ([t([1.0, 2.0])], [t([1.0, 3.0])], {"msg": lambda m: "X" + m}),
        (np.array([1.0, 2.0]), np.array([1.0, 3.0]), {}),
        (np.array([1.0, 2.0]), t([1.0, 3.0]), {}),
        (t([1.0, 2.0]), [1.0, 2.0], {}),
        (t([[1.0, 2.0], [3.0, 4.0]]).t(), t([[1.0, 3.0], [2.0, 4.0]]), {"check_stride": True}),
        (t([True, False]), t([True, True]), {}),
        (t([1.0, 2.0]), t([1.0, 3.0]), {"rtol": 1e-3}),
        ("a", "b", {}),
        (t([1.0, 2.0]), t([1.0, 2.0]), {"atol": 1e-3}),
        (t([1 + 1j]), t([1 + 2j]), {}),
        (t([1.0, 2.0], dtype=lib.float64), t([1.0, 2.0]), {"check_dtype": False}),
        (t([1.0, 2.001], dtype=lib.float64), t([1.0, 2.0]), {"check_dtype": False}),
        (t([0.0, 2.0]), t([1e-10, 2.0]), {}),
        (t([1.0, math.inf]), t([1.0, -math.inf]), {}),
        (None, None, {}),
        (None, 1, {}),
        (True, False, {}),
        (t([1.0, 2.0], requires_grad=True), t([1.0, 2.0]), {}),
        (t([1, 2], dtype=lib.uint8), t([1, 5], dtype=lib.uint8), {}),
        (t([1.0, 2.0, 3.0, 4.0]), t([1.1, 2.0, 3.5, 4.0]), {"rtol": 0.1, "atol": 0.0}),
        (t([0.0, 1.0]), t([0.5, 1.0]), {}),
        ((1, (2.0, t([3.0]))), [1, [2.0, t([4.0])]], {}),
        (np.float32(1.0), np.float32(1.5), {}),
    ]


def _outcomes(lib: Any, check: Callable[..., None]) -> list[tuple[str, str] | None]:
    """(exception type, message) per case, None where the check passed; PyTorch's type names."""
    out: list[tuple[str, str] | None] = []
    for actual, expected, kwargs in _cases(lib):
        try:
            check(actual, expected, **kwargs)
            out.append(None)
        except Exception as error:
            text = (
                str(error).replace("framework._tensor.Tensor", "torch.Tensor").replace("framework.", "torch.")
            )
            out.append((type(error).__name__, text))
    return out


EXPECTED: list[tuple[str, str] | None] = [
    None if outcome is None else (outcome[0], outcome[1])
    for outcome in json.loads((Path(__file__).parents[1] / "data" / "assert_close_outcomes.json").read_text())
]
"""PyTorch's outcomes for `_cases(torch)` (recorded from torch.testing.assert_close)."""


def test_assert_close_matches_recorded_pytorch() -> None:
    got = _outcomes(framework, assert_close)
    for index, (have, want) in enumerate(zip(got, EXPECTED, strict=True)):
        assert have == want, f"case {index}"


@needs_torch
def test_assert_close_matches_live_pytorch() -> None:
    assert _outcomes(framework, assert_close) == _outcomes(torch, torch.testing.assert_close)


def test_assert_close_device_and_layout_flags() -> None:
    a = framework.tensor([1.0, 2.0])
    assert_close(a, a.clone(), check_device=False, check_layout=False)
    with pytest.raises(AssertionError, match=r"attribute 'shape'"):
        assert_close(a, a.reshape(2, 1), check_dtype=False)


MAKE_TENSOR_VALUES: list[tuple[tuple[Any, ...], dict[str, Any], list[Any], tuple[int, ...], bool]] = [
    (
        (2, 3),
        {"dtype": "float32"},
        [
            [-0.06738138198852539, 4.8279924392700195, -7.407406330108643],
            [-6.623451232910156, -3.4663891792297363, 2.4134163856506348],
        ],
        (3, 1),
        True,
    ),
    (((4,),), {"dtype": "int64", "noncontiguous": True}, [0, -5, -8, -2], (2,), False),
    (
        (3,),
        {"dtype": "complex64", "low": -1, "high": 1},
        [
            -0.41222310066223145 + 0.03704357147216797j,
            0.39533519744873047 + 0.6000227928161621j,
            -0.677941083908081 - 0.4354628324508667j,
        ],
        (1,),
        True,
    ),
    ((3,), {"dtype": "uint8"}, [6, 9, 1], (1,), True),
    ((2, 2), {"dtype": "bool"}, [[False, False], [True, True]], (2, 1), True),
    ((3,), {"dtype": "int8", "low": -1000, "high": 2, "exclude_zero": True}, [-9, -99, -98], (1,), True),
    (
        (2,),
        {"dtype": "float64", "low": -1e308, "high": 1e308},
        [-1.1839900191128106e307, -1.8543685127111687e307],
        (1,),
        True,
    ),
]


def test_make_tensor_matches_recorded_pytorch_draws() -> None:
    framework.manual_seed(0)
    for shape, kwargs, values, stride, contiguous in MAKE_TENSOR_VALUES:
        options = {**kwargs, "dtype": getattr(framework, kwargs["dtype"])}
        result = make_tensor(*shape, device="cpu", **options)
        assert result.tolist() == values
        assert result.stride() == stride
        assert result.is_contiguous() is contiguous


def test_make_tensor_requires_grad_and_exclude_zero() -> None:
    result = make_tensor(
        4, dtype=framework.float32, device="cpu", low=0, high=1e-30, requires_grad=True, exclude_zero=True
    )
    assert result.requires_grad and result.is_leaf
    assert bool((result != 0).all())


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"low": math.nan}, "`low` and `high` cannot be NaN, but got low=nan and high=9"),
        ({"low": 3, "high": 2}, "`low` must be less than `high`, but got 3 >= 2"),
        (
            {"requires_grad": True, "dtype": "int32"},
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            "dtype=torch.int32",
        ),
        (
            {"dtype": "uint8", "low": -5, "high": -1},
            "The value interval specified by `low` and `high` is [-5, -1), but torch.uint8 only supports "
            "[0, 256)",
        ),
    ],
)
def test_make_tensor_errors(kwargs: dict[str, Any], error: str) -> None:
    options = {**kwargs, "dtype": getattr(framework, kwargs.get("dtype", "float32"))}
    with pytest.raises(ValueError) as info:
        make_tensor(2, device="cpu", **options)
    assert str(info.value).replace("framework.", "torch.") == error


def test_make_tensor_low_equal_high_warns() -> None:
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        result = make_tensor(2, dtype=framework.float32, device="cpu", low=1, high=1)
    assert result.tolist() == [1.0, 1.0]
