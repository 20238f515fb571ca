"""Python numbers in pointwise operators: wrapped numbers (kept per value on the CPU) and the
shortcuts of type promotion for one tensor with one number."""

from __future__ import annotations

import gc
import math
from typing import Any

import pytest
from all_dtypes import ALL_DTYPES

import framework
from framework.c10.storage import memory_stats
from framework.ops._iter import result_type
from framework.ops._python_args import CPU, wrapped_number

DTYPES = ALL_DTYPES
NUMBERS: list[Any] = [True, 3, -2.5, 1j]


def _outcome(operands: tuple[Any, ...]) -> object:
    try:
        return result_type(*operands)
    except RuntimeError as error:
        return str(error)


@pytest.mark.parametrize("default", [framework.float32, framework.float64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_one_tensor_with_one_number_promotes_as_the_general_rule(dtype: Any, default: Any) -> None:
    """The two-operand shortcuts (a Python number, a wrapped number, on either side) agree with
    the general rule, which a third operand equal to the first one forces."""
    framework.set_default_dtype(default)
    try:
        for shape in ((2,), ()):
            tensor = framework.zeros(shape, dtype=dtype)
            for number in NUMBERS:
                general = _outcome((tensor, number, tensor))
                assert _outcome((tensor, number)) == general
                assert _outcome((number, tensor)) == general
                wrapped = wrapped_number(number, CPU)
                assert _outcome((tensor, wrapped)) == general
                assert _outcome((wrapped, tensor)) == general
    finally:
        framework.set_default_dtype(framework.float32)


def test_a_complex_number_is_wrapped_as_complex128() -> None:
    """PyTorch wraps a Python complex as complex128: a complex128 tensor sees its exact value."""
    assert (framework.ones(1, dtype=framework.complex128) * (1.1 + 0.3j)).tolist() == [1.1 + 0.3j]
    assert (framework.ones(1) * (1.1 + 0.3j)).dtype is framework.complex64


def test_signed_zeros_get_wrapped_numbers_of_their_own() -> None:
    for value in (0.0, -0.0, 0.0, complex(1, 0.0), complex(1, -0.0), complex(1, 0.0), complex(-0.0, 0.0)):
        dtype = framework.float64 if isinstance(value, float) else framework.complex128
        (got,) = framework.empty(1, dtype=dtype).copy_(value).tolist()
        assert math.copysign(1, got.real) == math.copysign(1, value.real)
        assert math.copysign(1, got.imag) == math.copysign(1, value.imag)
    assert wrapped_number(2.5, CPU) is wrapped_number(2.5, CPU)
    assert wrapped_number(1, CPU) is not wrapped_number(True, CPU)


def test_wrapped_numbers_are_read_only() -> None:
    with pytest.raises(ValueError, match="read-only"):
        wrapped_number(2.5, CPU)._impl.numpy_view()[()] = 3.0


def test_numbers_go_with_meta_tensors_through_every_binding() -> None:
    """A wrapped number is a CPU scalar, which PyTorch lets meet a tensor on any device."""
    m = framework.empty(3, device="meta")
    results = (
        m * 2,
        m.mul(2),
        framework.mul(m, 2.5),
        2 - m,
        m.add(1, alpha=2),
        m.div(2, rounding_mode="trunc"),
    )
    for r in results:
        assert r.device.type == "meta" and r.shape == (3,) and r.dtype is framework.float32
    assert m.mul_(2) is m


def test_a_number_used_in_inference_mode_can_be_saved_for_backward_later() -> None:
    with framework.inference_mode():
        framework.ones(2) * 2.75
    x = framework.ones(2, requires_grad=True)
    (x * 2.75).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.75, 2.75]


def test_numbers_hold_no_allocator_memory() -> None:
    x = framework.ones(4)
    gc.collect()
    before = memory_stats()["live_bytes"]
    y = (x * 3.25 + 7 - 0.0) / 1.5
    del y
    assert memory_stats()["live_bytes"] == before
