"""`framework.finfo` and `framework.iinfo`: the numerical limits of a dtype, as PyTorch's."""

from __future__ import annotations

import builtins

import numpy as np

from framework.c10.dtypes import bool_, dtype, get_default_dtype, numpy_finfo

__all__ = ["finfo", "iinfo"]


class finfo:
    """The limits of a floating-point dtype (a complex dtype's are those of its real part); with
    no argument, of the default dtype."""

    __slots__ = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")

    def __init__(self, type: dtype | None = None) -> None:
        d = get_default_dtype() if type is None else type
        if not (d.is_floating_point or d.is_complex):
            raise TypeError(
                "framework.finfo() requires a floating point input type. Use framework.iinfo to handle "
                "'framework.finfo'"
            )
        real = d.to_real()
        info = numpy_finfo(real.numpy_dtype)
        self.bits: builtins.int = info.bits
        self.eps: builtins.float = float(info.eps)
        self.max: builtins.float = float(info.max)
        self.min: builtins.float = float(info.min)
        self.smallest_normal: builtins.float = float(info.smallest_normal)
        self.tiny: builtins.float = self.smallest_normal
        self.resolution: builtins.float = 10.0**-info.precision  # in double, as c10 computes it
        self.dtype: str = real.name

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    # Unhashable, as PyTorch's.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """The limits of an integer dtype."""

    __slots__ = ("bits", "dtype", "max", "min")

    def __init__(self, type: dtype) -> None:
        if type is bool_:
            raise TypeError("framework.bool is not supported by framework.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError(
                "framework.iinfo() requires an integer input type. Use framework.finfo to handle "
                "'framework.iinfo'"
            )
        info = np.iinfo(type.numpy_dtype)
        self.bits: builtins.int = info.bits
        self.max: builtins.int = int(info.max)
        self.min: builtins.int = int(info.min)
        self.dtype: str = type.name

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
