"""`framework.nn.init` and the layers' default initialisation draw PyTorch's numbers for the same
seed (recorded, and live when PyTorch is installed)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
import framework.nn as nn
from framework.nn import init


@pytest.mark.parametrize(
    "index", range(len(recorder.INIT_MODULE_CASES)), ids=[e for _, e in recorder.INIT_MODULE_CASES]
)
def test_default_initialisation_is_bit_identical(index: int) -> None:
    seed, expr = recorder.INIT_MODULE_CASES[index]
    recorded = FIXTURES["init_modules"][index]
    assert recorded["expr"] == expr
    state = recorder.seeded_state(framework, seed, expr)
    assert list(state) == list(recorded["state"])
    for key, value in recorded["state"].items():
        expected = recorder.decode(value)
        assert state[key].dtype == expected.dtype, key
        np.testing.assert_array_equal(state[key], expected, err_msg=key)


@needs_torch
@pytest.mark.parametrize(
    "index", range(len(recorder.INIT_MODULE_CASES)), ids=[e for _, e in recorder.INIT_MODULE_CASES]
)
def test_default_initialisation_matches_torch_live(index: int) -> None:
    seed, expr = recorder.INIT_MODULE_CASES[index]
    ours, theirs = recorder.seeded_state(framework, seed, expr), recorder.seeded_state(torch, seed, expr)
    assert list(ours) == list(theirs)
    for key in theirs:
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


@pytest.mark.parametrize(
    "index", range(len(recorder.INIT_FN_CASES)), ids=[e for _, e in recorder.INIT_FN_CASES]
)
def test_init_functions_match_the_recording(index: int) -> None:
    seed, expr = recorder.INIT_FN_CASES[index]
    expected = recorder.decode(FIXTURES["init_fns"][index]["value"])
    np.testing.assert_array_equal(recorder.seeded_tensor(framework, seed, expr), expected)


@needs_torch
@pytest.mark.parametrize(
    "index", range(len(recorder.INIT_FN_CASES)), ids=[e for _, e in recorder.INIT_FN_CASES]
)
def test_init_functions_match_torch_live(index: int) -> None:
    seed, expr = recorder.INIT_FN_CASES[index]
    np.testing.assert_array_equal(
        recorder.seeded_tensor(framework, seed, expr), recorder.seeded_tensor(torch, seed, expr)
    )


def test_calculate_gain() -> None:
    assert [init.calculate_gain(name, param) for name, param in recorder.GAIN_CASES] == FIXTURES["gains"]
    with pytest.raises(ValueError, match="Unsupported nonlinearity softplus"):
        init.calculate_gain("softplus")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fans() -> None:
    assert init._calculate_fan_in_and_fan_out(framework.empty(5, 3)) == (3, 5)
    assert init._calculate_fan_in_and_fan_out(framework.empty(8, 4, 3, 2)) == (24, 48)
    with pytest.raises(
        ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    ):
        init._calculate_fan_in_and_fan_out(framework.empty(3))
    with pytest.raises(
        ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"
    ):
        init.kaiming_uniform_(framework.empty(2, 2), mode="fan_avg")


def test_parameters_are_filled_in_place_without_recording_history() -> None:
    weight = nn.Parameter(framework.empty(4, 4))
    ptr = weight.data_ptr()
    assert init.xavier_uniform_(weight) is weight
    assert weight.data_ptr() == ptr and weight.is_leaf and weight.grad_fn is None
    bound = math.sqrt(6 / 8)
    assert float(weight.abs().max()) <= bound
    init.trunc_normal_(weight, std=0.5, a=-0.3, b=0.2)
    assert weight.is_leaf and float(weight.max()) <= 0.2 and float(weight.min()) >= -0.3


def test_generator_argument_and_warnings() -> None:
    a = init.normal_(framework.empty(5), generator=framework.Generator().manual_seed(3))
    b = init.normal_(framework.empty(5), generator=framework.Generator().manual_seed(3))
    assert a.tolist() == b.tolist()
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_normal_(framework.empty(0, 3))
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\] in nn.init.trunc_normal_"):
        init.trunc_normal_(framework.empty(3), mean=10.0)


def test_reset_parameters_redraws() -> None:
    framework.manual_seed(0)
    layer = nn.Linear(3, 2)
    first = layer.weight.tolist()
    framework.manual_seed(0)
    layer.reset_parameters()
    assert layer.weight.tolist() == first
