"""Factories through BackendSelect, composite factories, framework.tensor, and the random
operators matching PyTorch's CPU generator."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import framework
from framework.c10.dispatch_key import DispatchKey
from framework.library import dispatch_table

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")


def test_empty_goes_through_backend_select() -> None:
    table = dispatch_table("aten::empty.memory_format")
    assert table["BackendSelect"] == "BackendSelect"
    assert table["CPU"] == "CPU" and table["Meta"] == "Meta"
    assert framework.empty(2, device="meta").key_set.highest_priority_key() is DispatchKey.AutogradMeta
    assert framework.empty(2).key_set.highest_priority_key() is DispatchKey.AutogradCPU


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
    with pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent with step sign"):
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


@needs_torch
@pytest.mark.parametrize(
    ("start", "end", "steps"), [(0, 1, 5), (-2, 3, 7), (0.1, 0.7, 13), (-7.3, 2.2, 1000)]
)
def test_linspace_float32_matches_torch_bit_for_bit(start: float, end: float, steps: int) -> None:
    import torch

    np.testing.assert_array_equal(
        framework.linspace(start, end, steps).numpy(), torch.linspace(start, end, steps).numpy()
    )
    np.testing.assert_allclose(
        framework.linspace(start, end, steps, dtype=framework.float64).numpy(),
        torch.linspace(start, end, steps, dtype=torch.float64).numpy(),
        rtol=0,
        atol=4e-16 * max(abs(start), abs(end)),
    )


@needs_torch
def test_arange_matches_torch() -> None:
    import torch

    np.testing.assert_array_equal(framework.arange(0, 1, 0.1).numpy(), torch.arange(0, 1, 0.1).numpy())
    np.testing.assert_array_equal(framework.arange(-5, 5, 3).numpy(), torch.arange(-5, 5, 3).numpy())


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
