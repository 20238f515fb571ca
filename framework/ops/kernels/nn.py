"""Neural-network kernels: gelu and silu, softmax and log_softmax, convolution, max/average/adaptive
pooling, embedding, layer and batch normalization, the losses (nll, mse, binary cross entropy),
padding and dropout, each with the backward operator its derivative calls; and the
CompositeImplicitAutograd operators PyTorch builds from them (softmax, conv2d, layer_norm,
batch_norm, nll_loss, cross_entropy_loss, l1_loss, linear, dropout, ...).

Each kernel checks its arguments with PyTorch's messages and decides the outputs' shapes and dtypes
before touching any element, so Meta tensors get exactly that; on CPU one vectorised NumPy
computation fills the outputs.  float16 computes in float32, as PyTorch's CPU kernels do (their
opmath type); reductions inside normalization and losses accumulate in float64 for float32.

Convolution never loops over output positions: the zero-padded input, laid out (C, *S, N) so the
batch is the innermost loop, is copied into an im2col matrix with one strided copy per kernel
offset and multiplied with the weight (one BLAS product per group); the input gradient multiplies
the other way and scatters back with one strided add per kernel offset.  A transposed convolution is the
input gradient of the convolution it transposes, so three routines (forward, input gradient, weight
gradient) serve both kinds.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.device import Device, MemoryFormat
from framework.c10.dtypes import (
    bfloat16,
    bool_,
    dtype,
    float16,
    float32,
    float64,
    int32,
    int64,
    promote_types,
    uint8,
)
from framework.ops._iter import Number, broadcast_shapes
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    TensorMeta,
    array,
    aten_op,
    checked_scalar,
    int_list,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    register_variants,
    same_device,
    select_bits,
    structured,
    wrap_dim,
)
from framework.ops.kernels.linalg import Array, IntList, Sizes
from framework.ops.kernels.pointwise import erf_array
from framework.ops.kernels.views import strides_for_memory_format

_FLOATING: Final = frozenset((float16, bfloat16, float32, float64))
_REDUCTION_NONE: Final = 0
_REDUCTION_MEAN: Final = 1
_REDUCTION_SUM: Final = 2


# ---- shared helpers -----------------------------------------------------------------------------


def _check_floating(op: str, d: dtype) -> None:
    """PyTorch's refusal of a dtype its floating-point kernel `op` has no instance for."""
    if d not in _FLOATING:
        raise not_implemented(op, d)


def _acc(d: dtype) -> np.dtype[Any]:
    """The NumPy type sums of `d` accumulate in (float64 for float32 and float64)."""
    return np.dtype(np.float32) if d.is_reduced_float else np.dtype(np.float64)


def _values(t: Tensor, d: np.dtype[Any] | None = None) -> Array:
    """`t`'s elements as an array of `d` (of `t`'s opmath type by default)."""
    return array(t).astype(t._impl.dtype.opmath_numpy if d is None else d, copy=False)


def _emit(sizes: Sizes, d: dtype, device: Device, compute: Callable[[], Any]) -> Tensor:
    """A new tensor of `sizes` and `d` on `device`, filled (off Meta) with `compute()`."""

    def fill(out: Array) -> None:
        out[...] = compute()

    return _emit_into(sizes, d, device, fill)


def _emit_into(
    sizes: Sizes, d: dtype, device: Device, fill: Callable[[Array], None], work: np.dtype[Any] | None = None
) -> Tensor:
    """A new tensor of `sizes` and `d` on `device`, whose elements (off Meta) `fill` writes into the
    array it is given: the tensor's own, or, when `work` (the type to compute in) is not `d`'s
    NumPy type, a new array of `work` that is then converted into the tensor."""
    out = new_tensor(sizes, d, device)
    if not is_meta(device):
        target = array(out)
        if work is None or work == target.dtype:
            fill(target)
        else:
            buffer = np.empty(sizes, work)
            fill(buffer)
            target[...] = buffer
    return out


def _emit_many(
    specs: Sequence[tuple[Sizes, dtype]], device: Device, compute: Callable[[], Sequence[Any]]
) -> tuple[Tensor, ...]:
    """New tensors of (sizes, dtype) on `device`, filled (off Meta) with the values `compute()`
    returns, one per output."""
    outs = tuple(new_tensor(sizes, d, device) for sizes, d in specs)
    if not is_meta(device):
        for out, value in zip(outs, compute(), strict=True):
            array(out)[...] = value
    return outs


def _emit_grads(
    output_mask: Sequence[bool], device: Device, *grads: tuple[Sizes, dtype, Callable[[], Any]]
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """The three gradients of a backward operator, each (sizes, dtype, compute): emitted where
    `output_mask` asks for it, None otherwise."""
    first, second, third = (
        _emit(sizes, d, device, compute) if wanted else None
        for wanted, (sizes, d, compute) in zip(output_mask, grads, strict=True)
    )
    return first, second, third


def _first_output(name: str, op: str, arity: int | None = None) -> Callable[..., Tensor]:
    """Register (and return) kernel `name`: the first output of the aten operator `op` called with
    the kernel's first `arity` arguments (all by default), as PyTorch's max_pool2d, layer_norm and
    nll_loss are."""

    def first(*args: Any) -> Tensor:
        result: Tensor = aten_op(f"{op}.default")(*args[:arity])[0]
        return result

    register_variants(name, {"": first})
    return first


def _expand_param(name: str, value: IntList, n: int) -> list[int]:
    """A convolution parameter as `n` values (one value stands for all), with PyTorch's error."""
    values = int_list(value)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={values}"
        )
    return values


def _sized_list(value: IntList, size: int) -> list[int]:
    """An `int[size]` argument as a list: a single int stands for `size` copies of itself."""
    return [value] * size if isinstance(value, int) else list(value)


def _legacy_type(d: dtype) -> str:
    """PyTorch's legacy tensor type name of a CPU dtype ("torch.FloatTensor")."""
    return f"torch.{d.scalar_type_name}Tensor"


def _reduced_sizes(sizes: Sizes, reduction: int) -> Sizes:
    return sizes if reduction == _REDUCTION_NONE else ()


def channel_shape(ndim: int) -> list[int]:
    """The shape a per-channel (C,) array or tensor takes to broadcast against an `ndim`-d
    (N, C, ...) one: [1, -1, 1, ...] (also used by the nn derivative formulas)."""
    return [1, -1, *([1] * (ndim - 2))]


def _channels_view(a: Array, ndim: int) -> Array:
    """A per-channel (C,) array shaped to broadcast against (N, C, ...)."""
    return a.reshape(channel_shape(ndim))


# ---- gelu, silu ---------------------------------------------------------------------------------

_SQRT_2: Final = math.sqrt(2.0)
_SQRT_2_OVER_PI: Final = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI: Final = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_CUBIC: Final = 0.044715


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu(x: Array, approximate: str) -> Array:
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)
        return 0.5 * x * (1.0 + np.tanh(inner))
    cdf = 0.5 * (1.0 + erf_array(x.astype(np.float64) / _SQRT_2))
    result: Array = x * cdf.astype(x.dtype)
    return result


def _gelu_derivative(x: Array, approximate: str) -> Array:
    if approximate == "tanh":
        x2 = x * x
        t = np.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x2 * x))
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_CUBIC * x2)
    cdf = (0.5 * (1.0 + erf_array(x.astype(np.float64) / _SQRT_2))).astype(x.dtype)
    return cdf + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI


def _unary_meta(op: str) -> Callable[..., TensorMeta]:
    def meta(self: Tensor, *, approximate: str = "none") -> TensorMeta:
        _check_approximate(approximate)
        impl = self._impl
        _check_floating(op, impl.dtype)
        return TensorMeta(impl.sizes, impl.dtype, impl.device)

    return meta


def _gelu_impl(out: Array, self: Tensor, *, approximate: str = "none") -> None:
    out[...] = _gelu(_values(self), approximate)


def _silu_impl(out: Array, self: Tensor) -> None:
    x = _values(self)
    out[...] = x / (1.0 + np.exp(-x))


structured("gelu", _unary_meta("GeluKernelImpl"), _gelu_impl)
structured("silu", _unary_meta("silu_cpu"), _silu_impl)


def _pointwise_backward_meta(op: str, grad_output: Tensor, self: Tensor) -> TensorMeta:
    """The broadcast shape and promoted dtype of a binary pointwise backward operator."""
    g, s = grad_output._impl, self._impl
    device = same_device(op, (grad_output, self))
    d = promote_types(g.dtype, s.dtype)
    _check_floating(op, d)
    return TensorMeta(broadcast_shapes(g.sizes, s.sizes), d, device)


def _threshold_backward_meta(grad_output: Tensor, self: Tensor, threshold: Number) -> TensorMeta:
    g, s = grad_output._impl, self._impl
    device = same_device("threshold_backward", (grad_output, self))
    d = promote_types(g.dtype, s.dtype)
    if d is bool_ or d.is_complex:
        raise not_implemented("threshold_cpu", d)
    return TensorMeta(broadcast_shapes(g.sizes, s.sizes), d, device)


def _threshold_backward_impl(out: Array, grad_output: Tensor, self: Tensor, threshold: Number) -> None:
    """`grad_output` where `self > threshold`, else 0 (relu's backward from its result: a NaN in
    `self` lets the gradient through, as in PyTorch), compared in the result's dtype."""
    limit = checked_scalar(threshold, promote_types(grad_output._impl.dtype, self._impl.dtype))
    keep = np.logical_not(np.less_equal(array(self).astype(out.dtype, copy=False), limit))
    select_bits(out, keep, array(grad_output).astype(out.dtype, copy=False), None)


structured("threshold_backward", _threshold_backward_meta, _threshold_backward_impl)


@kernel("gelu_backward")
def gelu_backward(grad_output: Tensor, self: Tensor, *, approximate: str = "none") -> Tensor:
    _check_approximate(approximate)
    m = _pointwise_backward_meta("GeluBackwardKernelImpl", grad_output, self)
    compute = m.dtype.opmath_numpy
    return _emit(
        m.sizes,
        m.dtype,
        m.device,
        lambda: _values(grad_output, compute) * _gelu_derivative(_values(self, compute), approximate),
    )


@kernel("silu_backward")
def silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    m = _pointwise_backward_meta("silu_backward_cpu", grad_output, self)
    compute = m.dtype.opmath_numpy

    def values() -> Array:
        x = _values(self, compute)
        sig = 1.0 / (1.0 + np.exp(-x))
        return _values(grad_output, compute) * sig * (1.0 + x * (1.0 - sig))

    return _emit(m.sizes, m.dtype, m.device, values)


# ---- softmax, log_softmax -----------------------------------------------------------------------


def _softmax_dim(self: Tensor, dim: int, kernel_name: str) -> int:
    """`dim` wrapped, after refusing a dtype the softmax kernel `kernel_name` does not take."""
    impl = self._impl
    d = wrap_dim(dim, impl.dim())
    last = impl.dim() == 0 or d == impl.dim() - 1
    _check_floating(
        f"{kernel_name}_lastdim_kernel_impl" if last else f"{kernel_name}_kernel_impl", impl.dtype
    )
    return d


def _softmax_into(a: Array, axis: int, log: bool, out: Array) -> None:
    """Write the softmax (or log_softmax) of `a` along `axis` into `out`, an array of `a`'s shape
    and type: a - max, exp, the sum of the exps, then exp / sum (or (a - max) - log(sum)).  The
    exps are laid out as `a` is, which fixes the order of the sum."""
    if a.size == 0:
        return
    shifted = a - a.max(axis=axis, keepdims=True)
    exp = np.exp(shifted) if log else np.exp(shifted, out=shifted)
    total = exp.sum(axis=axis, keepdims=True)
    if log:
        np.subtract(shifted, np.log(total, out=total), out=out)
    else:
        np.divide(exp, total, out=out)


def _softmax_forward(op: str, self: Tensor, dim: int, half_to_float: bool, log: bool) -> Tensor:
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    impl = self._impl
    axis = _softmax_dim(self, dim, op)
    shape = impl.sizes or (1,)
    opmath = impl.dtype.opmath_numpy
    return _emit_into(
        impl.sizes,
        impl.dtype,
        impl.device,
        lambda out: _softmax_into(_values(self, opmath).reshape(shape), axis, log, out.reshape(shape)),
        opmath,
    )


@kernel("_softmax")
def softmax_forward(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _softmax_forward("softmax", self, dim, half_to_float, log=False)


@kernel("_log_softmax")
def log_softmax_forward(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _softmax_forward("log_softmax", self, dim, half_to_float, log=True)


def _softmax_backward(
    op: str, grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtype, log: bool
) -> Tensor:
    g, y = grad_output._impl, output._impl
    device = same_device(f"{op}_backward_data", (grad_output, output))
    if g.sizes != y.sizes:
        raise RuntimeError(
            f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
            f"'output'; but {list(g.sizes)} does not equal {list(y.sizes)} (while checking arguments "
            f"for {op}_backward)"
        )
    if g.dtype is not y.dtype:
        raise RuntimeError(
            f"expected scalar type {g.dtype.scalar_type_name} but found {y.dtype.scalar_type_name}"
        )
    axis = wrap_dim(dim, g.dim())
    last = g.dim() == 0 or axis == g.dim() - 1
    _check_floating(f"{op}_backward_lastdim_kernel_impl" if last else f"{op}_backward_kernel_impl", g.dtype)
    result = input_dtype if g.dtype is float32 and input_dtype.is_reduced_float else g.dtype
    shape = g.sizes or (1,)
    opmath = g.dtype.opmath_numpy

    def fill(into: Array) -> None:
        grad = _values(grad_output, opmath).reshape(shape)
        out = _values(output, opmath).reshape(shape)
        into = into.reshape(shape)
        if log:
            np.multiply(np.exp(out, out=into), grad.sum(axis=axis, keepdims=True), out=into)
            np.subtract(grad, into, out=into)
        else:
            np.subtract(grad, (grad * out).sum(axis=axis, keepdims=True), out=into)
            np.multiply(out, into, out=into)

    return _emit_into(g.sizes, result, device, fill, opmath)


@kernel("_softmax_backward_data")
def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtype) -> Tensor:
    return _softmax_backward("softmax", grad_output, output, dim, input_dtype, log=False)


@kernel("_log_softmax_backward_data")
def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtype) -> Tensor:
    return _softmax_backward("log_softmax", grad_output, output, dim, input_dtype, log=True)


# ---- convolution --------------------------------------------------------------------------------


ConvGeometry = tuple[IntList, IntList, IntList, bool, IntList, int]
"""convolution's (stride, padding, dilation, transposed, output_padding, groups) arguments."""


class _ConvParams:
    """A convolution's geometry, checked: one stride/padding/dilation/output_padding per spatial
    dimension, the groups, and whether it is transposed."""

    __slots__ = ("dilation", "groups", "output_padding", "padding", "stride", "transposed")

    def __init__(self, weight: Tensor, *geometry: *ConvGeometry) -> None:
        stride, padding, dilation, transposed, output_padding, groups = geometry
        w = weight._impl
        if w.dim() < 3:
            raise RuntimeError("weight should have at least three dimensions")
        if groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        n = w.dim() - 2
        self.stride = _expand_param("stride", stride, n)
        self.padding = _expand_param("padding", padding, n)
        self.dilation = _expand_param("dilation", dilation, n)
        self.output_padding = _expand_param("output_padding", output_padding, n)
        self.groups = groups
        self.transposed = transposed
        if any(p < 0 for p in self.padding):
            raise RuntimeError("negative padding is not supported")
        if any(p < 0 for p in self.output_padding):
            raise RuntimeError("negative output_padding is not supported")
        if any(s <= 0 for s in self.stride):
            raise RuntimeError("non-positive stride is not supported")
        if any(d <= 0 for d in self.dilation):
            raise RuntimeError("non-positive dilation is not supported")

    @classmethod
    def sliding(cls, stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int]) -> _ConvParams:
        """The geometry of sliding blocks (im2col, col2im): one group, not transposed."""
        params = cls.__new__(cls)
        params.stride, params.padding, params.dilation = list(stride), list(padding), list(dilation)
        params.output_padding = [0] * len(stride)
        params.groups = 1
        params.transposed = False
        return params

    def output_sizes(self, input: Sizes, weight: Sizes) -> Sizes:
        """The output's sizes for an input and a weight of these sizes."""
        kernel_sizes = weight[2:]
        if self.transposed:
            spatial = tuple(
                (i - 1) * s - 2 * p + d * (k - 1) + op + 1
                for i, s, p, d, k, op in zip(
                    input[2:],
                    self.stride,
                    self.padding,
                    self.dilation,
                    kernel_sizes,
                    self.output_padding,
                    strict=True,
                )
            )
            return (input[0], weight[1] * self.groups, *spatial)
        spatial = tuple(
            (i + 2 * p - d * (k - 1) - 1) // s + 1
            for i, s, p, d, k in zip(
                input[2:], self.stride, self.padding, self.dilation, kernel_sizes, strict=True
            )
        )
        return (input[0], weight[0], *spatial)


def _check_conv_output_padding(params: _ConvParams) -> None:
    """A transposed convolution's output padding must be below its stride or its dilation."""
    ops, strides, dilations = params.output_padding, params.stride, params.dilation
    if all(op < s or op < d for op, s, d in zip(ops, strides, dilations, strict=True)):
        return
    if len(ops) == 1:  # PyTorch runs 1-d convolutions as 2-d ones of height 1
        ops, strides, dilations = [0, *ops], [1, *strides], [1, *dilations]
    names = ("depth", "height", "width")[-len(ops) :] if len(ops) <= 3 else tuple(map(str, range(len(ops))))
    parts = [
        f"{field}_{name}: {v}"
        for field, values in (("output_padding", ops), ("stride", strides), ("dilation", dilations))
        for name, v in zip(names, values, strict=True)
    ]
    raise RuntimeError(
        "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)
    )


def _check_conv(input: Tensor, weight: Tensor, bias: Tensor | None, params: _ConvParams) -> Device:
    """PyTorch's convolution shape and dtype checks, in its order."""
    x, w = input._impl, weight._impl
    device = same_device("convolution", (input, weight) if bias is None else (input, weight, bias))
    groups = params.groups
    if x.dim() != w.dim():
        raise RuntimeError(
            f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional weight {list(w.sizes)}, but got "
            f"{x.dim()}-dimensional input of size {list(x.sizes)} instead"
        )
    if w.sizes[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight "
            f"of size {list(w.sizes)} instead"
        )
    if w.sizes[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{list(w.sizes)}] instead"
        )
    b = None if bias is None else bias._impl
    if params.transposed:
        if x.sizes[1] != w.sizes[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w.sizes)}, expected input{list(x.sizes)} to have "
                f"{w.sizes[0]} channels, but got {x.sizes[1]} channels instead"
            )
        channels = w.sizes[1] * groups
        if b is not None and (b.dim() != 1 or b.sizes[0] != channels):
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w.sizes)}, expected bias to be 1-dimensional with "
                f"{channels} elements, but got bias of size {list(b.sizes)} instead"
            )
        _check_conv_output_padding(params)
    else:
        if x.sizes[1] != w.sizes[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list(w.sizes)}, expected input{list(x.sizes)} to "
                f"have "
                f"{w.sizes[1] * groups} channels, but got {x.sizes[1]} channels instead"
            )
        if b is not None and (b.dim() != 1 or b.sizes[0] != w.sizes[0]):
            raise RuntimeError(
                f"Given weight of size {list(w.sizes)}, expected bias to be 1-dimensional with {w.sizes[0]} "
                f"elements, but got bias of size {list(b.sizes)} instead"
            )
        padded = [i + 2 * p for i, p in zip(x.sizes[2:], params.padding, strict=True)]
        extents = [d * (k - 1) + 1 for d, k in zip(params.dilation, w.sizes[2:], strict=True)]
        if any(p < e for p, e in zip(padded, extents, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                f"({' x '.join(map(str, extents))}). Kernel size can't be greater than actual input size"
            )
    if w.dtype is not x.dtype:
        if x.dtype is float32:
            raise RuntimeError(
                f"Input type ({_legacy_type(x.dtype)}) and weight type ({_legacy_type(w.dtype)}) should "
                "be the "
                "same or input should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {x.dtype.scalar_type_name} but found {w.dtype.scalar_type_name}"
        )
    if b is not None and b.dtype is not x.dtype:
        raise RuntimeError(
            f"Input type ({_legacy_type(x.dtype)}) and bias type ({_legacy_type(b.dtype)}) should be the "
            "same or "
            "input should be a MKLDNN tensor and bias is a dense tensor"
        )
    if x.dtype is bool_:
        raise not_implemented("slow_conv2d_cpu" if x.dim() <= 4 else "compute_columns3d", bool_)
    return device


def _padded_sizes(in_sizes: Sizes, out_sizes: Sizes, kernel_sizes: Sizes, params: _ConvParams) -> list[int]:
    """The extent of the zero-padded input the windows of `out_sizes` positions reach (a
    transposed convolution's output padding may reach past the padding)."""
    return [
        max(i + 2 * p, (o - 1) * s + d * (k - 1) + 1)
        for i, o, s, p, d, k in zip(
            in_sizes, out_sizes, params.stride, params.padding, params.dilation, kernel_sizes, strict=True
        )
    ]


def _offsets(
    kernel_sizes: Sizes, out_sizes: Sizes, params: _ConvParams
) -> list[tuple[tuple[int, ...], tuple[slice, ...]]]:
    """For each kernel offset k, the strided slice of the padded input it meets at every output
    position: o * stride + k * dilation."""
    return [
        (
            offset,
            tuple(
                slice(k * d, k * d + (o - 1) * s + 1, s)
                for k, d, o, s in zip(offset, params.dilation, out_sizes, params.stride, strict=True)
            ),
        )
        for offset in itertools.product(*(range(k) for k in kernel_sizes))
    ]


_TILE_ROWS: Final = 8
_TILE_MIN_ROW: Final = 512
"""`_batch_last` copies batch elements whose rows hold at least `_TILE_MIN_ROW` values a tile of
`_TILE_ROWS` at a time: a plain transposing copy of long rows reads one value per cache line from
rows a power of two of bytes apart, which is 3 to 6 times slower (measured on the demo CNN's
gradients)."""


def _batch_last(a: Array) -> Array:
    """(N, C, *S) as a contiguous (C, *S, N): the layout the column copies and scatters run in,
    with the batch as their long innermost loop."""
    n_batch = a.shape[0]
    rows = a.reshape(n_batch, -1)
    if rows.shape[1] < _TILE_MIN_ROW:
        return np.ascontiguousarray(np.moveaxis(a, 0, -1))
    result = np.empty((*a.shape[1:], n_batch), dtype=a.dtype)
    columns = result.reshape(-1, n_batch)
    for start in range(0, n_batch, _TILE_ROWS):
        columns[:, start : start + _TILE_ROWS] = rows[start : start + _TILE_ROWS].T
    return result


def _im2col(x: Array, kernel_sizes: Sizes, out_sizes: Sizes, params: _ConvParams) -> Array:
    """The columns of `x` (N, C, *S), one matrix per group: (groups, C/groups * prod(K),
    prod(O) * N), row (c, k) holding for each output position and batch element the zero-padded
    input element kernel offset k of channel c meets.  One strided copy per kernel offset."""
    n_batch, channels = x.shape[:2]
    sizes = _padded_sizes(x.shape[2:], out_sizes, kernel_sizes, params)
    padded = np.zeros((channels, *sizes, n_batch), dtype=x.dtype)
    inner = tuple(slice(p, p + i) for p, i in zip(params.padding, x.shape[2:], strict=True))
    padded[(slice(None), *inner)] = np.moveaxis(x, 0, -1)
    cols = np.empty((channels, *kernel_sizes, *out_sizes, n_batch), dtype=x.dtype)
    for offset, window in _offsets(kernel_sizes, out_sizes, params):
        at: tuple[Any, ...] = (slice(None), *offset)
        cols[at] = padded[(slice(None), *window)]
    g = params.groups
    return cols.reshape(g, channels // g * math.prod(kernel_sizes), math.prod(out_sizes) * n_batch)


def _group_matmul(a: Array, b: Array) -> Array:
    """a @ b for stacks of matrices, one 2-d product per group: NumPy hands a transposed 2-d
    operand to BLAS, where a stacked product with one would take its slow loop."""
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=np.result_type(a, b))
    for i in range(a.shape[0]):
        np.matmul(a[i], b[i], out=out[i])
    return out


def _grad_rows(grad: Array, groups: int) -> Array:
    """An output gradient (N, F, *O) as one matrix per group: (groups, F/groups, prod(O) * N)."""
    return _batch_last(grad).reshape(groups, grad.shape[1] // groups, -1)


def _conv_forward(x: Array, w: Array, out_sizes: Sizes, params: _ConvParams) -> Array:
    """Cross-correlation of x (N, C, *S) with w (F, C/groups, *K): (N, F, *out_sizes)."""
    filters, kernel_sizes = w.shape[0], w.shape[2:]
    g = params.groups
    cols = _im2col(x, kernel_sizes, out_sizes, params)
    y = _group_matmul(np.ascontiguousarray(w).reshape(g, filters // g, cols.shape[1]), cols)
    result: Array = np.moveaxis(y.reshape(filters, *out_sizes, x.shape[0]), -1, 0)
    return result


def _conv_weight_grad(x: Array, grad: Array, kernel_sizes: Sizes, params: _ConvParams) -> Array:
    """The gradient of `_conv_forward` with respect to its weight: (F, C/groups, *K) for x (N, C, *S)
    and grad (N, F, *O)."""
    cols = _im2col(x, kernel_sizes, grad.shape[2:], params)
    product = _group_matmul(_grad_rows(grad, params.groups), cols.transpose(0, 2, 1))
    result: Array = product.reshape(grad.shape[1], x.shape[1] // params.groups, *kernel_sizes)
    return result


def _conv_input_grad(grad: Array, w: Array, in_sizes: Sizes, params: _ConvParams) -> Array:
    """The gradient of `_conv_forward` with respect to its input (N, C, *in_sizes), for grad
    (N, F, *O): the column gradients scattered back, one strided add per kernel offset."""
    n_batch, filters, out_sizes = grad.shape[0], grad.shape[1], grad.shape[2:]
    kernel_sizes = w.shape[2:]
    g = params.groups
    channels = g * w.shape[1]
    if grad.size == 0 or w.size == 0:
        return np.zeros((n_batch, channels, *in_sizes), dtype=np.result_type(grad, w))
    weights = np.ascontiguousarray(w).reshape(g, filters // g, w.shape[1] * math.prod(kernel_sizes))
    cols = _group_matmul(weights.transpose(0, 2, 1), _grad_rows(grad, g))
    return _col2im(cols.reshape(channels, *kernel_sizes, *out_sizes, n_batch), in_sizes, params)


def _col2im(cols: Array, in_sizes: Sizes, params: _ConvParams) -> Array:
    """Columns (C, *K, *O, N) added back into the input positions they were copied from:
    (N, C, *in_sizes), one strided add per kernel offset (the transpose of `_im2col`)."""
    n = len(in_sizes)
    kernel_sizes, out_sizes = cols.shape[1 : n + 1], cols.shape[n + 1 : 2 * n + 1]
    sizes = _padded_sizes(in_sizes, out_sizes, kernel_sizes, params)
    padded = np.zeros((cols.shape[0], *sizes, cols.shape[-1]), dtype=cols.dtype)
    for offset, window in _offsets(kernel_sizes, out_sizes, params):
        at: tuple[Any, ...] = (slice(None), *offset)
        padded[(slice(None), *window)] += cols[at]
    inner = tuple(slice(p, p + i) for p, i in zip(params.padding, in_sizes, strict=True))
    result: Array = np.moveaxis(padded[(slice(None), *inner)], -1, 0)
    return result


@kernel("convolution")
def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, *geometry: *ConvGeometry) -> Tensor:
    params = _ConvParams(weight, *geometry)
    device = _check_conv(input, weight, bias, params)
    x, w = input._impl, weight._impl
    sizes = params.output_sizes(x.sizes, w.sizes)

    def values() -> Array:
        xs, ws = _values(input), _values(weight)
        if params.transposed:
            y = _conv_input_grad(xs, ws, sizes[2:], params)
        else:
            y = _conv_forward(xs, ws, sizes[2:], params)
        if bias is not None:
            y = y + _channels_view(_values(bias), len(sizes))
        return y

    return _emit(sizes, x.dtype, device, values)


@kernel("convolution_backward")
def convolution_backward(
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor,
    bias_sizes: Sequence[int] | None,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    transposed: bool,
    output_padding: IntList,
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    params = _ConvParams(weight, stride, padding, dilation, transposed, output_padding, groups)
    device = _check_conv(input, weight, None, params)
    same_device("convolution_backward", (grad_output, input))
    x, w, g = input._impl, weight._impl, grad_output._impl
    expected = params.output_sizes(x.sizes, w.sizes)
    if g.sizes != expected:
        raise RuntimeError(
            f"convolution_backward: expected grad_output of size {list(expected)}, but got {list(g.sizes)}"
        )
    if g.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.scalar_type_name} but found {g.dtype.scalar_type_name}"
        )

    def grad_input() -> Array:
        gy, ws = _values(grad_output), _values(weight)
        if transposed:
            return _conv_forward(gy, ws, x.sizes[2:], params)
        return _conv_input_grad(gy, ws, x.sizes[2:], params)

    def grad_weight() -> Array:
        gy, xs = _values(grad_output), _values(input)
        if transposed:
            return _conv_weight_grad(gy, xs, w.sizes[2:], params)
        return _conv_weight_grad(xs, gy, w.sizes[2:], params)

    def grad_bias() -> Array:
        gy = _values(grad_output, _acc(g.dtype) if g.dtype in _FLOATING else None)
        total: Array = gy.sum(axis=(0, *range(2, gy.ndim)))
        return total

    bias_shape = tuple(bias_sizes) if bias_sizes is not None else (expected[1],)
    return _emit_grads(
        output_mask,
        device,
        (x.sizes, x.dtype, grad_input),
        (w.sizes, w.dtype, grad_weight),
        (bias_shape, g.dtype, grad_bias),
    )


def _conv_nd(
    op: str,
    n: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntList,
    padding: IntList | str,
    dilation: IntList,
    groups: int,
) -> Tensor:
    """conv1d/conv2d/conv3d (`n` = 1, 2, 3) and their string-padding overloads."""
    if isinstance(padding, str):
        input, stride, padding = _string_padding(n, input, weight, stride, padding, dilation)
    return batched_convolution(op, n, input, weight, bias, stride, padding, dilation, False, [0] * n, groups)


def batched_convolution(
    op: str, n: int, input: Tensor, weight: Tensor, bias: Tensor | None, *geometry: Any
) -> Tensor:
    """`convolution` (arguments after the bias as its own) of an `n`-d input with a batch
    dimension, or without one (it then gets a batch of one), for the functional `op`."""
    sizes = input._impl.sizes
    if len(sizes) not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input of size: "
            f"{list(sizes)}"
        )
    batched = len(sizes) == n + 2
    x = input if batched else aten_op("unsqueeze.default")(input, 0)
    out: Tensor = aten_op("convolution.default")(x, weight, bias, *geometry)
    return out if batched else aten_op("squeeze.dim")(out, 0)


def _string_padding(
    n: int, input: Tensor, weight: Tensor, stride: IntList, padding: str, dilation: IntList
) -> tuple[Tensor, IntList, IntList]:
    """(input, stride, padding) for padding "valid" (none) or "same" (the output keeps the input's
    size; an odd total padding puts the extra element after the input, padded explicitly)."""
    if padding == "valid":
        return input, stride, 0
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    strides = _expand_param("stride", stride, n)
    if any(s != 1 for s in strides):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilations = _expand_param("dilation", dilation, n)
    kernel_sizes = weight._impl.sizes[2:]
    totals = [d * (k - 1) for d, k in zip(dilations, kernel_sizes, strict=True)]
    symmetric = [t // 2 for t in totals]
    if all(t % 2 == 0 for t in totals):
        return input, strides, symmetric
    warnings.warn(
        "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
        "the input be created",
        UserWarning,
        stacklevel=4,
    )
    extra: list[int] = []
    for t in reversed(totals):
        extra += [0, t % 2]
    return aten_op("constant_pad_nd.default")(input, extra, 0), strides, symmetric


for _n in (1, 2, 3):
    register_variants(
        f"conv{_n}d",
        {suffix: functools.partial(_conv_nd, f"conv{_n}d", _n) for suffix in ("", "_padding")},
    )


# ---- max and average pooling --------------------------------------------------------------------

_COUNT_WORDS: Final = {2: "two", 3: "three"}


def _pool_values(op: str, name: str, value: IntList, n: int, *, may_be_empty: bool = False) -> list[int]:
    """A pooling parameter as one value per spatial dimension (one value stands for all `n`),
    with PyTorch's messages; `may_be_empty` (stride) returns [] for an empty list."""
    values = int_list(value)
    if len(values) == n:
        return values
    if len(values) == 1:
        return values * n
    if may_be_empty and not values:
        return values
    kinds = {
        "kernel_size": "must either be a single int, or a tuple of {} ints",
        "stride": "must either be omitted, a single int, or a tuple of {} ints",
        "padding": "must either be a single int, or a tuple of {} ints",
        "dilation": "must be either a single int, or a tuple of {} ints",
    }
    kind = kinds[name].format(_COUNT_WORDS[n])
    if op == "avg_pool3d":  # its messages say "must be", not "must either be"
        kind = kind.replace("either ", "")
    raise RuntimeError(f"{op}: {name} {kind}")


def _pool_output_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """PyTorch's pooling_output_shape: windows that start inside the input or its left padding."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and "
            f"dilation={dilation}"
        )
    span = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def along(values: Array, axis: int, n: int) -> Array:
    """A vector over spatial dimension `axis` of `n`, shaped to broadcast against (..., *S)."""
    return values.reshape([-1 if a == axis else 1 for a in range(n)])


class PoolGeometry:
    """A pooling over the last `n` dimensions: kernel, stride (the kernel's by default), padding
    and dilation, one per spatial dimension, and the output's sizes.  The operator's own checks
    (kernel, stride and dilation signs, rank, output size), with their per-operator messages, are
    its caller's."""

    __slots__ = ("batch", "dilation", "input_sizes", "kernel", "out_sizes", "padding", "stride")

    def __init__(
        self,
        op: str,
        n: int,
        input: Tensor,
        kernel_size: IntList,
        stride: IntList,
        padding: IntList,
        dilation: IntList,
        ceil_mode: bool,
    ) -> None:
        self.kernel = _pool_values(op, "kernel_size", kernel_size, n)
        self.stride = _pool_values(op, "stride", stride, n, may_be_empty=True) or list(self.kernel)
        self.padding = _pool_values(op, "padding", padding, n)
        self.dilation = _pool_values(op, "dilation", dilation, n)
        sizes = input._impl.sizes
        if op in ("max_pool2d", "max_pool3d", "avg_pool3d") and len(sizes) not in (n + 1, n + 2):
            raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")
        self.input_sizes: Sizes = tuple(sizes[-n:]) if len(sizes) >= n else (0,) * n
        self.out_sizes: Sizes = tuple(
            _pool_output_size(i, k, p, s, d, ceil_mode)
            for i, k, p, s, d in zip(
                self.input_sizes, self.kernel, self.padding, self.stride, self.dilation, strict=True
            )
        )
        self.batch = sizes[:-n]

    @property
    def output_sizes(self) -> Sizes:
        return (*self.batch, *self.out_sizes)

    def starts(self, axis: int) -> Array:
        """Where each window starts along spatial dimension `axis`, in unpadded coordinates."""
        return np.arange(self.out_sizes[axis]) * self.stride[axis] - self.padding[axis]

    def tiles(self) -> bool:
        """Whether the windows tile the input: no padding or dilation, stride equal to the
        kernel, every window inside the input (the common `max_pool2d(x, 2)`)."""
        return (
            not any(self.padding)
            and all(d == 1 for d in self.dilation)
            and self.stride == self.kernel
            and all(o * k <= n for o, k, n in zip(self.out_sizes, self.kernel, self.input_sizes, strict=True))
        )

    def windows(self, x: Array, fill: Any) -> Array:
        """x (B, *S) padded with `fill` as windows (B, *O, *K) (a strided view)."""
        n = len(self.kernel)
        pads = [(0, 0)]
        extents = []
        for axis in range(n):
            k, s, p, d = self.kernel[axis], self.stride[axis], self.padding[axis], self.dilation[axis]
            extent = d * (k - 1) + 1
            reach = (self.out_sizes[axis] - 1) * s + extent
            pads.append((p, max(p, reach - self.input_sizes[axis] - p)))
            extents.append(extent)
        padded = np.pad(x, pads, constant_values=fill)
        view = sliding_window_view(padded, extents, axis=tuple(range(1, n + 1)))
        outputs = (slice(None, (o - 1) * s + 1, s) for o, s in zip(self.out_sizes, self.stride, strict=True))
        return view[(slice(None), *outputs, *(slice(None, None, d) for d in self.dilation))]


def _pool2d(
    op: str,
    input: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    ceil_mode: bool,
) -> PoolGeometry:
    """A checked 2-d pooling (PyTorch's pool2d_shape_check)."""
    pool = PoolGeometry(op, 2, input, kernel_size, stride, padding, dilation, ceil_mode)
    sizes = input._impl.sizes
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pool.kernel, pool.stride, pool.padding, pool.dilation
    (in_h, in_w), (out_h, out_w) = pool.input_sizes, pool.out_sizes
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    if len(sizes) not in (3, 4) or 0 in sizes[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(sizes)}"
        )
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}"
        )
    if out_h < 1 or out_w < 1:
        raise RuntimeError(
            f"Given input size: ({sizes[-3]}x{in_h}x{in_w}). Calculated output size: "
            f"({sizes[-3]}x{out_h}x{out_w}). Output size is too small"
        )
    return pool


def _planes(t: Tensor, n: int) -> Array:
    """A pooling input (..., *S) of `n` spatial dimensions as (B, *S)."""
    a = array(t)
    return a.reshape(-1 if a.size else 0, *a.shape[-n:])


def _lowest(d: np.dtype[Any]) -> Any:
    return -np.inf if d.kind == "f" else np.iinfo(d).min


def _flat_strides(sizes: Sizes) -> list[int]:
    """The row-major strides of an array of `sizes` (a position's flat index in its plane)."""
    return [math.prod(sizes[axis + 1 :]) for axis in range(len(sizes))]


def max_pool_values(x: Array, pool: PoolGeometry) -> tuple[Array, Array]:
    """The maximum of each window of x (B, *S) and its flat index in its (unpadded) plane."""
    n = len(pool.kernel)
    strides = _flat_strides(pool.input_sizes)
    if pool.tiles():
        found, best = _tile_max(x, pool)
        origins = sum(along(pool.starts(a) * strides[a], a, n) for a in range(n))
        offsets = sum(along(np.arange(pool.kernel[a]) * strides[a], a, n) for a in range(n))
        return found, origins + np.asarray(offsets).ravel().take(best)
    windows = pool.windows(x, _lowest(x.dtype))
    flat = windows.reshape(*windows.shape[: n + 1], -1)
    best = flat.argmax(axis=-1)
    found = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    steps = np.unravel_index(best, pool.kernel)
    coords = [along(pool.starts(a), a, n) + steps[a] * pool.dilation[a] for a in range(n)]
    outside = np.zeros(best.shape, dtype=bool)
    for a, c in enumerate(coords):
        outside |= (c < 0) | (c >= pool.input_sizes[a])
    if outside.any():  # only when every element of the window is the lowest value
        for a in range(n):
            start, d = pool.starts(a), pool.dilation[a]
            first = start + (-np.minimum(start, 0) + d - 1) // d * d
            coords[a] = np.where(outside, along(first, a, n), coords[a])
    return found, sum(c * s for c, s in zip(coords, strides, strict=True))


def _tile_max(x: Array, pool: PoolGeometry) -> tuple[Array, Array]:
    """Max pooling over tiling windows, element by element of the window instead of window by
    window, keeping PyTorch's scan: an element replaces the running maximum when it is greater or
    NaN (so the first of equal maxima wins, and the last NaN).  The position is the element's
    flat index in the window."""
    n, kernel, out = len(pool.kernel), pool.kernel, pool.out_sizes
    crop = x[(slice(None), *(slice(0, o * k) for o, k in zip(out, kernel, strict=True)))]
    blocks = crop.reshape(x.shape[0], *itertools.chain.from_iterable(zip(out, kernel, strict=True)))
    order = (*range(2, 2 * n + 1, 2), 0, *range(1, 2 * n, 2))
    # one copy that makes each window element a contiguous plane (fast elementwise loops)
    planes = np.ascontiguousarray(blocks.transpose(order)).reshape(math.prod(kernel), x.shape[0], *out)
    elements = list(planes)
    found = elements[0].copy()
    best = np.zeros(found.shape, dtype=np.int64)
    for k, element in enumerate(elements[1:], start=1):
        take = element > found
        if found.dtype.kind == "f":
            take |= np.isnan(element)
        np.maximum(found, element, out=found)  # NaN propagates: the maximum is NaN either way
        best += take * (k - best)
    return found, best


def emit_max_pool(op: str, self: Tensor, pool: PoolGeometry) -> tuple[Tensor, Tensor]:
    """A max pooling's values and indices (flat positions in their planes) of `self`; `op` names
    the kernel in the refusal of bool and complex inputs."""
    impl = self._impl
    if impl.dtype is bool_ or impl.dtype.is_complex:
        raise not_implemented(op, impl.dtype)
    sizes, n = pool.output_sizes, len(pool.kernel)

    def values() -> tuple[Array, Array]:
        found, where = max_pool_values(_planes(self, n), pool)
        return found.reshape(sizes), where.reshape(sizes)

    out, indices = _emit_many(((sizes, impl.dtype), (sizes, int64)), impl.device, values)
    return out, indices


@kernel("max_pool2d_with_indices")
def max_pool2d_with_indices(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    dilation: IntList = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    pool = _pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)
    return emit_max_pool("max_pool2d", self, pool)


def check_pool_grad(grad: Tensor, expected: Sizes, n: int) -> None:
    """PyTorch's check of a pooling gradient's sizes, dimension by dimension: the channels and
    the `n` spatial dimensions."""
    sizes = grad._impl.sizes
    for axis, size in enumerate(expected[-n - 1 :], start=len(expected) - n - 1):
        if len(sizes) != len(expected) or sizes[axis] != size:
            got = sizes[axis] if axis < len(sizes) else 0
            raise RuntimeError(
                f"Expected a tensor of dimension {len(expected)} and tensor.size[{axis}] == {size} but got: "
                f"dimension {len(sizes)} and tensor.size[{axis}] = {got}"
            )


def emit_max_pool_backward(
    op: str, grad_output: Tensor, self: Tensor, indices: Tensor, pool: PoolGeometry
) -> Tensor:
    """A max pooling's input gradient: each gradient element added where `indices` says its
    maximum came from, after PyTorch's checks of the gradient and the indices."""
    impl, g = self._impl, grad_output._impl
    device = same_device(op, (grad_output, self, indices))
    if g.dtype is not impl.dtype:
        raise RuntimeError(
            f"expected dtype {CPP_TYPE_NAMES[impl.dtype]} for `gradOutput` but got "
            f"dtype {CPP_TYPE_NAMES[g.dtype]}"
        )
    n = len(pool.kernel)
    check_pool_grad(grad_output, pool.output_sizes, n)
    check_pool_grad(indices, pool.output_sizes, n)
    if indices._impl.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {indices._impl.dtype.scalar_type_name}")
    return _emit(
        impl.sizes, impl.dtype, device, lambda: scatter_to_planes(grad_output, indices, impl.sizes, n)
    )


@kernel("max_pool2d_with_indices_backward")
def max_pool2d_with_indices_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    ceil_mode: bool,
    indices: Tensor,
) -> Tensor:
    pool = _pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)
    return emit_max_pool_backward("max_pool2d_with_indices_backward", grad_output, self, indices, pool)


def scatter_to_planes(grad_output: Tensor, indices: Tensor, sizes: Sizes, n: int) -> Array:
    """A max pooling's input gradient of `sizes` (..., *S) over `n` spatial dimensions: each
    element of `grad_output` (..., *O) added at the position within its plane that `indices`
    (flat, prod(S)) names."""
    plane = math.prod(sizes[-n:])
    out_plane = math.prod(indices._impl.sizes[-n:])
    idx = array(indices).reshape(-1, out_plane)
    targets = (idx + np.arange(idx.shape[0])[:, None] * plane).ravel()
    grads = _values(grad_output).ravel()
    total = idx.shape[0] * plane
    if grads.dtype.kind == "f":
        return np.bincount(targets, weights=grads, minlength=total).reshape(sizes)
    result = np.zeros(total, dtype=grads.dtype)
    np.add.at(result, targets, grads)
    return result.reshape(sizes)


def _avg_divisors(pool: PoolGeometry, count_include_pad: bool, divisor_override: int | None) -> Array:
    """Each window's divisor (*O): the override, the window's size clipped to the padded input,
    or the number of input elements it covers."""
    if divisor_override is not None:
        return np.full(pool.out_sizes, divisor_override)
    counts = []
    for axis in range(len(pool.kernel)):
        start = pool.starts(axis)
        size, pad = pool.input_sizes[axis], pool.padding[axis]
        end = np.minimum(start + pool.kernel[axis], size + pad)
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, size) - np.maximum(start, 0))
    result: Array = functools.reduce(np.multiply.outer, counts)
    return result


def _divide(total: Array, divisor: Array) -> Array:
    """`total / divisor`, truncated towards zero for integers (C++ integer division)."""
    if total.dtype.kind == "f":
        return total / divisor
    quotient = np.abs(total) // divisor
    return np.where(total < 0, -quotient, quotient)


def emit_avg_pool(
    self: Tensor, pool: PoolGeometry, count_include_pad: bool, divisor_override: int | None
) -> Tensor:
    """The mean of each window of `self` (its sum divided as `_avg_divisors` says)."""
    impl = self._impl
    n = len(pool.kernel)

    def values() -> Array:
        acc = _acc(impl.dtype) if impl.dtype in _FLOATING else np.dtype(np.int64)
        total = pool.windows(_planes(self, n).astype(acc, copy=False), 0).sum(axis=tuple(range(-n, 0)))
        divisors = _avg_divisors(pool, count_include_pad, divisor_override)
        return _divide(total, divisors).reshape(pool.output_sizes)

    return _emit(pool.output_sizes, impl.dtype, impl.device, values)


def emit_avg_pool_backward(
    op: str,
    grad_output: Tensor,
    self: Tensor,
    pool: PoolGeometry,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    """An average pooling's input gradient: each window's share of its gradient added to every
    element of the window, after PyTorch's check of the gradient's sizes."""
    impl = self._impl
    device = same_device(op, (grad_output, self))
    n = len(pool.kernel)
    check_pool_grad(grad_output, pool.output_sizes, n)

    def values() -> Array:
        out, kernel, stride, padding = pool.out_sizes, pool.kernel, pool.stride, pool.padding
        grads = _values(grad_output, impl.dtype.opmath_numpy).reshape(-1, *out)
        shares = _divide(grads, _avg_divisors(pool, count_include_pad, divisor_override))
        reach = [
            max(i + 2 * p, (o - 1) * s + k)
            for i, o, s, p, k in zip(pool.input_sizes, out, stride, padding, kernel, strict=True)
        ]
        padded = np.zeros((shares.shape[0], *reach), dtype=shares.dtype)
        for offset in itertools.product(*(range(k) for k in kernel)):
            at = (slice(j, j + (o - 1) * s + 1, s) for j, o, s in zip(offset, out, stride, strict=True))
            padded[(slice(None), *at)] += shares
        inner = (slice(p, p + i) for p, i in zip(padding, pool.input_sizes, strict=True))
        return padded[(slice(None), *inner)].reshape(impl.sizes)

    return _emit(impl.sizes, impl.dtype, device, values)


def _avg_pool_args(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    ceil_mode: bool,
    divisor_override: int | None,
) -> PoolGeometry:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    pool = _pool2d("avg_pool2d", self, kernel_size, stride, padding, 1, ceil_mode)
    if self._impl.dtype is bool_ or self._impl.dtype.is_complex:
        raise not_implemented("avg_pool2d", self._impl.dtype)
    return pool


@kernel("avg_pool2d")
def avg_pool2d(
    self: Tensor,
    kernel_size: IntList,
    stride: IntList = (),
    padding: IntList = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    pool = _avg_pool_args(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    return emit_avg_pool(self, pool, count_include_pad, divisor_override)


@kernel("avg_pool2d_backward")
def avg_pool2d_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: IntList,
    stride: IntList,
    padding: IntList,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    pool = _avg_pool_args(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    return emit_avg_pool_backward(
        "avg_pool2d_backward", grad_output, self, pool, count_include_pad, divisor_override
    )


# ---- adaptive average pooling -------------------------------------------------------------------


def _adaptive_ranges(size: int, out: int) -> tuple[list[int], list[int]]:
    """Where each adaptive window starts and ends: floor(i * size / out) to ceil((i + 1) * size / out)."""
    starts = [(i * size) // out for i in range(out)]
    ends = [-((-(i + 1) * size) // out) for i in range(out)]
    return starts, ends


def check_adaptive_input(op: str, self: Tensor, n: int, sep: str = "") -> None:
    """An adaptive pooling's input: `n` + 1 or `n` + 2 dimensions, the non-batch ones non-empty
    (`sep` follows "but got" in PyTorch's message of some of these operators)."""
    sizes = self._impl.sizes
    if len(sizes) not in (n + 1, n + 2):
        raise RuntimeError(f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got{sep} {list(sizes)}")
    for axis in range(len(sizes) - n, len(sizes)):
        if sizes[axis] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{list(sizes)} with dimension {axis} being empty"
            )


def emit_adaptive_avg_pool(self: Tensor, out_sizes: Sequence[int]) -> Tensor:
    """Means over the adaptive windows that split the last len(out_sizes) dimensions of `self`,
    averaged one dimension at a time."""
    impl = self._impl
    n = len(out_sizes)
    sizes = (*impl.sizes[:-n], *out_sizes)

    def values() -> Array:
        x = _planes(self, n).astype(_acc(impl.dtype), copy=False)
        for axis, out in enumerate(out_sizes, start=1):
            starts, ends = _adaptive_ranges(x.shape[axis], out)
            parts = [
                x[(slice(None),) * axis + (slice(s, e),)].sum(axis=axis, keepdims=True) / (e - s)
                for s, e in zip(starts, ends, strict=True)
            ]
            x = np.concatenate(parts, axis=axis)
        return x.reshape(sizes)

    return _emit(sizes, impl.dtype, impl.device, values)


def emit_adaptive_avg_pool_backward(grad_output: Tensor, self: Tensor, n: int, device: Device) -> Tensor:
    """The input gradient of `emit_adaptive_avg_pool` over the last `n` dimensions: each
    window's share of its gradient added to its elements, one dimension at a time."""
    impl, g = self._impl, grad_output._impl

    def values() -> Array:
        grads = _values(grad_output, _acc(g.dtype)).reshape(-1, *g.sizes[-n:])
        for axis in range(n, 0, -1):
            size = impl.sizes[axis - n - 1]
            starts, ends = _adaptive_ranges(size, grads.shape[axis])
            spread = np.zeros((*grads.shape[:axis], size, *grads.shape[axis + 1 :]), dtype=grads.dtype)
            for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
                lead = (slice(None),) * axis
                spread[(*lead, slice(s, e))] += grads[(*lead, slice(i, i + 1))] / (e - s)
            grads = spread
        return grads.reshape(impl.sizes)

    return _emit(impl.sizes, impl.dtype, device, values)


@kernel("_adaptive_avg_pool2d")
def adaptive_avg_pool2d_forward(self: Tensor, output_size: IntList) -> Tensor:
    out_hw = _sized_list(output_size, 2)
    if len(out_hw) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    check_adaptive_input("adaptive_avg_pool2d", self, 2)
    _check_floating("adaptive_avg_pool2d", self._impl.dtype)
    return emit_adaptive_avg_pool(self, out_hw)


@kernel("_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    op = "adaptive_avg_pool2d_backward_out_cpu_template"
    impl, g = self._impl, grad_output._impl
    device = same_device("_adaptive_avg_pool2d_backward", (grad_output, self))
    if g.dim() != impl.dim():
        raise RuntimeError(
            f"{op}: Expected dimensions {impl.dim()} for `grad_output` but got dimensions {g.dim()}"
        )
    check_adaptive_input("adaptive_avg_pool2d_backward", self, 2)
    if g.dtype is not impl.dtype:
        raise RuntimeError(
            f"{op}: Expected dtype {CPP_TYPE_NAMES[impl.dtype]} for `grad_output` "
            f"but got dtype {CPP_TYPE_NAMES[g.dtype]}"
        )
    _check_floating("adaptive_avg_pool2d_backward_cpu", impl.dtype)
    return emit_adaptive_avg_pool_backward(grad_output, self, 2, device)


_first_output("max_pool2d", "max_pool2d_with_indices")


@kernel("adaptive_avg_pool2d")
def adaptive_avg_pool2d(self: Tensor, output_size: IntList) -> Tensor:
    """The 1x1 case is a mean over the last two dimensions (as in PyTorch, whose graph then holds a
    MeanBackward1 node)."""
    if _sized_list(output_size, 2) == [1, 1]:
        mean: Tensor = aten_op("mean.dim")(self, [-1, -2], True)
        return mean
    result: Tensor = aten_op("_adaptive_avg_pool2d.default")(self, output_size)
    return result


# ---- embedding ----------------------------------------------------------------------------------


def _check_indices(argument: str, indices: Tensor, op: str) -> None:
    d = indices._impl.dtype
    if d not in (int64, int32):
        raise RuntimeError(
            f"Expected tensor for argument {argument} to have one of the following scalar types: Long, Int; "
            f"but got {_legacy_type(d)} instead (while checking arguments for {op})"
        )


@kernel("embedding")
def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    w = weight._impl
    if w.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices("#1 'indices'", indices, "embedding")
    device = same_device("embedding", (weight, indices))
    sizes = (*indices._impl.sizes, w.sizes[1])

    def values() -> Array:
        idx = array(indices)
        if idx.size and (idx.min() < 0 or idx.max() >= w.sizes[0]):
            raise IndexError("index out of range in self")
        rows: Array = array(weight)[idx]
        return rows

    return _emit(sizes, w.dtype, device, values)


@kernel("embedding_dense_backward")
def embedding_dense_backward(
    grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> Tensor:
    _check_indices("#2 'indices'", indices, "embedding_backward")
    g = grad_output._impl
    device = same_device("embedding_dense_backward", (grad_output, indices))
    width = g.sizes[-1] if g.sizes else 1
    sizes = (num_weights, width)

    def values() -> Array:
        idx = array(indices).reshape(-1)
        grads = _values(grad_output, _acc(g.dtype) if g.dtype in _FLOATING else None).reshape(idx.size, width)
        keep = (idx >= 0) & (idx < num_weights) & (idx != padding_idx)
        idx, grads = idx[keep], grads[keep]
        if scale_grad_by_freq:
            counts = np.bincount(array(indices).reshape(-1)[keep], minlength=num_weights)
            grads = grads / counts[idx][:, None]
        result = np.zeros(sizes, dtype=grads.dtype)
        np.add.at(result, idx, grads)
        return result

    return _emit(sizes, g.dtype, device, values)


# ---- layer and batch normalization --------------------------------------------------------------


def _project(v: Array, x_hat: Array, axes: int | tuple[int, ...]) -> Array:
    """v minus its mean and its component along x_hat over `axes` (x_hat has mean 0 and mean square
    1 over them): a normalization's input gradient before the scaling."""
    result: Array = v - v.mean(axis=axes, keepdims=True) - x_hat * (v * x_hat).mean(axis=axes, keepdims=True)
    return result


def _check_norm_parameter(input: dtype, parameter: Tensor | None, *, batch: bool) -> None:
    """PyTorch's CPU rule for normalization parameters: the input's dtype, or float32 for a float16
    input (all parameters alike)."""
    if parameter is None:
        return
    d = parameter._impl.dtype
    if d is input or (input.is_reduced_float and d is float32):
        return
    if input is float32 or not batch:
        raise RuntimeError(
            f"mixed dtype (CPU): expect parameter to have scalar type of {input.scalar_type_name}"
        )
    raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _layer_norm_split(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None
) -> int:
    """PyTorch's layer_norm argument checks; the number of leading (not normalized) dimensions."""
    shape = list(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
            f"but got normalized_shape = {shape}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t._impl.sizes) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{list(t._impl.sizes)} and normalized_shape = {shape}"
            )
    sizes = input._impl.sizes
    if len(sizes) < len(shape) or list(sizes[len(sizes) - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={shape}, expected input with shape [*, {', '.join(map(str, shape))}], "
            "but "
            f"got input of size{list(sizes)}"
        )
    return len(sizes) - len(shape)


def _emit_normalized(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
    device: Device,
    rows: tuple[int, int],
    affine: tuple[Sizes, Sizes],
    stats_sizes: Sizes,
) -> tuple[Tensor, Tensor, Tensor]:
    """native_layer_norm/native_group_norm's outputs: the input seen as `rows` (count, width),
    each row centred and scaled by 1/sqrt(its biased variance + eps), then, seen as affine[0],
    times the weight and plus the bias seen as affine[1]; and the rows' means and those factors
    (NaN for rows of no elements), shaped `stats_sizes`."""
    impl = input._impl

    def values() -> tuple[Array, Array, Array]:
        acc = _acc(impl.dtype)
        x = _values(input, acc).reshape(rows)
        mean = x.mean(axis=1, keepdims=True) if rows[1] else np.full((rows[0], 1), np.nan)
        centered = x - mean
        var = (centered * centered).mean(axis=1, keepdims=True) if rows[1] else mean
        rstd = 1.0 / np.sqrt(var + eps)
        y = (centered * rstd).reshape(affine[0])
        if weight is not None:
            y = y * _values(weight, acc).reshape(affine[1])
        if bias is not None:
            y = y + _values(bias, acc).reshape(affine[1])
        return y.reshape(impl.sizes), mean.reshape(stats_sizes), rstd.reshape(stats_sizes)

    out, mean, rstd = _emit_many(
        ((impl.sizes, impl.dtype), (stats_sizes, impl.dtype), (stats_sizes, impl.dtype)), device, values
    )
    return out, mean, rstd


@kernel("native_layer_norm")
def native_layer_norm(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None, eps: float
) -> tuple[Tensor, Tensor, Tensor]:
    axis = _layer_norm_split(input, normalized_shape, weight, bias)
    impl = input._impl
    _check_floating("LayerNormKernelImpl", impl.dtype)
    for parameter in (weight, bias):
        _check_norm_parameter(impl.dtype, parameter, batch=False)
    tensors = tuple(t for t in (input, weight, bias) if t is not None)
    device = same_device("native_layer_norm", tensors)
    stats_sizes = (*impl.sizes[:axis], *([1] * (impl.dim() - axis)))
    rows = math.prod(impl.sizes[:axis])
    width = math.prod(impl.sizes[axis:])
    return _emit_normalized(
        input, weight, bias, eps, device, (rows, width), ((rows, width), (1, width)), stats_sizes
    )


@kernel("native_layer_norm_backward")
def native_layer_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    axis = _layer_norm_split(input, normalized_shape, weight, bias)
    impl = input._impl
    _check_floating("LayerNormBackwardKernelImpl", impl.dtype)
    device = same_device("native_layer_norm_backward", (grad_out, input, mean, rstd))
    rows = math.prod(impl.sizes[:axis])
    width = math.prod(impl.sizes[axis:])
    acc = _acc(impl.dtype)

    def parts() -> tuple[Array, Array, Array]:
        g = _values(grad_out, acc).reshape(rows, width)
        x_hat = (_values(input, acc).reshape(rows, width) - _values(mean, acc).reshape(rows, 1)) * _values(
            rstd, acc
        ).reshape(rows, 1)
        return g, x_hat, _values(rstd, acc).reshape(rows, 1)

    def grad_input() -> Array:
        g, x_hat, r = parts()
        gw = g if weight is None else g * _values(weight, acc).reshape(1, width)
        result: Array = r * _project(gw, x_hat, 1)
        return result.reshape(impl.sizes)

    def grad_weight() -> Array:
        g, x_hat, _ = parts()
        result: Array = (g * x_hat).sum(axis=0)
        return result.reshape(impl.sizes[axis:])

    def grad_bias() -> Array:
        result: Array = _values(grad_out, acc).reshape(rows, width).sum(axis=0)
        return result.reshape(impl.sizes[axis:])

    parameter_dtype = impl.dtype if weight is None else weight._impl.dtype
    return _emit_grads(
        output_mask,
        device,
        (impl.sizes, impl.dtype, grad_input),
        (impl.sizes[axis:], parameter_dtype, grad_weight),
        (impl.sizes[axis:], parameter_dtype, grad_bias),
    )


@kernel("native_batch_norm")
def native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    impl = input._impl
    channels = impl.sizes[wrap_dim(1, impl.dim())]
    _check_floating("batch_norm", impl.dtype)
    if impl.numel() == 0:
        raise RuntimeError(
            f"input tensor must have at least one element, but got input_sizes = {list(impl.sizes)}"
        )
    for parameter in (weight, bias, running_mean, running_var):
        _check_norm_parameter(impl.dtype, parameter, batch=True)
    if not training:
        for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
            if stat is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    defined = tuple(t for t in (input, weight, bias, running_mean, running_var) if t is not None)
    device = same_device("native_batch_norm", defined)
    stats_dtype = next((t._impl.dtype for t in defined[1:]), impl.dtype)
    stats_sizes = (channels,) if training else (0,)
    axes = (0, *range(2, impl.dim()))
    count = impl.numel() // channels
    acc = _acc(impl.dtype)

    def values() -> tuple[Array, Array, Array]:
        x = _values(input, acc)
        if training:
            mean = x.mean(axis=axes)
            centered = x - _channels_view(mean, x.ndim)
            var_sum = (centered * centered).sum(axis=axes)
            invstd = 1.0 / np.sqrt(var_sum / count + eps)
            for stat, update in ((running_mean, mean), (running_var, var_sum / (count - 1))):
                if stat is not None:
                    current = _values(stat, acc)
                    array(stat)[...] = (1.0 - momentum) * current + momentum * update
            scale = invstd
            save_mean, save_invstd = mean, invstd
        else:
            assert running_mean is not None and running_var is not None
            mean = _values(running_mean, acc)
            scale = 1.0 / np.sqrt(_values(running_var, acc) + eps)
            centered = x - _channels_view(mean, x.ndim)
            save_mean = save_invstd = np.empty(0, dtype=acc)
        if weight is not None:
            scale = scale * _values(weight, acc)
        y = centered * _channels_view(scale, x.ndim)
        if bias is not None:
            y = y + _channels_view(_values(bias, acc), x.ndim)
        return y, save_mean, save_invstd

    out, save_mean, save_invstd = _emit_many(
        ((impl.sizes, impl.dtype), (stats_sizes, stats_dtype), (stats_sizes, stats_dtype)), device, values
    )
    return out, save_mean, save_invstd


@kernel("native_batch_norm_backward")
def native_batch_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor | None,
    save_invstd: Tensor | None,
    train: bool,
    eps: float,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    impl = input._impl
    channels = impl.sizes[wrap_dim(1, impl.dim())]
    _check_floating("batch_norm_backward_cpu", impl.dtype)
    mean_t, var_t = (save_mean, save_invstd) if train else (running_mean, running_var)
    if mean_t is None or var_t is None:
        names = ("save_mean", "save_invstd") if train else ("running_mean", "running_var")
        raise RuntimeError(f"{names[0] if mean_t is None else names[1]} must be defined when train={train}")
    defined = tuple(t for t in (grad_out, input, weight, mean_t, var_t) if t is not None)
    device = same_device("native_batch_norm_backward", defined)
    axes = (0, *range(2, impl.dim()))
    acc = _acc(impl.dtype)
    parameter_dtype = weight._impl.dtype if weight is not None else mean_t._impl.dtype

    def parts() -> tuple[Array, Array, Array]:
        g = _values(grad_out, acc)
        invstd = _values(var_t, acc) if train else 1.0 / np.sqrt(_values(var_t, acc) + eps)
        x_hat = (_values(input, acc) - _channels_view(_values(mean_t, acc), impl.dim())) * _channels_view(
            invstd, impl.dim()
        )
        return g, x_hat, invstd

    def grad_input() -> Array:
        g, x_hat, invstd = parts()
        scale = invstd if weight is None else invstd * _values(weight, acc)
        if not train:
            scaled: Array = g * _channels_view(scale, impl.dim())
            return scaled
        result: Array = _project(g, x_hat, axes) * _channels_view(scale, impl.dim())
        return result

    def grad_weight() -> Array:
        g, x_hat, _ = parts()
        result: Array = (g * x_hat).sum(axis=axes)
        return result

    def grad_bias() -> Array:
        result: Array = _values(grad_out, acc).sum(axis=axes)
        return result

    return _emit_grads(
        output_mask,
        device,
        (impl.sizes, impl.dtype, grad_input),
        ((channels,), parameter_dtype, grad_weight),
        ((channels,), parameter_dtype, grad_bias),
    )


_first_output("layer_norm", "native_layer_norm", arity=5)  # cudnn_enable is not passed on


@kernel("batch_norm")
def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """native_batch_norm after PyTorch's checks of the per-channel tensors' sizes."""
    impl = input._impl
    channels = impl.sizes[wrap_dim(1, impl.dim())]
    for name, t in (
        ("weight", weight),
        ("bias", bias),
        ("running_mean", running_mean),
        ("running_var", running_var),
    ):
        if t is None:
            if not training and name.startswith("running"):
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        elif t._impl.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t._impl.numel()}")
    result: Tensor = aten_op("native_batch_norm.default")(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[0]
    return result


# ---- losses -------------------------------------------------------------------------------------


def _check_reduction(reduction: int) -> None:
    if reduction not in (_REDUCTION_NONE, _REDUCTION_MEAN, _REDUCTION_SUM):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")


def _reduce(loss: Array, reduction: int) -> Any:
    """The elements of a loss reduced as `reduction` says: kept, averaged or summed."""
    if reduction == _REDUCTION_NONE:
        return loss
    total = loss.sum(dtype=np.float64 if loss.dtype == np.float32 else loss.dtype)
    return total / loss.size if reduction == _REDUCTION_MEAN else total


def reduction_grad_scale(reduction: int, numel: int) -> float:
    """How a loss reduction scales each element's gradient: 1/numel for a mean (also used by the nn
    derivative formulas)."""
    return 1.0 / numel if reduction == _REDUCTION_MEAN and numel else 1.0


def _nll_checks(op: str, self: Tensor, target: Tensor, weight: Tensor | None) -> int:
    """PyTorch's nll_loss argument checks; the number of classes."""
    x, t = self._impl, target._impl
    if not 0 < x.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if t.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.dim() == 1 and t.dim() == 1 and t.sizes[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.sizes[0]}")
    if not (x.dim() == 1 and t.dim() == 0) and x.sizes[0] != (t.sizes[0] if t.dim() else 1):
        raise RuntimeError(f"size mismatch (got input: {list(x.sizes)}, target: {list(t.sizes)})")
    classes = x.sizes[-1]
    if weight is not None and (weight._impl.dim() != 1 or weight._impl.numel() != classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight._impl.sizes)}"
        )
    if t.dtype not in (int64, uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {t.dtype.scalar_type_name}")
    _check_floating(op, x.dtype)
    if weight is not None and weight._impl.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.scalar_type_name} but found {weight._impl.dtype.scalar_type_name}"
        )
    return classes


def _nll_targets(target: Tensor, ignore_index: int, classes: int) -> tuple[Array, Array | None]:
    """(the target class per row, 0 where ignored; the mask of the rows not ignored, or None when no
    row is); raises PyTorch's IndexError for a target out of range."""
    t = array(target).reshape(-1).astype(np.int64, copy=False)
    # No mask when every target is a class (read as unsigned, negative ones are not) and none ignored.
    all_classes = not np.count_nonzero(t.view(np.uint64) >= classes)
    if all_classes and not (0 <= ignore_index < classes and np.count_nonzero(t == ignore_index)):
        return t, None
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"Target {t[bad][0]} is out of bounds.")
    return np.where(valid, t, 0), valid


def _nll_weights(
    weight: Tensor | None, index: Array, valid: Array | None, acc: np.dtype[Any]
) -> Array | None:
    """The weight of each row's target in the acc type, 0 where ignored; None without `weight`."""
    if weight is None:
        return None
    weights = _values(weight, acc)[index]
    return weights if valid is None else np.where(valid, weights, 0.0)


@kernel("nll_loss_forward")
def nll_loss_forward(
    self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> tuple[Tensor, Tensor]:
    """-input[target] per row, times the target's weight (0 where ignored); summed or averaged in the
    acc type, a mean dividing by the total weight (the number of rows not ignored without weights)."""
    classes = _nll_checks("nll_loss_out_frame", self, target, weight)
    _check_reduction(reduction)
    x = self._impl
    device = same_device("nll_loss_forward", (self, target) if weight is None else (self, target, weight))
    out_sizes = x.sizes[:1] if reduction == _REDUCTION_NONE and x.dim() == 2 else ()
    acc = _acc(x.dtype)

    def values() -> tuple[Any, Any]:
        index, valid = _nll_targets(target, ignore_index, classes)
        picked = array(self).reshape(index.size, classes)[np.arange(index.size), index].astype(acc)
        weights = _nll_weights(weight, index, valid, acc)
        losses = np.multiply(-1.0 if weights is None else -weights, picked)
        keep = valid if weights is None else weights != 0
        if keep is not None:
            losses = np.where(keep, losses, 0.0)
        if reduction == _REDUCTION_NONE:
            return losses.reshape(out_sizes), 0.0
        if weights is not None:
            total_weight = weights.sum()
        else:
            total_weight = acc.type(index.size if valid is None else np.count_nonzero(valid))
        total = losses.sum()
        return (total / total_weight if reduction == _REDUCTION_MEAN else total), total_weight

    output, total_weight = _emit_many(((out_sizes, x.dtype), ((), x.dtype)), device, values)
    return output, total_weight


@kernel("nll_loss_backward")
def nll_loss_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    """Zeros but at each row's target: -grad_output times the target's weight (0 where ignored),
    divided by total_weight for a mean."""
    classes = _nll_checks("nll_loss_backward_out_frame", self, target, weight)
    _check_reduction(reduction)
    x, g = self._impl, grad_output._impl
    device = same_device("nll_loss_backward", (grad_output, self, target, total_weight))
    if total_weight._impl.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a  single element tensor, got: {list(total_weight._impl.sizes)} "
            f"({total_weight._impl.numel()} elements)"
        )
    if reduction == _REDUCTION_NONE and x.dim() == 2:
        if g.dim() != 1 or g.sizes[0] != x.sizes[0]:
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {x.sizes[0]} but got: dimension "
                f"{g.dim()} and tensor.size[0] = {g.sizes[0] if g.dim() else 1}"
            )
    elif g.numel() != 1:
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(g.sizes)}")
    acc = _acc(x.dtype)

    def fill(out: Array) -> None:
        index, valid = _nll_targets(target, ignore_index, classes)
        weights = _nll_weights(weight, index, valid, acc)
        scale = _values(grad_output, acc).reshape(-1)
        if weights is not None:
            scale = weights * scale
        if reduction == _REDUCTION_MEAN:
            scale = scale / _values(total_weight, acc).reshape(())
        keep = valid if weights is None else weights != 0
        out.fill(0)
        out.reshape(index.size, classes)[np.arange(index.size), index] = (
            -scale if keep is None else np.where(keep, -scale, 0.0)
        )

    return _emit_into(x.sizes, x.dtype, device, fill)


def _binary_loss_dtype(op: str, tensors: Sequence[Tensor]) -> dtype:
    d = tensors[0]._impl.dtype
    for t in tensors[1:]:
        d = promote_types(d, t._impl.dtype)
    _check_floating(op, d)
    return d


@kernel("mse_loss")
def mse_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN) -> Tensor:
    _check_reduction(reduction)
    d = _binary_loss_dtype("mse_cpu", (self, target))
    device = same_device("mse_loss", (self, target))
    sizes = broadcast_shapes(self._impl.sizes, target._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Any:
        diff = _values(self, compute) - _values(target, compute)
        return _reduce(np.broadcast_to(diff * diff, sizes), reduction)

    return _emit(_reduced_sizes(sizes, reduction), d, device, values)


@kernel("mse_loss_backward")
def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    _check_reduction(reduction)
    d = _binary_loss_dtype("mse_backward_cpu", (self, target))
    device = same_device("mse_loss_backward", (grad_output, self, target))
    sizes = broadcast_shapes(broadcast_shapes(self._impl.sizes, target._impl.sizes), grad_output._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Array:
        scale = 2.0 * reduction_grad_scale(reduction, self._impl.numel())
        diff = _values(self, compute) - _values(target, compute)
        return np.broadcast_to(scale * diff * _values(grad_output, compute), sizes)

    return _emit(sizes, d, device, values)


def _check_bce_args(op: str, self: Tensor, target: Tensor, weight: Tensor | None) -> Device:
    x = self._impl
    tensors = (self, target) if weight is None else (self, target, weight)
    device = same_device(op, tensors)
    _check_floating("binary_cross_entropy", x.dtype)
    for t in tensors[1:]:
        if t._impl.dtype is not x.dtype:
            raise RuntimeError(
                f"Found dtype {t._impl.dtype.scalar_type_name} but expected {x.dtype.scalar_type_name}"
            )
    for t in tensors[1:]:
        broadcast_shapes(x.sizes, t._impl.sizes)
    return device


BCE_LOG_FLOOR: Final = -100.0
"""Where binary cross entropy floors its logarithms (as PyTorch does)."""
BCE_EPSILON: Final = 1e-12
"""The least x (1 - x) binary cross entropy's gradient divides by."""


@kernel("binary_cross_entropy")
def binary_cross_entropy(
    self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _REDUCTION_MEAN
) -> Tensor:
    """-w (t log(x) + (1 - t) log(1 - x)), each logarithm floored at -100 (as in PyTorch)."""
    _check_reduction(reduction)
    device = _check_bce_args("binary_cross_entropy", self, target, weight)
    x = self._impl

    def values() -> Any:
        acc = _acc(x.dtype)
        p, t = _values(self, acc), np.broadcast_to(_values(target, acc), x.sizes)
        if ((p < 0) | (p > 1)).any():
            raise RuntimeError("all elements of input should be between 0 and 1")
        loss = -(t * np.maximum(np.log(p), BCE_LOG_FLOOR) + (1 - t) * np.maximum(np.log1p(-p), BCE_LOG_FLOOR))
        if weight is not None:
            loss = loss * _values(weight, acc)
        return _reduce(loss, reduction)

    return _emit(_reduced_sizes(x.sizes, reduction), x.dtype, device, values)


@kernel("binary_cross_entropy_backward")
def binary_cross_entropy_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
) -> Tensor:
    """grad * w (x - t) / max(x (1 - x), 1e-12), over numel for a mean."""
    _check_reduction(reduction)
    device = _check_bce_args("binary_cross_entropy_backward", self, target, weight)
    same_device("binary_cross_entropy_backward", (grad_output, self))
    x = self._impl

    def values() -> Array:
        acc = _acc(x.dtype)
        p, t = _values(self, acc), _values(target, acc)
        grad = _values(grad_output, acc) * reduction_grad_scale(reduction, x.numel())
        result = grad * (p - t) / np.maximum((1 - p) * p, BCE_EPSILON)
        if weight is not None:
            result = result * _values(weight, acc)
        return np.broadcast_to(result, x.sizes)

    return _emit(x.sizes, x.dtype, device, values)


def _log_sigmoid(x: Array) -> Array:
    """log(sigmoid(x)) without overflow: -(max(-x, 0) + log1p(exp(-|x|)))."""
    return -(np.maximum(-x, 0.0) + np.log1p(np.exp(-np.abs(x))))


@kernel("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
) -> Tensor:
    """(1 - t) x - (1 + (pos_weight - 1) t) log(sigmoid(x)), times weight."""
    _check_reduction(reduction)
    tensors = [t for t in (self, target, weight, pos_weight) if t is not None]
    device = same_device("binary_cross_entropy_with_logits", tuple(tensors))
    sizes = broadcast_shapes(target._impl.sizes, self._impl.sizes)
    if pos_weight is not None:
        sizes = broadcast_shapes(pos_weight._impl.sizes, sizes)
    if weight is not None:
        sizes = broadcast_shapes(sizes, weight._impl.sizes)
    d = _binary_loss_dtype("log_sigmoid_cpu", tensors)

    def values() -> Any:
        acc = _acc(d)
        x, t = _values(self, acc), _values(target, acc)
        log_weight = 1.0 if pos_weight is None else (_values(pos_weight, acc) - 1.0) * t + 1.0
        loss = (1.0 - t) * x - log_weight * _log_sigmoid(x)
        if weight is not None:
            loss = loss * _values(weight, acc)
        return _reduce(np.broadcast_to(loss, sizes), reduction)

    return _emit(_reduced_sizes(sizes, reduction), d, device, values)


nll_loss = _first_output("nll_loss", "nll_loss_forward")


@kernel("nll_loss_nd")
def nll_loss_nd(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
    ignore_index: int = -100,
) -> Tensor:
    """nll_loss over inputs of any rank: (N, C, d1, ...) with targets (N, d1, ...) become rows of
    classes (N * d1 * ..., C); an unreduced loss takes the targets' shape again."""
    sizes, target_sizes = self._impl.sizes, target._impl.sizes
    if not sizes:
        raise ValueError(f"Expected 1 or more dimensions (got {len(sizes)})")
    if len(sizes) != 1 and (not target_sizes or sizes[0] != target_sizes[0]):
        raise ValueError(
            f"Expected input batch_size ({sizes[0]}) to match target batch_size "
            f"({target_sizes[0] if target_sizes else 1})."
        )
    if len(sizes) <= 2:
        return nll_loss(self, target, weight, reduction, ignore_index)
    expected = (sizes[0], *sizes[2:])
    if target_sizes != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target_sizes)}")
    rows = aten_op("reshape.default")(aten_op("movedim.int")(self, 1, -1), [-1, sizes[1]])
    loss = nll_loss(rows, aten_op("reshape.default")(target, [-1]), weight, reduction, ignore_index)
    if reduction == _REDUCTION_NONE:
        loss = aten_op("reshape.default")(loss, list(expected))
    return loss


def _class_weights(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """A per-class weight shaped to broadcast along the class dimension of an `ndim`-d input."""
    shape = [1] * ndim
    shape[class_dim] = weight._impl.numel()
    result: Tensor = aten_op("reshape.default")(weight, shape)
    return result


def _cross_entropy_probabilities(
    log_probs: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    label_smoothing: float,
    class_dim: int,
) -> Tensor:
    classes = log_probs._impl.sizes[class_dim]
    if label_smoothing > 0:
        target = aten_op("add.Scalar")(
            aten_op("mul.Scalar")(target, 1 - label_smoothing), label_smoothing / classes
        )
    products = aten_op("mul.Tensor")(log_probs, target)
    if weight is not None:
        products = aten_op("mul.Tensor")(products, _class_weights(weight, log_probs._impl.dim(), class_dim))
    if reduction == _REDUCTION_NONE:
        loss: Tensor = aten_op("neg.default")(aten_op("sum.dim_IntList")(products, [class_dim]))
        return loss
    total: Tensor = aten_op("neg.default")(aten_op("sum.default")(products))
    if reduction == _REDUCTION_SUM:
        return total
    mean: Tensor = aten_op("div.Scalar")(total, log_probs._impl.numel() // classes)
    return mean


def _cross_entropy_smoothed(
    log_probs: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    label_smoothing: float,
    class_dim: int,
) -> Tensor:
    """(1 - s) * nll + s / C * (the loss against uniform class probabilities, 0 where the target is
    ignored; a mean divides by the number, or the total weight, of the targets not ignored)."""
    classes = log_probs._impl.sizes[class_dim]
    nll = nll_loss_nd(log_probs, target, weight, reduction, ignore_index)
    ignored = aten_op("eq.Scalar")(target, ignore_index)
    weighted = log_probs
    if weight is not None:
        weighted = aten_op("mul.Tensor")(log_probs, _class_weights(weight, log_probs._impl.dim(), class_dim))
    smooth = aten_op("masked_fill.Scalar")(
        aten_op("neg.default")(aten_op("sum.dim_IntList")(weighted, [class_dim])), ignored, 0.0
    )
    if reduction == _REDUCTION_SUM:
        smooth = aten_op("sum.default")(smooth)
    elif reduction == _REDUCTION_MEAN:
        kept = aten_op("logical_not.default")(ignored)
        if weight is None:
            count = aten_op("sum.default")(kept)
        else:
            count = aten_op("sum.default")(
                aten_op("gather.default")(weight, 0, aten_op("masked_select.default")(target, kept))
            )
        smooth = aten_op("div.Tensor")(aten_op("sum.default")(smooth), count)
    result: Tensor = aten_op("add.Tensor")(
        aten_op("mul.Scalar")(nll, 1 - label_smoothing),
        aten_op("mul.Scalar")(smooth, label_smoothing / classes),
    )
    return result


@kernel("cross_entropy_loss")
def cross_entropy_loss(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dimension (1, or 0 for an unbatched input), then nll_loss for
    class indices or the cross entropy with class probabilities (a target of the input's shape)."""
    class_dim = 0 if self._impl.dim() == 1 else 1
    log_probs = aten_op("_log_softmax.default")(self, class_dim, False) if self._impl.dim() else self
    if self._impl.sizes == target._impl.sizes:
        if not target._impl.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target._impl.dtype.scalar_type_name}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_probabilities(log_probs, target, weight, reduction, label_smoothing, class_dim)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if label_smoothing > 0:
        return _cross_entropy_smoothed(
            log_probs, target, weight, reduction, ignore_index, label_smoothing, class_dim
        )
    return nll_loss_nd(log_probs, target, weight, reduction, ignore_index)


@kernel("l1_loss")
def l1_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN) -> Tensor:
    loss: Tensor = aten_op("abs.default")(aten_op("sub.Tensor")(self, target))
    if reduction == _REDUCTION_MEAN:
        mean: Tensor = aten_op("mean.default")(loss)
        return mean
    if reduction == _REDUCTION_SUM:
        total: Tensor = aten_op("sum.default")(loss)
        return total
    return loss


# ---- padding ------------------------------------------------------------------------------------


@kernel("constant_pad_nd")
def constant_pad_nd(self: Tensor, pad: Sequence[int], value: Number = 0) -> Tensor:
    """Pad (or, for negative amounts, crop) the last len(pad) / 2 dimensions: pad[0] and pad[1]
    before and after the last dimension, pad[2] and pad[3] around the one before, ..."""
    impl = self._impl
    pads = list(pad)
    if len(pads) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pads)}")
    if len(pads) // 2 > impl.dim():
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
            f"{len(pads)}while the input has {impl.dim()}dimensions."
        )
    sizes = list(impl.sizes)
    source: list[slice] = [slice(None)] * impl.dim()
    target: list[slice] = [slice(None)] * impl.dim()
    for i in range(len(pads) // 2):
        axis = impl.dim() - 1 - i
        before, after = pads[2 * i], pads[2 * i + 1]
        size = sizes[axis]
        if size + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        sizes[axis] = size + before + after
        kept = size + min(before, 0) + min(after, 0)
        source[axis] = slice(max(-before, 0), max(-before, 0) + kept)
        target[axis] = slice(max(before, 0), max(before, 0) + kept)
    fill = checked_scalar(value, impl.dtype)

    def values() -> Array:
        out = np.full(sizes, fill, dtype=impl.dtype.numpy_dtype)
        out[tuple(target)] = array(self)[tuple(source)]
        return out

    return _emit(tuple(sizes), impl.dtype, impl.device, values)


def _pad2d_args(op: str, self: Tensor, padding: IntList, reflect: bool) -> tuple[int, int, int, int]:
    """PyTorch's reflection/replication_pad2d checks; (left, right, top, bottom)."""
    pads = _sized_list(padding, 4)
    if len(pads) != 4:
        raise RuntimeError(
            f"padding size is expected to be 4, but got: {len(pads)}"
            if reflect
            else "padding size is expected to be 4"
        )
    sizes = self._impl.sizes
    if len(sizes) not in (3, 4) or 0 in sizes[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(sizes)}"
        )
    left, right, top, bottom = pads
    if reflect:
        for argument, axis, before, after in (
            (4, len(sizes) - 1, left, right),
            (6, len(sizes) - 2, top, bottom),
        ):
            if before >= sizes[axis] or after >= sizes[axis]:
                raise RuntimeError(
                    f"Argument #{argument}: Padding size should be less than the corresponding input "
                    "dimension, "
                    f"but got: padding ({before}, {after}) at dimension {axis} of input {list(sizes)}"
                )
    out_h, out_w = sizes[-2] + top + bottom, sizes[-1] + left + right
    if 0 <= out_h < 1 or 0 <= out_w < 1:
        raise RuntimeError(
            f"input (H: {sizes[-2]}, W: {sizes[-1]}) is too small. Calculated output H: {out_h} W: {out_w}"
        )
    if self._impl.dtype is bool_:
        raise not_implemented(op, bool_)
    return left, right, top, bottom


def _pad_index(size: int, before: int, after: int, reflect: bool) -> Array:
    """For each output position along a padded dimension, the input position it copies."""
    positions = np.arange(-before, size + after)
    if reflect:
        positions = np.abs(positions)
        return np.where(positions > size - 1, 2 * (size - 1) - positions, positions)
    return np.clip(positions, 0, size - 1)


def pad_gather(a: Array, pads: Sequence[int], reflect: bool) -> Array:
    """`a` padded (or cropped) on its last len(pads) / 2 dimensions, (before, after) of the last
    dimension first: each output position copies the input position `_pad_index` gives."""
    for i in range(len(pads) // 2):
        axis = a.ndim - 1 - i
        a = np.take(a, _pad_index(a.shape[axis], pads[2 * i], pads[2 * i + 1], reflect), axis=axis)
    return a


def pad_scatter(grads: Array, sizes: Sizes, pads: Sequence[int], reflect: bool) -> Array:
    """The gradient of `pad_gather` for an input of `sizes`: each element of `grads` added at
    the input position it copies."""
    for i in range(len(pads) // 2):
        axis = grads.ndim - 1 - i
        moved = np.moveaxis(grads, axis, 0)
        result = np.zeros((sizes[axis], *moved.shape[1:]), dtype=grads.dtype)
        np.add.at(result, _pad_index(sizes[axis], pads[2 * i], pads[2 * i + 1], reflect), moved)
        grads = np.moveaxis(result, 0, axis)
    return grads


def _pad2d(op: str, reflect: bool) -> None:
    """Register `op` (reflection_pad2d / replication_pad2d) and its backward operator."""

    def forward(self: Tensor, padding: IntList) -> Tensor:
        left, right, top, bottom = _pad2d_args(op, self, padding, reflect)
        impl = self._impl
        sizes = (*impl.sizes[:-2], impl.sizes[-2] + top + bottom, impl.sizes[-1] + left + right)

        def values() -> Array:
            return pad_gather(array(self), (left, right, top, bottom), reflect)

        return _emit(sizes, impl.dtype, impl.device, values)

    def backward(grad_output: Tensor, self: Tensor, padding: IntList) -> Tensor:
        left, right, top, bottom = _pad2d_args(op, self, padding, reflect)
        impl, g = self._impl, grad_output._impl
        device = same_device(f"{op}_backward", (grad_output, self))
        expected_h, expected_w = impl.sizes[-2] + top + bottom, impl.sizes[-1] + left + right
        if g.dim() != impl.dim() or g.sizes[-1] != expected_w:
            raise RuntimeError(
                f"gradOutput width unexpected. Expected: {expected_w}, Got: {g.sizes[-1] if g.sizes else 0}"
            )
        if g.sizes[-2] != expected_h:
            raise RuntimeError(f"gradOutput height unexpected. Expected: {expected_h}, Got: {g.sizes[-2]}")

        return _emit(
            impl.sizes,
            impl.dtype,
            device,
            lambda: pad_scatter(_values(grad_output), impl.sizes, (left, right, top, bottom), reflect),
        )

    forward.__name__ = forward.__qualname__ = op
    backward.__name__ = backward.__qualname__ = f"{op}_backward"
    kernel(op)(forward)
    kernel(f"{op}_backward")(backward)


_pad2d("reflection_pad2d", reflect=True)
_pad2d("replication_pad2d", reflect=False)

# ---- dropout ------------------------------------------------------------------------------------


def dropout_scale(p: float, train: bool | None = None) -> float:
    """What native_dropout multiplies the kept elements by: 1 / (1 - p) while training (train
    None or True; 0 for p = 1), 1 otherwise (also used by the derivative formula of native_dropout)."""
    if train is not None and not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@kernel("native_dropout")
def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """Zero each element with probability p and scale the others by 1 / (1 - p); the mask holds
    the kept elements.  The mask is `bernoulli(1 - p)` from the default generator, drawn in the
    element order PyTorch's CPU kernel uses, so a seed gives PyTorch's mask."""
    impl = input._impl
    training = train is None or train
    if not training or impl.numel() == 0:
        return (
            _emit(impl.sizes, impl.dtype, impl.device, lambda: array(input)),
            _emit(impl.sizes, bool_, impl.device, lambda: True),
        )
    if impl.dtype not in _FLOATING:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {impl.dtype.scalar_type_name}"
        )
    kept = 1.0 - p
    mask = new_tensor(impl.sizes, bool_, impl.device)
    out = new_tensor(impl.sizes, impl.dtype, impl.device)
    if is_meta(impl.device):
        return out, mask
    draws = rng.bernoulli(rng.default_generator(), impl.numel(), kept, np.float64).astype(np.bool_)
    flat = array(mask).reshape(-1)
    strides = strides_for_memory_format(impl, MemoryFormat.preserve_format)
    flat[rng.fill_order(impl.sizes, strides)] = draws
    compute = impl.dtype.opmath_numpy
    array(out)[...] = _values(input) * array(mask) * compute.type(dropout_scale(p))
    return out, mask


@kernel("native_dropout_backward")
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    g = grad_output._impl
    device = same_device("native_dropout_backward", (grad_output, mask))
    sizes = broadcast_shapes(g.sizes, mask._impl.sizes)
    _check_floating("native_dropout_backward", g.dtype)
    compute = g.dtype.opmath_numpy
    return _emit(
        sizes,
        g.dtype,
        device,
        lambda: _values(grad_output) * array(mask).astype(compute) * compute.type(scale),
    )


@kernel("dropout")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """native_dropout while training; the input itself otherwise (and for p = 0)."""
    if p == 0 or not train or input._impl.numel() == 0:
        return input
    if p == 1:
        zeroed: Tensor = aten_op("mul.Scalar")(input, 0.0)
        return zeroed
    result: Tensor = aten_op("native_dropout.default")(input, p, train)[0]
    return result


# ---- softmax by dtype, linear -------------------------------------------------------------------


@kernel("softmax_int")
def softmax_int(self: Tensor, dim: int, dtype: dtype | None = None) -> Tensor:
    converted = self if dtype is None else aten_op("to.dtype")(self, dtype)
    result: Tensor = aten_op("_softmax.default")(converted, dim, False)
    return result


@kernel("log_softmax_int")
def log_softmax_int(self: Tensor, dim: int, dtype: dtype | None = None) -> Tensor:
    converted = self if dtype is None else aten_op("to.dtype")(self, dtype)
    result: Tensor = aten_op("_log_softmax.default")(converted, dim, False)
    return result


@kernel("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias: one addmm for a matrix input with a bias."""
    transposed = aten_op("t.default")(weight)
    if bias is not None and input._impl.dim() == 2:
        fused: Tensor = aten_op("addmm.default")(bias, input, transposed)
        return fused
    result: Tensor = aten_op("matmul.default")(input, transposed)
    return result if bias is None else aten_op("add.Tensor")(result, bias)
