"""More of `torch.nn.functional` (re-exported by `framework.nn.functional`): the in-place
activations (relu_, elu_, ...), rrelu, bilinear, conv_tbc, embedding_bag, rms_norm, the multi-class and
multi-label margin losses, triplet_margin_with_distance_loss, gumbel_softmax, pdist,
channel_shuffle and power-average pooling, with PyTorch's Python signatures, defaults and checks
over the dispatched operators."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

import framework
from framework._tensor import Tensor
from framework.nn._functional_more import avg_pool1d, max_pool1d
from framework.nn.functional import (
    _embedding_renorm_,
    _legacy_enum,
    avg_pool2d,
    max_pool2d,
    relu,
)

__all__: list[str] = [
    "bilinear",
    "celu_",
    "channel_shuffle",
    "conv_tbc",
    "elu_",
    "embedding_bag",
    "gumbel_softmax",
    "hardtanh_",
    "leaky_relu_",
    "lp_pool1d",
    "lp_pool2d",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "pdist",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "selu_",
    "threshold_",
    "triplet_margin_with_distance_loss",
]

_aten: Any = framework.ops.aten

conv_tbc = framework.conv_tbc


# ---- in-place activations and rrelu -------------------------------------------------------------


def relu_(input: Tensor) -> Tensor:
    """max(0, x), in place."""
    return cast(Tensor, _aten.relu_.default(input))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x for x > 0, alpha (exp(x) - 1) elsewhere, in place."""
    return cast(Tensor, _aten.elu_.default(input, alpha))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x for x > 0, negative_slope x elsewhere, in place."""
    return cast(Tensor, _aten.leaky_relu_.default(input, negative_slope))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x clamped to [min_val, max_val], in place."""
    return cast(Tensor, _aten.hardtanh_.default(input, min_val, max_val))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)), in place."""
    return cast(Tensor, _aten.celu_.default(input, alpha))


def selu_(input: Tensor) -> Tensor:
    """scale (max(0, x) + min(0, alpha (exp(x) - 1))), in place."""
    return cast(Tensor, _aten.selu_.default(input))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """x where x > threshold, `value` elsewhere, in place."""
    return cast(Tensor, _aten.threshold_.default(input, threshold, value))


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: negative elements scaled by a slope drawn from U(lower, upper) per
    element when training, by (lower + upper) / 2 otherwise."""
    op = _aten.rrelu_ if inplace else _aten.rrelu
    return cast(Tensor, op.default(input, lower, upper, training))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """rrelu in place."""
    return cast(Tensor, _aten.rrelu_.default(input, lower, upper, training))


# ---- layers -------------------------------------------------------------------------------------


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_k = x1ᵀ A_k x2 + b_k with weight A (out, in1, in2)."""
    return cast(Tensor, _aten.bilinear.default(input1, input2, weight, bias))


def rms_norm(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """x / sqrt(mean(x²) + eps) over the last len(normalized_shape) dimensions, times weight."""
    return cast(Tensor, _aten.rms_norm.default(input, list(normalized_shape), weight, eps))


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Sums, means or maxima of bags of embedding rows: a 2-d `input` holds one bag per row, a 1-d
    one is cut into bags at `offsets`.  (Gradients are dense even with sparse=True: there are no
    sparse tensors here.)"""
    if weight.dtype == framework.long and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
            "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
            f"have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                f"length sequences. However, found offsets of type {type(offsets)}"
            )
        offsets = framework.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}'). Please open a feature request on GitHub."
        )
    result = _aten.embedding_bag.padding_idx(
        weight,
        input,
        offsets,
        scale_grad_by_freq,
        _BAG_MODES[mode],
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
    return cast(Tensor, result[0])


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, g * k, *) channels reordered as g groups interleaved: (N, k, g, *) flattened."""
    return cast(Tensor, _aten.channel_shuffle.default(input, groups))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between each pair of rows i < j of a 2-d input."""
    return cast(Tensor, _aten.pdist.default(input, p))


def _lp_pool(
    pool: Callable[..., Tensor],
    average: Callable[..., Tensor],
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any,
    ceil_mode: bool,
    window: int,
) -> Tensor:
    """(sum over each window of x^p)^(1/p), through average pooling (max pooling of |x| for p = ±inf)."""
    if norm_type == float("inf"):
        return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = average(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = average(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (framework.sign(out) * relu(framework.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: int, stride: int | None = None, ceil_mode: bool = False
) -> Tensor:
    """1-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(max_pool1d, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, kernel_size)


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    """2-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    kw, kh = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    return _lp_pool(max_pool2d, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, kw * kh)


# ---- losses -------------------------------------------------------------------------------------


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Multi-class hinge loss: per sample, the mean over the other classes j of
    w[y] max(0, margin - x[y] + x[j])^p, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return cast(Tensor, _aten.multi_margin_loss.default(input, target, p, margin, weight, enum))


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Multi-label hinge loss: per sample, the sum over its target classes (listed in `target`
    up to the first -1) and its other classes j of max(0, 1 - x[y] + x[j]), over the number of
    classes, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    return cast(Tensor, _aten.multilabel_margin_loss.default(input, target, enum))


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) for a distance function d (pairwise_distance by
    default; with `swap`, d(a, n) is min(d(a, n), d(p, n))), reduced."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not a_dim == p_dim == n_dim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs"
        )
    distance = framework.pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = framework.minimum(dist_neg, distance(positive, negative))
    loss = framework.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return framework.sum(loss)
    if reduction == "mean":
        return framework.mean(loss)
    return loss


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample from the Gumbel-softmax distribution over `dim`: softmax((logits + g) / tau) with
    g = -log(Exp(1)) noise from the generator; with `hard`, the one-hot of its argmax, whose
    gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -framework.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = framework.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
