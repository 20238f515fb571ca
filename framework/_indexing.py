"""`Tensor.__getitem__` / `__setitem__` (PyTorch's python_variable_indexing).

Basic indices (ints, slices, None, Ellipsis) become views (`select`, `slice`, `unsqueeze`);
advanced indices (integer or boolean tensors, lists) are gathered into one `index` call (or
`index_put_` for assignment) over the view, so `x[1:, [0, 2]]` copies nothing it need not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from framework import _tensor
from framework.c10.dtypes import bool_, int32, int64, uint8

if TYPE_CHECKING:
    from framework._tensor import Tensor

Index = Any


def _aten() -> Any:
    from framework.ops.kernels._registry import aten

    return aten()


def _aten_op(name: str) -> Any:
    from framework.ops.kernels._registry import aten_op

    return aten_op(name)


def _as_tuple(index: Index) -> tuple[Any, ...]:
    if isinstance(index, tuple):
        return index
    return (index,)


def _to_tensor(value: Any) -> Tensor:
    from framework._tensor_new import tensor

    return value if isinstance(value, _tensor.Tensor) else tensor(value)


def _consumed(item: Any) -> int:
    """How many dimensions of the indexed tensor an index item consumes."""
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, _tensor.Tensor) and item.dtype in (bool_, uint8):
        return max(item.dim(), 1)
    return 1


def _item(item: Any) -> Any:
    """An index item as PyTorch reads it: a NumPy integer is an int, a NumPy array a tensor
    (integer or boolean, like the array), a 0-dim boolean tensor its bool, anything else is
    checked as it is."""
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, _tensor.Tensor) and item.dim() == 0 and item.dtype is bool_:
        return bool(item.item())
    if isinstance(item, np.ndarray):
        return _to_tensor(item)
    if isinstance(item, (int, slice, _tensor.Tensor, list, tuple)) or item is None or item is Ellipsis:
        return item
    from framework.ops._python_args import type_name

    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
        f"indices (got {type_name(item)})"
    )


def _basic_and_advanced(self: Tensor, index: Index) -> tuple[Tensor, list[Tensor | None]]:
    """Apply the basic indices as views; return the view and the advanced indices per dim."""
    items = tuple(_item(item) for item in _as_tuple(index))
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(_consumed(item) for item in items)
    if self.dim() == 0 and any(isinstance(item, int) and not isinstance(item, bool) for item in items):
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if consumed > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    aten = _aten()
    result = self
    dim = 0
    advanced: list[Tensor | None] = []
    for item in items:
        if item is Ellipsis:
            skip = self.dim() - consumed
            advanced += [None] * skip
            dim += skip
        elif item is None:
            result = aten.unsqueeze(result, dim)
            advanced.append(None)
            dim += 1
        elif isinstance(item, bool):
            result = aten.unsqueeze(result, dim)
            advanced.append(_to_tensor([item]))
            dim += 1
        elif isinstance(item, int):
            result = aten.select.int(result, dim, item)
        elif isinstance(item, slice):
            step = 1 if item.step is None else item.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            result = aten.slice.Tensor(result, dim, item.start, item.stop, step)
            advanced.append(None)
            dim += 1
        else:
            t = _to_tensor(item)
            if t.dtype in (bool_, uint8):
                span = max(t.dim(), 1)
                advanced.append(t)
                advanced += [None] * (span - 1)
                dim += span
            else:
                if t.dtype not in (int64, int32):
                    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
                advanced.append(t)
                dim += 1
    return result, advanced


def _has_advanced(advanced: list[Tensor | None]) -> bool:
    return any(a is not None for a in advanced)


def _trim(advanced: list[Tensor | None]) -> list[Tensor | None]:
    while advanced and advanced[-1] is None:
        advanced.pop()
    return advanced


def getitem(self: Tensor, index: Index) -> Tensor:
    view, advanced = _basic_and_advanced(self, index)
    if view is self:  # `x[...]`, `x[()]`: a new view of the whole tensor
        view = _aten().view(self, list(self.shape))
    if not _has_advanced(advanced):
        return view
    result: Tensor = _aten_op("index.Tensor")(view, _trim(advanced))
    return result


def _check_value(self: Tensor, value: Any) -> None:
    """PyTorch assigns a tensor or a Python number (NumPy's float64 is a float), nothing else."""
    if not isinstance(value, (_tensor.Tensor, int, float, complex)):
        from framework.ops._python_args import type_name

        raise TypeError(f"can't assign a {type_name(value)} to a {self.type()}")


def setitem(self: Tensor, index: Index, value: Any) -> None:
    _check_value(self, value)
    view, advanced = _basic_and_advanced(self, index)
    aten = _aten()
    if _has_advanced(advanced):
        if isinstance(value, _tensor.Tensor):
            values = value if value.dtype is self.dtype else aten.to.dtype(value, self.dtype)
        else:
            values = aten.full([], value, dtype=self.dtype, device=self.device)
        aten.index_put_(view, _trim(advanced), values)
    elif isinstance(value, _tensor.Tensor):
        aten.copy_(view, value)
    else:
        aten.fill_.Scalar(view, value)
