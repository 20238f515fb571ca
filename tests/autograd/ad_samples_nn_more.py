"""Sample inputs of the entries of derivatives.yaml for group normalization, adaptive max pooling,
upsampling and pixel shuffle (framework/ops/kernels/nn_more.py).

Max pooling inputs have no ties inside a window; tensors are small float64 ones, some of them
non-contiguous."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_nn import _distinct, _uniform

import framework


def _group_norm_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(200, (2, 4, 3)), _uniform(201, (4,)), _uniform(202, (4,)), 2, 4, 3, 2, 1e-5),
            desc="affine",
        ),
        Sample((_uniform(203, (3, 2, 2, 2)), None, None, 3, 2, 4, 1, 1e-3), desc="one group, no affine"),
        Sample((_uniform(204, (2, 3)), _uniform(205, (3,)), None, 2, 3, 1, 3, 1e-5), desc="groups of one"),
    ]


def _group_norm_backward_samples() -> list[Sample]:
    x, weight = _uniform(206, (2, 4, 3)), _uniform(207, (4,))
    _, mean, rstd = framework.ops.aten.native_group_norm(x, weight, None, 2, 4, 3, 2, 1e-5)
    return [Sample((_uniform(208, (2, 4, 3)), x, mean, rstd, weight, 2, 4, 3, 2, [True, True, True]))]


def _adaptive_max_pool_samples() -> list[Sample]:
    return [
        Sample((_distinct(210, (2, 2, 5, 4)), [2, 3]), desc="overlapping windows"),
        Sample((_distinct(211, (1, 4, 4)), [2, 2]), desc="unbatched, tiling"),
    ]


def _adaptive_max_pool_backward_samples() -> list[Sample]:
    x = _distinct(212, (1, 2, 5, 4))
    _, indices = framework.ops.aten.adaptive_max_pool2d(x, [3, 2])
    return [Sample((_uniform(213, (1, 2, 3, 2)), x, indices))]


def _upsample_samples(n: int, linear: bool, backward: bool) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        in_sizes = (2, 2, 3) if n == 1 else (1, 2, 3, 2)
        cases: list[tuple[list[int], bool, list[float | None]]] = [
            ([5] * n, False, [None] * n),
            ([2] * n, True, [None] * n),
            ([7] * n, False, [2.5] * n),
        ]
        result = []
        for seed, (sizes, align, scales) in enumerate(cases):
            flags = [align] if linear else []
            if backward:
                grad = _uniform(220 + seed, (*in_sizes[:2], *sizes))
                args = (grad, sizes, list(in_sizes), *flags, *scales)
            else:
                args = (_uniform(230 + seed, in_sizes), sizes, *flags, *scales)
            result.append(Sample(args, desc=f"to {sizes}, align_corners={align}, scales={scales}"))
        return result

    return samples


def _pixel_shuffle_samples() -> list[Sample]:
    return [Sample((_uniform(240, (1, 8, 2, 3)), 2)), Sample((_uniform(241, (4, 1, 2)), 1), desc="factor 1")]


def _pixel_unshuffle_samples() -> list[Sample]:
    return [Sample((_uniform(242, (1, 2, 4, 6)), 2))]


def _pad1d_samples() -> list[Sample]:
    return [
        Sample((_uniform(250, (2, 3, 5)), [2, 1]), desc="batched"),
        Sample((_uniform(251, (3, 4)), [0, 3]), desc="unbatched"),
        Sample((_uniform(252, (1, 2, 5)), [-1, 2]), desc="negative padding crops"),
    ]


def _pad1d_backward_samples() -> list[Sample]:
    return [Sample((_uniform(253, (2, 3, 8)), _uniform(254, (2, 3, 5)), [2, 1]))]


def _max_unpool_samples() -> list[Sample]:
    x = _distinct(255, (1, 2, 4, 4))
    pooled, indices = framework.ops.aten.max_pool2d_with_indices(x, [2, 2])
    return [
        Sample((_uniform(256, tuple(pooled.shape)), indices, [4, 4])),
        Sample((_uniform(257, (2, 2, 2)), indices[0], [5, 4]), desc="unbatched, larger output"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "native_group_norm": _group_norm_samples,
    "native_group_norm_backward": _group_norm_backward_samples,
    "adaptive_max_pool2d": _adaptive_max_pool_samples,
    "adaptive_max_pool2d_backward": _adaptive_max_pool_backward_samples,
    "upsample_nearest1d": _upsample_samples(1, False, False),
    "upsample_nearest1d_backward": _upsample_samples(1, False, True),
    "upsample_nearest2d": _upsample_samples(2, False, False),
    "upsample_nearest2d_backward": _upsample_samples(2, False, True),
    "upsample_linear1d": _upsample_samples(1, True, False),
    "upsample_linear1d_backward": _upsample_samples(1, True, True),
    "upsample_bilinear2d": _upsample_samples(2, True, False),
    "upsample_bilinear2d_backward": _upsample_samples(2, True, True),
    "pixel_shuffle": _pixel_shuffle_samples,
    "pixel_unshuffle": _pixel_unshuffle_samples,
    "reflection_pad1d": _pad1d_samples,
    "reflection_pad1d_backward": _pad1d_backward_samples,
    "replication_pad1d": _pad1d_samples,
    "replication_pad1d_backward": _pad1d_backward_samples,
    "max_unpool2d": _max_unpool_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "native_group_norm_backward": "no derivative, as in PyTorch: backward raises (native_group_norm's own "
    "formula is differentiable when the graph is recorded)",
}
