"""Vision and sequence parts of `torch.nn.functional` (re-exported by `framework.nn.functional`):
grid_sample and affine_grid, with PyTorch's Python signatures, defaults, checks and warnings over
the dispatched operators."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final, cast

import framework
from framework._tensor import Tensor

__all__: list[str] = [
    "affine_grid",
    "grid_sample",
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
