"""Thread-local included/excluded dispatch keys and the guards that change them.

Every thread starts with included = {BackendSelect, ADInplaceOrView} and excluded = {AutocastCPU}
(autocast off).  The dispatcher reads both on every call: keys = (keys of the tensor arguments |
included) - excluded.

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
    DEFAULT_EXCLUDED,
    DEFAULT_INCLUDED,
    DispatchKey,
    DispatchKeySet,
)

local_keys: Final[ContextVar[tuple[int, int]]] = ContextVar(
    "framework_local_dispatch_keys", default=(DEFAULT_INCLUDED.repr, DEFAULT_EXCLUDED.repr)
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


def tls_set_dispatch_key_excluded(key: DispatchKey, excluded: bool) -> None:
    """Add `key` to the thread's excluded set, or take it out (how autocast is switched on)."""
    included, bits = get_local_keys()
    bit = 1 << key
    local_keys.set((included, bits | bit if excluded else bits & ~bit))


def _as_keyset(keys: DispatchKeySet | DispatchKey | str) -> DispatchKeySet:
    return keys if isinstance(keys, DispatchKeySet) else DispatchKeySet(keys)


class _Guard:
    """Adds keys to one of the thread's sets on enter and restores the previous state on exit.

    `_bits` is the raw bitset of the keys: per instance for the guards given keys, a class
    attribute for the fixed guards, which are then made without running any Python code (the
    variable factories enter one on every call)."""

    __slots__ = ("_token",)
    _token: Token[tuple[int, int]] | None
    _bits: int
    _excluding = False

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
        try:
            token = self._token
        except AttributeError:  # A fixed guard never entered: nothing to restore.
            return
        if token is not None:
            local_keys.reset(token)
            self._token = None


class _KeysGuard(_Guard):
    """A guard for the keys it is given."""

    __slots__ = ("_bits",)

    def __init__(self, keys: DispatchKeySet | DispatchKey | str) -> None:
        self._bits = _as_keyset(keys).repr
        self._token = None


class IncludeDispatchKeyGuard(_KeysGuard):
    """`with IncludeDispatchKeyGuard(keys):` adds keys to the thread's included set."""

    __slots__ = ()


class ExcludeDispatchKeyGuard(_KeysGuard):
    """`with ExcludeDispatchKeyGuard(keys):` adds keys to the thread's excluded set."""

    __slots__ = ()
    _excluding = True


class AutoDispatchBelowAutograd(_Guard):
    """Exclude the autograd keys: calls inside skip autograd and go straight to what is below."""

    __slots__ = ()
    _bits = AUTOGRAD_KEYS.repr
    _excluding = True


class AutoDispatchBelowADInplaceOrView(_Guard):
    """Exclude the autograd keys and ADInplaceOrView (what variable factories run under)."""

    __slots__ = ()
    _bits = AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW.repr
    _excluding = True
