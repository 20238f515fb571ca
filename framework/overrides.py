"""The `__torch_function__` protocol (PyTorch's torch.overrides).

A type that defines `__torch_function__(cls, func, types, args=(), kwargs=None)` (a `Tensor`
subclass, or any class: a "tensor-like" duck type) takes over the public functions, `Tensor`
methods, operators and properties, and `framework.nn.functional`, called with one of its instances
as an argument: the call becomes `__torch_function__(func, types, args, kwargs)`, `func` being the
public object called (`framework.add`, `Tensor.add`, `Tensor.shape.__get__`). `Tensor`'s own
handler runs `func` and makes the results instances of the subclass. A `TorchFunctionMode`,
pushed with `with`, sees every such call first, plain tensors included.

Functions written in Python take part with `has_torch_function` and `handle_torch_function`, as in
PyTorch::

    def f(x):
        if has_torch_function_unary(x):
            return handle_torch_function(f, (x,), x)
        ...
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, TypeVar

from framework._tensor import Tensor
from framework._torch_function import (
    MODES,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    call_mode,
    is_overloaded,
    is_torch_function_enabled,
    is_torch_function_mode_enabled,
    pop_mode,
    push_mode,
)

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "wrap_torch_function",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether a call with these arguments goes through `__torch_function__`: a mode is enabled,
    or one of them is not a plain `Tensor` and has a `__torch_function__` that is not
    `_disabled_torch_function_impl` (and subclass handlers are enabled)."""
    return is_torch_function_mode_enabled() or any(is_overloaded(a) for a in relevant_args)


def has_torch_function_unary(obj: Any) -> bool:
    """`has_torch_function((obj,))`."""
    return is_torch_function_mode_enabled() or is_overloaded(obj)


def has_torch_function_variadic(*args: Any) -> bool:
    """`has_torch_function(args)`."""
    return has_torch_function(args)


def _get_overloaded_args(relevant_args: Iterable[Any]) -> list[Any]:
    """The arguments whose `__torch_function__` `handle_torch_function` tries, in order: one per
    type having one that is not `_disabled_torch_function_impl` (plain `Tensor` included),
    subclasses before their superclasses, else left to right; none while subclass handlers are
    disabled."""
    overloaded: list[Any] = []
    if not is_torch_function_enabled():
        return overloaded
    for arg in relevant_args:
        kind = type(arg)
        impl = getattr(kind, "__torch_function__", _disabled_torch_function_impl)
        if impl is _disabled_torch_function_impl or any(type(o) is kind for o in overloaded):
            continue
        index = next((i for i, o in enumerate(overloaded) if issubclass(kind, type(o))), len(overloaded))
        overloaded.insert(index, arg)
    return overloaded


def _public_name(func: Callable[..., Any]) -> str:
    """`module.name` of a function as PyTorch's messages give it (`torch.` for `framework.`)."""
    module = getattr(func, "__module__", None) or ""
    if module == "framework" or module.startswith("framework."):
        module = "torch" + module.removeprefix("framework")
    return f"{module}.{getattr(func, '__name__', func)}"


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Call `public_api(*args, **kwargs)` through the protocol: the innermost enabled mode first,
    then the `__torch_function__` of each type of `relevant_args` (`_get_overloaded_args`); the
    first result that is not NotImplemented is returned, else a TypeError."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    mode = MODES[-1] if is_torch_function_mode_enabled() else None
    if mode is not None:
        result = call_mode(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        impl = arg.__torch_function__
        if getattr(impl, "__self__", None) is arg:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will be an "
                "error in future, please define it as a classmethod.",
                DeprecationWarning,
                stacklevel=2,
            )
        result = impl(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    message = (
        f"no implementation found for '{_public_name(public_api)}' on types that implement "
        f"__torch_function__: {[type(a) for a in overloaded]}"
    )
    if mode is not None:
        message += f" nor in mode {mode}"
    raise TypeError(message)


def is_tensor_like(inp: Any) -> bool:
    """Whether `inp` is a `Tensor` or has a `__torch_function__` (a tensor-like type, or its
    instance)."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[[_F], _F]:
    """Decorate a function so that it goes through `__torch_function__`; `dispatcher`, called with
    the same arguments, gives the arguments that count (`relevant_args`)."""

    def decorator(func: _F) -> _F:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped  # type: ignore[return-value]

    return decorator


class TorchFunctionMode:
    """A handler of every public call while pushed (`with mode:`): its `__torch_function__(func,
    types, args=(), kwargs=None)` receives them first, plain tensors included, and runs with itself
    popped (calling `func(*args, **kwargs)` there computes the result)."""

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        push_mode(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        pop_mode()


_is_torch_function_enabled = is_torch_function_enabled
_is_torch_function_mode_enabled = is_torch_function_mode_enabled


_PLAIN_TYPES = frozenset((Tensor, int, float, bool, str, type(None)))


def torch_function_dispatch(function: _F) -> _F:
    """`function` (a Python function over tensors, as those of `framework.nn.functional`) going
    through `handle_torch_function` when a mode is enabled or an argument is overloaded; the
    tensor-like arguments are its `relevant_args`."""

    @functools.wraps(function)
    def dispatched(*args: Any, **kwargs: Any) -> Any:
        if (MODES and is_torch_function_mode_enabled()) or any(
            type(a) not in _PLAIN_TYPES and is_overloaded(a) for a in (*args, *kwargs.values())
        ):
            relevant = [a for a in (*args, *kwargs.values()) if is_tensor_like(a)]
            return handle_torch_function(dispatched, relevant, *args, **kwargs)
        return function(*args, **kwargs)

    return dispatched  # type: ignore[return-value]
