"""Tensor attributes and small methods PyTorch scripts use: device and layout queries, the legacy
dtype conversions, `real`/`imag` (views, assignable), `new`, `apply_`/`map_`, `where` as a
method (its `self` is the schema's second argument), and what a CPU-only build says of
accelerators. Expected values and messages are PyTorch 2.13's."""

from __future__ import annotations

from typing import Any

import pytest

import framework


def test_device_and_layout_queries() -> None:
    cpu = framework.ones(2)
    meta = framework.empty(2, device="meta")
    assert (cpu.is_cpu, cpu.is_meta, meta.is_cpu, meta.is_meta) == (True, False, False, True)
    for t in (cpu, meta):
        assert (t.is_cuda, t.is_sparse, t.is_quantized, t.is_mkldnn, t.is_nested) == (False,) * 5
        assert t.layout is framework.strided
        assert t.get_device() == -1
        assert t.is_pinned() is False
    assert framework.ones(2, 3).ndimension() == 2


def test_accelerator_requests_fail_as_on_a_cpu_only_pytorch() -> None:
    with pytest.raises(RuntimeError, match=r"^Cannot access accelerator device when none is available.$"):
        framework.ones(2).pin_memory()
    with pytest.raises(AssertionError, match=r"^Torch not compiled with CUDA enabled$"):
        framework.ones(2).cuda()


@pytest.mark.parametrize(
    ("method", "dtype"),
    [
        ("byte", "uint8"),
        ("char", "int8"),
        ("short", "int16"),
        ("cfloat", "complex64"),
        ("cdouble", "complex128"),
    ],
)
def test_legacy_dtype_conversions(method: str, dtype: str) -> None:
    result = getattr(framework.tensor([1.5, -2.0]), method)()
    assert result.dtype is getattr(framework, dtype)
    expected = {"uint8": [1, 254], "int8": [1, -2], "int16": [1, -2]}.get(dtype, [1.5 + 0j, -2 + 0j])
    assert result.tolist() == expected


def test_real_and_imag_are_views_and_assignable() -> None:
    z = framework.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1.0, 3.0]
    assert z.imag.tolist() == [2.0, -4.0]
    assert z.real.dtype is framework.float32
    z.real = framework.tensor([5.0, 6.0])
    z.imag = 7
    assert z.tolist() == [5 + 7j, 6 + 7j]
    z.imag.mul_(2)  # a view: writing through it changes z
    assert z.tolist() == [5 + 14j, 6 + 14j]
    x = framework.tensor([1.0, 2.0])
    assert x.real is x
    x.real = 3
    assert x.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match=r"^imag is not implemented for tensors with non-complex dtypes.$"):
        x.imag  # noqa: B018
    with pytest.raises(RuntimeError, match=r"^imag is not implemented for tensors with non-complex dtypes.$"):
        x.imag = 1


def test_new_is_the_legacy_constructor_of_the_tensors_dtype() -> None:
    ints = framework.ones(2, dtype=framework.int32)
    assert ints.new([1.5, 2]).tolist() == [1, 2]
    assert ints.new([1.5, 2]).dtype is framework.int32
    assert ints.new(2, 3).shape == (2, 3)
    assert ints.new(2, 3).dtype is framework.int32
    assert ints.new().shape == (0,)
    assert framework.ones(1).new((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data
    with pytest.raises(
        RuntimeError, match="legacy constructor expects device type: cpu but device type: meta"
    ):
        framework.ones(1).new(device="meta")


def test_apply_and_map_call_python_per_element() -> None:
    x = framework.tensor([[1.0, 2.0], [3.0, 4.0]])
    seen: list[Any] = []
    assert x.apply_(lambda v: seen.append(v) or v * 10) is x
    assert seen == [1.0, 2.0, 3.0, 4.0]
    assert x.tolist() == [[10.0, 20.0], [30.0, 40.0]]
    x.t().map_(framework.tensor([1.0, 2.0]), lambda a, b: a + b)  # broadcast over a transposed view
    assert x.tolist() == [[11.0, 21.0], [32.0, 42.0]]
    ints = framework.tensor([1, 3])
    ints.apply_(lambda v: v / 2)  # stored as the dtype stores it
    assert ints.tolist() == [0, 1]


def test_apply_and_map_errors() -> None:
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        framework.ones(2, requires_grad=True).apply_(lambda v: v)
    with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires grad"):
        framework.ones(2, requires_grad=True).map_(framework.ones(2), lambda a, b: a)
    with pytest.raises(TypeError, match=r"^must be real number, not str$"):
        framework.ones(2).apply_(lambda v: "a")
    with pytest.raises(
        RuntimeError, match=r"The expanded size of the tensor \(2\) must match the existing size \(3\)"
    ):
        framework.ones(2).map_(framework.ones(3), lambda a, b: a)


def test_apply_bumps_the_version() -> None:
    x = framework.ones(2)
    before = x._version
    x.apply_(lambda v: v)
    assert x._version == before + 1


def test_where_method_takes_self_in_the_middle() -> None:
    x = framework.tensor([1.0, 2.0, 3.0])
    condition = x > 1.5
    assert x.where(condition, framework.zeros(3)).tolist() == [0.0, 2.0, 3.0]
    assert x.where(condition, -1.0).tolist() == [-1.0, 2.0, 3.0]
    assert x.where(condition, other=framework.full((3,), 9.0)).tolist() == [9.0, 2.0, 3.0]
    with pytest.raises(
        TypeError, match=r"where\(\) received an invalid combination of arguments - got \(Tensor\)"
    ):
        x.where(condition)  # type: ignore[call-overload]
