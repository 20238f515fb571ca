"""Legacy tensor types: `Tensor.type()` names (`'framework.FloatTensor'`) and the legacy
constructors `framework.FloatTensor`, `DoubleTensor`, ... (PyTorch's `torch.FloatTensor`).

A legacy type is a class whose instances are never made: calling it makes a plain `Tensor` of its
dtype, and `isinstance(t, framework.FloatTensor)` tells whether `t` is a CPU float32 tensor, while
`issubclass(framework.FloatTensor, framework.Tensor)` is False, as in PyTorch. The names are
`framework.*`, as dtypes print as `framework.float32`; `Tensor.type(name)` also takes PyTorch's
`'torch.FloatTensor'` spelling, so scripts written for PyTorch run unchanged.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

import framework
from framework._legacy_class import LegacyClass, legacy_classes
from framework._size import Size
from framework._tensor import Tensor
from framework._tensor_new import tensor as _tensor
from framework.c10.device import Device
from framework.c10.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from framework.ops.kernels._registry import CPP_TYPE_NAMES

__all__ = ["LEGACY_TYPES", "legacy_type_name", "resolve_type"]


def legacy_type_name(d: dtype) -> str:
    """The name `Tensor.type()` gives a CPU tensor of dtype `d` (`'framework.FloatTensor'`)."""
    return f"framework.{d.scalar_type_name}Tensor"


_SIGNATURES: Final = (
    " * (*, torch.device device = None)\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def _options(d: dtype) -> str:
    """How PyTorch's legacy constructors print the options of a CPU tensor of dtype `d`."""
    return (
        f"TensorOptions(dtype={CPP_TYPE_NAMES[d]}, device=cpu, layout=Strided, requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))"
    )


def _check_device(device: Device | str | None) -> None:
    if device is not None and Device(device).type != "cpu":
        raise RuntimeError(
            f"legacy constructor expects device type: cpu but device type: {Device(device).type} was passed"
        )


def _sizes(args: tuple[Any, ...]) -> tuple[int, ...]:
    """The sizes given as ints, or PyTorch's TypeError naming the first argument that is not one."""
    sizes = []
    for i, value in enumerate(args):
        if isinstance(value, float | bool) or not hasattr(type(value), "__index__"):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {type(value).__name__}"'
            )
        sizes.append(value.__index__())
    return tuple(sizes)


def _is_size(value: object) -> bool:
    """Whether a lone argument of a legacy constructor gives sizes (a `Size` or an int-like
    scalar) rather than data (sequences and arrays, integer arrays included)."""
    return isinstance(value, Size) or (
        hasattr(type(value), "__index__") and not isinstance(value, np.ndarray)
    )


class _LegacyTensorType(LegacyClass):
    """The metaclass of the legacy types: calling one constructs, `isinstance` checks the dtype."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype and instance.device.type == "cpu"

    def __call__(cls, *args: Any, device: Device | str | None = None, **kwargs: Any) -> Tensor:
        """`FloatTensor()` (empty), `FloatTensor(2, 3)` or `FloatTensor(framework.Size([2, 3]))`
        (uninitialised, of these sizes), `FloatTensor(data)` (a copy of nested sequences or an
        array), `FloatTensor(other)` (an alias of a tensor of this dtype)."""
        if kwargs:
            given = ", ".join(
                [*(type(a).__name__ for a in args), *(f"{k}={type(v).__name__}" for k, v in kwargs.items())]
            )
            raise TypeError(
                f"new() received an invalid combination of arguments - got ({given}), but expected one of:\n"
                + _SIGNATURES
            )
        _check_device(device)
        if not args:
            return framework.empty(0, dtype=cls.dtype)
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor) and device is None:
            if first.dtype is not cls.dtype:
                raise TypeError(f"expected {_options(cls.dtype)} (got {_options(first.dtype)})")
            return framework.alias(first)
        if len(args) == 1 and not _is_size(first):
            if isinstance(first, str):
                raise TypeError("new(): invalid data type 'str'")
            if not hasattr(first, "__len__") and not hasattr(first, "__array__"):
                raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
            return _tensor(first, dtype=cls.dtype)
        return framework.empty(
            _sizes(tuple(first) if len(args) == 1 and isinstance(first, Size) else args), dtype=cls.dtype
        )


LEGACY_TYPES: Final = legacy_classes(
    _LegacyTensorType,
    "Tensor",
    (uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128, bool_, bfloat16),
)
"""The legacy types by name: `FloatTensor`, `LongTensor`, ..."""


def resolve_type(target: Any) -> dtype:
    """The dtype `Tensor.type(target)` converts to: a dtype, a legacy type, or a legacy type's
    name (`'framework.LongTensor'` or `'torch.LongTensor'`)."""
    if isinstance(target, dtype):
        return target
    if isinstance(target, _LegacyTensorType):
        return target.dtype
    if isinstance(target, str):
        prefix, _, name = target.rpartition(".")
        legacy = LEGACY_TYPES.get(name) if prefix in ("framework", "torch") else None
        if legacy is None:
            raise ValueError(f"invalid type: '{target}'")
        return legacy.dtype
    raise TypeError("dtype must be a type, str, or dtype object")
