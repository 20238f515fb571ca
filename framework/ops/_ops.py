"""`framework.ops.<ns>.<name>[.<overload>]`: Python handles on dispatcher operators.

`framework.ops.mylib.scale` is an `OpOverloadPacket` (every overload of `mylib::scale`);
`framework.ops.mylib.scale.default` / `.Tensor` an `OpOverload`.  Both are callable; a packet
picks the first overload whose schema the Python arguments fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dispatch.schema import FunctionSchema
from framework.c10.dispatch_key import DispatchKeySet
from framework.ops._python_args import accepts, describe_call

_DISPATCHER = dispatcher()


def arguments_fit(schema: FunctionSchema, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether `(args, kwargs)` bind to `schema`: counts, names, required arguments, types."""
    positional = schema.positional_arguments
    if len(args) > len(positional):
        return False
    by_name = {a.name: a for a in schema.arguments}
    for i, arg in enumerate(schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            if arg.name in kwargs or not accepts(arg.type, args[i]):
                return False
        elif arg.name in kwargs:
            if not accepts(arg.type, kwargs[arg.name]):
                return False
        elif not arg.has_default:
            return False
    return all(k in by_name for k in kwargs)


class OpOverload:
    """One overload of an operator; calling it dispatches.

    `OpOverload.of(handle, packet)` makes an instance of a subclass whose `__call__` is the
    operator's generated dispatch function itself, so calling an overload costs no extra frame."""

    __slots__ = ("_op", "overloadpacket")

    def __init__(self, op: OperatorHandle, packet: OpOverloadPacket) -> None:
        self._op = op
        self.overloadpacket = packet

    @classmethod
    def of(cls, op: OperatorHandle, packet: OpOverloadPacket) -> OpOverload:
        bound: type[OpOverload] = type(
            cls.__name__, (cls,), {"__slots__": (), "__call__": staticmethod(op.call)}
        )
        return bound(op, packet)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._op.call(*args, **kwargs)

    def redispatch(self, keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        return self._op.redispatch(keyset, *args, **kwargs)

    @property
    def handle(self) -> OperatorHandle:
        return self._op

    @property
    def schema(self) -> FunctionSchema:
        return self._op.schema

    @property
    def name(self) -> str:
        """The qualified overload name, e.g. "mylib::scale.default"."""
        return f"{self._op.name}.{self._op.overload_name or 'default'}"

    def __repr__(self) -> str:
        ns, _, base = self._op.name.partition("::")
        return f"<OpOverload(op='{ns}.{base}', overload='{self._op.overload_name or 'default'}')>"


class OpOverloadPacket:
    """Every overload of one operator name; attribute access gives an `OpOverload`."""

    def __init__(self, qualified_name: str) -> None:
        self._qualified_name = qualified_name
        self._generation = -1
        self._handles: list[OperatorHandle] = []
        self._only: OperatorHandle | None = None
        self._overloads: dict[str, OpOverload] = {}

    def _refresh(self) -> list[OperatorHandle]:
        d = _DISPATCHER
        if self._generation != d.generation:
            self._handles = d.find_overloads(self._qualified_name)
            self._only = self._handles[0] if len(self._handles) == 1 else None
            self._overloads = {h.overload_name or "default": OpOverload.of(h, self) for h in self._handles}
            self._generation = d.generation
        return self._handles

    def overloads(self) -> list[str]:
        """Overload names, "default" for the unnamed one."""
        return [h.overload_name or "default" for h in self._refresh()]

    def __getattr__(self, overload_name: str) -> OpOverload:
        if overload_name.startswith("__"):
            raise AttributeError(overload_name)
        self._refresh()
        found = self._overloads.get(overload_name)
        if found is not None:
            return found
        raise AttributeError(
            f"The underlying op of '{self._qualified_name}' has no overload name '{overload_name}'"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        only = self._only
        if only is not None and self._generation == _DISPATCHER.generation:
            return only.call(*args, **kwargs)
        handles = self._refresh()
        if len(handles) == 1:
            return handles[0].call(*args, **kwargs)
        for handle in handles:
            if arguments_fit(handle.schema, args, kwargs):
                return handle.call(*args, **kwargs)
        got = describe_call(args, kwargs)
        expected = "\n".join(f" * {h.schema}" for h in handles)
        raise TypeError(
            f"{self._qualified_name}() received an invalid combination of arguments - got ({got}), "
            f"but expected one of:\n{expected}"
        )

    def __repr__(self) -> str:
        ns, _, base = self._qualified_name.partition("::")
        return f"<OpOverloadPacket(op='{ns}.{base}')>"


class OpNamespace:
    """`framework.ops.<ns>`: attribute access gives the operator's `OpOverloadPacket`."""

    def __init__(self, ns: str) -> None:
        self._ns = ns
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        packet = self._packets.get(name)
        if packet is not None and packet._refresh():
            return packet
        qualified = f"{self._ns}::{name}"
        if not _DISPATCHER.find_overloads(qualified):  # (dunder operators such as aten::__lshift__ exist)
            raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'")
        packet = self._packets[name] = OpOverloadPacket(qualified)
        return packet

    def __repr__(self) -> str:
        return f"<OpNamespace '{self._ns}'>"
