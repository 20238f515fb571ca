"""More of `torch.nn.functional` (re-exported by `framework.nn.functional`): group, instance and
local response normalization, 1-d and adaptive max pooling, transposed convolution,
interpolation, pixel shuffle, one_hot and channel-wise / alpha dropout, with PyTorch's Python
signatures, defaults, argument checks and warnings over the dispatched operators."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, cast

import framework
from framework._tensor import Tensor
from framework.nn._functional_shared import (
    _adaptive_output_size,
    _max_pool,
    _unpool_output_size,
    _verify_batch_size,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "alpha_dropout",
    "avg_pool1d",
    "conv_transpose1d",
    "conv_transpose2d",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
    "group_norm",
    "instance_norm",
    "interpolate",
    "local_response_norm",
    "max_pool1d",
    "max_unpool2d",
    "one_hot",
    "pixel_shuffle",
    "pixel_unshuffle",
]

_aten: Any = framework.ops.aten
IntOrSeq = int | Sequence[int]


# ---- normalization ------------------------------------------------------------------------------


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each group of `num_groups` channel groups of each sample, then scale and shift
    each channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    _verify_batch_size(size, str(size))
    return cast(Tensor, _aten.group_norm.default(input, num_groups, weight, bias, eps, False))


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel of each sample over its spatial positions (with the running
    statistics instead when `use_input_stats` is False; updated in place when given and used)."""
    if use_input_stats:
        spatial = math.prod(input.shape[2:])
        if spatial == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size "
                f"torch.Size({list(input.shape)})"
            )
    return cast(
        Tensor,
        _aten.instance_norm.default(
            input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False
        ),
    )


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Divide each element by (k + alpha * the mean of the squares of `size` neighbouring channels
    (zero-padded)) ** beta.  Inputs of more than 3 dimensions average over their spatial positions
    flattened, with a 2-d pooling (PyTorch uses a 3-d one: same values)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    sizes = list(input.shape)
    planes = squares.unsqueeze(1) if dim == 3 else squares.view(sizes[0], 1, sizes[1], -1)
    padded = _aten.constant_pad_nd.default(planes, [0, 0, size // 2, (size - 1) // 2], 0)
    div = cast(Tensor, _aten.avg_pool2d.default(padded, [size, 1], [1, 1])).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)


# ---- pooling ------------------------------------------------------------------------------------


def max_pool1d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of (N, C, L) or (C, L) inputs (and, with return_indices, its
    position); the stride defaults to the kernel size."""
    return _max_pool("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each window of (N, C, L) or (C, L) inputs; the stride defaults to the kernel
    size."""
    strides = [] if stride is None else stride
    return cast(
        Tensor, _aten.avg_pool1d.default(input, kernel_size, strides, padding, ceil_mode, count_include_pad)
    )


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrSeq) -> Tensor:
    """Means over windows that split the last dimension into `output_size`."""
    return cast(Tensor, _aten.adaptive_avg_pool1d.default(input, output_size))


def adaptive_max_pool1d(input: Tensor, output_size: IntOrSeq, return_indices: bool = False) -> Any:
    """Maxima over windows that split the last dimension into `output_size` (and, with
    return_indices, their positions)."""
    values, indices = _aten.adaptive_max_pool1d.default(input, output_size)
    return (cast(Tensor, values), cast(Tensor, indices)) if return_indices else cast(Tensor, values)


def adaptive_max_pool2d(
    input: Tensor, output_size: int | Sequence[int | None], return_indices: bool = False
) -> Any:
    """Maxima over windows that split the last two dimensions into `output_size` (None keeps a
    dimension), and, with return_indices, their flat positions in the plane."""
    sizes = [output_size] * 2 if isinstance(output_size, int) else _adaptive_output_size(input, output_size)
    values, indices = _aten.adaptive_max_pool2d.default(input, sizes)
    return (cast(Tensor, values), cast(Tensor, indices)) if return_indices else cast(Tensor, values)


def _pair(value: IntOrSeq) -> list[int]:
    return [value, value] if isinstance(value, int) else list(value)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """The partial inverse of max_pool2d: zeros with each element of `input` put where `indices`
    (max_pool2d's) say it came from; the output size is that of the pooled input unless given
    (within one stride of it; optionally preceded by the batch and channel sizes)."""
    kernel = _pair(kernel_size)
    strides = kernel if stride is None else _pair(stride)
    sizes = _unpool_output_size(input, kernel, strides, _pair(padding), output_size)
    return cast(Tensor, _aten.max_unpool2d.default(input, indices, sizes))


# ---- transposed convolution ---------------------------------------------------------------------


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    output_padding: IntOrSeq = 0,
    groups: int = 1,
    dilation: IntOrSeq = 1,
) -> Tensor:
    """The transposed 1-d convolution of (N, C, L) or (C, L) inputs with weight (C, F/groups, K)."""
    return cast(
        Tensor,
        _aten.conv_transpose1d.default(
            input, weight, bias, stride, padding, output_padding, groups, dilation
        ),
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    output_padding: IntOrSeq = 0,
    groups: int = 1,
    dilation: IntOrSeq = 1,
) -> Tensor:
    """The transposed 2-d convolution of (N, C, H, W) or (C, H, W) inputs with weight
    (C, F/groups, KH, KW)."""
    return cast(
        Tensor,
        _aten.conv_transpose2d.input(input, weight, bias, stride, padding, output_padding, groups, dilation),
    )


# ---- interpolation ------------------------------------------------------------------------------

_NEEDS: dict[str, int] = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dimensions to `size` or by `scale_factor`: modes "nearest" (3-d and 4-d
    inputs), "linear" (3-d), "bilinear" (4-d), "area" (3-d and 4-d, adaptive average pooling).
    Raises NotImplementedError for PyTorch's other modes (bicubic, trilinear, nearest-exact,
    lanczos), 5-d inputs and antialias, which are not implemented here."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                "bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size: list[int] | None
    scale_factors: list[float] | None
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please "
                    "provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                    "format."
                )
            if not all(isinstance(s, int) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                    "int], "
                    f"but got size with types {[type(s) for s in size]}"
                )
            output_size = list(size)
        else:
            output_size = [cast(int, size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input "
                    f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                    f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(cast(float, scale_factor))] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor and scale_factors is not None:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
            "tensor as input"
        )
    ndim = input.dim()
    if mode == "nearest" and ndim in (3, 4):
        op = _aten.upsample_nearest1d if ndim == 3 else _aten.upsample_nearest2d
        return cast(Tensor, op.vec(input, output_size, scale_factors))
    if mode == "area" and ndim in (3, 4):
        assert output_size is not None
        pool = _aten.adaptive_avg_pool1d if ndim == 3 else _aten.adaptive_avg_pool2d
        return cast(Tensor, pool.default(input, output_size))
    if (mode, ndim) in (("linear", 3), ("bilinear", 4)) and not antialias:
        op = _aten.upsample_linear1d if ndim == 3 else _aten.upsample_bilinear2d
        return cast(Tensor, op.vec(input, output_size, align_corners, scale_factors))
    needed = _NEEDS.get(mode)
    if needed is not None and ndim in (3, 4, 5) and ndim != needed:
        raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {needed}D input")
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area", "nearest-exact")
    if ndim in (3, 4, 5) and mode in known:
        raise NotImplementedError(
            f"interpolate: mode '{mode}' on {ndim}D input{' with antialias' if antialias else ''} is not "
            "implemented in framework (supported: nearest and area for 3D/4D, linear for 3D, bilinear for 4D)"
        )
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the modes: nearest | "
        f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
    )


# ---- pixel shuffle and one_hot ------------------------------------------------------------------


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r * r, H, W) to (*, C, H * r, W * r), r the upscale factor."""
    return cast(Tensor, _aten.pixel_shuffle.default(input, upscale_factor))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) to (*, C * r * r, H, W), r the downscale factor."""
    return cast(Tensor, _aten.pixel_unshuffle.default(input, downscale_factor))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 (*tensor.shape, num_classes), 1 at each value's class (num_classes -1: the largest
    value + 1)."""
    return cast(Tensor, _aten.one_hot.default(tensor, num_classes))


# ---- channel-wise and alpha dropout -------------------------------------------------------------


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool) -> Tensor:
    """feature_dropout (in place or not) over (N, C, *), an unbatched input given a batch of one."""
    x = input if batched else (input.unsqueeze_(0) if inplace else input.unsqueeze(0))
    op = _aten.feature_dropout_ if inplace else _aten.feature_dropout
    result = cast(Tensor, op.default(x, p, training))
    if batched:
        return result
    return result.squeeze_(0) if inplace else result.squeeze(0)


def _deprecated_rank(name: str, ndim: int, spatial: int) -> None:
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in a "
        "future release. To retain the behavior and silence this warning, please use dropout instead. Note "
        f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
        f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=3,
    )


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability p while training,
    scaling the others by 1 / (1 - p)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that dropout1d "
            "exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _feature_dropout(input, p, training, inplace, batched=ndim == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (dimension 1) with probability p while training, scaling the others by
    1 / (1 - p).  As in PyTorch, a 3-d input is taken as batched (N, C, L), with a warning."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        _deprecated_rank("dropout2d", ndim, 2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
            "behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
            "behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, batched=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability p while
    training, scaling the others by 1 / (1 - p)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        _deprecated_rank("dropout3d", ndim, 3)
    return _feature_dropout(input, p, training, inplace, batched=ndim == 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and an
    affine map keeps the input's mean and variance."""
    _check_p(p)
    op = _aten.alpha_dropout_ if inplace else _aten.alpha_dropout
    return cast(Tensor, op.default(input, p, training))


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout of whole channels (dimension 1)."""
    _check_p(p)
    op = _aten.feature_alpha_dropout_ if inplace else _aten.feature_alpha_dropout
    return cast(Tensor, op.default(input, p, training))
