"""Activation and loss kernels beyond nn.py's: leaky_relu, elu (celu, selu), softplus, hardtanh
(relu6), hardsigmoid, hardswish, mish, log_sigmoid, prelu, glu, softshrink, hardshrink and
threshold, each with the backward operator its derivative calls; smooth_l1_loss, huber_loss and
soft_margin_loss with theirs; and the CompositeImplicitAutograd operators PyTorch builds from other
operators (relu6, selu, log_sigmoid, prelu, kl_div, margin_ranking_loss, hinge_embedding_loss,
cosine_embedding_loss, triplet_margin_loss, poisson_nll_loss, cosine_similarity,
pairwise_distance), which call the others through the dispatcher so autograd records their pieces.

Pointwise kernels are structured (functional, in-place and out= from one meta and one impl
function) where PyTorch has those variants; they compute in the opmath type (float32 for float16)
and refuse other dtypes with the name of PyTorch's CPU kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from framework._tensor import Tensor
from framework.autograd.grad_mode import no_grad
from framework.c10.dtypes import bool_, dtype, numpy_finfo, promote_types, uint8
from framework.ops._iter import Number, broadcast_shapes
from framework.ops.kernels._registry import (
    TensorMeta,
    aten_op,
    complex_clamp,
    kernel,
    not_implemented,
    register_variants,
    same_device,
    structured,
    wrap_dim,
)
from framework.ops.kernels.linalg import Array
from framework.ops.kernels.nn import (
    _binary_loss_dtype,
    _check_floating,
    _check_reduction,
    _emit,
    _emit_many,
    _pointwise_backward_meta,
    _reduce,
    _reduced_sizes,
    _values,
    reduction_grad_scale,
)

_REDUCTION_NONE: Final = 0
_REDUCTION_MEAN: Final = 1
_REDUCTION_SUM: Final = 2
SELU_ALPHA: Final = 1.6732632423543772848170429916717
SELU_SCALE: Final = 1.0507009873554804934193349852946
_ONE_SIXTH_FLOAT32: Final = float(np.float32(1.0 / 6.0))


def real_scalar(value: Number) -> float:
    """A Scalar argument as the double PyTorch's kernels read it (a complex one only when its
    imaginary part is 0; also used by the activation derivative formulas)."""
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return value.real
    return float(value)


def _sigmoid(x: Array) -> Array:
    """1 / (1 + exp(-x)) without overflow warnings (exp(-x) may be inf: the result is then 0)."""
    with np.errstate(over="ignore"):
        result: Array = 1.0 / (1.0 + np.exp(-x))
    return result


def _softplus(x: Array) -> Array:
    """log(1 + exp(x)), stably."""
    result: Array = np.logaddexp(0.0, x)
    return result


# ---- pointwise activations ----------------------------------------------------------------------


def _floating_meta(op: str) -> Callable[..., TensorMeta]:
    """The meta function of a unary floating-point activation (`op`: PyTorch's kernel name)."""

    def meta(self: Tensor, *scalars: Any) -> TensorMeta:
        impl = self._impl
        _check_floating(op, impl.dtype)
        return TensorMeta(impl.sizes, impl.dtype, impl.device)

    return meta


def _activation(name: str, op: str, fn: Callable[..., Array], *, inplace: bool = True) -> None:
    """Register `name`, `name_` (unless not `inplace`: PyTorch has none) and `name_out`
    computing `fn(x, *scalars)` over float inputs."""

    def impl(out: Array, self: Tensor, *scalars: Number) -> None:
        out[...] = fn(_values(self), *(real_scalar(s) for s in scalars))

    structured(name, _floating_meta(op), impl, inplace=inplace)


def _leaky_relu(x: Array, negative_slope: float = 0.01) -> Array:
    return np.where(x > 0, x, x * negative_slope)


def _elu(x: Array, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Array:
    negative = np.minimum(x, 0.0)
    return np.where(x > 0, x * scale, np.expm1(negative * input_scale) * (alpha * scale))


def _softplus_beta(x: Array, beta: float = 1.0, threshold: float = 20.0) -> Array:
    scaled = x * beta
    return np.where(scaled > threshold, x, _softplus(scaled) / beta)


def _hardsigmoid(x: Array) -> Array:
    return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0


def _hardswish(x: Array) -> Array:
    return x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0


def _mish(x: Array) -> Array:
    return x * np.tanh(_softplus(x))


def _hardshrink(x: Array, lambd: float = 0.5) -> Array:
    return np.where((x >= -lambd) & (x <= lambd), 0.0, x)


def _softshrink(x: Array, lambd: float = 0.5) -> Array:
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0))


_activation("leaky_relu", "leaky_relu_cpu", _leaky_relu)
_activation("elu", "elu_cpu", _elu)
_activation("softplus", "softplus_cpu", _softplus_beta, inplace=False)
_activation("hardsigmoid", "hardsigmoid_cpu", _hardsigmoid)
_activation("hardswish", "hardswish_cpu", _hardswish)
_activation("mish", "mish_cpu", _mish)
_activation("hardshrink", "hardshrink_cpu", _hardshrink, inplace=False)


def _softshrink_meta(self: Tensor, lambd: Number = 0.5) -> TensorMeta:
    """lambd must lie between 0 and the largest value of the input's dtype."""
    impl = self._impl
    _check_floating("softshrink_check", impl.dtype)
    value, limit = real_scalar(lambd), float(numpy_finfo(impl.dtype.numpy_dtype).max)
    if not 0 <= value <= limit:
        raise RuntimeError(
            f"lambda must be in range [0, {limit:g}] for input dtype {impl.dtype.scalar_type_name}, "
            f"but found {value:g}"
        )
    return TensorMeta(impl.sizes, impl.dtype, impl.device)


def _softshrink_impl(out: Array, self: Tensor, lambd: Number = 0.5) -> None:
    out[...] = _softshrink(_values(self), real_scalar(lambd))


structured("softshrink", _softshrink_meta, _softshrink_impl, inplace=False)


def _hardtanh_meta(self: Tensor, min_val: Number = -1, max_val: Number = 1) -> TensorMeta:
    """hardtanh takes integer inputs too (it is a clamp), not bool or complex ones."""
    impl = self._impl
    if impl.dtype is bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if impl.dtype.is_complex:
        raise complex_clamp()
    if impl.dtype is uint8 and min(real_scalar(min_val), real_scalar(max_val)) < 0:
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return TensorMeta(impl.sizes, impl.dtype, impl.device)


def _threshold_meta(self: Tensor, threshold: Number, value: Number) -> TensorMeta:
    """threshold takes integer inputs too, not bool or complex ones."""
    impl = self._impl
    if impl.dtype is bool_ or impl.dtype.is_complex:
        raise not_implemented("threshold_cpu", impl.dtype)
    return TensorMeta(impl.sizes, impl.dtype, impl.device)


def _hardtanh_impl(out: Array, self: Tensor, min_val: Number = -1, max_val: Number = 1) -> None:
    x = _values(self)
    low, high = (np.array(v).astype(x.dtype) for v in (min_val, max_val))
    out[...] = np.minimum(np.maximum(x, low), high)


def _threshold_impl(out: Array, self: Tensor, threshold: Number, value: Number) -> None:
    x = _values(self)
    limit, replacement = (np.array(v).astype(x.dtype) for v in (threshold, value))
    out[...] = np.where(x <= limit, replacement, x)


structured("hardtanh", _hardtanh_meta, _hardtanh_impl)
structured("threshold", _threshold_meta, _threshold_impl)


@kernel("relu6")
def relu6(self: Tensor) -> Tensor:
    result: Tensor = aten_op("hardtanh.default")(self, 0, 6)
    return result


@kernel("relu6_")
def relu6_(self: Tensor) -> Tensor:
    result: Tensor = aten_op("hardtanh_.default")(self, 0, 6)
    return result


def _check_celu_alpha(alpha: Number) -> float:
    if real_scalar(alpha) == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / real_scalar(alpha)


def _celu(self: Tensor, alpha: Number = 1.0) -> Tensor:
    result: Tensor = aten_op("elu.default")(self, alpha, 1, _check_celu_alpha(alpha))
    return result


def _celu_(self: Tensor, alpha: Number = 1.0) -> Tensor:
    result: Tensor = aten_op("elu_.default")(self, alpha, 1, _check_celu_alpha(alpha))
    return result


def _celu_out(self: Tensor, alpha: Number = 1.0, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("elu.out")(self, alpha, 1, _check_celu_alpha(alpha), out=out)
    return result


register_variants("celu", {"": _celu, "_": _celu_, "_out": _celu_out})


@kernel("selu")
def selu(self: Tensor) -> Tensor:
    result: Tensor = aten_op("elu.default")(self, SELU_ALPHA, SELU_SCALE)
    return result


@kernel("selu_")
def selu_(self: Tensor) -> Tensor:
    result: Tensor = aten_op("elu_.default")(self, SELU_ALPHA, SELU_SCALE)
    return result


# ---- backward operators of the pointwise activations --------------------------------------------


def _pointwise_backward(
    op: str, grad_output: Tensor, self: Tensor, derivative: Callable[[Array, Array], Array]
) -> Tensor:
    """`derivative(grad_output, self)` over the broadcast operands, in the opmath type."""
    m = _pointwise_backward_meta(op, grad_output, self)
    compute = m.dtype.opmath_numpy
    return _emit(
        m.sizes,
        m.dtype,
        m.device,
        lambda: derivative(_values(grad_output, compute), _values(self, compute)),
    )


_NEGATIVE_SLOPE_INPLACE: Final = (
    "In-place {} backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version "
    "instead."
)


@kernel("leaky_relu_backward")
def leaky_relu_backward(
    grad_output: Tensor, self: Tensor, negative_slope: Number, self_is_result: bool
) -> Tensor:
    """grad where self > 0, grad * negative_slope elsewhere (the same from leaky_relu_'s result,
    which has the input's sign when the slope is not negative)."""
    slope = real_scalar(negative_slope)
    if self_is_result and slope < 0:
        raise RuntimeError(
            _NEGATIVE_SLOPE_INPLACE.format("leakyReLu")
            + " File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place "
            "leakRelu backward calculation with negative slope"
        )
    return _pointwise_backward(
        "leaky_relu_backward_cpu", grad_output, self, lambda g, x: np.where(x > 0, g, g * slope)
    )


@kernel("elu_backward")
def elu_backward(
    grad_output: Tensor,
    alpha: Number,
    scale: Number,
    input_scale: Number,
    is_result: bool,
    self_or_result: Tensor,
) -> Tensor:
    """grad * scale for positive inputs; below, grad * input_scale * alpha * scale * exp(x *
    input_scale), which from the result r is grad * input_scale * (r + alpha * scale)."""
    a, s, i = real_scalar(alpha), real_scalar(scale), real_scalar(input_scale)
    if is_result and a < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format("elu"))

    def derivative(g: Array, x: Array) -> Array:
        below = g * i * (x + a * s) if is_result else g * (i * a * s) * np.exp(np.minimum(x, 0.0) * i)
        return np.where(x > 0, g * s, below)

    return _pointwise_backward("elu_backward_cpu", grad_output, self_or_result, derivative)


@kernel("softplus_backward")
def softplus_backward(grad_output: Tensor, self: Tensor, beta: Number, threshold: Number) -> Tensor:
    """grad * sigmoid(beta x) where beta x <= threshold, grad where softplus is linear."""
    b, limit = real_scalar(beta), real_scalar(threshold)

    def derivative(g: Array, x: Array) -> Array:
        scaled = x * b
        return np.where(scaled > limit, g, g * _sigmoid(scaled))

    return _pointwise_backward("softplus_backward_cpu", grad_output, self, derivative)


@kernel("hardtanh_backward")
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Number, max_val: Number) -> Tensor:
    """grad strictly between min_val and max_val, 0 elsewhere."""
    low, high = real_scalar(min_val), real_scalar(max_val)
    return _pointwise_backward(
        "hardshrink_backward_cpu", grad_output, self, lambda g, x: np.where((x <= low) | (x >= high), 0.0, g)
    )


@kernel("hardsigmoid_backward")
def hardsigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """grad / 6 strictly between -3 and 3, 0 elsewhere (1/6 rounded to float32, as PyTorch's
    kernel has it, for every dtype)."""
    return _pointwise_backward(
        "hardsigmoid_backward",
        grad_output,
        self,
        lambda g, x: np.where((x > -3) & (x < 3), g * _ONE_SIXTH_FLOAT32, 0.0),
    )


@kernel("hardswish_backward")
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """0 below -3, grad (x / 3 + 1/2) up to 3, grad above."""

    def derivative(g: Array, x: Array) -> Array:
        return np.where(x < -3, 0.0, np.where(x <= 3, g * (x / 3.0 + 0.5), g))

    return _pointwise_backward("hardswish_backward_cpu", grad_output, self, derivative)


@kernel("mish_backward")
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """grad (tanh(softplus(x)) + x sigmoid(x) (1 - tanh(softplus(x))^2))."""

    def derivative(g: Array, x: Array) -> Array:
        t = np.tanh(_softplus(x))
        return g * (t + x * _sigmoid(x) * (1.0 - t * t))

    return _pointwise_backward("mish_backward_cpu", grad_output, self, derivative)


def _shrink_backward(grad_output: Tensor, self: Tensor, lambd: Number) -> Tensor:
    """grad outside [-lambd, lambd], 0 inside (softshrink's and hardshrink's backward)."""
    limit = real_scalar(lambd)
    return _pointwise_backward(
        "shrink_backward_cpu", grad_output, self, lambda g, x: np.where((x >= -limit) & (x <= limit), 0.0, g)
    )


register_variants("softshrink_backward", {"": _shrink_backward})


@kernel("hardshrink_backward")
def hardshrink_backward(grad_out: Tensor, self: Tensor, lambd: Number) -> Tensor:
    return _shrink_backward(grad_out, self, lambd)


# ---- log_sigmoid --------------------------------------------------------------------------------


@kernel("log_sigmoid_forward")
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, ...]:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), and the buffer exp(-|x|)."""
    impl = self._impl
    _check_floating("log_sigmoid_cpu", impl.dtype)

    def values() -> tuple[Array, Array]:
        x = _values(self)
        buffer = np.exp(-np.abs(x))
        return np.minimum(x, 0.0) - np.log1p(buffer), buffer

    spec = (impl.sizes, impl.dtype)
    return _emit_many((spec, spec), impl.device, values)


@kernel("log_sigmoid")
def log_sigmoid(self: Tensor) -> Tensor:
    result: Tensor = aten_op("log_sigmoid_forward.default")(self)[0]
    return result


@kernel("log_sigmoid_backward")
def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    """grad * sigmoid(-x), which is grad / (1 + z) for negative x and grad z / (1 + z) otherwise,
    z = exp(-|x|).  z is computed from `self`, as PyTorch's CUDA kernel does: the buffer (checked
    for its device) only carries what log_sigmoid_forward returned."""
    same_device("log_sigmoid_backward", (grad_output, self, buffer))

    def derivative(g: Array, x: Array) -> Array:
        z = np.exp(-np.abs(x))
        return g * np.where(x < 0, 1.0, z) / (1.0 + z)

    return _pointwise_backward("log_sigmoid_backward_cpu", grad_output, self, derivative)


# ---- prelu --------------------------------------------------------------------------------------


def _prelu_dtype(op: str, self: Tensor, weight: Tensor) -> dtype:
    d = promote_types(self._impl.dtype, weight._impl.dtype)
    _check_floating(op, d)
    return d


@kernel("_prelu_kernel")
def prelu_kernel(self: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, weight * x elsewhere (weight broadcast against x)."""
    d = _prelu_dtype("prelu_cpu", self, weight)
    device = same_device("_prelu_kernel", (self, weight))
    sizes = broadcast_shapes(self._impl.sizes, weight._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Array:
        x, w = _values(self, compute), _values(weight, compute)
        return np.where(x > 0, x, w * x)

    return _emit(sizes, d, device, values)


@kernel("_prelu_kernel_backward")
def prelu_kernel_backward(grad_output: Tensor, self: Tensor, weight: Tensor) -> tuple[Tensor, ...]:
    """The input's gradient (grad, or weight * grad where x <= 0) and the weight's (x * grad where
    x <= 0), both of the broadcast shape (autograd sums the weight's down)."""
    d = _prelu_dtype("prelu_backward_cpu", self, weight)
    device = same_device("_prelu_kernel_backward", (grad_output, self, weight))
    sizes = broadcast_shapes(broadcast_shapes(self._impl.sizes, weight._impl.sizes), grad_output._impl.sizes)
    compute = d.opmath_numpy

    def values() -> tuple[Array, Array]:
        g, x, w = (_values(t, compute) for t in (grad_output, self, weight))
        positive = x > 0
        return np.where(positive, g, w * g), np.where(positive, 0.0, x * g)

    return _emit_many(((sizes, d), (sizes, d)), device, values)


@kernel("prelu")
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    """_prelu_kernel with a per-channel weight viewed to broadcast along dimension 1 (a weight of
    one element applies to every channel)."""
    x, w = self._impl, weight._impl
    if x.dim() == 0:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if w.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.dim()}")
    if x.dtype is not w.dtype:
        names = f"{x.dtype.scalar_type_name} and {w.dtype.scalar_type_name}"
        raise RuntimeError(f"prelu: Type promoting not supported. Got {names}")
    channels = x.sizes[1] if x.dim() >= 2 else 1
    if w.numel() != 1 and w.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{w.numel()} and channel size = {channels}."
        )
    if x.dim() >= 2:
        shape = [1] * x.dim()
        shape[1] = w.numel()
        weight = aten_op("view.default")(weight, shape) if w.numel() != 1 or w.dim() else weight
    result: Tensor = aten_op("_prelu_kernel.default")(self, weight)
    return result


# ---- glu ----------------------------------------------------------------------------------------


def _glu_dim(self: Tensor, dim: int) -> int:
    impl = self._impl
    if impl.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = wrap_dim(dim, impl.dim())
    if impl.sizes[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {impl.sizes[axis]}")
    return axis


def _halves(x: Array, axis: int) -> tuple[Array, Array]:
    a, b = np.split(x, 2, axis=axis)
    return a, b


def _glu_meta(self: Tensor, dim: int = -1) -> TensorMeta:
    axis = _glu_dim(self, dim)
    impl = self._impl
    _check_floating("glu_cpu", impl.dtype)
    sizes = list(impl.sizes)
    sizes[axis] //= 2
    return TensorMeta(tuple(sizes), impl.dtype, impl.device)


def _glu_impl(out: Array, self: Tensor, dim: int = -1) -> None:
    a, b = _halves(_values(self), wrap_dim(dim, self._impl.dim()))
    out[...] = a * _sigmoid(b)


structured("glu", _glu_meta, _glu_impl, inplace=False)


@kernel("glu_backward")
def glu_backward(grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    """The two halves' gradients, concatenated: grad sigmoid(b) and grad a sigmoid(b) (1 - sigmoid(b))."""
    axis = _glu_dim(self, dim)
    impl = self._impl
    device = same_device("glu_backward", (grad_output, self))
    d = promote_types(grad_output._impl.dtype, impl.dtype)
    if d.is_complex:
        raise not_implemented("glu_backward_cpu", d)
    if not d.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {d.scalar_type_name}")
    compute = d.opmath_numpy

    def values() -> Array:
        a, b = _halves(_values(self, compute), axis)
        g = _values(grad_output, compute)
        s = _sigmoid(b)
        return np.concatenate([g * s, g * a * s * (1.0 - s)], axis=axis)

    return _emit(impl.sizes, d, device, values)


# ---- smooth_l1_loss, huber_loss, soft_margin_loss -----------------------------------------------


def _pointwise_loss(
    op: str, kernel_name: str, self: Tensor, target: Tensor, reduction: int, fn: Callable[[Array], Array]
) -> Tensor:
    """fn(self - target) over the broadcast operands, reduced."""
    _check_reduction(reduction)
    d = _binary_loss_dtype(kernel_name, (self, target))
    device = same_device(op, (self, target))
    sizes = broadcast_shapes(self._impl.sizes, target._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Any:
        return _reduce(
            np.broadcast_to(fn(_values(self, compute) - _values(target, compute)), sizes), reduction
        )

    return _emit(_reduced_sizes(sizes, reduction), d, device, values)


def _pointwise_loss_backward(
    op: str,
    d: dtype,
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    reduction: int,
    fn: Callable[[Array], Array],
) -> Tensor:
    """grad * fn(self - target), over numel for a mean, of the broadcast shape, as dtype `d`
    (computed in its opmath type; integer results in float64, truncated)."""
    _check_reduction(reduction)
    device = same_device(op, (grad_output, self, target))
    sizes = broadcast_shapes(broadcast_shapes(self._impl.sizes, target._impl.sizes), grad_output._impl.sizes)
    compute = d.opmath_numpy if d.is_floating_point else np.dtype(np.float64)

    def values() -> Array:
        scale = reduction_grad_scale(reduction, self._impl.numel())
        diff = _values(self, compute) - _values(target, compute)
        return np.broadcast_to(fn(diff) * (_values(grad_output, compute) * scale), sizes)

    return _emit(sizes, d, device, values)


@kernel("smooth_l1_loss")
def smooth_l1_loss(
    self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN, beta: float = 1.0
) -> Tensor:
    """0.5 z^2 / beta where z = |x - t| < beta, z - beta / 2 elsewhere."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")

    def loss(diff: Array) -> Array:
        z = np.abs(diff)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)

    return _pointwise_loss("smooth_l1_loss", "smooth_l1_cpu", self, target, reduction, loss)


@kernel("smooth_l1_loss_backward")
def smooth_l1_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    def derivative(diff: Array) -> Array:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(diff < -beta, -1.0, np.where(diff > beta, 1.0, diff / beta))

    d = promote_types(promote_types(grad_output._impl.dtype, self._impl.dtype), target._impl.dtype)
    if d is bool_ or d.is_complex:
        raise not_implemented("smooth_l1_backward_cpu_out", d)
    return _pointwise_loss_backward(
        "smooth_l1_loss_backward", d, grad_output, self, target, reduction, derivative
    )


@kernel("huber_loss")
def huber_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN, delta: float = 1.0) -> Tensor:
    """0.5 z^2 where z = |x - t| < delta, delta (z - delta / 2) elsewhere."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def loss(diff: Array) -> Array:
        z = np.abs(diff)
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))

    return _pointwise_loss("huber_loss", "huber_cpu", self, target, reduction, loss)


@kernel("huber_loss_backward")
def huber_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    def derivative(diff: Array) -> Array:
        return np.clip(diff, -delta, delta)

    d = _binary_loss_dtype("huber_backward_cpu_out", (self, target))
    return _pointwise_loss_backward(
        "huber_loss_backward", d, grad_output, self, target, reduction, derivative
    )


def _soft_margin_dtype(self: Tensor, target: Tensor) -> dtype:
    d = promote_types(self._impl.dtype, target._impl.dtype)
    if d is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead."
        )
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {d.scalar_type_name}")
    return d


@kernel("soft_margin_loss")
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN) -> Tensor:
    """log(1 + exp(-t x)), reduced (complex inputs too, as in PyTorch)."""
    _check_reduction(reduction)
    d = _soft_margin_dtype(self, target)
    device = same_device("soft_margin_loss", (self, target))
    sizes = broadcast_shapes(self._impl.sizes, target._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Any:
        margin = -_values(target, compute) * _values(self, compute)
        return _reduce(np.broadcast_to(np.log1p(np.exp(margin)), sizes), reduction)

    return _emit(_reduced_sizes(sizes, reduction), d, device, values)


@kernel("soft_margin_loss_backward")
def soft_margin_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """-t exp(-t x) / (1 + exp(-t x)) times grad (over numel for a mean)."""
    _check_reduction(reduction)
    d = _soft_margin_dtype(self, target)
    device = same_device("soft_margin_loss_backward", (grad_output, self, target))
    sizes = broadcast_shapes(broadcast_shapes(self._impl.sizes, target._impl.sizes), grad_output._impl.sizes)
    compute = d.opmath_numpy

    def values() -> Array:
        t = _values(target, compute)
        z = np.exp(-t * _values(self, compute))
        scale = reduction_grad_scale(reduction, self._impl.numel())
        return np.broadcast_to(-t * z / (1.0 + z) * (_values(grad_output, compute) * scale), sizes)

    return _emit(sizes, d, device, values)


# ---- CompositeImplicitAutograd losses and distances ---------------------------------------------


def _apply_reduction(loss: Tensor, reduction: int) -> Tensor:
    """The loss kept, averaged or summed, through the dispatcher (recorded as MeanBackward0 or
    SumBackward0)."""
    if reduction == _REDUCTION_MEAN:
        return loss.mean()
    if reduction == _REDUCTION_SUM:
        return loss.sum()
    return loss


def _where(condition: Tensor, self: Tensor, other: Tensor) -> Tensor:
    result: Tensor = aten_op("where.self")(condition, self, other)
    return result


@kernel("kl_div")
def kl_div(
    self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN, *, log_target: bool = False
) -> Tensor:
    """target (log(target) - input) pointwise (exp(target) (target - input) for a log target;
    target log(target) is 0 where the target is 0, as xlogy gives), reduced."""
    for t in (self, target):
        d = t._impl.dtype
        if d.is_complex:
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not d.is_floating_point:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - self)
    else:
        loss = (target * target.log()).masked_fill(target.eq(0), 0) - target * self
    return _apply_reduction(loss, reduction)


@kernel("margin_ranking_loss")
def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = _REDUCTION_MEAN
) -> Tensor:
    """max(0, -target (input1 - input2) + margin), reduced."""
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _apply_reduction(loss, reduction)


@kernel("hinge_embedding_loss")
def hinge_embedding_loss(
    self: Tensor, target: Tensor, margin: float = 1.0, reduction: int = _REDUCTION_MEAN
) -> Tensor:
    """x where target is 1, max(0, margin - x) where it is -1 (both terms summed elsewhere);
    margin - x keeps x's dtype, as ATen's Scalar - Tensor does (integer inputs then fail in the
    mean, as in PyTorch)."""
    zeros = aten_op("zeros_like.default")(self)
    margin_clamp = aten_op("full_like.default")(self, margin).sub_(self).clamp_min(0)
    margin_term = _where(target.ne(1), margin_clamp, zeros)
    self_term = _where(target.ne(-1), self, zeros)
    return _apply_reduction(margin_term + self_term, reduction)


_EPSILON: Final = 1e-12


@kernel("cosine_embedding_loss")
def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = _REDUCTION_MEAN
) -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, the cosine
    along the last dimension (with 1e-12 added to the squared norms)."""
    d1, d2, dt = input1._impl.dim(), input2._impl.dim(), target._impl.dim()
    if dt not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dt == 1 and not (d1 == 2 and d2 == 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {list(input1.shape)} "
            f"and {list(input2.shape)}."
        )
    if dt == 0 and not (d1 == 1 and d2 == 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {list(input1.shape)} "
            f"and {list(input2.shape)}."
        )
    dim = d1 - 1
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = (input1 * input1).sum(dim) + _EPSILON
    mag_square2 = (input2 * input2).sum(dim) + _EPSILON
    denominator = (mag_square1 * mag_square2).sqrt()
    cos = prod_sum / denominator
    zeros = aten_op("zeros_like.default")(cos)
    positive = _where(target.eq(1), 1 - cos, zeros)
    negative = _where(target.eq(-1), (cos - margin).clamp_min(0), zeros)
    return _apply_reduction(positive + negative, reduction)


@kernel("pairwise_distance")
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last dimension of the higher-dimensional input (the
    only one of 0-dim inputs)."""
    inner = max(x1._impl.dim(), x2._impl.dim()) - 1
    return (x1 - x2 + eps).norm(p, [max(inner, 0)], keepdim)


@kernel("triplet_margin_loss")
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = _REDUCTION_MEAN,
) -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin) with pairwise distances d (the
    smaller of d(anchor, negative) and d(positive, negative) when `swap`)."""
    a, pos, neg = anchor._impl.dim(), positive._impl.dim(), negative._impl.dim()
    if not (a == pos == neg):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a}D, positive {pos}D, and negative {neg}D inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    loss = (dist_pos - dist_neg + margin).clamp_min(0)
    return _apply_reduction(loss, reduction)


@kernel("poisson_nll_loss")
def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """exp(input) - target input for log inputs, input - target log(input + eps) otherwise; `full`
    adds Stirling's approximation of log(target!) where target > 1."""
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target.le(1), 0)
    return _apply_reduction(loss, reduction)


@kernel("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 / |x1| * x2 / |x2|) along `dim` (the inputs broadcast together, integer ones
    converted to the common floating dtype), each norm clamped below by eps without recording
    the clamp, as PyTorch does (the gradient is the unclamped norm's)."""
    common = promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common.scalar_type_name}"
        )
    a = x1 if x1.dtype.is_floating_point or x1.dtype.is_complex else x1.to(common)
    b = x2 if x2.dtype.is_floating_point or x2.dtype.is_complex else x2.to(common)
    sizes = list(broadcast_shapes(a._impl.sizes, b._impl.sizes))
    a, b = a.expand(sizes), b.expand(sizes)
    a_norm = a.norm(2, [dim], True).clone()
    b_norm = b.norm(2, [dim], True).clone()
    with no_grad():
        a_norm.clamp_min_(eps)
        b_norm.clamp_min_(eps)
    return ((a / a_norm) * (b / b_norm)).sum(dim)
