"""The losses and distances added with framework/ops/kernels/activation.py, through
framework.nn.functional and their nn modules: values against NumPy references (always) for every
reduction, warnings and argument errors with PyTorch's texts; and, when PyTorch is importable,
values, grad_fn names, gradients and warnings against PyTorch 2.13."""

from __future__ import annotations

import importlib.util
import math
import re
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
REDUCE: dict[str, Callable[[Array], Any]] = {"none": lambda a: a, "mean": np.mean, "sum": np.sum}

_rng = np.random.default_rng(0)
X = _rng.standard_normal((4, 5)) * 2
T = _rng.standard_normal((4, 5))
SIGNS = np.where(_rng.standard_normal((4, 5)) > 0, 1, -1)
ROW_SIGNS = SIGNS[:, 0]
LOG_P = np.log(np.abs(T) / np.abs(T).sum(1, keepdims=True))
Q = np.abs(X) / np.abs(X).sum(1, keepdims=True)
Q[0, 0] = 0.0


def fw(a: Any, requires_grad: bool = False) -> Tensor:
    t = framework.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


def close(ours: Tensor, expected: Any) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), np.asarray(expected), rtol=1e-12, atol=1e-13)


def smooth_l1_ref(x: Array, t: Array, beta: float) -> Array:
    z = np.abs(x - t)
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def huber_ref(x: Array, t: Array, delta: float) -> Array:
    z = np.abs(x - t)
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def cosine_ref(a: Array, b: Array, axis: int, eps: float = 1e-8) -> Array:
    na = np.maximum(np.linalg.norm(a, axis=axis, keepdims=True), eps)
    nb = np.maximum(np.linalg.norm(b, axis=axis, keepdims=True), eps)
    result: Array = ((a / na) * (b / nb)).sum(axis)
    return result


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_smooth_l1_and_huber(reduction: str) -> None:
    reduce = REDUCE[reduction]
    close(F.smooth_l1_loss(fw(X), fw(T), reduction=reduction), reduce(smooth_l1_ref(X, T, 1.0)))
    close(F.smooth_l1_loss(fw(X), fw(T), reduction=reduction, beta=0.3), reduce(smooth_l1_ref(X, T, 0.3)))
    close(F.smooth_l1_loss(fw(X), fw(T), reduction=reduction, beta=0.0), reduce(np.abs(X - T)))
    close(F.huber_loss(fw(X), fw(T), reduction=reduction), reduce(huber_ref(X, T, 1.0)))
    close(F.huber_loss(fw(X), fw(T), reduction=reduction, delta=2.5), reduce(huber_ref(X, T, 2.5)))
    w = np.abs(T)
    close(F.huber_loss(fw(X), fw(T), reduction=reduction, weight=fw(w)), reduce(huber_ref(X, T, 1.0) * w))


def test_smooth_l1_with_beta_zero_is_l1_loss() -> None:
    result = F.smooth_l1_loss(fw(X, True), fw(T), beta=0.0)
    assert result.grad_fn is not None and result.grad_fn.name() == "MeanBackward0"
    assert F.smooth_l1_loss(fw(X, True), fw(T), beta=0.5).grad_fn.name() == "SmoothL1LossBackward0"


def test_broadcast_target_warns() -> None:
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[5\]\)\) that is different"):
        result = F.smooth_l1_loss(fw(X), fw(T[0]), reduction="none")
    close(result, smooth_l1_ref(X, T[0], 1.0))
    with pytest.warns(UserWarning, match="This will likely lead to incorrect results due to broadcasting"):
        F.huber_loss(fw(X), fw(T[0]))


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div(reduction: str) -> None:
    pointwise = np.where(Q == 0, 0.0, Q * np.log(np.where(Q == 0, 1.0, Q))) - Q * LOG_P
    expected = {"none": pointwise, "sum": pointwise.sum(), "batchmean": pointwise.sum() / 4}[reduction]
    close(F.kl_div(fw(LOG_P), fw(Q), reduction=reduction), expected)
    log_q = np.log(Q + 0.1)
    pointwise_log = np.exp(log_q) * (log_q - LOG_P)
    expected_log = {"none": pointwise_log, "sum": pointwise_log.sum(), "batchmean": pointwise_log.sum() / 4}
    close(F.kl_div(fw(LOG_P), fw(log_q), reduction=reduction, log_target=True), expected_log[reduction])


def test_kl_div_mean_warns() -> None:
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        result = F.kl_div(fw(LOG_P), fw(Q))
    pointwise = np.where(Q == 0, 0.0, Q * np.log(np.where(Q == 0, 1.0, Q))) - Q * LOG_P
    close(result, pointwise.mean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.kl_div(fw(LOG_P), fw(Q), reduction="batchmean")


def test_kl_div_refuses_integer_and_complex_inputs() -> None:
    with pytest.raises(RuntimeError, match=re.escape("kl_div: Integral inputs not supported.")):
        F.kl_div(framework.tensor([1, 2]), framework.tensor([1, 2]), reduction="sum")
    with pytest.raises(RuntimeError, match=re.escape("kl_div: Complex inputs not supported.")):
        F.kl_div(framework.tensor([1j]), framework.tensor([1j]), reduction="sum")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_losses(reduction: str) -> None:
    reduce = REDUCE[reduction]
    close(F.soft_margin_loss(fw(X), fw(SIGNS), reduction=reduction), reduce(np.log1p(np.exp(-SIGNS * X))))
    x1, x2 = X[:, 0], T[:, 0]
    expected = np.maximum(0, -ROW_SIGNS * (x1 - x2) + 0.3)
    close(F.margin_ranking_loss(fw(x1), fw(x2), fw(ROW_SIGNS), 0.3, reduction=reduction), reduce(expected))
    hinge = np.where(SIGNS == 1, X, np.maximum(0, 1.5 - X))
    close(F.hinge_embedding_loss(fw(X), fw(SIGNS), 1.5, reduction=reduction), reduce(hinge))
    prod = (X * T).sum(1)
    cos = prod / np.sqrt(((X * X).sum(1) + 1e-12) * ((T * T).sum(1) + 1e-12))
    cosine = np.where(ROW_SIGNS == 1, 1 - cos, np.maximum(0, cos - 0.1))
    close(F.cosine_embedding_loss(fw(X), fw(T), fw(ROW_SIGNS), 0.1, reduction=reduction), reduce(cosine))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_triplet_margin_loss(reduction: str) -> None:
    negative = X * 0.5 + T

    def distance(a: Array, b: Array, p: float) -> Array:
        result: Array = (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)
        return result

    for p, swap in [(2.0, False), (1.0, True)]:
        d_neg = distance(X, negative, p)
        if swap:
            d_neg = np.minimum(d_neg, distance(T, negative, p))
        expected = np.maximum(distance(X, T, p) - d_neg + 1.0, 0)
        result = F.triplet_margin_loss(fw(X), fw(T), fw(negative), p=p, swap=swap, reduction=reduction)
        close(result, REDUCE[reduction](expected))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_poisson_and_gaussian_nll(reduction: str) -> None:
    reduce = REDUCE[reduction]
    rate, counts = np.abs(X) + 0.1, np.round(np.abs(T) * 3)
    close(F.poisson_nll_loss(fw(X), fw(counts), reduction=reduction), reduce(np.exp(X) - counts * X))
    above = np.where(counts > 1, counts, 2.0)
    stirling = above * np.log(above) - above + 0.5 * np.log(2 * math.pi * above)
    full = rate - counts * np.log(rate + 1e-8) + np.where(counts > 1, stirling, 0)
    result = F.poisson_nll_loss(fw(rate), fw(counts), log_input=False, full=True, reduction=reduction)
    close(result, reduce(full))
    var = np.abs(T) + 0.1
    gaussian = 0.5 * (np.log(var) + (X - T) ** 2 / var)
    close(F.gaussian_nll_loss(fw(X), fw(T), fw(var), reduction=reduction), reduce(gaussian))
    close(
        F.gaussian_nll_loss(fw(X), fw(T), fw(var), full=True, reduction=reduction),
        reduce(gaussian + 0.5 * math.log(2 * math.pi)),
    )


def test_gaussian_nll_variance_shapes_and_errors() -> None:
    per_row = np.abs(T[:, 0]) + 0.1
    expected = (0.5 * (np.log(per_row[:, None]) + (X - T) ** 2 / per_row[:, None])).mean()
    close(F.gaussian_nll_loss(fw(X), fw(T), fw(per_row)), expected)
    close(F.gaussian_nll_loss(fw(X), fw(T), fw(per_row[:, None])), expected)
    close(F.gaussian_nll_loss(fw(X), fw(T), 0.5), (0.5 * (np.log(0.5) + (X - T) ** 2 / 0.5)).mean())
    clamped = F.gaussian_nll_loss(fw(X), fw(T), fw(np.zeros((4, 5))), reduction="sum")
    close(clamped, (0.5 * (np.log(1e-6) + (X - T) ** 2 / 1e-6)).sum())
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(fw(X), fw(T), fw(np.ones((2, 5))))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(fw(X), fw(T), fw(-np.ones((4, 5))))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(fw(X), fw(T), -1.0)
    with pytest.raises(ValueError, match="avg is not valid"):
        F.gaussian_nll_loss(fw(X), fw(T), 1.0, reduction="avg")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_soft_margin_loss(reduction: str) -> None:
    labels = (SIGNS > 0).astype(np.float64)
    weight = np.abs(T[0])
    log_sig = -np.logaddexp(0, -X)
    log_sig_neg = -np.logaddexp(0, X)
    per_class = -(labels * log_sig + (1 - labels) * log_sig_neg) * weight
    expected = REDUCE[reduction](per_class.sum(1) / 5)
    close(F.multilabel_soft_margin_loss(fw(X), fw(labels), fw(weight), reduction=reduction), expected)


def test_normalize_cosine_similarity_pairwise_distance() -> None:
    close(F.normalize(fw(X)), X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12))
    close(F.normalize(fw(X), p=1.0, dim=0), X / np.abs(X).sum(0, keepdims=True))
    out = framework.empty((4, 5), dtype=framework.float64)
    assert F.normalize(fw(X), out=out) is out
    close(out, X / np.linalg.norm(X, axis=1, keepdims=True))
    close(F.cosine_similarity(fw(X), fw(T)), cosine_ref(X, T, 1))
    close(F.cosine_similarity(fw(X), fw(T[:1]), dim=0), cosine_ref(X, np.broadcast_to(T[:1], X.shape), 0))
    tiny = X * 1e-10
    close(F.cosine_similarity(fw(tiny), fw(T)), cosine_ref(tiny, T, 1))
    close(F.pairwise_distance(fw(X), fw(T)), np.linalg.norm(X - T + 1e-6, axis=-1))
    close(
        F.pairwise_distance(fw(X), fw(T[0]), p=1.0, keepdim=True),
        np.abs(X - T[0] + 1e-6).sum(-1, keepdims=True),
    )
    with pytest.raises(
        RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"
    ):
        F.cosine_similarity(framework.tensor([[1, 2]]), framework.tensor([[2, 1]]))


def test_errors() -> None:
    with pytest.raises(
        RuntimeError, match=re.escape("smooth_l1_loss does not support negative values for beta.")
    ):
        F.smooth_l1_loss(fw(X), fw(T), beta=-1.0)
    with pytest.raises(
        RuntimeError, match=re.escape("huber_loss does not support non-positive values for delta.")
    ):
        F.huber_loss(fw(X), fw(T), delta=0.0)
    with pytest.raises(ValueError, match=re.escape("Weights and input must have the same size.")):
        F.huber_loss(fw(X), fw(T), weight=fw(np.ones(5)))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.soft_margin_loss(fw(X), fw(SIGNS), reduction="avg")
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_loss(fw(X), fw(T), fw(T), margin=0)
    with pytest.raises(
        RuntimeError, match="margin_ranking_loss : All input tensors should have same dimension"
    ):
        F.margin_ranking_loss(fw(X), fw(T), fw(ROW_SIGNS))
    with pytest.raises(
        RuntimeError, match="1D target tensor expects 2D input tensors, but found inputs with sizes"
    ):
        F.cosine_embedding_loss(fw(X[0]), fw(T[0]), fw(ROW_SIGNS))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.poisson_nll_loss(fw(X), fw(T), reduction="avg")


def test_legacy_reduction_arguments_warn() -> None:
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        result = F.soft_margin_loss(fw(X), fw(SIGNS), size_average=False)
    close(result, np.log1p(np.exp(-SIGNS * X)).sum())


# ---- modules ------------------------------------------------------------------------------------


def test_loss_modules_apply_their_functions() -> None:
    x, t, signs = fw(X), fw(T), fw(SIGNS)
    labels = fw((SIGNS > 0).astype(np.float64))
    var = fw(np.abs(T) + 0.1)
    pairs: list[tuple[Tensor, Tensor]] = [
        (nn.SmoothL1Loss(beta=0.5)(x, t), F.smooth_l1_loss(x, t, beta=0.5)),
        (nn.HuberLoss("sum", 2.0)(x, t), F.huber_loss(x, t, "sum", 2.0)),
        (
            nn.KLDivLoss(reduction="batchmean")(fw(LOG_P), fw(Q)),
            F.kl_div(fw(LOG_P), fw(Q), reduction="batchmean"),
        ),
        (nn.SoftMarginLoss()(x, signs), F.soft_margin_loss(x, signs)),
        (
            nn.MarginRankingLoss(0.2)(x[:, 0], t[:, 0], fw(ROW_SIGNS)),
            F.margin_ranking_loss(x[:, 0], t[:, 0], fw(ROW_SIGNS), 0.2),
        ),
        (nn.HingeEmbeddingLoss(2.0)(x, signs), F.hinge_embedding_loss(x, signs, 2.0)),
        (nn.CosineEmbeddingLoss(0.1)(x, t, fw(ROW_SIGNS)), F.cosine_embedding_loss(x, t, fw(ROW_SIGNS), 0.1)),
        (
            nn.TripletMarginLoss(p=1.0, swap=True)(x, t, x + t),
            F.triplet_margin_loss(x, t, x + t, p=1.0, swap=True),
        ),
        (nn.PoissonNLLLoss(full=True)(x, t.abs()), F.poisson_nll_loss(x, t.abs(), full=True)),
        (nn.GaussianNLLLoss(full=True)(x, t, var), F.gaussian_nll_loss(x, t, var, full=True)),
        (
            nn.MultiLabelSoftMarginLoss(fw(np.arange(1.0, 6.0)))(x, labels),
            F.multilabel_soft_margin_loss(x, labels, fw(np.arange(1.0, 6.0))),
        ),
        (nn.CosineSimilarity(0, 1e-6)(x, t), F.cosine_similarity(x, t, 0, 1e-6)),
        (nn.PairwiseDistance(1.0, keepdim=True)(x, t), F.pairwise_distance(x, t, 1.0, keepdim=True)),
    ]
    for module_result, function_result in pairs:
        np.testing.assert_array_equal(module_result.numpy(), function_result.numpy())


def test_loss_module_attributes_and_reprs() -> None:
    assert repr(nn.SmoothL1Loss()) == "SmoothL1Loss()"
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"
    assert nn.PairwiseDistance(3.0).norm == 3.0
    assert nn.HuberLoss().delta == 1.0 and nn.HuberLoss().reduction == "mean"
    assert nn.HingeEmbeddingLoss().margin == 1.0 and nn.MarginRankingLoss().margin == 0.0
    assert nn.KLDivLoss(log_target=True).log_target
    weighted = nn.MultiLabelSoftMarginLoss(fw(np.ones(5)))
    assert [name for name, _ in weighted.named_buffers()] == ["weight"]
    with pytest.raises(
        ValueError, match="TripletMarginLoss: expected margin to be greater than 0, got 0 instead"
    ):
        nn.TripletMarginLoss(margin=0)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.SoftMarginLoss(reduce=False).reduction == "none"


# ---- against PyTorch ----------------------------------------------------------------------------

LABELS = (SIGNS > 0).astype(np.float64)
TORCH_CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("smooth_l1_loss", (X, T), {}),
    ("smooth_l1_loss", (X, T), {"beta": 0.5, "reduction": "none"}),
    ("huber_loss", (X, T), {"delta": 2.0, "reduction": "sum"}),
    ("huber_loss", (X, T), {"weight": np.abs(T)}),
    ("kl_div", (LOG_P, Q), {"reduction": "batchmean"}),
    ("kl_div", (LOG_P, np.log(Q + 0.1)), {"reduction": "none", "log_target": True}),
    ("soft_margin_loss", (X, SIGNS), {}),
    ("margin_ranking_loss", (X[:, 0], T[:, 0], ROW_SIGNS), {"margin": 0.3}),
    ("hinge_embedding_loss", (X, SIGNS), {"margin": 2.0, "reduction": "sum"}),
    ("cosine_embedding_loss", (X, T, ROW_SIGNS), {"margin": 0.2}),
    ("cosine_embedding_loss", (X[0], T[0], np.array(-1)), {}),
    ("triplet_margin_loss", (X, T, X * 0.5 + T), {"swap": True, "p": 1.0}),
    ("poisson_nll_loss", (X, np.abs(T)), {}),
    ("poisson_nll_loss", (np.abs(X), np.round(np.abs(T) * 3)), {"log_input": False, "full": True}),
    ("gaussian_nll_loss", (X, T, np.abs(T[:, 0]) + 0.1), {"full": True}),
    ("multilabel_soft_margin_loss", (X, LABELS), {"weight": np.abs(T[0]), "reduction": "none"}),
    ("normalize", (X,), {"p": 3.0, "dim": 0}),
    ("cosine_similarity", (X, T[:1]), {}),
    ("cosine_similarity", (X * 1e-9, T), {}),
    ("pairwise_distance", (X, T), {"keepdim": True}),
    ("pairwise_distance", (X[0], T[0]), {"p": 3.0}),
]


def _arguments(values: tuple[Any, ...], kwargs: dict[str, Any], make: Callable[[Array, bool], Any]) -> Any:
    args = [make(v, v.dtype.kind == "f") for v in values]
    return args, {k: make(v, False) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


@needs_torch
@pytest.mark.parametrize(
    ("name", "values", "kwargs"), TORCH_CASES, ids=[f"{c[0]}{list(c[2])}" for c in TORCH_CASES]
)
def test_against_torch(name: str, values: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    import torch

    def th(a: Array, requires_grad: bool) -> Any:
        t = torch.from_numpy(np.array(a))
        return t.requires_grad_() if requires_grad else t

    ours_args, ours_kwargs = _arguments(values, kwargs, fw)
    theirs_args, theirs_kwargs = _arguments(values, kwargs, th)
    with warnings.catch_warnings(record=True) as ours_warnings:
        warnings.simplefilter("always")
        ours = getattr(F, name)(*ours_args, **ours_kwargs)
    with warnings.catch_warnings(record=True) as theirs_warnings:
        warnings.simplefilter("always")
        theirs = getattr(torch.nn.functional, name)(*theirs_args, **theirs_kwargs)
    assert [str(w.message) for w in ours_warnings] == [str(w.message) for w in theirs_warnings]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-13)
    assert ours.grad_fn is not None and ours.grad_fn.name() == theirs.grad_fn.name()
    seed = np.random.default_rng(2).standard_normal(tuple(theirs.shape))
    ours_inputs = [a for a in ours_args if a.requires_grad]
    theirs_inputs = [a for a in theirs_args if a.requires_grad]
    ours_grads = framework.autograd.grad(ours, ours_inputs, framework.tensor(seed))
    theirs_grads = torch.autograd.grad(theirs, theirs_inputs, torch.from_numpy(seed))
    for a, b in zip(ours_grads, theirs_grads, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)
