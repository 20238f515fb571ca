"""Backward formulas of the neural-network operators (activations, softmax, convolution, pooling,
embedding, normalization, losses, padding, dropout), called from derivatives.yaml.

First derivatives call the fused backward operators (`gelu_backward`, `convolution_backward`,
`native_layer_norm_backward`, ...); the helpers here give the derivatives of those backward
operators (double backward) and the few first derivatives that are compositions of framework
operators.  Every helper computes with framework operators, so what it returns is differentiable
again.  `grads` arguments are the gradients of a multi-output backward operator's outputs, None
for an output that was not computed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Literal

import framework
from framework._tensor import Tensor
from framework.autograd.grad_mode import is_grad_enabled
from framework.ops.kernels.nn import (
    BCE_EPSILON,
    BCE_LOG_FLOOR,
    channel_shape,
    dropout_scale,
    reduction_grad_scale,
)

__all__ = [
    "batch_norm_double_backward_grad_out",
    "batch_norm_double_backward_input",
    "batch_norm_double_backward_invstd",
    "batch_norm_double_backward_mean",
    "batch_norm_double_backward_weight",
    "binary_cross_entropy_double_backward",
    "binary_cross_entropy_double_backward_grad_output",
    "binary_cross_entropy_double_backward_target",
    "binary_cross_entropy_target_backward",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "constant_pad_nd_backward",
    "convolution_backward_bias",
    "convolution_double_backward_grad_output",
    "convolution_double_backward_input",
    "convolution_double_backward_weight",
    "dropout_scale",
    "embedding_dense_double_backward",
    "gelu_double_backward",
    "layer_norm_double_backward_grad_out",
    "layer_norm_double_backward_input",
    "layer_norm_double_backward_mean",
    "layer_norm_double_backward_rstd",
    "layer_norm_double_backward_weight",
    "log_softmax_backward_grad_output",
    "log_softmax_double_backward",
    "max_pool_double_backward",
    "mse_loss_double_backward",
    "mse_loss_double_backward_grad_output",
    "nll_loss_double_backward_grad_output",
    "nll_loss_double_backward_total_weight",
    "silu_backward_formula",
    "softmax_double_backward",
]

_MEAN = 1
_SUM = 2


def _add(total: Tensor | None, term: Tensor | None) -> Tensor | None:
    """`total + term`, where None stands for zero."""
    if term is None:
        return total
    return term if total is None else total + term


# ---- activations and softmax --------------------------------------------------------------------


def gelu_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor, approximate: str) -> Tensor:
    """d/dself of gelu_backward(grad_output, self) = grad_output * gelu'(self), times grad:
    gelu''(x) = phi(x) (2 - x^2) exactly, and for the tanh approximation (u = k (x + c x^3),
    t = tanh(u)): (1 - t^2) (k (1 + 3 c x^2) - x t k^2 (1 + 3 c x^2)^2 + 3 c k x^2)."""
    x = self
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        c = 0.044715
        x2 = x * x
        inner = (x + x2 * x * c) * k
        t = inner.tanh()
        du = (x2 * (3 * c) + 1) * k
        second = (1 - t * t) * (du - x * t * du * du + x2 * (3 * c * k))
    else:
        pdf = (x * x * -0.5).exp() * (1.0 / math.sqrt(2.0 * math.pi))
        second = pdf * (2 - x * x)
    return grad * grad_output * second


def silu_backward_formula(grad: Tensor, self: Tensor) -> Tensor:
    """The gradient of silu: grad * s (1 + x (1 - s)) with s = sigmoid(x).  When the backward pass
    records a graph (grad mode on) it is composed of differentiable operators, otherwise it is the
    fused silu_backward operator (which has no derivative, as in PyTorch)."""
    if not is_grad_enabled():
        result: Tensor = framework.silu_backward(grad, self)
        return result
    s = self.sigmoid()
    return grad * s * (self * (1 - s) + 1)


def softmax_double_backward(grad: Tensor, grad_output: Tensor, dim: int, output: Tensor) -> Tensor:
    """d/doutput of _softmax_backward_data(grad_output, output) = output (grad_output - sum(
    grad_output * output)), contracted with grad."""
    projected = (grad_output * output).sum(dim, True)
    return grad * (grad_output - projected) - grad_output * (grad * output).sum(dim, True)


def log_softmax_backward_grad_output(grad: Tensor, output: Tensor, dim: int) -> Tensor:
    """d/dgrad_output of _log_softmax_backward_data(grad_output, output) = grad_output -
    exp(output) sum(grad_output), contracted with grad."""
    return grad - (grad * output.exp()).sum(dim, True)


def log_softmax_double_backward(grad: Tensor, grad_output: Tensor, dim: int, output: Tensor) -> Tensor:
    """d/doutput of _log_softmax_backward_data(grad_output, output), contracted with grad."""
    return -(grad * output.exp()) * grad_output.sum(dim, True)


# ---- convolution --------------------------------------------------------------------------------


def convolution_backward_bias(grad: Tensor) -> Tensor:
    """A convolution bias's gradient: the output gradient summed over all but the channels."""
    return grad.sum([0, *range(2, grad.ndim)])


ConvGeometry = tuple[Sequence[int], Sequence[int], Sequence[int], bool, Sequence[int], int]
"""convolution's (stride, padding, dilation, transposed, output_padding, groups), passed through."""


def convolution_double_backward_grad_output(
    grads: Sequence[Tensor | None], input: Tensor, weight: Tensor, *geometry: *ConvGeometry
) -> Tensor | None:
    """d/dgrad_output of convolution_backward: the convolution is bilinear, so the input gradient
    of a gradient ggI is the convolution of ggI with the weight, that of a weight gradient ggW
    the convolution of the input with ggW, and a bias gradient ggb spreads over the positions."""
    gg_input, gg_weight, gg_bias = grads
    total = None
    if gg_input is not None:
        total = framework.convolution(gg_input, weight, None, *geometry)
    if gg_weight is not None:
        total = _add(total, framework.convolution(input, gg_weight, None, *geometry))
    if gg_bias is not None:
        total = _add(total, gg_bias.reshape(channel_shape(input.ndim)))
    return total


def _conv_grad(
    which: int, grad_output: Tensor, input: Tensor, weight: Tensor, geometry: ConvGeometry
) -> Tensor:
    """Output `which` (0: input, 1: weight) of convolution_backward, computed alone."""
    mask = [i == which for i in range(3)]
    result: Tensor = framework.convolution_backward(grad_output, input, weight, None, *geometry, mask)[which]
    return result


def convolution_double_backward_input(
    grads: Sequence[Tensor | None], grad_output: Tensor, input: Tensor, *geometry: *ConvGeometry
) -> Tensor | None:
    """d/dinput of convolution_backward: only its weight gradient reads the input; contracted
    with a weight gradient ggW it is the input gradient of a convolution with weight ggW."""
    gg_weight = grads[1]
    return None if gg_weight is None else _conv_grad(0, grad_output, input, gg_weight, geometry)


def convolution_double_backward_weight(
    grads: Sequence[Tensor | None], grad_output: Tensor, weight: Tensor, *geometry: *ConvGeometry
) -> Tensor | None:
    """d/dweight of convolution_backward: only its input gradient reads the weight; contracted
    with an input gradient ggI it is the weight gradient of a convolution of ggI."""
    gg_input = grads[0]
    return None if gg_input is None else _conv_grad(1, grad_output, gg_input, weight, geometry)


# ---- pooling, embedding, padding, dropout -------------------------------------------------------


def max_pool_double_backward(grad: Tensor, indices: Tensor, dim: int = 2) -> Tensor:
    """d/dgrad_output of a `dim`-d max pooling's backward: each output position reads the input
    gradient at the position its maximum came from (in its plane of the last `dim` dimensions)."""
    planes = grad.flatten(-dim)
    picked = planes.gather(-1, indices.flatten(-dim))
    return picked.reshape(list(indices.shape))


def embedding_dense_double_backward(
    grad: Tensor, indices: Tensor, padding_idx: int, scale_grad_by_freq: bool
) -> Tensor:
    """d/dgrad_output of embedding_dense_backward: each position reads its index's row of grad
    (nothing for padding_idx; divided by the index's count with scale_grad_by_freq)."""
    flat = indices.reshape(-1)
    rows = grad.index_select(0, flat)
    keep = flat.ne(padding_idx).to(grad.dtype).unsqueeze(1)
    if scale_grad_by_freq:
        counts = framework.zeros(grad.shape[0], dtype=grad.dtype, device=grad.device)
        counts = counts.index_put([flat], framework.ones(flat.shape, dtype=grad.dtype), True)
        keep = keep / counts.index_select(0, flat).unsqueeze(1)
    return (rows * keep).reshape([*indices.shape, grad.shape[1]])


def constant_pad_nd_backward(grad: Tensor, pad: Sequence[int]) -> Tensor:
    """The gradient of constant_pad_nd: grad with the padding cut off (negative padding back)."""
    result: Tensor = framework.constant_pad_nd(grad, [-p for p in pad])
    return result


# ---- layer and batch normalization --------------------------------------------------------------
#
# native_layer_norm_backward and native_batch_norm_backward receive the statistics (mean and rstd /
# invstd) as inputs.  When those require grad they are independent inputs and get their partial
# derivatives; otherwise they are taken as what they are in every graph autograd builds, the
# statistics of the input (or, for batch norm in evaluation, constants), and the input's gradient
# includes the paths through them (as PyTorch's double backward does).


def _project(v: Tensor, x_hat: Tensor, dims: list[int]) -> Tensor:
    """v minus its mean and its component along x_hat over `dims`: the adjoint of normalizing
    (x_hat has mean 0 and mean square 1 over `dims`)."""
    return v - v.mean(dims, True) - x_hat * (v * x_hat).mean(dims, True)


class _Partials:
    """Partial derivatives, with x_hat = (x - mean) * r and mean, r independent, of
    <gg, r * project(g)> (or <gg, r * g> without projection) + <gw, x_hat>, over `dims`; the
    derivatives by mean and r keep the reduced dims (size 1)."""

    __slots__ = ("mean", "r", "x")

    def __init__(
        self,
        gg: Tensor | None,
        g: Tensor,
        gw: Tensor | None,
        x_hat: Tensor,
        r: Tensor,
        dims: list[int],
        project: bool,
    ) -> None:
        n = math.prod(x_hat.shape[d] for d in dims)
        self.x: Tensor | None = None
        self.mean: Tensor | None = None
        self.r: Tensor | None = None
        if gg is not None and project:
            a = gg.sum(dims, True)
            c = (gg * x_hat).sum(dims, True)
            s = (gg * g).sum(dims, True)
            gm = g.mean(dims, True)
            m = (g * x_hat).mean(dims, True)
            self.x = -(r * r) * (c * g * (1.0 / n) + m * gg)
            self.mean = r * r * (c * gm + m * a)
            self.r = s - gm * a - m * c * 3
        elif gg is not None:
            self.r = (gg * g).sum(dims, True)
        if gw is not None:
            self.x = _add(self.x, r * gw)
            self.mean = _add(self.mean, -r * gw.sum(dims, True))
            self.r = _add(self.r, (gw * x_hat).sum(dims, True) / r)

    def through_statistics(
        self, x_hat: Tensor, r: Tensor, dims: list[int], mean_fixed: bool, r_fixed: bool
    ) -> Tensor | None:
        """The input's gradient when the statistics not `*_fixed` are the input's mean and
        1/sqrt(var + eps) over `dims` (d mean/dx = 1/n, d r/dx = -r^2 x_hat / n)."""
        n = math.prod(x_hat.shape[d] for d in dims)
        total = self.x
        if not mean_fixed and self.mean is not None:
            total = _add(total, (self.mean * (1.0 / n)).expand(list(x_hat.shape)))
        if not r_fixed and self.r is not None:
            total = _add(total, self.r * r * r * x_hat * (-1.0 / n))
        return total


LayerNormArgs = tuple[Tensor, Sequence[int], Tensor, Tensor, Tensor | None]
"""native_layer_norm_backward's (input, normalized_shape, mean, rstd, weight), passed through."""


def _layer_norm_parts(
    input: Tensor, normalized_shape: Sequence[int], mean: Tensor, rstd: Tensor
) -> tuple[Tensor, list[int], list[int]]:
    """(x_hat, normalized dims, leading dims)."""
    axis = input.ndim - len(normalized_shape)
    return (input - mean) * rstd, list(range(axis, input.ndim)), list(range(axis))


def _grad_out_terms(
    dx_term: Tensor | None, gg_weight: Tensor | None, gg_bias: Tensor | None, x_hat: Tensor
) -> Tensor | None:
    """d/dgrad_out of a normalization's backward (dx, dw = sum grad_out x_hat, db = sum grad_out),
    contracted with (ggI, ggW, ggb): `dx_term` (ggI's part) + ggW x_hat + ggb, the gradients of the
    parameters shaped to broadcast against x_hat."""
    total = _add(dx_term, None if gg_weight is None else gg_weight * x_hat)
    return _add(total, None if gg_bias is None else gg_bias.expand(list(x_hat.shape)))


def layer_norm_double_backward_grad_out(
    grads: Sequence[Tensor | None], *args: *LayerNormArgs
) -> Tensor | None:
    """d/dgrad_out of native_layer_norm_backward (dx = rstd project(grad_out w), dw = sum grad_out
    x_hat, db = sum grad_out), contracted with the gradients of (dx, dw, db)."""
    input, normalized_shape, mean, rstd, weight = args
    gg_input, gg_weight, gg_bias = grads
    x_hat, dims, _ = _layer_norm_parts(input, normalized_shape, mean, rstd)
    term = None
    if gg_input is not None:
        term = rstd * _project(gg_input, x_hat, dims)
        term = term if weight is None else term * weight
    return _grad_out_terms(term, gg_weight, gg_bias, x_hat)


def _layer_norm_double_backward(
    wrt: Literal["input", "mean", "rstd"],
    grads: Sequence[Tensor | None],
    grad_out: Tensor,
    *args: *LayerNormArgs,
) -> Tensor | None:
    """d/d`wrt` of native_layer_norm_backward, contracted with the gradients of (dx, dw, db): the
    input's through the statistics (unless they require grad), the statistics' as independent
    inputs."""
    input, normalized_shape, mean, rstd, weight = args
    gg_input, gg_weight, _ = grads
    x_hat, dims, _ = _layer_norm_parts(input, normalized_shape, mean, rstd)
    g = grad_out if weight is None else grad_out * weight
    gw = None if gg_weight is None else gg_weight * grad_out
    partials = _Partials(gg_input, g, gw, x_hat, rstd, dims, project=True)
    if wrt == "mean":
        return partials.mean
    if wrt == "rstd":
        return partials.r
    return partials.through_statistics(x_hat, rstd, dims, mean.requires_grad, rstd.requires_grad)


layer_norm_double_backward_input = functools.partial(_layer_norm_double_backward, "input")
layer_norm_double_backward_mean = functools.partial(_layer_norm_double_backward, "mean")
layer_norm_double_backward_rstd = functools.partial(_layer_norm_double_backward, "rstd")


def layer_norm_double_backward_weight(
    grads: Sequence[Tensor | None],
    grad_out: Tensor,
    input: Tensor,
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
) -> Tensor | None:
    """d/dweight of native_layer_norm_backward: only dx reads the weight."""
    gg_input = grads[0]
    if gg_input is None:
        return None
    x_hat, dims, lead = _layer_norm_parts(input, normalized_shape, mean, rstd)
    term = grad_out * rstd * _project(gg_input, x_hat, dims)
    return term.sum(lead) if lead else term


BatchNormStatistics = tuple[Tensor | None, Tensor | None, Tensor | None, Tensor | None, bool, float]
"""native_batch_norm_backward's (running_mean, running_var, save_mean, save_invstd, train, eps),
passed through."""


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    """A per-channel (C,) tensor shaped to broadcast against (N, C, ...)."""
    return t.reshape(channel_shape(ndim))


class _BatchNormParts:
    """x_hat and the per-channel mean and invstd (shaped to broadcast) that native_batch_norm_backward
    uses: the saved statistics in training, the running ones in evaluation; whether the saved
    statistics require grad."""

    __slots__ = ("dims", "invstd", "mean", "saved_require_grad", "train", "x_hat")

    def __init__(self, input: Tensor, *statistics: *BatchNormStatistics) -> None:
        running_mean, running_var, save_mean, save_invstd, train, eps = statistics
        ndim = input.ndim
        if train:
            assert save_mean is not None and save_invstd is not None
            mean, invstd = save_mean, save_invstd
            self.saved_require_grad = (save_mean.requires_grad, save_invstd.requires_grad)
        else:
            assert running_mean is not None and running_var is not None
            mean, invstd = running_mean, (running_var + eps).rsqrt()
            self.saved_require_grad = (False, False)
        self.train = train
        self.mean = _channel_view(mean, ndim)
        self.invstd = _channel_view(invstd, ndim)
        self.x_hat = (input - self.mean) * self.invstd
        self.dims = [0, *range(2, ndim)]

    def scaled(self, v: Tensor) -> Tensor:
        """invstd project(v) in training, invstd v in evaluation: dx for grad_out v (weight 1)."""
        return self.invstd * (_project(v, self.x_hat, self.dims) if self.train else v)


def batch_norm_double_backward_grad_out(
    grads: Sequence[Tensor | None], input: Tensor, weight: Tensor | None, *statistics: *BatchNormStatistics
) -> Tensor | None:
    """d/dgrad_out of native_batch_norm_backward (dx = w invstd project(grad_out) in training,
    w invstd grad_out in evaluation; dw = sum grad_out x_hat; db = sum grad_out)."""
    gg_input, gg_weight, gg_bias = grads
    parts = _BatchNormParts(input, *statistics)
    term = None
    if gg_input is not None:
        term = parts.scaled(gg_input if weight is None else gg_input * _channel_view(weight, input.ndim))
    return _grad_out_terms(
        term,
        None if gg_weight is None else _channel_view(gg_weight, input.ndim),
        None if gg_bias is None else _channel_view(gg_bias, input.ndim),
        parts.x_hat,
    )


def _batch_norm_double_backward(
    wrt: Literal["input", "mean", "invstd"],
    grads: Sequence[Tensor | None],
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    *statistics: *BatchNormStatistics,
) -> Tensor | None:
    """d/d`wrt` of native_batch_norm_backward, contracted with the gradients of (dx, dw, db): the
    input's (in training through the saved statistics too, unless they require grad); the mean's
    (the saved mean in training, the running mean in evaluation) and invstd's (save_invstd in
    training, running_var in evaluation: invstd = (var + eps)^-1/2) as independent inputs."""
    parts = _BatchNormParts(input, *statistics)
    gg_input, gg_weight, _ = grads
    ndim = grad_out.ndim
    gg = gg_input if gg_input is None or weight is None else gg_input * _channel_view(weight, ndim)
    gw = None if gg_weight is None else _channel_view(gg_weight, ndim) * grad_out
    partials = _Partials(gg, grad_out, gw, parts.x_hat, parts.invstd, parts.dims, project=parts.train)
    if wrt == "input":
        if not parts.train:
            return partials.x
        return partials.through_statistics(parts.x_hat, parts.invstd, parts.dims, *parts.saved_require_grad)
    partial = partials.mean if wrt == "mean" else partials.r
    if partial is None:
        return None
    if wrt == "invstd" and not parts.train:
        partial = partial * parts.invstd * parts.invstd * parts.invstd * -0.5
    return partial.reshape([-1])


batch_norm_double_backward_input = functools.partial(_batch_norm_double_backward, "input")
batch_norm_double_backward_mean = functools.partial(_batch_norm_double_backward, "mean")
batch_norm_double_backward_invstd = functools.partial(_batch_norm_double_backward, "invstd")


def batch_norm_double_backward_weight(
    grads: Sequence[Tensor | None], grad_out: Tensor, input: Tensor, *statistics: *BatchNormStatistics
) -> Tensor | None:
    """d/dweight of native_batch_norm_backward: only dx reads the weight."""
    gg_input = grads[0]
    if gg_input is None:
        return None
    parts = _BatchNormParts(input, *statistics)
    return (parts.scaled(gg_input) * grad_out).sum(parts.dims)


# ---- losses -------------------------------------------------------------------------------------


NllLossArgs = tuple[Tensor, Tensor | None, int, int, Tensor]
"""nll_loss_backward's (target, weight, reduction, ignore_index, total_weight), passed through."""


def _summed_nll(grad: Tensor, *args: *NllLossArgs) -> Tensor:
    """The loss of grad itself, summed (a mean's is this over total_weight)."""
    target, weight, _, ignore_index, _ = args
    total: Tensor = framework.nll_loss_forward(grad, target, weight, _SUM, ignore_index)[0]
    return total


def nll_loss_double_backward_grad_output(grad: Tensor, *args: *NllLossArgs) -> Tensor:
    """d/dgrad_output of nll_loss_backward (the gradient -w[t] grad_output, over total_weight for a
    mean, at each target), contracted with grad: the loss of grad itself."""
    target, weight, reduction, ignore_index, total_weight = args
    if reduction != _MEAN:
        unreduced: Tensor = framework.nll_loss_forward(grad, target, weight, reduction, ignore_index)[0]
        return unreduced
    return _summed_nll(grad, *args) / total_weight


def nll_loss_double_backward_total_weight(grad: Tensor, grad_output: Tensor, *args: *NllLossArgs) -> Tensor:
    """d/dtotal_weight of nll_loss_backward (it only divides a mean), contracted with grad."""
    _, _, reduction, _, total_weight = args
    if reduction != _MEAN:
        return framework.zeros(total_weight.shape, dtype=total_weight.dtype, device=total_weight.device)
    return -(grad_output * _summed_nll(grad, *args)) / (total_weight * total_weight)


def mse_loss_double_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    """d/dgrad_output of mse_loss_backward = 2 (self - target) / (numel for a mean), times grad."""
    return grad * (self - target) * (2.0 * reduction_grad_scale(reduction, self.numel()))


def mse_loss_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor, reduction: int) -> Tensor:
    """d/dself of mse_loss_backward = 2 grad_output / (numel for a mean), times grad (the target's
    is its negative)."""
    return grad * grad_output * (2.0 * reduction_grad_scale(reduction, self.numel()))


def _bce_scaled(value: Tensor, self: Tensor, weight: Tensor | None, reduction: int) -> Tensor:
    """`value` times what the reduction puts on each element (1/numel for a mean) and the weight."""
    value = value * reduction_grad_scale(reduction, self.numel())
    return value if weight is None else value * weight


def binary_cross_entropy_target_backward(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    """d/dtarget of binary_cross_entropy: w (log(1 - x) - log(x)), each logarithm floored at -100."""
    logs = (1 - self).log().clamp_min(BCE_LOG_FLOOR) - self.log().clamp_min(BCE_LOG_FLOOR)
    return _bce_scaled(grad * logs, self, weight, reduction)


def binary_cross_entropy_double_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    """d/dgrad_output of binary_cross_entropy_backward = w (x - t) / max(x (1 - x), 1e-12)."""
    ratio = (self - target) / ((1 - self) * self).clamp_min(BCE_EPSILON)
    return _bce_scaled(grad * ratio, self, weight, reduction)


def binary_cross_entropy_double_backward(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    """d/dself of binary_cross_entropy_backward: grad_output w (x^2 - 2 t x + t) / (x (1 - x))^2."""
    denominator = ((1 - self) * self).clamp_min(BCE_EPSILON)
    second = (self * self - target * self * 2 + target) / (denominator * denominator)
    return _bce_scaled(grad * grad_output * second, self, weight, reduction)


def binary_cross_entropy_double_backward_target(
    grad: Tensor, grad_output: Tensor, self: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    """d/dtarget of binary_cross_entropy_backward: -grad_output w / max(x (1 - x), 1e-12)."""
    denominator = ((1 - self) * self).clamp_min(BCE_EPSILON)
    return _bce_scaled(-grad * grad_output / denominator, self, weight, reduction)


def _log_sigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|)))."""
    return -((-x).clamp_min(0) + (-x.abs()).exp().log1p())


def _bce_with_logits_derivative(
    wrt: Literal["self", "target"],
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    pos_weight: Tensor | None,
    reduction: int,
) -> Tensor:
    """d/d`wrt` of binary_cross_entropy_with_logits, times the weight (p the positive weight, 1
    without): d/dself = sigmoid(x) (1 + (p - 1) t) - p t, d/dtarget = -x - (p - 1) log(sigmoid(x))."""
    if wrt == "self":
        s = self.sigmoid()
        value = (
            s - target if pos_weight is None else s * ((pos_weight - 1) * target + 1) - pos_weight * target
        )
    else:
        value = -self if pos_weight is None else -self - (pos_weight - 1) * _log_sigmoid(self)
    return _bce_scaled(grad * value, self, weight, reduction)


binary_cross_entropy_with_logits_backward = functools.partial(_bce_with_logits_derivative, "self")
binary_cross_entropy_with_logits_target_backward = functools.partial(_bce_with_logits_derivative, "target")
