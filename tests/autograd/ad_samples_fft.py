"""Sample inputs of the FFT primitives' entries of derivatives.yaml (_fft_r2c, _fft_c2r,
_fft_c2c).

gradcheck compares real Jacobians, so complex values cross the boundary as (real, imaginary)
pairs: complex inputs are real tensors with a last dimension of 2 that `prepare` views as complex
(view_as_complex), complex results are compared through view_as_real (`outputs`).  The samples
cover one and two transformed dimensions, the three normalization modes, a onesided and a full
r2c, odd and even c2r output sizes, and a transposed input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _normal(seed: int, shape: tuple[int, ...]) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _library(t: Any) -> Any:
    if isinstance(t, framework.Tensor):
        return framework
    import torch

    return torch


def _as_complex(t: Any) -> Any:
    return _library(t).view_as_complex(t)


def _as_real(outputs: list[Any]) -> list[Any]:
    return [_library(o).view_as_real(o) for o in outputs]


def _r2c_samples() -> list[Sample]:
    return [
        Sample((_normal(0, (3, 4)), [1], 0, True), outputs=_as_real, desc="onesided"),
        Sample((_normal(1, (4, 3)).t(), [0, 1], 2, False), outputs=_as_real, desc="transposed, full, 2-d"),
    ]


def _c2r_samples() -> list[Sample]:
    return [
        Sample((_normal(2, (3, 3, 2)), [1], 2, 4), prepare=_as_complex, desc="even output"),
        Sample((_normal(3, (4, 3, 2)), [0, 1], 1, 5), prepare=_as_complex, desc="odd output, 2-d"),
    ]


def _c2c_samples() -> list[Sample]:
    return [
        Sample((_normal(4, (3, 4, 2)), [1], 0, True), prepare=_as_complex, outputs=_as_real, desc="forward"),
        Sample(
            (_normal(5, (3, 4, 2)), [0, 1], 1, False),
            prepare=_as_complex,
            outputs=_as_real,
            desc="backward, 2-d",
        ),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "_fft_r2c": _r2c_samples,
    "_fft_c2r": _c2r_samples,
    "_fft_c2c": _c2c_samples,
}

NO_GRADGRAD: dict[str, str] = {}
