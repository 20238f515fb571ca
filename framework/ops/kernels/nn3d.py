"""3-d neural-network kernels and sliding blocks: max, average and adaptive pooling of
(N, C, T, H, W) inputs, 3-d reflection and replication padding and max unpooling, each with the
backward operator its derivative calls; im2col and col2im (the operators of F.unfold and F.fold);
and adaptive_avg_pool3d, the CompositeImplicitAutograd operator PyTorch builds from them.

The computations are the N-d ones of framework/ops/kernels/nn.py and nn_more.py (pooling
geometry, window maxima and means, adaptive windows, the convolution's column copies and
scatters, padding by index); this module adds PyTorch's argument checks of the 3-d and sliding
block operators, with their messages, before them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from framework._tensor import Tensor
from framework.c10.dtypes import bool_, float32, float64, int64
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
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
    PoolGeometry,
    _check_floating,
    _col2im,
    _ConvParams,
    _emit,
    _first_output,
    _im2col,
    _sized_list,
    _values,
    check_adaptive_input,
    emit_adaptive_avg_pool,
    emit_adaptive_avg_pool_backward,
    emit_avg_pool,
    emit_avg_pool_backward,
    emit_max_pool,
    emit_max_pool_backward,
    pad_gather,
    pad_scatter,
    scatter_to_planes,
)
from framework.ops.kernels.nn_more import adaptive_max_pool, unpool_values

# ---- 3-d max and average pooling ----------------------------------------------------------------


def _pool3d(
    op: str,
    fn_name: str,
    input: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    ceil_mode: bool,
) -> PoolGeometry:
    """A checked 3-d pooling (PyTorch's pool3d_shape_check; average pooling also checks that the
    kernel fits in the input)."""
    pool = PoolGeometry(op, 3, input, kernel_size, stride, padding, dilation, ceil_mode)
    sizes = input._impl.sizes
    (kt, kh, kw), (st, sh, sw), (pt, ph, pw) = pool.kernel, pool.stride, pool.padding
    (dt, dh, dw), (it, ih, iw), (ot, oh, ow) = pool.dilation, pool.input_sizes, pool.out_sizes
    if min(kt, kh, kw) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} kW: {kw}")
    if min(st, sh, sw) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} dW: {sw}")
    if min(dt, dh, dw) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationT: {dt} dilationH: {dh} dilationW: {dw}"
        )
    for axis in range(len(sizes) - 4, len(sizes)):
        if sizes[axis] == 0:
            raise RuntimeError(
                f"{fn_name}(): Expected input's non-batch dimensions to have positive length, but input has "
                f"a shape of {list(sizes)} and non-batch dimension {axis - len(sizes) + 4} has length zero!"
            )
    if op == "avg_pool3d" and (it < kt or ih < kh or iw < kw):
        raise RuntimeError(
            f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})"
        )
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: {kw} kH: {kh} "
            f"padT: {pt} padW: {pw} padH: {ph}"
        )
    if min(ot, oh, ow) < 1:
        c = sizes[-4]
        raise RuntimeError(
            f"Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: ({c}x{ot}x{oh}x{ow}). Output "
            "size is too small"
        )
    return pool


@kernel("max_pool3d_with_indices")
def max_pool3d_with_indices(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    dilation: IntList = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    pool = _pool3d(
        "max_pool3d",
        "max_pool3d_with_indices_out_cpu_template",
        self,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
    )
    return emit_max_pool("max_pool3d", self, pool)


@kernel("max_pool3d_with_indices_backward")
def max_pool3d_with_indices_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    ceil_mode: bool,
    indices: Tensor,
) -> Tensor:
    pool = _pool3d(
        "max_pool3d",
        "max_pool3d_with_indices_backward_out_cpu_template",
        self,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
    )
    _check_floating("max_pool3d_backward", self._impl.dtype)
    return emit_max_pool_backward("max_pool3d_with_indices_backward", grad_output, self, indices, pool)


_first_output("max_pool3d", "max_pool3d_with_indices")


def _avg_pool3d_args(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    ceil_mode: bool,
    divisor_override: int | None,
    frame: str,
) -> PoolGeometry:
    """avg_pool3d's checks; its CPU kernel (`frame`) serves float32, float64 and int64."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    pool = _pool3d("avg_pool3d", "avg_pool3d", self, kernel_size, stride, padding, 1, ceil_mode)
    d = self._impl.dtype
    if d not in (float32, float64, int64):
        raise not_implemented(frame, d)
    return pool


@kernel("avg_pool3d")
def avg_pool3d(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    pool = _avg_pool3d_args(
        self, kernel_size, stride, padding, ceil_mode, divisor_override, "avg_pool3d_out_frame"
    )
    return emit_avg_pool(self, pool, count_include_pad, divisor_override)


@kernel("avg_pool3d_backward")
def avg_pool3d_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    pool = _avg_pool3d_args(
        self, kernel_size, stride, padding, ceil_mode, divisor_override, "avg_pool3d_backward_out_frame"
    )
    _check_same_dtype(self, grad_output)
    return emit_avg_pool_backward(
        "avg_pool3d_backward", grad_output, self, pool, count_include_pad, divisor_override
    )


def _check_same_dtype(expected: Tensor, found: Tensor) -> None:
    e, f = expected._impl.dtype, found._impl.dtype
    if e is not f:
        raise RuntimeError(f"expected scalar type {e.scalar_type_name} but found {f.scalar_type_name}")


# ---- 3-d adaptive pooling -----------------------------------------------------------------------


@kernel("_adaptive_avg_pool3d")
def adaptive_avg_pool3d_forward(self: Tensor, output_size: IntList) -> Tensor:
    out_sizes = _sized_list(output_size, 3)
    if len(out_sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    check_adaptive_input("adaptive_avg_pool3d", self, 3)
    _check_floating("adaptive_avg_pool3d_cpu", self._impl.dtype)
    return emit_adaptive_avg_pool(self, out_sizes)


@kernel("_adaptive_avg_pool3d_backward")
def adaptive_avg_pool3d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    impl, g = self._impl, grad_output._impl
    device = same_device("_adaptive_avg_pool3d_backward", (grad_output, self))
    if g.dim() != impl.dim():
        raise RuntimeError(
            "adaptive_avg_pool3d_backward_out_cpu_template: Expected dimensions "
            f"{impl.dim()} for `gradOutput_` but got dimensions {g.dim()}"
        )
    check_adaptive_input("adaptive_avg_pool3d_backward", self, 3)
    _check_same_dtype(self, grad_output)
    _check_floating("adaptive_avg_pool3d_backward_cpu", impl.dtype)
    return emit_adaptive_avg_pool_backward(grad_output, self, 3, device)


@kernel("adaptive_avg_pool3d")
def adaptive_avg_pool3d(self: Tensor, output_size: IntList) -> Tensor:
    """The 1x1x1 case is a mean over the last three dimensions (as in PyTorch, whose graph then
    holds a MeanBackward1 node)."""
    if _sized_list(output_size, 3) == [1, 1, 1]:
        mean: Tensor = aten_op("mean.dim")(self, [-1, -2, -3], True)
        return mean
    result: Tensor = aten_op("_adaptive_avg_pool3d.default")(self, output_size)
    return result


@kernel("adaptive_max_pool3d")
def adaptive_max_pool3d(self: Tensor, output_size: IntList) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool(self, output_size, 3, "adaptive_max_pool3d_cpu")


@kernel("adaptive_max_pool3d_backward")
def adaptive_max_pool3d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    impl, g = self._impl, grad_output._impl
    device = same_device("adaptive_max_pool3d_backward", (grad_output, self, indices))
    if g.dtype is not impl.dtype:
        raise RuntimeError(
            f"expected dtype {CPP_TYPE_NAMES[impl.dtype]} for `gradOutput` but got dtype "
            f"{CPP_TYPE_NAMES[g.dtype]}"
        )
    if g.sizes != indices._impl.sizes:
        raise RuntimeError(
            f"expected sizes {list(indices._impl.sizes)} for `gradOutput` but got sizes {list(g.sizes)}"
        )
    _check_floating("adaptive_max_pool3d_backward", impl.dtype)
    return _emit(
        impl.sizes, impl.dtype, device, lambda: scatter_to_planes(grad_output, indices, impl.sizes, 3)
    )


# ---- 3-d reflection and replication padding -----------------------------------------------------


def _pad3d_args(
    op: str, self: Tensor, padding: IntList, reflect: bool, kernel: str
) -> tuple[list[int], Sizes]:
    """PyTorch's reflection/replication_pad3d checks (`kernel` refuses bool inputs); the padding
    (left, right, top, bottom, front, back) and the output's sizes."""
    pads = _sized_list(padding, 6)
    if len(pads) != 6:
        raise RuntimeError(
            f"padding size is expected to be 6, but got: {len(pads)}"
            if reflect
            else "padding size is expected to be 6"
        )
    sizes = self._impl.sizes
    if len(sizes) not in (4, 5) or 0 in sizes[-4:]:
        raise RuntimeError(
            "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(sizes)}"
        )
    if reflect:
        for i in range(3):
            axis = len(sizes) - 1 - i
            before, after = pads[2 * i], pads[2 * i + 1]
            if before >= sizes[axis] or after >= sizes[axis]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({before}, {after}) at dimension {axis} of input "
                    f"{list(sizes)}"
                )
    out = [*sizes[:-3], *(sizes[-3 + a] + pads[4 - 2 * a] + pads[5 - 2 * a] for a in range(3))]
    if any(size < 0 for size in out):
        negative = next(size for size in out if size < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {out}")
    if self._impl.dtype is bool_:
        raise not_implemented(kernel, bool_)
    return pads, tuple(out)


def _pad3d(op: str, reflect: bool) -> None:
    """Register `op` (reflection_pad3d / replication_pad3d) and its backward operator."""

    def forward(self: Tensor, padding: IntList) -> Tensor:
        pads, sizes = _pad3d_args(op, self, padding, reflect, op)
        impl = self._impl
        return _emit(sizes, impl.dtype, impl.device, lambda: pad_gather(array(self), pads, reflect))

    def backward(grad_output: Tensor, self: Tensor, padding: IntList) -> Tensor:
        pads, expected = _pad3d_args(op, self, padding, reflect, f"{op}_backward")
        impl, g = self._impl, grad_output._impl
        device = same_device(f"{op}_backward", (grad_output, self))
        name = "grad_output" if reflect else "gradOutput"
        for axis, label in ((-1, "width"), (-2, "height"), (-3, "depth")):
            got = g.sizes[axis] if g.dim() >= -axis else 0
            if g.dim() != impl.dim() or got != expected[axis]:
                raise RuntimeError(f"{name} {label} unexpected. Expected: {expected[axis]}, Got: {got}")
        if not (g.dtype.is_floating_point or g.dtype.is_complex):
            raise not_implemented(f"{op}_backward", g.dtype)
        _check_same_dtype(self, grad_output)
        return _emit(
            impl.sizes,
            impl.dtype,
            device,
            lambda: pad_scatter(_values(grad_output), impl.sizes, pads, reflect),
        )

    register_variants(op, {"": forward, "_backward": backward})


_pad3d("reflection_pad3d", reflect=True)
_pad3d("replication_pad3d", reflect=False)


# ---- 3-d max unpooling --------------------------------------------------------------------------


@kernel("max_unpool3d")
def max_unpool3d(
    self: Tensor, indices: Tensor, output_size: IntList, stride: IntList, padding: IntList
) -> Tensor:
    """Zeros of (..., *output_size) with each element of `self` put at the flat position of its
    volume that `indices` gives (what max_pool3d's indices say it came from)."""
    impl, idx = self._impl, indices._impl
    device = same_device("max_unpool3d", (self, indices))
    if idx.dtype is not int64:
        raise RuntimeError("elements in indices should be type int64")
    if impl.dim() not in (4, 5):
        raise RuntimeError(
            f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {impl.dim()} "
            "dimensions."
        )
    sizes, strides, pads = int_list(output_size), int_list(stride), int_list(padding)
    for name, values, sep in (("output_size", sizes, ""), ("stride", strides, ":"), ("padding", pads, ":")):
        if len(values) != 3:
            raise RuntimeError(
                f"There should be exactly three elements (depth, height, width) in {name}, but got{sep} "
                f"{len(values)} elements."
            )
    if idx.sizes != impl.sizes:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(impl.sizes)}) but got "
            f"indices tensor with shape: {list(idx.sizes)}"
        )
    for axis in range(impl.dim() - 4, impl.dim()):
        if impl.sizes[axis] == 0:
            raise RuntimeError(
                "max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {list(impl.sizes)} with dimension {axis} being empty."
            )
    if any(s <= 0 for s in strides):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {strides}")
    if not impl.dtype.is_floating_point:
        raise not_implemented("max_unpool3d", impl.dtype)
    out_sizes = (*impl.sizes[:-3], *sizes)
    return _emit(out_sizes, impl.dtype, device, lambda: unpool_values(self, indices, sizes))


# ---- sliding blocks: im2col and col2im ----------------------------------------------------------


def _blocks_args(
    output_size: IntList | None, kernel_size: IntList, dilation: IntList, padding: IntList, stride: IntList
) -> tuple[list[int], _ConvParams]:
    """im2col/col2im's checks of their parameters (two values each); the kernel and the geometry."""
    named = [("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding), ("stride", stride)]
    if output_size is not None:
        named.insert(0, ("output_size", output_size))
    values = {}
    for name, value in named:
        values[name] = int_list(value)
        if len(values[name]) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values[name])}")
    (kh, kw), (dh, dw) = values["kernel_size"], values["dilation"]
    (ph, pw), (sh, sw) = values["padding"], values["stride"]
    if kh <= 0 or kw <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}"
        )
    if dh <= 0 or dw <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}"
        )
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}"
        )
    return values["kernel_size"], _ConvParams.sliding(values["stride"], values["padding"], values["dilation"])


def _blocks(sizes: Sequence[int], kernel: Sequence[int], params: _ConvParams) -> list[int]:
    """The number of sliding blocks along each spatial dimension (C++ integer division, which
    truncates towards zero)."""
    spans = (
        (i + 2 * p - (d * (k - 1) + 1), s)
        for i, k, p, d, s in zip(sizes, kernel, params.padding, params.dilation, params.stride, strict=True)
    )
    return [(span // s if span >= 0 else -(-span // s)) + 1 for span, s in spans]


def _check_blocks_dtype(op: str, self: Tensor) -> None:
    d = self._impl.dtype
    if not (d.is_floating_point or d.is_complex or d is bool_):
        raise not_implemented(op, d)


def _pairs(values: Sequence[int]) -> str:
    return f"({values[0]}, {values[1]})"


@kernel("im2col")
def im2col(
    self: Tensor, kernel_size: IntList, dilation: IntList, padding: IntList, stride: IntList
) -> Tensor:
    """The sliding blocks of `self` (N, C, H, W) or (C, H, W) as columns (N, C * kH * kW, L): row
    (c, kh, kw) holds, for each block, the zero-padded input element that kernel offset meets."""
    kernel_sizes, params = _blocks_args(None, kernel_size, dilation, padding, stride)
    impl = self._impl
    sizes = impl.sizes
    if impl.dim() == 2:
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    if impl.dim() not in (3, 4) or 0 in sizes[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(sizes)}"
        )
    blocks = _blocks(sizes[-2:], kernel_sizes, params)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {_pairs(sizes[-2:])}, kernel_size={_pairs(kernel_sizes)}, "
            f"dilation={_pairs(params.dilation)}, padding={_pairs(params.padding)}, calculated shape of the "
            f"array of sliding blocks as {_pairs(blocks)}, but its components must be at least one."
        )
    _check_blocks_dtype("im2col_out_cpu", self)
    rows = sizes[-3] * kernel_sizes[0] * kernel_sizes[1]
    out_sizes = (*sizes[:-3], rows, blocks[0] * blocks[1])

    def values() -> Array:
        x = array(self).reshape(-1, *sizes[-3:])
        cols = _im2col(x, tuple(kernel_sizes), tuple(blocks), params).reshape(rows, -1, x.shape[0])
        return np.moveaxis(cols, -1, 0).reshape(out_sizes)

    return _emit(out_sizes, impl.dtype, impl.device, values)


@kernel("col2im")
def col2im(
    self: Tensor,
    output_size: IntList,
    kernel_size: IntList,
    dilation: IntList,
    padding: IntList,
    stride: IntList,
) -> Tensor:
    """The inverse arrangement of im2col: columns (N, C * kH * kW, L) summed back into
    (N, C, *output_size) (or without the batch), overlapping blocks adding up."""
    kernel_sizes, params = _blocks_args(output_size, kernel_size, dilation, padding, stride)
    out_hw = int_list(output_size)
    impl = self._impl
    sizes = impl.sizes
    if impl.dim() not in (2, 3) or 0 in sizes[-2:]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(sizes)}"
        )
    kernel_count = kernel_sizes[0] * kernel_sizes[1]
    if sizes[-2] % kernel_count:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={sizes[-2]} and kernel_size={_pairs(kernel_sizes)}."
        )
    blocks = _blocks(out_hw, kernel_sizes, params)
    if blocks[0] < 1 or blocks[1] < 1 or blocks[0] * blocks[1] != sizes[-1]:
        raise RuntimeError(
            f"Given output_size={_pairs(out_hw)}, kernel_size={_pairs(kernel_sizes)}, "
            f"dilation={_pairs(params.dilation)}, padding={_pairs(params.padding)}, "
            f"stride={_pairs(params.stride)}, expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={sizes[-1]}."
        )
    _check_blocks_dtype("col2im_out_cpu", self)
    channels = sizes[-2] // kernel_count
    out_sizes = (*sizes[:-2], channels, *out_hw)

    def values() -> Array:
        c = array(self).reshape(-1, *sizes[-2:])
        cols = np.moveaxis(c, 0, -1).reshape(channels, *kernel_sizes, *blocks, c.shape[0])
        return _col2im(cols, tuple(out_hw), params).reshape(out_sizes)

    return _emit(out_sizes, impl.dtype, impl.device, values)
