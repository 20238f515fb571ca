"""The parsers behind `Tensor`'s generated methods, filled once the operators are registered.

This module imports nothing of the framework so that `Tensor` (which the generated methods
belong to) can be defined before any operator exists."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol


class Handle(Protocol):
    @property
    def call(self) -> Callable[..., Any]: ...


class MethodParser(Protocol):
    @property
    def tensor_handle(self) -> Handle | None: ...
    @property
    def scalar_handle(self) -> Handle | None: ...
    @property
    def numbers_as_tensors(self) -> bool: ...

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], self_: Any = None) -> Any: ...


METHOD_PARSERS: dict[str, MethodParser] = {}


def method(name: str) -> Callable[..., Any]:
    """The Tensor method `name`: parses its arguments against every signature of `name`."""

    def tensor_method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return METHOD_PARSERS[name].call(args, kwargs, self)

    tensor_method.__name__ = tensor_method.__qualname__ = name
    return tensor_method


def operator(name: str, reflected: bool = False) -> Callable[[Any, Any], Any]:
    """A binary operator (`__add__` -> method `name`); `reflected` swaps the operands."""

    def binary(self: Any, other: Any) -> Any:
        parser = METHOD_PARSERS[name]
        if reflected:
            if not isinstance(other, (int, float, complex)):
                return NotImplemented
            if parser.tensor_handle is not None:
                return parser.tensor_handle.call(_wrap(other, self), self)
            return parser.call((self,), {}, _wrap(other, self))
        # The common cases skip argument parsing: a tensor, or a Python number.
        other_type = type(other)
        if other_type is type(self) and parser.tensor_handle is not None:
            return parser.tensor_handle.call(self, other)
        if other_type is int or other_type is float:
            if parser.scalar_handle is not None:
                return parser.scalar_handle.call(self, other)
            if parser.numbers_as_tensors and parser.tensor_handle is not None:
                return parser.tensor_handle.call(self, _wrap(other, self))
        return parser.call((other,), {}, self)

    binary.__name__ = binary.__qualname__ = name
    return binary


def _wrap(value: Any, like: Any) -> Any:
    """A Python number as a zero-dim tensor (PyTorch's wrapped number) on the device of `like`."""
    return _wrapped_number()(value, like._impl.device)


@functools.cache
def _wrapped_number() -> Callable[[Any, Any], Any]:
    """`framework.ops._python_args.wrapped_number`, imported once (operators exist after it)."""
    from framework.ops._python_args import wrapped_number

    return wrapped_number
