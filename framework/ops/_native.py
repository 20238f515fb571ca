"""Load `native_functions.yaml` and register every entry through the public `Library` API.

Each entry names its schema (`func`), the Python variants (`function`, `method`), the Python module
its function lives in when not `framework` itself (`python_module: linalg` makes `linalg_det` the
function `framework.linalg.det`, as PyTorch's yaml does), and which kernel serves which dispatch key
(`dispatch`: `KEY[, KEY...]: kernel_name`).  Kernel names resolve in
`framework.ops.kernels` (plain kernels and structured-kernel variants) or, for kernels that need
their own operator (BackendSelect kernels that redispatch), in `KERNEL_FACTORIES`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import attrs
import yaml

from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dispatch.schema import FunctionSchema, parse_schema
from framework.c10.dispatch_key import DispatchKey, parse_dispatch_key
from framework.library import Library
from framework.ops.kernels import KERNEL_FACTORIES, KERNELS

NATIVE_FUNCTIONS: Final = Path(__file__).with_name("native_functions.yaml")
_VARIANTS: Final = frozenset(("function", "method"))
PYTHON_MODULES: Final = frozenset(("fft", "linalg", "special"))
"""The submodules of `framework` that operator functions can live in (`python_module:`)."""


class NativeFunctionsError(ValueError):
    """A malformed entry of native_functions.yaml (the message names the entry's line)."""


@attrs.frozen
class NativeFunction:
    schema: FunctionSchema
    variants: frozenset[str]
    dispatch: tuple[tuple[DispatchKey, str], ...]
    line: int
    python_module: str | None = None


class LineLoader(yaml.SafeLoader):
    """A YAML loader that records each mapping's line (for error messages)."""


def _construct_mapping(loader: LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = {str(k): v for k, v in loader.construct_mapping(node).items()}
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_native_functions(text: str, source: str = "native_functions.yaml") -> list[NativeFunction]:
    """Parse and check the entries (schemas parse, variants and keys are known, kernels exist)."""
    entries = yaml.load(text, Loader=LineLoader)
    if not isinstance(entries, list):
        raise NativeFunctionsError(f"{source}: expected a list of entries")
    result = []
    for entry in entries:
        line = entry.get("__line__", 0)
        where = f"{source}:{line}"
        unknown = set(entry) - {"func", "variants", "dispatch", "python_module", "__line__"}
        if unknown:
            raise NativeFunctionsError(f"{where}: unknown field(s) {sorted(unknown)}")
        try:
            schema = parse_schema(f"aten::{entry['func']}")
        except (KeyError, ValueError) as e:
            raise NativeFunctionsError(f"{where}: bad or missing 'func': {e}") from None
        variants = frozenset(v.strip() for v in str(entry.get("variants", "function")).split(","))
        if not variants <= _VARIANTS:
            raise NativeFunctionsError(f"{where}: unknown variants {sorted(variants - _VARIANTS)}")
        module = entry.get("python_module")
        if module is not None and module not in PYTHON_MODULES:
            raise NativeFunctionsError(f"{where}: unknown python_module {module!r}")
        if module is not None and not schema.name.startswith(f"aten::{module}_"):
            raise NativeFunctionsError(f"{where}: a python_module {module} operator is named {module}_*")
        dispatch: list[tuple[DispatchKey, str]] = []
        for keys, kernel_name in (entry.get("dispatch") or {}).items():
            if keys == "__line__":
                continue
            if kernel_name not in KERNELS and kernel_name not in KERNEL_FACTORIES:
                raise NativeFunctionsError(
                    f"{where}: {schema.qualified_overload}: no kernel named {kernel_name!r}"
                )
            for key in str(keys).split(","):
                try:
                    dispatch.append((parse_dispatch_key(key.strip()), kernel_name))
                except ValueError as e:
                    raise NativeFunctionsError(f"{where}: {e}") from None
        result.append(NativeFunction(schema, variants, tuple(dispatch), line, module))
    return result


def load_native_functions() -> list[NativeFunction]:
    return parse_native_functions(NATIVE_FUNCTIONS.read_text(), str(NATIVE_FUNCTIONS))


def _resolve(name: str, op: OperatorHandle) -> Callable[..., Any]:
    factory = KERNEL_FACTORIES.get(name)
    return factory(op) if factory is not None else KERNELS[name]


def register_native_functions(functions: list[NativeFunction]) -> Library:
    """Define every operator in namespace `aten` and register its kernels; returns the library."""
    lib = Library("aten", "DEF")
    for f in functions:
        lib.def_(str(f.schema))
    d = dispatcher()
    for f in functions:
        op = d.find_schema_or_throw(f.schema.name, f.schema.overload_name)
        for key, kernel_name in f.dispatch:
            with_keyset = kernel_name in KERNEL_FACTORIES
            lib.impl(op, _resolve(kernel_name, op), key, with_keyset=with_keyset)
    return lib


NATIVE: Final = load_native_functions()
ATEN_LIBRARY: Final = register_native_functions(NATIVE)
