"""Per-operator dispatch functions, generated once when an operator is defined.

A call through the dispatcher must be cheap, so instead of walking the schema on every call we
write, for each operator, a Python function whose parameters are the schema's arguments (Python
binds them, fills defaults and rejects bad names), which ORs together the key sets of exactly the
tensor arguments the schema names, applies the thread-local keys and the operator's fallthrough
mask, and calls the kernel at the highest key with NumPy's floating-point errors silenced (see
`framework.c10.fp_errors`).  `redispatch` is the same without the thread-local keys, starting from
the key set it is given (it runs inside a call, where the errors are silenced already).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from textwrap import indent
from typing import TYPE_CHECKING, Any, Final

from framework.c10.device import Layout, MemoryFormat
from framework.c10.dispatch.kernel_function import MODE_GENERIC, MODE_KEYSET, MODE_PLAIN
from framework.c10.dispatch.schema import (
    Argument,
    BaseTy,
    BaseType,
    FunctionSchema,
    OptionalType,
    TensorKind,
    tensor_kind,
)
from framework.c10.dispatch_key import DispatchKeySet
from framework.c10.dtypes import ScalarType, dtype_from_scalar_type
from framework.c10.fp_errors import QUIET, fp_errors
from framework.c10.local_dispatch_key_set import get_local_keys

if TYPE_CHECKING:
    from framework.c10.dispatch.dispatcher import OperatorHandle


def list_key_bits(tensors: Any) -> int:
    """The union of the key sets of a list of tensors (None entries skipped)."""
    bits = 0
    for t in tensors:
        if t is not None:
            bits |= t._impl.key_set.repr
    return bits


_MEMORY_FORMATS: Final = (
    MemoryFormat.contiguous_format,
    MemoryFormat.preserve_format,
    MemoryFormat.channels_last,
    MemoryFormat.channels_last_3d,
)


def python_default(arg: Argument) -> object:
    """The Python value of a schema default: enum-typed defaults are written as their integer
    codes in schemas (`ScalarType? dtype=4`, `Layout layout=0`) and become framework objects."""
    value = arg.default
    t = arg.type.elem if isinstance(arg.type, OptionalType) else arg.type
    if not isinstance(value, int) or isinstance(value, bool) or not isinstance(t, BaseType):
        return value
    if t.ty is BaseTy.ScalarType:
        return dtype_from_scalar_type(ScalarType(value))
    if t.ty is BaseTy.Layout:
        return Layout.strided
    if t.ty is BaseTy.MemoryFormat:
        return _MEMORY_FORMATS[value]
    return value


def param_name(name: str) -> str:
    """A schema argument's name as a Python parameter (keywords get a trailing `_`)."""
    return name + "_" if keyword.iskeyword(name) else name


def schema_parameters(schema: FunctionSchema, env: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """A generated function's view of a schema's arguments: its parameter list (defaults are
    stored in `env` as `_d_default<i>`), and how to pass them on: positional names and
    `name=value` keyword items."""
    params: list[str] = []
    positional: list[str] = []
    keywords: list[str] = []
    for i, arg in enumerate(schema.arguments):
        name = param_name(arg.name)
        if arg.kwarg_only and "*" not in params:
            params.append("*")
        if arg.has_default:
            env[f"_d_default{i}"] = python_default(arg)
            params.append(f"{name}=_d_default{i}")
        else:
            params.append(name)
        if arg.kwarg_only:
            keywords.append(f"{arg.name}={name}")
        else:
            positional.append(name)
    return params, positional, keywords


def generate_dispatch_functions(
    op: OperatorHandle,
    slow_call: Callable[..., Any],
    bad_argument: Callable[..., BaseException],
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(call, redispatch) for `op`: `call(*args, **kwargs)`, `redispatch(keyset, *args, **kwargs)`.

    `slow_call(op, kernel, bits, args, kwargs)` runs kernels of the other calling conventions and
    `bad_argument(args, kwargs)` builds the error for a tensor argument that is not a tensor; both
    receive every argument: the positional ones in `args`, the keyword-only ones in `kwargs`, in
    schema order.  (The schema parser guarantees that no positional argument without a default
    follows one with a default, so the schema's parameter list is a valid Python one.)"""
    schema: FunctionSchema = op.entry.schema
    env: dict[str, Any] = {
        "_d_entry": op.entry,
        "_d_table": op.entry.fast_table,
        "_d_get": get_local_keys,
        "_d_ks": DispatchKeySet.from_bits,
        "_d_op": op,
        "_d_slow": slow_call,
        "_d_bad": bad_argument,
        "_d_list_bits": list_key_bits,
        "_d_PLAIN": MODE_PLAIN,
        "_d_GENERIC": MODE_GENERIC,
        "_d_KEYSET": MODE_KEYSET,
        "_d_fp_set": fp_errors.set,
        "_d_fp_reset": fp_errors.reset,
        "_d_FP_QUIET": QUIET,
    }
    params, positional, keywords = schema_parameters(schema, env)
    key_terms: list[str] = []
    for arg in schema.arguments:
        name = param_name(arg.name)
        kind = tensor_kind(arg.type)
        if kind is TensorKind.TENSOR:
            key_terms.append(f"{name}._impl.key_set.repr")
        elif kind is TensorKind.OPTIONAL_TENSOR:
            key_terms.append(f"(0 if {name} is None else {name}._impl.key_set.repr)")
        elif kind is not TensorKind.NONE:
            key_terms.append(f"_d_list_bits({name})")
    if schema.is_vararg:
        if "*" in params:
            params[params.index("*")] = "*_d_varargs"
        else:
            params.append("*_d_varargs")
        positional.append("*_d_varargs")
    call_args = ", ".join(positional + keywords)
    args_tuple = "(" + "".join(f"{p}, " for p in positional) + ")"
    kwargs_dict = "{" + ", ".join(f"{k.split('=')[0]!r}: {k.split('=')[1]}" for k in keywords) + "}"
    keys = " | ".join(key_terms) or "0"
    sep = ", " if call_args else ""
    fn_name = schema.name.rpartition("::")[2] or "op"
    # Run the kernel at the highest key of `_d_bits` in the calling convention it was registered
    # with (the common ones inline, the others through `_d_slow`).
    run_kernel = f"""_d_kernel = _d_table[_d_bits.bit_length() - 1]
_d_mode = _d_kernel.mode
if _d_mode == _d_PLAIN:
    return _d_kernel.unboxed_fn({call_args})
if _d_mode == _d_KEYSET:
    return _d_kernel.unboxed_fn(_d_ks(_d_bits){sep}{call_args})
if _d_mode == _d_GENERIC:
    return _d_kernel.unboxed_fn(_d_op, _d_ks(_d_bits){sep}{call_args})
return _d_slow(_d_op, _d_kernel, _d_bits, {args_tuple}, {kwargs_dict})"""
    source = f"""
def {fn_name}({", ".join(params)}):
    try:
        _d_bits = {keys}
    except (AttributeError, TypeError):
        raise _d_bad({args_tuple}, {kwargs_dict}) from None
    _d_inc, _d_exc = _d_get()
    _d_bits = (_d_bits | _d_inc) & ~_d_exc & _d_entry.mask
    _d_fp = _d_fp_set(_d_FP_QUIET)
    try:
{indent(run_kernel, " " * 8)}
    finally:
        _d_fp_reset(_d_fp)

def redispatch(_d_keyset, {", ".join(params)}):
    _d_bits = _d_keyset.repr & _d_entry.mask
{indent(run_kernel, " " * 4)}
"""
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<dispatch {schema.qualified_overload}>", "exec"), env, namespace)
    call = namespace[fn_name]
    call.__qualname__ = call.__name__ = fn_name
    return call, namespace["redispatch"]
