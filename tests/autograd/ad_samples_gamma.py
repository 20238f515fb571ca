"""Sample inputs of the gamma-family entries of derivatives.yaml (random_gamma's section).

Gamma draws are differentiated by the implicit reparameterization gradient, which is not the
derivative of the sampler's own transformation of its uniforms, so finite differences cannot check
it: `_standard_gamma` has an empty sample (node name and gradient shape), and
tests/distributions/test_gamma_family.py compares its gradient with PyTorch's for the same seed.
The other entries have no derivative, as in PyTorch (their backward raises).
"""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample

import framework


def _f64(*values: float) -> framework.Tensor:
    return framework.tensor(values, dtype=framework.float64)


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "_standard_gamma": lambda: [Sample((framework.zeros(0, 2, dtype=framework.float64),), desc="empty")],
    "_standard_gamma_grad": lambda: [Sample((_f64(0.5, 3.0), _f64(0.2, 2.5)), desc="no derivative")],
    "_sample_dirichlet": lambda: [Sample((_f64(0.5, 2.0, 1.0),), desc="no derivative")],
    "_dirichlet_grad": lambda: [
        Sample((_f64(0.3, 0.7), _f64(1.0, 2.0), _f64(3.0, 3.0)), desc="no derivative")
    ],
    "binomial": lambda: [Sample((_f64(4.0, 7.0), _f64(0.25, 0.5)), desc="no derivative")],
}

NO_GRADGRAD: dict[str, str] = {}
