"""Parameter initialisation (`torch.nn.init`): every function fills its tensor in place under
no_grad, drawing from the framework generator (the global one unless `generator` is given) in the
same order as PyTorch, so the same seed gives the same values."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Final, ParamSpec, TypeVar

import framework
from framework import Generator, no_grad
from framework._tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]

# Above this probability mass of [a, b], trunc_normal_ redraws normals rather than uniforms.
_NORMAL_REDRAW_MASS: Final = 0.3

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (`param`: leaky_relu's negative slope)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with values drawn from N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _redraw_normal_outside(
    tensor: Tensor, mean: float, std: float, low: float, high: float, generator: Generator | None
) -> None:
    """Fill with N(mean, std²), redrawing (a whole fresh tensor each round) wherever a value falls
    outside [low, high] until none does."""
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        result = framework.where(
            outside, framework.empty_like(result).normal_(mean, std, generator=generator), result
        )
    if result is not tensor:
        tensor.copy_(result)


def _log_density_excess(candidates: Tensor, mean: float, std: float, log_peak: float) -> Tensor:
    """log N(x; mean, std) - log of its peak on [a, b], in place (x is `candidates`)."""
    candidates.sub_(mean)
    candidates /= std
    return candidates.pow_(2).mul_(-0.5).sub_(log_peak)


def _uniform_rejection(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Generator | None
) -> None:
    """Fill with N(mean, std²) truncated to [a, b] by rejection from U(a, b): a candidate stays
    with probability density / peak density; rejected places draw again, all places each round."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = framework.empty_like(tensor)
    accept = framework.empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    pending = (
        accept.uniform_(generator=generator).log_().gt(_log_density_excess(candidates, mean, std, log_peak))
    )
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = framework.where(pending, candidates, result)
        rejected = (
            accept.uniform_(generator=generator)
            .log_()
            .gt(_log_density_excess(candidates, mean, std, log_peak))
        )
        pending = framework.where(pending, rejected, pending)
        if not pending.any():
            break
    tensor.copy_(result)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fill with values drawn from N(mean, std²) truncated to [a, b], by rejection as PyTorch
    (redrawing normals outside [a, b] when that interval holds more than 30% of the mass, else
    accepting uniform candidates by their density), so the same seed gives the same values."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
            "be incorrect.",
            stacklevel=2,
        )
    if tensor.device.type == "meta":
        return tensor
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > _NORMAL_REDRAW_MASS:
            low = float(framework.tensor(a, dtype=tensor.dtype))
            high = float(framework.tensor(b, dtype=tensor.dtype))
            _redraw_normal_outside(tensor, mean, std, low, high, generator)
        else:
            _uniform_rejection(tensor, mean, std, a, b, generator)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight laid out (out, in, *receptive field)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    shape = tensor.shape
    receptive_field_size = math.prod(shape[2:])
    return shape[1] * receptive_field_size, shape[0] * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot initialisation: U(-a, a) with a = gain·√(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot initialisation: N(0, std²) with std = gain·√(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_(
    tensor: Tensor, a: float, mode: str, nonlinearity: str, generator: Generator | None, uniform: bool
) -> Tensor:
    """He initialisation with std = gain / √fan: from U(-√3·std, √3·std) when `uniform`, else from
    N(0, std²). A tensor with no elements is left as it is (with PyTorch's warning)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    if uniform:
        bound = math.sqrt(3.0) * std
        return uniform_(tensor, -bound, bound, generator)
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He initialisation: U(-bound, bound) with bound = gain·√(3 / fan)."""
    return _kaiming_(tensor, a, mode, nonlinearity, generator, uniform=True)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He initialisation: N(0, std²) with std = gain / √fan."""
    return _kaiming_(tensor, a, mode, nonlinearity, generator, uniform=False)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d tensor with the identity matrix (ones on the diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        framework.eye(*tensor.shape, out=tensor)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight with the Dirac delta: each of the first
    min(out_channels / groups, in_channels) output channels of each group passes its input channel
    through unchanged (a one at the kernel's centre), everything else zero."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.device.type == "meta":
        return tensor
    per_group = sizes[0] // groups
    channels = framework.arange(min(per_group, sizes[1]))
    rows = (framework.arange(groups)[:, None] * per_group + channels).reshape(-1)
    centre = [framework.tensor(s // 2) for s in sizes[2:]]
    with no_grad():
        tensor.zero_()
        tensor[(rows, channels.repeat(groups), *centre)] = 1
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (the tensor seen as rows x the rest): the Q of the QR
    decomposition of a standard normal draw, its columns' signs made those of R's diagonal, times
    `gain`, so the same seed gives PyTorch's values."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.device.type == "meta":
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened = flattened.t()
    q, r = framework.linalg.qr(flattened)
    q = q * framework.diag(r, 0).sign()
    if rows < cols:
        q = q.t()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None) -> Tensor:
    """Fill a 2-d tensor from N(0, std²), then zero ceil(sparsity * rows) entries of each column,
    the rows chosen (column by column) by a random permutation from the global generator, as in
    PyTorch."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.device.type == "meta":
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = framework.randperm(rows)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _make_deprecate(meth: Callable[_P, _R]) -> Callable[_P, _R]:
    """The old name of an initializer (without its trailing underscore): it warns (FutureWarning)
    and calls the new one."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated: warns, then calls framework.nn.init.{new_name}."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
