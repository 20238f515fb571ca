"""The layers of `framework.nn` and `framework.nn.utils` against PyTorch: outputs, gradients and
buffers on fixed inputs after the same seeded initialisation (recorded, and live when PyTorch
is installed), plus the layers' own checks and behaviours."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
import framework.nn as nn
import framework.nn.functional as F
from framework.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters

LAYER_IDS = [expr for _, expr, _ in recorder.LAYER_CASES]


def assert_results_close(ours: dict[str, npt.NDArray[Any]], theirs: dict[str, npt.NDArray[Any]]) -> None:
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        assert ours[key].dtype == expected.dtype and ours[key].shape == expected.shape, key
        np.testing.assert_allclose(ours[key], expected, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("index", range(len(recorder.LAYER_CASES)), ids=LAYER_IDS)
def test_layer_matches_the_recording(index: int) -> None:
    seed, expr, specs = recorder.LAYER_CASES[index]
    expected = {k: recorder.decode(v) for k, v in FIXTURES["layers"][index].items()}
    assert_results_close(recorder.run_layer(framework, seed, expr, specs), expected)


@needs_torch
@pytest.mark.parametrize("index", range(len(recorder.LAYER_CASES)), ids=LAYER_IDS)
def test_layer_matches_torch_live(index: int) -> None:
    seed, expr, specs = recorder.LAYER_CASES[index]
    assert_results_close(
        recorder.run_layer(framework, seed, expr, specs), recorder.run_layer(torch, seed, expr, specs)
    )


def test_linear_is_x_wt_plus_b() -> None:
    layer = nn.Linear(3, 2)
    x = framework.randn(4, 3)
    expected = x @ layer.weight.t() + layer.bias
    np.testing.assert_allclose(layer(x).detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    assert (
        layer(x).shape == (4, 2)
        and nn.Linear(3, 2, dtype=framework.float64).weight.dtype is framework.float64
    )


def test_conv_checks() -> None:
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv2d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv1d(1, 1, 3, padding="full")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv1d(1, 1, 3, padding_mode="mirror")
    conv = nn.Conv2d(2, 6, (3, 1), groups=2)
    assert conv.weight.shape == (6, 1, 3, 1) and conv.kernel_size == (3, 1) and conv.stride == (1, 1)


def test_batch_norm_tracks_statistics() -> None:
    bn = nn.BatchNorm1d(2)
    x = framework.tensor([[1.0, 2.0], [3.0, 6.0]])
    bn(x)
    assert bn.num_batches_tracked.item() == 1
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 0.4], rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), [0.9 + 0.1 * 2.0, 0.9 + 0.1 * 8.0], rtol=1e-6)
    bn.eval()
    out = bn(x)
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + bn.eps)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        bn(framework.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        nn.BatchNorm2d(2)(x)
    bn.reset_running_stats()
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.num_batches_tracked.item() == 0


def test_dropout() -> None:
    with pytest.raises(
        ValueError, match=re.escape("dropout probability has to be between 0 and 1, but got 1.5")
    ):
        nn.Dropout(1.5)
    drop = nn.Dropout(0.5)
    x = framework.ones(1000)
    y = drop(x)
    kept = y.numpy() != 0
    assert 300 < kept.sum() < 700 and np.all(y.numpy()[kept] == 2.0)
    assert drop.eval()(x).tolist() == x.tolist()


def test_embedding() -> None:
    emb = nn.Embedding(5, 3, padding_idx=-2)
    assert emb.padding_idx == 3 and emb.weight[3].tolist() == [0.0, 0.0, 0.0]
    out = emb(framework.tensor([[3, 1], [0, 3]]))
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    assert emb.weight.grad is not None and emb.weight.grad[3].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 3, padding_idx=5)
    pretrained = nn.Embedding.from_pretrained(framework.ones(4, 2))
    assert not pretrained.weight.requires_grad and pretrained.num_embeddings == 4


def test_flatten_and_unflatten() -> None:
    x = framework.zeros(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60) and nn.Flatten(0, 2)(x).shape == (24, 5)
    assert nn.Unflatten(1, (3, 1))(framework.zeros(2, 3)).shape == (2, 3, 1)
    with pytest.raises(
        TypeError, match="unflattened_size must be tuple of ints, but found element of type float at pos 1"
    ):
        nn.Unflatten(1, (3, 1.0))  # type: ignore[arg-type]


def test_activations_agree_with_functional() -> None:
    x = framework.randn(3, 4)
    for module, expected in [
        (nn.ReLU(), F.relu(x)),
        (nn.GELU(approximate="tanh"), F.gelu(x, approximate="tanh")),
        (nn.SiLU(), F.silu(x)),
        (nn.Softmax(dim=0), F.softmax(x, dim=0)),
        (nn.LogSoftmax(dim=1), F.log_softmax(x, dim=1)),
    ]:
        assert module(x).tolist() == expected.tolist(), module
    y = x.clone()
    assert nn.ReLU(inplace=True)(y) is y and float(y.min()) >= 0.0


def test_softmax_without_dim_warns() -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        nn.Softmax()(framework.zeros(2, 3))


def test_losses_take_legacy_reduction_flags() -> None:
    with pytest.warns(
        UserWarning,
        match="size_average and reduce args will be deprecated, please use reduction='sum' instead.",
    ):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert nn.L1Loss(reduce=False).reduction == "none"
    weighted = nn.CrossEntropyLoss(weight=framework.ones(3))
    assert [name for name, _ in weighted.named_buffers()] == ["weight"]
    assert list(nn.NLLLoss().state_dict()) == []


# ---- nn.utils -----------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(recorder.CLIP_CASES)), ids=[str(c) for c in recorder.CLIP_CASES])
def test_clip_grad_norm_matches_the_recording(index: int) -> None:
    ours = recorder.run_clip(framework, *recorder.CLIP_CASES[index])
    for actual, expected in zip(ours, FIXTURES["clips"][index], strict=True):
        np.testing.assert_allclose(actual, recorder.decode(expected), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("index", range(len(recorder.CLIP_CASES)), ids=[str(c) for c in recorder.CLIP_CASES])
def test_clip_grad_norm_matches_torch_live(index: int) -> None:
    ours, theirs = (
        recorder.run_clip(framework, *recorder.CLIP_CASES[index]),
        recorder.run_clip(torch, *recorder.CLIP_CASES[index]),
    )
    for actual, expected in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_clip_grad_edge_cases() -> None:
    p = nn.Parameter(framework.zeros(3))
    assert clip_grad_norm_([p], 1.0).item() == 0.0
    p.grad = framework.tensor([float("inf"), 1.0, 0.0])
    with pytest.raises(
        RuntimeError,
        match=re.escape("The total norm of order 2.0 for gradients from `parameters` is non-finite"),
    ):
        clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    p.grad = framework.tensor([-3.0, 0.5, 2.0])
    clip_grad_value_(p, 1.0)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]


def test_parameters_vector_round_trip() -> None:
    layer = nn.Linear(3, 2)
    vec = parameters_to_vector(layer.parameters())
    assert vec.shape == (8,) and vec[:6].tolist() == layer.weight.reshape(-1).tolist()
    vector_to_parameters(framework.arange(8).float(), layer.parameters())
    assert layer.bias.tolist() == [6.0, 7.0] and layer.weight.tolist()[1] == [3.0, 4.0, 5.0]
    with pytest.raises(TypeError, match=re.escape("expected torch.Tensor, but got: list")):
        vector_to_parameters([1.0], layer.parameters())  # type: ignore[arg-type]
