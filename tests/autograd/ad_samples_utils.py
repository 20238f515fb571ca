"""Sample inputs of the weight-normalization entry of derivatives.yaml (`_weight_norm_interface`):
the first and the last dimension, directions away from zero norm."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float = 0.2, high: float = 1.0) -> Tensor:
    """float64 values uniform in [low, high)."""
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _weight_norm_interface_samples() -> list[Sample]:
    return [
        Sample((_uniform(301, (3, 2, 2)), _uniform(302, (3, 1, 1)), 0)),
        Sample((_uniform(303, (3, 4)), _uniform(304, (1, 4)), 1), desc="last dim"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "_weight_norm_interface": _weight_norm_interface_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "_weight_norm_interface": "the saved norms (a non-differentiable output) enter the backward formula as "
    "constants, as in PyTorch's _weight_norm_differentiable_backward",
}
