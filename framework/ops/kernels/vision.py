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

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import numpy as np

from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import bool_, float32, float64, int32, int64
from framework.ops.kernels._registry import (
    array,
    aten_op,
    int_list,
    kernel,
    not_implemented,
    register_variants,
    same_device,
)
from framework.ops.kernels.linalg import Array, IntList, Sizes
from framework.ops.kernels.nn import (
    _check_floating,
    _emit,
    _emit_many,
    _legacy_type,
    scatter_to_planes,
)

_R = TypeVar("_R")

# ---- grid_sampler_2d / grid_sampler_3d ------------------------------------------------------------

_BILINEAR: Final = 0
_NEAREST: Final = 1
_BICUBIC: Final = 2
_ZEROS: Final = 0
_BORDER: Final = 1
_REFLECTION: Final = 2
_CUBIC_A: Final = -0.75
"""The cubic convolution constant of bicubic sampling (as OpenCV's)."""


def _check_grid_sampler(
    input: Tensor, grid: Tensor, mode: int, padding_mode: int, spatial: int, backward: bool
) -> Device:
    """PyTorch's checks of grid_sampler_2d (`spatial` 2) and grid_sampler_3d (3) or their backward
    operators, in its order."""
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
    kernels = {
        (2, False): "grid_sampler_2d_cpu_kernel_impl",
        (3, False): "grid_sampler3d_cpu",
        (2, True): "grid_sampler_2d_backward_cpu_kernel_impl",
        (3, True): "grid_sampler_3d_backward_cpu",
    }
    _check_floating(kernels[spatial, backward], x.dtype)
    return x.device


def _clip(coord: Array, size: int) -> tuple[Array, Array]:
    """`coord` clipped to [0, size - 1] (NaN to 0, as PyTorch's), and its derivative (0 on and
    beyond the borders)."""
    inside = (coord > 0) & (coord < size - 1)
    return np.clip(np.where(np.isnan(coord), 0, coord), 0, size - 1), inside.astype(coord.dtype)


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
    input's spatial positions of every grid location and the weight of its value there (0 outside
    the input), with, for the backward, the weight's derivatives by the pixel coordinates.

    The input's spatial axes are (D,) H, W; the grid's last axis holds x (W), y (H) (, z (D))."""

    def __init__(
        self, sizes: Sizes, grid: Array, mode: int, padding_mode: int, align_corners: bool, derive: bool
    ) -> None:
        self.sizes = sizes
        self.padding_mode = padding_mode
        self.align_corners = align_corners
        spatial = len(sizes)
        flat = (grid.shape[0], math.prod(grid.shape[1:-1]))
        coords = [grid[..., spatial - 1 - axis].reshape(flat) for axis in range(spatial)]
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
            self.points.append((index, inside.astype(pixels[0].dtype), []))
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


def _gather(values: Array, index: Array) -> Array:
    """(N, C, P): `values` (N, C, S) at the flat spatial positions `index` (N, P)."""
    n, c, _ = values.shape
    return np.take_along_axis(values, np.broadcast_to(index[:, None, :], (n, c, index.shape[1])), axis=2)


def _sample(values: Array, stencil: _Stencil) -> Array:
    """(N, C, P): the weighted sum over the stencil of `values` (N, C, S) at its points."""
    n, c, _ = values.shape
    out = np.zeros((n, c, stencil.points[0][0].shape[1]), values.dtype)
    for index, weight, _ in stencil.points:
        out += _gather(values, index) * weight[:, None, :]
    return out


def _grid_sampler(
    input: Tensor, grid: Tensor, mode: int, padding_mode: int, align_corners: bool, spatial: int
) -> Tensor:
    """grid_sampler_{spatial}d: the values of (N, C, H, W) or (N, C, D, H, W) `input` at the
    (N, H', W', 2) or (N, D', H', W', 3) grid's points (x, y (, z) in [-1, 1]): (N, C, H', W') or
    (N, C, D', H', W')."""
    device = _check_grid_sampler(input, grid, mode, padding_mode, spatial, False)
    x, g = input._impl.sizes, grid._impl.sizes
    work = input._impl.dtype.opmath_numpy

    def values() -> Array:
        stencil = _Stencil(x[2:], array(grid).astype(work), mode, padding_mode, align_corners, False)
        flat = array(input).astype(work).reshape(x[0], x[1], math.prod(x[2:]))
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
    device = _check_grid_sampler(input, grid, mode, padding_mode, spatial, True)
    x, g = input._impl.sizes, grid._impl.sizes
    d = input._impl.dtype
    work = d.opmath_numpy
    n, c = x[0], x[1]
    want_input = bool(output_mask[0])

    def values() -> list[Array]:
        stencil = _Stencil(
            x[2:], array(grid).astype(work), mode, padding_mode, align_corners, mode != _NEAREST
        )
        points = math.prod(g[1:-1])
        go = array(grad_output).astype(work).reshape(n, c, points)
        flat = array(input).astype(work).reshape(n, c, math.prod(x[2:]))
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
            contribution = (_gather(flat, index) * go).sum(axis=1)
            for axis, derivative in enumerate(derivatives):
                grid_grad[..., spatial - 1 - axis] += contribution * derivative
        for axis, scale in enumerate(stencil.scale):
            grid_grad[..., spatial - 1 - axis] *= scale
        grads.append(grid_grad.reshape(g))
        return grads

    specs = [(x, d)] if want_input else []
    outs = _emit_many([*specs, (g, d)], device, values)
    return (outs[0] if want_input else None), outs[-1]


for _n in (2, 3):
    register_variants(
        f"grid_sampler_{_n}d",
        {
            "": functools.partial(_grid_sampler, spatial=_n),
            "_backward": functools.partial(_grid_sampler_backward, spatial=_n),
        },
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


# ---- _ctc_loss ------------------------------------------------------------------------------------

_CTC_CHECK: Final = "(while checking arguments for ctc_loss_allocate_outputs)"


class _CtcProblem:
    """The checked arguments of _ctc_loss and its backward: per batch element the input and
    target lengths and the extended label sequence l' (blank, l1, blank, l2, ..., blank) padded to
    2 * max target length + 1, with where l'[s] may be reached from l'[s - 2] (two different
    labels around a blank)."""

    def __init__(
        self,
        op: str,
        log_probs: Tensor,
        targets: Tensor,
        input_lengths: IntList,
        target_lengths: IntList,
        blank: int,
    ) -> None:
        lp, tg = log_probs._impl, targets._impl
        if lp.dtype not in (float32, float64):
            raise not_implemented(op, lp.dtype)
        if lp.numel() == 0:
            raise RuntimeError("log_probs tensor must not be empty")
        if tg.dtype not in (int64, int32):
            raise RuntimeError(
                "Expected tensor for argument #2 'targets' to have scalar type Int; but got "
                f"{_legacy_type(tg.dtype)} instead {_CTC_CHECK}"
            )
        if lp.dim() != 3:
            raise RuntimeError(
                f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                f"'log_probs' {_CTC_CHECK}"
            )
        if not 1 <= tg.dim() <= 2:
            raise RuntimeError(
                f"Expected 1 to 2 dimensions, but got {tg.dim()}-dimensional tensor for argument #2 "
                f"'targets' {_CTC_CHECK}"
            )
        steps, batch, labels = lp.sizes
        if not 0 <= blank < labels:
            raise RuntimeError("blank must be in label range")
        inputs, lengths = int_list(input_lengths), int_list(target_lengths)
        if len(inputs) != batch:
            raise RuntimeError("input_lengths must be of size batch_size")
        if len(lengths) != batch:
            raise RuntimeError("target_lengths must be of size batch_size")
        for length in lengths:
            if length < 0:
                raise RuntimeError(
                    f"Expected target_lengths to have value at least 0, but got value {length} {_CTC_CHECK}"
                )
        longest = max(lengths, default=0)
        expected = sum(lengths) if tg.dim() == 1 else batch
        if tg.sizes[0] != expected:
            raise RuntimeError(
                f"Expected tensor to have size {expected} at dimension 0, but got size {tg.sizes[0]} for "
                f"argument #2 'targets' {_CTC_CHECK}"
            )
        if tg.dim() == 2 and tg.sizes[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size {tg.sizes[1]} "
                f"for argument #2 'targets' {_CTC_CHECK}"
            )
        for length in inputs:
            if length < 0:
                raise RuntimeError(
                    f"Expected input_lengths to have value at least 0, but got value {length} {_CTC_CHECK}"
                )
            if length > steps:
                raise RuntimeError(
                    f"Expected input_lengths to have value at most {steps}, but got value {length} "
                    + _CTC_CHECK
                )
        self.device = same_device("_ctc_loss", (log_probs, targets))
        self.dtype = lp.dtype
        self.sizes = lp.sizes
        self.blank = blank
        self.inputs = np.array(inputs, np.int64)
        self.lengths = np.array(lengths, np.int64)
        self.positions = 2 * longest + 1
        self.targets = targets

    def extended(self) -> tuple[Array, Array]:
        """l' (B, S) and whether each position may also be reached from two positions back."""
        batch, labels = self.sizes[1], self.sizes[2]
        longest = (self.positions - 1) // 2
        values = array(self.targets).astype(np.int64)
        if values.ndim == 1:
            starts = np.concatenate(([0], np.cumsum(self.lengths)[:-1]))
            picks = np.minimum(starts[:, None] + np.arange(longest), max(values.shape[0] - 1, 0))
            padded = values[picks] if values.size else np.zeros((batch, longest), np.int64)
        else:
            padded = values[:, :longest]
        real = np.arange(longest) < self.lengths[:, None]
        bad = real & ((padded < 0) | (padded >= labels))
        if bad.any():
            raise RuntimeError(
                f"ctc_loss(): expected target labels in [0, {labels}), but got {padded[bad][0]}"
            )
        prime = np.full((batch, self.positions), self.blank, np.int64)
        prime[:, 1::2] = np.where(real, padded, self.blank)
        skip = np.zeros(prime.shape, np.bool_)
        skip[:, 2:] = prime[:, 2:] != prime[:, :-2]
        return prime, skip

    def valid(self) -> Array:
        """(B, S): the positions 0 .. 2 * target length of each batch element."""
        return np.arange(self.positions) < (2 * self.lengths + 1)[:, None]


def _logsumexp(*terms: Array) -> Array:
    """log(sum(exp(terms))) elementwise, with PyTorch's handling of all -inf (-inf)."""
    top = np.maximum.reduce(terms)
    shift = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        result: Array = np.log(sum(np.exp(t - shift) for t in terms)) + shift
    return result


def _shifted(values: Array, by: int) -> Array:
    """`values` (B, S) moved `by` positions along S (towards higher s for by > 0), -inf filled."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[:, by:] = values[:, :-by]
    else:
        out[:, :by] = values[:, -by:]
    return out


def _ctc_forward(problem: _CtcProblem, log_probs: Array) -> tuple[Array, Array]:
    """The negative log-likelihoods (B,) and log alpha (B, T, S) of the CTC forward recursion."""
    steps, batch, _ = log_probs.shape
    prime, skip = problem.extended()
    valid = problem.valid()
    rows = np.arange(batch)[:, None]
    alpha = np.full((batch, steps, problem.positions), -np.inf)
    if steps:
        first = np.full((batch, problem.positions), -np.inf)
        first[:, 0] = log_probs[0, np.arange(batch), problem.blank]
        first[:, 1:2] = np.where(problem.lengths[:, None] > 0, log_probs[0, rows, prime[:, 1:2]], -np.inf)
        alpha[:, 0] = np.where((problem.inputs > 0)[:, None], first, -np.inf)
    for t in range(1, steps):
        previous = alpha[:, t - 1]
        total = _logsumexp(previous, _shifted(previous, 1), np.where(skip, _shifted(previous, 2), -np.inf))
        alpha[:, t] = np.where(
            valid & (t < problem.inputs)[:, None], total + log_probs[t, rows, prime], -np.inf
        )
    last = alpha[np.arange(batch), np.maximum(problem.inputs - 1, 0)]
    end = 2 * problem.lengths
    ends = last[np.arange(batch), end]
    before = np.where(problem.lengths > 0, last[np.arange(batch), np.maximum(end - 1, 0)], -np.inf)
    nll = -_logsumexp(ends, before)
    empty = problem.inputs == 0
    nll[empty] = np.where(problem.lengths[empty] == 0, -0.0, np.inf)
    return nll, alpha


def _ctc_backward(
    problem: _CtcProblem, log_probs: Array, grad: Array, nll: Array, alpha: Array, zero_infinity: bool
) -> Array:
    """The gradient (T, B, C) of _ctc_loss by log_probs as PyTorch's: exp(log_probs) minus the
    posterior of each label at each step (through the beta recursion), times grad; zero beyond each
    input length and, with zero_infinity, for infinite losses."""
    steps, batch, labels = log_probs.shape
    prime, skip = problem.extended()
    valid = problem.valid()
    rows = np.arange(batch)[:, None]
    ahead = np.zeros(skip.shape, np.bool_)
    ahead[:, :-2] = skip[:, 2:]
    beta = np.full((batch, steps, problem.positions), -np.inf)
    end = 2 * problem.lengths
    for t in range(steps - 1, -1, -1):
        at_end = np.equal(problem.inputs - 1, t)[:, None]
        following = beta[:, t + 1] if t + 1 < steps else np.full((batch, problem.positions), -np.inf)
        total = _logsumexp(
            following, _shifted(following, -1), np.where(ahead, _shifted(following, -2), -np.inf)
        )
        last = (np.arange(problem.positions) == end[:, None]) | (
            (np.arange(problem.positions) == (end - 1)[:, None]) & (problem.lengths > 0)[:, None]
        )
        start = np.where(last, 0.0, -np.inf)
        beta[:, t] = np.where(
            valid & (t < problem.inputs)[:, None],
            np.where(at_end, start, total) + log_probs[t, rows, prime],
            -np.inf,
        )
    both = alpha + beta
    top = both.max(axis=2, keepdims=True)
    shift = np.where(np.isneginf(top), 0.0, top)
    cells = (np.arange(batch)[:, None, None] * steps + np.arange(steps)[None, :, None]) * labels + prime[
        :, None, :
    ]
    sums = np.bincount(cells.ravel(), np.exp(both - shift).ravel(), minlength=batch * steps * labels)
    with np.errstate(divide="ignore"):
        posterior_log = np.log(sums.reshape(batch, steps, labels)) + shift
    lp = log_probs.transpose(1, 0, 2)
    with np.errstate(over="ignore", invalid="ignore"):
        result = (np.exp(lp) - np.exp(posterior_log + nll[:, None, None] - lp)) * grad[:, None, None]
    keep = np.arange(steps)[None, :] < problem.inputs[:, None]
    if zero_infinity:
        keep &= ~np.isposinf(nll)[:, None]
    return np.where(keep[:, :, None], result, 0.0).transpose(1, 0, 2)


@kernel("_ctc_loss")
def _ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: IntList,
    target_lengths: IntList,
    blank: int = 0,
    zero_infinity: bool = False,
) -> tuple[Tensor, Tensor]:
    """The CTC negative log-likelihood (B,) of each target sequence given (T, B, C) log-probabilities,
    and the log alpha (B, T, 2 * max target length + 1) of its forward recursion (-inf where unused)."""
    problem = _CtcProblem("ctc_loss_cpu", log_probs, targets, input_lengths, target_lengths, blank)
    steps, batch, _ = problem.sizes

    def values() -> tuple[Array, Array]:
        return _ctc_forward(problem, array(log_probs).astype(np.float64))

    specs = [((batch,), problem.dtype), ((batch, steps, problem.positions), problem.dtype)]
    nll, alpha = _emit_many(specs, problem.device, values)
    return nll, alpha


@kernel("_ctc_loss_backward")
def _ctc_loss_backward(
    grad: Tensor,
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: IntList,
    target_lengths: IntList,
    neg_log_likelihood: Tensor,
    log_alpha: Tensor,
    blank: int,
    zero_infinity: bool = False,
) -> Tensor:
    """_ctc_loss's gradient by log_probs (PyTorch's: it includes exp(log_probs), which the
    log_softmax producing log_probs cancels)."""
    problem = _CtcProblem("ctc_loss_backward_cpu", log_probs, targets, input_lengths, target_lengths, blank)

    def values() -> Array:
        return _ctc_backward(
            problem,
            array(log_probs).astype(np.float64),
            np.broadcast_to(array(grad).astype(np.float64), (problem.sizes[1],)),
            array(neg_log_likelihood).astype(np.float64),
            array(log_alpha).astype(np.float64),
            zero_infinity,
        )

    return _emit(problem.sizes, problem.dtype, problem.device, values)


_LENGTHS: Final = ("input_lengths", "target_lengths")


def _length_list(name: str, lengths: Tensor) -> list[int]:
    """Integer lengths given as a tensor, as a list."""
    d = lengths._impl.dtype
    if d.is_floating_point or d.is_complex or d is bool_:
        raise RuntimeError(f"{name} must be integral")
    return [int(v) for v in array(lengths).reshape(-1)]


_REDUCTION_MEAN: Final = 1
_REDUCTION_SUM: Final = 2


@kernel("ctc_loss_IntList")
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: IntList,
    target_lengths: IntList,
    blank: int = 0,
    reduction: int = _REDUCTION_MEAN,
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of (T, B, C) or unbatched (T, C) log-probabilities: _ctc_loss's (infinite
    ones zeroed with zero_infinity), kept, summed, or divided by the target lengths (at least 1)
    and averaged."""
    batched = log_probs._impl.dim() == 3
    lp = log_probs if batched else aten_op("unsqueeze.default")(log_probs, 1)
    long_targets = (
        aten_op("_to_copy.default")(targets, dtype=int64) if targets._impl.dtype is not int64 else targets
    )
    res: Tensor = aten_op("_ctc_loss.default")(
        lp, long_targets, input_lengths, target_lengths, blank, zero_infinity
    )[0]
    if zero_infinity:
        zero = aten_op("zeros.default")([], dtype=res.dtype, device=res.device)
        res = aten_op("where.self")(aten_op("eq.Scalar")(res, math.inf), zero, res)
    if reduction == _REDUCTION_MEAN:
        counts = int_list(target_lengths)
        lengths = _emit((len(counts),), res.dtype, res.device, lambda: np.maximum(counts, 1))
        mean: Tensor = aten_op("mean.default")(aten_op("div.Tensor")(res, lengths))
        return mean
    if reduction == _REDUCTION_SUM:
        total: Tensor = aten_op("sum.default")(res)
        return total
    return res if batched else aten_op("squeeze.dim")(res, 0)


def _tensor_lengths(fn: Callable[..., _R], at: int) -> Callable[..., _R]:
    """The overload of `fn` taking input_lengths and target_lengths (its positional arguments `at`
    and `at + 1`) as integer tensors."""

    def overload(*args: Any) -> _R:
        lengths = args[at : at + 2]
        as_lists = [_length_list(name, t) for name, t in zip(_LENGTHS, lengths, strict=True)]
        return fn(*args[:at], *as_lists, *args[at + 2 :])

    return overload


register_variants("_ctc_loss", {"_Tensor": _tensor_lengths(_ctc_loss, 2)})
register_variants("_ctc_loss_backward", {"_Tensor": _tensor_lengths(_ctc_loss_backward, 3)})
register_variants("ctc_loss", {"_Tensor": _tensor_lengths(ctc_loss, 2)})


# ---- fractional_max_pool2d / fractional_max_pool3d ------------------------------------------------

_AXIS_NAMES: Final = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fractional_geometry(
    self: Tensor, kernel_size: IntList, output_size: IntList, random_samples: Tensor, n: int
) -> tuple[str, list[int], list[int]]:
    """PyTorch's checks of fractional_max_pool{n}d; the name its messages use, the pool and the
    output sizes."""
    name = f"fractional_max_pool{n}d"
    shown = name if n == 2 else f"{name}_out"
    count = "tuple of Ints" if n == 2 else "tuple of three Ints"
    pool, out = int_list(kernel_size), int_list(output_size)
    if len(pool) != n:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or {count}")
    if len(out) != n:
        raise RuntimeError(f"{name}: output_size must either be a single Int or {count}")
    x = self._impl
    if x.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{shown}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(x.sizes)}")
    for axis in range(x.dim() - n - 1, x.dim()):
        if axis and x.sizes[axis] == 0:
            raise RuntimeError(
                f"{shown}(): Expected input to have non-zero size for non-batch dimensions, but got"
                f"{list(x.sizes)} with dimension {axis} being empty."
            )
    for k in pool:
        if k <= 0:
            raise RuntimeError(f"{name}(): kernel_size must be greater than zero, but got {pool}")
    # PyTorch's 3-d operator also refuses windows that end exactly at the input's end
    for axis_name, k, o, size in zip(_AXIS_NAMES[n], pool, out, x.sizes[-n:], strict=True):
        if o + k - 1 > size or (n == 3 and o + k - 1 == size):
            raise RuntimeError(
                f"{shown}(): pool {axis_name} {k} too large relative to input {axis_name} {size}"
            )
    _check_floating(f"{name}_out_frame", x.dtype)
    samples = random_samples._impl
    if samples.dtype is not x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batch = x.sizes[0] if x.dim() == n + 2 else 1
    if samples.sizes[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.sizes[1] != x.sizes[-n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.sizes[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.sizes[2]}.")
    return name, pool, out


def _intervals(samples: Array, size: int, out: int, pool: int) -> Array:
    """(P, out): the window starts along one axis of each plane, from its sample u in [0, 1):
    int((i + u) alpha) - int(u alpha) with alpha = (size - pool) / (out - 1), the last one at
    size - pool, computed in the input's precision as PyTorch does."""
    starts = np.full((samples.shape[0], out), size - pool, np.int64)
    if out > 1:
        kind = samples.dtype.type
        alpha = kind(size - pool) / kind(out - 1)
        steps = np.arange(out - 1).astype(samples.dtype)
        scaled = ((steps[None, :] + samples[:, None]) * alpha).astype(np.int64)
        starts[:, :-1] = scaled - (samples * alpha).astype(np.int64)[:, None]
    return starts


def _fractional_max(x: Array, samples: Array, pool: list[int], out: list[int]) -> tuple[Array, Array]:
    """The maxima (P, *out) of planes `x` (P, *S) over the windows the samples (P, n) place (NaN
    wins, else the first maximum) and their flat positions in the plane."""
    n = len(pool)
    planes, sizes = x.shape[0], x.shape[1:]
    # the samples' order is (w, h) in 2-d and (t, h, w) in 3-d
    order = [1, 0] if n == 2 else [0, 1, 2]
    position = np.zeros((planes, *out, *pool), np.int64)
    for axis in range(n):
        starts = _intervals(samples[:, order[axis]], sizes[axis], out[axis], pool[axis])
        coordinate = starts[:, :, None] + np.arange(pool[axis])
        shape = [planes] + [1] * (2 * n)
        shape[1 + axis] = out[axis]
        shape[1 + n + axis] = pool[axis]
        position = position * sizes[axis] + coordinate.reshape(shape)
    windows = position.reshape(planes, *out, math.prod(pool))
    values = np.take_along_axis(x.reshape(planes, -1), windows.reshape(planes, -1), axis=1).reshape(
        windows.shape
    )
    nan = np.isnan(values)
    last_nan = windows.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
    choice = np.where(nan.any(axis=-1), last_nan, np.argmax(values, axis=-1))[..., None]
    return np.take_along_axis(values, choice, -1)[..., 0], np.take_along_axis(windows, choice, -1)[..., 0]


def _fractional_max_pool(
    self: Tensor, kernel_size: IntList, output_size: IntList, random_samples: Tensor, n: int
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool{n}d: the maxima of (N, C, H, W) or (C, H, W) `self` (n = 2; (N, C, T, H, W)
    or (C, T, H, W) for n = 3) over pseudo-random kernel_size windows, output_size of them per plane,
    placed by the plane's n samples in [0, 1) (width, height (, time)); and their flat positions."""
    _, pool, out = _fractional_geometry(self, kernel_size, output_size, random_samples, n)
    x = self._impl
    lead = x.sizes[: x.dim() - n]
    sizes = (*lead, *out)
    device = same_device(f"fractional_max_pool{n}d", (self, random_samples))

    def values() -> tuple[Array, Array]:
        planes = array(self).reshape(-1, *x.sizes[-n:])
        samples = array(random_samples)[: lead[0] if len(lead) == 2 else 1].reshape(-1, n)
        maxima, positions = _fractional_max(planes, samples, pool, out)
        return maxima.reshape(sizes), positions.reshape(sizes)

    result, indices = _emit_many([(sizes, x.dtype), (sizes, int64)], device, values)
    return result, indices


def _fractional_max_pool_backward(
    grad_output: Tensor, self: Tensor, kernel_size: IntList, output_size: IntList, indices: Tensor, n: int
) -> Tensor:
    """fractional_max_pool{n}d's input gradient: each output gradient added at its maximum's position."""
    x = self._impl
    _check_floating(f"fractional_max_pool{n}d_backward_out_frame", x.dtype)
    out = int_list(output_size)
    expected = (*x.sizes[: x.dim() - n], *out)
    got = grad_output._impl.sizes
    if n == 2 and got != expected:
        raise RuntimeError("fractional_max_pool2d_backward(): gradOutput sizes unexpected")
    if n == 3:
        for axis, axis_name in enumerate(_AXIS_NAMES[3], start=x.dim() - 3):
            if len(got) != x.dim() or got[axis] != expected[axis]:
                raise RuntimeError(f"fractional_max_pool3d_backward_out(): gradOutput {axis_name} unexpected")
    if indices._impl.sizes != expected:
        raise RuntimeError(f"fractional_max_pool{n}d_backward(): indices sizes unexpected")
    if indices._impl.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {indices._impl.dtype.scalar_type_name}")
    device = same_device(f"fractional_max_pool{n}d_backward", (grad_output, self, indices))
    return _emit(x.sizes, x.dtype, device, lambda: scatter_to_planes(grad_output, indices, x.sizes, n))


for _n in (2, 3):
    register_variants(
        f"fractional_max_pool{_n}d",
        {
            "": functools.partial(_fractional_max_pool, n=_n),
            "_backward": functools.partial(_fractional_max_pool_backward, n=_n),
        },
    )
