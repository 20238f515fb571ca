"""`framework.tensor(data)`: a new tensor from Python data (PyTorch's tensor_new)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.autograd.variable import make_variable
from framework.c10.device import Device
from framework.c10.dtypes import (
    bool_,
    default_complex_dtype,
    dtype,
    dtype_from_numpy,
    get_default_dtype,
    int64,
)
from framework.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView


def _check_nested(data: Any, dim: int = 0) -> None:
    """PyTorch's error for ragged nested sequences."""
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (list, tuple)):
        length = len(data[0])
        for item in data:
            if not isinstance(item, (list, tuple)):
                raise TypeError(f"not a sequence at dim {dim + 1}")
            if len(item) != length:
                raise ValueError(f"expected sequence of length {length} at dim {dim + 1} (got {len(item)})")
            _check_nested(item, dim + 1)


def _infer(data: Any) -> tuple[npt.NDArray[Any], dtype]:
    """The data as a NumPy array and the dtype PyTorch infers for it."""
    if isinstance(data, Tensor):
        return data.numpy(), data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        array = np.asarray(data)
        return array, dtype_from_numpy(array.dtype)
    _check_nested(data)
    array = np.asarray(data)
    kind = array.dtype.kind
    if kind == "b":
        return array, bool_
    if kind in "iu":
        return array, int64
    if kind == "f":
        return array, get_default_dtype()
    if kind == "c":
        return array, default_complex_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(
    data: Any,
    *,
    dtype: dtype | None = None,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A new tensor holding a copy of `data` (nested sequences of numbers, NumPy arrays, tensors).

    Floats take the default dtype, ints int64, bools bool, complex the default complex dtype."""
    from framework.ops.kernels._registry import dispatched_empty

    array, inferred = _infer(data)
    result_dtype = dtype or inferred
    with AutoDispatchBelowADInplaceOrView():
        result = dispatched_empty(list(array.shape), result_dtype, None, device)
    if result._impl.storage.data is not None:
        result._impl.numpy_view()[...] = array.astype(result_dtype.numpy_dtype, copy=False)
    return make_variable(result, requires_grad)
