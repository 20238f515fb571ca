"""Vision and sequence kernels: sampling an input at grid points (grid_sampler_2d/3d with their
backward operators: bilinear, nearest and, in 2-d, bicubic interpolation; zeros, border and
reflection padding), the affine grids of F.affine_grid (affine_grid_generator and its backward),
the connectionist temporal classification loss (_ctc_loss, _ctc_loss_backward) and fractional max
pooling (fractional_max_pool2d/3d with their backward operators).

As in framework/ops/kernels/nn.py, each kernel checks its arguments with PyTorch's messages and
decides its outputs' shapes and dtypes before computing, so Meta tensors get exactly that. The
sampling kernels gather with integer index arrays, one array per corner of the interpolation
stencil, and scatter their input gradients with one np.bincount.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Final

import numpy as np

from framework._tensor import Tensor
from framework.c10.device import Device
from framework.ops.kernels._registry import (
    array,
    aten_op,
    int_list,
    kernel,
)
from framework.ops.kernels.linalg import Array, IntList, Sizes
from framework.ops.kernels.nn import _check_floating, _emit, _emit_many, _opmath

# ---- grid_sampler_2d / grid_sampler_3d ------------------------------------------------------------

_BILINEAR: Final = 0
_NEAREST: Final = 1
_BICUBIC: Final = 2
_ZEROS: Final = 0
_BORDER: Final = 1
_REFLECTION: Final = 2
_CUBIC_A: Final = -0.75
"""The cubic convolution constant of bicubic sampling (as OpenCV's)."""


def _check_grid_sampler(input: Tensor, grid: Tensor, mode: int, padding_mode: int, spatial: int) -> Device:
    """PyTorch's checks of grid_sampler_2d (`spatial` 2) and grid_sampler_3d (3), in its order."""
    x, g = input._impl, grid._impl
    if x.device != g.device:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but input is on {x.device} "
            f"and grid is on {g.device}"
        )
    if not x.dim() or not g.dim() or x.sizes[0] != g.sizes[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(x.sizes)} and grid with sizes {list(g.sizes)}"
        )
    if g.sizes[-1] != x.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {x.dim() - 2} in last dimension, but got grid "
            f"with sizes {list(g.sizes)}"
        )
    for axis in range(2, x.dim()):
        if x.sizes[axis] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                f"{list(x.sizes)} with dimension {axis} being empty"
            )
    if x.dim() != spatial + 2 or g.dim() != x.dim():
        raise RuntimeError(
            f"grid_sampler(): expected {spatial + 2}D input and grid with same number of dimensions, but "
            f"got input with sizes {list(x.sizes)} and grid with sizes {list(g.sizes)}"
        )
    if spatial == 3 and mode == _BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if mode not in (_BILINEAR, _NEAREST, _BICUBIC):
        raise RuntimeError(
            "grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or 2 (bicubic), "
            f"but got {mode}"
        )
    if padding_mode not in (_ZEROS, _BORDER, _REFLECTION):
        raise RuntimeError(
            "grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), but got "
            f"{padding_mode}"
        )
    if x.dtype is not g.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.scalar_type_name} but found {g.dtype.scalar_type_name}"
        )
    _check_floating(
        f"grid_sampler_{spatial}d_cpu_kernel_impl" if spatial == 2 else "grid_sampler3d_cpu", x.dtype
    )
    return x.device


def _clip(coord: Array, size: int) -> tuple[Array, Array]:
    """`coord` clipped to [0, size - 1], and its derivative (0 on and beyond the borders)."""
    inside = (coord > 0) & (coord < size - 1)
    return np.clip(coord, 0, size - 1), inside.astype(coord.dtype)


def _reflect(coord: Array, twice_low: int, twice_high: int) -> tuple[Array, Array]:
    """`coord` reflected by the borders low and high until it falls between them (both given
    doubled so that half-integer borders stay integers), and its derivative (±1)."""
    if twice_low == twice_high:
        return np.zeros_like(coord), np.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = coord - low
    sign = np.where(shifted < 0, -1.0, 1.0).astype(coord.dtype)
    distance = np.abs(shifted)
    extra = np.fmod(distance, span)
    even = np.floor(distance / span) % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _pad_coordinates(coord: Array, size: int, padding_mode: int, align_corners: bool) -> tuple[Array, Array]:
    """Pixel coordinates moved inside the input as `padding_mode` says (unchanged for zeros), and
    their derivative."""
    if padding_mode == _BORDER:
        return _clip(coord, size)
    if padding_mode == _REFLECTION:
        reflected, slope = (
            _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        )
        clipped, inside = _clip(reflected, size)
        return clipped, slope * inside
    return coord, np.ones_like(coord)


def _unnormalize(coord: Array, size: int, align_corners: bool) -> tuple[Array, float]:
    """Grid coordinates in [-1, 1] as pixel coordinates (-1 and 1 the centres of the corner pixels
    when `align_corners`, their outer edges otherwise), and the scale between them."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


class _Stencil:
    """The input points a grid samples, for one grid: per point of the stencil (a corner of the
    bilinear cell, the nearest pixel, one of bicubic's 4 x 4 pixels) the flat index into the
    input's spatial positions of every grid location, whether it lies inside the input, and the
    weight of its value (with the weight's derivative by each grid coordinate, for the backward).

    The input's spatial axes are (D,) H, W; the grid's last axis holds x (W), y (H) (, z (D))."""

    def __init__(
        self, sizes: Sizes, grid: Array, mode: int, padding_mode: int, align_corners: bool, derive: bool
    ) -> None:
        self.sizes = sizes
        self.padding_mode = padding_mode
        self.align_corners = align_corners
        n = grid.shape[0]
        spatial = len(sizes)
        coords = [grid[..., spatial - 1 - axis].reshape(n, -1) for axis in range(spatial)]
        self.points: list[tuple[Array, Array, list[Array]]] = []
        """(flat index, weight, derivative of the weight by each axis's pixel coordinate)"""
        self.scale: list[Array] = []
        """d pixel coordinate / d grid coordinate, per axis"""
        if mode == _BICUBIC:
            self._bicubic(coords, derive)
            return
        pixels = []
        for coord, size in zip(coords, sizes, strict=True):
            unnormalized, scale = _unnormalize(coord, size, align_corners)
            padded, slope = _pad_coordinates(unnormalized, size, padding_mode, align_corners)
            pixels.append(padded)
            self.scale.append(slope * scale)
        if mode == _NEAREST:
            index, inside = self._locate([np.rint(p) for p in pixels])
            self.points.append((index, _masked(inside, np.ones_like(pixels[0])), []))
            return
        lows = [np.floor(p) for p in pixels]
        for corner in itertools.product((0, 1), repeat=spatial):
            factors = [
                p - low if step else low + 1 - p for p, low, step in zip(pixels, lows, corner, strict=True)
            ]
            index, inside = self._locate([low + step for low, step in zip(lows, corner, strict=True)])
            derivatives = (
                [
                    _masked(inside, _product(factors, axis)) * (1 if step else -1)
                    for axis, step in enumerate(corner)
                ]
                if derive
                else []
            )
            self.points.append((index, _masked(inside, _product(factors)), derivatives))

    def _bicubic(self, coords: list[Array], derive: bool) -> None:
        """The 4 x 4 pixels around each point with cubic convolution weights; each pixel is padded
        as `padding_mode` says (the weights' derivatives leave the padding out, as PyTorch's)."""
        bases = []
        for coord, size in zip(coords, self.sizes, strict=True):
            unnormalized, scale = _unnormalize(coord, size, self.align_corners)
            self.scale.append(np.full_like(coord, scale))
            low = np.floor(unnormalized)
            bases.append((low, _cubic_weights(unnormalized - low), _cubic_slopes(unnormalized - low)))
        for offsets in itertools.product(range(4), repeat=2):
            pixels = []
            for (low, _, _), offset, size in zip(bases, offsets, self.sizes, strict=True):
                padded, _ = _pad_coordinates(low + (offset - 1), size, self.padding_mode, self.align_corners)
                pixels.append(np.trunc(padded))
            index, inside = self._locate(pixels)
            weights = [w[offset] for (_, w, _), offset in zip(bases, offsets, strict=True)]
            derivatives = (
                [
                    _masked(inside, slopes[offset] * _product(weights, axis))
                    for axis, ((_, _, slopes), offset) in enumerate(zip(bases, offsets, strict=True))
                ]
                if derive
                else []
            )
            self.points.append((index, _masked(inside, _product(weights)), derivatives))

    def _locate(self, pixels: list[Array]) -> tuple[Array, Array]:
        """The flat spatial index of integer-valued pixel coordinates (0 outside the input) and
        whether they lie inside it (never for NaN)."""
        inside = np.ones(pixels[0].shape, np.bool_)
        index = np.zeros(pixels[0].shape, np.int64)
        for pixel, size in zip(pixels, self.sizes, strict=True):
            within = (pixel >= 0) & (pixel < size)
            inside &= within
            index = index * size + np.where(within, pixel, 0).astype(np.int64)
        return np.where(inside, index, 0), inside


def _masked(inside: Array, values: Array) -> Array:
    """`values` where `inside`, 0 elsewhere (also where they are NaN)."""
    return np.where(inside, values, 0)


def _product(factors: list[Array], skip: int = -1) -> Array:
    """The product of `factors` except the one at `skip`."""
    result = np.ones_like(factors[0])
    for axis, factor in enumerate(factors):
        if axis != skip:
            result = result * factor
    return result


def _cubic_weights(t: Array) -> list[Array]:
    """The cubic convolution weights of the pixels at -1, 0, 1 and 2 from a point at t in [0, 1)."""
    a = _CUBIC_A

    def near(x: Array) -> Array:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Array) -> Array:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_slopes(t: Array) -> list[Array]:
    """The derivatives of _cubic_weights by t."""
    a = _CUBIC_A

    def near(x: Array) -> Array:
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far(x: Array) -> Array:
        return (3 * a * x - 10 * a) * x + 8 * a

    return [far(t + 1), near(t), -near(1 - t), -far(2 - t)]


def _sample(values: Array, stencil: _Stencil) -> Array:
    """(N, C, P): the weighted sum over the stencil of `values` (N, C, S) at its points."""
    n, c, _ = values.shape
    out = np.zeros((n, c, stencil.points[0][0].shape[1]), values.dtype)
    for index, weight, _ in stencil.points:
        gathered = np.take_along_axis(
            values, np.broadcast_to(index[:, None, :], (n, c, index.shape[1])), axis=2
        )
        out += gathered * weight[:, None, :]
    return out


def _grid_sampler(
    input: Tensor, grid: Tensor, mode: int, padding_mode: int, align_corners: bool, spatial: int
) -> Tensor:
    device = _check_grid_sampler(input, grid, mode, padding_mode, spatial)
    x, g = input._impl.sizes, grid._impl.sizes
    work = _opmath(input._impl.dtype)

    def values() -> Array:
        stencil = _Stencil(x[2:], array(grid).astype(work), mode, padding_mode, align_corners, False)
        flat = array(input).astype(work).reshape(x[0], x[1], -1)
        return _sample(flat, stencil).reshape((x[0], x[1], *g[1:-1]))

    return _emit((x[0], x[1], *g[1:-1]), input._impl.dtype, device, values)


def _grid_sampler_backward(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
    spatial: int,
) -> tuple[Tensor | None, Tensor]:
    """The gradients of input (when output_mask[0] asks for it) and grid (always, zero for
    nearest sampling) of grid_sampler_{spatial}d."""
    device = _check_grid_sampler(input, grid, mode, padding_mode, spatial)
    x, g = input._impl.sizes, grid._impl.sizes
    d = input._impl.dtype
    work = _opmath(d)
    n, c = x[0], x[1]
    want_input = bool(output_mask[0])

    def values() -> list[Array]:
        stencil = _Stencil(
            x[2:], array(grid).astype(work), mode, padding_mode, align_corners, mode != _NEAREST
        )
        go = array(grad_output).astype(work).reshape(n, c, -1)
        flat = array(input).astype(work).reshape(n, c, -1)
        points = go.shape[2]
        grads = []
        if want_input:
            planes = (np.arange(n * c, dtype=np.int64) * math.prod(x[2:])).reshape(n, c, 1)
            positions = np.concatenate(
                [(planes + index[:, None, :]).ravel() for index, _, _ in stencil.points]
            )
            weights = np.concatenate([(go * weight[:, None, :]).ravel() for _, weight, _ in stencil.points])
            grads.append(np.bincount(positions, weights, minlength=n * c * math.prod(x[2:])).reshape(x))
        grid_grad = np.zeros((n, points, spatial), work)
        for index, _, derivatives in stencil.points:
            if not derivatives:
                continue
            gathered = np.take_along_axis(flat, np.broadcast_to(index[:, None, :], (n, c, points)), axis=2)
            contribution = (gathered * go).sum(axis=1)
            for axis, derivative in enumerate(derivatives):
                grid_grad[..., spatial - 1 - axis] += contribution * derivative
        for axis, scale in enumerate(stencil.scale):
            grid_grad[..., spatial - 1 - axis] *= scale
        grads.append(grid_grad.reshape(g))
        return grads

    specs = [(x, d)] if want_input else []
    outs = _emit_many([*specs, (g, d)], device, values)
    return (outs[0] if want_input else None), outs[-1]


@kernel("grid_sampler_2d")
def grid_sampler_2d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """The values of (N, C, H, W) `input` at the (N, H', W', 2) grid's points (x, y in [-1, 1]):
    (N, C, H', W')."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 2)


@kernel("grid_sampler_3d")
def grid_sampler_3d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """The values of (N, C, D, H, W) `input` at the (N, D', H', W', 3) grid's points: (N, C, D', H', W')."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 3)


@kernel("grid_sampler_2d_backward")
def grid_sampler_2d_backward(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor]:
    """grid_sampler_2d's gradients of input and grid."""
    return _grid_sampler_backward(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask, 2
    )


@kernel("grid_sampler_3d_backward")
def grid_sampler_3d_backward(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor]:
    """grid_sampler_3d's gradients of input and grid."""
    return _grid_sampler_backward(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask, 3
    )


@kernel("grid_sampler")
def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """grid_sampler_2d for a 4-d input, grid_sampler_3d otherwise."""
    op = "grid_sampler_2d.default" if input._impl.dim() == 4 else "grid_sampler_3d.default"
    result: Tensor = aten_op(op)(input, grid, interpolation_mode, padding_mode, align_corners)
    return result


# ---- affine_grid_generator ------------------------------------------------------------------------


def _affine_sizes(size: IntList) -> list[int]:
    sizes = int_list(size)
    if len(sizes) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return sizes


def _base_grid(like: Tensor, sizes: list[int], align_corners: bool) -> Tensor:
    """(N, (D,) H, W, k + 1): at each output position its normalized coordinates x, y (, z) in
    [-1, 1] (pixel centres; the outer edges are ±1 unless `align_corners`) and a 1, in `like`'s
    dtype and device."""
    n, spatial = sizes[0], sizes[2:]
    k = len(spatial)
    base: Tensor = aten_op("empty.memory_format")([n, *spatial, k + 1], dtype=like.dtype, device=like.device)
    for component in range(k):
        steps = spatial[k - 1 - component]
        line: Tensor = aten_op("linspace.default")(-1, 1, steps, dtype=like.dtype, device=like.device)
        if steps <= 1:
            line = aten_op("zeros_like.default")(line)
        elif not align_corners:
            line = aten_op("mul.Scalar")(line, (steps - 1) / steps)
        shape = [1] * (k + 1)
        shape[k - component] = steps
        aten_op("copy_.default")(
            aten_op("select.int")(base, -1, component), aten_op("view.default")(line, shape)
        )
    aten_op("fill_.Scalar")(aten_op("select.int")(base, -1, k), 1)
    return base


@kernel("affine_grid_generator")
def affine_grid_generator(theta: Tensor, size: IntList, align_corners: bool) -> Tensor:
    """The sampling grid (N, (D,) H, W, k) of the affine maps `theta` (N, k, k + 1): each output
    position's normalized coordinates (x, y (, z), 1) multiplied by thetaᵀ."""
    sizes = _affine_sizes(size)
    spatial = sizes[2:]
    base = _base_grid(theta, sizes, align_corners)
    flat = aten_op("view.default")(base, [sizes[0], math.prod(spatial), len(spatial) + 1])
    grid = aten_op("bmm.default")(flat, aten_op("transpose.int")(theta, 1, 2))
    result: Tensor = aten_op("view.default")(grid, [sizes[0], *spatial, len(spatial)])
    return result


@kernel("affine_grid_generator_backward")
def affine_grid_generator_backward(grad: Tensor, size: IntList, align_corners: bool) -> Tensor:
    """The gradient of theta (N, k, k + 1) from the grid's: (base gridᵀ grad)ᵀ per batch."""
    sizes = _affine_sizes(size)
    spatial = sizes[2:]
    base = _base_grid(grad, sizes, align_corners)
    points = math.prod(spatial)
    flat = aten_op("view.default")(base, [sizes[0], points, len(spatial) + 1])
    grads = aten_op("reshape.default")(grad, [sizes[0], points, len(spatial)])
    theta: Tensor = aten_op("bmm.default")(aten_op("transpose.int")(flat, 1, 2), grads)
    result: Tensor = aten_op("transpose.int")(theta, 1, 2)
    return result
