"""The parsers behind `Tensor`'s generated methods, filled once the operators are registered.

This module imports nothing of the framework but the `__torch_function__` state, so that `Tensor`
(which the generated methods belong to) can be defined before any operator exists.

Each method and operator takes its fast path when `self` is a plain `Tensor` and no
`TorchFunctionMode` is pushed; otherwise it goes through `__torch_function__`
(`framework._torch_function.route`), passing itself (PyTorch's `torch.Tensor.<name>`) as `func`.
A plain `self` with an overloaded argument reaches the protocol from the parser, which does not
accept that argument (`framework.ops._python_args.PythonArgParser.unparsed`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

from framework._torch_function import MODES, route
from framework._torch_function import set_tensor_class as _set_tensor_class


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

_tensor: Any = None
"""`framework.Tensor` once defined: the class whose instances take the fast paths."""


def set_tensor_class(cls: type) -> None:
    """Called once `framework.Tensor` is defined."""
    global _tensor
    _tensor = cls
    _set_tensor_class(cls)


def method(name: str) -> Callable[..., Any]:
    """The Tensor method `name`: parses its arguments against every signature of `name`."""

    def tensor_method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self) is _tensor and not MODES:
            return METHOD_PARSERS[name].call(args, kwargs, self)
        return route(
            tensor_method,
            f"torch.Tensor.{name}",
            (self, *args),
            kwargs,
            lambda: METHOD_PARSERS[name].call(args, kwargs, self),
        )

    tensor_method.__name__ = tensor_method.__qualname__ = name
    return tensor_method


def operator(name: str, own: str | None = None) -> Callable[[Any, Any], Any]:
    """A binary operator (`__add__` -> method `name`). As PyTorch's, it turns a TypeError (an
        operand the method does not take) into NotImplemented, so that Python tries the other operand
        (a NumPy array computes `t + array` with NumPy, see `Tensor.__array_wrap__`) or raises its own
        "unsupported operand type(s)" error. Through `__torch_function__` it passes `Tensor.<name>` as
        PyTorch does (`Tensor.add` for `+`), or itself, named `own`, where PyTorch passes the operator
    (`Tensor.__and__`)."""

    def binary(self: Any, other: Any) -> Any:
        parser = METHOD_PARSERS[name]
        try:
            other_type = type(other)
            if type(self) is _tensor and not MODES:
                # The common cases skip argument parsing: a tensor, or a Python number.
                if other_type is _tensor and parser.tensor_handle is not None:
                    return parser.tensor_handle.call(self, other)
                if other_type is int or other_type is float:
                    if parser.scalar_handle is not None:
                        return parser.scalar_handle.call(self, other)
                    if parser.numbers_as_tensors and parser.tensor_handle is not None:
                        return parser.tensor_handle.call(self, _wrap(other, self))
                return parser.call((other,), {}, self)
            func = getattr(_tensor, name) if own is None else binary
            return route(
                func,
                f"torch.Tensor.{func.__name__}",
                (self, other),
                {},
                lambda: parser.call((other,), {}, self),
            )
        except TypeError:
            return NotImplemented

    binary.__name__ = binary.__qualname__ = name if own is None else own
    return binary


def reflected(op: str, name: str, swap: bool) -> Callable[[Any, Any], Any]:
    """A reflected operator as PyTorch's Tensor defines it: `other <op> self` calls the function
    `framework.<name>` on `(other, self)` when `swap` (`2 ** t` is `pow(2, t)`), else on
    `(self, other)` (`2 - t` is `rsub(t, 2)`). A TypeError (an operand the function does not
    take) becomes NotImplemented, so that Python tries the other operand or raises its own error."""

    def binary(self: Any, other: Any) -> Any:
        function = _function(name)
        try:
            if type(self) is _tensor and not MODES:
                return function(other, self) if swap else function(self, other)
            return route(
                binary,
                f"torch.Tensor.{binary.__name__}",
                (self, other),
                {},
                lambda: function(other, self) if swap else function(self, other),
            )
        except TypeError:
            return NotImplemented

    binary.__name__ = binary.__qualname__ = op
    return binary


def rtruediv(self: Any, other: Any) -> Any:
    """`other / self` as PyTorch computes it: `self.reciprocal() * other` (its numbers and its
    graph, MulBackward0 over ReciprocalBackward0); a TypeError becomes NotImplemented. Named
    `__rdiv__`, as PyTorch's, which `__torch_function__` receives."""
    try:
        if type(self) is _tensor and not MODES:
            return self.reciprocal() * other
        return route(rtruediv, "torch.Tensor.__rdiv__", (self, other), {}, lambda: self.reciprocal() * other)
    except TypeError:
        return NotImplemented


rtruediv.__name__ = rtruediv.__qualname__ = "__rdiv__"


@functools.cache
def _function(name: str) -> Callable[..., Any]:
    """The generated function `framework.<name>` (imported when first needed: operators exist then)."""
    from framework._generated import functions

    function: Callable[..., Any] = getattr(functions, name)
    return function


def _wrap(value: Any, like: Any) -> Any:
    """A Python number as a zero-dim tensor (PyTorch's wrapped number) on the device of `like`."""
    return _wrapped_number()(value, like._impl.device)


@functools.cache
def _wrapped_number() -> Callable[[Any, Any], Any]:
    """`framework.ops._python_args.wrapped_number`, imported once (operators exist after it)."""
    from framework.ops._python_args import wrapped_number

    return wrapped_number
