"""Python argument parsing for the generated API (PyTorch's PythonArgParser).

A Python signature is a schema seen from Python: `self` is called `input` for functions (and is
bound for methods); a functional schema and its `out=` overload share one signature with an
optional `out` keyword; factories take `requires_grad=`; an int list that is the only positional
parameter may be given as `*size`.  A parser holds the signatures of one Python name, picks the
first that the arguments fit, converts them and calls the operator; when none fits, a `TypeError`
lists every signature it accepts.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, Final

import attrs
import numpy as np

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
from framework.c10.dtypes import dtype, float64
from framework.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, number_dtype

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

    numbers_as_tensors: bool = False
    """A Python number is accepted for this Tensor parameter and passed as a wrapped number."""

    def accepts(self, value: object) -> bool:
        return accepts(self.type, value) or (self.numbers_as_tensors and _is_number(value))

    def convert(self, value: object) -> object:
        """Normalise an accepted value (an int where an int list is expected, sequences, a
        Python number where a tensor is expected)."""
        if self.numbers_as_tensors and _is_number(value):
            return wrapped_number(value, CPU)  # type: ignore[arg-type]
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


CPU: Final = Device("cpu")
ALLOW_NUMBERS_AS_TENSORS: Final = frozenset(
    (
        "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_",
        "true_divide", "true_divide_", "floor_divide", "floor_divide_", "copy_", "to", "_to_copy",
    )
)  # fmt: skip
"""Python names whose Tensor parameters also take Python numbers (PyTorch's list)."""


def wrapped_number(value: Number, device: Device) -> Tensor:
    """A Python number as a zero-dim "wrapped number" tensor on `device`: type promotion treats
    it as the Python number it came from."""
    d = float64 if isinstance(value, float) else number_dtype(value)
    impl = TensorImpl.empty((), d, device)
    if impl.storage.data is not None:
        impl.numpy_view()[...] = np.asarray(value, dtype=d.numpy_dtype)
    impl.wrapped_number = True
    return Tensor(impl)


_RETURN_TYPES: Final[dict[tuple[str, tuple[str, ...]], type[tuple[Any, ...]]]] = {}


def return_type(schema: FunctionSchema) -> type[tuple[Any, ...]] | None:
    """PyTorch's `torch.return_types.<name>` for a schema whose returns are all named (as
    `max.dim`'s `values, indices`): a named tuple, so `x.max(1).values` works."""
    names = tuple(r.name for r in schema.returns)
    if len(names) < 2 or not all(names):
        return None
    key = (schema.name.partition("::")[2], names)
    made = _RETURN_TYPES.get(key)
    if made is None:
        made = _RETURN_TYPES[key] = collections.namedtuple(key[0], names, module="framework.return_types")
    return made


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


TENSOR_OPTIONS: Final = frozenset(("dtype", "layout", "device", "pin_memory"))
"""The arguments PyTorch gathers into `TensorOptions`."""


def is_tensor(a: Argument) -> bool:
    """Whether an argument is a tensor (`Tensor`, `Tensor?`, `Tensor[]`, ...)."""
    return str(a.type).startswith("Tensor")


def is_factory(schema: FunctionSchema) -> bool:
    """Whether the Python binding is a factory (takes `requires_grad=` and makes a variable):
    tensor options and no tensor inputs, or a `*_like` function (PyTorch's rule)."""
    names = {a.name for a in schema.arguments}
    if not {"dtype", "layout", "device"} <= names:
        return False
    return not any(is_tensor(a) for a in schema.arguments) or schema.name.endswith("_like")


def check_out_matches_options(out: Tensor, kwargs: dict[str, Any]) -> None:
    """Refuse a factory's `dtype=`/`device=` that disagree with its `out=` tensor (PyTorch's
    `check_out_type_matches`; only strided tensors exist, so `layout=` always agrees)."""
    impl = out._impl
    d = kwargs.get("dtype")
    if d is not None and d is not impl.dtype:
        raise RuntimeError(
            f"dtype {d.scalar_type_name} does not match dtype of out parameter "
            f"({impl.dtype.scalar_type_name})"
        )
    device = kwargs.get("device")
    if device is not None and Device(device).type != impl.device.type:
        raise RuntimeError(
            f"device type {Device(device).type} does not match device type of out parameter "
            f"({impl.device.type})"
        )


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
    returns: type[tuple[Any, ...]] | None = attrs.field(init=False, repr=False)
    """The named tuple of a schema with several named returns (`values, indices`), else None."""
    out_names: frozenset[str] = attrs.field(init=False, repr=False)
    """The schema names of the out= overload's arguments (a factory's lacks its TensorOptions)."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})
        object.__setattr__(self, "returns", return_type(self.handle.schema))
        out_args = () if self.out_handle is None else self.out_handle.schema.arguments
        object.__setattr__(self, "out_names", frozenset(a.name for a in out_args))

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
                name in ALLOW_NUMBERS_AS_TENSORS and a.type == BaseType(BaseTy.Tensor),
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
            if not self.is_factory:
                result = self.out_handle.call(*pos, **kw, out=out)
                return result if self.returns is None else self.returns(*result)
            check_out_matches_options(out, kwargs)
            kw = {name: v for name, v in kw.items() if name in self.out_names}
            result = self.out_handle.call(*pos, **kw, out=out)
            return make_variable(result, kwargs.get("requires_grad", False))
        if not self.is_factory:
            result = self.handle.call(*pos, **kw)
            return result if self.returns is None else self.returns(*result)
        with AutoDispatchBelowADInplaceOrView():
            result = self.handle.call(*pos, **kw)
        return make_variable(result, kwargs.get("requires_grad", False))

    def mismatch(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        """PyTorch's message for the first argument that does not fit this (only) signature."""
        positional = self.positional
        if len(args) > len(positional):
            return f"{name}() takes {len(positional)} positional arguments but {len(args)} were given"
        for i, (p, v) in enumerate(zip(positional, args, strict=False)):
            if not p.accepts(v):
                return (
                    f"{name}(): argument '{p.name}' (position {i + 1}) must be "
                    f"{python_type_name(p.type)}, not {type(v).__name__}"
                )
        extra = {"out", "requires_grad"} if self.is_factory else {"out"}
        for key, v in kwargs.items():
            param = self.by_name.get(key)
            if param is None:
                if key in extra:
                    continue
                return f"{name}() got an unexpected keyword argument '{key}'"
            if not param.accepts(v):
                wanted = python_type_name(param.type)
                return f"{name}(): argument '{key}' must be {wanted}, not {type(v).__name__}"
        return None

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

    __slots__ = ("name", "numbers_as_tensors", "scalar_handle", "signatures", "tensor_handle")

    def __init__(self, name: str, signatures: Sequence[PythonSignature]) -> None:
        self.name = name
        self.signatures = tuple(signatures)
        self.tensor_handle = _binary_handle(self.signatures, BaseTy.Tensor)
        """For methods: the overload `self.<name>(tensor)` calls."""
        self.scalar_handle = _binary_handle(self.signatures, BaseTy.Scalar)
        """For methods: the overload `self.<name>(number)` calls."""
        self.numbers_as_tensors = name in ALLOW_NUMBERS_AS_TENSORS
        """`self.<name>(number)` calls `tensor_handle` with the number wrapped."""

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], self_: Tensor | None = None) -> Any:
        for sig in self.signatures:
            values = sig.bind(args, kwargs)
            if values is not None:
                return sig.invoke(values, kwargs, self_)
        raise self.error(args, kwargs)

    def error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        got = describe_call(args, kwargs)
        if len(self.signatures) == 1:
            sig = self.signatures[0]
            specific = sig.mismatch(self.name, args, kwargs)
            if specific is not None:
                return TypeError(specific)
            return TypeError(
                f"{self.name}() received an invalid combination of arguments - got ({got}), "
                f"but expected {sig.describe()}"
            )
        options = "\n".join(f" * {sig.describe()}" for sig in self.signatures)
        return TypeError(
            f"{self.name}() received an invalid combination of arguments - got ({got}), "
            f"but expected one of:\n{options}"
        )
