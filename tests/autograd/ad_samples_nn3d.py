"""Sample inputs of the entries of derivatives.yaml for 3-d pooling, padding and unpooling and
for im2col/col2im (framework/ops/kernels/nn3d.py).

Max pooling inputs have no ties inside a window; tensors are small float64 ones, one of them
non-contiguous."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_nn import _distinct, _uniform

import framework


def _max_pool3d_samples() -> list[Sample]:
    return [
        Sample((_distinct(300, (1, 2, 4, 4, 4)), [2, 2, 2]), desc="tiling"),
        Sample(
            (_distinct(301, (2, 3, 5, 4)), [3, 2, 2], [2, 1, 2], [1, 0, 1], [1, 2, 1], True),
            desc="unbatched, padding, dilation, ceil_mode",
        ),
    ]


def _max_pool3d_backward_samples() -> list[Sample]:
    x = _distinct(302, (1, 2, 4, 3, 4))
    args = ([2, 2, 2], [2, 1, 2], [1, 0, 0], [1, 1, 1], False)
    out, indices = framework.ops.aten.max_pool3d_with_indices(x, *args)
    return [Sample((_uniform(303, tuple(out.shape)), x, *args, indices))]


def _avg_pool3d_samples() -> list[Sample]:
    return [
        Sample((_uniform(304, (1, 1, 4, 4, 4)).transpose(-1, -2), [2, 2, 2]), desc="non-contiguous"),
        Sample(
            (_uniform(305, (2, 3, 5, 4)), [3, 2, 2], [2, 1, 2], [1, 1, 0], True, False),
            desc="unbatched, ceil_mode, padding excluded",
        ),
        Sample(
            (_uniform(306, (1, 1, 3, 4, 4)), [2, 3, 2], [1, 1, 2], [0, 1, 1], False, True, 5), desc="divisor"
        ),
    ]


def _avg_pool3d_backward_samples() -> list[Sample]:
    x = _uniform(307, (1, 2, 4, 3, 4))
    args = ([2, 2, 2], [2, 1, 2], [1, 0, 1], True, False, None)
    out = framework.ops.aten.avg_pool3d(x, *args)
    return [Sample((_uniform(308, tuple(out.shape)), x, *args))]


def _adaptive_avg_pool3d_samples() -> list[Sample]:
    return [Sample((_uniform(309, (1, 2, 5, 3, 4)), [3, 2, 3]), desc="overlapping windows")]


def _adaptive_avg_pool3d_backward_samples() -> list[Sample]:
    return [Sample((_uniform(310, (2, 3, 2, 3)), _uniform(311, (2, 5, 3, 4))), desc="unbatched")]


def _adaptive_max_pool3d_samples() -> list[Sample]:
    return [Sample((_distinct(312, (1, 2, 5, 3, 4)), [3, 2, 3]), desc="overlapping windows")]


def _adaptive_max_pool3d_backward_samples() -> list[Sample]:
    x = _distinct(313, (1, 2, 5, 3, 4))
    _, indices = framework.ops.aten.adaptive_max_pool3d(x, [3, 2, 3])
    return [Sample((_uniform(314, (1, 2, 3, 2, 3)), x, indices))]


def _pad3d_samples() -> list[Sample]:
    return [
        Sample((_uniform(315, (1, 1, 3, 4, 3)), [1, 2, 2, 0, 1, 1]), desc="batched"),
        Sample((_uniform(316, (1, 3, 3, 4)), [0, -1, 1, 1, 2, 0]), desc="unbatched, negative padding crops"),
    ]


def _pad3d_backward_samples() -> list[Sample]:
    return [Sample((_uniform(317, (1, 1, 5, 6, 6)), _uniform(318, (1, 1, 3, 4, 3)), [1, 2, 2, 0, 1, 1]))]


def _max_unpool3d_samples() -> list[Sample]:
    x = _distinct(319, (1, 2, 4, 4, 4))
    pooled, indices = framework.ops.aten.max_pool3d_with_indices(x, [2, 2, 2])
    return [Sample((_uniform(320, tuple(pooled.shape)), indices, [4, 4, 4], [2, 2, 2], [0, 0, 0]))]


def _im2col_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(321, (2, 2, 4, 5)), [2, 3], [1, 1], [1, 0], [2, 1]), desc="batched, padding, stride"
        ),
        Sample((_uniform(322, (2, 5, 4)), [2, 2], [2, 1], [0, 1], [1, 1]), desc="unbatched, dilation"),
    ]


def _col2im_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(323, (2, 12, 9)), [4, 5], [2, 3], [1, 1], [1, 0], [2, 1]), desc="batched, overlapping"
        ),
        Sample((_uniform(324, (8, 15)), [5, 4], [2, 2], [2, 1], [0, 1], [1, 1]), desc="unbatched, dilation"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "max_pool3d_with_indices": _max_pool3d_samples,
    "max_pool3d_with_indices_backward": _max_pool3d_backward_samples,
    "avg_pool3d": _avg_pool3d_samples,
    "avg_pool3d_backward": _avg_pool3d_backward_samples,
    "_adaptive_avg_pool3d": _adaptive_avg_pool3d_samples,
    "_adaptive_avg_pool3d_backward": _adaptive_avg_pool3d_backward_samples,
    "adaptive_max_pool3d": _adaptive_max_pool3d_samples,
    "adaptive_max_pool3d_backward": _adaptive_max_pool3d_backward_samples,
    "reflection_pad3d": _pad3d_samples,
    "reflection_pad3d_backward": _pad3d_backward_samples,
    "replication_pad3d": _pad3d_samples,
    "replication_pad3d_backward": _pad3d_backward_samples,
    "max_unpool3d": _max_unpool3d_samples,
    "im2col": _im2col_samples,
    "col2im": _col2im_samples,
}

NO_GRADGRAD: dict[str, str] = {}
