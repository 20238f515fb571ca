"""The backend fallbacks every process starts with, as in PyTorch.

- BackendSelect and ADInplaceOrView fall through for operators with no kernel of their own there.
- Every autograd key has the autograd fallback: an operator with no autograd kernel runs the
  kernel below autograd (keys after AutogradOther) unchanged.
"""

from __future__ import annotations

from typing import Any, Final

from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch.kernel_function import Stack
from framework.c10.dispatch_key import AFTER_AUTOGRAD_KEYS, AUTOGRAD_KEYS, DispatchKey, DispatchKeySet
from framework.library import Library, fallthrough_kernel

_AFTER_AUTOGRAD_BITS: Final = AFTER_AUTOGRAD_KEYS.repr


def autograd_fallback(op: OperatorHandle, keyset: DispatchKeySet, stack: Stack) -> None:
    """Boxed autograd fallback: redispatch below the autograd keys."""
    op.redispatch_boxed(DispatchKeySet.from_bits(keyset.repr & _AFTER_AUTOGRAD_BITS), stack)


def autograd_fallback_unboxed(op: OperatorHandle, keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
    """The same fallback for unboxed calls."""
    return op.redispatch(DispatchKeySet.from_bits(keyset.repr & _AFTER_AUTOGRAD_BITS), *args, **kwargs)


_library: Final = Library("_", "IMPL")
_library.fallback(fallthrough_kernel, DispatchKey.BackendSelect)
_library.fallback(fallthrough_kernel, DispatchKey.ADInplaceOrView)
for _key in AUTOGRAD_KEYS:
    _library.fallback(autograd_fallback, _key, unboxed=autograd_fallback_unboxed)
