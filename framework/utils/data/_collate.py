"""`default_collate` (samples → one batch) and `default_convert` (NumPy → tensors), as PyTorch's."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import framework
from framework._tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_STRING_DTYPES = re.compile(r"[SaUO]")

COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
CONVERT_ERROR = "default_convert: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_namedtuple(value: object) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _numeric_array(array: np.ndarray[Any, Any], message: str) -> Tensor:
    if _STRING_DTYPES.search(array.dtype.str) is not None:
        raise TypeError(message.format(array.dtype))
    return framework.from_numpy(array)


def _rebuild(elem: Any, values: Any) -> Any:
    """`values` in a container of `elem`'s type when that type can be made from them, else as they are."""
    try:
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data: Any) -> Any:
    """NumPy arrays (not of strings) in `data` as tensors, through dicts, named tuples and sequences."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _STRING_DTYPES.search(data.dtype.str) else framework.from_numpy(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return framework.tensor(data.item())
    if isinstance(data, Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """A batch from a list of samples: tensors stacked along a new first dimension, NumPy arrays and
    numbers made tensors (floats float64, ints int64), strings kept as a list, and dicts, named
    tuples and sequences collated field by field (tuples become lists)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return framework.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return default_collate([_numeric_array(b, COLLATE_ERROR) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return framework.from_numpy(np.array(batch))
    if isinstance(elem, float):
        return framework.tensor(list(batch), dtype=framework.float64)
    if isinstance(elem, int):
        return framework.tensor(list(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _rebuild(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch, strict=True)))
    if isinstance(elem, Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(samples)) for samples in zip(*batch, strict=True)]
        return transposed if isinstance(elem, tuple) else _rebuild(elem, transposed)
    raise TypeError(COLLATE_ERROR.format(type(elem)))
