"""`Parameter` and `Buffer`: tensors that a `Module` registers when they are assigned to it.

Both are `Tensor` subclasses over a detached alias of the data they are made from (the same
storage and version counter, a fresh autograd history), as PyTorch's `_make_subclass` makes them.
Operators on them return plain tensors."""

from __future__ import annotations

from typing import Any

import framework
from framework._tensor import Tensor
from framework.autograd.graph import alias_impl
from framework.autograd.variable import make_variable

__all__ = ["Buffer", "Parameter"]


def _alias(data: Tensor | None, requires_grad: bool) -> Tensor:
    """A detached alias of `data` (an empty float tensor when None) that requires grad as asked."""
    source = framework.empty(0) if data is None else data
    return make_variable(Tensor(alias_impl(source._impl)), requires_grad)


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as a `Module` attribute it joins the module's
    `parameters()`. It requires grad unless told otherwise, even when made under `no_grad`."""

    __slots__ = ()

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        super().__init__(_alias(data, requires_grad)._impl)

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            copied: Parameter = memo[id(self)]
            return copied
        result = Parameter(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Buffer(Tensor):
    """A tensor that is module state but not a parameter (BatchNorm's running statistics): assigned
    as a `Module` attribute it joins the module's `buffers()`, and its `state_dict()` when
    `persistent`."""

    __slots__ = ("persistent",)

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        super().__init__(_alias(data, data is not None and data.requires_grad)._impl)
        self.persistent = persistent
