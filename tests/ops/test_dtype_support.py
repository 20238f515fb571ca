"""The "not implemented for" dtype matrix: for every overload in native_functions.yaml that takes a
tensor, and every dtype framework supports, framework accepts (with the same result dtypes) or
raises as PyTorch 2.13 does: the same exception type, and PyTorch's exact text where it says
`"<kernel>" not implemented for '<Dtype>'`.

PyTorch's side is recorded in tests/data/dtype_support.json by tests/data/record_dtype_support.py,
which also builds the sample arguments; with PyTorch installed the tests compare live as well.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

import framework
from framework.c10.dtypes import DTYPES
from framework.ops._native import NATIVE

_RECORDER_PATH = Path(__file__).parents[1] / "data" / "record_dtype_support.py"
_spec = importlib.util.spec_from_file_location("record_dtype_support", _RECORDER_PATH)
assert _spec is not None and _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)

FIXTURE: dict[str, Any] = json.loads(recorder.FIXTURE_PATH.read_text())
CASES = {recorder.case_name(f): f for f in recorder.cases()}
NOT_IMPLEMENTED: Final = re.compile(r"^\"\w+\" not implemented for '\w+'$")

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")

_INTEGERS: Final = ("uint8", "int8", "int16", "int32", "int64")
_COMPLEX: Final = ("complex64", "complex128")


def _each(overloads: str, dtypes: tuple[str, ...], reason: str) -> dict[tuple[str, str], str]:
    return {(f"aten::{overload}", d): reason for overload in overloads.split() for d in dtypes}


EXPECTED_FAILURES: Final[dict[tuple[str, str], str]] = {
    **_each(
        "view_as_complex complex",
        ("float16",),
        "PyTorch views float16 pairs as complex32 (ComplexHalf), a dtype framework does not have",
    ),
    # The rest are kernels of framework/ops/kernels/nn.py, written in another session:
    **_each(
        "_adaptive_avg_pool2d_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        'refused as "adaptive_avg_pool2d_backward_cpu"; PyTorch names "adaptive_avg_pool2d_backward"',
    ),
    **_each(
        "binary_cross_entropy_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        'refused as "binary_cross_entropy"; PyTorch names "binary_cross_entropy_backward"',
    ),
    **_each("avg_pool2d", _INTEGERS[:4], "accepted; PyTorch's CPU kernel serves int64 only among integers"),
    **_each("avg_pool2d_backward", _INTEGERS[:4], "accepted; PyTorch serves int64 only among integers"),
    **_each(
        "avg_pool2d_backward",
        ("bool", *_COMPLEX),
        'refused as "avg_pool2d"; PyTorch names "avg_pool2d_backward"',
    ),
    **_each("convolution", _COMPLEX, 'accepted; PyTorch\'s "slow_conv2d_cpu" refuses complex'),
    **_each(
        "convolution_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        'accepted (bool: refused as "slow_conv2d_cpu"); PyTorch refuses as "slow_conv2d_cpu_grad_input"',
    ),
    **_each(
        "native_dropout dropout",
        _COMPLEX,
        "a float mask cannot be cast to complex; PyTorch's native_dropout accepts complex and dropout "
        'refuses it as "bernoulli_scalar_cpu_"',
    ),
    **_each(
        "max_pool2d_with_indices_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        'accepted; PyTorch\'s "max_pool2d_backward" serves floating dtypes only',
    ),
    **_each(
        "mse_loss_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        'integers refused, which PyTorch accepts; others refused as "mse_backward_cpu", PyTorch names '
        '"mse_backward_cpu_out"',
    ),
    **_each(
        "native_dropout_backward",
        ("bool", *_INTEGERS, *_COMPLEX),
        "refused; PyTorch accepts every dtype (float32 results for bool and integers)",
    ),
    **_each(
        "reflection_pad2d_backward replication_pad2d_backward",
        ("bool", *_INTEGERS),
        "integers accepted and bool refused under the forward kernel's name; PyTorch refuses both as "
        "the backward kernel",
    ),
    **_each("silu silu.out silu_ silu_backward", _COMPLEX, "complex refused; PyTorch serves it"),
    **_each(
        "cosine_embedding_loss hinge_embedding_loss",
        ("uint8",),
        "their `target == -1` fails: framework's eq.Scalar raises OverflowError for -1 on uint8, where "
        "PyTorch compares (and finds no element equal)",
    ),
}
"""(overload, dtype) pairs where framework knowingly disagrees with PyTorch, and why."""


def agree(expected: list[Any], actual: list[Any]) -> bool:
    """Same outcome: both succeed with the same result dtypes, or both raise the same exception
    type (with PyTorch's exact message when it is a "not implemented for" one)."""
    if expected[0] != actual[0]:
        return False
    if expected[0] == "ok" or NOT_IMPLEMENTED.match(expected[1]):
        return bool(expected[1] == actual[1])
    return True


def check_overload(name: str, expected_of: Callable[[str], list[Any]]) -> None:
    f = CASES[name]
    wrong = {}
    for d in recorder.DTYPES:
        expected, actual = expected_of(d), recorder.outcome(framework, f, d)
        if not agree(expected, actual):
            wrong[d] = {"torch": expected, "framework": actual}
    known = {d for (overload, d) in EXPECTED_FAILURES if overload == name}
    assert set(wrong) - known == set(), wrong
    assert known - set(wrong) == set(), f"fixed: remove {sorted(known - set(wrong))} from EXPECTED_FAILURES"


@pytest.mark.parametrize("name", sorted(CASES))
def test_dtype_support_matches_recorded_torch(name: str) -> None:
    entry = FIXTURE["cases"].get(name)
    assert entry is not None, f"{name} is not recorded: run tests/data/record_dtype_support.py"
    args, kwargs = recorder.sample_arguments(CASES[name])
    assert entry["args"] == recorder.describe(args, kwargs), "stale: run tests/data/record_dtype_support.py"
    check_overload(name, lambda d: entry["outcomes"][d])


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_dtype_support_matches_torch(name: str) -> None:
    import torch

    check_overload(name, lambda d: recorder.outcome(torch, CASES[name], d))


def test_the_matrix_covers_every_tensor_overload_and_dtype() -> None:
    assert set(recorder.DTYPES) == {d.name for d in DTYPES.values()}
    assert tuple(FIXTURE["dtypes"]) == recorder.DTYPES
    with_tensors = [f for f in NATIVE if any(recorder.is_tensor(a) for a in f.schema.arguments)]
    assert [recorder.case_name(f) for f in with_tensors] == list(CASES)
    assert {name for name, _ in EXPECTED_FAILURES} <= set(CASES)


def test_sample_arguments() -> None:
    def described(name: str) -> str:
        return recorder.describe(*recorder.sample_arguments(CASES[name]))

    assert described("aten::add.Tensor") == "T[2, 3], T[2, 3]"
    assert described("aten::mm.out") == "T[2, 3], T[3, 2], out=T[0]"
    assert described("aten::gather") == "T[2, 3], 0, int64[2, 3]"
    assert described("aten::masked_fill.Tensor") == "T[2, 3], bool[2, 3], T[]"
    assert described("aten::max.dim_max") == "T[2, 3], 0, max=T[0], max_values=int64[0]"
    assert described("aten::norm.ScalarOpt_dtype") == "T[2, 3], 2, dtype=T"
    assert described("aten::clamp") == "T[2, 3], 1"
    assert described("aten::randperm.generator_out") == "3, generator=None, out=T[0]"
