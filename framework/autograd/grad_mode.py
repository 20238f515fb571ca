"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`.

Each is thread-local (a new thread starts with grad mode on), a context manager, and a
decorator, as in PyTorch."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from contextvars import Token
from types import TracebackType
from typing import Any, TypeVar

from framework.c10 import autograd_state
from framework.c10.autograd_state import is_grad_enabled, is_inference_mode_enabled
from framework.c10.dispatch_key import AUTOGRAD_KEYS, DispatchKey, DispatchKeySet
from framework.c10.local_dispatch_key_set import get_local_keys, local_keys

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]


class _DecoratorContextManager:
    """A context manager that also decorates functions (each call runs inside a fresh copy)."""

    def clone(self) -> _DecoratorContextManager:
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        raise NotImplementedError

    def __call__(self, fn: F) -> F:
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _wrap_generator(self, fn: F) -> F:
        """The mode holds whenever the generator runs, not only while it is created."""

        @functools.wraps(fn)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    value = next(gen)
                while True:
                    try:
                        sent = yield value
                    except BaseException as error:  # forwarded into the generator, as PyTorch does
                        with self.clone():
                            value = gen.throw(error)
                    else:
                        with self.clone():
                            value = gen.send(sent)
            except StopIteration as stop:
                return stop.value

        return generator  # type: ignore[return-value]


class _GradModeGuard(_DecoratorContextManager):
    _mode = True

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        """`@no_grad` without parentheses decorates the function directly."""
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func: Callable[..., Any] | None = None) -> None:
        self._token: Token[bool] | None = None

    def __enter__(self) -> None:
        self._token = autograd_state.grad_mode.set(self._mode)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._token is not None:
            autograd_state.grad_mode.reset(self._token)
            self._token = None


class no_grad(_GradModeGuard):
    """Disable gradient recording inside the block (results do not require grad)."""

    _mode = False


class enable_grad(_GradModeGuard):
    """Enable gradient recording inside the block (e.g. inside a `no_grad` region)."""

    _mode = True


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to `mode` now; used as a context manager, restore the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = is_grad_enabled()
        self.mode = mode
        autograd_state.grad_mode.set(mode)

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)

    def __call__(self, fn: F) -> F:
        autograd_state.grad_mode.set(self.prev)
        return super().__call__(fn)

    def __enter__(self) -> None:
        pass

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        autograd_state.grad_mode.set(self.prev)


_INFERENCE_EXCLUDED = AUTOGRAD_KEYS.repr
_AD_INPLACE_OR_VIEW = DispatchKeySet(DispatchKey.ADInplaceOrView).repr


class inference_mode(_DecoratorContextManager):
    """Inference mode (`mode=True`): no recording; tensors made inside are inference tensors (no
    version counting or view tracking for them), which autograd refuses later. `mode=False` turns
    it off inside an enclosing inference_mode block."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._tokens: tuple[Token[bool], Token[bool], Token[tuple[int, int]]] | None = None

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)

    def __enter__(self) -> None:
        included, excluded = get_local_keys()
        if self.mode:
            keys = (included & ~_AD_INPLACE_OR_VIEW, excluded | _INFERENCE_EXCLUDED)
        else:
            keys = (included | _AD_INPLACE_OR_VIEW, excluded & ~_INFERENCE_EXCLUDED)
        self._tokens = (
            autograd_state.inference_mode.set(self.mode),
            autograd_state.grad_mode.set(not self.mode),
            local_keys.set(keys),
        )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._tokens is not None:
            inference, grad, keys = self._tokens
            local_keys.reset(keys)
            autograd_state.grad_mode.reset(grad)
            autograd_state.inference_mode.reset(inference)
            self._tokens = None
