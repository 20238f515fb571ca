"""`torch.nn.functional`: PyTorch's Python signatures, defaults and argument checks over the
dispatched operators (`framework.ops.aten`), so autograd records the same graph nodes."""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Sequence
from typing import Any, Final, cast

import framework
from framework._tensor import Tensor
from framework.c10.dtypes import dtype as DType
from framework.nn._functional_shared import _adaptive_output_size, _max_pool, _verify_batch_size
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import CPP_TYPE_NAMES
from framework.overrides import handle_torch_function as handle_torch_function
from framework.overrides import has_torch_function as has_torch_function
from framework.overrides import has_torch_function_unary as has_torch_function_unary
from framework.overrides import has_torch_function_variadic as has_torch_function_variadic
from framework.overrides import torch_function_dispatch

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "cross_entropy",
    "dropout",
    "embedding",
    "gelu",
    "l1_loss",
    "layer_norm",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "pad",
    "relu",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "tanh",
]

_aten: Any = framework.ops.aten
IntOrPair = int | Sequence[int]
_REDUCTIONS: Final = {"none": 0, "mean": 1, "sum": 2}


def _size(shape: Sequence[int]) -> str:
    """A shape as PyTorch prints a `torch.Size` in its messages."""
    return f"torch.Size({list(shape)})"


def _reduction_enum(reduction: str) -> int:
    """The operators' `int reduction` for a reduction name."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction the deprecated `size_average` / `reduce` arguments stand for (both default to
    True), with PyTorch's deprecation warning; `reduction` when neither is given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{legacy}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return legacy


# ---- linear layers and activations --------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias."""
    return cast(Tensor, _aten.linear.default(input, weight, bias))


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return cast(Tensor, _aten.relu_.default(input) if inplace else _aten.relu.default(input))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    return cast(Tensor, _aten.gelu.default(input, approximate=approximate))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return cast(Tensor, _aten.silu_.default(input) if inplace else _aten.silu.default(input))


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's implicit softmax dimension (deprecated): 0 for 0-, 1- and 3-d inputs, else 1."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
        "argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim` (computed in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return cast(Tensor, _aten.softmax.int(input, dim, dtype))


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """x - log(sum(exp(x))) along `dim` (computed in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return cast(Tensor, _aten.log_softmax.int(input, dim, dtype))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p while training, scaling the others by 1 / (1 - p)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    result = cast(Tensor, _aten.dropout.default(input, p, training))
    if inplace and result is not input:
        return input.copy_(result)
    return result


# ---- convolution and pooling --------------------------------------------------------------------


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrPair = 1,
    padding: IntOrPair | str = 0,
    dilation: IntOrPair = 1,
    groups: int = 1,
) -> Tensor:
    """1-d cross-correlation of (N, C, L) or (C, L) inputs; padding may be "valid" or "same"."""
    return _conv(_aten.conv1d, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrPair = 1,
    padding: IntOrPair | str = 0,
    dilation: IntOrPair = 1,
    groups: int = 1,
) -> Tensor:
    """2-d cross-correlation of (N, C, H, W) or (C, H, W) inputs; padding may be "valid" or "same"."""
    return _conv(_aten.conv2d, input, weight, bias, stride, padding, dilation, groups)


def _conv(op: Any, input: Tensor, weight: Tensor, bias: Tensor | None, *geometry: Any) -> Tensor:
    """conv1d/conv2d: the `padding` overload for "valid"/"same", the default one for sizes."""
    overload = op.padding if isinstance(geometry[1], str) else op.default
    return cast(Tensor, overload(input, weight, bias, *geometry))


def max_pool2d(
    input: Tensor,
    kernel_size: IntOrPair,
    stride: IntOrPair | None = None,
    padding: IntOrPair = 0,
    dilation: IntOrPair = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window (and, with return_indices, its flat position in the plane);
    the stride defaults to the kernel size."""
    return _max_pool("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool2d(
    input: Tensor,
    kernel_size: IntOrPair,
    stride: IntOrPair | None = None,
    padding: IntOrPair = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window; the stride defaults to the kernel size."""
    strides = [] if stride is None else stride
    return cast(
        Tensor,
        _aten.avg_pool2d.default(
            input, kernel_size, strides, padding, ceil_mode, count_include_pad, divisor_override
        ),
    )


def adaptive_avg_pool2d(input: Tensor, output_size: int | Sequence[int | None] | None) -> Tensor:
    """Averages over windows that split the plane into `output_size` (None keeps a dimension)."""
    if output_size is None:
        raise TypeError("object of type 'NoneType' has no len()")
    sizes = output_size if isinstance(output_size, int) else _adaptive_output_size(input, output_size)
    return cast(Tensor, _aten.adaptive_avg_pool2d.default(input, sizes))


# ---- embedding and normalization ----------------------------------------------------------------


def _padding_index(padding_idx: int | None, num_embeddings: int, name: str) -> int | None:
    """A negative `padding_idx` counted from num_embeddings (PyTorch's assertion, naming it
    `name`, when it is out of range)."""
    if padding_idx is None:
        return None
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return num_embeddings + padding_idx if padding_idx < 0 else padding_idx


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of `weight` at the indices in `input`.  Rows looked up are first renormalized in
    place to norm at most max_norm (when given); the padding_idx row gets no gradient.  (Gradients
    are dense even with sparse=True: there are no sparse tensors here.)"""
    padding_idx = _padding_index(padding_idx, weight.shape[0], "Padding_idx")
    if padding_idx is None:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return cast(Tensor, _aten.embedding.default(weight, input, padding_idx, scale_grad_by_freq, sparse))


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Scale the rows of `weight` that `input` looks up and whose norm exceeds max_norm to norm
    max_norm (framework.embedding_renorm_), in place and unrecorded."""
    with framework.no_grad():
        framework.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)


def layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize over the last dimensions (`normalized_shape`), then scale and shift."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return cast(Tensor, _aten.layer_norm.default(input, shape, weight, bias, eps, False))


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (dimension 1) with the batch statistics while training (updating
    the running ones in place with `momentum`, the variance unbiased) or the running statistics."""
    if training:
        _verify_batch_size(input.shape, _size(input.shape))
    return cast(
        Tensor,
        _aten.batch_norm.default(
            input, weight, bias, running_mean, running_var, training, momentum, eps, False
        ),
    )


# ---- losses -------------------------------------------------------------------------------------


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dimension, then the negative log likelihood of class indices, or
    the cross entropy with class probabilities (a target shaped like the input)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return cast(
        Tensor,
        _aten.cross_entropy_loss.default(
            input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing
        ),
    )


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-input[target] (weighted), for inputs (N, C, ...) of log-probabilities."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return cast(
        Tensor, _aten.nll_loss_nd.default(input, target, weight, _reduction_enum(reduction), ignore_index)
    )


def _warn_broadcast(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({_size(target.shape)}) that is different to the input size "
            f"({_size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    shape = list(broadcast_shapes(input.shape, target.shape))
    return input.expand(shape), target.expand(shape)


def _pointwise_loss(
    kind: str,
    input: Tensor,
    target: Tensor,
    size_average: bool | None,
    reduce: bool | None,
    reduction: str,
    weight: Tensor | None,
) -> Tensor:
    """mse_loss and l1_loss: the operator on the broadcast input and target, or the weighted
    loss (a weighted mean divides by the weights' sum)."""
    _warn_broadcast(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is None:
        op = _aten.mse_loss.default if kind == "mse" else _aten.l1_loss.default
        return cast(Tensor, op(expanded_input, expanded_target, _reduction_enum(reduction)))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    difference = expanded_input - expanded_target
    errors = difference * difference if kind == "mse" else difference.abs()
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """(input - target)^2, optionally weighted, reduced."""
    return _pointwise_loss("mse", input, target, size_average, reduce, reduction, weight)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """|input - target|, optionally weighted, reduced."""
    return _pointwise_loss("l1", input, target, size_average, reduce, reduction, weight)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-w (t log(p) + (1 - t) log(1 - p)) for probabilities p, each log floored at -100."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({_size(target.shape)}) that is different to the input size "
            f"({_size(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(list(broadcast_shapes(target.shape, weight.shape)))
    return cast(Tensor, _aten.binary_cross_entropy.default(input, target, weight, enum))


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy of sigmoid(input), computed stably from the logits; pos_weight
    weighs the positive term (per class, broadcast along the last dimension)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({_size(target.shape)}) must be the same as input size ({_size(input.shape)})"
        )
    return cast(
        Tensor, _aten.binary_cross_entropy_with_logits.default(input, target, weight, pos_weight, enum)
    )


# ---- padding ------------------------------------------------------------------------------------

_NON_CONSTANT_PAD_RANKS: Final = {2: (2, 3), 4: (3, 4), 6: (4, 5)}
"""For each supported length of a non-constant pad, the input ranks it applies to."""


def _pad_circular(input: Tensor, pads: Sequence[int]) -> Tensor:
    """Wrap around each padded dimension: what is cut from one end is appended at the other."""
    result = input
    for i in range(len(pads) // 2):
        axis = input.dim() - 1 - i
        before, after = pads[2 * i], pads[2 * i + 1]
        size = result.shape[axis]
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if before < 0 or after < 0:
            start = max(-before, 0)
            result = result.narrow(axis, start, size - start - max(-after, 0))
            size = result.shape[axis]
        parts = [result]
        if before > 0:
            parts.insert(0, result.narrow(axis, size - before, before))
        if after > 0:
            parts.append(result.narrow(axis, 0, after))
        if len(parts) > 1:
            result = cast(Tensor, _aten.cat.default(parts, axis))
    return result


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last len(pad) / 2 dimensions, the last one first: "constant" (with `value`, 0 by
    default) for any rank; "reflect", "replicate" and "circular" for the last dimension (2-d or
    3-d inputs), the last two (3-d or 4-d inputs) or the last three (4-d or 5-d inputs)."""
    pads = list(pad)
    if mode == "constant":
        return cast(Tensor, _aten.constant_pad_nd.default(input, pads, 0 if value is None else value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    ndim = input.dim()
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) // 2 > ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pads)} and input of dimension {ndim}"
        )
    if ndim not in _NON_CONSTANT_PAD_RANKS.get(len(pads), ()):
        raise NotImplementedError(
            f"Padding size {len(pads)} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode == "circular":
        return _pad_circular(input, pads)
    kind = "reflection" if mode == "reflect" else "replication"
    op = getattr(_aten, f"{kind}_pad{len(pads) // 2}d")
    return cast(Tensor, op.default(input, pads))


# ---- attention ----------------------------------------------------------------------------------


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query keyᵀ · scale + bias) value over the last two dimensions (L, E) x (S, E);
    scale defaults to 1/√E.  A bool attn_mask marks the allowed positions (True), a float one is
    added; is_causal allows position j for query i only when j <= i.  Rows with no allowed
    position give zeros.  dropout_p drops attention weights (always, as PyTorch's does).
    enable_gqa repeats each key/value head for a group of query heads (dimension -3)."""
    dims = query.dim(), key.dim(), value.dim()
    if min(dims) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{dims[0]} key.dim: {dims[1]} and value.dim: {dims[2]} instead."
        )
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{CPP_TYPE_NAMES[query.dtype]} key.dtype: {CPP_TYPE_NAMES[key.dtype]} and value.dtype: "
            f"{CPP_TYPE_NAMES[value.dtype]} instead."
        )
    if attn_mask is not None and attn_mask.dtype not in (framework.bool, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{CPP_TYPE_NAMES[attn_mask.dtype]} and  query.dtype: {CPP_TYPE_NAMES[query.dtype]} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        )
    if dropout_p < 0.0 or dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.dim() >= 3:
        key, value = _repeat_kv_heads(query, key), _repeat_kv_heads(query, value)
    scale_factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        allowed = framework.ones((query.shape[-2], key.shape[-2]), dtype=framework.bool).tril()
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    elif attn_mask is not None and attn_mask.dtype == framework.bool:
        scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
    elif attn_mask is not None:
        scores = scores + attn_mask
    nothing_allowed = scores.eq(float("-inf")).all(-1, keepdim=True)
    weights = softmax(scores.masked_fill(nothing_allowed, 0.0), -1).masked_fill(nothing_allowed, 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _repeat_kv_heads(query: Tensor, kv: Tensor) -> Tensor:
    """Grouped-query attention: each of the key/value heads (dimension -3) repeated for its group
    of query heads, as `repeat_interleave` along that dimension."""
    heads, kv_heads = query.shape[-3], kv.shape[-3]
    if heads % kv_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    shape = list(kv.shape)
    grouped = kv.unsqueeze(-3).expand([*shape[:-2], heads // kv_heads, *shape[-2:]])
    return grouped.reshape([*shape[:-3], heads, *shape[-2:]])


def _none_or_dtype(input: Tensor | None) -> DType | None:
    """The dtype of a mask, or None."""
    return None if input is None else input.dtype


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: DType | None,
    other_name: str,
    target_type: DType,
    check_other: bool = True,
) -> Tensor | None:
    """An attention mask as an additive float mask: a bool mask's True (masked) positions become
    -inf in target_type, float masks pass; other dtypes are refused.  Warns (deprecated) when the
    other mask has another dtype."""
    if mask is None:
        return None
    if mask.dtype != framework.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. "
            "Use same type for both instead.",
            UserWarning,
            stacklevel=2,
        )
    if mask.dtype.is_floating_point:
        return mask
    return framework.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _mha_shape_check(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """Whether the multi-head attention inputs are batched (3-d query) or not (2-d), with
    PyTorch's checks of the other inputs' ranks."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
        )
    batched = query.dim() == 3
    prefix = "For batched (3-D) `query`" if batched else "For unbatched (2-D) `query`"
    rank = 3 if batched else 2
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"{prefix}, expected `key` and `value` to be {rank}-D but found {key.dim()}-D and "
            f"{value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"{prefix}, expected `key_padding_mask` to be `None` or {rank - 1}-D but found "
            f"{key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"{prefix}, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {_size(attn_mask.shape)}"
            )
    return batched


def _in_projection_packed(
    q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """q, k and v projected by the packed weight (3E, E): one linear when q, k and v are the same
    tensor, two when only k and v are, else three."""
    embed_dim = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, [3, embed_dim]).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, [2, embed_dim]).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv = kv.contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _static_kv(static: Tensor, name: str, heads: int, head_dim: int) -> Tensor:
    """A precomputed (batch * heads, S, head_dim) key or value, checked."""
    if static.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention over sequence-first inputs (L, N, E) (or unbatched (L, E)): project
    query, key and value, attend per head (masks: True / -inf = not allowed), concatenate the
    heads and project the result.  Returns the output and, with need_weights, the attention
    weights (averaged over the heads with average_attn_weights)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
                f"{_size(value.shape[:2])}"
            )
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q = linear(query, cast(Tensor, q_proj_weight), b_q)
        k = linear(key, cast(Tensor, k_proj_weight), b_k)
        v = linear(value, cast(Tensor, v_proj_weight), b_v)
    else:
        if key.shape != value.shape:
            raise AssertionError(
                f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}"
            )
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = framework.cat([k, bias_k.repeat(1, bsz, 1)])
        v = framework.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    heads = bsz * num_heads
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], heads, head_dim).transpose(0, 1)
    else:
        k = _static_kv(static_k, "static_k", heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], heads, head_dim).transpose(0, 1)
    else:
        v = _static_kv(static_v, "static_v", heads, head_dim)
    if add_zero_attn:
        k = framework.cat([k, framework.zeros((heads, 1, head_dim), dtype=k.dtype, device=k.device)], 1)
        v = framework.cat([v, framework.zeros((heads, 1, head_dim), dtype=v.dtype, device=v.device)], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand([-1, num_heads, -1, -1])
            .reshape(heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / float(head_dim))).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        attn_output = weights.matmul(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            return attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    attn_output = scaled_dot_product_attention(
        q.view(bsz, num_heads, tgt_len, head_dim),
        k.view(bsz, num_heads, src_len, head_dim),
        v.view(bsz, num_heads, src_len, head_dim),
        attn_mask,
        dropout_p,
        is_causal,
    )
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
    return (attn_output if is_batched else attn_output.squeeze(1)), None


# ---- more activations (framework/ops/kernels/activation.py) -------------------------------------

__all__ += [
    "celu",
    "cosine_embedding_loss",
    "cosine_similarity",
    "elu",
    "gaussian_nll_loss",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "leaky_relu",
    "logsigmoid",
    "margin_ranking_loss",
    "mish",
    "multilabel_soft_margin_loss",
    "normalize",
    "pairwise_distance",
    "poisson_nll_loss",
    "prelu",
    "relu6",
    "selu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "triplet_margin_loss",
]


def _inplace_or_not(name: str, inplace: bool, *args: Any) -> Tensor:
    """The in-place operator `name_` when `inplace`, else `name`."""
    op = getattr(_aten, f"{name}_" if inplace else name)
    return cast(Tensor, op.default(*args))


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """`value` where input <= threshold, input elsewhere."""
    return _inplace_or_not("threshold", inplace, input, threshold, value)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6)."""
    return _inplace_or_not("relu6", inplace, input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha (exp(x) - 1) elsewhere."""
    return _inplace_or_not("elu", inplace, input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with PyTorch's fixed alpha = 1.6732... and scale = 1.0507...."""
    return _inplace_or_not("selu", inplace, input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    return _inplace_or_not("celu", inplace, input, alpha)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, negative_slope * x elsewhere."""
    return _inplace_or_not("leaky_relu", inplace, input, negative_slope)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """leaky_relu with a learned slope per channel (dimension 1), or one for all."""
    return cast(Tensor, _aten.prelu.default(input, weight))


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return cast(Tensor, _aten.glu.default(input, dim))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _inplace_or_not("hardtanh", inplace, input, min_val, max_val)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return _inplace_or_not("hardswish", inplace, input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return _inplace_or_not("hardsigmoid", inplace, input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _inplace_or_not("mish", inplace, input)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed stably."""
    return cast(Tensor, _aten.log_sigmoid.default(input))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    return cast(Tensor, _aten.softplus.default(input, beta, threshold))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    return cast(Tensor, _aten.softshrink.default(input, lambd))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x outside [-lambd, lambd], 0 inside."""
    return cast(Tensor, _aten.hardshrink.default(input, lambd))


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """softmax(-x) along `dim` (computed in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return cast(Tensor, _aten.softmax.int(-input, dim, dtype))


# ---- more losses and distances ------------------------------------------------------------------


def _legacy_enum(size_average: bool | None, reduce: bool | None, reduction: str) -> int:
    return _reduction_enum(_legacy_reduction(size_average, reduce, reduction))


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """0.5 (x - t)^2 / beta where |x - t| < beta, |x - t| - beta / 2 elsewhere (l1_loss for
    beta = 0), reduced."""
    _warn_broadcast(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if beta == 0.0:
        return cast(
            Tensor, _aten.l1_loss.default(expanded_input, expanded_target, _reduction_enum(reduction))
        )
    return cast(
        Tensor,
        _aten.smooth_l1_loss.default(expanded_input, expanded_target, _reduction_enum(reduction), beta),
    )


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None
) -> Tensor:
    """0.5 (x - t)^2 where |x - t| < delta, delta (|x - t| - delta / 2) elsewhere, optionally
    weighted, reduced."""
    _warn_broadcast(input, target)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is None:
        return cast(
            Tensor,
            _aten.huber_loss.default(expanded_input, expanded_target, _reduction_enum(reduction), delta),
        )
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    unweighted = cast(Tensor, _aten.huber_loss.default(expanded_input, expanded_target, 0, delta))
    weighted = unweighted * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """target (log(target) - input) for log-probabilities `input` (exp(target) (target - input)
    with log_target), reduced; "batchmean" divides the sum by the batch size, "mean" (with
    PyTorch's warning) by the number of elements."""
    if size_average is not None or reduce is not None:
        enum = _legacy_enum(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                UserWarning,
                stacklevel=2,
            )
        enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = cast(Tensor, _aten.kl_div.default(input, target, enum, log_target=log_target))
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.shape[0]
    return reduced


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(-t x)) for targets t of 1 or -1, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    return cast(Tensor, _aten.soft_margin_loss.default(input, target, enum))


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -t (x1 - x2) + margin), reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{_size(input1.shape)}, input2: {_size(input2.shape)}, target: {_size(target.shape)} "
        )
    return cast(Tensor, _aten.margin_ranking_loss.default(input1, input2, target, margin, enum))


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """x where t = 1, max(0, margin - x) where t = -1, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    return cast(Tensor, _aten.hinge_embedding_loss.default(input, target, margin, enum))


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(x1, x2) where t = 1, max(0, cos(x1, x2) - margin) where t = -1, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    return cast(Tensor, _aten.cosine_embedding_loss.default(input1, input2, target, margin, enum))


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, d(a, p) - d(a, n) + margin) with p-norm pairwise distances d, reduced."""
    enum = _legacy_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return cast(
        Tensor, _aten.triplet_margin_loss.default(anchor, positive, negative, margin, p, eps, swap, enum)
    )


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log likelihood of a Poisson target: exp(x) - t x for log rates (x - t log(x + eps)
    otherwise), plus Stirling's term when `full`, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    enum = _reduction_enum(reduction)
    return cast(Tensor, _aten.poisson_nll_loss.default(input, target, log_input, full, eps, enum))


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """0.5 (log(var) + (x - t)^2 / var) (+ 0.5 log(2 pi) when `full`), the variance clamped below
    by eps (without gradient through the clamp), reduced.  `var` may be a float, shaped like the
    input, or lack (or have size 1 in) one of its dimensions."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = framework.ones_like(input) * var
    elif bool(var.lt(0).any().item()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.dim() != var.dim() or (
            sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) != 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with framework.no_grad():
        var.clamp_(min=eps)
    difference = input - target
    loss = (var.log() + difference * difference / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-(t log(sigmoid(x)) + (1 - t) log(sigmoid(-x))), optionally weighted, averaged over the
    classes (the last dimension), reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """input / max(||input||_p, eps) along `dim`."""
    if out is None:
        denom = input.norm(p, [dim], True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, [dim], True).clamp_min_(eps).expand_as(input)
    return framework.div(input, denom, out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 along `dim` (broadcast together)."""
    return cast(Tensor, _aten.cosine_similarity.default(x1, x2, dim, eps))


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last dimension."""
    return cast(Tensor, _aten.pairwise_distance.default(x1, x2, p, eps, keepdim))


# ---- more layers (normalization, pooling, transposed convolution, interpolation, dropout...) -----

from framework.nn import _functional_more  # noqa: E402
from framework.nn._functional_more import *  # noqa: E402, F403

__all__ += _functional_more.__all__

# ---- misc layers, losses and in-place activations (bilinear, embedding_bag, rrelu, ...) ---------

from framework.nn import _functional_misc  # noqa: E402
from framework.nn._functional_misc import *  # noqa: E402, F403

__all__ += _functional_misc.__all__

# ---- 3-d layers, max pooling with indices, max unpooling, fold / unfold --------------------------

from framework.nn import _functional_3d  # noqa: E402
from framework.nn._functional_3d import *  # noqa: E402, F403

__all__ += _functional_3d.__all__

# ---- vision and sequence: grid sampling, affine grids ---------------------------------------------

from framework.nn import _functional_vision  # noqa: E402
from framework.nn._functional_vision import *  # noqa: E402, F403

__all__ += _functional_vision.__all__

# ---- __torch_function__: every function above goes through the protocol (framework.overrides) ---

for _name in __all__:
    if isinstance(_function := globals()[_name], types.FunctionType):
        globals()[_name] = torch_function_dispatch(_function)
