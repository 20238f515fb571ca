"""`framework.Size`: the tuple of ints that `Tensor.shape` and `Tensor.size()` return (PyTorch's
`torch.Size`).

It is a plain `tuple` subclass: it compares, hashes and unpacks as a tuple; slicing, concatenation
and repetition give a `Size` again; it prints as `framework.Size([2, 3])` (dtypes print as
`framework.float32` likewise).

Reading a shape stays cheap: `Tensor.shape` looks the implementation's sizes tuple up in
`SIZES`, a bounded cache of the `Size` objects made so far (a dict lookup costs about a tenth of
making a tuple subclass instance); `size_of` makes and remembers the ones not found.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from typing import Any, Final, SupportsIndex, overload

_tuple_new: Final = tuple.__new__

_MAX_SIZES: Final = 4096


def _as_ints(items: Iterable[Any]) -> tuple[int, ...]:
    """`items` as ints (anything with `__index__`: NumPy integers, one-element integer tensors),
    or PyTorch's TypeError naming the first item that is not one."""
    values = tuple(items)
    if all(type(v) is int for v in values):
        return values
    converted = []
    for i, v in enumerate(values):
        try:
            converted.append(operator.index(v))
        except TypeError:
            raise TypeError(
                f"framework.Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')"
            ) from None
    return tuple(converted)


class Size(tuple[int, ...]):
    """The sizes of a tensor's dimensions: a tuple of ints (`framework.Size([2, 3])`)."""

    __slots__ = ()

    def __new__(cls, sizes: Iterable[SupportsIndex] = ()) -> Size:
        return _tuple_new(cls, _as_ints(sizes))

    def numel(self) -> int:
        """The number of elements a tensor of these sizes holds (1 for `Size([])`)."""
        return math.prod(self)

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: SupportsIndex | slice) -> int | Size:
        if isinstance(index, slice):
            return _tuple_new(Size, tuple.__getitem__(self, index))
        return tuple.__getitem__(self, index)

    def __add__(self, other: tuple[Any, ...]) -> Size:
        if not isinstance(other, tuple):
            raise TypeError(f'can only concatenate tuple (not "{type(other).__name__}") to framework.Size')
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: tuple[Any, ...]) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times: SupportsIndex) -> Size:
        if not hasattr(type(times), "__index__"):
            raise TypeError(f"can't multiply sequence by non-int of type '{type(times).__name__}'")
        return _tuple_new(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[type[Size], tuple[tuple[int, ...]]]:
        return (Size, (tuple(self),))

    def __repr__(self) -> str:
        return f"framework.Size({list(self)})"

    __str__ = __repr__


SIZES: Final[dict[tuple[int, ...], Size]] = {}
"""The `Size` of each sizes tuple `size_of` has seen (cleared when it grows too big); `Size`
objects are immutable, so tensors of the same sizes share one."""


def size_of(sizes: tuple[int, ...]) -> Size:
    """`sizes` (already checked ints) as a `Size`, remembered in `SIZES`."""
    if len(SIZES) >= _MAX_SIZES:
        SIZES.clear()
    size = SIZES[sizes] = _tuple_new(Size, sizes)
    return size
