"""`Parameter` and `Buffer`: tensors that a `Module` registers when they are assigned to it; and
`UninitializedParameter` and `UninitializedBuffer`, the placeholders of lazy modules, whose
shape is decided later (`materialize`).

All are `Tensor` subclasses over a detached alias of the data they are made from (the same
storage and version counter, a fresh autograd history), as PyTorch's `_make_subclass` makes them.
Operators on them return plain tensors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NoReturn, cast

import framework
from framework._tensor import Tensor
from framework._torch_function import _disabled_torch_function_impl
from framework.autograd.graph import alias_impl
from framework.autograd.variable import make_variable
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType

__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "UninitializedTensorMixin",
    "is_lazy",
]


def _alias(data: Tensor | None, requires_grad: bool) -> Tensor:
    """A detached alias of `data` (an empty float tensor when None) that requires grad as asked."""
    source = framework.empty(0) if data is None else data
    return make_variable(Tensor(alias_impl(source._impl)), requires_grad)


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as a `Module` attribute it joins the module's
    `parameters()`. It requires grad unless told otherwise, even when made under `no_grad`."""

    __slots__ = ()

    __torch_function__ = _disabled_torch_function_impl
    """No `__torch_function__` handling: operators on parameters give plain tensors."""

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

    __torch_function__ = _disabled_torch_function_impl

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        super().__init__(_alias(data, data is not None and data.requires_grad)._impl)
        self.persistent = persistent


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share: no shape until `materialize` gives them
    data, which also turns them into the class they stand for (`cls_to_become`)."""

    __slots__ = ()
    cls_to_become: ClassVar[type[Tensor]]

    def materialize(
        self, shape: Sequence[int], device: Device | str | None = None, dtype: DType | None = None
    ) -> None:
        """Give the tensor uninitialized data of `shape` (on its own device and dtype unless
        given) and make it a `cls_to_become` (a Parameter or a plain Tensor)."""
        tensor = cast(Tensor, self)
        data = tensor.data
        tensor.data = framework.empty(
            tuple(shape), device=device if device is not None else data.device, dtype=dtype or data.dtype
        )
        tensor.__class__ = self.cls_to_become

    @property
    def shape(self) -> NoReturn:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self) -> NoReturn:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def is_lazy(param: Any) -> bool:
    """Whether `param` is an `UninitializedParameter` or `UninitializedBuffer`."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (a lazy module's, until its first forward):
    `materialize` turns it into a `Parameter`."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(
        self, requires_grad: bool = True, device: Device | str | None = None, dtype: DType | None = None
    ) -> None:
        super().__init__(framework.empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        if id(self) in memo:
            copied: UninitializedParameter = memo[id(self)]
            return copied
        data = self.data
        result = UninitializedParameter(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy module's running statistics, until its
    first forward): `materialize` turns it into a plain `Tensor`.  `persistent` is accepted as in
    PyTorch, where the module's registration of the buffer decides whether it is saved."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(
        self,
        requires_grad: bool = False,
        device: Device | str | None = None,
        dtype: DType | None = None,
        persistent: bool = True,
    ) -> None:
        super().__init__(_alias(framework.empty(0, device=device, dtype=dtype), requires_grad)._impl)
