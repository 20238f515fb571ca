"""`framework.tensor(data)`: a new tensor from Python data (PyTorch's tensor_new)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor, from_numpy
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
        return data.detach().numpy(), data.dtype
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
    if isinstance(data, Tensor):
        _warn_copy_construct("framework.tensor(sourceTensor)", stacklevel=3)
    return _copy(data, dtype, device, requires_grad)


def _warn_copy_construct(call: str, stacklevel: int) -> None:
    """PyTorch's warning for copying a tensor through `call`, attributed to the user's line."""
    warnings.warn(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        f"sourceTensor.detach().clone().requires_grad_(True), rather than {call}.",
        UserWarning,
        stacklevel=stacklevel,
    )


def _copy(data: Any, dtype: dtype | None, device: Device | str | None, requires_grad: bool) -> Tensor:
    """`data` copied into a new leaf of `dtype` (else the inferred one) on `device`."""
    from framework.ops.kernels._registry import dispatched_empty

    array, inferred = _infer(data)
    result_dtype = dtype or inferred
    with AutoDispatchBelowADInplaceOrView():
        result = dispatched_empty(list(array.shape), result_dtype, None, device)
    if result._impl.storage.data is not None:
        result._impl.numpy_view()[...] = array.astype(result_dtype.numpy_dtype, copy=False)
    return make_variable(result, requires_grad)


def new_tensor(
    self: Tensor,
    data: Any,
    *,
    dtype: dtype | None = None,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """`Tensor.new_tensor`: a copy of `data` with this tensor's dtype and device unless given."""
    if isinstance(data, Tensor):
        _warn_copy_construct("tensor.new_tensor(sourceTensor)", stacklevel=4)
    return _copy(data, dtype or self.dtype, device or self.device, requires_grad)


def as_tensor(data: Any, dtype: dtype | None = None, device: Device | str | None = None) -> Tensor:
    """`data` as a tensor, sharing its memory where it can (as `torch.as_tensor`): a tensor is
    returned as it is, or converted with `to` (which keeps its autograd history); a NumPy array is
    viewed as `from_numpy` does, then converted if the dtype or device differs; anything else is
    copied as `framework.tensor` copies it."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype or data.dtype, device=device or data.device)
    if isinstance(data, np.ndarray):
        shared = from_numpy(data)
        return shared.to(dtype=dtype or shared.dtype, device=device or shared.device)
    return _copy(data, dtype, device, False)
