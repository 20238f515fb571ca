"""Thread-local included/excluded dispatch keys and the guards that change them.

Every thread starts with included = {BackendSelect, ADInplaceOrView} and nothing excluded.  The
dispatcher reads both on every call: keys = (keys of the tensor arguments | included) - excluded.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Final

from framework.c10.dispatch_key import (
    AUTOGRAD_KEYS,
    AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW,
    DEFAULT_INCLUDED,
    DispatchKey,
    DispatchKeySet,
)


class _LocalState(threading.local):
    """Raw bitsets, read on the dispatcher's hot path."""

    included: int
    excluded: int

    def __init__(self) -> None:
        self.included = DEFAULT_INCLUDED.repr
        self.excluded = 0


tls_state: Final = _LocalState()


def tls_included() -> DispatchKeySet:
    return DispatchKeySet.from_bits(tls_state.included)


def tls_excluded() -> DispatchKeySet:
    return DispatchKeySet.from_bits(tls_state.excluded)


def tls_is_dispatch_key_included(key: DispatchKey) -> bool:
    return tls_included().has(key)


def tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    return tls_excluded().has(key)


def _as_keyset(keys: DispatchKeySet | DispatchKey | str) -> DispatchKeySet:
    return keys if isinstance(keys, DispatchKeySet) else DispatchKeySet(keys)


class _Guard:
    """Adds keys to one of the thread's sets on enter and restores the previous set on exit."""

    __slots__ = ("_bits", "_saved")
    _field = ""

    def __init__(self, keys: DispatchKeySet | DispatchKey | str) -> None:
        self._bits = _as_keyset(keys).repr
        self._saved = 0

    def __enter__(self) -> None:
        self._saved = getattr(tls_state, self._field)
        setattr(tls_state, self._field, self._saved | self._bits)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        setattr(tls_state, self._field, self._saved)


class IncludeDispatchKeyGuard(_Guard):
    """`with IncludeDispatchKeyGuard(keys):` adds keys to the thread's included set."""

    __slots__ = ()
    _field = "included"


class ExcludeDispatchKeyGuard(_Guard):
    """`with ExcludeDispatchKeyGuard(keys):` adds keys to the thread's excluded set."""

    __slots__ = ()
    _field = "excluded"


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
