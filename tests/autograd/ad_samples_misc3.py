"""Sample inputs of the misc3 entries of derivatives.yaml: ormqr (both sides, transposed or not, a
batch, a complex input wider than its reflectors), conv_tbc (padded), segment_reduce (max, mean
with initial, prod over offsets) and embedding_renorm_, which PyTorch cannot differentiate (the
derivative test checks that backward raises)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _randn(seed: int, *shape: int, complex_: bool = False) -> Tensor:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if complex_:
        a = a + 1j * rng.standard_normal(shape)
    return framework.from_numpy(a)


def _ormqr() -> list[Sample]:
    return [
        Sample((_randn(501, 4, 3), _randn(502, 3), _randn(503, 4, 2))),
        Sample(
            (_randn(504, 2, 3, 2), _randn(505, 2, 2), _randn(506, 2, 2, 3), False, True),
            desc="batch, right, transpose",
        ),
        Sample(
            (
                _randn(507, 2, 3, complex_=True),
                _randn(508, 2, complex_=True),
                _randn(509, 2, 2, complex_=True),
                True,
                True,
            ),
            desc="complex, wide input, transpose",
        ),
    ]


def _conv_tbc() -> list[Sample]:
    return [Sample((_randn(520, 4, 2, 3), _randn(521, 3, 3, 2), _randn(522, 2), 1), desc="pad 1")]


def _embedding_renorm_() -> list[Sample]:
    return [Sample((_randn(523, 4, 3), framework.tensor([0, 2]), 1.0, 2.0))]


def _segment_reduce() -> list[Sample]:
    offsets = framework.tensor([[0, 1, 3], [0, 2, 3]])
    return [
        Sample((_randn(524, 5), "max"), {"lengths": framework.tensor([2, 3])}),
        Sample(
            (_randn(525, 5, 2), "mean"),
            {"lengths": framework.tensor([2, 0, 3]), "initial": 1.5},
            desc="mean, initial",
        ),
        Sample((_randn(526, 2, 3), "prod"), {"offsets": offsets, "axis": 1}, desc="prod, offsets, axis 1"),
    ]


def _segment_reduce_backward() -> list[Sample]:
    data, lengths = _randn(527, 4), framework.tensor([1, 3])
    output = framework.segment_reduce(data, "sum", lengths=lengths)
    return [Sample((_randn(528, 2), output, data, "sum"), {"lengths": lengths})]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "ormqr": _ormqr,
    "conv_tbc": _conv_tbc,
    "embedding_renorm_": _embedding_renorm_,
    "segment_reduce": _segment_reduce,
    "_segment_reduce_backward": _segment_reduce_backward,
}

NO_GRADGRAD: dict[str, str] = {
    "segment_reduce": "its gradient is the _segment_reduce_backward kernel, which PyTorch does not "
    "differentiate"
}
