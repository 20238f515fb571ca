"""The state of the `__torch_function__` protocol (PyTorch's PythonTorchFunctionTLS): the stack of
`TorchFunctionMode`s and whether subclass handlers (or all handlers) are disabled.

The fast paths of the Python API (`framework._method_table`, `framework.ops._api_runtime`) test
`MODES` and the class of `self`; everything else about the protocol is in `framework.overrides`.
This module imports nothing of the framework, so that `Tensor` can use it while being defined."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Final

MODES: Final[list[Any]] = []
"""The `TorchFunctionMode`s pushed, innermost last: while it is not empty every public function,
method and property goes through the protocol."""

ENABLED: Final = 0
SUBCLASSES_DISABLED: Final = 1
ALL_DISABLED: Final = 2
_DISABLED_STATE: Final[list[int]] = [ENABLED]
"""PyTorch's TorchFunctionDisabledState: ENABLED, SUBCLASSES_DISABLED (inside
`DisableTorchFunctionSubclass`: handlers of types are skipped, modes still run) or ALL_DISABLED
(inside `DisableTorchFunction`: modes are skipped too)."""


def disabled_state() -> int:
    return _DISABLED_STATE[0]


def is_torch_function_enabled() -> bool:
    """Whether the `__torch_function__` of argument types runs (PyTorch's
    `torch._C._is_torch_function_enabled`)."""
    return _DISABLED_STATE[0] == ENABLED


def is_torch_function_mode_enabled() -> bool:
    """Whether a `TorchFunctionMode` is pushed and modes are not disabled."""
    return bool(MODES) and _DISABLED_STATE[0] != ALL_DISABLED


class _DisabledState:
    """Sets the disabled state for the duration of a `with` block and restores the previous one."""

    _old: int
    _state: int = ENABLED

    def _new_state(self, old: int) -> int:
        return self._state

    def __enter__(self) -> None:
        self._old = _DISABLED_STATE[0]
        _DISABLED_STATE[0] = self._new_state(self._old)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        _DISABLED_STATE[0] = self._old


class DisableTorchFunctionSubclass(_DisabledState):
    """Within the block, the `__torch_function__` of argument types is not called (modes still
    are); what `Tensor.__torch_function__` runs its `func` under."""

    def _new_state(self, old: int) -> int:
        return SUBCLASSES_DISABLED if old == ENABLED else old


class DisableTorchFunction(_DisabledState):
    """Within the block, neither the `__torch_function__` of argument types nor modes are called."""

    _state = ALL_DISABLED


class _DisabledTorchFunctionImpl:
    """`_disabled_torch_function_impl`: a class whose `__torch_function__` is this object takes no
    part in the protocol (as `nn.Parameter`: its results are plain tensors). Called, it runs `func`
    with subclass handlers disabled. Not a function, so that class attribute access does not bind it."""

    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(
        self,
        func: Callable[..., Any],
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<function _disabled_torch_function_impl>"


_disabled_torch_function_impl: Final = _DisabledTorchFunctionImpl()


_tensor_class: list[type] = []
"""`framework.Tensor`, once defined (`framework._method_table.set_tensor_class`)."""


def is_overloaded(value: object) -> bool:
    """Whether an argument's type has a `__torch_function__` to call now (PyTorch's check of an
    argument in its C++ argument parser): subclass handlers are enabled, it is not a plain
    `Tensor`, and its type's `__torch_function__` exists and is not `_disabled_torch_function_impl`."""
    kind = type(value)
    return (
        _DISABLED_STATE[0] == ENABLED
        and kind is not _tensor_class[0]
        and getattr(kind, "__torch_function__", _disabled_torch_function_impl)
        is not _disabled_torch_function_impl
    )


def set_tensor_class(cls: type) -> None:
    _tensor_class.append(cls)


def _append_overloaded(overloaded: list[Any], value: object) -> None:
    """Add `value` to the arguments whose handlers are tried, unless one of its type is there:
    after the others, but before the first whose type it subclasses (subclasses before
    superclasses, else left to right)."""
    kind = type(value)
    index = len(overloaded)
    for i, other in enumerate(overloaded):
        other_kind = type(other)
        if other_kind is kind:
            return
        if index == len(overloaded) and issubclass(kind, other_kind):
            index = i
    overloaded.insert(index, value)


def overloaded_arguments(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> list[Any]:
    """The arguments (and elements of list or tuple arguments) whose `__torch_function__` is called,
    in the order their handlers are tried (`is_overloaded`, `_append_overloaded`)."""
    overloaded: list[Any] = []
    values = list(args) if kwargs is None else [*args, *kwargs.values()]
    for value in values:
        if type(value) is list or type(value) is tuple:
            for item in value:
                if is_overloaded(item):
                    _append_overloaded(overloaded, item)
        elif is_overloaded(value):
            _append_overloaded(overloaded, value)
    return overloaded


def call_mode(func: Any, types: tuple[type, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The innermost mode's `__torch_function__`, called with that mode popped (so that what it
    calls sees the modes below it)."""
    mode = MODES.pop()
    try:
        return mode.__torch_function__(func, types, args, kwargs)
    finally:
        MODES.append(mode)


def dispatch(
    func: Any, name: str, overloaded: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Call `func` through the protocol as PyTorch's argument parser does: the innermost mode
    first, then the `__torch_function__` of each overloaded argument in order; the first result
    that is not NotImplemented is returned. `name` (`torch.add`, `torch.Tensor.add`) is what the
    TypeError raised when every handler returns NotImplemented calls `func`."""
    types = tuple(type(a) for a in overloaded)
    innermost = MODES[-1] if is_torch_function_mode_enabled() else None
    if innermost is not None:
        result = call_mode(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for value in overloaded:
        result = value.__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    handlers = [] if innermost is None else [f"  - mode object {innermost!r}\n"]
    handlers += [f"  - tensor subclass {kind!r}\n" for kind in types]
    raise TypeError(
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n{''.join(handlers)}\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented"
    )


def route(
    func: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], call: Callable[[], Any]
) -> Any:
    """The slow path of a public function or method (`args` holding `self` first): through the
    protocol when a mode is enabled or an argument is overloaded, else `call()`."""
    overloaded = overloaded_arguments(args, kwargs)
    if overloaded or is_torch_function_mode_enabled():
        return dispatch(func, name, overloaded, args, kwargs)
    return call()


def _route_self(
    func: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], call: Callable[[], Any]
) -> Any:
    """`route` as PyTorch's Python methods and its property getters do it: `self` (`args[0]`)
    alone is the overloaded argument, plain or not (a mode receives its type)."""
    self = args[0]
    if is_torch_function_mode_enabled() or is_overloaded(self):
        overloaded = [self] if _DISABLED_STATE[0] == ENABLED else []
        return dispatch(func, name, overloaded, args, kwargs)
    return call()


def _routed_method(function: Callable[..., Any], name: str, python: bool) -> Callable[..., Any]:
    """A hand-written Tensor method going through `__torch_function__` as the generated ones
    (`framework._method_table.method`), passing itself as `func`; as PyTorch's methods written in
    Python when `python` (`self` alone is checked, `_route_self`)."""
    routing = _route_self if python else route

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self) is _tensor_class[0] and not MODES:
            return function(self, *args, **kwargs)
        return routing(
            method, f"torch.Tensor.{name}", (self, *args), kwargs, lambda: function(self, *args, **kwargs)
        )

    functools.update_wrapper(method, function)
    return method


def _routed_property(prop: property, name: str) -> property:
    """A Tensor property whose getter goes through `__torch_function__` (`_route_self`), passing
    the property's `__get__` as `func` (PyTorch's `Tensor.<name>.__get__`)."""
    getter = prop.fget
    assert getter is not None

    def get(self: Any) -> Any:
        if type(self) is _tensor_class[0] and not MODES:
            return getter(self)
        return _route_self(routed.__get__, f"torch.Tensor.{name}.__get__", (self,), {}, lambda: getter(self))

    routed = property(get, prop.fset, prop.fdel, prop.__doc__)
    return routed


_ROUTED: Final[dict[str, tuple[Any, Any]]] = {}
"""Name -> (attribute, routed attribute) of the hand-written `Tensor` methods and properties. The
routed ones (going through `__torch_function__`) are set on the Tensor subclasses that take part in
the protocol (`route_subclass`), and on `Tensor` itself while a mode is pushed (`push_mode`): a
plain tensor's methods and properties cost nothing more the rest of the time."""


def route_attributes(
    cls: type, properties: tuple[str, ...], methods: tuple[str, ...], python_methods: tuple[str, ...]
) -> None:
    """Make the routed versions of `Tensor`'s hand-written `properties` and `methods` (those
    PyTorch writes in Python: `python_methods`)."""
    for name in properties:
        prop = cls.__dict__[name]
        _ROUTED[name] = (prop, _routed_property(prop, name))
    for names, python in ((methods, False), (python_methods, True)):
        for name in names:
            function = cls.__dict__[name]
            _ROUTED[name] = (function, _routed_method(function, name, python))


def routed_attributes(name: str) -> tuple[Any, Any]:
    """`Tensor`'s own attribute `name` and its routed version."""
    return _ROUTED[name]


def route_subclass(cls: type) -> None:
    """Set the routed methods and properties on a new Tensor subclass with a `__torch_function__`
    (not `_disabled_torch_function_impl`), where it inherits `Tensor`'s own."""
    if getattr(cls, "__torch_function__", None) is _disabled_torch_function_impl:
        return
    for name, (plain, routed) in _ROUTED.items():
        if getattr(cls, name) in (plain, routed):  # Tensor's own (routed while a mode is pushed)
            setattr(cls, name, routed)


def _set_tensor_routing(routed: bool) -> None:
    cls = _tensor_class[0]
    for name, attributes in _ROUTED.items():
        setattr(cls, name, attributes[routed])


def push_mode(mode: Any) -> None:
    """Push a `TorchFunctionMode` (the first routes `Tensor`'s hand-written methods and properties)."""
    if not MODES:
        _set_tensor_routing(True)
    MODES.append(mode)


def pop_mode() -> Any:
    """Pop the innermost `TorchFunctionMode` (the last restores `Tensor`'s plain methods)."""
    mode = MODES.pop()
    if not MODES:
        _set_tensor_routing(False)
    return mode
