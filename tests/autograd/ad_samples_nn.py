"""Sample inputs of the neural-network entries of derivatives.yaml (.deriv_parts/nn.yaml).

Inputs avoid the operators' points of non-differentiability: no ties inside a max-pooling window,
probabilities inside (0, 1) for binary cross entropy, dropout with p = 0 (its mask is then all
ones, so repeated calls agree), batch statistics over several elements.  Tensors are small
float64 ones; some are non-contiguous (transposed or strided) where the operator accepts them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Tensor:
    """float64 values uniform in [low, high)."""
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _distinct(seed: int, shape: tuple[int, ...]) -> Tensor:
    """float64 values in (-1, 1) whose pairwise gaps are all at least 0.5 / numel (no ties)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = (np.arange(n) + rng.uniform(0.25, 0.75, n)) / n * 2 - 1
    return framework.from_numpy(rng.permutation(values).reshape(shape))


def _ints(values: list[int] | list[list[int]]) -> Tensor:
    return framework.tensor(values, dtype=framework.int64)


def _transposed(seed: int, shape: tuple[int, int]) -> Tensor:
    """A non-contiguous tensor of `shape` (the transpose of a contiguous one)."""
    return _uniform(seed, (shape[1], shape[0])).t()


# ---- activations and softmax --------------------------------------------------------------------


def _gelu_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (2, 3), -2.0, 2.0),), desc="exact"),
        Sample((_transposed(1, (3, 2)),), {"approximate": "tanh"}, desc="tanh, non-contiguous"),
        Sample((_uniform(2, ()),), desc="0-dim"),
    ]


def _gelu_backward_samples() -> list[Sample]:
    return [
        Sample((_uniform(3, (2, 3)), _uniform(4, (2, 3), -2.0, 2.0)), desc="exact"),
        Sample((_uniform(5, (3,)), _uniform(6, (2, 3))), {"approximate": "tanh"}, desc="tanh, broadcast"),
    ]


def _silu_samples() -> list[Sample]:
    return [
        Sample((_uniform(7, (2, 3), -3.0, 3.0),)),
        Sample((_transposed(8, (2, 3)),), desc="non-contiguous"),
    ]


def _silu_backward_samples() -> list[Sample]:
    return [Sample((_uniform(9, (2, 3)), _uniform(10, (2, 3))))]


def _threshold_backward_samples() -> list[Sample]:
    """`self` away from the threshold (the gradient steps there)."""
    return [
        Sample((_uniform(60, (2, 3)), _distinct(61, (2, 3)), 0), desc="relu's threshold"),
        Sample((_uniform(62, (3,)), _distinct(63, (3, 2)).t(), 0.3), desc="broadcast, non-contiguous"),
    ]


def _softmax_samples() -> list[Sample]:
    return [
        Sample((_uniform(11, (2, 3, 2)), 1, False), desc="middle dim"),
        Sample((_transposed(12, (3, 4)), -1, False), desc="last dim, non-contiguous"),
        Sample((_uniform(13, ()), 0, False), desc="0-dim"),
    ]


def _softmax_backward_samples(log: bool) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        x = _uniform(14, (2, 4))
        output = (
            framework.ops.aten._log_softmax(x, 1, False) if log else framework.ops.aten._softmax(x, 1, False)
        )
        return [
            Sample((_uniform(15, (2, 4)), output, 1, framework.float64), desc="rows"),
            Sample((_uniform(16, (2, 4)), output, 0, framework.float64), desc="columns"),
        ]

    return samples


# ---- convolution --------------------------------------------------------------------------------


def _seeded(seeds: Iterator[int], *shapes: tuple[int, ...] | None) -> tuple[Tensor | None, ...]:
    """Uniform tensors of `shapes`, each from the next of `seeds` (None for None)."""
    return tuple(None if shape is None else _uniform(next(seeds), shape) for shape in shapes)


_Shapes = tuple[tuple[int, ...] | None, ...]
_ConvGeometry = tuple[list[int], list[int], list[int], bool, list[int], int]
"""(stride, padding, dilation, transposed, output_padding, groups)"""


def _convolution_samples() -> list[Sample]:
    cases: list[tuple[_Shapes, _ConvGeometry, str]] = [  # shapes: input, weight, bias
        (((2, 2, 4, 3), (3, 2, 2, 2), (3,)), ([1, 1], [0, 1], [1, 1], False, [0, 0], 1), "2-d with bias"),
        (
            ((1, 4, 5, 4), (2, 2, 2, 2), None),
            ([2, 1], [1, 0], [1, 2], False, [0, 0], 2),
            "groups, stride, dilation",
        ),
        (((2, 2, 5), (2, 2, 3), (2,)), ([2], [1], [1], False, [0], 1), "1-d"),
        (((1, 2, 3, 2), (2, 2, 2, 2), (2,)), ([2, 1], [1, 0], [1, 1], True, [1, 0], 1), "transposed"),
    ]
    seeds = itertools.count(20)
    return [Sample((*_seeded(seeds, *shapes), *geometry), desc=desc) for shapes, geometry, desc in cases]


def _convolution_backward_samples() -> list[Sample]:
    cases: list[tuple[_Shapes, list[int] | None, _ConvGeometry, str]] = [  # grad_output, input, weight
        (
            ((2, 3, 3, 2), (2, 2, 4, 3), (3, 2, 2, 2)),
            [3],
            ([1, 1], [0, 0], [1, 1], False, [0, 0], 1),
            "all three",
        ),
        (
            ((1, 2, 3, 2), (1, 4, 5, 4), (2, 2, 2, 2)),
            None,
            ([2, 1], [1, 0], [1, 2], False, [0, 0], 2),
            "groups, stride, dilation",
        ),
        (
            ((1, 2, 5, 3), (1, 2, 3, 2), (2, 2, 2, 2)),
            [2],
            ([2, 1], [1, 0], [1, 1], True, [1, 0], 1),
            "transposed",
        ),
    ]
    seeds = itertools.count(31)
    return [
        Sample((*_seeded(seeds, *shapes), bias_sizes, *geometry, [True, True, True]), desc=desc)
        for shapes, bias_sizes, geometry, desc in cases
    ]


# ---- pooling ------------------------------------------------------------------------------------


def _max_pool_samples() -> list[Sample]:
    return [
        Sample((_distinct(40, (2, 2, 4, 4)), [2, 2]), desc="2x2"),
        Sample((_distinct(41, (1, 5, 5)), [3, 2], [2, 2], [1, 1], [1, 1], True), desc="padding, ceil_mode"),
        Sample((_distinct(42, (1, 1, 5, 4)), [2, 2], [1, 1], [0, 0], [2, 1]), desc="dilation, overlapping"),
    ]


def _max_pool_backward_samples() -> list[Sample]:
    samples = []
    for seed, (shape, args) in enumerate(
        [
            ((1, 2, 4, 4), ([2, 2], [2, 2], [0, 0], [1, 1], False)),
            ((1, 5, 5), ([3, 2], [2, 2], [1, 1], [1, 1], True)),
        ]
    ):
        x = _distinct(43 + seed, shape)
        out, indices = framework.ops.aten.max_pool2d_with_indices(x, *args)
        samples.append(Sample((_uniform(45 + seed, tuple(out.shape)), x, *args, indices)))
    return samples


def _avg_pool_samples() -> list[Sample]:
    return [
        Sample((_uniform(50, (2, 2, 4, 4)), [2, 2]), desc="2x2"),
        Sample(
            (_uniform(51, (1, 5, 5)), [3, 3], [2, 2], [1, 1], True, False), desc="ceil_mode, padding excluded"
        ),
        Sample((_uniform(52, (1, 1, 5, 4)), [2, 3], [1, 2], [1, 1], False, True, 5), desc="divisor_override"),
    ]


def _avg_pool_backward_samples() -> list[Sample]:
    return [
        Sample(
            (
                _uniform(53, (1, 2, 2, 2)),
                _uniform(54, (1, 2, 4, 4)),
                [2, 2],
                [2, 2],
                [0, 0],
                False,
                True,
                None,
            )
        ),
        Sample((_uniform(55, (1, 3, 3)), _uniform(56, (1, 5, 5)), [3, 3], [2, 2], [1, 1], True, False, None)),
    ]


def _adaptive_avg_pool_samples() -> list[Sample]:
    return [
        Sample((_uniform(57, (1, 2, 5, 4)), [3, 2]), desc="overlapping windows"),
        Sample((_uniform(58, (2, 3, 3)), [1, 1]), desc="3-d input, 1x1"),
    ]


def _adaptive_avg_pool_backward_samples() -> list[Sample]:
    return [Sample((_uniform(59, (1, 2, 3, 2)), _uniform(60, (1, 2, 5, 4))))]


# ---- embedding ----------------------------------------------------------------------------------


def _embedding_samples() -> list[Sample]:
    return [
        Sample((_uniform(61, (5, 3)), _ints([[1, 4], [1, 0]])), desc="repeated index"),
        Sample((_uniform(62, (4, 2)), _ints([3, 0, 1]), 2, True), desc="padding_idx, scale_grad_by_freq"),
    ]


def _embedding_backward_samples() -> list[Sample]:
    return [
        Sample((_uniform(63, (2, 2, 3)), _ints([[1, 4], [1, 0]]), 5, -1, False)),
        Sample((_uniform(64, (3, 2)), _ints([3, 0, 3]), 4, 0, False), desc="padding_idx"),
    ]


# ---- normalization ------------------------------------------------------------------------------


def _layer_norm_samples() -> list[Sample]:
    return [
        Sample((_uniform(70, (2, 3, 4)), [4], _uniform(71, (4,)), _uniform(72, (4,)), 1e-5), desc="affine"),
        Sample((_uniform(73, (3, 2, 2)), [2, 2], None, None, 1e-5), desc="two normalized dims"),
    ]


def _layer_norm_backward_samples() -> list[Sample]:
    samples = []
    for seed, (shape, normalized, affine, mask) in enumerate(
        [((2, 3, 4), [4], True, [True, True, True]), ((3, 2, 2), [2, 2], False, [True, True, True])]
    ):
        x = _uniform(74 + seed, shape)
        weight = _uniform(76 + seed, tuple(normalized)) if affine else None
        bias = _uniform(78 + seed, tuple(normalized)) if affine else None
        _, mean, rstd = framework.ops.aten.native_layer_norm(x, normalized, weight, bias, 1e-5)
        samples.append(Sample((_uniform(80 + seed, shape), x, normalized, mean, rstd, weight, bias, mask)))
    return samples


def _batch_norm_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(81, (3, 2, 2, 2)), _uniform(82, (2,)), _uniform(83, (2,)), None, None, True, 0.1, 1e-5),
            desc="training, affine",
        ),
        Sample(
            (_uniform(84, (4, 3)), None, None, None, None, True, 0.1, 1e-5),
            desc="training without running stats",
        ),
    ]


def _batch_norm_backward_samples() -> list[Sample]:
    aten = framework.ops.aten
    x = _uniform(90, (3, 2, 2))
    weight = _uniform(91, (2,))
    _, save_mean, save_invstd = aten.native_batch_norm(x, weight, None, None, None, True, 0.1, 1e-5)
    running_mean, running_var = _uniform(92, (2,)), _uniform(93, (2,), 0.5, 1.5)
    return [
        Sample(
            (
                _uniform(94, (3, 2, 2)),
                x,
                weight,
                None,
                None,
                save_mean,
                save_invstd,
                True,
                1e-5,
                [True, True, True],
            ),
            desc="training",
        ),
        Sample(
            (
                _uniform(95, (3, 2, 2)),
                x,
                weight,
                running_mean,
                running_var,
                None,
                None,
                False,
                1e-5,
                [True, True, True],
            ),
            desc="evaluation",
        ),
    ]


# ---- losses -------------------------------------------------------------------------------------


def _nll_samples() -> list[Sample]:
    target = _ints([1, 0, 3, -100, 2])
    return [
        Sample((_uniform(100, (5, 4)), target, None, 1, -100), desc="mean, an ignored target"),
        Sample((_uniform(101, (5, 4)), target, None, 0, -100), desc="none"),
        Sample((_uniform(103, (4,)), _ints(2), None, 2, -100), desc="unbatched, sum"),
    ]


def _nll_backward_samples() -> list[Sample]:
    target = _ints([1, 0, 3, -100, 2])
    samples = []
    for seed, reduction in enumerate((0, 1, 2)):
        x = _uniform(105 + seed, (5, 4))
        _, total = framework.ops.aten.nll_loss_forward(x, target, None, reduction, -100)
        grad = _uniform(108 + seed, (5,) if reduction == 0 else ())
        samples.append(Sample((grad, x, target, None, reduction, -100, total), desc=f"reduction {reduction}"))
    return samples


def _mse_samples() -> list[Sample]:
    return [
        Sample((_uniform(110, (2, 3)), _uniform(111, (2, 3))), desc="mean"),
        Sample((_transposed(112, (2, 3)), _uniform(113, (2, 3)), 0), desc="none, non-contiguous"),
        Sample((_uniform(114, (4,)), _uniform(115, (4,)), 2), desc="sum"),
    ]


def _mse_backward_samples() -> list[Sample]:
    return [
        Sample((_uniform(116, ()), _uniform(117, (2, 3)), _uniform(118, (2, 3)), 1), desc="mean"),
        Sample((_uniform(119, (2, 3)), _uniform(120, (2, 3)), _uniform(121, (2, 3)), 0), desc="none"),
    ]


def _probabilities(seed: int, shape: tuple[int, ...]) -> Tensor:
    return _uniform(seed, shape, 0.1, 0.9)


def _bce_samples() -> list[Sample]:
    return [
        Sample((_probabilities(122, (2, 3)), _probabilities(123, (2, 3))), desc="mean"),
        Sample((_probabilities(124, (2, 3)), _probabilities(125, (2, 3)), None, 0), desc="none"),
        Sample((_probabilities(127, (4,)), _probabilities(128, (4,)), None, 2), desc="sum"),
    ]


def _bce_backward_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(129, ()), _probabilities(130, (2, 3)), _probabilities(131, (2, 3)), None, 1),
            desc="mean",
        ),
        Sample(
            (_uniform(132, (2, 3)), _probabilities(133, (2, 3)), _probabilities(134, (2, 3)), None, 0),
            desc="none",
        ),
    ]


def _bce_logits_samples() -> list[Sample]:
    return [
        Sample((_uniform(136, (2, 3), -3.0, 3.0), _probabilities(137, (2, 3))), desc="mean"),
        Sample((_uniform(138, (2, 3), -3.0, 3.0), _probabilities(139, (2, 3)), None, None, 0), desc="none"),
        Sample(
            (_transposed(142, (2, 2)), _probabilities(143, (2, 2)), None, None, 2), desc="sum, non-contiguous"
        ),
    ]


# ---- padding, dropout ---------------------------------------------------------------------------


def _constant_pad_samples() -> list[Sample]:
    return [
        Sample((_uniform(150, (2, 3)), [1, 2]), desc="last dim"),
        Sample((_uniform(151, (2, 3, 4)), [1, -1, 2, 0], 0.5), desc="cropping, value"),
    ]


def _pad2d_samples() -> list[Sample]:
    return [
        Sample((_uniform(152, (1, 2, 3, 4)), [1, 2, 2, 0])),
        Sample((_uniform(153, (2, 3, 3)), [2, 1, 1, 1]), desc="3-d input"),
    ]


def _pad2d_backward_samples() -> list[Sample]:
    return [Sample((_uniform(154, (1, 2, 5, 7)), _uniform(155, (1, 2, 3, 4)), [1, 2, 2, 0]))]


def _dropout_samples() -> list[Sample]:
    return [
        Sample((_uniform(156, (2, 3)), 0.0, True), desc="training, p = 0"),
        Sample((_uniform(157, (2, 3)), 0.5, False), desc="evaluation"),
    ]


def _dropout_backward_samples() -> list[Sample]:
    mask = framework.from_numpy(np.array([[True, False, True], [False, True, True]]))
    return [Sample((_uniform(158, (2, 3)), mask, 2.0))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "gelu": _gelu_samples,
    "gelu_backward": _gelu_backward_samples,
    "silu": _silu_samples,
    "silu_backward": _silu_backward_samples,
    "threshold_backward": _threshold_backward_samples,
    "_softmax": _softmax_samples,
    "_log_softmax": _softmax_samples,
    "_softmax_backward_data": _softmax_backward_samples(log=False),
    "_log_softmax_backward_data": _softmax_backward_samples(log=True),
    "convolution": _convolution_samples,
    "convolution_backward": _convolution_backward_samples,
    "max_pool2d_with_indices": _max_pool_samples,
    "max_pool2d_with_indices_backward": _max_pool_backward_samples,
    "avg_pool2d": _avg_pool_samples,
    "avg_pool2d_backward": _avg_pool_backward_samples,
    "_adaptive_avg_pool2d": _adaptive_avg_pool_samples,
    "_adaptive_avg_pool2d_backward": _adaptive_avg_pool_backward_samples,
    "embedding": _embedding_samples,
    "embedding_dense_backward": _embedding_backward_samples,
    "native_layer_norm": _layer_norm_samples,
    "native_layer_norm_backward": _layer_norm_backward_samples,
    "native_batch_norm": _batch_norm_samples,
    "native_batch_norm_backward": _batch_norm_backward_samples,
    "nll_loss_forward": _nll_samples,
    "nll_loss_backward": _nll_backward_samples,
    "mse_loss": _mse_samples,
    "mse_loss_backward": _mse_backward_samples,
    "binary_cross_entropy": _bce_samples,
    "binary_cross_entropy_backward": _bce_backward_samples,
    "binary_cross_entropy_with_logits": _bce_logits_samples,
    "constant_pad_nd": _constant_pad_samples,
    "reflection_pad2d": _pad2d_samples,
    "reflection_pad2d_backward": _pad2d_backward_samples,
    "replication_pad2d": _pad2d_samples,
    "replication_pad2d_backward": _pad2d_backward_samples,
    "native_dropout": _dropout_samples,
    "native_dropout_backward": _dropout_backward_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "silu_backward": "no derivative, as in PyTorch: backward raises (silu's own formula is differentiable)",
}
