"""Factories through BackendSelect, composite factories, framework.tensor, and the random
operators matching PyTorch's CPU generator."""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import framework
from framework import Tensor
from framework.c10.dispatch_key import DispatchKey
from framework.library import dispatch_table
from framework.ops._api_runtime import FUNCTION_PARSERS, python_groups
from framework.ops._native import NATIVE

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")


def test_empty_goes_through_backend_select() -> None:
    table = dispatch_table("aten::empty.memory_format")
    assert table["BackendSelect"] == "BackendSelect"
    assert table["CPU"] == "CPU" and table["Meta"] == "Meta"
    assert framework.empty(2, device="meta").key_set.highest_priority_key() is DispatchKey.AutogradMeta
    assert framework.empty(2).key_set.highest_priority_key() is DispatchKey.AutocastCPU  # as in PyTorch


def test_rand_is_composite_of_empty_and_uniform() -> None:
    assert dispatch_table("aten::rand")["CPU"] == "CompositeExplicitAutograd"
    assert dispatch_table("aten::uniform_")["CPU"] == "CPU"


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_every_factory_works_on_both_devices(device: str) -> None:
    made = [
        framework.empty(2, 3, device=device),
        framework.empty_strided((2, 3), (1, 2), device=device),
        framework.zeros(2, 3, device=device),
        framework.ones(2, 3, device=device),
        framework.full((2, 3), 1.5, device=device),
        framework.rand(2, 3, device=device),
        framework.randn(2, 3, device=device),
        framework.randint(0, 5, (2, 3), device=device),
        framework.eye(2, 3, device=device),
    ]
    for t in made:
        assert t.device.type == device and t.shape == (2, 3)
    assert framework.arange(0, 6, device=device).shape == (6,)
    assert framework.linspace(0, 1, 6, device=device).shape == (6,)
    assert framework.randperm(6, device=device).shape == (6,)
    base = framework.empty(2, 3, device=device)
    for like in (framework.zeros_like, framework.ones_like, framework.empty_like, framework.rand_like):
        assert like(base).shape == (2, 3) and like(base).device.type == device
    assert framework.empty_strided((2, 3), (1, 2), device=device).stride() == (1, 2)


def test_factory_values_and_dtypes() -> None:
    np.testing.assert_array_equal(framework.zeros(2, 2).numpy(), np.zeros((2, 2), np.float32))
    assert framework.ones(3, dtype=framework.int8).numpy().tolist() == [1, 1, 1]
    assert framework.full((2,), 7).dtype is framework.int64
    assert framework.full((2,), True).dtype is framework.bool
    assert framework.full((2,), 2.5).dtype is framework.float32
    assert framework.full((1,), 1j).dtype is framework.complex64
    np.testing.assert_array_equal(framework.eye(2, 3).numpy(), np.eye(2, 3, dtype=np.float32))
    np.testing.assert_array_equal(framework.arange(1, 10, 3).numpy(), [1, 4, 7])
    assert framework.scalar_tensor(3).dtype is framework.float32
    transposed = framework.empty_strided((2, 3), (1, 2))
    assert framework.empty_like(transposed).stride() == (1, 2)  # preserve_format keeps the layout


def test_factory_errors() -> None:
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[2, -1\]"):
        framework.empty(2, -1)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        framework.arange(0, 1, 0)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        framework.arange(0, 5, -1)
    with pytest.raises(RuntimeError, match="Expected one of cpu, meta"):
        framework.zeros(2, device="gpu")


def test_tensor_infers_dtypes_like_pytorch() -> None:
    assert framework.tensor([1, 2]).dtype is framework.int64
    assert framework.tensor([1, 2.5]).dtype is framework.float32
    assert framework.tensor([True, False]).dtype is framework.bool
    assert framework.tensor([1j]).dtype is framework.complex64
    assert framework.tensor(np.array([1, 2], np.int16)).dtype is framework.int16
    assert framework.tensor(3.0).shape == ()
    np.testing.assert_array_equal(framework.tensor([[1, 2], [3, 4]]).numpy(), [[1, 2], [3, 4]])
    source = np.array([1.0, 2.0], np.float32)
    copy = framework.tensor(source)
    source[0] = 9
    assert copy.numpy().tolist() == [1.0, 2.0]  # tensor() copies, from_numpy() shares
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        framework.tensor([[1, 2], [3]])
    framework.set_default_dtype(framework.float64)
    try:
        assert framework.tensor([1.5]).dtype is framework.float64
        assert framework.tensor([1j]).dtype is framework.complex128
    finally:
        framework.set_default_dtype(framework.float32)


def test_requires_grad_through_make_variable() -> None:
    assert framework.rand(2, requires_grad=True).requires_grad
    assert not framework.rand(2).requires_grad
    assert framework.tensor([1.0], requires_grad=True).requires_grad


# PyTorch 2.13, torch.manual_seed(0): rand(3), then randn(3), randint(0, 10, (5,)), randperm(6).
SEED0 = {
    "rand": [0.49625658988952637, 0.7682217955589294, 0.08847743272781372],
    "randn": [0.3643381893634796, 0.13439632952213287, 0.16421625018119812],
    "randint": [6, 6, 9, 8, 6],
    "randperm": [0, 4, 1, 3, 2, 5],
}


def test_same_seed_same_numbers_as_pytorch_fixture() -> None:
    framework.manual_seed(0)
    assert framework.rand(3).numpy().tolist() == SEED0["rand"]
    assert framework.randn(3).numpy().tolist() == SEED0["randn"]
    assert framework.randint(0, 10, (5,)).tolist() == SEED0["randint"]
    assert framework.randperm(6).tolist() == SEED0["randperm"]
    assert framework.initial_seed() == 0


def test_generator_objects_and_state() -> None:
    g = framework.Generator().manual_seed(7)
    first = framework.rand(4, generator=g).numpy().copy()
    g.manual_seed(7)
    np.testing.assert_array_equal(framework.rand(4, generator=g).numpy(), first)
    framework.manual_seed(1)
    state = framework.get_rng_state()
    a = framework.randn(20).numpy().copy()
    framework.set_rng_state(state)
    np.testing.assert_array_equal(framework.randn(20).numpy(), a)


@needs_torch
@pytest.mark.parametrize("seed", [0, 5, 12345])
def test_random_ops_match_torch(seed: int) -> None:
    import torch

    framework.manual_seed(seed)
    torch.manual_seed(seed)
    pairs: list[tuple[Any, Any]] = [
        (framework.rand(4, 5), torch.rand(4, 5)),
        (framework.rand(3, dtype=framework.float64), torch.rand(3, dtype=torch.float64)),
        (framework.randn(40), torch.randn(40)),
        (framework.randint(-3, 7, (17,)), torch.randint(-3, 7, (17,))),
        (framework.randperm(30), torch.randperm(30)),
        (framework.empty(6).uniform_(-2, 3), torch.empty(6).uniform_(-2, 3)),
        (framework.empty(18).normal_(1.0, 0.5), torch.empty(18).normal_(1.0, 0.5)),
        (framework.rand_like(framework.empty(2, 2)), torch.rand_like(torch.empty(2, 2))),
    ]
    for ours, theirs in pairs:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


_LINSPACE_DTYPES = ("float16", "float32", "float64", "complex64", "complex128", "int64", "int16", "uint8")


@needs_torch
@pytest.mark.parametrize("d", _LINSPACE_DTYPES)
@pytest.mark.parametrize(
    ("start", "end", "steps"),
    [(0, 1, 5), (-2, 3, 7), (0.1, 0.7, 13), (-7.3, 2.2, 1000), (3.7, -81.25, 257), (0, 200, 40001)],
)
def test_linspace_matches_torch_bit_for_bit(d: str, start: float, end: float, steps: int) -> None:
    import torch

    if d == "uint8":
        start, end = abs(start), abs(end)
    np.testing.assert_array_equal(
        framework.linspace(start, end, steps, dtype=getattr(framework, d)).numpy(),
        torch.linspace(start, end, steps, dtype=getattr(torch, d)).numpy(),
    )


@needs_torch
@pytest.mark.parametrize("d", ["complex64", "complex128"])
@pytest.mark.parametrize(("start", "end"), [(1j, 5.0), (-2.5 + 3j, 7.25 - 1.5j)])
def test_complex_linspace_matches_torch_bit_for_bit(d: str, start: complex, end: complex) -> None:
    import torch

    np.testing.assert_array_equal(
        framework.linspace(start, end, 9, dtype=getattr(framework, d)).numpy(),
        torch.linspace(start, end, 9, dtype=getattr(torch, d)).numpy(),
    )


def test_linspace_values_recorded_from_torch() -> None:
    # PyTorch 2.13: float64 uses fused multiply-adds, float16 rounds every step to half.
    assert framework.linspace(-2, 3, 7, dtype=framework.float64)[3].item() == 0.4999999999999999
    assert framework.linspace(-2, 3, 7, dtype=framework.float16).tolist() == [
        -2.0, -1.166015625, -0.3330078125, 0.5, 1.3330078125, 2.166015625, 3.0,
    ]  # fmt: skip
    assert framework.linspace(-2, 3, 7, dtype=framework.uint8).tolist() == [254, 212, 170, 128, 86, 44, 3]


@needs_torch
@pytest.mark.parametrize("d", ["float16", "float32", "float64", "int64", "int32", "int8"])
@pytest.mark.parametrize(
    ("start", "end", "step"),
    [(0, 1, 0.1), (-5, 5, 3), (-7.3, 1823.9, 0.7), (25.59, 113.95, 0.1), (0.5, 4.2, 0.7), (-0.7, 5.2, 1)],
)
def test_arange_matches_torch_bit_for_bit(d: str, start: float, end: float, step: float) -> None:
    import torch

    try:
        expected = torch.arange(start, end, step, dtype=getattr(torch, d)).numpy()
    except (RuntimeError, ValueError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            framework.arange(start, end, step, dtype=getattr(framework, d))
        return
    np.testing.assert_array_equal(
        framework.arange(start, end, step, dtype=getattr(framework, d)).numpy(), expected
    )


def test_arange_values_recorded_from_torch() -> None:
    # PyTorch 2.13 (AVX2): 8-lane blocks of float32 count from each block's first value.
    expected = [-3.3000001907348633, -2.3000001907348633, -1.3000001907348633, -0.3000001907348633]
    assert framework.arange(-7.3, 10, 1).numpy()[4:8].tolist() == expected
    assert framework.arange(-0.7, 5.2, 1, dtype=framework.int64).tolist() == [0, 1, 2, 3, 4]
    assert framework.arange(0, 5, 1.5, dtype=framework.int32).tolist() == [0, 1, 2, 3]


def test_overloads_pick_by_arguments() -> None:
    np.testing.assert_array_equal(framework.arange(5).numpy(), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(framework.arange(2, 5).numpy(), [2, 3, 4])
    assert framework.arange(5.0).dtype is framework.float32
    np.testing.assert_array_equal(framework.eye(2).numpy(), np.eye(2, dtype=np.float32))
    like = framework.randint_like(framework.empty(3, dtype=framework.float64), 2, 4)
    assert like.dtype is framework.float64 and set(like.tolist()) <= {2.0, 3.0}


@needs_torch
def test_randint_like_matches_torch() -> None:
    import torch

    framework.manual_seed(9)
    torch.manual_seed(9)
    np.testing.assert_array_equal(
        framework.randint_like(framework.empty(2, 7), 100).numpy(),
        torch.randint_like(torch.empty(2, 7), 100).numpy(),
    )


# ---- out= overloads ------------------------------------------------------------------------------

_RNG_FIXTURES: dict[str, dict[str, Any]] = {
    case["name"]: case
    for case in json.loads((Path(__file__).parents[1] / "data" / "rng_fixtures.json").read_text())["cases"]
}


def _decoded(name: str) -> npt.NDArray[Any]:
    data = _RNG_FIXTURES[name]["results"][0]
    return np.frombuffer(base64.b64decode(data["b64"]), dtype=data["dtype"])


def _seeded(seed: int) -> framework.Generator:
    return framework.Generator().manual_seed(seed)


_OUT_FACTORIES = ("empty", "zeros", "ones", "full", "arange", "linspace", "eye", "rand", "randn", "randint")
_OUT_FACTORIES += ("randperm",)


def test_out_factories_pair_with_their_functional_overloads() -> None:
    groups = python_groups(NATIVE)
    paired = {o.out.overload_name for name in _OUT_FACTORIES for o in groups[name] if o.out is not None}
    assert paired == {
        "out",
        "start_out",
        "m_out",
        "generator_out",
        "low_out",
        "low_generator_out",
    }
    unpaired = [o.schema.overload_name for o in groups["arange"] if o.out is None]
    assert unpaired == ["start"]  # as in PyTorch: arange(start, end, out=) takes arange.start_out
    assert "out" not in {o.schema.overload_name for name in groups for o in groups[name]}
    (zeros,) = FUNCTION_PARSERS["zeros"].signatures
    assert zeros.describe().endswith("bool pin_memory = None, Tensor out = None, bool requires_grad = False)")


@pytest.mark.parametrize(
    ("make", "sizes"),
    [
        (lambda out: framework.zeros(2, 3, out=out), (2, 3)),
        (lambda out: framework.ones((2, 3), out=out), (2, 3)),
        (lambda out: framework.full((2, 3), 7, out=out), (2, 3)),
        (lambda out: framework.empty(2, 3, out=out), (2, 3)),
        (lambda out: framework.rand(2, 3, out=out), (2, 3)),
        (lambda out: framework.randn(2, 3, generator=_seeded(1), out=out), (2, 3)),
        (lambda out: framework.randint(5, (2, 3), out=out), (2, 3)),
        (lambda out: framework.randint(1, 5, (2, 3), generator=_seeded(1), out=out), (2, 3)),
        (lambda out: framework.randperm(6, out=out), (6,)),
        (lambda out: framework.randperm(6, generator=_seeded(1), out=out), (6,)),
        (lambda out: framework.eye(3, out=out), (3, 3)),
        (lambda out: framework.eye(2, 3, out=out), (2, 3)),
    ],
)
@pytest.mark.parametrize("initial", [(0,), (5,), (3, 2), (2, 3)])
def test_out_factories_resize_without_warning_and_keep_dtype(
    make: Any, sizes: tuple[int, ...], initial: tuple[int, ...]
) -> None:
    out = framework.empty(*initial, dtype=framework.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert make(out) is out
    assert out.shape == sizes and out.dtype is framework.float64 and out.is_contiguous()


def test_out_factories_keep_the_strides_of_an_out_of_the_right_shape() -> None:
    transposed = framework.empty(3, 2).t()
    framework.eye(2, 3, out=transposed)
    assert transposed.stride() == (1, 2)
    np.testing.assert_array_equal(transposed.numpy(), np.eye(2, 3))
    framework.full((2, 3), 4.0, out=transposed)
    assert transposed.stride() == (1, 2) and transposed.numpy().tolist() == [[4.0] * 3] * 2


def test_arange_and_linspace_out_resize_by_element_count() -> None:
    grid = framework.empty(2, 3)
    framework.arange(0, 6, out=grid)
    assert grid.shape == (2, 3) and grid.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    framework.linspace(0, 5, 6, out=grid)
    assert grid.shape == (2, 3)
    message = (
        r"The number of elements in the out tensor of shape \[5\] is 5 which does not match the computed "
        r"number of elements 6. Note that this may occur as a result of rounding error. The out tensor "
        r"will be resized to a tensor of shape \(6,\)."
    )
    with pytest.warns(UserWarning, match=message):
        framework.arange(6, out=framework.empty(5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert framework.linspace(0, 1, 4, out=framework.empty(2, 3)).shape == (4,)
        assert framework.arange(6, out=framework.empty(0)).shape == (6,)


def test_out_factories_on_meta() -> None:
    out = framework.empty(0, device="meta", dtype=framework.float16)
    for make in (
        lambda: framework.zeros(2, 3, out=out),
        lambda: framework.rand(2, 3, out=out),
        lambda: framework.randint(3, (2, 3), out=out),
    ):
        assert make() is out and out.shape == (2, 3) and out.device.type == "meta"
    assert framework.arange(6, out=out).shape == (2, 3)
    assert framework.randperm(4, out=out).shape == (4,)
    assert framework.eye(2, out=out).shape == (2, 2)


def test_out_factories_check_options_against_out() -> None:
    out = framework.empty(2, dtype=framework.int32)
    with pytest.raises(RuntimeError, match=r"^dtype Float does not match dtype of out parameter \(Int\)$"):
        framework.zeros(2, dtype=framework.float32, out=out)
    with pytest.raises(RuntimeError, match=r"^dtype Long does not match dtype of out parameter \(Int\)$"):
        framework.randint(3, (2,), dtype=framework.int64, out=out)
    message = r"^device type meta does not match device type of out parameter \(cpu\)$"
    with pytest.raises(RuntimeError, match=message):
        framework.arange(3, device="meta", out=out)
    assert framework.zeros(2, dtype=framework.int32, device="cpu", out=out) is out
    assert framework.randint(3, (2,), out=out) is out  # randint's default dtype is not a given one
    assert framework.zeros(2, out=framework.empty(0), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        framework.zeros(2, out=out, requires_grad=True)


def test_out_factory_errors() -> None:
    def out(d: framework.dtype = framework.float32) -> Tensor:
        return framework.empty(0, dtype=d)

    with pytest.raises(RuntimeError, match="'memory_format' argument is incompatible with 'out' tensor"):
        framework.empty(2, memory_format=framework.contiguous_format, out=out())
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Bool'"):
        framework.rand(2, out=out(framework.bool))
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Int'"):
        framework.randn(2, out=out(framework.int32))
    with pytest.raises(NotImplementedError, match="\"randperm\" not implemented for 'ComplexFloat'"):
        framework.randperm(3, out=out(framework.complex64))
    with pytest.raises(NotImplementedError, match="\"arange_cpu\" not implemented for 'Bool'"):
        framework.arange(3, out=out(framework.bool))
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        framework.linspace(0, 1, 3, out=out(framework.bool))
    with pytest.raises(RuntimeError, match=r"n cannot be greater than 2049 for Half type\."):
        framework.randperm(3000, out=out(framework.float16))
    with pytest.raises(RuntimeError, match=r"^n must be non-negative, got-1$"):
        framework.randperm(-1, out=out())
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        framework.randint(5, 5, (2,), out=out(framework.int64))
    with pytest.raises(RuntimeError, match=r"^to - 1 is out of bounds for bool$"):
        framework.randint(5, (2,), out=out(framework.bool))
    with pytest.raises(RuntimeError, match=r"^m must be greater or equal to 0, got -1$"):
        framework.eye(2, -1, out=out())
    with pytest.raises(RuntimeError, match=r"^number of steps must be non-negative$"):
        framework.linspace(0, 1, -1, out=out())
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int8_t without overflow$"):
        framework.full((2,), 300, out=out(framework.int8))
    with pytest.raises(ValueError, match=r"^step must be nonzero$"):
        framework.arange(0, 5, 0.5, out=out(framework.int64))


@pytest.mark.parametrize("seed", [0, 42])
@pytest.mark.parametrize("n", [5, 17])
@pytest.mark.parametrize("d", ["float16", "float32", "float64"])
def test_rand_and_randn_out_draw_pytorchs_numbers(seed: int, n: int, d: str) -> None:
    for op, sampler in (("rand", framework.rand), ("randn", framework.randn)):
        out = framework.empty(3, dtype=getattr(framework, d))
        assert sampler(n, generator=_seeded(seed), out=out) is out
        np.testing.assert_array_equal(out.numpy(), _decoded(f"{op}-{d}-{n}-seed{seed}"))


@pytest.mark.parametrize("seed", [0, 42])
def test_randint_and_randperm_out_draw_pytorchs_numbers(seed: int) -> None:
    out = framework.empty(0, dtype=framework.int64)
    framework.randint(-5, 5, (100,), generator=_seeded(seed), out=out)
    np.testing.assert_array_equal(out.numpy(), _decoded(f"randint--5-5-seed{seed}"))
    framework.randint(-(2**40), 2**40, (100,), generator=_seeded(seed), out=out)
    np.testing.assert_array_equal(out.numpy(), _decoded(f"randint--{2**40}-{2**40}-seed{seed}"))
    small = framework.empty(0, dtype=framework.int8)
    framework.randint(-128, 128, (100,), generator=_seeded(seed), out=small)
    np.testing.assert_array_equal(small.numpy(), _decoded(f"randint-int8-seed{seed}"))
    framework.randperm(20, generator=_seeded(seed), out=out)
    np.testing.assert_array_equal(out.numpy(), _decoded(f"randperm-20-seed{seed}"))
    half = framework.empty(7, dtype=framework.float16)
    framework.randperm(300, generator=_seeded(seed), out=half)
    np.testing.assert_array_equal(half.numpy(), _decoded(f"randperm-float16-seed{seed}"))


def test_out_factories_use_the_default_generator() -> None:
    framework.manual_seed(0)
    out = framework.empty(0)
    framework.rand(3, out=out)
    assert out.numpy().tolist() == SEED0["rand"]
    framework.randn(3, out=out)
    assert out.numpy().tolist() == SEED0["randn"]
    framework.randint(0, 10, (5,), out=out)
    assert out.tolist() == SEED0["randint"]
    framework.randperm(6, out=out)
    assert out.tolist() == SEED0["randperm"]


_OUT_CALLS = (
    "zeros(2, 3, out=out)",
    "ones(4, out=out)",
    "full((2, 2), 2.5, out=out)",
    "full((3,), True, out=out)",
    "arange(7, out=out)",
    "arange(-3, 4, 2, out=out)",
    "arange(0.5, 4.2, 0.7, out=out)",
    "arange(-0.7, 5.2, 1, out=out)",
    "linspace(-2, 3, 7, out=out)",
    "linspace(0, 10, 4, out=out)",
    "linspace(1.5, 9, 1, out=out)",
    "eye(3, out=out)",
    "eye(2, 4, out=out)",
    "rand(2, 3, out=out)",
    "randn(7, out=out)",
    "randint(0, 3, (4,), out=out)",
    "randint(3, (2, 2), generator=gen, out=out)",
    "randperm(9, out=out)",
    "randperm(9, generator=gen, out=out)",
    "rand(4, generator=gen, out=out)",
)
_OUT_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
_OUT_DTYPES += ("complex64", "complex128")


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("call", _OUT_CALLS)
@pytest.mark.parametrize("d", _OUT_DTYPES)
@pytest.mark.parametrize("initial", [(0,), (5,), (2, 3)])
def test_out_factories_match_torch(call: str, d: str, initial: tuple[int, ...]) -> None:
    import torch

    results = []
    for lib in (framework, torch):
        lib.manual_seed(3)
        namespace = {"out": lib.empty(initial, dtype=getattr(lib, d)), "gen": lib.Generator().manual_seed(4)}
        try:
            result = eval(f"lib.{call}", {"lib": lib}, namespace)
        except (RuntimeError, ValueError) as e:  # NotImplementedError included
            results.append((type(e), str(e)))
            continue
        assert result is namespace["out"]
        results.append((result.dtype.__str__().split(".")[-1], tuple(result.shape), result.numpy().tolist()))
    assert results[0] == results[1]
