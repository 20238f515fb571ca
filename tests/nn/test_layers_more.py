"""Group/instance/local response normalization, 1-d and adaptive pooling, transposed convolution,
interpolation, pixel shuffle, one_hot, channel-wise and alpha dropout, padding layers and the
parameter containers: values against NumPy oracles (always), and against PyTorch (when installed)
for the same seeded weights, outputs, gradients, reprs, errors and graph node names."""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from oracle_fixtures import needs_torch, torch

import framework
import framework.nn as nn
import framework.nn.functional as F

Array = npt.NDArray[Any]


def _rand(seed: int, *shape: int) -> Array:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _close(ours: framework.Tensor, expected: Any, tol: float = 1e-5) -> None:
    theirs = expected.detach().numpy() if hasattr(expected, "detach") else np.asarray(expected)
    assert tuple(ours.shape) == theirs.shape
    np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=tol, atol=tol)


# ---- NumPy oracles ------------------------------------------------------------------------------


def test_group_norm_values() -> None:
    x, w, b = _rand(0, 2, 6, 3, 2), _rand(1, 6), _rand(2, 6)
    out = F.group_norm(framework.tensor(x), 3, framework.tensor(w), framework.tensor(b), eps=1e-5)
    groups = x.astype(np.float64).reshape(2, 3, -1)
    normed = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True) + 1e-5)
    expected = normed.reshape(x.shape) * w[:, None, None] + b[:, None, None]
    _close(out, expected)
    assert out.grad_fn is None


def test_group_norm_gradients_and_statistics() -> None:
    x = framework.tensor(_rand(3, 2, 4, 3), requires_grad=True)
    y, mean, _ = framework.ops.aten.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5)
    assert y.grad_fn.name() == "NativeGroupNormBackward0" and tuple(mean.shape) == (2, 2)
    (y * y).sum().backward()
    # the normalized output has unit mean square per group: its square's sum is constant
    np.testing.assert_allclose(x.grad.numpy(), 0, atol=1e-3)


def test_adaptive_max_pool2d_values_and_indices() -> None:
    x = _rand(4, 2, 3, 5, 7)
    out, idx = F.adaptive_max_pool2d(framework.tensor(x), (2, 3), return_indices=True)
    for i, j in itertools.product(range(2), range(3)):
        h0, h1 = (i * 5) // 2, -(-(i + 1) * 5 // 2)
        w0, w1 = (j * 7) // 3, -(-(j + 1) * 7 // 3)
        window = x[..., h0:h1, w0:w1].reshape(2, 3, -1)
        np.testing.assert_array_equal(out.numpy()[..., i, j], window.max(-1))
        flat = np.argmax(window, -1)
        expected = (h0 + flat // (w1 - w0)) * 7 + w0 + flat % (w1 - w0)
        np.testing.assert_array_equal(idx.numpy()[..., i, j], expected)
    assert idx.dtype is framework.int64


def test_adaptive_max_pool_ties_take_the_first_and_nan_the_last() -> None:
    x = framework.tensor([[[[1.0, 3.0], [3.0, float("nan")]]]])
    _, idx = F.adaptive_max_pool2d(framework.zeros(1, 1, 2, 2), 1, return_indices=True)
    assert idx.item() == 0
    out, idx = F.adaptive_max_pool2d(x, 1, return_indices=True)
    assert np.isnan(out.item()) and idx.item() == 3


def test_pools_1d_values() -> None:
    x = _rand(5, 2, 3, 9)
    _close(F.max_pool1d(framework.tensor(x), 3), x[..., :9].reshape(2, 3, 3, 3).max(-1))
    _close(F.avg_pool1d(framework.tensor(x), 3, stride=3), x.reshape(2, 3, 3, 3).mean(-1))
    _close(F.adaptive_avg_pool1d(framework.tensor(x), 3), x.reshape(2, 3, 3, 3).mean(-1))
    _close(F.adaptive_max_pool1d(framework.tensor(x), 1), x.max(-1, keepdims=True))
    _, indices = F.max_pool1d(framework.tensor(x), 9, return_indices=True)
    np.testing.assert_array_equal(indices.numpy()[..., 0], x.argmax(-1))
    assert F.max_pool1d(framework.tensor(x[0]), 2).shape == (3, 4)


def test_max_unpool2d_inverts_max_pool2d() -> None:
    x = framework.tensor(_rand(13, 1, 2, 4, 6), requires_grad=True)
    pooled, indices = F.max_pool2d(x, 2, return_indices=True)
    restored = nn.MaxUnpool2d(2)(pooled, indices)
    kept = x.detach().numpy() == np.repeat(np.repeat(pooled.detach().numpy(), 2, 2), 2, 3)
    np.testing.assert_array_equal(restored.detach().numpy(), np.where(kept, x.detach().numpy(), 0))
    assert restored.grad_fn.name() == "MaxUnpool2DBackward0"
    assert nn.MaxUnpool2d(2)(pooled, indices, output_size=[1, 2, 5, 7]).shape == (1, 2, 5, 7)
    with pytest.raises(ValueError, match=r'invalid output_size "\[7, 6\]" \(dim 0 must be between 2 and 6\)'):
        F.max_unpool2d(pooled, indices, 2, output_size=[7, 6])
    with pytest.raises(
        RuntimeError, match=r"Found an invalid max index: 22 \(output volumes are of size 2x2\)"
    ):
        framework.ops.aten.max_unpool2d(pooled, indices, [2, 2])


def test_conv_transpose2d_is_the_scattered_weight() -> None:
    x, w, b = _rand(6, 1, 2, 3, 3), _rand(7, 2, 3, 2, 2), _rand(8, 3)
    out = F.conv_transpose2d(
        framework.tensor(x), framework.tensor(w), framework.tensor(b), stride=2, padding=1
    )
    full = np.zeros((1, 3, 6, 6), np.float64)
    for i, j in itertools.product(range(3), range(3)):
        full[0, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2] += np.einsum("c,cfhw->fhw", x[0, :, i, j], w)
    _close(out, full[:, :, 1:-1, 1:-1] + b[None, :, None, None])
    assert out.grad_fn is None and tuple(
        F.conv_transpose1d(framework.randn(2, 4), framework.randn(2, 3, 3)).shape
    ) == (3, 6)


def test_interpolate_nearest_and_bilinear_values() -> None:
    x = _rand(9, 1, 2, 3, 4)
    _close(F.interpolate(framework.tensor(x), scale_factor=2), x.repeat(2, axis=2).repeat(2, axis=3))
    rows = np.floor(np.arange(5) * np.float32(3 / 5)).astype(int)
    _close(F.interpolate(framework.tensor(x), size=(5, 4)), x[:, :, rows])
    out = F.interpolate(framework.tensor(x), size=(5, 7), mode="bilinear", align_corners=True)
    ys, xs = np.linspace(0, 2, 5), np.linspace(0, 3, 7)
    y0, x0 = np.minimum(ys.astype(int), 1), np.minimum(xs.astype(int), 2)
    dy, dx = (ys - y0)[:, None], (xs - x0)[None, :]
    at = lambda r, c: x[:, :, r][:, :, :, c]  # noqa: E731
    expected = (1 - dy) * ((1 - dx) * at(y0, x0) + dx * at(y0, x0 + 1)) + dy * (
        (1 - dx) * at(y0 + 1, x0) + dx * at(y0 + 1, x0 + 1)
    )
    _close(out, expected)
    _close(
        F.interpolate(framework.tensor(x), scale_factor=0.5, mode="area"),
        x.reshape(1, 2, 1, 3, 2, 2).mean((3, 5)),
    )


def test_upsample_backward_sums_the_copies() -> None:
    x = framework.randn(1, 1, 2, 3, requires_grad=True)
    y = F.interpolate(x, scale_factor=2)
    assert y.grad_fn.name() == "UpsampleNearest2DBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 1, 2, 3), 4.0))
    z = framework.randn(1, 2, 3, requires_grad=True)
    F.interpolate(z, size=7, mode="linear").sum().backward()
    assert z.grad.shape == (1, 2, 3) and np.isclose(z.grad.numpy().sum(), 14.0)


def test_pixel_shuffle_round_trip() -> None:
    x = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    out = F.pixel_shuffle(framework.tensor(x), 2)
    expected = x.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(F.pixel_unshuffle(out, 2).numpy(), x)
    assert nn.PixelShuffle(2)(framework.tensor(x)).shape == (2, 2, 4, 6)


def test_one_hot() -> None:
    idx = framework.tensor([[0, 2], [1, 0]])
    out = F.one_hot(idx)
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype=np.int64)[idx.numpy()])
    assert out.dtype is framework.int64 and F.one_hot(idx, 5).shape == (2, 2, 5)
    assert F.one_hot(framework.tensor([], dtype=framework.int64), 4).shape == (0, 4)
    for value, classes, message in [
        ([1, -1], -1, "Class values must be non-negative."),
        ([1, 3], 3, "Class values must be smaller than num_classes."),
    ]:
        with pytest.raises(RuntimeError, match=message):
            F.one_hot(framework.tensor(value), classes)
    with pytest.raises(RuntimeError, match="only applicable to index tensor of type LongTensor"):
        F.one_hot(framework.tensor([1, 2], dtype=framework.int32))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(framework.tensor([], dtype=framework.int64))


def test_dropout2d_zeroes_whole_channels() -> None:
    framework.manual_seed(0)
    x = framework.ones(8, 16, 3, 3)
    out = F.dropout2d(x, 0.5)
    per_channel = out.numpy().reshape(8, 16, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert F.dropout2d(x, 0.5, training=False) is x
    y = x.clone()
    assert F.dropout2d(y, 0.3, inplace=True) is y
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
        F.dropout2d(x, 1.5)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(x)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(framework.ones(2, 3, 4))


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    framework.manual_seed(1)
    x = framework.randn(200000)
    out = F.alpha_dropout(x, 0.2, training=True)
    assert abs(out.mean().item()) < 0.02 and abs(out.std().item() - 1) < 0.02
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False


def test_instance_norm_running_stats() -> None:
    x = _rand(10, 4, 3, 5)
    layer = nn.InstanceNorm1d(3, track_running_stats=True)
    out = layer(framework.tensor(x))
    normed = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    _close(out, normed)
    _close(layer.running_mean, 0.1 * x.mean(-1).mean(0))
    _close(layer.running_var, 0.9 + 0.1 * x.var(-1, ddof=1).mean(0))
    layer.eval()
    _close(
        layer(framework.tensor(x)),
        (x - layer.running_mean.numpy()[:, None]) / np.sqrt(layer.running_var.numpy()[:, None] + 1e-5),
    )
    assert nn.InstanceNorm2d(3)(framework.randn(3, 4, 4)).shape == (3, 4, 4)
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.InstanceNorm2d(3)(framework.randn(3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(framework.randn(2, 3, 1))


def test_local_response_norm_values() -> None:
    x = _rand(11, 2, 5, 3)
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (1, 1), (0, 0)))
    div = (1 + 1e-4 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3) ** 0.75
    _close(nn.LocalResponseNorm(3)(framework.tensor(x)), x / div)


def test_padding_layers() -> None:
    x = _rand(12, 1, 2, 3, 4)
    _close(nn.ZeroPad2d((1, 0, 2, 1))(framework.tensor(x)), np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0))))
    _close(
        nn.ConstantPad1d(2, 3.5)(framework.tensor(x)),
        np.pad(x, ((0, 0),) * 3 + ((2, 2),), constant_values=3.5),
    )
    _close(
        nn.ReflectionPad2d(1)(framework.tensor(x)),
        np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect"),
    )
    _close(
        nn.ReplicationPad1d((2, 1))(framework.tensor(x[0])),
        np.pad(x[0], ((0, 0), (0, 0), (2, 1)), mode="edge"),
    )
    _close(nn.CircularPad2d(1)(framework.tensor(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="wrap"))
    _close(
        nn.ConstantPad3d(1, 2.0)(framework.tensor(x)),
        np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1)), constant_values=2.0),
    )
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad2d((1, 2, 3, 4), 1)) == "ConstantPad2d(padding=(1, 2, 3, 4), value=1)"


def test_parameter_list() -> None:
    params = nn.ParameterList([framework.randn(2, 3), nn.Parameter(framework.randn(3))])
    params.append(framework.zeros(1))
    params.extend([nn.Parameter(framework.ones(2))])
    assert len(params) == 4 and all(isinstance(p, nn.Parameter) for p in params)
    assert [n for n, _ in params.named_parameters()] == ["0", "1", "2", "3"]
    assert params[-1] is list(params)[3] and len(params[1:3]) == 2
    with pytest.raises(IndexError, match="index 4 is out of range"):
        params[4]
    with pytest.raises(RuntimeError, match=r"ParameterList should not be called\."):
        params()
    with pytest.raises(
        TypeError, match=r"ParameterList\.extend should be called with an iterable, but got Tensor"
    ):
        params.extend(framework.ones(2))
    model = nn.Module()
    model.params = params
    assert len(list(model.parameters())) == 4 and "params.2" in model.state_dict()
    assert repr(nn.ParameterList([nn.Parameter(framework.ones(2, 3))])) == (
        "ParameterList(  (0): Parameter containing: [framework.float32 of size 2x3])"
    )


def test_parameter_dict() -> None:
    params = nn.ParameterDict({"b": framework.randn(2), "a": nn.Parameter(framework.randn(3))})
    assert list(params) == ["a", "b"]  # a plain dict is added sorted by key
    params["c"] = framework.zeros(1)
    ordered = nn.ParameterDict(OrderedDict([("z", framework.ones(1)), ("y", framework.ones(1))]))
    assert list(ordered.keys()) == ["z", "y"] and list((params | ordered).keys()) == ["a", "b", "c", "z", "y"]
    assert isinstance(params["c"], nn.Parameter) and "c" in params and params.get("d") is None
    assert params.pop("c").shape == (1,) and len(params) == 2
    assert [n for n, _ in params.named_parameters()] == ["a", "b"]
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        params[1]  # type: ignore[index]
    with pytest.raises(
        ValueError, match="ParameterDict update sequence element #0 has length 1; 2 is required"
    ):
        params.update([("x",)])
    assert repr(nn.ParameterDict({"w": framework.ones(2, dtype=framework.float64)})) == (
        "ParameterDict(  (w): Parameter containing: [torch.DoubleTensor of size 2])"
    )


def test_module_checks() -> None:
    with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups \(2\)"):
        nn.GroupNorm(2, 5)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    layer = nn.ConvTranspose2d(2, 3, 3, stride=2)
    assert layer.weight.shape == (2, 3, 3, 3)
    assert layer(framework.randn(1, 2, 4, 4), output_size=[10, 10]).shape == (1, 3, 10, 10)
    with pytest.raises(
        ValueError, match=r"requested an output size of \[12, 10\], but valid sizes range from"
    ):
        layer(framework.randn(1, 2, 4, 4), output_size=[12, 10])
    assert repr(layer) == "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2))"
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(framework.randn(1, 1, 2, 2))
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(framework.randn(1, 1, 2), size=3, mode="bilinear")
    with pytest.raises(NotImplementedError, match="not implemented in framework"):
        F.interpolate(framework.randn(1, 1, 2, 2), size=3, mode="bicubic")
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(framework.randn(1, 1, 2, 2), size=3, align_corners=True)


def test_meta_shapes() -> None:
    x = framework.empty(2, 4, 6, 6, device="meta")
    assert F.group_norm(x, 2).shape == (2, 4, 6, 6)
    assert F.interpolate(x, scale_factor=1.5, mode="bilinear").shape == (2, 4, 9, 9)
    assert F.adaptive_max_pool2d(x, 4, return_indices=True)[1].shape == (2, 4, 4, 4)
    assert F.pixel_unshuffle(x, 2).shape == (2, 16, 3, 3)


# ---- against PyTorch ----------------------------------------------------------------------------

MODULE_CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], tuple[int, ...]]] = [
    ("GroupNorm", (2, 4), {}, (2, 4, 3, 5)),
    ("GroupNorm", (1, 4), {"affine": False}, (2, 4, 7)),
    ("LocalResponseNorm", (3,), {"alpha": 0.1}, (2, 4, 3, 5)),
    ("InstanceNorm1d", (3,), {"affine": True}, (2, 3, 5)),
    ("InstanceNorm2d", (3,), {"track_running_stats": True}, (2, 3, 4, 5)),
    ("ConvTranspose1d", (3, 4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5)),
    ("ConvTranspose2d", (4, 6, 2), {"groups": 2, "bias": False, "dilation": 2}, (2, 4, 4, 5)),
    ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "padding": 1}, (3, 4, 5)),
    ("MaxPool1d", (3,), {"stride": 2, "padding": 1}, (2, 3, 8)),
    ("AvgPool1d", (3,), {"stride": 1, "padding": 1, "count_include_pad": False}, (2, 3, 7)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", ((2, None),), {}, (2, 3, 5, 4)),
    ("Upsample", (), {"scale_factor": 1.7}, (2, 3, 4, 5)),
    ("Upsample", (), {"size": (5, 7), "mode": "bilinear"}, (2, 3, 4, 5)),
    ("Upsample", (), {"scale_factor": 2.5, "mode": "linear", "align_corners": True}, (2, 3, 4)),
    ("UpsamplingBilinear2d", (), {"scale_factor": 2}, (1, 2, 3, 3)),
    ("PixelUnshuffle", (2,), {}, (2, 3, 4, 6)),
    ("Dropout2d", (0.3,), {}, (4, 6, 3, 3)),
    ("Dropout1d", (), {}, (6, 5)),
    ("AlphaDropout", (0.2,), {}, (4, 6)),
    ("FeatureAlphaDropout", (0.4,), {}, (4, 6, 2)),
    ("ReflectionPad1d", (2,), {}, (2, 3, 4)),
    ("ReplicationPad2d", ((1, 0, 2, 1),), {}, (2, 3, 4)),
]


@needs_torch
@pytest.mark.parametrize("case", MODULE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(MODULE_CASES)])
def test_module_matches_torch(case: tuple[str, tuple[Any, ...], dict[str, Any], tuple[int, ...]]) -> None:
    name, args, kwargs, shape = case
    torch.manual_seed(7)
    framework.manual_seed(7)
    theirs, ours = getattr(torch.nn, name)(*args, **kwargs), getattr(nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    for (key, value), (their_key, their_value) in zip(
        ours.state_dict().items(), theirs.state_dict().items(), strict=True
    ):
        assert key == their_key
        _close(value, their_value)
    x = _rand(8, *shape)
    tx, fx = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    torch.manual_seed(9)
    framework.manual_seed(9)
    ty, fy = theirs(tx), ours(fx)
    _close(fy, ty)
    assert fy.grad_fn.name() == ty.grad_fn.name()
    g = _rand(10, *ty.shape)
    ty.backward(torch.tensor(g))
    fy.backward(framework.tensor(g))
    _close(fx.grad, tx.grad, 1e-4)
    for (_, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        _close(p.grad, tp.grad, 1e-4)
    for (_, buf), (_, tbuf) in zip(ours.named_buffers(), theirs.named_buffers(), strict=True):
        _close(buf, tbuf)


INTERPOLATE_CASES: list[tuple[tuple[int, ...], dict[str, Any]]] = [
    ((2, 3, 5, 4), {"scale_factor": (1.5, 0.6)}),
    ((2, 3, 5, 4), {"size": 9}),
    ((2, 3, 5, 4), {"scale_factor": 1.3, "mode": "bilinear", "recompute_scale_factor": True}),
    ((2, 3, 5, 4), {"scale_factor": 2.2, "mode": "bilinear"}),
    ((2, 3, 5, 4), {"size": (2, 3), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 5, 4), {"size": (3, 7), "mode": "area"}),
    ((2, 3, 5), {"scale_factor": 0.7, "mode": "linear"}),
    ((2, 3, 5), {"size": 8}),
]


@needs_torch
@pytest.mark.parametrize("case", INTERPOLATE_CASES, ids=[str(i) for i in range(len(INTERPOLATE_CASES))])
def test_interpolate_matches_torch(case: tuple[tuple[int, ...], dict[str, Any]]) -> None:
    shape, kwargs = case
    x = _rand(11, *shape)
    out = F.interpolate(framework.tensor(x), **kwargs)
    _close(out, torch.nn.functional.interpolate(torch.tensor(x), **kwargs))


@needs_torch
def test_uint8_bilinear_is_within_one_of_torch() -> None:
    x = (np.random.default_rng(0).random((1, 2, 5, 6)) * 255).astype(np.uint8)
    ours = F.interpolate(framework.tensor(x), size=(7, 9), mode="bilinear").numpy().astype(int)
    theirs = torch.nn.functional.interpolate(torch.tensor(x), size=(7, 9), mode="bilinear").numpy()
    assert np.abs(ours - theirs).max() <= 1


ERROR_CASES: list[tuple[str, Any]] = [
    ("group_norm channels", lambda m, x: m.nn.functional.group_norm(x(2, 4, 3), 3)),
    ("group_norm weight", lambda m, x: m.nn.functional.group_norm(x(2, 4, 3), 2, x(3))),
    ("group_norm rank", lambda m, x: m.nn.functional.group_norm(x(3), 1)),
    ("adaptive_max_pool2d rank", lambda m, x: m.nn.functional.adaptive_max_pool2d(x(2, 3), 2)),
    ("adaptive_max_pool1d rank", lambda m, x: m.nn.functional.adaptive_max_pool1d(x(2, 3, 3, 3), 2)),
    ("max_pool1d rank", lambda m, x: m.nn.functional.max_pool1d(x(3), 2)),
    ("max_pool1d kernel", lambda m, x: m.nn.functional.max_pool1d(x(2, 3, 8), (2, 2))),
    ("max_pool1d padding", lambda m, x: m.nn.functional.max_pool1d(x(2, 3, 8), 3, padding=2)),
    ("max_pool1d output", lambda m, x: m.nn.functional.max_pool1d(x(2, 3, 1), 2)),
    (
        "max_pool1d indices kernel",
        lambda m, x: m.nn.functional.max_pool1d(x(2, 3, 8), (2, 2), return_indices=True),
    ),
    ("avg_pool1d stride", lambda m, x: m.nn.functional.avg_pool1d(x(2, 3, 8), 2, (1, 1))),
    ("adaptive_avg_pool1d size", lambda m, x: m.nn.functional.adaptive_avg_pool1d(x(2, 3, 8), (2, 2))),
    ("interpolate 1d zero", lambda m, x: m.nn.functional.interpolate(x(2, 3, 8), scale_factor=0.1)),
    ("reflection_pad1d too wide", lambda m, x: m.nn.functional.pad(x(2, 3, 4), (4, 2), mode="reflect")),
    ("avg_pool1d rank", lambda m, x: m.nn.functional.avg_pool1d(x(2, 3, 3, 3), 2)),
    ("pixel_shuffle channels", lambda m, x: m.nn.functional.pixel_shuffle(x(1, 5, 2, 2), 2)),
    ("pixel_shuffle rank", lambda m, x: m.nn.functional.pixel_shuffle(x(5, 2), 2)),
    ("pixel_unshuffle height", lambda m, x: m.nn.functional.pixel_unshuffle(x(1, 1, 3, 2), 2)),
    ("interpolate sizes", lambda m, x: m.nn.functional.interpolate(x(1, 1, 2, 2), size=(3, 3, 3))),
    ("interpolate zero", lambda m, x: m.nn.functional.interpolate(x(1, 1, 2, 2), size=0)),
    ("interpolate mode", lambda m, x: m.nn.functional.interpolate(x(1, 1, 2, 2), size=3, mode="foo")),
    (
        "conv_transpose2d channels",
        lambda m, x: m.nn.functional.conv_transpose2d(x(1, 3, 4, 4), x(2, 3, 3, 3)),
    ),
    (
        "conv_transpose1d output_padding",
        lambda m, x: m.nn.functional.conv_transpose1d(x(1, 2, 4), x(2, 3, 3), output_padding=1),
    ),
    (
        "instance_norm running",
        lambda m, x: m.instance_norm(x(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False),
    ),
]


@needs_torch
@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(case: tuple[str, Any]) -> None:
    _, call = case
    with pytest.raises(Exception) as theirs:
        call(torch, lambda *s: torch.randn(*s))
    with pytest.raises(type(theirs.value)) as ours:
        call(framework, lambda *s: framework.randn(*s))
    assert str(ours.value) == str(theirs.value)


@needs_torch
def test_graph_names_match_torch() -> None:
    calls = [
        lambda m, x: m.nn.functional.max_pool1d(x, 2),
        lambda m, x: m.nn.functional.avg_pool1d(x, 2),
        lambda m, x: m.nn.functional.adaptive_max_pool1d(x, 2),
        lambda m, x: m.nn.functional.instance_norm(x),
        lambda m, x: m.nn.functional.local_response_norm(x, 2),
        lambda m, x: m.nn.functional.dropout1d(x, 0.5),
        lambda m, x: m.nn.functional.alpha_dropout(x, 0.5, True),
        lambda m, x: m.nn.functional.interpolate(x, scale_factor=2, mode="linear"),
        lambda m, x: m.nn.functional.conv_transpose1d(x, m.ones(3, 2, 2)),
    ]
    x = _rand(12, 2, 3, 6)
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = call(torch, torch.tensor(x, requires_grad=True))
            ours = call(framework, framework.tensor(x, requires_grad=True))
        assert ours.grad_fn.name() == theirs.grad_fn.name()
