"""Derivative-test samples for gradient scaling's operators: `_amp_update_scale_` has no
derivative (its node is NotImplemented, as in PyTorch); `_amp_foreach_non_finite_check_and_unscale_`
returns nothing and has no entry."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample

import framework


def _update_scale_samples() -> list[Sample]:
    scale = framework.full((), 8.0, dtype=framework.float64)
    tracker = framework.zeros((), dtype=framework.int32)
    return [
        Sample((scale.float(), tracker, framework.zeros(()), 2.0, 0.5, 3), desc="clean step"),
        Sample((scale.float(), tracker, framework.ones(()), 2.0, 0.5, 3), desc="inf found"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {"_amp_update_scale_": _update_scale_samples}
NO_GRADGRAD: dict[str, str] = {}
