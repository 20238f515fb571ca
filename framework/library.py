"""The public registration API, modelled on `TORCH_LIBRARY` / `torch.library.Library`.

    lib = Library("mylib", "DEF")
    lib.def_("mylib::scale(Tensor self, float factor=2.0) -> Tensor")

    @lib.impl("scale", dispatch_key="CPU")
    def scale_cpu(self, factor=2.0): ...

    framework.ops.mylib.scale(x)

Every registration a `Library` makes is undone when the library is destroyed (or its `with`
block ends).  The built-in `aten` operators are registered through this same API.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, Literal, TypeVar, overload

from framework.c10.dispatch.dispatcher import (
    OperatorHandle,
    RegistrationError,
    RegistrationHandle,
    dispatcher,
)
from framework.c10.dispatch.kernel_function import BoxedKernel, KernelFunction
from framework.c10.dispatch.schema import FunctionSchema, parse_schema
from framework.c10.dispatch_key import DispatchKey, parse_dispatch_key

F = TypeVar("F", bound=Callable[..., Any])
LibraryKind = Literal["DEF", "IMPL", "FRAGMENT"]
_KINDS: Final = ("DEF", "IMPL", "FRAGMENT")

_def_namespaces: dict[str, str] = {}
_def_lock = threading.Lock()


def fallthrough_kernel(*args: Any, **kwargs: Any) -> Any:
    """Pass this as a kernel to make a key fall through to the next one (never called)."""
    raise RuntimeError("fallthrough_kernel should never be called")


def _caller_location(depth: int) -> str:
    frame = sys._getframe(depth + 1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _split_qualified(name: str, default_ns: str) -> tuple[str, str, str]:
    """("ns", "op", "overload") from "op", "op.overload", "ns::op" or "ns::op.overload"."""
    ns, sep, rest = name.rpartition("::")
    if not sep:
        ns = default_ns
    base, _, overload_name = rest.partition(".")
    if overload_name == "default":
        overload_name = ""
    return ns, base, overload_name


def _check_signature(fn: Callable[..., Any], schema: FunctionSchema, with_keyset: bool, where: str) -> None:
    """Refuse a Python kernel that cannot be called with the schema's arguments."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    positional = [a.name for a in schema.arguments if not a.kwarg_only]
    keyword = {a.name: None for a in schema.arguments if a.kwarg_only}
    leading = ["keyset"] if with_keyset else []
    try:
        sig.bind(*leading, *positional, **keyword)
    except TypeError as e:
        expected = ", ".join(leading + [str(a) for a in schema.arguments])
        raise TypeError(
            f"{where}: the kernel {getattr(fn, '__qualname__', fn)}{sig} cannot take the arguments "
            f"of {schema.qualified_overload}: expected a callable accepting ({expected}), "
            f"with keyword-only arguments by name ({e})"
        ) from None


class Library:
    """A set of registrations for one namespace: definitions ("DEF"/"FRAGMENT") and kernels."""

    def __init__(self, ns: str, kind: LibraryKind, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Library: kind must be one of {', '.join(_KINDS)}, got {kind!r}")
        if not ns or not ns.replace("_", "a").isalnum():
            raise ValueError(f"Library: namespace must be a Python identifier, got {ns!r}")
        self.ns: Final = ns
        self.kind: Final = kind
        self.dispatch_key: Final = parse_dispatch_key(dispatch_key) if dispatch_key else None
        self._location = _caller_location(1)
        self._handles: list[RegistrationHandle] = []
        self._destroyed = False
        if kind == "DEF":
            with _def_lock:
                previous = _def_namespaces.get(ns)
                if previous is not None:
                    raise RegistrationError(
                        f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                        f"please put all of your definitions in a single TORCH_LIBRARY block.  If "
                        f"you were trying to specify implementations, consider using "
                        f"TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended "
                        f"to define operators for a single namespace in a distributed way, you "
                        f"can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous "
                        f"registration of TORCH_LIBRARY was registered at {previous}; latest "
                        f"registration was registered at {self._location}"
                    )
                _def_namespaces[ns] = self._location
            self._handles.append(RegistrationHandle(lambda: self._release_namespace()))

    def _release_namespace(self) -> None:
        with _def_lock:
            if _def_namespaces.get(self.ns) == self._location:
                del _def_namespaces[self.ns]

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})"

    def _check_alive(self, what: str) -> None:
        if self._destroyed:
            raise RuntimeError(f"Library({self.ns!r}, {self.kind!r}).{what}: the library was destroyed")

    # ---- definitions --------------------------------------------------------------------

    def def_(self, schema: str) -> str:
        """Define an operator from its schema; returns its qualified name ("ns::op.overload")."""
        self._check_alive("def_")
        if self.kind == "IMPL":
            raise RegistrationError(
                f"Library({self.ns!r}, 'IMPL').def_: an IMPL library cannot define operators; "
                f"use a 'DEF' or 'FRAGMENT' library"
            )
        parsed = parse_schema(schema if "::" in schema.partition("(")[0] else f"{self.ns}::{schema}")
        if parsed.namespace != self.ns:
            raise RegistrationError(
                f"Explicitly provided namespace ({parsed.namespace}) in schema string does not "
                f"match namespace of enclosing TORCH_LIBRARY block ({self.ns}): {schema}"
            )
        _, handle = dispatcher().register_def(parsed, f"registered at {_caller_location(1)}")
        self._handles.append(handle)
        return parsed.qualified_overload

    define = def_

    # ---- kernels ------------------------------------------------------------------------

    def _find(self, op_name: str | OperatorHandle) -> OperatorHandle:
        if isinstance(op_name, OperatorHandle):
            return op_name
        ns, base, overload_name = _split_qualified(op_name, self.ns)
        if ns != self.ns:
            raise RegistrationError(
                f"Library({self.ns!r}).impl: {op_name} is not in namespace {self.ns}; register it "
                f"from a Library for namespace {ns}"
            )
        op = dispatcher().find_schema(f"{ns}::{base}", overload_name)
        if op is None:
            qual = f"{ns}::{base}" + (f".{overload_name}" if overload_name else "")
            raise RegistrationError(
                f"Library({self.ns!r}).impl: cannot register a kernel for {qual}: the operator "
                f"was never defined (define it first with def_)"
            )
        return op

    @overload
    def impl(
        self,
        op_name: str | OperatorHandle,
        fn: None = None,
        dispatch_key: str | DispatchKey = "",
        *,
        with_keyset: bool = False,
    ) -> Callable[[F], F]: ...

    @overload
    def impl(
        self,
        op_name: str | OperatorHandle,
        fn: Callable[..., Any],
        dispatch_key: str | DispatchKey = "",
        *,
        with_keyset: bool = False,
    ) -> None: ...

    def impl(
        self,
        op_name: str | OperatorHandle,
        fn: Callable[..., Any] | None = None,
        dispatch_key: str | DispatchKey = "",
        *,
        with_keyset: bool = False,
    ) -> Callable[[F], F] | None:
        """Register `fn` as the kernel of `op_name` at `dispatch_key`.

        Without `fn`, returns a decorator.  The key defaults to the library's key, and then to
        CompositeImplicitAutograd, as in PyTorch.  With `with_keyset=True` the kernel receives the
        current `DispatchKeySet` first (for kernels that redispatch).  Passing
        `fallthrough_kernel` makes the key fall through."""
        if fn is None:

            def decorator(f: F) -> F:
                self._impl(op_name, f, dispatch_key, with_keyset)
                return f

            return decorator
        self._impl(op_name, fn, dispatch_key, with_keyset)
        return None

    def _impl(
        self,
        op_name: str | OperatorHandle,
        fn: Callable[..., Any],
        dispatch_key: str | DispatchKey,
        with_keyset: bool,
    ) -> None:
        self._check_alive("impl")
        key = self._key(dispatch_key)
        op = self._find(op_name)
        where = f"Library({self.ns!r}).impl({op.qualified_name}, dispatch_key={key.name})"
        if fn is fallthrough_kernel:
            kernel = KernelFunction.fallthrough()
        else:
            _check_signature(fn, op.schema, with_keyset, where)
            kernel = KernelFunction.unboxed(fn, with_keyset=with_keyset)
        handle = dispatcher().register_impl(op, key, kernel, f"registered at {_caller_location(2)}")
        self._handles.append(handle)

    def _key(self, dispatch_key: str | DispatchKey) -> DispatchKey:
        if isinstance(dispatch_key, DispatchKey) or dispatch_key:
            return parse_dispatch_key(dispatch_key)
        return DispatchKey.CompositeImplicitAutograd if self.dispatch_key is None else self.dispatch_key

    def fallback(
        self,
        fn: BoxedKernel,
        dispatch_key: str | DispatchKey = "",
        *,
        unboxed: Callable[..., Any] | None = None,
    ) -> None:
        """Register a boxed kernel `fn(op, keyset, stack)` (or `fallthrough_kernel`) that serves
        every operator at `dispatch_key`.  Only a Library for namespace "_" registers fallbacks.

        `unboxed`, if given, is the same kernel in operator-generic unboxed form,
        `unboxed(op, keyset, *args, **kwargs)`: unboxed calls use it and skip boxing."""
        self._check_alive("fallback")
        if self.ns != "_" or self.kind != "IMPL":
            raise RegistrationError(
                f"fallback can only be registered using a Library('_', 'IMPL'), "
                f"not Library({self.ns!r}, {self.kind!r})"
            )
        key = self._key(dispatch_key)
        kernel = (
            KernelFunction.fallthrough()
            if fn is fallthrough_kernel
            else KernelFunction.boxed(fn, generic_unboxed=unboxed)
        )
        handle = dispatcher().register_fallback(key, kernel, f"registered at {_caller_location(1)}")
        self._handles.append(handle)

    # ---- lifetime -----------------------------------------------------------------------

    def _destroy(self) -> None:
        """Undo every registration this library made, newest first."""
        self._destroyed = True
        while self._handles:
            self._handles.pop().remove()

    destroy = _destroy

    def __enter__(self) -> Library:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._destroy()


def _find_operator(qualname: str) -> OperatorHandle:
    ns, base, overload_name = _split_qualified(qualname, "")
    if not ns:
        raise ValueError(f"expected a qualified operator name like 'ns::op.overload', got {qualname!r}")
    return dispatcher().find_schema_or_throw(f"{ns}::{base}", overload_name)


def dispatch_table(qualname: str) -> dict[str, str]:
    """For each runtime key of operator `qualname` that has a kernel, where it comes from: the key
    it was registered at, "fallback" for a backend fallback, "ambiguous" for AutogradOther when
    CompositeImplicitAutograd competes with one of its backends' kernels."""
    return _find_operator(qualname).dispatch_table()


def dump_dispatch_table(qualname: str) -> str:
    """The computed table of `qualname` for people, one line a runtime key."""
    return _find_operator(qualname).dump_computed_table()


_PERMANENT: Final[list[Library]] = []
"""The FRAGMENT libraries the module-level registration functions make when given no `lib`:
their registrations last for good, as PyTorch's `_keep_alive`."""


def _library_for(namespace: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    made = Library(namespace, "FRAGMENT")
    _PERMANENT.append(made)
    return made


def _parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(
            f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. The qualname '
            f"passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin"
        )
    return splits[0], splits[1]


from framework._custom_ops import CustomOpDef, custom_op, get_ctx, infer_schema  # noqa: E402
from framework._library_api import (  # noqa: E402
    define,
    impl,
    impl_abstract,
    opcheck,
    register_autocast,
    register_autograd,
    register_fake,
    register_kernel,
)

__all__ = [
    "CustomOpDef",
    "Library",
    "custom_op",
    "define",
    "dispatch_table",
    "dump_dispatch_table",
    "fallthrough_kernel",
    "get_ctx",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autocast",
    "register_autograd",
    "register_fake",
    "register_kernel",
]
