"""3-d layers, fold/unfold, max unpooling and lazy modules: values against NumPy references, and
(when PyTorch is importable) values, gradients, dtypes, reprs, initial values and error messages
against PyTorch for the same weights."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import framework
import framework.nn.functional as F
from framework import nn

HAS_TORCH = importlib.util.find_spec("torch") is not None
RNG = np.random.default_rng(7)
X5 = RNG.standard_normal((2, 3, 4, 5, 6))


def _t(a: np.ndarray) -> framework.Tensor:
    return framework.tensor(a)


# ---- NumPy references ---------------------------------------------------------------------------


def test_conv3d_matches_a_direct_sum() -> None:
    w = RNG.standard_normal((4, 3, 2, 3, 2))
    b = RNG.standard_normal(4)
    windows = sliding_window_view(X5, (2, 3, 2), axis=(2, 3, 4))  # (N, C, D', H', W', kd, kh, kw)
    expected = np.einsum("ncdhwijk,fcijk->nfdhw", windows, w) + b[:, None, None, None]
    np.testing.assert_allclose(F.conv3d(_t(X5), _t(w), _t(b)).numpy(), expected, rtol=1e-12)


def test_conv_transpose3d_is_the_input_gradient_of_conv3d() -> None:
    w = RNG.standard_normal((3, 2, 2, 2, 3))
    x = _t(RNG.standard_normal((1, 2, 3, 4, 4))).requires_grad_()
    out = F.conv3d(x, _t(w), stride=(2, 1, 2))
    g = RNG.standard_normal(tuple(out.shape))
    out.backward(_t(g))
    transposed = F.conv_transpose3d(_t(g), _t(w), stride=(2, 1, 2), output_padding=(1, 0, 1))
    assert x.grad is not None
    np.testing.assert_allclose(transposed.numpy(), x.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool3d_matches_window_reductions(kind: str) -> None:
    windows = sliding_window_view(X5, (2, 2, 3), axis=(2, 3, 4))[:, :, ::2, ::2, ::3]
    reduce = np.max if kind == "max" else np.mean
    expected = reduce(windows, axis=(-3, -2, -1))
    pool = F.max_pool3d if kind == "max" else F.avg_pool3d
    np.testing.assert_allclose(pool(_t(X5), (2, 2, 3)).numpy(), expected, rtol=1e-12)


def test_max_pool3d_indices_and_unpool() -> None:
    x = _t(X5)
    values, indices = F.max_pool3d(x, 2, return_indices=True)
    flat = X5.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), -1).ravel(), values.numpy().ravel()
    )
    restored = F.max_unpool3d(values, indices, 2, output_size=(4, 5, 6)).numpy()
    assert restored.shape == X5.shape
    assert np.count_nonzero(restored) == values.numel()
    np.testing.assert_array_equal(restored[restored != 0], X5[restored != 0])


def test_max_unpool1d_inverts_max_pool1d() -> None:
    x = _t(np.abs(RNG.standard_normal((2, 3, 7))) + 0.1)
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    restored = nn.MaxUnpool1d(2)(values, indices, output_size=[7])
    assert restored.shape == (2, 3, 7)
    assert np.count_nonzero(restored.numpy()) == values.numel()
    np.testing.assert_array_equal(F.max_pool1d(restored, 2).numpy(), values.numpy())


def test_adaptive_pool3d_of_divisible_sizes_is_a_block_reduction() -> None:
    blocks = X5.reshape(2, 3, 2, 2, 5, 1, 3, 2)
    np.testing.assert_allclose(
        F.adaptive_avg_pool3d(_t(X5), (2, 5, 3)).numpy(), blocks.mean(axis=(3, 5, 7)), rtol=1e-12
    )
    np.testing.assert_allclose(
        F.adaptive_max_pool3d(_t(X5), (2, 5, 3)).numpy(), blocks.max(axis=(3, 5, 7)), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("mode", "np_mode"), [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
def test_pad3d_modes_match_numpy(mode: str, np_mode: str) -> None:
    pads = (1, 2, 0, 1, 2, 1)
    expected = np.pad(X5, [(0, 0), (0, 0), (2, 1), (0, 1), (1, 2)], mode=np_mode)  # type: ignore[call-overload]
    np.testing.assert_array_equal(F.pad(_t(X5), pads, mode=mode).numpy(), expected)


def test_unfold_and_fold() -> None:
    x = RNG.standard_normal((2, 3, 4, 6))
    cols = F.unfold(_t(x), (2, 3), stride=(2, 3))
    expected = x.reshape(2, 3, 2, 2, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 18, 4)
    np.testing.assert_array_equal(cols.numpy(), expected)
    np.testing.assert_array_equal(nn.Fold((4, 6), (2, 3), stride=(2, 3))(cols).numpy(), x)
    ones = framework.ones(1, 1, 3, 3)
    counts = F.fold(F.unfold(ones, 2), 3, 2)  # overlapping blocks add up
    np.testing.assert_array_equal(counts.numpy()[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_batch_norm3d_normalizes_per_channel() -> None:
    bn = nn.BatchNorm3d(3).double()
    out = bn(_t(X5)).detach().numpy()
    mean = X5.mean(axis=(0, 2, 3, 4), keepdims=True)
    var = X5.var(axis=(0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(out, (X5 - mean) / np.sqrt(var + 1e-5), rtol=1e-10)
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        bn(_t(X5[0]))


def test_lazy_linear_infers_and_becomes_linear() -> None:
    layer = nn.LazyLinear(3)
    assert isinstance(layer.weight, nn.UninitializedParameter)
    assert repr(layer.weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        _ = layer.weight.shape
    out = layer(framework.randn(2, 5))
    assert type(layer) is nn.Linear and type(layer.weight) is nn.Parameter
    assert (layer.in_features, tuple(layer.weight.shape), tuple(out.shape)) == (5, (3, 5), (2, 3))
    assert not layer._forward_pre_hooks


@pytest.mark.parametrize(
    ("make", "input_shape", "becomes", "weight_shape"),
    [
        (lambda: nn.LazyConv3d(4, 2, groups=2), (2, 6, 3, 3, 3), nn.Conv3d, (4, 3, 2, 2, 2)),
        (lambda: nn.LazyConvTranspose2d(4, 2), (3, 3, 3), nn.ConvTranspose2d, (3, 4, 2, 2)),
        (lambda: nn.LazyBatchNorm1d(), (4, 5), nn.BatchNorm1d, (5,)),
        (lambda: nn.LazyInstanceNorm3d(), (2, 3, 2, 2, 2), nn.InstanceNorm3d, (3,)),
    ],
)
def test_lazy_layers_infer_their_shapes(
    make: Callable[[], nn.Module], input_shape: tuple[int, ...], becomes: type, weight_shape: tuple[int, ...]
) -> None:
    layer = make()
    layer(framework.randn(*input_shape))
    assert type(layer) is becomes
    assert tuple(layer.weight.shape) == weight_shape


def test_lazy_module_loads_a_state_dict_before_its_first_call() -> None:
    source = nn.Linear(4, 2)
    layer = nn.LazyLinear(2)
    uninitialized = layer.state_dict()
    assert isinstance(uninitialized["weight"], nn.UninitializedParameter)
    layer.load_state_dict(source.state_dict())
    assert type(layer.weight) is nn.Parameter
    np.testing.assert_array_equal(layer.weight.detach().numpy(), source.weight.detach().numpy())
    x = framework.randn(3, 4)
    np.testing.assert_array_equal(layer(x).detach().numpy(), source(x).detach().numpy())
    assert type(layer) is nn.Linear


def test_lazy_conv_rejects_a_wrong_rank() -> None:
    with pytest.raises(
        RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) input to LazyConv3d"
    ):
        nn.LazyConv3d(2, 1)(framework.randn(2, 3, 4))


def test_uninitialized_buffer_materializes_to_a_tensor() -> None:
    buffer = nn.UninitializedBuffer(dtype=framework.float64)
    buffer.materialize((2, 3))
    assert type(buffer) is framework.Tensor
    assert (tuple(buffer.shape), buffer.dtype, buffer.requires_grad) == ((2, 3), framework.float64, False)


# ---- against PyTorch ----------------------------------------------------------------------------

torch_only = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")

MODULES: dict[str, tuple[Callable[[Any], Any], tuple[int, ...]]] = {
    "conv3d": (
        lambda t: t.nn.Conv3d(3, 4, (2, 3, 2), stride=(1, 2, 1), padding=1, dilation=(1, 1, 2)),
        (2, 3, 4, 5, 6),
    ),
    "conv3d_same": (
        lambda t: t.nn.Conv3d(3, 6, (2, 3, 2), padding="same", groups=3, bias=False),
        (3, 4, 5, 6),
    ),
    "conv3d_circular": (lambda t: t.nn.Conv3d(3, 2, 3, padding=1, padding_mode="circular"), (1, 3, 3, 4, 5)),
    "conv_transpose3d": (
        lambda t: t.nn.ConvTranspose3d(3, 4, 2, stride=2, output_padding=1, groups=1),
        (2, 3, 2, 3, 2),
    ),
    "batch_norm3d": (lambda t: t.nn.BatchNorm3d(3, momentum=None), (2, 3, 2, 3, 4)),
    "max_pool3d": (
        lambda t: t.nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True),
        (2, 3, 5, 6, 7),
    ),
    "avg_pool3d": (
        lambda t: t.nn.AvgPool3d((2, 2, 3), stride=1, padding=1, ceil_mode=True, count_include_pad=False),
        (2, 3, 4, 5, 6),
    ),
    "avg_pool3d_divisor": (lambda t: t.nn.AvgPool3d(2, divisor_override=3), (3, 4, 5, 6)),
    "adaptive_avg_pool3d": (lambda t: t.nn.AdaptiveAvgPool3d((3, None, 4)), (2, 3, 5, 6, 7)),
    "adaptive_max_pool3d": (lambda t: t.nn.AdaptiveMaxPool3d((3, 2, 4)), (2, 3, 5, 6, 7)),
    "reflection_pad3d": (lambda t: t.nn.ReflectionPad3d((1, 2, 0, 1, 2, 1)), (2, 3, 4, 5, 6)),
    "replication_pad3d": (lambda t: t.nn.ReplicationPad3d(2), (3, 4, 5, 6)),
    "circular_pad3d": (lambda t: t.nn.CircularPad3d((1, 0, 2, 1, 0, 3)), (2, 3, 4, 5, 6)),
    "unfold": (lambda t: t.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (2, 3, 5, 6)),
    "fold": (lambda t: t.nn.Fold((5, 6), (2, 3), padding=(1, 0), stride=(2, 1)), (2, 18, 12)),
    "lazy_linear": (lambda t: t.nn.LazyLinear(4), (2, 5)),
    "lazy_conv1d": (lambda t: t.nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    "lazy_conv_transpose3d": (lambda t: t.nn.LazyConvTranspose3d(2, 2, stride=2), (3, 2, 2, 3)),
    "lazy_batch_norm2d": (lambda t: t.nn.LazyBatchNorm2d(), (2, 3, 4, 5)),
    "lazy_instance_norm1d": (lambda t: t.nn.LazyInstanceNorm1d(), (2, 3, 5)),
}


@torch_only
@pytest.mark.parametrize("name", list(MODULES))
def test_module_matches_torch(name: str) -> None:
    import torch

    make, shape = MODULES[name]
    x = RNG.standard_normal(shape)
    torch.manual_seed(3)
    expected_module = make(torch).double()
    framework.manual_seed(3)
    module = make(framework).double()
    assert repr(module) == repr(expected_module)
    tx, fx = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    expected, actual = expected_module(tx), module(fx)
    assert repr(module) == repr(expected_module)  # lazy modules have become the regular class
    assert type(module).__name__ == type(expected_module).__name__
    assert actual.grad_fn is not None and expected.grad_fn is not None
    if name != "circular_pad3d":  # F.pad's circular mode concatenates (CatBackward0), PyTorch copies slices
        assert type(actual.grad_fn).__name__ == type(expected.grad_fn).__name__
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = RNG.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(g))
    actual.backward(framework.tensor(g))
    assert fx.grad is not None and tx.grad is not None
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (n, p), (_, q) in zip(module.named_parameters(), expected_module.named_parameters(), strict=True):
        assert p.grad is not None and q.grad is not None, n
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


@torch_only
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize(
    "name",
    [
        "max_pool1d",
        "max_pool2d",
        "max_pool3d",
        "adaptive_max_pool1d",
        "adaptive_max_pool2d",
        "adaptive_max_pool3d",
    ],
)
def test_with_indices_functions_match_torch(name: str, return_indices: bool) -> None:
    import torch

    n = int(name[-2])
    x = RNG.standard_normal((2, 3, *(5,) * n))
    expected = getattr(torch.nn.functional, f"{name}_with_indices")(
        torch.tensor(x), 2, return_indices=return_indices
    )
    actual = getattr(F, f"{name}_with_indices")(framework.tensor(x), 2, return_indices=return_indices)
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_array_equal(a.numpy(), e.numpy())
        assert str(a.dtype) == str(e.dtype).replace("torch", "framework")


ERRORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("max_pool3d kernel", lambda t: t.ops.aten.max_pool3d_with_indices(t.zeros(1, 2, 4, 4, 4), [2, 2])),
    ("avg_pool3d stride", lambda t: t.ops.aten.avg_pool3d(t.zeros(1, 2, 4, 4, 4), [2, 2, 2], [1, 1])),
    ("max_pool3d rank", lambda t: t.nn.functional.max_pool3d(t.zeros(4, 4, 4), 2)),
    (
        "max_pool3d dilation",
        lambda t: t.nn.functional.max_pool3d(t.zeros(1, 2, 4, 4, 4), 2, dilation=(0, 1, 1)),
    ),
    ("max_pool3d empty", lambda t: t.nn.functional.max_pool3d(t.zeros(1, 0, 4, 4, 4), 2)),
    ("max_pool3d too small", lambda t: t.nn.functional.max_pool3d(t.zeros(1, 2, 1, 4, 4), 2)),
    (
        "max_pool3d pad",
        lambda t: t.nn.functional.max_pool3d(t.zeros(1, 2, 4, 4, 4), 3, 2, (0, 0, 2), (1, 1, 2)),
    ),
    ("max_pool3d bool", lambda t: t.nn.functional.max_pool3d(t.zeros(1, 2, 4, 4, 4, dtype=t.bool), 2)),
    (
        "avg_pool3d kernel",
        lambda t: t.nn.functional.avg_pool3d(t.zeros(1, 2, 4, 4, 1), (1, 1, 3), 1, (0, 0, 1)),
    ),
    ("avg_pool3d int", lambda t: t.nn.functional.avg_pool3d(t.zeros(1, 2, 4, 4, 4, dtype=t.int32), 2)),
    (
        "avg_pool3d divisor",
        lambda t: t.nn.functional.avg_pool3d(t.zeros(1, 2, 4, 4, 4), 2, divisor_override=0),
    ),
    ("adaptive_avg_pool3d rank", lambda t: t.nn.functional.adaptive_avg_pool3d(t.zeros(4, 4, 4), 2)),
    (
        "adaptive_max_pool3d long",
        lambda t: t.nn.functional.adaptive_max_pool3d(t.zeros(1, 2, 4, 4, 4, dtype=t.long), 2),
    ),
    (
        "reflection_pad3d too much",
        lambda t: t.nn.functional.pad(t.zeros(1, 2, 3, 4, 5), (1, 1, 4, 1, 1, 1), "reflect"),
    ),
    (
        "replication_pad3d negative",
        lambda t: t.nn.functional.pad(t.zeros(1, 2, 3, 4, 5), (1, 1, 1, 1, -2, -2), "replicate"),
    ),
    ("pad size", lambda t: t.nn.functional.pad(t.zeros(1, 2, 3, 4, 5), (1, 1), "reflect")),
    ("unfold kernel", lambda t: t.nn.functional.unfold(t.zeros(1, 2, 4, 4), (5, 2))),
    ("unfold rank", lambda t: t.nn.functional.unfold(t.zeros(1, 2, 3, 4, 4), 2)),
    ("unfold int", lambda t: t.nn.functional.unfold(t.zeros(1, 2, 4, 4, dtype=t.int32), 2)),
    ("fold blocks", lambda t: t.nn.functional.fold(t.zeros(1, 8, 8), (4, 4), 2)),
    ("fold divisible", lambda t: t.nn.functional.fold(t.zeros(1, 7, 9), (4, 4), 2)),
    ("fold padding", lambda t: t.nn.functional.fold(t.zeros(1, 8, 9), (4, 4), 2, padding=-1)),
    (
        "max_unpool3d output size",
        lambda t: t.nn.functional.max_unpool3d(
            t.zeros(1, 1, 2, 2, 2), t.zeros(1, 1, 2, 2, 2, dtype=t.long), 2, output_size=(9, 4, 4)
        ),
    ),
    (
        "max_unpool3d index",
        lambda t: t.ops.aten.max_unpool3d(
            t.zeros(1, 1, 2, 2, 2), t.full((1, 1, 2, 2, 2), 70), [4, 4, 4], [2, 2, 2], [0, 0, 0]
        ),
    ),
    (
        "max_unpool3d int",
        lambda t: t.ops.aten.max_unpool3d(
            t.zeros(1, 1, 2, 2, 2, dtype=t.int32),
            t.zeros(1, 1, 2, 2, 2, dtype=t.long),
            [4, 4, 4],
            [2, 2, 2],
            [0, 0, 0],
        ),
    ),
    (
        "conv3d bool",
        lambda t: t.nn.functional.conv3d(
            t.zeros(1, 2, 3, 3, 3, dtype=t.bool), t.zeros(2, 2, 2, 2, 2, dtype=t.bool)
        ),
    ),
    (
        "conv_transpose3d int",
        lambda t: t.nn.functional.conv_transpose3d(
            t.zeros(1, 2, 3, 3, 3, dtype=t.int32), t.zeros(2, 2, 2, 2, 2, dtype=t.int32)
        ),
    ),
    ("batch_norm3d rank", lambda t: t.nn.BatchNorm3d(2)(t.zeros(2, 2, 3, 3))),
    ("lazy conv groups", lambda t: t.nn.LazyConv2d(4, 1, groups=2)(t.zeros(1, 3, 2, 2))),
]


@torch_only
@pytest.mark.parametrize(("name", "call"), ERRORS, ids=[name for name, _ in ERRORS])
def test_errors_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    import torch

    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as actual:
        call(framework)
    assert str(actual.value) == str(expected.value)
