"""Python argument parsing for the generated API (PyTorch's PythonArgParser).

A Python signature is a schema seen from Python: `self` is called `input` for functions (and is
bound for methods); a functional schema and its `out=` overload share one signature with an
optional `out` keyword; factories take `requires_grad=`; an int list that is the only positional
parameter may be given as `*size`.  A parser holds the signatures of one Python name, picks the
first that the arguments fit, converts them and calls the operator; when none fits, a `TypeError`
lists every signature it accepts.

Parsing runs on every `framework.<name>(...)` call and every Tensor method, so each parser is a
Python function generated from its signatures on its first call (`parser_function`): the type
checks and conversions of every parameter are written inline, and the operators' dispatch
functions are called directly.  The checks are Python expressions (`check_source`), compiled into
`accepts` for the code that tests one value at a time (error messages, `framework.ops` packets).
"""

from __future__ import annotations

import functools
import math
import re
import types
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs
import numpy as np

from framework._tensor import Tensor
from framework._torch_function import dispatch, is_overloaded, overloaded_arguments
from framework._typed_storage import TypedStorage
from framework.autograd.variable import make_variable
from framework.c10.autograd_state import is_inference_mode_enabled
from framework.c10.device import Device, DeviceType, Layout, MemoryFormat
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
from framework.c10.dtypes import bool_, complex128, dtype, float64, int64
from framework.c10.generator import Generator
from framework.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView
from framework.c10.storage import StorageImpl, UntypedStorage
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number

_MISSING: Final = object()
_INT_TYPES: Final = frozenset((BaseTy.int, BaseTy.SymInt))
_NUMBER_TYPES: Final = _INT_TYPES | {BaseTy.float, BaseTy.bool, BaseTy.complex, BaseTy.Scalar}

_INT_CHECK: Final = (
    "(type({v}) is int or (isinstance({v}, int) and not isinstance({v}, bool)) or isinstance({v}, _np_ints))"
)
_BASE_CHECKS: Final[dict[BaseTy, str]] = {
    BaseTy.Tensor: "(type({v}) is _Tensor or _tensor_subclass({v}))",
    BaseTy.int: _INT_CHECK,
    BaseTy.SymInt: _INT_CHECK,
    BaseTy.float: "(type({v}) is float or (isinstance({v}, _reals) and not isinstance({v}, bool)))",
    BaseTy.bool: "({v} is True or {v} is False or type({v}) is _np_bool)",
    BaseTy.str: "isinstance({v}, str)",
    BaseTy.Scalar: "isinstance({v}, _numbers)",
    BaseTy.complex: "isinstance({v}, _numbers)",
    BaseTy.ScalarType: "isinstance({v}, _dtype)",
    BaseTy.Layout: "isinstance({v}, _Layout)",
    BaseTy.Device: "isinstance({v}, _devices)",
    BaseTy.MemoryFormat: "isinstance({v}, _MemoryFormat)",
    BaseTy.Generator: "isinstance({v}, _Generator)",
    BaseTy.Storage: "isinstance({v}, _storages)",
    BaseTy.Dimname: "isinstance({v}, str)",
    BaseTy.Any: "True",
}
"""For each base type, a Python expression over the variable `{v}`: whether its value can be
passed where a schema expects that type (types not listed accept nothing).  As in PyTorch, a NumPy
scalar goes where a Python number of its kind does (NumPy integers where ints are expected, NumPy
bools where bools are); the parser passes it on as that Python number.  A Tensor subclass whose
`__torch_function__` is to be called now is not accepted: the parser then calls it
(`PythonArgParser.unparsed`)."""


def _tensor_subclass(value: object) -> bool:
    """Whether `value` is an instance of a Tensor subclass that takes no part in
    `__torch_function__` now (`nn.Parameter`, or any inside `DisableTorchFunctionSubclass`)."""
    return isinstance(value, Tensor) and not is_overloaded(value)


_ENV: Final[dict[str, Any]] = {
    "_Tensor": Tensor,
    "_tensor_subclass": _tensor_subclass,
    "_reals": (int, float, np.integer, np.floating),
    "_numbers": (int, float, complex, np.number, np.bool_),
    "_np_ints": np.integer,
    "_np_bool": np.bool_,
    "_np_scalar": np.generic,
    "_sequences": (list, tuple),
    "_devices": (Device, str),
    "_dtype": dtype,
    "_Layout": Layout,
    "_MemoryFormat": MemoryFormat,
    "_Generator": Generator,
    "_storages": (UntypedStorage, TypedStorage),
    "_M": _MISSING,
}
"""The globals of the generated checks and parsers (list checkers are added as they are made)."""


def _base(t: SchemaType) -> BaseTy | None:
    return t.ty if isinstance(t, BaseType) else None


def _list_checker(elem: SchemaType) -> str:
    """The name in `_ENV` of a function testing for a list or tuple of `elem` values (made on
    first use)."""
    name = "_list_of_" + re.sub(r"\W", "_", str(elem))
    if name not in _ENV:
        source = (
            f"def {name}(v):\n"
            "    if not isinstance(v, _sequences):\n"
            "        return False\n"
            "    for x in v:\n"
            f"        if not {check_source(elem, 'x')}:\n"
            "            return False\n"
            "    return True\n"
        )
        exec(compile(source, f"<check {elem}[]>", "exec"), _ENV)
    return name


def check_source(t: SchemaType, v: str) -> str:
    """A Python expression (globals `_ENV`) true when the value of variable `v` can be passed where
    a schema expects type `t`; an int list also takes a single int."""
    if isinstance(t, OptionalType):
        return f"({v} is None or {check_source(t.elem, v)})"
    if isinstance(t, ListType):
        listed = f"{_list_checker(t.elem)}({v})"
        return f"({_INT_CHECK.format(v=v)} or {listed})" if _base(t.elem) in _INT_TYPES else listed
    check = _BASE_CHECKS.get(t.ty) if isinstance(t, BaseType) else None
    return "False" if check is None else check.format(v=v)


@functools.cache
def _compiled_check(source: str) -> Callable[[object], bool]:
    """`lambda v: <source>`, compiled once per source."""
    check: Callable[[object], bool] = eval(compile(f"lambda v: {source}", "<check>", "eval"), _ENV)
    return check


@functools.cache
def _type_check(t: SchemaType) -> Callable[[object], bool]:
    """The compiled check of type `t` (made once per type)."""
    return _compiled_check(check_source(t, "v"))


def accepts(t: SchemaType, value: object) -> bool:
    """Whether a Python value can be passed where a schema expects type `t`."""
    return _type_check(t)(value)


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

    def check_source(self, v: str) -> str:
        """A Python expression true when the value of variable `v` fits this parameter."""
        source = check_source(self.type, v)
        return f"({source} or isinstance({v}, _numbers))" if self.numbers_as_tensors else source

    def accepts(self, value: object) -> bool:
        return _compiled_check(self.check_source("v"))(value)

    def convert_source(self, v: str) -> str:
        """A Python expression normalising the accepted value of variable `v`: an int where an int
        list is expected, sequences as lists (of Python ints where ints are expected), a NumPy
        scalar as the Python number it holds, a number where a tensor is expected as a wrapped
        number."""
        number = f"({v}.item() if isinstance({v}, _np_scalar) else {v})"
        if self.numbers_as_tensors:
            wrapped = f"_wrapped_number({number}, _CPU) if isinstance({v}, _numbers) else {v}"
            return f"({v} if type({v}) is _Tensor else {wrapped})"
        t = self.type.elem if isinstance(self.type, OptionalType) else self.type
        if not isinstance(t, ListType):
            return number if _base(t) in _NUMBER_TYPES else v
        if _base(t.elem) in _INT_TYPES:
            listed = f"list(map(int, {v}))"
            converted = f"({listed} if isinstance({v}, _sequences) else [int({v})] * {t.size or 1})"
        else:
            converted = f"list({v})"
        return f"(None if {v} is None else {converted})" if isinstance(self.type, OptionalType) else converted

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
        "subtract", "subtract_", "multiply", "multiply_", "divide", "divide_",
    )
)  # fmt: skip
"""Python names whose Tensor parameters also take Python numbers (PyTorch's list)."""


_WRAPPED_DTYPES: Final[dict[type, dtype]] = {bool: bool_, int: int64, float: float64, complex: complex128}
"""The dtype of a wrapped number by Python number type (bool before int, its base class)."""

_WRAPPED: Final[tuple[dict[tuple[object, ...], Tensor], dict[tuple[object, ...], Tensor]]] = ({}, {})
"""The CPU wrapped numbers made so far, by `_key`, outside and inside inference mode
(one made in inference mode is an inference tensor)."""

_MAX_WRAPPED: Final = 1024

_CPU_TYPE: Final = DeviceType.CPU
"""(An enum member read from its class costs a Python call.)"""


def wrapped_number(value: Number, device: Device) -> Tensor:
    """A Python number as a zero-dim "wrapped number" tensor on `device`, of dtype bool, int64,
    float64 or complex128 (PyTorch's scalar_to_tensor): type promotion treats it as the Python
    number it came from.

    Nothing writes to a wrapped number (kernels only read their inputs), so on the CPU one tensor
    serves every use of a number of a Python number type: those are kept, by `_key`."""
    kind = type(value)
    if device.device_type is _CPU_TYPE:
        made = _WRAPPED[is_inference_mode_enabled()]
        wrapped = made.get((value, kind))
        if wrapped is not None:
            return wrapped
        key = _key(value, kind)
        if key is not None:
            wrapped = made.get(key)
            if wrapped is None:
                if len(made) >= _MAX_WRAPPED:
                    made.clear()
                wrapped = made[key] = _kept_wrapped_number(value, _WRAPPED_DTYPES[kind])
            return wrapped
    impl = TensorImpl.empty((), _WRAPPED_DTYPES.get(kind) or _subclass_dtype(value), device)
    if impl.storage.data is not None:
        impl.numpy_view()[()] = value
    impl.wrapped_number = True
    return Tensor(impl)


def _key(value: Number, kind: type) -> tuple[object, ...] | None:
    """The key the wrapped number of `value` is kept under, equal to the key of no other number:
    `(value, kind)`, with the signs of its zeros for a float zero or a complex number (0.0 ==
    -0.0), which are thus never kept under `(value, kind)`, the key `wrapped_number` tries first;
    None for instances of subclasses, which are not kept.  (A NaN is equal only to itself.)"""
    if kind is int or kind is bool or (kind is float and value != 0.0):
        return (value, kind)
    if kind is float:
        return (value, kind, math.copysign(1.0, value.real))
    if kind is complex:
        return (value, kind, math.copysign(1.0, value.real), math.copysign(1.0, value.imag))
    return None


def _kept_wrapped_number(value: Number, d: dtype) -> Tensor:
    """A CPU wrapped number to keep: in read-only memory of its own, which the allocator does not
    count (it belongs to no tensor of the program)."""
    data = np.array(value, d.numpy_dtype)
    data.flags.writeable = False
    impl = TensorImpl(StorageImpl.from_buffer(data), d, ())
    impl.wrapped_number = True
    return Tensor(impl)


def _subclass_dtype(value: Number) -> dtype:
    """The dtype of a wrapped number made from an instance of a subclass of a Python number type
    (NumPy's float64 is a float)."""
    return next(d for kind, d in _WRAPPED_DTYPES.items() if isinstance(value, kind))


def method_arguments(schema: FunctionSchema) -> tuple[list[Argument], int]:
    """A method's schema arguments without `self`, and where `self` was (mostly first)."""
    args = list(schema.arguments)
    index = next(i for i, a in enumerate(args) if a.name == "self")
    del args[index]
    return args, index


def named_returns(schema: FunctionSchema) -> tuple[str, ...] | None:
    """The names of a schema's returns when there are several and all are named (as max.dim's
    `values, indices`): Python then gets a named tuple of `framework.return_types`."""
    names = tuple(r.name or "" for r in schema.returns)
    return names if len(names) >= 2 and all(names) else None


def out_arguments(schema: FunctionSchema) -> tuple[str, ...]:
    """The names of an out= schema's output arguments, its keyword-only tensors that it writes
    (`out`, or `values, indices` for max.dim_max); () for any other schema."""
    return tuple(
        a.name
        for a in schema.arguments
        if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
    )


def return_type_name(schema: FunctionSchema) -> str:
    """The name of a schema's class in `framework.return_types`: the operator's name, with
    `_out` for its out= overloads (PyTorch's `torch.return_types.max_out`)."""
    name = schema.name.partition("::")[2]
    return f"{name}_out" if out_arguments(schema) else name


def return_type(schema: FunctionSchema) -> type[tuple[Any, ...]] | None:
    """PyTorch's `torch.return_types.<name>` for a native operator with named returns
    (`named_returns`), so `x.max(1).values` works: the typed class generated for it."""
    if named_returns(schema) is None:
        return None
    from framework._generated import return_types

    name = return_type_name(schema)
    made: type[tuple[Any, ...]] | None = getattr(return_types, name, None)
    return _not_generated(name) if made is None else made


def _not_generated(name: str) -> type[tuple[Any, ...]]:
    """Stands for the class of an operator added to the yaml since the code was last generated:
    importing framework still works (so the codegen can run), calling the operator says why not."""

    class NotGenerated(tuple[Any, ...]):
        def __new__(cls, *values: Any) -> NotGenerated:
            raise RuntimeError(
                f"framework.return_types.{name} is not generated yet: run `python -m framework.ops.codegen`"
            )

    return NotGenerated


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
    tensor options and no tensor inputs, or a `*_like` function or `new_*` method (PyTorch's rule)."""
    names = {a.name for a in schema.arguments}
    if not {"dtype", "layout", "device"} <= names:
        return False
    base = schema.name.partition("::")[2]
    like_or_new = base.endswith("_like") or base.startswith("new_")
    return like_or_new or not any(is_tensor(a) for a in schema.arguments)


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
    self_index: int = 0
    """For methods: where `self` goes among the schema's arguments (`where.self(condition, self,
    other)` is called as `x.where(condition, other)`)."""
    by_name: dict[str, Param] = attrs.field(init=False, repr=False)
    returns: type[tuple[Any, ...]] | None = attrs.field(init=False, repr=False)
    """The named tuple of a schema with several named returns (`values, indices`), else None."""
    out_names: frozenset[str] = attrs.field(init=False, repr=False)
    """The schema names of the out= overload's arguments (a factory's lacks its TensorOptions)."""
    outs: tuple[str, ...] = attrs.field(init=False, repr=False)
    """The out= overload's output arguments: `out=` takes one tensor for `("out",)`, a tuple of
    tensors for several (`out=(values, indices)`)."""
    out_returns: type[tuple[Any, ...]] | None = attrs.field(init=False, repr=False)
    """The named tuple the out= overload gives (`return_types.max_out`), else None."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})
        object.__setattr__(self, "returns", return_type(self.handle.schema))
        out_schema = None if self.out_handle is None else self.out_handle.schema
        out_args = () if out_schema is None else out_schema.arguments
        object.__setattr__(self, "out_names", frozenset(a.name for a in out_args))
        object.__setattr__(self, "outs", () if out_schema is None else out_arguments(out_schema))
        object.__setattr__(self, "out_returns", None if out_schema is None else return_type(out_schema))

    @classmethod
    def of(
        cls, name: str, handle: OperatorHandle, out_handle: OperatorHandle | None, is_method: bool
    ) -> PythonSignature:
        args: Sequence[Argument] = handle.schema.arguments
        self_index = 0
        if is_method:
            args, self_index = method_arguments(handle.schema)
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
        return cls(name, params, handle, out_handle, is_method, is_factory(handle.schema), self_index)

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.kwarg_only)

    def mismatch(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        """PyTorch's message for the first argument that does not fit this (only) signature."""
        positional = self.positional
        if len(args) > len(positional):
            return f"{name}() takes {len(positional)} positional arguments but {len(args)} were given"
        for i, (p, v) in enumerate(zip(positional, args, strict=False)):
            if not p.accepts(v):
                return (
                    f"{name}(): argument '{p.name}' (position {i + 1}) must be "
                    f"{python_type_name(p.type)}, not {type_name(v)}"
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
                return f"{name}(): argument '{key}' must be {wanted}, not {type_name(v)}"
        return None

    def describe(self) -> str:
        params = [p.describe() for p in self.params if not p.kwarg_only]
        kwonly = [p.describe() for p in self.params if p.kwarg_only]
        if self.out_handle is not None:
            kwonly.append("Tensor out = None" if len(self.outs) == 1 else "tuple of Tensors out = None")
        if self.is_factory:
            kwonly.append("bool requires_grad = False")
        if kwonly:
            params += ["*", *kwonly]
        return f"({', '.join(params)})"


_HEAPTYPE: Final = 1 << 9
"""CPython's Py_TPFLAGS_HEAPTYPE: set on classes defined by `class` statements."""


def type_name(value: object) -> str:
    """The name of `value`'s type as PyTorch's messages give it (CPython's `tp_name`): the bare
    name for builtins and classes defined in Python (`Tensor`, `str`), the dotted name for the
    types of extension modules (`numpy.ndarray`, `numpy.float32`)."""
    kind = type(value)
    if kind.__flags__ & _HEAPTYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__qualname__}"


def describe_value(v: object) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of [{', '.join(describe_value(x) for x in v)}]"
    return type_name(v)


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
            and sig.self_index == 0
            and not sig.is_factory
            and positional
            and positional[0].type == BaseType(base)
            and all(p.default is not _MISSING for p in sig.params[1:])
        ):
            return sig.handle
    return None


def _signature_source(i: int, sig: PythonSignature, env: dict[str, Any], keywords: bool) -> list[str]:
    """The code trying signature `i` of a parser, for calls without keyword arguments or with some
    (`keywords`): it binds the arguments to the parameters `v<j>` and calls the operator when they
    fit.  Its constants go into `env` under names ending in `i`."""
    if not keywords and any(p.kwarg_only and p.default is _MISSING for p in sig.params):
        return []
    positional = sig.positional
    extra = ("out", "requires_grad") if sig.is_factory else ("out",)
    only = positional[0].type if len(positional) == 1 else None
    varargs = isinstance(only, ListType)
    int_varargs = isinstance(only, ListType) and _base(only.elem) in _INT_TYPES
    # Without keywords, the required positional arguments must all be given (`low` of them).
    low = 0 if keywords else sum(p.default is _MISSING for p in positional)
    if varargs:
        count = "n == 1 or (n > 1 and _int_sequence(args))" if low else "n <= 1 or _int_sequence(args)"
    elif low == len(positional):
        count = f"n == {low}"
    else:
        count = f"{low} <= n <= {len(positional)}" if low else f"n <= {len(positional)}"

    fetch: list[str] = []
    checks: list[str] = []
    for j, p in enumerate(sig.params):
        if _left_to_operator(p, keywords):
            continue
        v = f"v{j}"
        default = "_M"
        if p.default is not _MISSING:
            default = f"_d{i}_{j}"
            env[default] = p.default
        missing = f"kwargs.get({p.name!r}, {default})" if keywords and p.name not in extra else default
        if p.kwarg_only:
            fetch.append(f"{v} = {missing}")
            if not keywords:
                continue  # a default needs no check
        else:
            given = "args if n > 1 else args[0]" if varargs else f"args[{j}]"
            fetch.append(f"{v} = {given}" if j < low else f"{v} = {given} if n > {j} else {missing}")
        check = p.check_source(v)
        if p.default is _MISSING and p.accepts(_MISSING):
            check = f"{v} is not _M and {check}"
        if int_varargs and not p.kwarg_only:
            check = f"(n > 1 or {check})"  # `*size`: each int was checked
        checks.append(check if keywords or p.kwarg_only or j < low else f"(n <= {j} or {check})")
    if keywords:
        # The keywords allowed after `k` positional arguments: the parameters not given positionally.
        names = frozenset(p.name for p in sig.params).union(extra)
        env[f"_K{i}"] = tuple(
            names.difference(p.name for p in positional[:k]) for k in range(len(positional) + 1)
        )
        count = f"({count}) and kwargs.keys() <= _K{i}[{'1 if n else 0' if varargs else 'n'}]"
        if sig.out_handle is None:
            checks.append("kwargs.get('out') is None")
        elif len(sig.outs) == 1:
            checks.append(
                f"((o := kwargs.get('out')) is None or {_BASE_CHECKS[BaseTy.Tensor].format(v='o')})"
            )
        else:
            tensor = _BASE_CHECKS[BaseTy.Tensor].format(v="t")
            checks.append(
                "((o := kwargs.get('out')) is None or (type(o) is tuple or type(o) is list) "
                f"and len(o) == {len(sig.outs)} and all({tensor} for t in o))"
            )
        if sig.is_factory:
            checks.append("((rg := kwargs.get('requires_grad', False)) is True or rg is False)")

    env[f"_h{i}"] = sig.handle.call
    if sig.out_handle is not None:
        env[f"_oh{i}"] = sig.out_handle.call
    if sig.returns is not None:
        env[f"_ret{i}"] = sig.returns
    if sig.out_returns is not None:
        env[f"_reto{i}"] = sig.out_returns
    call = _call_source(i, sig, keywords)
    lines = [f"# {sig.handle.qualified_name}", f"if {count}:", *(f"    {line}" for line in fetch)]
    if not checks:
        return lines + [f"    {line}" for line in call]
    return [*lines, f"    if {' and '.join(checks)}:", *(f"        {line}" for line in call)]


def _left_to_operator(p: Param, keywords: bool) -> bool:
    """Whether a call without keyword arguments leaves keyword-only parameter `p` out, to its
    default in the operator's dispatch function (the same value, passed as is: only a list needs
    converting; the NumPy-scalar conversion of numbers never changes a default)."""
    t = p.type.elem if isinstance(p.type, OptionalType) else p.type
    return not keywords and p.kwarg_only and (p.convert_source("v") == "v" or _base(t) in _NUMBER_TYPES)


def _call_source(i: int, sig: PythonSignature, keywords: bool) -> list[str]:
    """The code calling the operator of signature `i` with the converted values `v<j>` (the
    out= overload when an `out` tensor `o` was given), as a factory or returning a named tuple
    where the signature says so."""
    pos = [p.convert_source(f"v{j}") for j, p in enumerate(sig.params) if not p.kwarg_only]
    if sig.is_method:
        pos.insert(sig.self_index, "self_")
    kw = [
        (p.schema_name, p.convert_source(f"v{j}"))
        for j, p in enumerate(sig.params)
        if p.kwarg_only and not _left_to_operator(p, keywords)
    ]

    def call(handle: str, keyword_args: list[tuple[str, str]], out: bool = False) -> str:
        keyword_items = [f"{param_name(k)}={v}" for k, v in keyword_args]
        if out:
            single = len(sig.outs) == 1
            keyword_items += [
                f"{param_name(k)}={'o' if single else f'o[{j}]'}" for j, k in enumerate(sig.outs)
            ]
        return f"{handle}{i}({', '.join(pos + keyword_items)})"

    def returned(result: str, out: bool = False) -> str:
        made = sig.out_returns if out else sig.returns
        return result if made is None else f"_ret{'o' if out else ''}{i}(*{result})"

    lines = []
    if keywords and sig.out_handle is not None:
        lines.append("if o is not None:")
        if sig.is_factory:
            kept = [(k, v) for k, v in kw if k in sig.out_names]
            lines += ["    _check_out(o, kwargs)", f"    return _mv({call('_oh', kept, out=True)}, rg)"]
        else:
            lines.append(f"    return {returned(call('_oh', kw, out=True), out=True)}")
    if sig.is_factory:
        requires_grad = "rg" if keywords else "False"
        return [*lines, "with _below():", f"    r = {call('_h', kw)}", f"return _mv(r, {requires_grad})"]
    return [*lines, f"return {returned(call('_h', kw))}"]


def parser_function(parser: PythonArgParser) -> Callable[..., Any]:
    """The generated `call(args, kwargs)` of a parser (`call(args, kwargs, self_)` for methods):
    tries the signatures in order and calls the operator of the first that the arguments fit;
    when none does, `parser.unparsed` (`__torch_function__`, or the parser's `TypeError`)."""
    env: dict[str, Any] = {
        "_unparsed": parser.unparsed,
        "_int_sequence": _ENV[_list_checker(BaseType(BaseTy.int))],
        "_wrapped_number": wrapped_number,
        "_CPU": CPU,
        "_check_out": check_out_matches_options,
        "_mv": make_variable,
        "_below": AutoDispatchBelowADInplaceOrView,
    }
    blocks = {
        keywords: [
            line
            for i, sig in enumerate(parser.signatures)
            for line in _signature_source(i, sig, env, keywords)
        ]
        for keywords in (False, True)
    }
    self_ = ", self_" if parser.signatures[0].is_method else ""
    source = "\n".join(
        [f"def {parser.name}(args, kwargs{self_}):", "    n = len(args)", "    if not kwargs:"]
        + [f"        {line}" for line in blocks[False] or ["pass"]]
        + ["    else:"]
        + [f"        {line}" for line in blocks[True]]
        + [f"    return _unparsed(args, kwargs{self_})", ""]
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<parser {parser.name}>", "exec"), {**_ENV, **env}, namespace)
    function: Callable[..., Any] = namespace[parser.name]
    return function


class PythonArgParser:
    """All signatures of one Python name; `call(args, kwargs[, self_])` picks the first that
    fits (a function generated from the signatures, see `parser_function`)."""

    __slots__ = (
        "call",
        "name",
        "numbers_as_tensors",
        "public",
        "public_name",
        "scalar_handle",
        "signatures",
        "tensor_handle",
    )

    def __init__(
        self,
        name: str,
        signatures: Sequence[PythonSignature],
        public: Callable[[], Callable[..., Any]],
        public_name: str,
    ) -> None:
        self.name = name
        self.signatures = tuple(signatures)
        self.public = public
        """The public function or method that calls this parser (looked up when needed): what
        `__torch_function__` receives as `func`."""
        self.public_name = public_name
        """Its name in PyTorch's messages (`torch.add`, `torch.Tensor.add`)."""
        self.tensor_handle = _binary_handle(self.signatures, BaseTy.Tensor)
        """For methods: the overload `self.<name>(tensor)` calls."""
        self.scalar_handle = _binary_handle(self.signatures, BaseTy.Scalar)
        """For methods: the overload `self.<name>(number)` calls."""
        self.numbers_as_tensors = name in ALLOW_NUMBERS_AS_TENSORS
        """`self.<name>(number)` calls `tensor_handle` with the number wrapped."""
        self.call: Callable[..., Any] = self._generate_and_call
        """`call(args, kwargs)` (`call(args, kwargs, self_)` for methods): the parser function,
        generated on the first call (generating every parser when the API is built would add
        about half a second to importing the framework)."""

    def _generate_and_call(self, *arguments: Any) -> Any:
        if isinstance(self.call, types.MethodType):  # not generated yet (else: held from before)
            self.call = parser_function(self)
        return self.call(*arguments)

    def unparsed(self, args: tuple[Any, ...], kwargs: dict[str, Any], self_: Any = _MISSING) -> Any:
        """A call no signature fits: through `__torch_function__` when an argument is overloaded
        (a Tensor subclass or another type with a `__torch_function__`), else the TypeError."""
        full = args if self_ is _MISSING else (self_, *args)
        overloaded = overloaded_arguments(full, kwargs)
        if overloaded:
            return dispatch(self.public(), self.public_name, overloaded, full, kwargs)
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
