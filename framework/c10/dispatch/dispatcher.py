"""The dispatcher: operators, their registered kernels, and the computed dispatch tables.

One `Dispatcher` per process holds an `OperatorEntry` per (name, overload).  An entry keeps the
kernels registered at each dispatch key as a stack (the last registration wins; removing it
restores the one before) and a computed table with one kernel per runtime key, recomputed at
registration so that a call only has to: collect the key sets of its tensor arguments, add the
thread's included keys, remove its excluded keys and the keys whose kernel is a fallthrough, and
run the kernel at the highest remaining key.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

import attrs

from framework.c10.dispatch._codegen import generate_dispatch_functions, list_key_bits
from framework.c10.dispatch.kernel_function import (
    MODE_GENERIC,
    MODE_KEYSET,
    MODE_PLAIN,
    KernelFunction,
    KernelKind,
    Stack,
)
from framework.c10.dispatch.schema import FunctionSchema, TensorKind, tensor_kind
from framework.c10.dispatch_key import (
    AUTOGRAD_OTHER_BACKENDS,
    NUM_RUNTIME_KEYS,
    RUNTIME_KEYS,
    DispatchKey,
    DispatchKeySet,
    backend_keys_for_autograd,
    is_included_in_alias,
)
from framework.c10.fp_errors import QUIET, fp_errors
from framework.c10.local_dispatch_key_set import get_local_keys

_UNBOXED: Final = KernelKind.UNBOXED
_keyset: Final = DispatchKeySet.from_bits
_CIA: Final = DispatchKey.CompositeImplicitAutograd
_CEA: Final = DispatchKey.CompositeExplicitAutograd

CIA_CEA_ERROR: Final = (
    "Registration to both CompositeImplicitAutograd and CompositeExplicitAutograd is not allowed."
)


class RegistrationError(RuntimeError):
    """A registration the dispatcher refuses (duplicate definition, conflicting aliases...)."""


@attrs.frozen
class TableEntry:
    """What fills one runtime key of a computed table, and where it comes from."""

    kernel: KernelFunction
    source: str
    """The key it was registered at, "fallback", or "ambiguous"."""
    kind: str
    """PyTorch's name for the rule that chose it: "kernel", "default backend kernel", "math kernel",
    "autograd kernel", "backend fallback", "ambiguous autogradother"."""


@attrs.frozen(eq=False)
class _Registration:
    kernel: KernelFunction
    debug: str


class OperatorEntry:
    """Everything the dispatcher knows about one operator overload."""

    def __init__(self, schema: FunctionSchema, debug: str) -> None:
        self.schema: Final = schema
        self.schema_debug: Final = debug
        self.kernels: dict[DispatchKey, list[_Registration]] = {}
        self.table: list[TableEntry | None] = [None] * NUM_RUNTIME_KEYS
        # Hot-path state: kernels by key index (index -1 is reached when no key is left), and
        # the mask of keys whose kernel is not a fallthrough.
        self.fast_table: list[KernelFunction] = [_MISSING_KERNEL] * (NUM_RUNTIME_KEYS + 1)
        self.mask = 0
        self.tensor_arguments: Final = tuple(
            (i, kind)
            for i, a in enumerate(schema.arguments)
            if (kind := tensor_kind(a.type)) is not TensorKind.NONE
        )
        args = schema.arguments
        self.arg_names: Final = tuple(a.name for a in args)
        self.num_positional: Final = sum(1 for a in args if not a.kwarg_only)
        self.num_returns: Final = len(schema.returns)

    # ---- boxed arguments (slow paths only) -------------------------------------------------

    def key_bits(self, stack_args: Sequence[Any]) -> int:
        """The union of the key sets of the tensor arguments in a boxed argument list."""
        bits = 0
        for i, kind in self.tensor_arguments:
            value = stack_args[i]
            if kind is TensorKind.TENSOR or kind is TensorKind.OPTIONAL_TENSOR:
                bits |= 0 if value is None else value._impl.key_set.repr
            else:
                bits |= list_key_bits(value)
        return bits

    def unbox(self, stack: Stack) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Pop this operator's arguments from `stack` as (positional, keyword-only)."""
        n = len(self.arg_names)
        taken = stack[len(stack) - n :]
        del stack[len(stack) - n :]
        npos = self.num_positional
        return tuple(taken[:npos]), dict(zip(self.arg_names[npos:], taken[npos:], strict=True))

    def push_returns(self, stack: Stack, result: Any) -> None:
        if self.num_returns == 1:
            stack.append(result)
        elif self.num_returns > 1:
            stack.extend(result)

    def pop_returns(self, stack: Stack) -> Any:
        n = self.num_returns
        if n == 0:
            return None
        if n == 1:
            return stack.pop()
        result = tuple(stack[len(stack) - n :])
        del stack[len(stack) - n :]
        return result

    # ---- registered kernels ------------------------------------------------------------

    def active_kernel(self, key: DispatchKey) -> KernelFunction | None:
        stack = self.kernels.get(key)
        return stack[-1].kernel if stack else None

    def has_kernel_for_any(self, keys: DispatchKeySet) -> bool:
        return any(self.kernels.get(k) for k in keys)

    def registered_keys(self) -> list[DispatchKey]:
        return sorted((k for k, v in self.kernels.items() if v), key=int)


def _raise_missing(op: OperatorHandle, keyset: DispatchKeySet, stack: Stack) -> NoReturn:
    entry = op.entry
    name = entry.schema.qualified_overload
    key = keyset.highest_priority_key()
    available = ", ".join(k.name for k in sorted(RUNTIME_KEYS, key=int) if entry.table[k] is not None)
    if key is DispatchKey.Undefined:
        raise NotImplementedError(
            f"There were no tensor arguments to this function (e.g., you passed an empty list of "
            f"Tensors), but no fallback function is registered for schema {name}.  This usually "
            f"means that this function requires a non-empty list of Tensors, or that you (the "
            f"operator writer) forgot to register a fallback function.  Available functions are "
            f"[{available}]."
        )
    raise NotImplementedError(
        f"Could not run '{name}' with arguments from the '{key.name}' backend. This could be "
        f"because the operator doesn't exist for this backend. '{name}' is only available for "
        f"these backends: [{available}].\n\n{op.dump_computed_table()}"
    )


def _raise_ambiguous(op: OperatorHandle, keyset: DispatchKeySet, stack: Stack) -> NoReturn:
    raise NotImplementedError(
        f"{op.entry.schema.qualified_overload} has kernels registered to both "
        "CompositeImplicitAutograd and a backend mapped to AutogradOther. This makes the backend "
        "kernel unreachable; the dispatcher will always prefer the CompositeImplicitAutograd "
        "lowering. If you want to override CompositeImplicitAutograd, register a kernel at "
        "AutogradOther (or Autograd) for this operator."
    )


_MISSING_KERNEL: Final = KernelFunction.boxed(_raise_missing)
_AMBIGUOUS_KERNEL: Final = KernelFunction.boxed(_raise_ambiguous)


def _call_kernel(
    op: OperatorHandle,
    kernel: KernelFunction,
    bits: int,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """Run `kernel` on unboxed arguments, whatever its calling convention."""
    mode = kernel.mode
    fn = kernel.unboxed_fn
    if mode == MODE_PLAIN:
        return fn(*args, **kwargs)  # type: ignore[misc]
    if mode in (MODE_KEYSET, MODE_GENERIC):
        leading = (_keyset(bits),) if mode == MODE_KEYSET else (op, _keyset(bits))
        return fn(*leading, *args, **kwargs)  # type: ignore[misc]
    boxed = kernel.fn
    assert boxed is not None
    stack = [*args, *kwargs.values()]
    boxed(op, _keyset(bits), stack)
    return op.entry.pop_returns(stack)


def _call_kernel_boxed(op: OperatorHandle, kernel: KernelFunction, bits: int, stack: Stack) -> None:
    """Run `kernel` on a stack of boxed arguments, whatever its calling convention."""
    kind = kernel.kind
    fn = kernel.fn
    assert fn is not None
    keyset = _keyset(bits)
    if kind is KernelKind.BOXED:
        fn(op, keyset, stack)
        return
    entry = op.entry
    args, kwargs = entry.unbox(stack)
    result = fn(*args, **kwargs) if kind is _UNBOXED else fn(keyset, *args, **kwargs)
    entry.push_returns(stack, result)


class OperatorHandle:
    """A handle on one operator overload: how calls reach the dispatcher."""

    __slots__ = ("call", "entry", "name", "overload_name", "redispatch")

    call: Callable[..., Any]
    """`call(*args, **kwargs)`: dispatch with the tensor arguments' keys | thread-included keys
    - thread-excluded keys, then run the kernel at the highest key."""
    redispatch: Callable[..., Any]
    """`redispatch(keyset, *args, **kwargs)`: run the kernel at the highest key of `keyset`
    (no thread-local keys are added): how a kernel continues below its own key."""

    def __init__(self, entry: OperatorEntry) -> None:
        self.entry: Final = entry
        self.name: Final = entry.schema.name
        self.overload_name: Final = entry.schema.overload_name
        self.call, self.redispatch = generate_dispatch_functions(self, _call_kernel, self._bad_argument)

    @property
    def schema(self) -> FunctionSchema:
        return self.entry.schema

    @property
    def qualified_name(self) -> str:
        return self.entry.schema.qualified_overload

    def __repr__(self) -> str:
        return f"OperatorHandle({self.qualified_name})"

    def _bad_argument(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        """The error for a call whose tensor arguments are not tensors (all arguments given:
        the positional ones in `args`, the keyword-only ones in `kwargs`)."""
        stack = [*args, *kwargs.values()]
        for i, kind in self.entry.tensor_arguments:
            value = stack[i]
            if kind is TensorKind.TENSOR:
                ok = hasattr(value, "_impl")
            elif kind is TensorKind.OPTIONAL_TENSOR:
                ok = value is None or hasattr(value, "_impl")
            else:
                ok = isinstance(value, (list, tuple)) and all(
                    hasattr(v, "_impl") or (v is None and kind is TensorKind.OPTIONAL_TENSOR_LIST)
                    for v in value
                )
            if not ok:
                arg = self.entry.schema.arguments[i]
                return TypeError(
                    f"{self.qualified_name}(): argument '{arg.name}' (position {i}) must be "
                    f"{arg.type}, not {type(value).__name__}"
                )
        return TypeError(f"{self.qualified_name}(): invalid arguments")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)

    def call_boxed(self, stack: Stack) -> None:
        """Dispatch a boxed call: `stack` ends with every argument of the schema, in order; on
        return they are replaced by the operator's returns."""
        entry = self.entry
        args = tuple(stack[len(stack) - len(entry.arg_names) :])
        try:
            bits = entry.key_bits(args)
        except (AttributeError, TypeError):
            raise self._bad_argument(args, {}) from None
        included, excluded = get_local_keys()
        bits = (bits | included) & ~excluded & entry.mask
        token = fp_errors.set(QUIET)
        try:
            _call_kernel_boxed(self, entry.fast_table[bits.bit_length() - 1], bits, stack)
        finally:
            fp_errors.reset(token)

    def redispatch_boxed(self, keyset: DispatchKeySet, stack: Stack) -> None:
        entry = self.entry
        bits = keyset.repr & entry.mask
        _call_kernel_boxed(self, entry.fast_table[bits.bit_length() - 1], bits, stack)

    # ---- introspection ------------------------------------------------------------------

    def dispatch_table(self) -> dict[str, str]:
        """For each runtime key with a kernel, where that kernel comes from."""
        return {
            k.name: e.source for k in sorted(RUNTIME_KEYS, key=int) if (e := self.entry.table[k]) is not None
        }

    def dump_computed_table(self) -> str:
        """The computed table for people, one line a runtime key (like PyTorch's dump)."""
        lines = []
        for k in sorted(RUNTIME_KEYS, key=int):
            e = self.entry.table[k]
            if e is not None:
                lines.append(f"{k.name}: {e.kernel.debug} [{e.kind}]")
        return "\n".join(lines)

    def dump_state(self) -> str:
        """The registered kernels per key, newest first (like PyTorch's `_dispatch_dump`)."""
        entry = self.entry
        lines = [f"name: {self.qualified_name}", f"schema: {entry.schema}"]
        for key in entry.registered_keys():
            for reg in reversed(entry.kernels[key]):
                lines.append(f"{key.name}: {reg.kernel.debug} [{reg.debug}]")
        return "\n".join(lines)


class RegistrationHandle:
    """Undoes one registration when `remove()` is called (PyTorch's RegistrationHandleRAII)."""

    __slots__ = ("_undo",)

    def __init__(self, undo: Callable[[], None]) -> None:
        self._undo: Callable[[], None] | None = undo

    def remove(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()


class Dispatcher:
    """The process-wide registry of operators and backend fallbacks."""

    _singleton: Dispatcher | None = None

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._operators: dict[tuple[str, str], OperatorHandle] = {}
        self._by_name: dict[str, list[OperatorHandle]] = {}
        self._fallbacks: dict[DispatchKey, list[_Registration]] = {}
        self.generation = 0
        """Counts definitions and their removals: caches of operator lookups compare it."""

    @classmethod
    def singleton(cls) -> Dispatcher:
        if cls._singleton is None:
            cls._singleton = cls()
        return cls._singleton

    # ---- lookup -------------------------------------------------------------------------

    def find_schema(self, name: str, overload_name: str = "") -> OperatorHandle | None:
        return self._operators.get((name, overload_name))

    def find_schema_or_throw(self, name: str, overload_name: str = "") -> OperatorHandle:
        op = self.find_schema(name, overload_name)
        if op is None:
            qual = f"{name}.{overload_name}" if overload_name else name
            raise RuntimeError(f"Could not find schema for {qual}")
        return op

    def find_overloads(self, name: str) -> list[OperatorHandle]:
        """Every overload of `name`, in registration order."""
        return list(self._by_name.get(name, ()))

    def all_operator_names(self) -> list[str]:
        return [op.qualified_name for op in list(self._operators.values())]

    # ---- registration -------------------------------------------------------------------

    def register_def(self, schema: FunctionSchema, debug: str) -> tuple[OperatorHandle, RegistrationHandle]:
        """Define an operator; defining one that exists is refused."""
        key = (schema.name, schema.overload_name)
        with self._lock:
            existing = self._operators.get(key)
            if existing is not None:
                raise RegistrationError(
                    f"Tried to register an operator ({schema}) with the same name and overload "
                    f"name multiple times. Each overload's schema should only be registered with "
                    f"a single call to def(). Duplicate registration: {debug}. Original "
                    f"registration: {existing.entry.schema_debug}"
                )
            op = OperatorHandle(OperatorEntry(schema, debug))
            self._recompute(op.entry)
            self._operators[key] = op
            self._by_name.setdefault(schema.name, []).append(op)
            self.generation += 1

        def undo() -> None:
            with self._lock:
                if self._operators.get(key) is op:
                    del self._operators[key]
                    overloads = self._by_name[schema.name]
                    overloads.remove(op)
                    if not overloads:
                        del self._by_name[schema.name]
                    self.generation += 1

        return op, RegistrationHandle(undo)

    def register_impl(
        self, op: OperatorHandle, key: DispatchKey, kernel: KernelFunction, debug: str
    ) -> RegistrationHandle:
        """Add `kernel` at `key` (a runtime or alias key) on top of what is there."""
        if not (key.is_runtime or key.is_alias):
            raise RegistrationError(f"Cannot register a kernel at dispatch key {key.name}")
        entry = op.entry
        with self._lock:
            other = {_CIA: _CEA, _CEA: _CIA}.get(key)
            if other is not None and entry.active_kernel(other) is not None:
                raise RegistrationError(CIA_CEA_ERROR)
            stack = entry.kernels.setdefault(key, [])
            if stack:
                warnings.warn(
                    "Overriding a previously registered kernel for the same operator and the "
                    f"same dispatch key\n  operator: {entry.schema}\n  dispatch key: {key.name}\n"
                    f"  previous kernel: {stack[-1].debug}\n       new kernel: {debug}",
                    UserWarning,
                    stacklevel=3,
                )
            reg = _Registration(kernel, debug)
            stack.append(reg)
            self._recompute(entry)

        def undo() -> None:
            with self._lock:
                regs = entry.kernels.get(key, [])
                if reg in regs:
                    regs.remove(reg)
                    self._recompute(entry)

        return RegistrationHandle(undo)

    def register_fallback(self, key: DispatchKey, kernel: KernelFunction, debug: str) -> RegistrationHandle:
        """A kernel for `key` used by every operator that has none of its own there."""
        if not key.is_runtime:
            raise RegistrationError(
                f"Backend fallbacks are registered at runtime keys; {key.name} is an alias key"
            )
        with self._lock:
            stack = self._fallbacks.setdefault(key, [])
            if stack:
                raise RegistrationError(
                    f"Tried to register multiple backend fallbacks for the same dispatch key "
                    f"{key.name}; previous registration {stack[-1].debug}, new registration {debug}"
                )
            reg = _Registration(kernel, debug)
            stack.append(reg)
            self._recompute_everywhere()

        def undo() -> None:
            with self._lock:
                regs = self._fallbacks.get(key, [])
                if reg in regs:
                    regs.remove(reg)
                    self._recompute_everywhere()

        return RegistrationHandle(undo)

    def fallback_kernel(self, key: DispatchKey) -> KernelFunction | None:
        regs = self._fallbacks.get(key)
        return regs[-1].kernel if regs else None

    # ---- computed tables ----------------------------------------------------------------

    def _recompute_everywhere(self) -> None:
        for op in self._operators.values():
            self._recompute(op.entry)

    def _recompute(self, entry: OperatorEntry) -> None:
        """Recompute every runtime key: a kernel at one key can change what another key gets
        (a backend kernel hides CompositeImplicitAutograd from its autograd key)."""
        for key in RUNTIME_KEYS:
            computed = self._compute_entry(entry, key)
            entry.table[key] = computed
            entry.fast_table[key] = computed.kernel if computed is not None else _MISSING_KERNEL
        # A call whose key set is empty (no tensor arguments, every thread-local key excluded)
        # runs the composite kernel, as PyTorch's Undefined entry does.
        composite = entry.active_kernel(_CEA) or entry.active_kernel(_CIA)
        entry.fast_table[-1] = _MISSING_KERNEL if composite is None else composite
        mask = 0
        for key in RUNTIME_KEYS:
            computed = entry.table[key]
            if computed is None or not computed.kernel.is_fallthrough:
                mask |= 1 << key
        entry.mask = mask

    def _compute_entry(self, entry: OperatorEntry, key: DispatchKey) -> TableEntry | None:
        """PyTorch's rules for the kernel at one runtime key, in order."""
        direct = entry.active_kernel(key)
        if direct is not None:
            return TableEntry(direct, key.name, "kernel")
        if is_included_in_alias(key, _CEA):
            cea = entry.active_kernel(_CEA)
            if cea is not None:
                return TableEntry(cea, _CEA.name, "default backend kernel")
        cia = entry.active_kernel(_CIA)
        if cia is not None and is_included_in_alias(key, _CIA):
            if key is DispatchKey.AutogradOther and entry.has_kernel_for_any(AUTOGRAD_OTHER_BACKENDS):
                return TableEntry(_AMBIGUOUS_KERNEL, "ambiguous", "ambiguous autogradother")
            has_backend_kernel = entry.has_kernel_for_any(backend_keys_for_autograd(key)) or (
                entry.active_kernel(_CEA) is not None
            )
            if not has_backend_kernel:
                return TableEntry(cia, _CIA.name, "math kernel")
        if is_included_in_alias(key, DispatchKey.Autograd):
            autograd = entry.active_kernel(DispatchKey.Autograd)
            if autograd is not None:
                return TableEntry(autograd, DispatchKey.Autograd.name, "autograd kernel")
        fallback = self.fallback_kernel(key)
        if fallback is not None:
            return TableEntry(fallback, "fallback", "backend fallback")
        return None


def dispatcher() -> Dispatcher:
    """The process-wide dispatcher."""
    return Dispatcher.singleton()


__all__ = [
    "CIA_CEA_ERROR",
    "Dispatcher",
    "OperatorEntry",
    "OperatorHandle",
    "RegistrationError",
    "RegistrationHandle",
    "TableEntry",
    "dispatcher",
]
