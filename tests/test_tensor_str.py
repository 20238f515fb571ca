"""``format_tensor`` and the print options against PyTorch's ``repr``.

Recorded cases (``data/tensor_str_fixtures.json``) always run; with PyTorch installed, the
recordings are re-checked and hypothesis-generated tensors are compared with it live.
"""

from __future__ import annotations

import importlib.util
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import framework
from framework._tensor_str import format_tensor, get_printoptions, printoptions, set_printoptions
from framework.c10 import dtypes

torch: Any
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")

_RECORDER_PATH = Path(__file__).parent / "data" / "record_tensor_str_fixtures.py"
_spec = importlib.util.spec_from_file_location("record_tensor_str_fixtures", _RECORDER_PATH)
assert _spec is not None and _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)

CASES: list[dict[str, Any]] = json.loads(recorder.FIXTURE_PATH.read_text())
DEFAULT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _restore_global_state() -> Iterator[None]:
    """Every test leaves the print options and the default dtype (both libraries') as it found them."""
    saved = get_printoptions()
    saved_default = dtypes.get_default_dtype()
    saved_torch = torch._tensor_str.get_printoptions() if torch is not None else None
    try:
        yield
    finally:
        set_printoptions(**saved)  # type: ignore[arg-type]
        dtypes.set_default_dtype(saved_default)
        if torch is not None:
            torch._tensor_str.set_printoptions(**saved_torch)
            torch.set_default_dtype(torch.float32)


def framework_repr(case: dict[str, Any], array: npt.NDArray[Any] | None = None) -> str:
    """``format_tensor`` for a case, with its options and default dtype applied only meanwhile."""
    if array is None:
        array = recorder.decode_array(case)
    default = dtypes.DTYPES[case["default_dtype"]]
    saved_default = dtypes.get_default_dtype()
    dtypes.set_default_dtype(default)
    try:
        with printoptions(**case["options"]):
            return format_tensor(
                array,
                dtype_name=case["dtype"],
                is_default_dtype=case["dtype"] == default.name,
                shape=tuple(case["shape"]),
                device=case["device"],
                requires_grad=case["requires_grad"],
                grad_fn=case["grad_fn"],
            )
    finally:
        dtypes.set_default_dtype(saved_default)


def test_fixture_corpus_is_diverse() -> None:
    assert len(CASES) >= 200
    assert {case["dtype"] for case in CASES} >= set(recorder.ALL_DTYPES)
    assert any("..." in case["expected"] and case["device"] == "cpu" for case in CASES)
    assert any(len(case["shape"]) == 4 for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_recorded_repr(case: dict[str, Any]) -> None:
    assert framework_repr(case) == case["expected"]


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_recording_matches_torch(case: dict[str, Any]) -> None:
    assert recorder.torch_repr(case) == case["expected"]


def _case(
    array: npt.NDArray[Any], options: dict[str, Any], autograd: str = "none", default_dtype: str = "float32"
) -> dict[str, Any]:
    differentiable = array.dtype.kind in "fc"
    return {
        "dtype": str(array.dtype),
        "shape": list(array.shape),
        "data": {"hex": array.tobytes().hex()},
        "device": "cpu",
        "requires_grad": differentiable and autograd != "none",
        "grad_fn": "CloneBackward0" if differentiable and autograd == "grad_fn" else None,
        "options": options,
        "default_dtype": default_dtype,
    }


def _check_against_torch(case: dict[str, Any], array: npt.NDArray[Any]) -> None:
    assert framework_repr(case, array) == recorder.torch_repr(case)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 10),
        "threshold": st.sampled_from([1, 8, 50, 1000, math.inf]),
        "edgeitems": st.integers(0, 5),
        "linewidth": st.integers(5, 200),
        "sci_mode": st.sampled_from([None, True, False]),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=40).filter(
    lambda shape: math.prod(shape) <= 200_000
)
DTYPE_NAMES = st.sampled_from(
    ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64"]
)


@st.composite
def exact_arrays(draw: st.DrawFn) -> npt.NDArray[Any]:
    """Small arrays whose elements hypothesis picks itself: any value of the dtype, specials included."""
    dtype = np.dtype(draw(DTYPE_NAMES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6))
    array: npt.NDArray[Any] = draw(hnp.arrays(dtype, shape, elements=hnp.from_dtype(dtype)))
    return array


@st.composite
def realistic_arrays(draw: st.DrawFn) -> npt.NDArray[Any]:
    """Dense arrays (up to 4-D, 40 per dimension) from a seeded generator and a value family."""
    dtype = draw(DTYPE_NAMES)
    shape = draw(SHAPES)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    array: npt.NDArray[Any] = recorder.random_values(rng, dtype, shape)
    return array


@needs_torch
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(array=exact_arrays(), options=OPTIONS, autograd=st.sampled_from(["none", "requires_grad", "grad_fn"]))
def test_exact_arrays_match_torch(array: npt.NDArray[Any], options: dict[str, Any], autograd: str) -> None:
    _check_against_torch(_case(array, options, autograd), array)


@needs_torch
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(array=realistic_arrays(), options=OPTIONS)
def test_realistic_arrays_match_torch(array: npt.NDArray[Any], options: dict[str, Any]) -> None:
    _check_against_torch(_case(array, options), array)


@needs_torch
@settings(max_examples=100, deadline=None)
@given(array=exact_arrays(), default_dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_default_dtype_matches_torch(array: npt.NDArray[Any], default_dtype: str) -> None:
    _check_against_torch(_case(array, {}, default_dtype=default_dtype), array)


@needs_torch
@settings(max_examples=100, deadline=None)
@given(
    dtype=DTYPE_NAMES,
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
    default_dtype=st.sampled_from(["float32", "float64"]),
    autograd=st.sampled_from(["none", "requires_grad", "grad_fn"]),
)
def test_meta_matches_torch(dtype: str, shape: tuple[int, ...], default_dtype: str, autograd: str) -> None:
    differentiable = np.dtype(dtype).kind in "fc"
    case = recorder.make_case(
        "meta",
        dtype=dtype,
        shape=shape,
        requires_grad=differentiable and autograd == "requires_grad",
        grad_fn=differentiable and autograd == "grad_fn",
        default_dtype=default_dtype,
    )
    assert framework_repr(case) == recorder.torch_repr(case)


def test_data_may_be_flat() -> None:
    text = format_tensor(
        np.arange(6, dtype=np.int32), dtype_name="int32", is_default_dtype=False, shape=(2, 3), device="cpu"
    )
    assert text == "tensor([[0, 1, 2],\n        [3, 4, 5]], dtype=framework.int32)"


def test_other_devices_are_named() -> None:
    text = format_tensor(
        np.array([1.0, 2.0], np.float32),
        dtype_name="float32",
        is_default_dtype=True,
        shape=(2,),
        device="cuda:0",
    )
    assert text == "tensor([1., 2.], device='cuda:0')"
    text = format_tensor(
        np.array([1.0], np.float32), dtype_name="float32", is_default_dtype=True, shape=(1,), device="cpu:0"
    )
    assert text == "tensor([1.])"


def test_large_tensor_formats_quickly() -> None:
    array = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    complex_array = (array + 1j * array[::-1]).astype(np.complex64).reshape(100, 100, 100)
    for data, name in ((array, "float32"), (array.reshape(-1), "float32"), (complex_array, "complex64")):
        best = math.inf
        for _ in range(5):
            start = time.perf_counter()
            text = format_tensor(
                data, dtype_name=name, is_default_dtype=False, shape=data.shape, device="cpu"
            )
            best = min(best, time.perf_counter() - start)
        assert "..." in text
        assert best < 0.05


def test_default_printoptions() -> None:
    assert get_printoptions() == DEFAULT_OPTIONS
    if torch is not None:
        assert torch._tensor_str.get_printoptions() == DEFAULT_OPTIONS


PROFILE_STEPS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"profile": "short"}, {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}),
    (
        {"precision": 7, "sci_mode": True},
        {**DEFAULT_OPTIONS, "precision": 7, "edgeitems": 2, "sci_mode": True},
    ),
    ({"linewidth": 120}, {**DEFAULT_OPTIONS, "precision": 7, "edgeitems": 2, "linewidth": 120}),
    ({"profile": "full"}, {**DEFAULT_OPTIONS, "threshold": math.inf}),
    ({"profile": "full", "threshold": 12}, {**DEFAULT_OPTIONS, "threshold": 12}),
    ({"profile": "nonsense", "edgeitems": 1}, {**DEFAULT_OPTIONS, "threshold": 12, "edgeitems": 1}),
    ({"profile": "default"}, DEFAULT_OPTIONS),
]


def test_set_printoptions_sequence() -> None:
    for kwargs, expected in PROFILE_STEPS:
        set_printoptions(**kwargs)
        assert get_printoptions() == expected
        if torch is not None:
            torch._tensor_str.set_printoptions(**kwargs)
            assert torch._tensor_str.get_printoptions() == expected


def test_printoptions_context_restores_on_error() -> None:
    set_printoptions(precision=6, sci_mode=False)
    before = get_printoptions()
    with pytest.raises(ZeroDivisionError), printoptions(profile="short", sci_mode=True, threshold=3):
        assert get_printoptions()["sci_mode"] is True
        assert get_printoptions()["threshold"] == 3
        _ = 1 / 0
    assert get_printoptions() == before


def test_options_change_output() -> None:
    array = np.array([1.123456, 2.0], np.float32)

    def show() -> str:
        return format_tensor(array, dtype_name="float32", is_default_dtype=True, shape=(2,), device="cpu")

    assert show() == "tensor([1.1235, 2.0000])"
    with printoptions(precision=2):
        assert show() == "tensor([1.12, 2.00])"
    with printoptions(sci_mode=True):
        assert show() == "tensor([1.1235e+00, 2.0000e+00])"
    assert show() == "tensor([1.1235, 2.0000])"


def test_grad_fn_suffix_is_the_node_class_as_in_pytorch() -> None:
    """PyTorch prints the node's class: `CopySlices`, `NotImplemented`, while `name()` keeps the
    qualified `torch::autograd::...` names."""
    written = framework.ones(3, requires_grad=True).clone()
    written[0] = 2.0
    assert repr(written) == "tensor([2., 1., 1.], grad_fn=<CopySlices>)"
    assert written.grad_fn is not None and written.grad_fn.name() == "torch::autograd::CopySlices"
    scale = framework.full((), 8.0, requires_grad=True) * 1
    tracker = framework.zeros((), dtype=framework.int32)
    updated = framework._amp_update_scale_(scale, tracker, framework.zeros(()), 2.0, 0.5, 3)
    assert repr(updated) == "tensor(8., grad_fn=<NotImplemented>)"
    assert updated.grad_fn is not None
    assert updated.grad_fn.name() == "torch::autograd::NotImplemented"
