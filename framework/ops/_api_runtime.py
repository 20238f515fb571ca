"""The Python API built from `native_functions.yaml`: which schemas form each Python name.

Functional schemas and their `out=` twins become one signature; a name's signatures keep yaml
order.  `build()` makes the parsers behind `framework.<name>` and the `Tensor` methods; the code
generator (`python -m framework.ops.codegen`) writes the typed stubs from the same groups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs
import numpy as np

from framework._method_table import METHOD_PARSERS
from framework._tensor import Tensor
from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dispatch.schema import Argument, FunctionSchema
from framework.c10.dtypes import float64
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, number_dtype
from framework.ops._native import NativeFunction
from framework.ops._python_args import PythonArgParser, PythonSignature


@attrs.frozen
class Overload:
    """A functional schema, the out= schema that pairs with it (if any), and its variants."""

    schema: FunctionSchema
    out: FunctionSchema | None
    variants: frozenset[str]


def _key(a: Argument) -> tuple[str, str, bool, object]:
    return (a.name, str(a.type), a.kwarg_only, a.default)


def _out_twin_of(schema: FunctionSchema) -> tuple[tuple[Any, ...], str] | None:
    """For an out= schema (a single keyword-only `out`), the key of the functional twin."""
    outs = [a for a in schema.arguments if a.name == "out" and a.kwarg_only]
    if len(outs) != 1:
        return None
    rest = tuple(_key(a) for a in schema.arguments if a.name != "out")
    return rest, schema.name


def python_groups(functions: list[NativeFunction]) -> dict[str, list[Overload]]:
    """Python name -> its overloads, out= schemas merged into their functional twins."""
    outs: dict[tuple[tuple[Any, ...], str], FunctionSchema] = {}
    for f in functions:
        twin = _out_twin_of(f.schema)
        if twin is not None:
            outs[twin] = f.schema
    groups: dict[str, list[Overload]] = {}
    for f in functions:
        if _out_twin_of(f.schema) is not None:
            continue
        key = (tuple(_key(a) for a in f.schema.arguments), f.schema.name)
        base = f.schema.name.partition("::")[2]
        groups.setdefault(base, []).append(Overload(f.schema, outs.get(key), f.variants))
    return groups


def _handle(schema: FunctionSchema) -> OperatorHandle:
    return dispatcher().find_schema_or_throw(schema.name, schema.overload_name)


def is_method_overload(o: Overload) -> bool:
    args = o.schema.arguments
    return "method" in o.variants and bool(args) and args[0].name == "self"


def _parser(name: str, overloads: list[Overload], as_method: bool) -> PythonArgParser:
    sigs = [
        PythonSignature.of(
            name, _handle(o.schema), None if o.out is None or as_method else _handle(o.out), as_method
        )
        for o in overloads
    ]
    return PythonArgParser(name, sigs)


FUNCTION_PARSERS: Final[dict[str, PythonArgParser]] = {}


def build(functions: list[NativeFunction]) -> None:
    """Make the parsers of every Python function and Tensor method."""
    for name, overloads in python_groups(functions).items():
        as_functions = [o for o in overloads if "function" in o.variants]
        as_methods = [o for o in overloads if is_method_overload(o)]
        if as_functions:
            FUNCTION_PARSERS[name] = _parser(name, as_functions, as_method=False)
        if as_methods:
            METHOD_PARSERS[name] = _parser(name, as_methods, as_method=True)


def function(name: str) -> Callable[..., Any]:
    """The Python function `framework.<name>` (its parser is looked up when called, so that
    importing generated code never depends on the operators registered at that moment)."""

    def api_function(*args: Any, **kwargs: Any) -> Any:
        return FUNCTION_PARSERS[name].call(args, kwargs)

    api_function.__name__ = api_function.__qualname__ = name
    return api_function


def scalar_tensor(value: Number, like: Tensor) -> Tensor:
    """A Python number as a zero-dim "wrapped number" tensor on `like`'s device: type promotion
    treats it as the Python number it came from."""
    d = float64 if isinstance(value, float) else number_dtype(value)
    impl = TensorImpl.empty((), d, like._impl.device)
    if impl.storage.data is not None:
        impl.numpy_view()[...] = np.asarray(value, dtype=d.numpy_dtype)
    impl.wrapped_number = True
    return Tensor(impl)
