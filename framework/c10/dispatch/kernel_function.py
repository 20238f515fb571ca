"""`KernelFunction`: what a dispatch table entry holds.

A kernel is one of
- unboxed: a Python callable taking the operator's arguments as the schema names them;
- unboxed with key set: the same, receiving the current `DispatchKeySet` first (kernels that
  redispatch, like autograd kernels, take this form);
- boxed: `fn(op, keyset, stack)`, which pops the operator's arguments from `stack` (a list holding
  every argument of the schema in order, defaults filled in) and pushes its returns; it can serve
  every operator, which is what a backend fallback is;
- fallthrough: not a kernel but an instruction to skip this key and go to the next one.

A boxed kernel may also carry an operator-generic unboxed form `fn(op, keyset, *args, **kwargs)`
so that fallbacks do not pay for boxing on every call.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from framework.c10.dispatch.dispatcher import OperatorHandle
    from framework.c10.dispatch_key import DispatchKeySet

Stack = list[Any]
BoxedKernel = Callable[["OperatorHandle", "DispatchKeySet", Stack], None]
GenericUnboxedKernel = Callable[..., Any]


MODE_PLAIN: Final = 0
MODE_KEYSET: Final = 1
MODE_GENERIC: Final = 2
MODE_BOXED: Final = 3


class KernelKind(enum.Enum):
    UNBOXED = "unboxed"
    UNBOXED_WITH_KEYSET = "unboxed with keyset"
    BOXED = "boxed"
    FALLTHROUGH = "fallthrough"


def _kernel_name(fn: object) -> str:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{qualname}" if module else qualname


class KernelFunction:
    """One kernel, with the calling convention it was registered with."""

    __slots__ = ("debug", "fn", "generic_unboxed", "kind", "mode", "unboxed_fn")

    def __init__(
        self,
        kind: KernelKind,
        fn: Callable[..., Any] | None,
        debug: str,
        generic_unboxed: GenericUnboxedKernel | None = None,
    ) -> None:
        self.kind: Final = kind
        self.fn: Final = fn
        self.debug: Final = debug
        self.generic_unboxed: Final = generic_unboxed
        # How an unboxed call runs this kernel, decided once: MODE_PLAIN `fn(*args)`,
        # MODE_KEYSET `fn(keyset, *args)`, MODE_GENERIC `fn(op, keyset, *args)`, else MODE_BOXED.
        mode, unboxed_fn = {
            KernelKind.UNBOXED: (MODE_PLAIN, fn),
            KernelKind.UNBOXED_WITH_KEYSET: (MODE_KEYSET, fn),
        }.get(kind, (MODE_BOXED, None) if generic_unboxed is None else (MODE_GENERIC, generic_unboxed))
        self.mode: Final = mode
        self.unboxed_fn: Final = unboxed_fn

    @classmethod
    def unboxed(cls, fn: Callable[..., Any], *, with_keyset: bool = False) -> KernelFunction:
        kind = KernelKind.UNBOXED_WITH_KEYSET if with_keyset else KernelKind.UNBOXED
        return cls(kind, fn, _kernel_name(fn))

    @classmethod
    def boxed(cls, fn: BoxedKernel, *, generic_unboxed: GenericUnboxedKernel | None = None) -> KernelFunction:
        return cls(KernelKind.BOXED, fn, _kernel_name(fn), generic_unboxed)

    @classmethod
    def fallthrough(cls) -> KernelFunction:
        return cls(KernelKind.FALLTHROUGH, None, "fallthrough kernel")

    @property
    def is_fallthrough(self) -> bool:
        return self.kind is KernelKind.FALLTHROUGH

    def __repr__(self) -> str:
        return f"KernelFunction({self.kind.value}: {self.debug})"


FALLTHROUGH: Final = KernelFunction.fallthrough()


def fallthrough_kernel() -> KernelFunction:
    """The kernel that tells the dispatcher to skip a key (PyTorch's `fallthrough_kernel`)."""
    return FALLTHROUGH
