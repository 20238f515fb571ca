"""Sample inputs of the entries of derivatives.yaml for grid sampling and affine grids
(framework/ops/kernels/vision.py).

Grid points reach outside [-1, 1] so that every padding mode pads; random float64 points stay off
the pixel lattice, where the interpolations have kinks. Tensors are small float64 ones."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_nn import _uniform


def _grid_sampler_2d_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(700, (2, 2, 3, 4)), _uniform(701, (2, 3, 2, 2), -1.3, 1.3), 0, 2, False),
            desc="bilinear, reflection",
        ),
        Sample(
            (_uniform(702, (1, 2, 4, 3)), _uniform(703, (1, 2, 3, 2), -1.2, 1.2), 2, 1, True),
            desc="bicubic, border",
        ),
        Sample(
            (_uniform(704, (1, 1, 3, 3)), _uniform(705, (1, 2, 2, 2), -1.2, 1.2), 1, 0, False),
            desc="nearest, zeros",
        ),
    ]


def _grid_sampler_3d_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(706, (1, 2, 2, 3, 3)), _uniform(707, (1, 2, 2, 1, 3), -1.2, 1.2), 0, 0, True),
            desc="bilinear, zeros",
        )
    ]


def _grid_sampler_backward_samples(spatial: int) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        input = _uniform(708, (1, 1, *([2] * spatial)))
        grid = _uniform(709, (1, *([2] * spatial), spatial), -1.1, 1.1)
        return [Sample((_uniform(710, (1, 1, *([2] * spatial))), input, grid, 0, 0, False, [True, True]))]

    return samples


def _affine_grid_samples() -> list[Sample]:
    return [
        Sample((_uniform(711, (2, 2, 3)), [2, 1, 3, 4], False), desc="2-d"),
        Sample((_uniform(712, (1, 3, 4)), [1, 1, 2, 2, 3], True), desc="3-d"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "grid_sampler_2d": _grid_sampler_2d_samples,
    "grid_sampler_3d": _grid_sampler_3d_samples,
    "grid_sampler_2d_backward": _grid_sampler_backward_samples(2),
    "grid_sampler_3d_backward": _grid_sampler_backward_samples(3),
    "affine_grid_generator": _affine_grid_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "grid_sampler_2d": "grid_sampler_2d_backward has no double backward here",
    "grid_sampler_3d": "grid_sampler_3d_backward has no double backward here",
}
