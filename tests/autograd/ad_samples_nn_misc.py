"""Sample inputs of the entries of derivatives.yaml for rrelu_with_noise, channel_shuffle, pdist,
the margin losses, _trilinear and _embedding_bag (framework/ops/kernels/nn_misc.py).

rrelu in training draws its slopes: the training samples use lower == upper, so every call gives
the same function (and copy their noise inside each call). PyTorch refuses a noise that requires
grad, so rrelu's entries are compared with torch by the behaviour tests. Max-mode bags get inputs
without ties. Tensors are small float64 ones."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_nn import _distinct, _uniform

import framework


def _fresh(t: framework.Tensor) -> framework.Tensor:
    """A copy made inside each call, so the noise the operator writes is new every time."""
    return t * 1


def _rrelu_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(300, (3, 4)), framework.zeros(3, 4, dtype=framework.float64), 0.1, 0.3, False),
            desc="eval",
            prepare=_fresh,
        ),
        Sample(
            (_uniform(301, (2, 5)), framework.zeros(2, 5, dtype=framework.float64), 0.2, 0.2, True),
            desc="training, one slope",
            prepare=_fresh,
        ),
    ]


def _rrelu_backward_samples() -> list[Sample]:
    x = _uniform(302, (3, 4))
    noise = framework.where(x > 0, 1.0, 0.25).to(framework.float64)
    return [Sample((_uniform(303, (3, 4)), x, noise, 0.1, 0.3, False, False), desc="eval")]


def _channel_shuffle_samples() -> list[Sample]:
    return [Sample((_uniform(305, (2, 6, 3)), 3)), Sample((_uniform(306, (1, 4, 2, 2)).transpose(2, 3), 2))]


def _pdist_samples() -> list[Sample]:
    return [
        Sample((_uniform(307, (4, 3)),)),
        Sample((_uniform(308, (3, 2)), 1.5), desc="p = 1.5"),
        Sample((_uniform(309, (3, 4)), 3.0), desc="p = 3"),
    ]


def _pdist_backward_samples() -> list[Sample]:
    x = _uniform(310, (3, 2))
    return [Sample((_uniform(311, (3,)), x, 2.0, framework._pdist_forward(x)))]


def _multi_margin_samples() -> list[Sample]:
    target = framework.tensor([0, 3, 1])
    return [
        Sample((_uniform(312, (3, 4)), target, 1, 0.8, None, 1)),
        Sample((_uniform(313, (3, 4)), target, 2, 1.0, None, 0), desc="p=2, none"),
    ]


def _multi_margin_backward_samples() -> list[Sample]:
    return [Sample((_uniform(315, ()), _uniform(316, (3, 4)), framework.tensor([0, 3, 1]), 1, 1.0, None, 2))]


def _multilabel_targets() -> framework.Tensor:
    return framework.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 0, 0, 0]])


def _multilabel_samples() -> list[Sample]:
    return [
        Sample((_uniform(317, (3, 4)), _multilabel_targets(), 1)),
        Sample((_uniform(318, (4,)), framework.tensor([2, -1, 0, 0]), 0), desc="one sample"),
    ]


def _multilabel_backward_samples() -> list[Sample]:
    x = _uniform(319, (3, 4))
    _, is_target = framework.multilabel_margin_loss_forward(x, _multilabel_targets(), 0)
    return [Sample((_uniform(320, (3,)), x, _multilabel_targets(), 0, is_target))]


def _trilinear_samples() -> list[Sample]:
    return [
        Sample(
            (
                _uniform(321, (3, 4)),
                _uniform(322, (2, 4, 5)),
                _uniform(323, (3, 5)),
                [1, 3],
                [0],
                [1, 2],
                [2, 3],
            ),
            desc="bilinear's layout",
        ),
        Sample(
            (_uniform(324, (2, 3)), _uniform(325, (3, 4)), _uniform(326, (2, 4)), [2], [0], [1], [1]),
            desc="three-way product",
        ),
    ]


def _embedding_bag_samples() -> list[Sample]:
    indices = framework.tensor([1, 2, 0, 4, 1, 3])
    offsets = framework.tensor([0, 2, 2, 4])
    return [
        Sample(
            (_uniform(327, (5, 3)), indices, offsets, False, 1, False, None, False, 1), desc="mean, padding"
        ),
        Sample(
            (_uniform(328, (5, 3)), indices, offsets, False, 0, False, _uniform(329, (6,)), False, -1),
            desc="sum, per-sample weights",
        ),
        Sample((_distinct(330, (5, 3)), indices, offsets, False, 2, False, None, False, -1), desc="max"),
    ]


def _embedding_bag_backward_samples() -> list[Sample]:
    indices, offsets = framework.tensor([1, 2, 0]), framework.tensor([0, 2])
    _, offset2bag, bag_size, maximum = framework._embedding_bag(
        _uniform(331, (4, 2)), indices, offsets, False, 1, False, None, False, -1
    )
    return [
        Sample(
            (_uniform(332, (2, 2)), indices, offsets, offset2bag, bag_size, maximum, 4, False, 1, False, None)
        )
    ]


def _per_sample_weights_backward_samples() -> list[Sample]:
    indices, offsets = framework.tensor([1, 2, 0]), framework.tensor([0, 2])
    return [
        Sample(
            (_uniform(333, (2, 2)), _uniform(334, (4, 2)), indices, offsets, framework.tensor([0, 0, 1]), 0)
        )
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "rrelu_with_noise": _rrelu_samples,
    "rrelu_with_noise_": _rrelu_samples,
    "rrelu_with_noise_backward": _rrelu_backward_samples,
    "channel_shuffle": _channel_shuffle_samples,
    "_pdist_forward": _pdist_samples,
    "_pdist_backward": _pdist_backward_samples,
    "multi_margin_loss": _multi_margin_samples,
    "multi_margin_loss_backward": _multi_margin_backward_samples,
    "multilabel_margin_loss_forward": _multilabel_samples,
    "multilabel_margin_loss_backward": _multilabel_backward_samples,
    "_trilinear": _trilinear_samples,
    "_embedding_bag": _embedding_bag_samples,
    "_embedding_bag_backward": _embedding_bag_backward_samples,
    "_embedding_bag_per_sample_weights_backward": _per_sample_weights_backward_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "_pdist_forward": "PyTorch's _pdist_backward has no derivative (PdistBackwardBackward0 raises)",
    "multi_margin_loss": "multi_margin_loss_backward has no derivative in PyTorch",
    "multilabel_margin_loss_forward": "multilabel_margin_loss_backward has no derivative in PyTorch",
    "_embedding_bag": "_embedding_bag_backward has no derivative in PyTorch",
}
