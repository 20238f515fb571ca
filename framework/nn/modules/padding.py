"""Padding layers over `F.pad`: constant (and zero) padding of the last 1, 2 or 3 dimensions;
reflection, replication and circular padding of the last 1, 2 or 3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from framework._tensor import Tensor
from framework.nn import functional as F
from framework.nn.modules.module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _padding(padding: int | Sequence[int], dims: int) -> tuple[int, ...]:
    """One int as the same padding on both sides of `dims` dimensions, else the sequence as given
    (PyTorch's `_pair`, `_quadruple`, `_ntuple(6)`)."""
    return (padding,) * (2 * dims) if isinstance(padding, int) else tuple(padding)


class _PadNd(Module):
    """A padding layer: `padding` (left, right of the last dimension, then of the one before...)
    and the F.pad mode; a subclass gives the mode and the number of dimensions."""

    _mode: ClassVar[str]
    _dims: ClassVar[int]

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = _padding(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with `value`."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with `value`."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with `value`."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    """Constant padding with zeros, printed as the padding alone."""

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return _PadNd.extra_repr(self)


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pad the last dimension with zeros."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pad the last two dimensions with zeros."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pad the last three dimensions with zeros."""


class ReflectionPad1d(_PadNd):
    """Pad the last dimension with its reflection (the edge not repeated)."""

    _mode, _dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions with their reflection (the edges not repeated)."""

    _mode, _dims = "reflect", 2


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating its edge values."""

    _mode, _dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating their edge values."""

    _mode, _dims = "replicate", 2


class CircularPad1d(_PadNd):
    """Pad the last dimension by wrapping around."""

    _mode, _dims = "circular", 1


class CircularPad2d(_PadNd):
    """Pad the last two dimensions by wrapping around."""

    _mode, _dims = "circular", 2


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions with their reflection (the edges not repeated)."""

    _mode, _dims = "reflect", 3


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating their edge values."""

    _mode, _dims = "replicate", 3


class CircularPad3d(_PadNd):
    """Pad the last three dimensions by wrapping around."""

    _mode, _dims = "circular", 3
