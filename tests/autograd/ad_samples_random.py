"""Sample inputs of the random-distribution entries of derivatives.yaml (the random area's section).

Every gradient is zero, as in PyTorch, while finite differences of fresh random draws are noise: the
samples are empty tensors (the node, its name and the zero gradients' shapes are what is checked) or
draws that are constant for the given parameters (exponential with an infinite rate is 0).
"""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample

import framework
from framework import Tensor


def _empty(*shape: int) -> Tensor:
    return framework.zeros(*shape, dtype=framework.float64)


def _exponential_samples() -> list[Sample]:
    return [
        Sample((_empty(0, 3), 2.0), desc="empty"),
        Sample((framework.ones(2, 3, dtype=framework.float64), float("inf")), desc="infinite rate: zeros"),
    ]


def _in_place(*parameters: float) -> Callable[[], list[Sample]]:
    return lambda: [Sample((_empty(0, 3), *parameters), desc="empty")]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "exponential_": _exponential_samples,
    "geometric_": _in_place(0.5),
    "log_normal_": _in_place(0.5, 2.0),
    "cauchy_": _in_place(0.0, 3.0),
    "bernoulli": lambda: [Sample((_empty(2, 0),), desc="empty")],
    "bernoulli_.Tensor": lambda: [Sample((_empty(0, 3), _empty(3)), desc="empty, p broadcast")],
    "bernoulli_.float": _in_place(0.25),
    "bernoulli.p": lambda: [Sample((_empty(0, 2), 0.5), desc="empty")],
    "normal.Tensor_float": lambda: [Sample((_empty(0, 2), 2.0), desc="empty")],
    "normal.float_Tensor": lambda: [Sample((1.0, _empty(3, 0)), desc="empty")],
    "normal.Tensor_Tensor": lambda: [
        Sample((_empty(1, 0), framework.ones(3, 1, dtype=framework.float64)), desc="empty, broadcast")
    ],
    "multinomial": lambda: [
        Sample((framework.tensor([0.2, 0.3, 0.5], dtype=framework.float64), 2), desc="integer output"),
    ],
    "poisson": lambda: [Sample((_empty(0),), desc="empty")],
}

NO_GRADGRAD: dict[str, str] = {}
