"""The misc layers, losses, in-place activations and initializers (framework/ops/kernels/nn_misc.py,
framework/nn/_functional_misc.py, framework/nn/modules/misc.py, framework.nn.init): values
against NumPy references (always), argument errors with PyTorch's texts, reprs; and, when PyTorch
is importable, values, gradients and grad_fn names of the same calls, the same seeds' draws and
the same modules' parameters against PyTorch 2.13."""

from __future__ import annotations

import importlib.util
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import framework
import framework.nn.functional as F
from framework import Tensor, nn

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch")
Array = npt.NDArray[Any]

_rng = np.random.default_rng(7)
X = _rng.standard_normal((3, 4))
X3 = _rng.standard_normal((2, 4, 6))
W_BAG = _rng.standard_normal((6, 3))
BAG_INDICES = [1, 2, 0, 4, 5, 1, 3]
BAG_OFFSETS = [0, 2, 2, 5]


def fw(a: Any, requires_grad: bool = False) -> Tensor:
    t = framework.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


# ---- NumPy references -----------------------------------------------------------------------------


def _bags(indices: list[int], offsets: list[int]) -> list[list[int]]:
    ends = [*offsets[1:], len(indices)]
    return [indices[s:e] for s, e in zip(offsets, ends, strict=True)]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_bag_matches_numpy(mode: str, padding_idx: int | None) -> None:
    out = F.embedding_bag(fw(BAG_INDICES), fw(W_BAG), fw(BAG_OFFSETS), mode=mode, padding_idx=padding_idx)
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    expected = []
    for bag in _bags(BAG_INDICES, BAG_OFFSETS):
        rows = [W_BAG[i] for i in bag if i != padding_idx]
        expected.append(reduce(rows, axis=0) if rows else np.zeros(3))
    np.testing.assert_allclose(out.numpy(), np.array(expected), rtol=1e-12)


def test_embedding_bag_2d_input_and_per_sample_weights() -> None:
    weights = _rng.uniform(size=(2, 3))
    out = F.embedding_bag(fw([[0, 2, 5], [1, 1, 3]]), fw(W_BAG), mode="sum", per_sample_weights=fw(weights))
    expected = [
        (W_BAG[[0, 2, 5]] * weights[0][:, None]).sum(0),
        (W_BAG[[1, 1, 3]] * weights[1][:, None]).sum(0),
    ]
    np.testing.assert_allclose(out.numpy(), np.array(expected), rtol=1e-12)


def test_embedding_bag_gradient_skips_padding_and_empty_bags() -> None:
    weight = fw(W_BAG, requires_grad=True)
    F.embedding_bag(fw(BAG_INDICES), weight, fw(BAG_OFFSETS), mode="mean", padding_idx=1).sum().backward()
    assert weight.grad is not None
    expected = np.zeros((6, 3))
    for bag in _bags(BAG_INDICES, BAG_OFFSETS):
        kept = [i for i in bag if i != 1]
        for i in kept:
            expected[i] += 1 / len(kept)
    np.testing.assert_allclose(weight.grad.numpy(), expected, rtol=1e-12)


def test_embedding_bag_module_and_from_pretrained() -> None:
    bag = nn.EmbeddingBag.from_pretrained(fw(W_BAG), mode="max", padding_idx=-1)
    assert not bag.weight.requires_grad and bag.padding_idx == 5
    assert repr(bag) == "EmbeddingBag(6, 3, mode='max', padding_idx=5)"
    out = bag(fw([0, 5, 2]), fw([0, 2]))
    np.testing.assert_allclose(out.numpy(), np.stack([W_BAG[0], W_BAG[2]]), rtol=1e-12)
    fresh = nn.EmbeddingBag(10, 3, padding_idx=2)
    assert fresh.weight.shape == (10, 3) and not fresh.weight[2].detach().numpy().any()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: F.embedding_bag(fw([1, 2]), fw(W_BAG), fw([0]), mode="foo"),
            ValueError,
            "mode has to be one of",
        ),
        (
            lambda: F.embedding_bag(fw([1, 2]), fw(W_BAG)),
            ValueError,
            "offsets has to be a 1D Tensor but got None",
        ),
        (
            lambda: F.embedding_bag(fw([[1, 2]]), fw(W_BAG), fw([0])),
            ValueError,
            "if input is 2D, then offsets has to be None",
        ),
        (
            lambda: F.embedding_bag(fw([1, 2]), fw(W_BAG), fw([0]), mode="max", scale_grad_by_freq=True),
            ValueError,
            "max mode does not support scaling the gradient by the frequency",
        ),
        (
            lambda: F.embedding_bag(
                fw([1, 2]), fw(W_BAG), fw([0]), mode="mean", per_sample_weights=fw([1.0, 1.0])
            ),
            NotImplementedError,
            "per_sample_weights is only supported for mode='sum' \\(got mode='mean'\\)",
        ),
        (
            lambda: F.embedding_bag(fw([1, 2]), fw(W_BAG), fw([1])),
            RuntimeError,
            "offsets\\[0\\] has to be 0",
        ),
        (
            lambda: F.embedding_bag(fw([1, 2]), fw(W_BAG), fw([0]), padding_idx=7),
            RuntimeError,
            "padding_idx must be within the number of embeddings, -6 through 5, but got 7",
        ),
    ],
)
def test_embedding_bag_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def _multi_margin_reference(x: Array, y: Array, p: int, margin: float, w: Array | None) -> Array:
    losses = []
    for row, target in zip(x, y, strict=True):
        terms = [
            max(0.0, margin - row[target] + row[j]) ** p * (1.0 if w is None else w[target])
            for j in range(len(row))
            if j != target
        ]
        losses.append(sum(terms) / len(row))
    return np.array(losses)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_margin_loss_matches_numpy(p: int, reduction: str) -> None:
    y, w = np.array([0, 3, 1]), np.array([1.0, 2.0, 0.5, 1.5])
    out = F.multi_margin_loss(fw(X), fw(y), p=p, margin=0.7, weight=fw(w), reduction=reduction)
    expected = _multi_margin_reference(X, y, p, 0.7, w)
    reduced = {"none": expected, "mean": expected.mean(), "sum": expected.sum()}[reduction]
    np.testing.assert_allclose(out.numpy(), reduced, rtol=1e-12)
    loss = nn.MultiMarginLoss(p=p, margin=0.7, weight=fw(w), reduction=reduction)(fw(X), fw(y))
    np.testing.assert_allclose(loss.numpy(), reduced, rtol=1e-12)


def _multilabel_reference(x: Array, y: Array) -> Array:
    losses = []
    for row, targets in zip(x, y, strict=True):
        listed = []
        for t in targets:
            if t < 0:
                break
            listed.append(int(t))
        others = [j for j in range(len(row)) if j not in listed]
        losses.append(sum(max(0.0, 1 - row[t] + row[j]) for t in listed for j in others) / len(row))
    return np.array(losses)


def test_multilabel_margin_loss_matches_numpy() -> None:
    y = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 0, 0, 0]])
    out = F.multilabel_margin_loss(fw(X), fw(y), reduction="none")
    np.testing.assert_allclose(out.numpy(), _multilabel_reference(X, y), rtol=1e-12)
    mean = nn.MultiLabelMarginLoss()(fw(X), fw(y))
    np.testing.assert_allclose(mean.numpy(), _multilabel_reference(X, y).mean(), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: F.multi_margin_loss(fw(X), fw([0, 1])),
            RuntimeError,
            "Expected target size \\[3\\], but got \\[2\\]",
        ),
        (lambda: F.multi_margin_loss(fw(X), fw([0, 1, 4])), RuntimeError, "target out of range"),
        (
            lambda: F.multi_margin_loss(fw(X), fw([0, 1, 2]), p=3),
            ValueError,
            "only p == 1 and p == 2 supported",
        ),
        (
            lambda: F.multi_margin_loss(fw(X), fw([0, 1, 2]), weight=fw([1.0, 1.0, 1.0])),
            RuntimeError,
            "inconsistent weight size, expected 4 but got \\[3\\]",
        ),
        (
            lambda: F.multilabel_margin_loss(fw(X), fw([[0, 1, -1, 0]] * 2)),
            RuntimeError,
            "inconsistent target size: \\[2, 4\\] for input of size: \\[3, 4\\]",
        ),
        (
            lambda: F.multilabel_margin_loss(fw(X), fw([[0, 1, -1, 4]] * 3)),
            RuntimeError,
            "argument #2 'target' is out of range",
        ),
        (lambda: F.pdist(fw(X3)), RuntimeError, "pdist only supports 2D tensors, got: 3D"),
        (lambda: F.pdist(fw(X), -1), RuntimeError, "pdist only supports non-negative p values"),
        (
            lambda: F.channel_shuffle(fw(X3), 3),
            RuntimeError,
            "Number of channels must be divisible by groups. Got 4 channels and 3 groups.",
        ),
        (
            lambda: F.rrelu(fw(X), 0.5, 0.2),
            RuntimeError,
            "Lower bound should be less than or equal to the upper",
        ),
        (
            lambda: F.bilinear(fw(X), fw(X[:2]), fw(np.ones((2, 4, 4)))),
            RuntimeError,
            "bilinear\\(\\): input batch dimensions do not match: got 3 and 2",
        ),
        (
            lambda: F.rms_norm(fw(X), [5]),
            RuntimeError,
            "Given normalized_shape=\\[5\\], expected input with shape \\[\\*5\\], but got input of "
            "size\\[3, 4\\]",
        ),
    ],
)
def test_argument_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("p", [0.0, 1.0, 1.5, 2.0, math.inf])
def test_pdist_matches_numpy(p: float) -> None:
    i, j = np.triu_indices(3, 1)
    diff = np.abs(X[i] - X[j])
    if p == 0:
        expected = (diff != 0).sum(1).astype(float)
    elif p == math.inf:
        expected = diff.max(1)
    else:
        expected = (diff**p).sum(1) ** (1 / p)
    np.testing.assert_allclose(F.pdist(fw(X), p).numpy(), expected, rtol=1e-12)


def test_channel_shuffle_and_module() -> None:
    expected = X3.reshape(2, 2, 2, 6).swapaxes(1, 2).reshape(2, 4, 6)
    np.testing.assert_array_equal(F.channel_shuffle(fw(X3), 2).numpy(), expected)
    np.testing.assert_array_equal(nn.ChannelShuffle(2)(fw(X3)).numpy(), expected)


def test_bilinear_and_module() -> None:
    x2 = _rng.standard_normal((3, 5))
    weight, bias = _rng.standard_normal((2, 4, 5)), _rng.standard_normal(2)
    out = F.bilinear(fw(X), fw(x2), fw(weight), fw(bias))
    np.testing.assert_allclose(out.numpy(), np.einsum("bi,oij,bj->bo", X, weight, x2) + bias, rtol=1e-12)
    layer = nn.Bilinear(4, 5, 2)
    assert repr(layer) == "Bilinear(in1_features=4, in2_features=5, out_features=2, bias=True)"
    bound = 1 / math.sqrt(4)
    assert layer.weight.shape == (2, 4, 5) and float(layer.weight.abs().max()) <= bound
    assert layer(fw(X).float(), fw(x2).float()).shape == (3, 2)


def test_rms_norm_and_module() -> None:
    weight = _rng.uniform(size=6)
    out = F.rms_norm(fw(X3), [6], fw(weight), eps=1e-3)
    expected = X3 / np.sqrt((X3**2).mean(-1, keepdims=True) + 1e-3) * weight
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    default_eps = X3 / np.sqrt((X3**2).mean((-2, -1), keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(nn.RMSNorm([4, 6]).double()(fw(X3)).detach().numpy(), default_eps, rtol=1e-12)
    assert repr(nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"


def test_rrelu_eval_training_and_module() -> None:
    np.testing.assert_allclose(F.rrelu(fw(X), 0.1, 0.3).numpy(), np.where(X > 0, X, 0.2 * X), rtol=1e-12)
    framework.manual_seed(0)
    first = F.rrelu(fw(X), 0.1, 0.3, training=True).numpy()
    framework.manual_seed(0)
    again = nn.RReLU(0.1, 0.3)(fw(X)).numpy()
    np.testing.assert_array_equal(first, again)
    slopes = first[X < 0] / X[X < 0]
    assert np.all((slopes >= 0.1) & (slopes <= 0.3)) and np.array_equal(first[X > 0], X[X > 0])
    assert repr(nn.RReLU(0.1, 0.3, True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"


@pytest.mark.parametrize(
    ("name", "args", "reference"),
    [
        ("relu_", (), lambda a: np.maximum(a, 0)),
        ("elu_", (0.5,), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
        ("leaky_relu_", (0.2,), lambda a: np.where(a > 0, a, 0.2 * a)),
        ("hardtanh_", (-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
        ("celu_", (2.0,), lambda a: np.maximum(a, 0) + np.minimum(0, 2.0 * np.expm1(a / 2.0))),
        ("threshold_", (0.1, 20.0), lambda a: np.where(a > 0.1, a, 20.0)),
        ("rrelu_", (0.25, 0.25), lambda a: np.where(a >= 0, a, 0.25 * a)),
    ],
)
def test_inplace_functionals(name: str, args: tuple[float, ...], reference: Callable[[Array], Array]) -> None:
    t = fw(X)
    result = getattr(F, name)(t, *args)
    assert result is t
    np.testing.assert_allclose(t.numpy(), reference(X), rtol=1e-12)


def test_selu_inplace_and_top_level() -> None:
    t = fw(X)
    assert F.selu_(t) is t
    np.testing.assert_allclose(t.numpy(), F.selu(fw(X)).numpy(), rtol=1e-15)
    assert framework.rrelu_(fw(X)).shape == (3, 4)


@pytest.mark.parametrize(
    ("norm_type", "kernel", "stride"), [(2.0, 3, None), (1.0, 2, 1), (math.inf, 2, None)]
)
def test_lp_pool1d_matches_numpy(norm_type: float, kernel: int, stride: int | None) -> None:
    step = kernel if stride is None else stride
    windows = np.stack([X3[..., s : s + kernel] for s in range(0, 6 - kernel + 1, step)], -2)
    if norm_type == math.inf:
        expected = np.abs(windows).max(-1)
    else:
        expected = (np.abs(windows) ** norm_type).sum(-1) ** (1 / norm_type)
    out = nn.LPPool1d(norm_type, kernel, stride)(fw(np.abs(X3) if norm_type != math.inf else X3))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_lp_pool2d_and_reprs() -> None:
    x = np.abs(X3)[None]
    out = F.lp_pool2d(fw(x), 2.0, (2, 3))
    windows = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 2, 2, 6)
    np.testing.assert_allclose(out.numpy(), np.sqrt((windows**2).sum(-1)), rtol=1e-12)
    assert repr(nn.LPPool2d(1.5, (2, 3), stride=1)) == (
        "LPPool2d(norm_type=1.5, kernel_size=(2, 3), stride=1, ceil_mode=False)"
    )


def test_triplet_margin_with_distance_loss() -> None:
    a, p, n = (fw(_rng.standard_normal((4, 5))) for _ in range(3))
    default = F.triplet_margin_with_distance_loss(a, p, n)
    np.testing.assert_allclose(default.numpy(), F.triplet_margin_loss(a, p, n).numpy(), rtol=1e-12)
    cosine = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5, swap=True, reduction="none"
    )(a, p, n)
    d = lambda u, v: 1 - F.cosine_similarity(u, v).numpy()  # noqa: E731
    expected = np.maximum(0.5 + d(a, p) - np.minimum(d(a, n), d(p, n)), 0)
    np.testing.assert_allclose(cosine.numpy(), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_with_distance_loss(a, p, n, margin=0)


def test_gumbel_softmax() -> None:
    soft = F.gumbel_softmax(fw(X, requires_grad=True), tau=0.5)
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(fw(X, requires_grad=True), hard=True, dim=0)
    assert sorted(np.unique(hard.detach().numpy())) == [0.0, 1.0]
    np.testing.assert_array_equal(hard.detach().numpy().sum(0), 1.0)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(fw(X), eps=0.1)


def test_adaptive_log_softmax_with_loss() -> None:
    asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0).double()
    x = fw(_rng.standard_normal((5, 8)))
    target = fw([0, 5, 9, 3, 7])
    out = asm(x, target)
    log_prob = asm.log_prob(x).detach().numpy()
    np.testing.assert_allclose(np.exp(log_prob).sum(1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(
        out.output.detach().numpy(), log_prob[np.arange(5), [0, 5, 9, 3, 7]], rtol=1e-12
    )
    np.testing.assert_allclose(out.loss.detach().numpy(), -log_prob[np.arange(5), [0, 5, 9, 3, 7]].mean())
    np.testing.assert_array_equal(asm.predict(x).numpy(), log_prob.argmax(1))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4])
    with pytest.raises(RuntimeError, match="Target values should be in \\[0, 9\\]"):
        asm(x, fw([0, 5, 10, 3, 7]))


# ---- nn.init --------------------------------------------------------------------------------------


def test_init_eye_dirac_orthogonal_sparse() -> None:
    np.testing.assert_array_equal(nn.init.eye_(framework.empty(3, 5)).numpy(), np.eye(3, 5))
    w = nn.init.dirac_(framework.empty(4, 2, 3), groups=2)
    expected = np.zeros((4, 2, 3))
    for g in range(2):
        for d in range(2):
            expected[g * 2 + d, d, 1] = 1
    np.testing.assert_array_equal(w.numpy(), expected)
    q = nn.init.orthogonal_(framework.empty(3, 6), gain=2.0).numpy()
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)
    s = nn.init.sparse_(framework.empty(10, 4), sparsity=0.3).numpy()
    assert ((s == 0).sum(0) >= 3).all()
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        nn.init.dirac_(framework.empty(3, 3))


@pytest.mark.parametrize("name", ["uniform", "normal", "xavier_uniform", "kaiming_normal", "orthogonal"])
def test_init_deprecated_aliases_warn(name: str) -> None:
    with pytest.warns(
        FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`"
    ):
        getattr(nn.init, name)(framework.empty(3, 4))


# ---- against PyTorch ------------------------------------------------------------------------------

CASES: dict[str, tuple[Callable[..., Any], tuple[Array, ...]]] = {
    "bilinear": (
        lambda L, a, b, w: L.nn.functional.bilinear(a, b, w),
        (X, X[::-1], _rng.standard_normal((2, 4, 4))),
    ),
    "rms_norm": (lambda L, x, w: L.nn.functional.rms_norm(x, [6], w), (X3, _rng.uniform(size=6))),
    "embedding_bag_max": (
        lambda L, w: L.nn.functional.embedding_bag(
            L.tensor([1, 2, 0, 4, 5]), w, L.tensor([0, 3]), mode="max"
        ),
        (W_BAG,),
    ),
    "embedding_bag_psw": (
        lambda L, w, s: L.nn.functional.embedding_bag(
            L.tensor([1, 2, 0, 4, 5]),
            w,
            L.tensor([0, 3, 5]),
            mode="sum",
            per_sample_weights=s,
            include_last_offset=True,
        ),
        (W_BAG, _rng.uniform(size=5)),
    ),
    "embedding_bag_mean_freq": (
        lambda L, w: L.nn.functional.embedding_bag(
            L.tensor([1, 2, 1, 4, 1]), w, L.tensor([0, 2]), scale_grad_by_freq=True, padding_idx=4
        ),
        (W_BAG,),
    ),
    "multi_margin": (lambda L, x: L.nn.functional.multi_margin_loss(x, L.tensor([1, 0, 3]), p=2), (X,)),
    "multilabel_margin": (
        lambda L, x: L.nn.functional.multilabel_margin_loss(
            x, L.tensor([[1, 0, -1, 2], [3, -1, 0, 0], [0, 1, 2, 3]])
        ),
        (X,),
    ),
    "pdist": (lambda L, x: L.nn.functional.pdist(x, 1.5), (X,)),
    "channel_shuffle": (lambda L, x: L.nn.functional.channel_shuffle(x, 2), (X3,)),
    "rrelu_train": (lambda L, x: L.nn.functional.rrelu(x * 1, 0.1, 0.4, True, True), (X3,)),
    "rrelu_eval": (lambda L, x: L.nn.functional.rrelu(x, 0.1, 0.4), (X3,)),
    "lp_pool2d": (lambda L, x: L.nn.functional.lp_pool2d(x, 2, 2), (X3[None],)),
    "gumbel_hard": (lambda L, x: L.nn.functional.gumbel_softmax(x, hard=True), (X,)),
    "elu_": (lambda L, x: L.nn.functional.elu_(x * 1, 0.5), (X,)),
    "celu_": (lambda L, x: L.celu_(x * 1), (X,)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str) -> None:
    import torch

    fn, arrays = CASES[name]
    results = []
    for lib, make in ((torch, torch.from_numpy), (framework, framework.from_numpy)):
        inputs = [make(np.array(a, order="C")).requires_grad_() for a in arrays]
        lib.manual_seed(11)
        out = fn(lib, *inputs)
        out.backward(make(np.asarray(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)) / 7)))
        node = type(out.grad_fn).__name__ if lib is torch else out.grad_fn.name()
        results.append((out.detach().numpy(), [t.grad.numpy() for t in inputs], node))
    (t_out, t_grads, t_node), (f_out, f_grads, f_node) = results
    assert f_node == t_node
    np.testing.assert_allclose(f_out, t_out, rtol=1e-10, atol=1e-12)
    for f_grad, t_grad in zip(f_grads, t_grads, strict=True):
        np.testing.assert_allclose(f_grad, t_grad, rtol=1e-10, atol=1e-12)


MODULES: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]] = {
    "Bilinear": (lambda L: L.nn.Bilinear(4, 4, 3), lambda L, m: m(L.tensor(X).float(), L.tensor(X).float())),
    "EmbeddingBag": (
        lambda L: L.nn.EmbeddingBag(6, 3, mode="sum", padding_idx=2),
        lambda L, m: m(L.tensor([[1, 2]])),
    ),
    "AdaptiveLogSoftmaxWithLoss": (
        lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(4, 8, [3, 5], head_bias=True),
        lambda L, m: m(L.tensor(X).float(), L.tensor([0, 4, 7])).loss,
    ),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_against_torch(name: str) -> None:
    import torch

    make, call = MODULES[name]
    results = []
    for lib in (torch, framework):
        lib.manual_seed(5)
        module = make(lib)
        results.append((repr(module), [p.detach().numpy() for p in module.parameters()], call(lib, module)))
    (t_repr, t_params, t_out), (f_repr, f_params, f_out) = results
    assert f_repr == t_repr
    for f_p, t_p in zip(f_params, t_params, strict=True):
        np.testing.assert_array_equal(f_p, t_p)
    np.testing.assert_allclose(f_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
@pytest.mark.parametrize(
    "init",
    [
        lambda L: L.nn.init.orthogonal_(L.empty(4, 6)),
        lambda L: L.nn.init.orthogonal_(L.empty(6, 2, 2), gain=0.5),
        lambda L: L.nn.init.sparse_(L.empty(6, 3), 0.5),
        lambda L: L.nn.init.dirac_(L.empty(6, 2, 3, 3), groups=3),
    ],
)
def test_init_against_torch(init: Callable[[Any], Any]) -> None:
    import torch

    values = []
    for lib in (torch, framework):
        lib.manual_seed(9)
        with warnings.catch_warnings():
            values.append(init(lib).numpy())
    np.testing.assert_allclose(values[1], values[0], rtol=1e-5, atol=1e-6)
