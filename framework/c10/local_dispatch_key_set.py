"""Thread-local included/excluded dispatch keys and the guards that change them.

Every thread starts with included = {BackendSelect, ADInplaceOrView} and nothing excluded.  The
dispatcher reads both on every call: keys = (keys of the tensor arguments | included) - excluded.

The state lives in a `ContextVar` holding the pair of raw bitsets: each thread starts from the
default (as each thread's TLS does in PyTorch), and a read costs one C call on the hot path.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from types import TracebackType
from typing import Final

from framework.c10.dispatch_key import (
    AUTOGRAD_KEYS,
    AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW,
    DEFAULT_INCLUDED,
    DispatchKey,
    DispatchKeySet,
)

local_keys: Final[ContextVar[tuple[int, int]]] = ContextVar(
    "framework_local_dispatch_keys", default=(DEFAULT_INCLUDED.repr, 0)
)
"""(included bits, excluded bits) of the current thread."""

get_local_keys: Final = local_keys.get


def tls_included() -> DispatchKeySet:
    return DispatchKeySet.from_bits(get_local_keys()[0])


def tls_excluded() -> DispatchKeySet:
    return DispatchKeySet.from_bits(get_local_keys()[1])


def tls_is_dispatch_key_included(key: DispatchKey) -> bool:
    return tls_included().has(key)


def tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    return tls_excluded().has(key)


def _as_keyset(keys: DispatchKeySet | DispatchKey | str) -> DispatchKeySet:
    return keys if isinstance(keys, DispatchKeySet) else DispatchKeySet(keys)


class _Guard:
    """Adds keys to one of the thread's sets on enter and restores the previous state on exit."""

    __slots__ = ("_bits", "_token")
    _excluding = False

    def __init__(self, keys: DispatchKeySet | DispatchKey | str) -> None:
        self._bits = _as_keyset(keys).repr
        self._token: Token[tuple[int, int]] | None = None

    def __enter__(self) -> None:
        included, excluded = get_local_keys()
        if self._excluding:
            self._token = local_keys.set((included, excluded | self._bits))
        else:
            self._token = local_keys.set((included | self._bits, excluded))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            local_keys.reset(self._token)
            self._token = None


class IncludeDispatchKeyGuard(_Guard):
    """`with IncludeDispatchKeyGuard(keys):` adds keys to the thread's included set."""

    __slots__ = ()


class ExcludeDispatchKeyGuard(_Guard):
    """`with ExcludeDispatchKeyGuard(keys):` adds keys to the thread's excluded set."""

    __slots__ = ()
    _excluding = True


class AutoDispatchBelowAutograd(ExcludeDispatchKeyGuard):
    """Exclude the autograd keys: calls inside skip autograd and go straight to what is below."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(AUTOGRAD_KEYS)


class AutoDispatchBelowADInplaceOrView(ExcludeDispatchKeyGuard):
    """Exclude the autograd keys and ADInplaceOrView (what variable factories run under)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW)
