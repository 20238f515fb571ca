"""Miscellaneous neural-network kernels: randomized leaky ReLU (rrelu_with_noise, drawing its
slopes from the generator as PyTorch's CPU kernel does), channel_shuffle, pairwise distances
(_pdist_forward/_pdist_backward), the multi-class and multi-label margin losses with their backward
operators, _trilinear, embedding bags (_embedding_bag with its weight and per-sample-weight
backward operators); and the CompositeImplicitAutograd operators PyTorch builds from operators
(rrelu, pdist, multilabel_margin_loss, bilinear, rms_norm, embedding_bag).

As in framework/ops/kernels/nn.py, each kernel checks its arguments with PyTorch's messages and
decides its outputs' shapes and dtypes before computing, so Meta tensors get exactly that.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.dtypes import bfloat16, bool_, dtype, float16, float32, float64, int64, numpy_finfo
from framework.ops._iter import Number
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    array,
    aten_op,
    int_list,
    is_meta,
    kernel,
    not_implemented,
    register_variants,
    same_device,
)
from framework.ops.kernels.activation import real_scalar
from framework.ops.kernels.linalg import Array, IntList, Sizes
from framework.ops.kernels.nn import (
    _REDUCTION_MEAN,
    _REDUCTION_NONE,
    _acc,
    _check_indices,
    _check_reduction,
    _emit,
    _emit_many,
    _layer_norm_split,
    _legacy_type,
    _values,
)

_FLOATING: Final = frozenset((float16, bfloat16, float32, float64))
_SINGLE_DOUBLE: Final = frozenset((float32, float64))


def _expect_dtype(expected: dtype, got: dtype) -> None:
    if got is not expected:
        raise RuntimeError(
            f"expected scalar type {expected.scalar_type_name} but found {got.scalar_type_name}"
        )


# ---- rrelu ----------------------------------------------------------------------------------------


def _check_bounds(lower: Number, upper: Number) -> None:
    if real_scalar(lower) > real_scalar(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def _mean_slope(lower: Number, upper: Number) -> float:
    """The slope rrelu uses outside training."""
    return (real_scalar(lower) + real_scalar(upper)) / 2


def _rrelu_train(
    op: str,
    target: Tensor,
    self: Tensor,
    noise: Tensor,
    lower: Number,
    upper: Number,
    generator: rng.Generator | None,
) -> None:
    """Write rrelu's training result into `target` and its slopes into `noise`: each element <= 0
    (in element order) is scaled by a slope drawn from U(lower, upper) in double precision (bounds
    and slope rounded to the dtype, as PyTorch's CPU kernel), the others by 1."""
    impl = self._impl
    if impl.dtype not in _FLOATING:
        raise not_implemented(op, impl.dtype)
    if impl.sizes != noise._impl.sizes:
        aten_op("resize_.default")(noise, list(impl.sizes))
    if is_meta(impl.device):
        return
    np_type = impl.dtype.numpy_dtype
    x = array(self)
    negative = x <= 0
    low = float(np_type.type(real_scalar(lower)))
    high = float(np_type.type(real_scalar(upper)))
    gen = rng.default_generator() if generator is None else generator
    with gen._lock:
        unit = rng._unit_float64(gen, int(negative.sum()))
    slopes = np.ones(impl.sizes, np_type)
    slopes[negative] = (unit * (high - low) + low).astype(np_type)
    result = x * slopes
    array(noise)[...] = slopes
    array(target)[...] = result


def _rrelu_variants(suffix: str) -> None:
    """Register rrelu_with_noise and rrelu (suffix "") or their in-place kernels (suffix "_")."""

    def with_noise(
        self: Tensor,
        noise: Tensor,
        lower: Number = 0.125,
        upper: Number = 1.0 / 3,
        training: bool = False,
        generator: rng.Generator | None = None,
    ) -> Tensor:
        """Leaky ReLU whose negative slope is drawn per element from U(lower, upper) when `training`
        (the slopes, 1 for positive elements, written to `noise`), (lower + upper) / 2 otherwise."""
        _check_bounds(lower, upper)
        if not training:
            evaluated: Tensor = aten_op(f"leaky_relu{suffix}.default")(self, _mean_slope(lower, upper))
            return evaluated
        result: Tensor = self if suffix else aten_op("empty_like.default")(self)
        _rrelu_train("rrelu_with_noise_out_cpu", result, self, noise, lower, upper, generator)
        return result

    def rrelu(
        self: Tensor,
        lower: Number = 0.125,
        upper: Number = 1.0 / 3,
        training: bool = False,
        generator: rng.Generator | None = None,
    ) -> Tensor:
        """rrelu_with_noise with a fresh noise tensor."""
        _check_bounds(lower, upper)
        noise = aten_op("empty_like.default")(self)
        result: Tensor = aten_op(f"rrelu_with_noise{suffix}.default")(
            self, noise, lower, upper, training, generator
        )
        return result

    register_variants("rrelu_with_noise", {suffix: with_noise})
    register_variants("rrelu", {suffix: rrelu})


_rrelu_variants("")
_rrelu_variants("_")


@kernel("rrelu_with_noise_backward")
def rrelu_with_noise_backward(
    grad_output: Tensor,
    self: Tensor,
    noise: Tensor,
    lower: Number,
    upper: Number,
    training: bool,
    self_is_result: bool,
) -> Tensor:
    """grad * noise in training, else leaky_relu's gradient with slope (lower + upper) / 2."""
    if training:
        scaled: Tensor = aten_op("mul.Tensor")(noise, grad_output)
        return scaled
    slope = _mean_slope(lower, upper)
    result: Tensor = aten_op("leaky_relu_backward.default")(grad_output, self, slope, self_is_result)
    return result


# ---- channel_shuffle ------------------------------------------------------------------------------


@kernel("channel_shuffle")
def channel_shuffle(self: Tensor, groups: int) -> Tensor:
    """(N, g * k, *) read as (N, g, k, *) and written as (N, k, g, *)."""
    impl = self._impl
    sizes = impl.sizes
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if len(sizes) <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(sizes)}"
        )
    channels = sizes[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups."
        )

    def values() -> Array:
        grouped = array(self).reshape(sizes[0], groups, channels // groups, *sizes[2:])
        return grouped.swapaxes(1, 2).reshape(sizes)

    return _emit(sizes, impl.dtype, impl.device, values)


# ---- pdist ----------------------------------------------------------------------------------------


def _pairs(n: int) -> tuple[Array, Array]:
    """The rows (i, j), i < j, of the condensed distance vector, in its order."""
    first, second = np.triu_indices(n, 1)
    return first, second


@kernel("pdist")
def pdist(self: Tensor, p: float = 2.0) -> Tensor:
    impl = self._impl
    if impl.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {impl.dim()}D")
    if not impl.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    result: Tensor = aten_op("_pdist_forward.default")(aten_op("contiguous.default")(self), p)
    return result


def _check_pdist(op: str, kernel_name: str, self: Tensor, p: float) -> None:
    impl = self._impl
    if not impl.is_contiguous():
        raise RuntimeError(f"{op} requires contiguous input")
    if impl.dtype not in _SINGLE_DOUBLE:
        raise not_implemented(kernel_name, impl.dtype)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")


@kernel("_pdist_forward")
def _pdist_forward(self: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between each pair of rows i < j, in row-major pair order."""
    _check_pdist("_pdist_forward", "pdist", self, p)
    impl = self._impl
    n = impl.sizes[0]

    def values() -> Array:
        x = array(self)
        first, second = _pairs(n)
        diff = np.abs(x[first] - x[second])
        if p == 0:
            result: Array = (diff != 0).sum(axis=1).astype(x.dtype)
        elif p == math.inf:
            result = diff.max(axis=1, initial=0.0)
        elif p == 1:
            result = diff.sum(axis=1)
        elif p == 2:
            result = np.sqrt((diff * diff).sum(axis=1))
        else:
            result = (diff**p).sum(axis=1) ** (1.0 / p)
        return result

    return _emit((n * (n - 1) // 2,), impl.dtype, impl.device, values)


@kernel("_pdist_backward")
def _pdist_backward(grad: Tensor, self: Tensor, p: float, pdist: Tensor) -> Tensor:
    """Each row's gradient: the sum over its pairs of grad times the derivative of the pair's
    distance (0 for p = 0 and for zero distances)."""
    _check_pdist("_pdist_backward", "pdist_backward", self, p)
    if not pdist._impl.is_contiguous():
        raise RuntimeError("_pdist_backward requires pdist to be contiguous")
    impl = self._impl
    n, m = impl.sizes

    def values() -> Array:
        x = array(self)
        first, second = _pairs(n)
        diff = x[first] - x[second]
        dist = array(pdist)[:, None]
        g = array(grad)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                pair = np.zeros_like(diff)
            elif p == 1:
                pair = np.sign(diff) * g
            elif p == math.inf:
                pair = np.sign(diff) * (np.abs(diff) == dist) * g
            elif p == 2:
                pair = np.where(dist == 0, 0.0, diff * g / dist)
            elif p < 2:
                zero = (dist == 0) | ((diff == 0) & (p < 1))
                pair = np.where(zero, 0.0, np.sign(diff) * np.abs(diff) ** (p - 1) * g / dist ** (p - 1))
            else:
                pair = np.where(dist == 0, 0.0, diff * np.abs(diff) ** (p - 2) * g / dist ** (p - 1))
        result = np.zeros((n, m), x.dtype)
        np.add.at(result, first, pair)
        np.subtract.at(result, second, pair)
        return result

    return _emit((n, m), impl.dtype, impl.device, values)


# ---- multi-class and multi-label margin losses ----------------------------------------------------


def _margin_frame(op: str, self: Tensor) -> tuple[int, int]:
    """(samples, classes) of a margin loss's input: a vector, a matrix, or a scalar."""
    sizes = self._impl.sizes
    if not ((len(sizes) == 2 and sizes[1] != 0) or (len(sizes) == 1 and sizes[0] != 0) or not sizes):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(sizes)}"
        )
    return (sizes[0] if len(sizes) == 2 else 1), (sizes[-1] if sizes else 1)


def _check_dispatch(op: str, self: Tensor) -> None:
    """The margin losses' CPU kernels exist for float32 and float64 only."""
    if self._impl.dtype not in _SINGLE_DOUBLE:
        raise not_implemented(op, self._impl.dtype)


def _loss_sizes(reduction: int, sizes: Sizes) -> Sizes:
    return sizes if reduction == _REDUCTION_NONE else ()


def _reduce_rows(loss: Array, reduction: int) -> Any:
    """Per-sample losses kept, averaged or summed."""
    if reduction == _REDUCTION_NONE:
        return loss
    total = loss.sum()
    return total / loss.size if reduction == _REDUCTION_MEAN else total


def _per_sample_grad(grad_output: Tensor, reduction: int, nframe: int, compute: np.dtype[Any]) -> Array:
    """The loss gradient each sample receives, shaped (nframe, 1)."""
    g = (
        _values(grad_output, compute).reshape(-1, 1)
        if reduction == _REDUCTION_NONE
        else (np.full((nframe, 1), _values(grad_output, compute).reshape(())))
    )
    return g / nframe if reduction == _REDUCTION_MEAN else g


def _multi_margin_checks(
    self: Tensor, target: Tensor, p: Number, weight: Tensor | None, op: str
) -> tuple[int, int]:
    nframe, dim = _margin_frame(op, self)
    _check_dispatch(op, self)
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    t = target._impl
    if t.dim() > 1 or t.numel() != nframe:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{nframe}], but got {list(t.sizes)}. Input has shape "
            f"{list(self._impl.sizes)}."
        )
    _expect_dtype(int64, t.dtype)
    if weight is not None:
        w = weight._impl
        if w.dim() > 1 or w.numel() != dim:
            raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(w.sizes)}")
        _expect_dtype(self._impl.dtype, w.dtype)
    return nframe, dim


def _multi_margin_terms(
    self: Tensor, target: Tensor, margin: Number, weight: Tensor | None, dim: int, compute: np.dtype[Any]
) -> tuple[Array, Array, Array]:
    """(z, y, w_y): the hinge margin - x[y] + x[j] of every class j (zero at j = y), each sample's
    target, and its target's weight (nframe, 1)."""
    x = _values(self, compute).reshape(-1, dim)
    y = array(target).reshape(-1).astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= dim):
        raise RuntimeError("target out of range")
    rows = np.arange(x.shape[0])
    z = real_scalar(margin) - x[rows, y][:, None] + x
    z[rows, y] = 0.0
    w_y = np.ones((x.shape[0], 1), compute) if weight is None else _values(weight, compute)[y][:, None]
    return z, y, w_y


@kernel("multi_margin_loss")
def multi_margin_loss(
    self: Tensor,
    target: Tensor,
    p: Number = 1,
    margin: Number = 1,
    weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
) -> Tensor:
    """Per sample, the sum over the other classes j of w[y] max(0, margin - x[y] + x[j])^p, over the
    number of classes; reduced."""
    _check_reduction(reduction)
    _, dim = _multi_margin_checks(self, target, p, weight, "multi_margin_loss_cpu_kernel")
    impl = self._impl
    device = same_device("multi_margin_loss", tuple(t for t in (self, target, weight) if t is not None))

    def values() -> Any:
        z, _, w_y = _multi_margin_terms(self, target, margin, weight, dim, _acc(impl.dtype))
        hinge = np.maximum(z, 0.0)
        per_sample = ((hinge if p == 1 else hinge * hinge) * w_y).sum(axis=1) / dim
        return _reduce_rows(per_sample, reduction).reshape(_loss_sizes(reduction, target._impl.sizes))

    return _emit(_loss_sizes(reduction, target._impl.sizes), impl.dtype, device, values)


@kernel("multi_margin_loss_backward")
def multi_margin_loss_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    p: Number,
    margin: Number,
    weight: Tensor | None = None,
    reduction: int = _REDUCTION_MEAN,
) -> Tensor:
    _check_reduction(reduction)
    nframe, dim = _multi_margin_checks(self, target, p, weight, "multi_margin_loss_backward_cpu_kernel")
    impl = self._impl
    device = same_device("multi_margin_loss_backward", (grad_output, self, target))

    def values() -> Array:
        compute = _acc(impl.dtype)
        z, y, w_y = _multi_margin_terms(self, target, margin, weight, dim, compute)
        slope = np.where(z > 0, 1.0 if p == 1 else 2.0 * z, 0.0) * w_y / dim
        slope *= _per_sample_grad(grad_output, reduction, nframe, compute)
        rows = np.arange(nframe)
        slope[rows, y] = -slope.sum(axis=1)
        return slope.reshape(impl.sizes)

    return _emit(impl.sizes, impl.dtype, device, values)


def _check_range(argument: str, t: Tensor, low: int, high: int) -> None:
    """PyTorch's check that a label tensor's values lie in [low, high] (read as integers)."""
    impl = t._impl
    if impl.dtype.is_complex:
        raise not_implemented("min_all", impl.dtype)
    if is_meta(impl.device) or impl.numel() == 0:
        return
    values = array(t)
    if values.min() < low or values.max() > high:
        raise RuntimeError(f"argument {argument} is out of range")


def _multilabel_checks(
    op: str, self: Tensor, target: Tensor, is_target: Tensor | None = None
) -> tuple[int, int]:
    """The multi-label margin loss's checks in PyTorch's order (the forward checks the target's
    values before its kernel's dtypes, the backward after)."""
    nframe, dim = _margin_frame(op, self)
    t = target._impl
    if t.sizes != self._impl.sizes:
        raise RuntimeError(
            f"inconsistent target size: {list(t.sizes)} for input of size: {list(self._impl.sizes)}"
        )
    if is_target is None:
        _check_range("#2 'target'", target, -1, dim - 1)
        _check_dispatch(op, self)
    else:
        _check_dispatch(op, self)
        _check_range("#2 'target'", target, -1, dim - 1)
        _check_range("#5 'is_target'", is_target, 0, 1)
    _expect_dtype(int64, t.dtype)
    return nframe, dim


def _target_counts(target: Tensor, nframe: int, dim: int) -> Array:
    """(nframe, dim): how often each class is listed among a sample's targets (those before its
    first negative value)."""
    y = array(target).reshape(nframe, dim)
    listed = np.cumprod(y >= 0, axis=1).astype(bool)
    counts = np.zeros((nframe, dim), np.int64)
    rows = np.broadcast_to(np.arange(nframe)[:, None], y.shape)
    np.add.at(counts, (rows[listed], y[listed]), 1)
    return counts


def _multilabel_hinges(self: Tensor, counts: Array, dim: int, compute: np.dtype[Any]) -> Array:
    """(nframe, target class c, class j): max(0, 1 - x[c] + x[j]) for non-target j, weighted by how
    often c is a target."""
    x = _values(self, compute).reshape(-1, dim)
    hinge = np.maximum(1.0 - x[:, :, None] + x[:, None, :], 0.0)
    non_target = (counts == 0)[:, None, :]
    result: Array = hinge * non_target * counts[:, :, None]
    return result


@kernel("multilabel_margin_loss")
def multilabel_margin_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN) -> Tensor:
    result: Tensor = aten_op("multilabel_margin_loss_forward.default")(self, target, reduction)[0]
    return result


@kernel("multilabel_margin_loss_forward")
def multilabel_margin_loss_forward(self: Tensor, target: Tensor, reduction: int) -> tuple[Tensor, Tensor]:
    """Per sample, the sum over its targets c and its non-target classes j of
    max(0, 1 - x[c] + x[j]), over the number of classes, reduced; and the 0/1 target mask."""
    _check_reduction(reduction)
    nframe, dim = _multilabel_checks("multilabel_margin_loss_forward_out_frame", self, target)
    impl = self._impl
    device = same_device("multilabel_margin_loss_forward", (self, target))
    out_sizes = _loss_sizes(reduction, (nframe,) if impl.dim() == 2 else ())

    def values() -> tuple[Any, Array]:
        counts = _target_counts(target, nframe, dim)
        per_sample = _multilabel_hinges(self, counts, dim, _acc(impl.dtype)).sum(axis=(1, 2)) / dim
        return _reduce_rows(per_sample, reduction).reshape(out_sizes), (counts > 0).reshape(impl.sizes)

    output, is_target = _emit_many(((out_sizes, impl.dtype), (impl.sizes, impl.dtype)), device, values)
    return output, is_target


@kernel("multilabel_margin_loss_backward")
def multilabel_margin_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, is_target: Tensor
) -> Tensor:
    _check_reduction(reduction)
    nframe, dim = _multilabel_checks("multilabel_margin_loss_backward_out_frame", self, target, is_target)
    impl = self._impl
    device = same_device("multilabel_margin_loss_backward", (grad_output, self, target, is_target))

    def values() -> Array:
        compute = _acc(impl.dtype)
        counts = _target_counts(target, nframe, dim)
        active = (_multilabel_hinges(self, counts, dim, compute) > 0) * counts[:, :, None]
        g = _per_sample_grad(grad_output, reduction, nframe, compute) / dim
        result: Array = ((active.sum(axis=1) - active.sum(axis=2)) * g).reshape(impl.sizes)
        return result

    return _emit(impl.sizes, impl.dtype, device, values)


# ---- _trilinear and bilinear ----------------------------------------------------------------------


@kernel("_trilinear")
def _trilinear(
    i1: Tensor,
    i2: Tensor,
    i3: Tensor,
    expand1: IntList,
    expand2: IntList,
    expand3: IntList,
    sumdim: IntList,
    unroll_dim: int = 1,
) -> Tensor:
    """i1, i2 and i3, each with size-1 dimensions inserted at its `expand` positions, multiplied
    (broadcasting) and summed over `sumdim`."""
    operands = ((i1, int_list(expand1)), (i2, int_list(expand2)), (i3, int_list(expand3)))
    rank = i1._impl.dim() + len(operands[0][1])
    for t, expand in operands:
        if t._impl.dim() + len(expand) != rank:
            raise RuntimeError(
                f"Expected tensor of dimension {rank - len(expand)} but got {t._impl.dim()} dimensions "
                "for _trilinear"
            )
    full = [1] * rank
    labelled: list[tuple[Tensor, list[int]]] = []
    for t, expand in operands:
        kept = [d for d in range(rank) if d not in expand]
        for d, size in zip(kept, t._impl.sizes, strict=True):
            if size != 1:
                if full[d] not in (1, size):
                    raise RuntimeError(
                        f"The size of tensor a ({full[d]}) must match the size of tensor b ({size}) at "
                        f"non-singleton dimension {d}"
                    )
                full[d] = size
        labelled.append((t, kept))
    kept_out = [d for d in range(rank) if d not in set(int_list(sumdim))]
    d_out = i1._impl.dtype
    device = same_device("_trilinear", (i1, i2, i3))

    def values() -> Array:
        letters = "abcdefghijklmnopqrstuvwxyz"
        arrays = [
            np.broadcast_to(array(t).astype(t._impl.dtype.opmath_numpy, copy=False), [full[d] for d in kept])
            for t, kept in labelled
        ]
        present = {d for _, kept in labelled for d in kept}
        spec = ",".join("".join(letters[d] for d in kept) for _, kept in labelled)
        out_dims = [d for d in kept_out if d in present]
        summed: Array = np.einsum(f"{spec}->{''.join(letters[d] for d in out_dims)}", *arrays)
        return summed.reshape([full[d] for d in kept_out])

    return _emit(tuple(full[d] for d in kept_out), d_out, device, values)


@kernel("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x1ᵀ A x2 + b for each of weight's output features, through _trilinear on the inputs
    flattened to matrices."""
    s1, s2, sw = input1._impl.sizes, input2._impl.sizes, weight._impl.sizes
    if len(s1) != len(s2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(s1)} and {len(s2)}")
    for i in range(len(s1) - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {s1[i]} and {s2[i]}")
    if s1[-1] != sw[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {s1[-1]} but expected {sw[1]}"
        )
    if s2[-1] != sw[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {s2[-1]} but expected {sw[2]}"
        )
    if bias is not None and bias._impl.sizes[0] != sw[0]:
        raise RuntimeError(
            "bilinear(): bias size does not match weight size: got "
            f"{bias._impl.sizes[0]} but expected {sw[0]}"
        )
    named = {"input1": input1, "input2": input2, "weight": weight}
    if bias is not None:
        named["bias"] = bias
    if len({t._impl.dtype for t in named.values()}) > 1:
        names = ", ".join(f"{n}: {CPP_TYPE_NAMES[t._impl.dtype]}" for n, t in named.items())
        raise RuntimeError(f"All tensors must have the same dtype, got {names}")
    if input1._impl.dtype is bool_:
        raise not_implemented("bmm", bool_)
    reshape = aten_op("reshape.default")
    flat1 = reshape(input1, [-1, s1[-1]])
    flat2 = reshape(input2, [-1, s2[-1]])
    product = aten_op("_trilinear.default")(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3])
    output: Tensor = reshape(product, [*s1[:-1], sw[0]])
    if bias is not None:
        output = aten_op("add.Tensor")(output, bias)
    return output


# ---- rms_norm -------------------------------------------------------------------------------------


@kernel("rms_norm")
def rms_norm(
    input: Tensor, normalized_shape: IntList, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """x / sqrt(mean(x²) + eps) over the trailing `normalized_shape` dimensions, times weight
    (computed in float32 for float16 inputs; eps defaults to the machine epsilon of the
    type computed in)."""
    shape = int_list(normalized_shape)
    sizes = input._impl.sizes
    if (
        shape
        and (weight is None or list(weight._impl.sizes) == shape)
        and list(sizes[max(len(sizes) - len(shape), 0) :]) != shape
    ):
        raise RuntimeError(
            f"Given normalized_shape={shape}, expected input with shape [*{', '.join(map(str, shape))}], but "
            f"got input of size{list(sizes)}"
        )
    leading = _layer_norm_split(input, shape, weight, None)
    d = input._impl.dtype
    if not (d.is_floating_point or d.is_complex):
        raise not_implemented("rms_norm", d)
    reduced = d.is_reduced_float
    x = aten_op("_to_copy.default")(input, dtype=float32) if reduced else input
    if eps is None:
        eps = float(numpy_finfo(np.float32 if reduced else d.numpy_dtype).eps)  # a complex type's part's
    dims = list(range(leading, len(sizes)))
    mean_square = aten_op("mean.dim")(aten_op("pow.Tensor_Scalar")(x, 2), dims, True)
    scale = aten_op("rsqrt.default")(aten_op("add.Scalar")(mean_square, eps))
    result: Tensor = aten_op("mul.Tensor")(x, scale)
    if reduced:
        result = aten_op("_to_copy.default")(result, dtype=d)
    if weight is not None:
        result = aten_op("mul.Tensor")(result, weight)
    return result


# ---- embedding bags -------------------------------------------------------------------------------

_MODE_SUM: Final = 0
_MODE_MEAN: Final = 1
_MODE_MAX: Final = 2


def _bag_layout(mode: int, weight: dtype, padding_idx: int) -> bool:
    """Whether PyTorch's CPU kernel takes its fused sum path, which returns an empty offset2bag and
    zero bag sizes."""
    return mode == _MODE_SUM and padding_idx < 0 and weight in (float32, float16, bfloat16)


def _check_bag_floating(argument: str, d: dtype) -> None:
    if d not in _FLOATING:
        shown = f"CPU{d.scalar_type_name}Type" if d is bool_ or d.is_complex else _legacy_type(d)
        raise RuntimeError(
            f"Expected tensor for argument {argument} to have one of the following scalar types: Half, "
            f"BFloat16, Float, Double; but got {shown} instead (while checking arguments for embedding_bag)"
        )


def _offset2bag(offsets: Array, n: int, bags: int) -> Array:
    """The bag of each of the n indices (those past the last bag's start belong to the last bag)."""
    return np.minimum(np.searchsorted(offsets, np.arange(n), side="right") - 1, bags - 1)


@kernel("_embedding_bag")
def _embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = _MODE_SUM,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Each bag's rows of `weight` (indices[offsets[b]:offsets[b + 1]], without padding_idx)
    summed (times per_sample_weights), averaged or maxed per column; and offset2bag, the bag sizes
    and (max mode) the index each column's maximum came from."""
    _check_indices("#1 'indices'", indices, "embedding_bag")
    _check_indices("#1 'offsets'", offsets, "embedding_bag")
    if indices._impl.dtype is not offsets._impl.dtype:
        raise RuntimeError(
            "expected indices and offsets to have the same dtype, but got "
            f"{indices._impl.dtype.scalar_type_name} and {offsets._impl.dtype.scalar_type_name}"
        )
    w = weight._impl
    if w.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {w.dim()}")
    _check_bag_floating("#1 'weight'", w.dtype)
    if mode not in (_MODE_SUM, _MODE_MEAN, _MODE_MAX):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None:
        if mode != _MODE_SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights._impl.sizes != indices._impl.sizes:
            raise RuntimeError(
                "embedding_bag: per_sample_weights has to be of the same size as indices, but got "
                f"{per_sample_weights._impl.numel()} and {indices._impl.numel()}"
            )
        _expect_dtype(w.dtype, per_sample_weights._impl.dtype)
    device = same_device("_embedding_bag", tuple(t for t in (weight, indices, offsets) if t is not None))
    n = indices._impl.numel()
    bags = offsets._impl.numel() - (1 if include_last_offset else 0)
    if bags < 0:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    fused = _bag_layout(mode, w.dtype, padding_idx)
    index_type = indices._impl.dtype
    width = w.sizes[1]
    specs = (
        ((bags, width), w.dtype),
        ((0 if fused else n,), index_type),
        ((bags,), index_type),
        ((bags, width) if mode == _MODE_MAX else (bags,), index_type),
    )

    def values() -> tuple[Array, Array, Array, Array]:
        idx = array(indices).reshape(-1).astype(np.int64)
        starts = array(offsets).reshape(-1).astype(np.int64)
        if starts.size and starts[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                f"position 0. However, got {starts[0]}"
            )
        if starts.size and starts[-1] > n:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {starts[-1]}"
            )
        bad = (idx < 0) | (idx >= w.sizes[0])
        if bad.any():
            at = int(np.argmax(bad))
            raise IndexError(
                f"Index {at} of input takes value {idx[at]} which is not in the valid range [0, {w.sizes[0]})"
            )
        bag_of = _offset2bag(starts, n, bags) if bags else np.zeros(0, np.int64)
        keep = idx != padding_idx
        table = _values(weight, _acc(w.dtype))
        rows = table[idx[keep]]
        counts = np.bincount(bag_of[keep], minlength=bags)
        if mode == _MODE_MAX:
            output, maximum = _bag_max(rows, idx[keep], bag_of[keep], bags)
        else:
            if per_sample_weights is not None:
                rows = rows * _values(per_sample_weights, rows.dtype).reshape(-1)[keep][:, None]
            output = np.zeros((bags, width), rows.dtype)
            np.add.at(output, bag_of[keep], rows)
            if mode == _MODE_MEAN:
                output /= np.maximum(counts, 1)[:, None]
            maximum = np.zeros(bags, np.int64) if fused else counts
        if fused:
            return output, np.zeros(0, np.int64), np.zeros(bags, np.int64), maximum
        return output, bag_of, counts, maximum

    output, offset2bag, bag_size, max_indices = _emit_many(specs, device, values)
    return output, offset2bag, bag_size, max_indices


def _bag_max(rows: Array, idx: Array, bag_of: Array, bags: int) -> tuple[Array, Array]:
    """Each bag's column-wise maximum of its rows (0 for an empty bag) and the index of the first
    row holding it."""
    n, width = rows.shape
    best = np.full((bags, width), -np.inf, rows.dtype)
    np.maximum.at(best, bag_of, rows)
    position = np.where(rows == best[bag_of], np.arange(n)[:, None], n)
    first = np.full((bags, width), n, np.int64)
    np.minimum.at(first, bag_of, position)
    empty = first == n
    output = np.where(empty, 0.0, best)
    maximum = np.where(empty, 0, np.append(idx, 0)[first])
    return output, maximum


def _bag_rows(
    indices: Tensor, offsets: Tensor, offset2bag: Tensor, bags: int, padding_idx: int
) -> tuple[Array, Array, Array]:
    """(indices, their bags, which are not padding_idx), offset2bag computed from the offsets when
    the forward's fused path left it empty."""
    idx = array(indices).reshape(-1).astype(np.int64)
    bag_of = array(offset2bag).reshape(-1).astype(np.int64)
    if bag_of.size != idx.size:
        bag_of = _offset2bag(array(offsets).reshape(-1).astype(np.int64), idx.size, bags)
    return idx, bag_of, idx != padding_idx


def _frequency_divisors(idx: Array, num_weights: int) -> Array:
    """What scale_grad_by_freq divides each index's gradient by, as PyTorch's CPU kernel computes
    it: the k-th smallest distinct index by the count of the k-th smallest index (counting
    repeats), which is its own count only while no smaller index repeats."""
    counts = np.bincount(idx, minlength=num_weights)
    distinct, position = np.unique(idx, return_inverse=True)
    divisors: Array = counts[np.sort(idx)[: distinct.size]][position]
    return divisors


@kernel("_embedding_bag_backward")
def _embedding_bag_backward(
    grad: Tensor,
    indices: Tensor,
    offsets: Tensor,
    offset2bag: Tensor,
    bag_size: Tensor,
    maximum_indices: Tensor,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: Tensor | None,
    padding_idx: int = -1,
) -> Tensor:
    """The dense gradient of _embedding_bag's weight: each bag's gradient added to the rows it
    used (times the sample's weight in sum mode, over the bag size in mean mode, per column to the
    maximum's row in max mode); divided by frequencies when `scale_grad_by_freq` (see
    _frequency_divisors). Dense also for `sparse` (there are no sparse tensors here)."""
    _check_indices("#1 'indices'", indices, "embedding_bag_backward")
    g = grad._impl
    _check_bag_floating("#1 'grad_'", g.dtype)
    device = same_device("_embedding_bag_backward", (grad, indices, offsets))
    sizes = (num_weights, g.sizes[1])

    def values() -> Array:
        bags = g.sizes[0]
        gv = _values(grad, _acc(g.dtype))
        result = np.zeros(sizes, gv.dtype)
        idx, bag_of, keep = _bag_rows(indices, offsets, offset2bag, bags, padding_idx)
        if mode == _MODE_MAX:
            used = array(bag_size).reshape(-1) > 0
            columns = np.broadcast_to(np.arange(sizes[1]), (int(used.sum()), sizes[1]))
            np.add.at(result, (array(maximum_indices)[used], columns), gv[used])
            return result
        rows = gv[bag_of[keep]]
        if mode == _MODE_MEAN:
            rows = rows / np.maximum(np.bincount(bag_of[keep], minlength=bags), 1)[bag_of[keep]][:, None]
        if per_sample_weights is not None:
            rows = rows * _values(per_sample_weights, gv.dtype).reshape(-1)[keep][:, None]
        if scale_grad_by_freq:
            rows = rows / _frequency_divisors(idx, num_weights)[keep][:, None]
        np.add.at(result, idx[keep], rows)
        return result

    return _emit(sizes, g.dtype, device, values)


@kernel("_embedding_bag_per_sample_weights_backward")
def _embedding_bag_per_sample_weights_backward(
    grad: Tensor,
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    offset2bag: Tensor,
    mode: int,
    padding_idx: int = -1,
) -> Tensor:
    """Each sample weight's gradient: its bag's gradient dotted with its row of weight (0 for
    padding_idx)."""
    if mode != _MODE_SUM:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    g = grad._impl
    if g.dtype not in _FLOATING:
        raise not_implemented("_embedding_bag_per_sample_weights_backward_cpu", g.dtype)
    device = same_device("_embedding_bag_per_sample_weights_backward", (grad, weight, indices, offsets))
    n = indices._impl.numel()

    def values() -> Array:
        gv = _values(grad, _acc(g.dtype))
        idx, bag_of, keep = _bag_rows(indices, offsets, offset2bag, g.sizes[0], padding_idx)
        dots = (gv[bag_of] * _values(weight, gv.dtype)[idx]).sum(axis=1)
        return np.where(keep, dots, 0.0)

    return _emit((n,), g.dtype, device, values)


@kernel("embedding_bag")
def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = _MODE_SUM,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return embedding_bag_padding_idx(
        weight,
        indices,
        offsets,
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        None,
    )


@kernel("embedding_bag_padding_idx")
def embedding_bag_padding_idx(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """_embedding_bag with padding_idx checked against the number of embeddings and wrapped."""
    wrapped = -1
    if padding_idx is not None:
        num = weight._impl.sizes[0]
        if not -num <= padding_idx < num:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but got "
                f"{padding_idx}"
            )
        wrapped = padding_idx % num
    result: tuple[Tensor, Tensor, Tensor, Tensor] = aten_op("_embedding_bag.default")(
        weight,
        indices,
        offsets,
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        wrapped,
    )
    return result
