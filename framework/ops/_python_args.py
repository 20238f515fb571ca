"""Python argument parsing for the generated API (PyTorch's PythonArgParser).

A Python signature is a schema seen from Python: `self` is called `input` for functions (and is
bound for methods); a functional schema and its `out=` overload share one signature with an
optional `out` keyword; factories take `requires_grad=`; an int list that is the only positional
parameter may be given as `*size`.  A parser holds the signatures of one Python name, picks the
first that the arguments fit, converts them and calls the operator; when none fits, a `TypeError`
lists every signature it accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs

from framework._tensor import Tensor
from framework.autograd.variable import make_variable
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dispatch._codegen import param_name, python_default
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch.schema import (
    Argument,
    BaseTy,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    SchemaType,
)
from framework.c10.dtypes import dtype
from framework.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView

_MISSING: Final = object()
_INT_TYPES: Final = frozenset((BaseTy.int, BaseTy.SymInt))


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float, complex))


def _is_float(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _generator_type() -> type:
    from framework.c10.generator import Generator

    return Generator


_CHECKS: Final[dict[BaseTy, Any]] = {
    BaseTy.Tensor: lambda v: isinstance(v, Tensor),
    BaseTy.int: _is_int,
    BaseTy.SymInt: _is_int,
    BaseTy.float: _is_float,
    BaseTy.bool: lambda v: isinstance(v, bool),
    BaseTy.str: lambda v: isinstance(v, str),
    BaseTy.Scalar: _is_number,
    BaseTy.complex: _is_number,
    BaseTy.ScalarType: lambda v: isinstance(v, dtype),
    BaseTy.Layout: lambda v: isinstance(v, Layout),
    BaseTy.Device: lambda v: isinstance(v, (Device, str)),
    BaseTy.MemoryFormat: lambda v: isinstance(v, MemoryFormat),
    BaseTy.Generator: lambda v: isinstance(v, _generator_type()),
    BaseTy.Dimname: lambda v: isinstance(v, str),
}


def _base(t: SchemaType) -> BaseTy | None:
    return t.ty if isinstance(t, BaseType) else None


def python_type_name(t: SchemaType) -> str:
    """How PyTorch's signature listings name a schema type."""
    if isinstance(t, OptionalType):
        return python_type_name(t.elem)
    if isinstance(t, ListType):
        return f"tuple of {python_type_name(t.elem)}s"
    names = {BaseTy.Scalar: "Number", BaseTy.ScalarType: "dtype", BaseTy.SymInt: "int"}
    base = _base(t)
    return names.get(base, str(t)) if base is not None else str(t)


@attrs.frozen
class Param:
    """One Python parameter: its name, schema type and default."""

    name: str
    schema_name: str
    type: SchemaType
    kwarg_only: bool
    default: object

    def accepts(self, value: object) -> bool:
        return accepts(self.type, value)

    def convert(self, value: object) -> object:
        """Normalise an accepted value (an int where an int list is expected, sequences)."""
        t = self.type.elem if isinstance(self.type, OptionalType) else self.type
        if value is None or not isinstance(t, ListType):
            return value
        if _is_int(value) and _base(t.elem) in _INT_TYPES:
            return [value] * (t.size or 1)
        return list(value)  # type: ignore[call-overload]

    def describe(self) -> str:
        text = f"{python_type_name(self.type)} {self.name}"
        if self.default is not _MISSING:
            text += f" = {'None' if self.default is None else self.default}"
        return text


def accepts(t: SchemaType, value: object) -> bool:
    """Whether a Python value can be passed where a schema expects type `t`."""
    if isinstance(t, OptionalType):
        return value is None or accepts(t.elem, value)
    if isinstance(t, ListType):
        elem = _base(t.elem)
        if elem in _INT_TYPES and _is_int(value):
            return True
        if isinstance(value, (list, tuple)):
            return all(accepts(t.elem, v) for v in value)
        return False
    check = _CHECKS.get(t.ty) if isinstance(t, BaseType) else None
    if check is None:
        return isinstance(t, BaseType) and t.ty is BaseTy.Any
    return bool(check(value))


def python_name(name: str) -> str:
    """A schema argument's Python parameter name: `self` is `input`, keywords get a trailing `_`."""
    return "input" if name == "self" else param_name(name)


def is_factory(schema: FunctionSchema) -> bool:
    """Whether the Python binding is a factory (takes `requires_grad=` and makes a variable):
    tensor options and no tensor inputs, or a `*_like` function (PyTorch's rule)."""
    names = {a.name for a in schema.arguments}
    if not {"dtype", "layout", "device"} <= names:
        return False
    has_tensor = any(str(a.type).startswith("Tensor") for a in schema.arguments)
    return not has_tensor or schema.name.endswith("_like")


@attrs.frozen(eq=False)
class PythonSignature:
    """A schema (and its out= twin) as Python sees it."""

    name: str
    params: tuple[Param, ...]
    handle: OperatorHandle
    out_handle: OperatorHandle | None
    is_method: bool
    is_factory: bool
    by_name: dict[str, Param] = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})

    @classmethod
    def of(
        cls, name: str, handle: OperatorHandle, out_handle: OperatorHandle | None, is_method: bool
    ) -> PythonSignature:
        args: Sequence[Argument] = handle.schema.arguments
        if is_method:
            args = args[1:]
        params = tuple(
            Param(
                python_name(a.name),
                a.name,
                a.type,
                a.kwarg_only,
                python_default(a) if a.has_default else _MISSING,
            )
            for a in args
        )
        return cls(name, params, handle, out_handle, is_method, is_factory(handle.schema))

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.kwarg_only)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        """Parameter values if the arguments fit this signature, else None."""
        positional = self.positional
        if (
            len(positional) == 1
            and len(args) > 1
            and isinstance(positional[0].type, ListType)
            and all(_is_int(a) for a in args)
        ):
            args = (tuple(args),)
        if len(args) > len(positional):
            return None
        values: dict[str, Any] = {}
        for p, v in zip(positional, args, strict=False):
            if not p.accepts(v):
                return None
            values[p.name] = v
        extra = {"out", "requires_grad"} if self.is_factory else {"out"}
        for key, v in kwargs.items():
            if key in values:
                return None
            if key in extra:
                continue
            param = self.by_name.get(key)
            if param is None or not param.accepts(v):
                return None
            values[key] = v
        for p in self.params:
            if p.name not in values:
                if p.default is _MISSING:
                    return None
                values[p.name] = p.default
        out = kwargs.get("out")
        if out is not None and (self.out_handle is None or not isinstance(out, Tensor)):
            return None
        requires_grad = kwargs.get("requires_grad", False)
        if not isinstance(requires_grad, bool):
            return None
        return values

    def invoke(self, values: dict[str, Any], kwargs: dict[str, Any], self_: Tensor | None) -> Any:
        leading = () if self_ is None else (self_,)
        pos = leading + tuple(p.convert(values[p.name]) for p in self.params if not p.kwarg_only)
        kw = {p.schema_name: p.convert(values[p.name]) for p in self.params if p.kwarg_only}
        out = kwargs.get("out")
        if out is not None:
            assert self.out_handle is not None
            return self.out_handle.call(*pos, **kw, out=out)
        if not self.is_factory:
            return self.handle.call(*pos, **kw)
        with AutoDispatchBelowADInplaceOrView():
            result = self.handle.call(*pos, **kw)
        return make_variable(result, kwargs.get("requires_grad", False))

    def describe(self) -> str:
        params = [p.describe() for p in self.params if not p.kwarg_only]
        kwonly = [p.describe() for p in self.params if p.kwarg_only]
        if self.out_handle is not None:
            kwonly.append("Tensor out = None")
        if self.is_factory:
            kwonly.append("bool requires_grad = False")
        if kwonly:
            params += ["*", *kwonly]
        return f"({', '.join(params)})"


def describe_value(v: object) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of [{', '.join(describe_value(x) for x in v)}]"
    return type(v).__name__


def describe_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """How PyTorch's "got (...)" lists the arguments of a call that fits no signature."""
    return ", ".join(
        [describe_value(a) for a in args] + [f"{k}={describe_value(v)}" for k, v in kwargs.items()]
    )


def _binary_handle(signatures: Sequence[PythonSignature], base: BaseTy) -> OperatorHandle | None:
    """The operator a method called with one argument of type `base` resolves to, when the
    first signature taking exactly that needs nothing else (the fast path of `x + y`)."""
    for sig in signatures:
        positional = sig.positional
        if (
            sig.is_method
            and not sig.is_factory
            and positional
            and positional[0].type == BaseType(base)
            and all(p.default is not _MISSING for p in sig.params[1:])
        ):
            return sig.handle
    return None


class PythonArgParser:
    """All signatures of one Python name; `call` picks the first that fits."""

    __slots__ = ("name", "scalar_handle", "signatures", "tensor_handle")

    def __init__(self, name: str, signatures: Sequence[PythonSignature]) -> None:
        self.name = name
        self.signatures = tuple(signatures)
        self.tensor_handle = _binary_handle(self.signatures, BaseTy.Tensor)
        """For methods: the overload `self.<name>(tensor)` calls."""
        self.scalar_handle = _binary_handle(self.signatures, BaseTy.Scalar)
        """For methods: the overload `self.<name>(number)` calls."""

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], self_: Tensor | None = None) -> Any:
        for sig in self.signatures:
            values = sig.bind(args, kwargs)
            if values is not None:
                return sig.invoke(values, kwargs, self_)
        raise self.error(args, kwargs)

    def error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        got = describe_call(args, kwargs)
        options = "\n".join(f" * {sig.describe()}" for sig in self.signatures)
        return TypeError(
            f"{self.name}() received an invalid combination of arguments - got ({got}), "
            f"but expected one of:\n{options}"
        )
