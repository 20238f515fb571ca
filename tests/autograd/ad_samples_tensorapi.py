"""Sample inputs of the Tensor API entries of derivatives.yaml: `alias` (what the legacy
constructors return for a tensor of their dtype) and `round.decimals`.

`round.decimals` inputs stay at least 0.02 away from the jumps of rounding to 1 decimal (the
multiples of 0.05 between tenths) and of rounding to tens (the odd multiples of 5).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _alias_samples() -> list[Sample]:
    rng = np.random.default_rng(0)
    base = framework.from_numpy(rng.uniform(-1, 1, (4, 6)))
    return [
        Sample((base,), desc="contiguous"),
        Sample((base.t(),), desc="transposed"),
        Sample((base[1:, ::2],), desc="strided"),
        Sample((framework.tensor(0.5, dtype=framework.float64),), desc="0-dim"),
    ]


def _between_jumps(seed: int, shape: tuple[int, ...], step: float) -> Tensor:
    """float64 values of the form (k + u) * step with u in [0.2, 0.8], k in [-20, 20)."""
    rng = np.random.default_rng(seed)
    values = (rng.integers(-20, 20, shape) + rng.uniform(0.2, 0.8, shape)) * step
    return framework.from_numpy(np.asarray(values))


def _round_decimals_samples() -> list[Sample]:
    return [
        Sample((_between_jumps(0, (3, 4), 0.1) + 0.05,), {"decimals": 1}, desc="decimals=1"),
        Sample((_between_jumps(1, (4, 3), 10.0).t() + 5.0,), {"decimals": -1}, desc="decimals=-1"),
        Sample((_between_jumps(2, (), 1.0) + 0.5,), {"decimals": 0}, desc="0-dim, decimals=0"),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "alias": _alias_samples,
    "round.decimals": _round_decimals_samples,
}

NO_GRADGRAD: dict[str, str] = {}
