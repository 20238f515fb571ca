"""Sample inputs of the activation and loss entries of derivatives.yaml that
framework/ops/kernels/activation.py serves.

Inputs avoid the operators' kinks: values keep a gap from 0, from the clamping bounds of hardtanh,
hardsigmoid and hardswish (+-3), from the shrink thresholds, and, for the losses, differences keep
a gap from beta/delta.  Tensors are small float64 ones; some are non-contiguous or broadcast.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Tensor:
    """float64 values uniform in [low, high)."""
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _away(seed: int, shape: tuple[int, ...], scale: float = 1.0, kinks: tuple[float, ...] = (0.0,)) -> Tensor:
    """float64 values in (-scale, scale) at least 0.01 * scale away from each of `kinks`."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(-scale, scale, shape)
    for kink in kinks:
        near = np.abs(values - kink) < 0.01 * scale
        values = np.where(near, kink + 0.05 * scale, values)
    return framework.from_numpy(values)


def _pointwise(
    seed: int, scale: float = 2.0, kinks: tuple[float, ...] = (0.0,), **kwargs: object
) -> list[Sample]:
    """A 2x3 sample, a non-contiguous one and a 0-dim one of a unary activation."""
    return [
        Sample((_away(seed, (2, 3), scale, kinks),), dict(kwargs), desc="2x3"),
        Sample((_away(seed + 1, (3, 2), scale, kinks).t(),), dict(kwargs), desc="non-contiguous"),
        Sample((_away(seed + 2, (), scale, kinks),), dict(kwargs), desc="0-dim"),
    ]


def _backward(seed: int, scale: float = 2.0, kinks: tuple[float, ...] = (0.0,)) -> tuple[Tensor, Tensor]:
    """(grad_output, self) of a pointwise backward operator."""
    return _uniform(seed, (2, 3)), _away(seed + 1, (2, 3), scale, kinks)


def _leaky_relu_samples() -> list[Sample]:
    return [*_pointwise(0), Sample((_away(3, (4,)), 0.2), desc="slope 0.2")]


def _leaky_relu_backward_samples() -> list[Sample]:
    g, x = _backward(4)
    return [
        Sample((g, x, 0.01, False)),
        Sample((_uniform(6, (3,)), x, 0.3, True), desc="from the result, broadcast"),
    ]


def _elu_samples() -> list[Sample]:
    return [*_pointwise(10), Sample((_away(13, (4,)), 0.5, 2.0, 1.5), desc="alpha, scale, input_scale")]


def _elu_backward_samples() -> list[Sample]:
    g, x = _backward(14)
    result = framework.ops.aten.elu(x, 1.5, 2.0, 0.5)
    return [
        Sample((g, 1.0, 1.0, 1.0, False, x), desc="from the input"),
        Sample((g, 1.5, 2.0, 0.5, True, result), desc="from the result"),
    ]


def _celu_samples() -> list[Sample]:
    return [*_pointwise(20), Sample((_away(23, (4,)), 0.7), desc="alpha 0.7")]


def _softplus_samples() -> list[Sample]:
    return [*_pointwise(30), Sample((_away(33, (5,), 3.0, (2.0,)), 2.0, 4.0), desc="beta 2, threshold 4")]


def _softplus_backward_samples() -> list[Sample]:
    g, x = _backward(34)
    return [
        Sample((g, x, 1.0, 20.0)),
        Sample((g, _away(36, (2, 3), 3.0, (1.0,)), 2.0, 2.0), desc="linear part"),
    ]


def _hardtanh_samples() -> list[Sample]:
    return [
        *_pointwise(40, kinks=(-1.0, 1.0)),
        Sample((_away(43, (5,), 3.0, (-0.5, 2.0)), -0.5, 2.0), desc="bounds -0.5, 2"),
    ]


def _hardtanh_backward_samples() -> list[Sample]:
    g, x = _backward(44, kinks=(-1.0, 1.0))
    return [Sample((g, x, -1.0, 1.0))]


def _hardsigmoid_samples() -> list[Sample]:
    return _pointwise(50, 5.0, (-3.0, 3.0))


def _hardsigmoid_backward_samples() -> list[Sample]:
    g, x = _backward(53, 5.0, (-3.0, 3.0))
    return [Sample((g, x))]


def _hardswish_samples() -> list[Sample]:
    return _pointwise(55, 5.0, (-3.0, 3.0))


def _hardswish_backward_samples() -> list[Sample]:
    g, x = _backward(58, 5.0, (-3.0, 3.0))
    return [Sample((g, x))]


def _mish_samples() -> list[Sample]:
    return _pointwise(60, 3.0)


def _mish_backward_samples() -> list[Sample]:
    return [Sample(_backward(63, 3.0))]


def _log_sigmoid_samples() -> list[Sample]:
    return _pointwise(65, 4.0)


def _log_sigmoid_backward_samples() -> list[Sample]:
    g, x = _backward(68, 4.0)
    buffer = framework.ops.aten.log_sigmoid_forward(x)[1]
    return [Sample((g, x, buffer))]


def _prelu_samples() -> list[Sample]:
    return [
        Sample((_away(70, (2, 3, 2)), _uniform(71, (1, 3, 1))), desc="per channel"),
        Sample((_away(72, (2, 3)), _uniform(73, (1,))), desc="one weight"),
    ]


def _prelu_backward_samples() -> list[Sample]:
    return [Sample((_uniform(74, (2, 3, 2)), _away(75, (2, 3, 2)), _uniform(76, (1, 3, 1))))]


def _glu_samples() -> list[Sample]:
    return [
        Sample((_uniform(80, (2, 4)),), desc="last dim"),
        Sample((_uniform(81, (3, 4)).t(), 0), desc="dim 0, non-contiguous"),
    ]


def _glu_backward_samples() -> list[Sample]:
    return [
        Sample((_uniform(82, (2, 2)), _uniform(83, (2, 4)), -1)),
        Sample((_uniform(84, (1, 3)), _uniform(85, (2, 3)), 0), desc="dim 0"),
    ]


def _shrink_samples() -> list[Sample]:
    return [
        *_pointwise(90, kinks=(-0.5, 0.5)),
        Sample((_away(93, (5,), 2.0, (-1.0, 1.0)), 1.0), desc="lambd 1"),
    ]


def _shrink_backward_samples() -> list[Sample]:
    g, x = _backward(94, kinks=(-0.5, 0.5))
    return [Sample((g, x, 0.5))]


def _threshold_samples() -> list[Sample]:
    return [
        Sample((_away(100, (2, 3), 2.0, (0.1,)), 0.1, 2.0)),
        Sample((_away(101, (3, 2), 2.0, (-0.5,)).t(), -0.5, 0.0), desc="non-contiguous"),
    ]


def _distance_pair(seed: int, shape: tuple[int, ...], kinks: tuple[float, ...]) -> tuple[Tensor, Tensor]:
    """(self, target) whose differences keep away from `kinks` (and their negatives)."""
    target = _uniform(seed, shape)
    difference = _away(seed + 1, shape, 3.0, tuple(k for kink in kinks for k in (kink, -kink)))
    return target + difference, target


def _smooth_l1_samples() -> list[Sample]:
    x, t = _distance_pair(110, (2, 3), (1.0,))
    x2, t2 = _distance_pair(112, (4,), (0.5,))
    return [
        Sample((x, t), desc="mean"),
        Sample((x.t(), t.t(), 0), desc="none, non-contiguous"),
        Sample((x2, t2, 2, 0.5), desc="sum, beta 0.5"),
    ]


def _smooth_l1_backward_samples() -> list[Sample]:
    x, t = _distance_pair(114, (2, 3), (1.0,))
    return [
        Sample((_uniform(116, ()), x, t, 1, 1.0), desc="mean"),
        Sample((_uniform(117, (2, 3)), x, t, 0, 1.0), desc="none"),
    ]


def _huber_samples() -> list[Sample]:
    x, t = _distance_pair(120, (2, 3), (1.0,))
    x2, t2 = _distance_pair(122, (4,), (2.0,))
    return [
        Sample((x, t), desc="mean"),
        Sample((x.t(), t.t(), 0), desc="none, non-contiguous"),
        Sample((x2, t2, 2, 2.0), desc="sum, delta 2"),
    ]


def _huber_backward_samples() -> list[Sample]:
    x, t = _distance_pair(124, (2, 3), (1.0,))
    return [
        Sample((_uniform(126, ()), x, t, 2, 1.0), desc="sum"),
        Sample((_uniform(127, (2, 3)), x, t, 0, 1.0), desc="none"),
    ]


def _signs(seed: int, shape: tuple[int, ...]) -> Tensor:
    """int64 targets of -1 and 1 (soft_margin_loss's target is not differentiable)."""
    return framework.from_numpy(np.random.default_rng(seed).choice([-1, 1], shape))


def _soft_margin_samples() -> list[Sample]:
    return [
        Sample((_uniform(130, (2, 3), -2.0, 2.0), _signs(131, (2, 3))), desc="mean"),
        Sample((_uniform(132, (3, 2)).t(), _signs(133, (2, 3)), 0), desc="none, non-contiguous"),
    ]


def _soft_margin_backward_samples() -> list[Sample]:
    return [
        Sample((_uniform(134, ()), _uniform(135, (2, 3)), _signs(136, (2, 3)), 1), desc="mean"),
        Sample((_uniform(137, (2, 3)), _uniform(138, (2, 3)), _signs(139, (2, 3)), 0), desc="none"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "leaky_relu": _leaky_relu_samples,
    "leaky_relu_": _leaky_relu_samples,
    "leaky_relu_backward": _leaky_relu_backward_samples,
    "elu": _elu_samples,
    "elu_": _elu_samples,
    "elu_backward": _elu_backward_samples,
    "celu": _celu_samples,
    "celu_": _celu_samples,
    "softplus": _softplus_samples,
    "softplus_backward": _softplus_backward_samples,
    "hardtanh": _hardtanh_samples,
    "hardtanh_backward": _hardtanh_backward_samples,
    "hardsigmoid": _hardsigmoid_samples,
    "hardsigmoid_backward": _hardsigmoid_backward_samples,
    "hardswish": _hardswish_samples,
    "hardswish_backward": _hardswish_backward_samples,
    "mish": _mish_samples,
    "mish_backward": _mish_backward_samples,
    "log_sigmoid_forward": _log_sigmoid_samples,
    "log_sigmoid_backward": _log_sigmoid_backward_samples,
    "_prelu_kernel": _prelu_samples,
    "_prelu_kernel_backward": _prelu_backward_samples,
    "glu": _glu_samples,
    "glu_backward": _glu_backward_samples,
    "softshrink": _shrink_samples,
    "softshrink_backward": _shrink_backward_samples,
    "hardshrink": _shrink_samples,
    "hardshrink_backward": _shrink_backward_samples,
    "threshold": _threshold_samples,
    "threshold_": _threshold_samples,
    "smooth_l1_loss": _smooth_l1_samples,
    "smooth_l1_loss_backward": _smooth_l1_backward_samples,
    "huber_loss": _huber_samples,
    "huber_loss_backward": _huber_backward_samples,
    "soft_margin_loss": _soft_margin_samples,
    "soft_margin_loss_backward": _soft_margin_backward_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "hardsigmoid": "its backward operator has no derivative, as in PyTorch: double backward raises",
    "hardsigmoid_backward": "no derivative, as in PyTorch: backward raises",
    "mish_backward": "no derivative, as in PyTorch: backward raises (mish's own formula is differentiable)",
}
