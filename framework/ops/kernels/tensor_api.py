"""Kernels behind Tensor API odds and ends: `alias` (the view the legacy constructors return for
a tensor) and `round(decimals=)`."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.ops.kernels._registry import (
    TensorMeta,
    array,
    kernel,
    make_view,
    not_implemented,
    structured,
)


@kernel("alias")
def alias(self: Tensor) -> Tensor:
    """A view of all of `self`, with its geometry."""
    impl = self._impl
    return make_view(self, impl.sizes, impl.strides, impl.storage_offset)


def _round_decimals_meta(self: Tensor, *, decimals: int) -> TensorMeta:
    impl = self._impl
    if not impl.dtype.is_floating_point:  # decimals=0 is PyTorch's plain rounding kernel
        raise not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", impl.dtype)
    return TensorMeta(impl.sizes, impl.dtype, impl.device)


def _round_decimals(out: npt.NDArray[Any], self: Tensor, *, decimals: int) -> None:
    """PyTorch's rounding to `decimals` places: scale by 10**|decimals| (multiplying for
    decimals >= 0, dividing for negative ones), round half to even, scale back; float16 computes
    in float32, as PyTorch's opmath type."""
    a = array(self)
    if self._impl.dtype.is_reduced_float:
        a = a.astype(np.float32)
    scale = a.dtype.type(10.0 ** abs(decimals))
    if decimals >= 0:
        out[...] = np.rint(a * scale) / scale
    else:
        out[...] = np.rint(a / scale) * scale


structured("round_decimals", _round_decimals_meta, _round_decimals)
