"""The Python API built from `native_functions.yaml`: which schemas form each Python name.

Functional schemas and their `out=` twins become one signature; a name's signatures keep yaml
order.  `build()` makes the parsers behind `framework.<name>` and the `Tensor` methods; the code
generator (`python -m framework.ops.codegen`) writes the typed stubs from the same groups.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from framework._method_table import METHOD_PARSERS
from framework._tensor import Tensor
from framework._torch_function import MODES, route
from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dispatch.schema import Argument, FunctionSchema
from framework.ops._native import NativeFunction
from framework.ops._python_args import (
    TENSOR_OPTIONS,
    PythonArgParser,
    PythonSignature,
    is_tensor,
    out_arguments,
)


@attrs.frozen
class Overload:
    """A functional schema, the out= schema that pairs with it (if any), its variants and the
    submodule of `framework` its function lives in (None: `framework` itself)."""

    schema: FunctionSchema
    out: FunctionSchema | None
    variants: frozenset[str]
    python_module: str | None = None


def _key(a: Argument) -> tuple[str, str, bool, object]:
    return (a.name, str(a.type), a.kwarg_only, a.default)


def _arguments_key(args: Sequence[Argument]) -> tuple[tuple[str, str, bool, object], ...]:
    """What a functional schema and its out= twin share: every argument but `out`, except that
    a factory's TensorOptions arguments do not count (PyTorch's out= factories have none; the
    Python binding takes them and checks them against `out`)."""
    factory = not any(is_tensor(a) for a in args)
    return tuple(_key(a) for a in args if not (factory and a.name in TENSOR_OPTIONS))


def _out_twin_of(schema: FunctionSchema) -> tuple[tuple[Any, ...], str] | None:
    """For an out= schema (keyword-only tensors it writes: `out`, or `values, indices`), the key
    of the functional twin."""
    outs = out_arguments(schema)
    if not outs:
        return None
    return _arguments_key([a for a in schema.arguments if a.name not in outs]), schema.name


SKIP_PYTHON_BINDINGS: Final = frozenset(
    f"aten::{name}.{overload}"
    for name in (
        *("add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "subtract", "subtract_"),
        *("multiply", "multiply_", "divide", "divide_", "true_divide", "true_divide_"),
    )
    for overload in ("Scalar", "Scalar_out", "Scalar_mode", "Scalar_mode_out")
) | {"aten::unique_consecutive"}
"""Schemas PyTorch keeps out of the Python API: a Python number there becomes a wrapped-number
tensor for the `.Tensor` overload (so `x * 2` records MulBackward0, as in PyTorch); and
unique_consecutive, whose Python function (framework._unique_api, as torch.functional's) returns
only the tensors asked for."""


PYTHON_FUNCTIONAL: Final = frozenset(
    ("block_diag", "cartesian_prod", "cdist", "chain_matmul", "einsum", "tensordot")
) | {"atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "meshgrid", "stft"}
"""Operators whose `framework.<name>` function is written by hand in framework/functional.py (as
PyTorch's in torch/functional.py), since its Python signature is not its schema's; the parsers
are built as for any other, and the generated `functions` module leaves the names out."""


def python_groups(functions: list[NativeFunction]) -> dict[str, list[Overload]]:
    """Python name -> its overloads, out= schemas merged into their functional twins (the
    schemas of SKIP_PYTHON_BINDINGS left out)."""
    functions = [f for f in functions if f.schema.qualified_overload not in SKIP_PYTHON_BINDINGS]
    outs: dict[tuple[tuple[Any, ...], str], FunctionSchema] = {}
    for f in functions:
        twin = _out_twin_of(f.schema)
        if twin is not None:
            outs[twin] = f.schema
    groups: dict[str, list[Overload]] = {}
    for f in functions:
        if _out_twin_of(f.schema) is not None:
            continue
        key = (_arguments_key(f.schema.arguments), f.schema.name)
        base = f.schema.name.partition("::")[2]
        groups.setdefault(base, []).append(Overload(f.schema, outs.get(key), f.variants, f.python_module))
    return groups


def _handle(schema: FunctionSchema) -> OperatorHandle:
    return dispatcher().find_schema_or_throw(schema.name, schema.overload_name)


def is_method_overload(o: Overload) -> bool:
    return "method" in o.variants and any(a.name == "self" for a in o.schema.arguments)


def _parser(name: str, overloads: list[Overload], as_method: bool) -> PythonArgParser:
    sigs = [
        PythonSignature.of(
            name, _handle(o.schema), None if o.out is None or as_method else _handle(o.out), as_method
        )
        for o in overloads
    ]
    if as_method:
        return PythonArgParser(name, sigs, lambda: getattr(Tensor, name), f"torch.Tensor.{name}")
    module = "torch" if overloads[0].python_module is None else f"torch.{overloads[0].python_module}"
    return PythonArgParser(name, sigs, lambda: API_FUNCTIONS[name], f"{module}.{name}")


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


API_FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {}
"""Name -> the first function `function(name)` made: the public `framework.<name>` (or
`framework.linalg.<name>`...) that `__torch_function__` receives as `func`."""


def function(name: str) -> Callable[..., Any]:
    """The Python function `framework.<name>` (its parser is looked up when called, so that
    importing generated code never depends on the operators registered at that moment). With a
    `TorchFunctionMode` pushed it goes through `__torch_function__`, as it does from its parser
    when an argument is overloaded."""

    def api_function(*args: Any, **kwargs: Any) -> Any:
        if not MODES:
            return FUNCTION_PARSERS[name].call(args, kwargs)
        parser = FUNCTION_PARSERS[name]
        return route(api_function, parser.public_name, args, kwargs, lambda: parser.call(args, kwargs))

    api_function.__name__ = api_function.__qualname__ = name
    API_FUNCTIONS.setdefault(name, api_function)
    return api_function
