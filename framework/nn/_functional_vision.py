"""Vision and sequence parts of `torch.nn.functional` (re-exported by `framework.nn.functional`):
grid_sample and affine_grid, ctc_loss, fractional max pooling, lp_pool3d, native_channel_shuffle
and the deprecated upsample wrappers of interpolate, with PyTorch's Python signatures, defaults,
checks and warnings over the dispatched operators."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final, cast

import numpy as np

import framework
from framework._tensor import Tensor
from framework.autograd.function import Function
from framework.nn._functional_3d import avg_pool3d, max_pool3d
from framework.nn._functional_misc import _lp_pool
from framework.nn._functional_more import interpolate
from framework.nn.functional import _reduction_enum

__all__: list[str] = [
    "affine_grid",
    "ctc_loss",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "grid_sample",
    "lp_pool3d",
    "native_channel_shuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

_aten: Any = framework.ops.aten

_INTERPOLATION_MODES: Final = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_MODES: Final = {"zeros": 0, "border": 1, "reflection": 2}


def _default_align_corners(align_corners: bool | None) -> bool:
    """`align_corners`, False (with PyTorch's warning of the changed default) when not given."""
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
            "Please specify align_corners=True if the old behavior is desired. See the documentation of "
            "grid_sample for details.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return align_corners


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """The values of `input` (N, C, H, W) or (N, C, D, H, W) at the points of `grid` (N, H', W', 2)
    or (N, D', H', W', 3), given as normalized coordinates x, y (, z) in [-1, 1], interpolated as
    `mode` says ("bilinear", "nearest", "bicubic" for 4-d inputs) with points outside the input
    read as `padding_mode` says ("zeros", "border", "reflection")."""
    if mode not in _INTERPOLATION_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
            f"but got: '{mode}'"
        )
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    corners = _default_align_corners(align_corners)
    return cast(
        Tensor,
        _aten.grid_sampler.default(
            input, grid, _INTERPOLATION_MODES[mode], _PADDING_MODES[padding_mode], corners
        ),
    )


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps `theta` (N, 2, 3) or
    (N, 3, 4) for an output of `size` (N, C, H, W) or (N, C, D, H, W): the normalized coordinates
    of each output position mapped by theta, for grid_sample."""
    corners = _default_align_corners(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    sizes = list(size)
    if len(sizes) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
    elif len(sizes) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if corners and min(sizes[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
            "of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(sizes) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return cast(Tensor, _aten.affine_grid_generator.default(theta, sizes, corners))


# ---- ctc_loss -------------------------------------------------------------------------------------


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss of log-probabilities (T, N, C) (or (T, C))
    against targets (N, S) padded or 1-d concatenated, with per-sample input and target lengths
    (integer lists or tensors): "mean" divides each loss by its target length, then averages."""
    return framework.ctc_loss(
        log_probs,
        targets,
        input_lengths,  # type: ignore[arg-type]
        target_lengths,  # type: ignore[arg-type]
        blank,
        _reduction_enum(reduction),
        zero_infinity,
    )


# ---- fractional max pooling -----------------------------------------------------------------------


def _fractional_max_pool(
    n: int,
    input: Tensor,
    kernel_size: int | Sequence[int],
    output_size: int | Sequence[int] | None,
    output_ratio: float | Sequence[float] | None,
    random_samples: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool{n}d's values and indices, the output size from `output_ratio` times
    the input's when not given, the samples drawn as torch.rand(N, C, n) in the input's dtype
    when not given (so a seed gives PyTorch's windows)."""
    name = f"fractional_max_pool{n}d"
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
        if n == 2:
            if not isinstance(output_ratio, Sequence):
                raise TypeError(f"object of type '{type(output_ratio).__name__}' has no len()")
            if len(output_ratio) > 2:
                raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratios = list(output_ratio) if isinstance(output_ratio, Sequence) else [output_ratio] * n
        output_size = [int(input.size(axis - n) * ratio) for axis, ratio in enumerate(ratios)]
    if random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        random_samples = framework.rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    kernel = [kernel_size] * n if isinstance(kernel_size, int) else list(kernel_size)
    sizes = [output_size] * n if isinstance(output_size, int) else list(output_size)
    op = getattr(_aten, name).default
    values, indices = op(input, kernel, sizes, random_samples)
    return cast(Tensor, values), cast(Tensor, indices)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: int | Sequence[int],
    output_size: int | Sequence[int] | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool2d's values and indices (whatever `return_indices` says)."""
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: int | Sequence[int],
    output_size: int | Sequence[int] | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The maximum of each of output_size (or output_ratio times the input size) pseudo-random,
    overlapping kernel_size windows of (N, C, H, W) or (C, H, W) inputs (and, with
    return_indices, its flat position in the plane)."""
    values, indices = _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: int | Sequence[int],
    output_size: int | Sequence[int] | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool3d's values and indices (whatever `return_indices` says)."""
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: int | Sequence[int],
    output_size: int | Sequence[int] | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """fractional_max_pool2d over (N, C, T, H, W) or (C, T, H, W) inputs."""
    values, indices = _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values


# ---- lp_pool3d, native_channel_shuffle, deprecated upsampling -------------------------------------


def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    """3-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    kd, kh, kw = [kernel_size] * 3 if isinstance(kernel_size, int) else kernel_size
    return _lp_pool(max_pool3d, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, kd * kh * kw)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle's native operator (no derivative, as in PyTorch)."""
    return cast(Tensor, _aten.native_channel_shuffle.default(input, groups))


def _deprecated_upsample(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=3,
    )


def upsample(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated: interpolate(input, size, scale_factor, mode, align_corners), with a warning."""
    _deprecated_upsample("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """Deprecated: nearest interpolation, with a warning."""
    _deprecated_upsample("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """Deprecated: bilinear interpolation with align_corners=True, with a warning."""
    _deprecated_upsample("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- CrossMapLRN2d's autograd Function ----------------------------------------------------------


def _window_matrix(channels: int, size: int) -> np.ndarray[Any, np.dtype[np.float64]]:
    """(C, C): how often each channel's square enters each channel's scale in PyTorch's legacy
    CrossMapLRN2d, which starts from the first (size - 1) // 2 + 1 channels and slides by adding
    the next channel and dropping one only past the first window (so channel 0 always stays)."""
    pre_pad = int((size - 1) / 2 + 1)
    counts = np.zeros((channels, channels))
    counts[0, : min(pre_pad, channels)] = 1
    for c in range(1, channels):
        counts[c] = counts[c - 1]
        if c < channels - pre_pad + 1:
            counts[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            counts[c, c - pre_pad] -= 1
    return counts


class CrossMapLRN2d(Function):
    """PyTorch's legacy cross-channel normalization with its own backward (which sums the
    ratios over a symmetric window of `size` channels, not the forward's)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        window = framework.tensor(_window_matrix(input.size(1), size), dtype=input.dtype)
        scale = framework.einsum("ij,njhw->nihw", window, input * input) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None, None, None, None]:
        input, output = ctx.saved_tensors
        size, scale = ctx.size, ctx.scale
        channels = input.size(1)
        lead = int(size - (size - 1) / 2)
        offsets = np.arange(channels)[None, :] - np.arange(channels)[:, None]
        window = framework.tensor(((offsets >= -lead) & (offsets <= size - 1 - lead)).astype(np.float64))
        ratios = grad_output * output / scale
        accumulated = framework.einsum("ij,njhw->nihw", window.to(input.dtype), ratios)
        grad_input = scale.pow(-ctx.beta) * grad_output - input * accumulated * (
            2 * ctx.alpha * ctx.beta / size
        )
        return grad_input, None, None, None, None
