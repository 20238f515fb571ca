"""Sample inputs of the session-11 torch.special entries of derivatives.yaml (erfcx, i0e, i1e,
ndtri, log_ndtr, entr, xlog1py and zeta with their Scalar overloads) and of the histogram
operators (not differentiable, as in PyTorch: backward raises) and bessel_j0/j1 (whose results
do not require grad, as in PyTorch).

Inputs stay inside each operator's domain: ndtri's probabilities inside (0, 1), entr's
arguments positive, xlog1py's `other` above -1, zeta's `self` above 1 and `other` positive; no
zeros for i1e (whose second derivative, as PyTorch's, is not smooth there).  zeta has no
derivative with respect to `self` (not_implemented, as in PyTorch: backward raises); its
gradient with respect to `other` is checked through the self_scalar overload.  igamma and
igammac (not differentiable in `self` either) are checked for backward's refusal."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _uniform(seed: int, shape: tuple[int, ...], low: float, high: float) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).uniform(low, high, shape))


def _unary(low: float, high: float) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        return [
            Sample((_uniform(0, (3, 4), low, high),), desc="contiguous"),
            Sample((_uniform(1, (4, 3), low, high).t(),), desc="transposed"),
        ]

    return samples


def _xlog1py_samples() -> list[Sample]:
    return [
        Sample((_uniform(0, (3, 4), -2.0, 2.0), _uniform(1, (3, 4), -0.5, 2.0))),
        Sample(
            (_uniform(2, (4, 3), -2.0, 2.0).t(), _uniform(3, (4,), -0.5, 2.0)), desc="transposed, broadcast"
        ),
    ]


def _zeta_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4), 1.5, 4.0), _uniform(1, (4,), 0.5, 3.0)), desc="broadcast")]


def _histogram_tensor_samples() -> list[Sample]:
    edges = framework.tensor([0.0, 0.5, 1.0, 2.0], dtype=framework.float64)
    return [Sample((_uniform(0, (3, 4), 0.0, 2.0), edges), {"weight": _uniform(1, (3, 4), 0.0, 1.0)})]


def _histogram_count_samples() -> list[Sample]:
    return [Sample((_uniform(0, (3, 4), 0.0, 2.0), 4), {"weight": _uniform(1, (3, 4), 0.0, 1.0)})]


def _histogramdd_count_samples() -> list[Sample]:
    return [Sample((_uniform(0, (6, 2), 0.0, 2.0), [2, 3]), {"weight": _uniform(1, (6,), 0.0, 1.0)})]


def _histogramdd_tensor_samples() -> list[Sample]:
    edges = [framework.tensor(e, dtype=framework.float64) for e in ([0.0, 1.0, 2.0], [0.0, 0.5, 2.0])]
    return [Sample((_uniform(0, (6, 2), 0.0, 2.0), edges))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "special_erfcx": _unary(-2.0, 3.0),
    "special_i0e": _unary(-3.0, 3.0),
    "special_i1e": _unary(0.2, 3.0),
    "special_ndtri": _unary(0.05, 0.95),
    "special_log_ndtr": _unary(-4.0, 3.0),
    "special_entr": _unary(0.2, 3.0),
    "special_xlog1py": _xlog1py_samples,
    "special_xlog1py.self_scalar": lambda: [Sample((1.5, _uniform(0, (3, 4), -0.5, 2.0)))],
    "special_xlog1py.other_scalar": lambda: [Sample((_uniform(0, (3, 4), -2.0, 2.0), 0.75))],
    "special_zeta": _zeta_samples,
    "special_zeta.self_scalar": lambda: [Sample((3.0, _uniform(0, (3, 4), 0.5, 3.0)))],
    "special_zeta.other_scalar": lambda: [Sample((_uniform(0, (3,), 1.5, 4.0), 1.5))],
    "igamma": lambda: [Sample((_uniform(0, (3, 4), 0.5, 3.0), _uniform(1, (4,), 0.5, 3.0)))],
    "igammac": lambda: [Sample((_uniform(0, (3, 4), 0.5, 3.0), _uniform(1, (4,), 0.5, 3.0)))],
    "special_bessel_j0": _unary(-5.0, 5.0),
    "special_bessel_j1": _unary(-5.0, 5.0),
    "histogram.bins_tensor": _histogram_tensor_samples,
    "histogram.bin_ct": _histogram_count_samples,
    "_histogramdd_bin_edges": _histogramdd_count_samples,
    "_histogramdd_from_bin_cts": _histogramdd_count_samples,
    "_histogramdd_from_bin_tensors": _histogramdd_tensor_samples,
}

NO_GRADGRAD: dict[str, str] = {}
