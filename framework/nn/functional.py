"""`torch.nn.functional`: PyTorch's Python signatures, defaults and argument checks over the
dispatched operators (`framework.ops.aten`), so autograd records the same graph nodes."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final, cast

import framework
from framework._tensor import Tensor
from framework.c10.dtypes import dtype as DType
from framework.ops._iter import broadcast_shapes

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
    "nll_loss",
    "pad",
    "relu",
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
    strides = [] if stride is None else stride
    if return_indices:
        values, indices = _aten.max_pool2d_with_indices.default(
            input, kernel_size, strides, padding, dilation, ceil_mode
        )
        return cast(Tensor, values), cast(Tensor, indices)
    return cast(Tensor, _aten.max_pool2d.default(input, kernel_size, strides, padding, dilation, ceil_mode))


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
    if isinstance(output_size, int):
        sizes: int | list[int] = output_size
    else:
        given = list(output_size)
        if input.dim() <= len(given):
            raise ValueError(f"Input dimension should be at least {len(given) + 1}")
        defaults = input.shape[-len(given) :]
        sizes = [d if v is None else v for v, d in zip(given, defaults, strict=True)]
    return cast(Tensor, _aten.adaptive_avg_pool2d.default(input, sizes))


# ---- embedding and normalization ----------------------------------------------------------------


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
    rows = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx > 0:
        if padding_idx >= rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = rows + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return cast(Tensor, _aten.embedding.default(weight, input, padding_idx, scale_grad_by_freq, sparse))


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Scale the rows of `weight` that `input` looks up and whose norm exceeds max_norm to norm
    max_norm (times 1 / (1 + 1e-7 / norm), as PyTorch), in place and unrecorded."""
    with framework.no_grad():
        index = input.reshape(-1)
        rows = weight.index_select(0, index)
        norms = rows.norm(norm_type, [1], True)
        scale = (norms + 1e-7).reciprocal().mul(max_norm).masked_fill(norms.le(max_norm), 1.0)
        weight.index_put_([index], rows * scale)


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
        shape = input.shape
        values = shape[0] if shape else 1
        for size in shape[2:]:
            values *= size
        if values == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {_size(shape)}"
            )
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
    shape = list(broadcast_shapes(input.shape, target.shape))
    expanded_input, expanded_target = input.expand(shape), target.expand(shape)
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

_NON_CONSTANT_PAD_RANKS: Final = {2: (2, 3), 4: (3, 4)}
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
    3-d inputs) or the last two (3-d or 4-d inputs)."""
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
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)"
        )
    if mode == "circular":
        return _pad_circular(input, pads)
    if len(pads) == 4:
        op = _aten.reflection_pad2d if mode == "reflect" else _aten.replication_pad2d
    else:
        op = _aten.reflection_pad1d if mode == "reflect" else _aten.replication_pad1d
    return cast(Tensor, op.default(input, pads))


# ---- more layers (normalization, pooling, transposed convolution, interpolation, dropout...) -----

from framework.nn import _functional_more  # noqa: E402
from framework.nn._functional_more import *  # noqa: E402, F403

__all__ += _functional_more.__all__
