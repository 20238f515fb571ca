"""More neural-network kernels: group normalization, adaptive max pooling, max unpooling, nearest
and (bi)linear upsampling of 1-d and 2-d inputs, pixel shuffle and 1-d reflection and replication
padding, each with its backward operator where PyTorch has one; and the CompositeImplicitAutograd operators
PyTorch builds from operators (group_norm, instance_norm, the 1-d poolings, conv_transpose1d/2d,
the .vec upsampling overloads, one_hot, feature and alpha dropout).

As in framework/ops/kernels/nn.py, each kernel checks its arguments with PyTorch's messages and
decides its outputs' shapes and dtypes before computing, so Meta tensors get exactly that.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.dtypes import bfloat16, bool_, float16, float32, float64, int64, uint8
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    array,
    aten_op,
    int_list,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    register_variants,
    same_device,
)
from framework.ops.kernels.linalg import Array, IntList, Sizes
from framework.ops.kernels.nn import (
    _acc,
    _check_floating,
    _check_norm_parameter,
    _emit,
    _emit_grads,
    _emit_many,
    _emit_normalized,
    _planes,
    _pool_output_size,
    _project,
    _values,
    batched_convolution,
    check_adaptive_input,
    pad_gather,
    pad_scatter,
    scatter_to_planes,
)

_FLOATING: Final = frozenset((float16, bfloat16, float32, float64))


# ---- group normalization ------------------------------------------------------------------------


def _check_group_norm_sizes(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, n: int, c: int, hxw: int
) -> None:
    """native_group_norm's checks of the sizes it is given against the tensors."""
    if input._impl.numel() != n * c * hxw:
        raise RuntimeError(
            "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._impl.dim() != 1 or t._impl.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {list(t._impl.sizes)} and input of shape {list(input._impl.sizes)}"
            )


@kernel("native_group_norm")
def native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """Normalize each of the `group` channel groups of every sample over its channels and spatial
    positions, then scale and shift each channel; also the groups' means and 1/sqrt(var + eps)
    (N, group)."""
    _check_group_norm_sizes(input, weight, bias, N, C, HxW)
    impl = input._impl
    if not impl.is_contiguous():
        raise RuntimeError(
            "Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error message "
            "be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    _check_floating("GroupNormKernelImpl", impl.dtype)
    for parameter in (weight, bias):
        _check_norm_parameter(impl.dtype, parameter, batch=False)
    device = same_device("native_group_norm", tuple(t for t in (input, weight, bias) if t is not None))
    rows = (N * group, C // group * HxW)
    return _emit_normalized(input, weight, bias, eps, device, rows, ((N, C, HxW), (1, C, 1)), (N, group))


@kernel("native_group_norm_backward")
def native_group_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    _check_group_norm_sizes(input, weight, None, N, C, HxW)
    impl = input._impl
    if grad_out._impl.numel() != impl.numel():
        raise RuntimeError(
            "Expected dY.numel() == N * C * HxW to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )
    _check_floating("GroupNormBackwardKernelImpl", impl.dtype)
    device = same_device("native_group_norm_backward", (grad_out, input, mean, rstd))
    acc = _acc(impl.dtype)

    def parts() -> tuple[Array, Array, Array]:
        """grad (N, C, HxW), x_hat (N, C, HxW), rstd (N, group, 1)."""
        r = _values(rstd, acc).reshape(N, group, 1)
        x = _values(input, acc).reshape(N, group, -1)
        x_hat = ((x - _values(mean, acc).reshape(N, group, 1)) * r).reshape(N, C, HxW)
        return _values(grad_out, acc).reshape(N, C, HxW), x_hat, r

    def grad_input() -> Array:
        g, x_hat, r = parts()
        gw = g if weight is None else g * _values(weight, acc).reshape(1, C, 1)
        result: Array = r * _project(gw.reshape(N, group, -1), x_hat.reshape(N, group, -1), 2)
        return result.reshape(impl.sizes)

    def grad_weight() -> Array:
        g, x_hat, _ = parts()
        result: Array = (g * x_hat).sum(axis=(0, 2))
        return result

    def grad_bias() -> Array:
        result: Array = _values(grad_out, acc).reshape(N, C, HxW).sum(axis=(0, 2))
        return result

    parameter_dtype = impl.dtype if weight is None else weight._impl.dtype
    return _emit_grads(
        output_mask,
        device,
        (impl.sizes, impl.dtype, grad_input),
        ((C,), parameter_dtype, grad_weight),
        ((C,), parameter_dtype, grad_bias),
    )


@kernel("group_norm")
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """native_group_norm of the (contiguous) input seen as (N, C, HxW), after PyTorch's argument
    checks."""
    sizes = input._impl.sizes
    if len(sizes) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(sizes)}")
    n, c = sizes[0], sizes[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(sizes)} and num_groups={num_groups}"
        )
    _check_group_norm_sizes(input, weight, bias, n, c, math.prod(sizes[2:]))
    result: Tensor = aten_op("native_group_norm.default")(
        aten_op("contiguous.default")(input), weight, bias, n, c, math.prod(sizes[2:]), num_groups, eps
    )[0]
    return result


# ---- instance normalization ---------------------------------------------------------------------


@kernel("instance_norm")
def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """batch_norm of the input seen as one sample of N * C channels (the per-channel tensors
    repeated N times); the running statistics become the mean of their N updated copies."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    sizes = input._impl.sizes
    b, c = sizes[0], sizes[1]
    repeated = [
        None if t is None else aten_op("repeat.default")(t, [b])
        for t in (weight, bias, running_mean, running_var)
    ]
    flat = aten_op("view.default")(aten_op("contiguous.default")(input), [1, b * c, *sizes[2:]])
    out = aten_op("batch_norm.default")(flat, *repeated, use_input_stats, momentum, eps, cudnn_enabled)
    for stat, copies in ((running_mean, repeated[2]), (running_var, repeated[3])):
        if stat is not None:
            aten_op("copy_.default")(
                stat, aten_op("mean.dim")(aten_op("view.default")(copies, [b, c]), [0], False)
            )
    result: Tensor = aten_op("view.default")(out, list(sizes))
    return result


# ---- adaptive max pooling -----------------------------------------------------------------------


def _adaptive_windows(size: int, out: int) -> tuple[Array, Array]:
    """Each adaptive window's element positions (out, longest window), clipped into the input,
    and which of them belong to the window: floor(i * size / out) to ceil((i + 1) * size / out)."""
    i = np.arange(out)
    starts = (i * size) // out
    ends = -((-(i + 1) * size) // out)
    offsets = np.arange(int((ends - starts).max()))
    positions = starts[:, None] + offsets[None, :]
    return np.minimum(positions, size - 1), positions < ends[:, None]


def _window_grid(values: Array, axis: int, n: int) -> Array:
    """An (out, longest window) array of spatial dimension `axis` of `n`, shaped to broadcast
    to (*O, *L): its two dimensions at `axis` and `n` + `axis`."""
    shape = [1] * (2 * n)
    shape[axis], shape[n + axis] = values.shape
    return values.reshape(shape)


def emit_adaptive_max_pool(self: Tensor, out_sizes: Sequence[int]) -> tuple[Tensor, Tensor]:
    """The maximum of each adaptive window over the last len(out_sizes) dimensions and where it
    is (flat index in its plane): the first of equal maxima in row-major order, the last NaN
    (PyTorch's scan)."""
    impl = self._impl
    n = len(out_sizes)
    sizes = (*impl.sizes[:-n], *out_sizes)

    def values() -> tuple[Array, Array]:
        x = _planes(self, n)
        strides = [math.prod(x.shape[a + 2 :]) for a in range(n)]
        grids = [_adaptive_windows(x.shape[a + 1], out) for a, out in enumerate(out_sizes)]
        positions = [_window_grid(p, a, n) for a, (p, _) in enumerate(grids)]
        # (B, *O, prod(L)): each window's elements in row-major order
        at: tuple[Any, ...] = (slice(None), *positions)
        windows = x[at].reshape(x.shape[0], *out_sizes, -1)
        grid = (*out_sizes, *(p.shape[1] for p, _ in grids))
        valid = functools.reduce(np.logical_and, [_window_grid(ok, a, n) for a, (_, ok) in enumerate(grids)])
        valid = np.broadcast_to(valid, grid).reshape(*out_sizes, -1)
        flat = sum(p * s for p, s in zip(positions, strides, strict=True))
        flat = np.broadcast_to(flat, grid).reshape(*out_sizes, -1)
        best = np.where(valid, windows, -np.inf).max(axis=-1)
        first = np.argmax((windows == best[..., None]) & valid, axis=-1)
        nans = np.isnan(windows) & valid
        last_nan = nans.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1)
        pick = np.where(nans.any(axis=-1), last_nan, first)
        where = np.take_along_axis(np.broadcast_to(flat, windows.shape), pick[..., None], axis=-1)[..., 0]
        found = np.take_along_axis(windows, pick[..., None], axis=-1)[..., 0]
        return found.reshape(sizes), where.reshape(sizes)

    out, indices = _emit_many(((sizes, impl.dtype), (sizes, int64)), impl.device, values)
    return out, indices


def adaptive_max_pool(
    self: Tensor, output_size: IntList, rank: int, dtype_kernel: str
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool{rank}d with PyTorch's checks (`dtype_kernel` names the kernel that
    refuses non-floating inputs)."""
    op = f"adaptive_max_pool{rank}d"
    out_sizes = int_list(output_size)
    if len(out_sizes) != rank:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be {rank}")
    check_adaptive_input(op, self, rank, ":")
    _check_floating(dtype_kernel, self._impl.dtype)
    return emit_adaptive_max_pool(self, out_sizes)


@kernel("adaptive_max_pool2d")
def adaptive_max_pool2d(self: Tensor, output_size: IntList) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool(self, output_size, 2, "adaptive_max_pool2d")


@kernel("adaptive_max_pool2d_backward")
def adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    impl, g = self._impl, grad_output._impl
    device = same_device("adaptive_max_pool2d_backward", (grad_output, self, indices))
    if g.dim() != impl.dim():
        raise RuntimeError(
            f"adaptive_max_pool2d_backward(): Expected grad_output to have the same dimensionality as input, "
            f"but got grad_output with {g.dim()} dimensions and input with {impl.dim()} dimensions"
        )
    check_adaptive_input("adaptive_max_pool2d_backward", self, 2)
    if g.dtype is not impl.dtype:
        raise RuntimeError(
            f"expected dtype {CPP_TYPE_NAMES[impl.dtype]} for `grad_output` but got dtype "
            f"{CPP_TYPE_NAMES[g.dtype]}"
        )
    _check_floating("adaptive_max_pool2d_backward", impl.dtype)
    return _emit(
        impl.sizes, impl.dtype, device, lambda: scatter_to_planes(grad_output, indices, impl.sizes, 2)
    )


# ---- max unpooling ------------------------------------------------------------------------------


@kernel("max_unpool2d")
def max_unpool2d(self: Tensor, indices: Tensor, output_size: IntList) -> Tensor:
    """Zeros of (..., *output_size) with each element of `self` put at the flat position of its
    plane that `indices` gives (what max_pool2d's indices say it came from)."""
    impl, idx = self._impl, indices._impl
    device = same_device("max_unpool2d", (self, indices))
    if idx.dtype is not int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {idx.dtype.scalar_type_name}")
    sizes = int_list(output_size)
    if len(sizes) != 2:
        raise RuntimeError(
            f"There should be exactly two elements (height, width) in output_size, but got {len(sizes)} "
            "elements."
        )
    if impl.dim() not in (3, 4):
        raise RuntimeError(
            f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {impl.dim()} "
            "dimensions."
        )
    if idx.sizes != impl.sizes:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(impl.sizes)}) but got "
            f"indices tensor with shape: {list(idx.sizes)}"
        )
    for axis in range(impl.dim() - 3, impl.dim()):
        if impl.sizes[axis] == 0:
            raise RuntimeError(
                "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {list(impl.sizes)} with dimension {axis} being empty."
            )
    if impl.dtype not in _FLOATING:
        raise not_implemented("max_unpool2d", impl.dtype)
    out_sizes = (*impl.sizes[:-2], *sizes)
    return _emit(out_sizes, impl.dtype, device, lambda: unpool_values(self, indices, sizes))


def unpool_values(self: Tensor, indices: Tensor, sizes: Sequence[int]) -> Array:
    """Zeros of (..., *sizes) with each element of `self` (..., *S) put at the flat position
    within its plane of the last len(sizes) dimensions that `indices` gives; an index outside the
    plane is PyTorch's error (its loop reports the last one)."""
    n = len(sizes)
    plane = math.prod(sizes)
    where = array(indices).reshape(-1, math.prod(self._impl.sizes[-n:]))
    bad = (where < 0) | (where >= plane)
    if bad.any():
        raise RuntimeError(
            f"Found an invalid max index: {where[bad][-1]} (output volumes are of size "
            f"{'x'.join(map(str, sizes))})"
        )
    result = np.zeros((where.shape[0], plane), dtype=self._impl.dtype.numpy_dtype)
    np.put_along_axis(result, where, array(self).reshape(where.shape), axis=1)
    return result.reshape(*self._impl.sizes[:-n], *sizes)


# ---- 1-d pooling (2-d pooling of a height-1 input) ----------------------------------------------


def _check_1d(op: str, self: Tensor) -> None:
    """The 1-d poolings' rank check (PyTorch's checkDimRange)."""
    ndim = self._impl.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {op})"
        )


def _one_int(op: str, name: str, value: IntList, may_be_empty: bool = False) -> list[int]:
    """An `int[1]` argument as a list, with PyTorch's message when it holds another number."""
    values = int_list(value)
    if len(values) != 1 and not (may_be_empty and not values):
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(values)})")
    return values


def _as_2d(values: list[int], first: int) -> list[int]:
    """A 1-d pooling parameter as the 2-d one of a height-1 input: [first, value] ([] stays)."""
    return [first, *values] if values else []


@kernel("max_pool1d_with_indices")
def max_pool1d_with_indices(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    dilation: IntList = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    _check_1d("max_pool1d", self)
    kernel = _one_int("max_pool1d", "kernel_size", kernel_size)
    strides = _one_int("max_pool1d", "stride", stride, may_be_empty=True)
    pads, dilations = _one_int("max_pool1d", "padding", padding), _one_int("max_pool1d", "dilation", dilation)
    out, indices = aten_op("max_pool2d_with_indices.default")(
        aten_op("unsqueeze.default")(self, -2),
        _as_2d(kernel, 1),
        _as_2d(strides, 1),
        _as_2d(pads, 0),
        _as_2d(dilations, 1),
        ceil_mode,
    )
    return aten_op("squeeze.dim")(out, -2), aten_op("squeeze.dim")(indices, -2)


def _max_pool1d_value(name: str, value: IntList, may_be_empty: bool = False) -> list[int]:
    """A max_pool1d parameter as a list of at most one value, with PyTorch's message."""
    values = int_list(value)
    if len(values) != 1 and not (may_be_empty and not values):
        kinds = {
            "kernel_size": "an int, list of ints or tuple of ints",
            "stride": "None, an int, list of ints, or tuple of ints",
            "padding": "an int, list of ints, or tuple of ints",
            "dilation": "an int, list of ints or tuple of ints",
        }
        raise RuntimeError(f"max_pool1d() {name} must be {kinds[name]} of size 1 but got size {len(values)}")
    return values


@kernel("max_pool1d")
def max_pool1d(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    dilation: IntList = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """PyTorch's checks of its max_pool1d kernel (floating inputs), then max_pool2d of the input
    with a height of one."""
    sizes = self._impl.sizes
    if len(sizes) not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(sizes)}"
        )
    (k,) = _max_pool1d_value("kernel_size", kernel_size)
    (s,) = _max_pool1d_value("stride", stride, may_be_empty=True) or [k]
    (p,) = _max_pool1d_value("padding", padding)
    (d,) = _max_pool1d_value("dilation", dilation)
    for name, value, ok in (
        ("kernel_size", k, k > 0),
        ("stride", s, s > 0),
        ("dilation", d, d > 0),
    ):
        if not ok:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
            f"kernel_size={k}"
        )
    length = _pool_output_size(sizes[-1], k, p, s, d, ceil_mode)
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")
    if self._impl.dtype not in _FLOATING:
        raise not_implemented("max_pool1d_impl", self._impl.dtype)
    out = aten_op("max_pool2d.default")(
        aten_op("unsqueeze.default")(self, -2), [1, k], [1, s], [0, p], [1, d], ceil_mode
    )
    result: Tensor = aten_op("squeeze.dim")(out, -2)
    return result


@kernel("avg_pool1d")
def avg_pool1d(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    _check_1d("avg_pool1d", self)
    kernel = _one_int("avg_pool1d", "kernel_size", kernel_size)
    strides = _one_int("avg_pool1d", "stride", stride, may_be_empty=True) or kernel
    pads = _one_int("avg_pool1d", "padding", padding)
    if self._impl.dtype not in _FLOATING and self._impl.dtype is not int64:
        raise not_implemented("avg_pool2d", self._impl.dtype)
    out = aten_op("avg_pool2d.default")(
        aten_op("unsqueeze.default")(self, -2),
        _as_2d(kernel, 1),
        _as_2d(strides, 1),
        _as_2d(pads, 0),
        ceil_mode,
        count_include_pad,
    )
    result: Tensor = aten_op("squeeze.dim")(out, -2)
    return result


def _adaptive_1d(op: str, self: Tensor, output_size: IntList) -> tuple[Tensor, list[int]]:
    _check_1d(op, self)
    return aten_op("unsqueeze.default")(self, -2), [1, *_one_int(op, "output_size", output_size)]


@kernel("adaptive_avg_pool1d")
def adaptive_avg_pool1d(self: Tensor, output_size: IntList) -> Tensor:
    x, sizes = _adaptive_1d("adaptive_avg_pool1d", self, output_size)
    result: Tensor = aten_op("squeeze.dim")(aten_op("adaptive_avg_pool2d.default")(x, sizes), -2)
    return result


@kernel("adaptive_max_pool1d")
def adaptive_max_pool1d(self: Tensor, output_size: IntList) -> tuple[Tensor, Tensor]:
    x, sizes = _adaptive_1d("adaptive_max_pool1d", self, output_size)
    out, indices = aten_op("adaptive_max_pool2d.default")(x, sizes)
    return aten_op("squeeze.dim")(out, -2), aten_op("squeeze.dim")(indices, -2)


# ---- transposed convolution ---------------------------------------------------------------------


def _conv_transpose(
    op: str,
    n: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntList = 1,
    padding: IntList = 0,
    output_padding: IntList = 0,
    groups: int = 1,
    dilation: IntList = 1,
) -> Tensor:
    """conv_transpose1d/2d/3d: a transposed `convolution` (the gradient of the convolution with this
    weight by its input), of a batched or unbatched input; PyTorch's CPU kernel takes floating,
    complex and int64 inputs."""
    d = input._impl.dtype
    if not (d.is_floating_point or d.is_complex or d is int64):
        raise not_implemented(f"slow_conv_transpose{max(n, 2)}d_out_cpu", d)
    return batched_convolution(
        op, n, input, weight, bias, stride, padding, dilation, True, output_padding, groups
    )


register_variants("conv_transpose1d", {"": lambda *a, **k: _conv_transpose("conv_transpose1d", 1, *a, **k)})
for _n in (2, 3):
    register_variants(
        f"conv_transpose{_n}d",
        {"_input": functools.partial(_conv_transpose, f"conv_transpose{_n}d", _n)},
    )


# ---- upsampling ---------------------------------------------------------------------------------


def _check_upsample(op: str, input_sizes: Sizes, output_size: Sequence[int], n: int) -> None:
    """PyTorch's upsample_*_common_check: ranks and positive sizes."""
    if len(output_size) != n:
        raise RuntimeError(f"It is expected output_size equals to {n}, but got size {len(output_size)}")
    if len(input_sizes) != n + 2:
        raise RuntimeError(f"It is expected input_size equals to {n + 2}, but got size {len(input_sizes)}")
    names = ("H", "W")[-n:]
    spatial = input_sizes[2:]
    if any(s <= 0 for s in (*spatial, *output_size)):
        given = ", ".join(f"{name}: {s}" for name, s in zip(names, spatial, strict=True))
        wanted = ", ".join(f"{name}: {s}" for name, s in zip(names, output_size, strict=True))
        joint = " and" if n == 1 else ""
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}){joint} output "
            f"({wanted})"
        )


def _nearest_source(in_size: int, out_size: int, scale: float | None) -> Array:
    """The input position each output position copies: floor(o * scale) in float32 (scale 1/given
    scale or in/out), clipped to the input (PyTorch's nearest_idx)."""
    if out_size == in_size:
        return np.arange(out_size)
    if out_size == 2 * in_size:
        return np.arange(out_size) >> 1
    ratio = (
        np.float32(1.0 / scale)
        if scale is not None and scale > 0
        else np.float32(in_size) / np.float32(out_size)
    )
    positions = np.floor(np.arange(out_size, dtype=np.float32) * ratio).astype(np.int64)
    clipped: Array = np.minimum(positions, in_size - 1)
    return clipped


def _linear_source(
    in_size: int, out_size: int, align_corners: bool, scale: float | None, d: np.dtype[Any]
) -> tuple[Array, Array, Array, Array]:
    """(i0, i1, w0, w1): each output position's two input neighbours and their weights, computed in
    `d` as PyTorch's area_pixel_compute_source_index (half-pixel centres unless align_corners),
    the neighbours and weights clipped into the input (its guard_index_and_lambda)."""
    if align_corners:
        ratio = d.type((in_size - 1) / (out_size - 1)) if out_size > 1 else d.type(0)
        source = np.arange(out_size, dtype=d) * ratio
    else:
        ratio = d.type(1.0 / scale) if scale is not None and scale > 0 else d.type(in_size / out_size)
        source = np.maximum(ratio * (np.arange(out_size, dtype=d) + d.type(0.5)) - d.type(0.5), d.type(0))
    i0 = np.minimum(source.astype(np.int64), in_size - 1)
    i1 = i0 + (i0 < in_size - 1)
    w1 = np.clip(source - i0.astype(d), d.type(0), d.type(1))
    return i0, i1, d.type(1) - w1, w1


def _interpolation_matrix(in_size: int, sources: Sequence[tuple[Array, Array]]) -> Array:
    """The (out, in) matrix of an interpolation along one axis: each output position's weighted
    input positions (index array, weight array) summed."""
    out_size = len(sources[0][0])
    matrix = np.zeros((out_size, in_size), dtype=np.result_type(*(w for _, w in sources)))
    rows = np.arange(out_size)
    for index, w in sources:
        np.add.at(matrix, (rows, index), w)
    return matrix


_UPSAMPLE_DTYPE_NAMES: Final = {
    "upsample_nearest1d": "compute_indices_weights_nearest",
    "upsample_nearest2d": "upsample_nearest2d_channels_last",
    "upsample_linear1d": "compute_indices_weights_linear",
    "upsample_bilinear2d": "upsample_bilinear2d_channels_last",
}
"""The kernel names PyTorch's CPU upsampling names when it refuses a dtype."""


class _Upsample:
    """One upsampling operator: "nearest" or (`linear`) "linear" interpolation over the last `n`
    dimensions, separably, the last dimension first (PyTorch's order of the weighted sums)."""

    def __init__(self, name: str, n: int, linear: bool) -> None:
        self.name, self.n, self.linear = name, n, linear

    def sources(
        self, in_size: int, out_size: int, align_corners: bool, scale: float | None, d: np.dtype[Any]
    ) -> list[tuple[Array, Array]]:
        """(input positions, weights) for each term of an output position's weighted sum."""
        if self.linear:
            i0, i1, w0, w1 = _linear_source(in_size, out_size, align_corners, scale, d)
            return [(i0, w0), (i1, w1)]
        return [(_nearest_source(in_size, out_size, scale), np.ones(out_size, dtype=d))]

    def forward(
        self, input: Tensor, output_size: IntList, align_corners: bool, scales: Sequence[float | None]
    ) -> Tensor:
        """Floating inputs, and uint8 ones (each interpolated dimension rounded back to uint8)."""
        impl = input._impl
        sizes = int_list(output_size)
        _check_upsample(self.name, impl.sizes, sizes, self.n)
        if impl.dtype not in _FLOATING and (impl.dtype is not uint8 or self.name == "upsample_linear1d"):
            raise not_implemented(_UPSAMPLE_DTYPE_NAMES[self.name], impl.dtype)
        d = impl.dtype.opmath_numpy if impl.dtype in _FLOATING else np.dtype(np.float32)

        def values() -> Array:
            x = array(input) if not self.linear else _values(input, d)
            for k in reversed(range(self.n)):
                axis = impl.dim() - self.n + k
                parts = self.sources(impl.sizes[axis], sizes[k], align_corners, scales[k], d)
                if not self.linear:
                    x = np.take(x, parts[0][0], axis=axis)
                    continue
                trailing = [1] * (impl.dim() - 1 - axis)
                x = sum(
                    (np.take(x, i, axis=axis) * w.reshape(-1, *trailing) for i, w in parts), np.zeros((), d)
                )
                if impl.dtype is uint8:
                    x = np.clip(np.rint(x), 0, 255)
            return x

        return _emit((*impl.sizes[: -self.n], *sizes), impl.dtype, impl.device, values)

    def backward(
        self,
        grad_output: Tensor,
        output_size: IntList,
        input_size: IntList,
        align_corners: bool,
        scales: Sequence[float | None],
    ) -> Tensor:
        """Each output position's gradient shared out among the input positions it was computed
        from, with their weights (one product with the interpolation matrix per dimension)."""
        g = grad_output._impl
        op = f"{self.name}_backward"
        in_sizes = tuple(int_list(input_size))
        sizes = int_list(output_size)
        _check_upsample(op, in_sizes, sizes, self.n)
        expected = (*in_sizes[: -self.n], *sizes)
        if g.dim() != len(expected):
            raise RuntimeError(
                f"Expected grad_output to be a tensor of dimension {len(expected)} but got: dimension "
                f"{g.dim()}"
            )
        for axis, (size, want) in enumerate(zip(g.sizes, expected, strict=True)):
            if size != want:
                raise RuntimeError(
                    f"Expected grad_output to have the same shape as output; output.size({axis}) = {want} "
                    f"but got grad_output.size({axis}) = {size}"
                )
        _check_floating(op, g.dtype)

        def values() -> Array:
            acc = _acc(g.dtype)
            grad = _values(grad_output, acc)
            for k in range(self.n):
                axis = g.dim() - self.n + k
                parts = self.sources(in_sizes[axis], sizes[k], align_corners, scales[k], g.dtype.opmath_numpy)
                matrix = _interpolation_matrix(in_sizes[axis], parts).astype(acc)
                grad = np.moveaxis(np.tensordot(grad, matrix, axes=([axis], [0])), -1, axis)
            return grad

        return _emit(in_sizes, g.dtype, g.device, values)


def _upsample_variants(name: str, n: int, linear: bool) -> None:
    """Register `name`, `name`_backward and `name`_vec (the size or scale factors form)."""
    mode = _Upsample(name, n, linear)

    if linear:

        def forward(self: Tensor, output_size: IntList, align_corners: bool, *scales: float | None) -> Tensor:
            return mode.forward(self, output_size, align_corners, _scales(n, scales))

        def backward(
            grad_output: Tensor,
            output_size: IntList,
            input_size: IntList,
            align_corners: bool,
            *scales: float | None,
        ) -> Tensor:
            return mode.backward(grad_output, output_size, input_size, align_corners, _scales(n, scales))

        def vec(
            input: Tensor,
            output_size: IntList | None,
            align_corners: bool,
            scale_factors: Sequence[float] | None,
        ) -> Tensor:
            sizes, factors = _vec_sizes(name, input, output_size, scale_factors, n)
            result: Tensor = aten_op(f"{name}.default")(input, sizes, align_corners, *factors)
            return result

    else:

        def forward(self: Tensor, output_size: IntList, *scales: float | None) -> Tensor:  # type: ignore[misc]
            return mode.forward(self, output_size, False, _scales(n, scales))

        def backward(  # type: ignore[misc]
            grad_output: Tensor, output_size: IntList, input_size: IntList, *scales: float | None
        ) -> Tensor:
            return mode.backward(grad_output, output_size, input_size, False, _scales(n, scales))

        def vec(input: Tensor, output_size: IntList | None, scale_factors: Sequence[float] | None) -> Tensor:  # type: ignore[misc]
            sizes, factors = _vec_sizes(name, input, output_size, scale_factors, n)
            result: Tensor = aten_op(f"{name}.default")(input, sizes, *factors)
            return result

    register_variants(name, {"": forward, "_backward": backward, "_vec": vec})


def _scales(n: int, given: Sequence[float | None]) -> list[float | None]:
    return [*given, *([None] * (n - len(given)))]


def _vec_sizes(
    name: str, input: Tensor, output_size: IntList | None, scale_factors: Sequence[float] | None, n: int
) -> tuple[list[int], list[float | None]]:
    """The .vec overloads' output size (given, or the input's spatial sizes times the factors,
    truncated) and the scales passed on (the factors, or None)."""
    if output_size is not None and scale_factors is not None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    spatial = input._impl.sizes[-n:]
    if output_size is not None:
        return int_list(output_size), [None] * n
    if scale_factors is None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    factors = list(scale_factors)
    if len(factors) != n:
        raise RuntimeError(
            "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, but got "
            "false.  (Could this error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"
        )
    return [int(s * f) for s, f in zip(spatial, factors, strict=True)], list(factors)


_upsample_variants("upsample_nearest1d", 1, linear=False)
_upsample_variants("upsample_nearest2d", 2, linear=False)
_upsample_variants("upsample_linear1d", 1, linear=True)
_upsample_variants("upsample_bilinear2d", 2, linear=True)


# ---- pixel shuffle ------------------------------------------------------------------------------


def _pixel_shuffle(op: str, self: Tensor, factor: int, shuffle: bool) -> Tensor:
    """pixel_shuffle (`shuffle`) moves (C * r * r, H, W) to (C, H * r, W * r); pixel_unshuffle the
    other way."""
    sizes = self._impl.sizes
    argument = "upscale_factor" if shuffle else "downscale_factor"
    if len(sizes) < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with {len(sizes)} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {argument}, but got {factor}")
    *batch, c, h, w = sizes
    r = factor
    if shuffle:
        if c % (r * r):
            raise RuntimeError(
                f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
            )
        out_sizes = (*batch, c // (r * r), h * r, w * r)
    else:
        for name, axis, size in (("height", -2, h), ("width", -1, w)):
            if size % r:
                raise RuntimeError(
                    f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                    f"input.size({axis})={size} is not divisible by {r}"
                )
        out_sizes = (*batch, c * r * r, h // r, w // r)

    def values() -> Array:
        x = array(self).reshape(-1, c, h, w)
        b = x.shape[0]
        if shuffle:
            moved = x.reshape(b, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
        else:
            moved = x.reshape(b, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
        return moved.reshape(out_sizes)

    return _emit(tuple(out_sizes), self._impl.dtype, self._impl.device, values)


@kernel("pixel_shuffle")
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    return _pixel_shuffle("pixel_shuffle", self, upscale_factor, True)


@kernel("pixel_unshuffle")
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    return _pixel_shuffle("pixel_unshuffle", self, downscale_factor, False)


# ---- one_hot ------------------------------------------------------------------------------------


@kernel("one_hot")
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    """int64 (*self.shape, num_classes) with a 1 at each value's class (num_classes -1: the largest
    value + 1)."""
    impl = self._impl
    if impl.dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if impl.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        empty: Tensor = aten_op("empty.memory_format")(
            [*impl.sizes, num_classes], dtype=int64, device=impl.device
        )
        return empty
    if is_meta(impl.device):
        if num_classes == -1:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    else:
        values = array(self)
        if values.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(values.max()) + 1
        elif num_classes <= values.max():
            raise RuntimeError("Class values must be smaller than num_classes.")
    zeros = aten_op("zeros.default")([*impl.sizes, num_classes], dtype=int64, device=impl.device)
    result: Tensor = aten_op("scatter_.value")(zeros, -1, aten_op("unsqueeze.default")(self, -1), 1)
    return result


# ---- feature and alpha dropout ------------------------------------------------------------------

_SELU_ALPHA: Final = 1.7580993408473766
"""-selu's scale * alpha: the value alpha dropout sets dropped elements to (before its affine map)."""


def _dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool) -> Tensor:
    """PyTorch's _dropout_impl: keep each element (`feature`: each channel of each sample) with
    probability 1 - p, drawn as bernoulli(1 - p) from the default generator; scale the kept ones by
    1 / (1 - p), or (`alpha`) keep the input's mean and variance for SELU activations by mapping
    the dropped ones to -alpha' and applying an affine map."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    impl = input._impl
    mul = aten_op("mul_.Tensor" if inplace else "mul.Tensor")
    if p == 0 or not train or impl.numel() == 0:
        return input
    if impl.dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", impl.dtype)
    if impl.dtype not in _FLOATING:  # the noise, of the input's dtype, is scaled by a float
        noise_type = "Long" if alpha and impl.dtype is bool_ else impl.dtype.scalar_type_name
        raise RuntimeError(f"result type Float can't be cast to the desired output type {noise_type}")
    zero_dim = aten_op("zeros.default")([], dtype=impl.dtype, device=impl.device)
    if p == 1:
        result: Tensor = mul(input, zero_dim)
        return result
    if feature and impl.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    noise_sizes = (*impl.sizes[:2], *([1] * (impl.dim() - 2))) if feature else impl.sizes
    noise = new_tensor(noise_sizes, impl.dtype, impl.device)
    if not is_meta(impl.device):
        draws = rng.bernoulli(rng.default_generator(), math.prod(noise_sizes), 1.0 - p, np.float64)
        array(noise)[...] = draws.reshape(noise_sizes)
    if not alpha:
        dropped: Tensor = mul(input, aten_op("div_.Scalar")(noise, 1.0 - p))
        return dropped
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = aten_op("add.Scalar")(
        aten_op("mul.Scalar")(aten_op("add.Scalar")(noise, -1), _SELU_ALPHA * a), _SELU_ALPHA * a * p
    )
    scaled = mul(input, aten_op("mul_.Scalar")(noise, a))
    shifted: Tensor = aten_op("add_.Tensor")(scaled, shift)
    return shifted


for _name, _feature, _alpha in (
    ("feature_dropout", True, False),
    ("alpha_dropout", False, True),
    ("feature_alpha_dropout", True, True),
):
    register_variants(
        _name,
        {
            "": lambda input, p, train, _f=_feature, _a=_alpha: _dropout_impl(input, p, train, _f, _a, False),
            "_": lambda input, p, train, _f=_feature, _a=_alpha: _dropout_impl(input, p, train, _f, _a, True),
        },
    )


# ---- 1-d reflection and replication padding -----------------------------------------------------


def _pad1d_args(op: str, self: Tensor, padding: IntList, reflect: bool) -> tuple[int, int]:
    """PyTorch's reflection/replication_pad1d checks; (left, right)."""
    pads = int_list(padding)
    if len(pads) != 2:
        raise RuntimeError(
            f"padding size is expected to be 2, but got: {len(pads)}"
            if reflect
            else "padding size is expected to be 2"
        )
    sizes = self._impl.sizes
    if len(sizes) not in (2, 3) or 0 in sizes[-2:]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(sizes)}"
        )
    left, right = pads
    if reflect and (left >= sizes[-1] or right >= sizes[-1]):
        raise RuntimeError(
            "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
            f"padding ({left}, {right}) at dimension {len(sizes) - 1} of input {list(sizes)}"
        )
    if sizes[-1] + left + right < 1:
        raise RuntimeError(
            f"input (W: {sizes[-1]}) is too small. Calculated output W: {sizes[-1] + left + right}"
        )
    return left, right


def _pad1d(op: str, reflect: bool) -> None:
    """Register `op` (reflection_pad1d / replication_pad1d) and its backward operator: each
    output position copies the input position `_pad_index` gives."""

    def forward(self: Tensor, padding: IntList) -> Tensor:
        left, right = _pad1d_args(op, self, padding, reflect)
        impl = self._impl
        if impl.dtype is bool_:
            raise not_implemented(op, bool_)
        width = impl.sizes[-1]
        return _emit(
            (*impl.sizes[:-1], width + left + right),
            impl.dtype,
            impl.device,
            lambda: pad_gather(array(self), (left, right), reflect),
        )

    def backward(grad_output: Tensor, self: Tensor, padding: IntList) -> Tensor:
        left, right = _pad1d_args(op, self, padding, reflect)
        impl, g = self._impl, grad_output._impl
        device = same_device(f"{op}_backward", (grad_output, self))
        expected = impl.sizes[-1] + left + right
        got = g.sizes[-1] if g.sizes else 0
        if g.dim() != impl.dim() or got != expected:
            name, sep = ("grad_output", ",") if reflect else ("gradOutput", "")
            raise RuntimeError(f"{name} width unexpected. Expected: {expected}{sep} Got: {got}")
        if not (g.dtype.is_floating_point or g.dtype.is_complex):
            raise not_implemented(f"{op}_backward", g.dtype)

        return _emit(
            impl.sizes,
            impl.dtype,
            device,
            lambda: pad_scatter(_values(grad_output), impl.sizes, (left, right), reflect),
        )

    register_variants(op, {"": forward, "_backward": backward})


_pad1d("reflection_pad1d", reflect=True)
_pad1d("replication_pad1d", reflect=False)
