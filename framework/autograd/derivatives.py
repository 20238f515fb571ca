"""`derivatives.yaml`: load and check it, and turn every entry into the operator's kernel at the
Autograd key (what PyTorch generates as VariableType), plus the ADInplaceOrView kernels.

An entry names a schema of native_functions.yaml and gives, for each differentiable tensor input,
a Python expression for its gradient.  From each entry comes a node class (`AddBackward0`) whose
`apply` evaluates the formulas, and a kernel that, when grad mode is on and an input requires
grad, records such a node: it saves exactly what the formulas use (only the geometry of a tensor
whose data they do not read), redispatches below autograd, and makes the outputs the node's.
In-place variants (`add_`) share their functional entry and rebase the history of `self`; out=
variants refuse inputs that require grad, as PyTorch does.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import yaml

import framework
from framework.autograd import anomaly_mode
from framework.autograd.formulas import HELPERS
from framework.autograd.forward_ad import ACTIVE, _Suspended, fw_grad, set_fw_grad, update_fw_grad
from framework.autograd.graph import Edge, InputMetadata, Node, SavedVariable, TensorGeometry, is_inference
from framework.autograd.variable import (
    as_view,
    check_inplace,
    gradient_edge,
    rebase_history,
    set_history,
    set_view_replay,
)
from framework.c10.autograd_state import grad_mode, is_inference_mode_enabled
from framework.c10.dispatch._codegen import param_name, schema_parameters
from framework.c10.dispatch.dispatcher import OperatorHandle, dispatcher
from framework.c10.dispatch.schema import Argument, FunctionSchema, TensorKind, tensor_kind
from framework.c10.dispatch_key import (
    AFTER_AD_INPLACE_OR_VIEW_KEYS,
    AFTER_AUTOGRAD_KEYS,
    AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW,
    DispatchKey,
    DispatchKeySet,
)
from framework.c10.local_dispatch_key_set import get_local_keys, local_keys
from framework.c10.tensor_impl import CONJ_BIT, MATH_BITS, NEG_BIT
from framework.library import Library
from framework.ops._native import NATIVE, LineLoader, NativeFunction

DERIVATIVES_YAML: Final = Path(__file__).resolve().parent.parent / "derivatives.yaml"
_META_ATTRS: Final = frozenset(
    ("shape", "dtype", "device", "ndim", "size", "stride", "storage_offset", "dim", "numel")
)
_ENTRY_KEYS: Final = frozenset(("name", "output_differentiability", "node_name", "__line__"))
_NON_DIFFERENTIABLE: Final = "non_differentiable"
_BELOW_AUTOGRAD_BITS: Final = AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW.repr
_AFTER_AUTOGRAD_BITS: Final = AFTER_AUTOGRAD_KEYS.repr
_AFTER_AD_INPLACE_OR_VIEW_BITS: Final = AFTER_AD_INPLACE_OR_VIEW_KEYS.repr
_ks: Final = DispatchKeySet.from_bits


class DerivativesError(ValueError):
    """A malformed derivatives.yaml (the message names the entry's line)."""


def formula_namespace() -> dict[str, Any]:
    """The globals formulas are evaluated in: the public helpers of framework.autograd.formulas,
    `framework` and `math`."""
    return {"framework": framework, "math": math, **HELPERS}


@attrs.frozen
class DerivativeEntry:
    """One entry: the schema, the gradient formula of each differentiable input (schema order),
    the inputs declared non-differentiable, which outputs are differentiable, the node's name."""

    schema: FunctionSchema
    line: int
    formulas: tuple[tuple[str, str], ...]
    non_differentiable: frozenset[str]
    output_differentiability: tuple[bool, ...]
    node_name: str

    @property
    def key(self) -> str:
        """`add.Tensor` (or `sum` for an overload without a name)."""
        return self.schema.qualified_overload.partition("::")[2]


def _output_names(schema: FunctionSchema) -> list[list[str]]:
    """The names each output goes by in formulas."""
    if len(schema.returns) == 1:
        names = ["result"]
        if schema.returns[0].name:
            names.append(schema.returns[0].name)
        return [names]
    return [[f"result{i}", *([r.name] if r.name else [])] for i, r in enumerate(schema.returns)]


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def _tensor_args(schema: FunctionSchema) -> list[tuple[int, Argument]]:
    return [
        (i, a)
        for i, a in enumerate(schema.arguments)
        if tensor_kind(a.type) is not TensorKind.NONE and not _is_out_arg(a)
    ]


def _is_out_arg(arg: Argument) -> bool:
    return arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write


def _bound_names(tree: ast.AST) -> set[str]:
    """Names a formula binds itself (comprehension targets, lambda parameters)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in node.args.args)
    return bound


def parse_derivatives(text: str, source: str, namespace: dict[str, Any]) -> list[DerivativeEntry]:
    """Parse and check the entries: each names an operator of native_functions.yaml by its exact
    schema, gives a formula (or `non_differentiable`) for each tensor input, and its formulas
    name only what the schema, the outputs and the helper namespace provide."""
    raw = yaml.load(text, Loader=LineLoader)
    if not isinstance(raw, list):
        raise DerivativesError(f"{source}: expected a list of entries")
    native = {str(f.schema): f for f in NATIVE}
    entries: list[DerivativeEntry] = []
    seen: dict[str, int] = {}
    counts: dict[str, int] = {}
    for item in raw:
        line = int(item.get("__line__", 0)) if isinstance(item, dict) else 0
        where = f"{source}:{line}"
        if not isinstance(item, dict) or "name" not in item:
            raise DerivativesError(f"{where}: an entry needs a 'name' (the operator's schema)")
        text_schema = f"aten::{item['name']}"
        function = native.get(text_schema)
        if function is None:
            raise DerivativesError(
                f"{where}: no operator in native_functions.yaml has the schema {item['name']!r}"
            )
        schema = function.schema
        if text_schema in seen:
            raise DerivativesError(
                f"{where}: {schema.qualified_overload} already has an entry (line {seen[text_schema]})"
            )
        seen[text_schema] = line
        entries.append(_parse_entry(item, schema, where, line, namespace, counts))
    return entries


def _parse_entry(
    item: dict[str, Any],
    schema: FunctionSchema,
    where: str,
    line: int,
    namespace: dict[str, Any],
    counts: dict[str, int],
) -> DerivativeEntry:
    op = schema.qualified_overload
    tensor_args = {a.name for _, a in _tensor_args(schema)}
    all_args = {a.name for a in schema.arguments}
    outputs = _output_names(schema)
    output_names = {n for names in outputs for n in names}
    allowed = all_args | output_names | {"grad", "grads"} | set(namespace) | set(dir(builtins))
    formulas: list[tuple[str, str]] = []
    non_differentiable: set[str] = set()
    for key, value in item.items():
        if key in _ENTRY_KEYS:
            continue
        if key not in all_args:
            raise DerivativesError(f"{where}: {op}: {key!r} is not an argument of its schema")
        if key not in tensor_args:
            raise DerivativesError(f"{where}: {op}: {key!r} is not a tensor input, so it has no gradient")
        if value == _NON_DIFFERENTIABLE:
            non_differentiable.add(key)
            continue
        formula = str(value)
        try:
            tree = ast.parse(formula, mode="eval")
        except SyntaxError as e:
            raise DerivativesError(
                f"{where}: {op}: the formula for {key!r} is not a Python expression: {e.msg}"
            ) from None
        bound = _bound_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in allowed and node.id not in bound:
                raise DerivativesError(
                    f"{where}: {op}: the formula for {key!r} names {node.id!r}, which is not in its "
                    "schema, its outputs or the formula helpers"
                )
        formulas.append((key, formula))
    for name in sorted(tensor_args - non_differentiable - {k for k, _ in formulas}):
        raise DerivativesError(f"{where}: {op}: the differentiable input {name!r} has no formula")
    order = [a.name for a in schema.arguments]
    formulas.sort(key=lambda f: order.index(f[0]))
    differentiability = item.get("output_differentiability")
    if differentiability is None:
        outputs_diff = (bool(formulas),) * len(schema.returns)
    else:
        if not isinstance(differentiability, list) or len(differentiability) != len(schema.returns):
            raise DerivativesError(
                f"{where}: {op}: output_differentiability needs one True/False per output "
                f"({len(schema.returns)})"
            )
        outputs_diff = tuple(bool(d) for d in differentiability)
    base = schema.name.partition("::")[2]
    index = counts.get(base, 0)
    counts[base] = index + 1
    node_name = str(item.get("node_name") or f"{_camel(base)}Backward{index}")
    return DerivativeEntry(
        schema, line, tuple(formulas), frozenset(non_differentiable), outputs_diff, node_name
    )


# --- which operators need an entry ------------------------------------------------------------


def _is_composite_implicit(f: NativeFunction) -> bool:
    return any(key is DispatchKey.CompositeImplicitAutograd for key, _ in f.dispatch)


def _is_out(schema: FunctionSchema) -> bool:
    return any(_is_out_arg(a) for a in schema.arguments)


def _writes_first(schema: FunctionSchema) -> bool:
    """Whether an operator changes its first argument in place (rrelu_with_noise, which only
    writes its `noise` argument, is functional for autograd)."""
    first = schema.arguments[0].alias_info if schema.arguments else None
    return first is not None and first.is_write


def _signature(schema: FunctionSchema) -> tuple[str, tuple[tuple[str, str, bool], ...]]:
    base = schema.name.partition("::")[2]
    if not _is_out(schema) and schema.is_mutable:
        base = base.removesuffix("_")
    args = tuple((a.name, str(a.type), a.kwarg_only) for a in schema.arguments if not _is_out_arg(a))
    return base, args


def _differentiation_targets(functions: Iterable[NativeFunction]) -> list[NativeFunction]:
    """The schemas autograd must know: tensor inputs, not composite-implicit, not out=."""
    return [
        f
        for f in functions
        if _tensor_args(f.schema) and not _is_composite_implicit(f) and not _is_out(f.schema)
    ]


def _returns_tensors(schema: FunctionSchema) -> bool:
    """Whether an operator returns tensors (one returning only a bool, as equal, has no gradient)."""
    return any(str(r.type).startswith("Tensor") for r in schema.returns)


def match_entries(
    entries: Sequence[DerivativeEntry], functions: Sequence[NativeFunction], source: str
) -> dict[str, tuple[NativeFunction, DerivativeEntry]]:
    """The entry serving each operator (its own, or its functional twin's for in-place and out=
    variants); every operator that needs one must have one."""
    by_schema = {str(e.schema): e for e in entries}
    by_signature: dict[tuple[str, tuple[tuple[str, str, bool], ...]], DerivativeEntry] = {}
    for e in entries:
        if not e.schema.is_mutable:
            by_signature[_signature(e.schema)] = e
    by_name = {str(f.schema): f for f in functions}
    for e in entries:
        f = by_name[str(e.schema)]
        if _is_composite_implicit(f):
            raise DerivativesError(
                f"{source}:{e.line}: {e.schema.qualified_overload} is served by a "
                "CompositeImplicitAutograd kernel: its gradient comes from its decomposition"
            )
        if _is_out(e.schema):
            raise DerivativesError(
                f"{source}:{e.line}: {e.schema.qualified_overload} is an out= variant: its functional "
                "twin's entry serves it"
            )
    functional = {_signature(f.schema) for f in functions if not f.schema.is_mutable}
    served: dict[str, tuple[NativeFunction, DerivativeEntry]] = {}
    missing: list[str] = []
    for f in functions:
        if not _tensor_args(f.schema) or not _returns_tensors(f.schema) or _is_composite_implicit(f):
            continue
        entry = by_schema.get(str(f.schema)) or by_signature.get(_signature(f.schema))
        if entry is None:
            if not _is_out(f.schema) and (not f.schema.is_mutable or _signature(f.schema) not in functional):
                missing.append(str(f.schema))
            continue
        served[str(f.schema)] = (f, entry)
    if missing:
        raise DerivativesError(
            f"{source}: no entry for {len(missing)} differentiable operator(s): " + "; ".join(missing)
        )
    return served


# --- what a node saves ------------------------------------------------------------------------

SAVE_VALUE: Final = 0
SAVE_TENSOR: Final = 1
SAVE_GEOMETRY: Final = 2
SAVE_TENSOR_LIST: Final = 3
SAVE_GEOMETRY_LIST: Final = 4


def _usage(formulas: Iterable[str], names: set[str]) -> dict[str, bool]:
    """name -> whether the formulas read its data (False: only its geometry)."""
    reads: dict[str, bool] = {}
    for formula in formulas:
        tree = ast.parse(formula, mode="eval")
        parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in names:
                reads[node.id] = reads.get(node.id, False) or not _geometry_only(node, parents, tree)
    return reads


def _geometry_only(name: ast.Name, parents: dict[ast.AST, ast.AST], tree: ast.AST) -> bool:
    parent = parents.get(name)
    if isinstance(parent, ast.Attribute) and parent.attr in _META_ATTRS:
        return True
    if isinstance(parent, ast.comprehension) and parent.iter is name and isinstance(parent.target, ast.Name):
        element = parents.get(parent)
        target = parent.target.id
        assert element is not None
        return all(
            _geometry_only(n, parents, tree)
            for n in ast.walk(element)
            if isinstance(n, ast.Name) and n.id == target and n is not parent.target
        )
    return False


@attrs.frozen
class _Saved:
    index: int
    name: str
    mode: int


class FormulaNode(Node):
    """A node made from a derivatives.yaml entry (its subclasses are named `AddBackward0`, ...)."""

    __slots__ = ("needs", "saved", "spans")

    def __init__(self, next_edges: tuple[Edge | None, ...], needs: tuple[bool, ...]) -> None:
        Node.__init__(self, next_edges)
        self.needs = needs
        self.saved: Sequence[Any] = ()
        self.spans: Sequence[tuple[int, int]] = ()

    def release_variables(self) -> None:
        for value in self.saved:
            if isinstance(value, SavedVariable):
                value.release()
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, SavedVariable):
                        v.release()


def _materialize(node: Node, grads: list[Any], n_outputs: int) -> list[Any]:
    """One gradient per forward output (None for a non-differentiable one), zeros for the
    differentiable outputs that received none (a node with several outputs)."""
    out = list(grads) + [None] * (n_outputs - len(grads))
    for i, metadata in enumerate(node.input_metadata):
        if i < len(out) and out[i] is None and metadata is not None:
            out[i] = metadata.zeros()
    return out


@attrs.frozen
class NodeSpec:
    """How to record and run one entry's node."""

    entry: DerivativeEntry
    node_class: type[FormulaNode]
    inputs: tuple[tuple[int, TensorKind], ...]
    saved_inputs: tuple[_Saved, ...]
    saved_outputs: tuple[_Saved, ...]
    output_differentiability: tuple[bool, ...]
    differentiable: bool
    list_output: bool


def _saved(names: Sequence[tuple[int, str, bool]], reads: dict[str, bool]) -> tuple[_Saved, ...]:
    saved = []
    for index, name, is_list in names:
        if name not in reads:
            continue
        if reads[name]:
            mode = SAVE_TENSOR_LIST if is_list else SAVE_TENSOR
        else:
            mode = SAVE_GEOMETRY_LIST if is_list else SAVE_GEOMETRY
        saved.append(_Saved(index, name, mode))
    return tuple(saved)


def build_node_spec(entry: DerivativeEntry, namespace: dict[str, Any], source: str) -> NodeSpec:
    """The node class of an entry (its `apply` generated from the formulas) and what to save."""
    schema = entry.schema
    inputs = tuple(
        (i, tensor_kind(a.type)) for i, a in _tensor_args(schema) if a.name not in entry.non_differentiable
    )
    formula_of = dict(entry.formulas)
    arg_names = {a.name for a in schema.arguments}
    outputs = _output_names(schema)
    reads = _usage(formula_of.values(), arg_names | {n for names in outputs for n in names})
    tensor_arg_kinds = {a.name: tensor_kind(a.type) for a in schema.arguments}
    list_kinds = (TensorKind.TENSOR_LIST, TensorKind.OPTIONAL_TENSOR_LIST)
    saved_inputs = []
    for i, a in enumerate(schema.arguments):
        if a.name not in reads:
            continue
        kind = tensor_arg_kinds[a.name]
        if kind is TensorKind.NONE:
            saved_inputs.append(_Saved(i, a.name, SAVE_VALUE))
        else:
            saved_inputs.extend(_saved([(i, a.name, kind in list_kinds)], reads))
    list_output = len(schema.returns) == 1 and str(schema.returns[0].type) == "Tensor[]"
    saved_outputs: list[_Saved] = []
    for j, names in enumerate(outputs):
        for name in names:
            if name in reads:
                saved_outputs.extend(_saved([(j, name, list_output)], reads))
    lines = ["def apply(_node, grads):"]
    n_outputs = len(schema.returns)
    if n_outputs == 1 and not list_output:
        lines += ["    grad = grads[0]", "    if grad is None:", "        return [None] * len(_node.needs)"]
    else:
        first = entry.output_differentiability.index(True) if True in entry.output_differentiability else 0
        lines += [
            "    if all(g is None for g in grads):",
            "        return [None] * len(_node.needs)",
            f"    grads = _materialize(_node, grads, {0 if list_output else n_outputs})",
            f"    grad = grads[{first}]",
        ]
    lines.append("    _s = _node.saved")
    for k, saved in enumerate((*saved_inputs, *saved_outputs)):
        local = saved.name
        if saved.mode == SAVE_TENSOR:
            lines.append(f"    {local} = None if _s[{k}] is None else _s[{k}].unpack(_node)")
        elif saved.mode == SAVE_TENSOR_LIST:
            lines.append(f"    {local} = [None if _v is None else _v.unpack(_node) for _v in _s[{k}]]")
        else:
            lines.append(f"    {local} = _s[{k}]")
    lines += ["    _needs = _node.needs", "    _out = [None] * len(_needs)"]
    has_lists = any(kind in list_kinds for _, kind in inputs)
    for position, (index, kind) in enumerate(inputs):
        name = schema.arguments[index].name
        formula = formula_of[name]
        if kind in list_kinds:
            lines += [
                f"    _a, _b = _node.spans[{position}]",
                "    if any(_needs[_a:_b]):",
                f"        _vals = ({formula})",
                "        for _k in range(_a, _b):",
                "            if _needs[_k]:",
                "                _out[_k] = _vals[_k - _a]",
            ]
        else:
            at = f"_node.spans[{position}][0]" if has_lists else str(position)
            lines += [f"    if _needs[{at}]:", f"        _out[{at}] = ({formula})"]
    lines.append("    return _out")
    env = dict(namespace)
    env["_materialize"] = _materialize
    code = compile("\n".join(lines), f"<{entry.node_name} {source}:{entry.line}>", "exec")
    exec(code, env)
    # A qualified node name ("torch::autograd::NotImplemented") is `name()`; the class, which the
    # tensor repr shows, takes its last part, as PyTorch's C++ node classes do.
    members: dict[str, Any] = {"__slots__": (), "apply": env["apply"]}
    short = entry.node_name.rpartition("::")[2]
    if short != entry.node_name:
        members["name"] = lambda self, full=entry.node_name: full
    node_class = type(short, (FormulaNode,), members)
    return NodeSpec(
        entry,
        node_class,
        inputs,
        tuple(saved_inputs),
        tuple(saved_outputs),
        entry.output_differentiability,
        bool(entry.formulas),
        list_output,
    )


# --- recording --------------------------------------------------------------------------------


def _differentiable_dtype(tensor: Any) -> bool:
    if tensor is None:
        return False
    d = tensor._impl.dtype
    return bool(d.is_floating_point or d.is_complex)


def _save(value: Any, mode: int, is_output: bool, keep: Callable[[Any, bool], Any] = SavedVariable) -> Any:
    """What a node keeps of `value` in `mode` (tensors are kept by `keep`)."""
    if value is None:
        return None
    if mode == SAVE_VALUE:
        return value
    if mode == SAVE_TENSOR:
        return keep(value, is_output)
    if mode == SAVE_GEOMETRY:
        return TensorGeometry(value._impl)
    if mode == SAVE_TENSOR_LIST:
        return [None if v is None else keep(v, is_output) for v in value]
    return [None if v is None else TensorGeometry(v._impl) for v in value]


def _list_edges(tensors: Iterable[Any]) -> list[Any]:
    """The gradient edges of a list of tensors (None for a missing one)."""
    return [None if t is None else gradient_edge(t) for t in tensors]


def _set_list_history(outputs: Sequence[Any], node: Node) -> None:
    """Make every output of a `Tensor[]`-returning operator that can have a gradient the node's."""
    for j, t in enumerate(outputs):
        if _differentiable_dtype(t):
            set_history(t, node, j)


FUNCTIONAL: Final = 0
INPLACE: Final = 1
INPLACE_VIEW: Final = 2
_RECORDING_ENV: Final[dict[str, Any]] = {
    "_edge": gradient_edge,
    "_list_edges": _list_edges,
    "_SavedVariable": SavedVariable,
    "_Geometry": TensorGeometry,
    "_save": _save,
    "_check_inplace": check_inplace,
    "_anomaly": anomaly_mode.is_anomaly_enabled,
    "_forward_traceback": anomaly_mode.forward_traceback,
    "_set_history": set_history,
    "_set_list_history": _set_list_history,
    "_differentiable": _differentiable_dtype,
    "_rebase": rebase_history,
    "_get_local_keys": get_local_keys,
    "_set_local_keys": local_keys.set,
    "_reset_local_keys": local_keys.reset,
    "_BELOW": _BELOW_AUTOGRAD_BITS,
    "_ks": _ks,
}


def _below_autograd(call_args: str, indent: str) -> list[str]:
    """Source lines setting `_out` to the redispatch of the call to the keys below the kernel's
    (`_AFTER`), with the autograd keys and ADInplaceOrView excluded for whatever that calls in
    turn (PyTorch's AutoDispatchBelowADInplaceOrView guard)."""
    return [
        f"{indent}_inc, _exc = _get_local_keys()",
        f"{indent}_token = _set_local_keys((_inc, _exc | _BELOW))",
        f"{indent}try:",
        f"{indent}    _out = _redispatch(_ks(_ks_.repr & _AFTER), {call_args})",
        f"{indent}finally:",
        f"{indent}    _reset_local_keys(_token)",
    ]


def _tuple_source(items: Iterable[str]) -> str:
    """The source of a tuple display of `items` (a 1-tuple keeps its comma)."""
    return "(" + "".join(f"{item}, " for item in items) + ")"


def _save_source(value: str, mode: int, is_output: bool, may_be_none: bool) -> str:
    """The expression saving `value` for backward in `mode`."""
    if mode == SAVE_VALUE:
        return value
    if mode == SAVE_TENSOR:
        saved = f"_SavedVariable({value}, {is_output})"
    elif mode == SAVE_GEOMETRY:
        saved = f"_Geometry({value}._impl)"
    else:
        return f"_save({value}, {mode}, {is_output})"
    return f"(None if {value} is None else {saved})" if may_be_none else saved


def _record_source(spec: NodeSpec, schema: FunctionSchema, mode: int, call_args: str) -> list[str]:
    """The Autograd kernel's work when grad mode is on and an input requires grad, as source
    lines: collect the inputs' edges, save what the formulas read, run the operator below autograd
    and make its outputs the node's.  `mode`: FUNCTIONAL, INPLACE (`self` changes and its history
    is rebased, through its base for a view) or INPLACE_VIEW (`self`'s geometry changes: it
    becomes the node's output, as a view would)."""
    indent = "        "
    if not spec.differentiable:
        return _below_autograd(call_args, indent)
    names = [param_name(a.name) for a in schema.arguments]
    kinds = [tensor_kind(a.type) for a in schema.arguments]
    lines: list[str] = []
    if mode != FUNCTIONAL:
        lines.append(f"_check_inplace({names[0]})")
    one_tensor = (TensorKind.TENSOR, TensorKind.OPTIONAL_TENSOR)
    if all(kind in one_tensor for _, kind in spec.inputs):
        for k, (index, kind) in enumerate(spec.inputs):
            edge = f"_edge({names[index]})"
            if kind is TensorKind.OPTIONAL_TENSOR:
                edge = f"None if {names[index]} is None else {edge}"
            lines.append(f"_e{k} = {edge}")
        edges = [f"_e{k}" for k in range(len(spec.inputs))]
        needs = [f"_e{k} is not None" for k in range(len(spec.inputs))]
        lines.append(f"_node = _Node({_tuple_source(edges)}, {_tuple_source(needs)})")
    else:
        lines += ["_edges = []", "_spans = []"]
        for index, kind in spec.inputs:
            name = names[index]
            lines.append("_start = len(_edges)")
            if kind is TensorKind.TENSOR:
                lines.append(f"_edges.append(_edge({name}))")
            elif kind is TensorKind.OPTIONAL_TENSOR:
                lines.append(f"_edges.append(None if {name} is None else _edge({name}))")
            else:
                lines.append(f"_edges += _list_edges({name})")
            lines.append("_spans.append((_start, len(_edges)))")
        lines += [
            "_node = _Node(tuple(_edges), tuple([_e is not None for _e in _edges]))",
            "_node.spans = _spans",
        ]
    saved: list[str] = []
    written_later: list[str] = []
    for k, s in enumerate(spec.saved_inputs):
        value = names[s.index]
        if mode != FUNCTIONAL and s.index == 0 and s.mode == SAVE_TENSOR:
            value = f"{value}.clone()"
        may_be_none = kinds[s.index] is not TensorKind.TENSOR
        alias = schema.arguments[s.index].alias_info
        # An input the operator writes besides self (rrelu_with_noise's noise) is saved as written.
        target = written_later if s.index and alias is not None and alias.is_write else lines
        target.append(f"_s{k} = {_save_source(value, s.mode, False, may_be_none)}")
        saved.append(f"_s{k}")
    lines += ["if _anomaly():", "    _node.metadata['traceback_'] = _forward_traceback()"]
    body = [indent + line for line in lines] + _below_autograd(call_args, indent)
    lines = written_later
    n_outputs = len(spec.output_differentiability)
    if spec.list_output:
        lines.append("_set_list_history(_out, _node)")
    elif n_outputs == 1:
        if mode == INPLACE:
            lines.append(f"_rebase({names[0]}, _node)")
        elif spec.output_differentiability[0]:
            lines += ["if _differentiable(_out):", "    _set_history(_out, _node, 0)"]
    else:
        for j, differentiable in enumerate(spec.output_differentiability):
            if differentiable:
                lines += [f"if _differentiable(_out[{j}]):", f"    _set_history(_out[{j}], _node, {j})"]
    single_output = n_outputs == 1 and not spec.list_output
    for s in spec.saved_outputs:
        value = "_out" if n_outputs == 1 else f"_out[{s.index}]"
        saved.append(_save_source(value, s.mode, True, not single_output))
    lines += [f"_node.saved = [{', '.join(saved)}]"]
    return body + [indent + line for line in lines]


def _requires_grad_terms(schema: FunctionSchema, args: Iterable[int]) -> str:
    terms = []
    for i in args:
        arg = schema.arguments[i]
        name = param_name(arg.name)
        kind = tensor_kind(arg.type)
        if kind is TensorKind.TENSOR:
            terms.append(f"((_m := {name}._impl.autograd_meta) is not None and _m.requires_grad)")
        elif kind is TensorKind.OPTIONAL_TENSOR:
            terms.append(
                f"({name} is not None and (_m := {name}._impl.autograd_meta) is not None"
                " and _m.requires_grad)"
            )
        else:
            terms.append(f"_any_requires_grad({name})")
    return " or ".join(terms) or "False"


def _any_requires_grad(tensors: Iterable[Any]) -> bool:
    for t in tensors:
        if t is not None:
            meta = t._impl.autograd_meta
            if meta is not None and meta.requires_grad:
                return True
    return False


def _compile_kernel(op: OperatorHandle, env: dict[str, Any], name: str, params: str, body: list[str]) -> Any:
    """Compile `def <name>(_ks_, <params>):` with the source lines of `body` in `env`: one of the
    kernels this module generates per operator, named after its kind and the operator."""
    schema = op.schema
    source = "\n".join([f"def {name}(_ks_, {params}):", *body, ""])
    exec(compile(source, f"<{name} kernel {schema.qualified_overload}>", "exec"), env)
    kernel = env[name]
    kernel.__qualname__ = kernel.__name__ = f"{name}_{schema.name.partition('::')[2]}"
    return kernel


def _signature_source(schema: FunctionSchema, env: dict[str, Any]) -> tuple[str, str]:
    """(the parameter list of a generated kernel, the arguments passing its parameters on)."""
    params, positional, keywords = schema_parameters(schema, env)
    return ", ".join(params), ", ".join(positional + keywords)


def autograd_kernel(op: OperatorHandle, spec: NodeSpec, kind: str) -> Callable[..., Any]:
    """The kernel of `op` at the Autograd key.  `kind`: "functional", "inplace", "inplace_view"
    or "out"."""
    schema = op.schema
    env: dict[str, Any] = {
        **_RECORDING_ENV,
        "_redispatch": op.redispatch,
        "_grad_enabled": grad_mode.get,
        "_AFTER": _AFTER_AUTOGRAD_BITS,
        "_any_requires_grad": _any_requires_grad,
        "_Node": spec.node_class,
        "_OUT_ERROR": _OUT_ERROR,
    }
    params, call_args = _signature_source(schema, env)
    if kind == "out":
        checked = [i for i, a in enumerate(schema.arguments) if tensor_kind(a.type) is not TensorKind.NONE]
    elif not spec.differentiable:
        checked = [i for i, _ in _tensor_args(schema)]
    else:
        checked = [i for i, _ in spec.inputs]
    body = []
    if kind != "out" and spec.differentiable:
        # While a forward AD level is active, the forward AD work runs this kernel again, with
        # the level suspended (so this test fails then).
        env["_FW"] = ACTIVE
        env["_forward"] = _forward_ad_kernel(op, spec, kind)
        values = _tuple_source(param_name(a.name) for a in schema.arguments)
        body += ["    if _FW:", f"        return _forward(_kernel, _ks_, {values})"]
    body.append(f"    if _grad_enabled() and ({_requires_grad_terms(schema, checked)}):")
    if kind == "out":
        body.append(f"        raise RuntimeError(_OUT_ERROR.format({schema.name.partition('::')[2]!r}))")
    else:
        mode = {"functional": FUNCTIONAL, "inplace": INPLACE, "inplace_view": INPLACE_VIEW}[kind]
        body += [*_record_source(spec, schema, mode, call_args), "        return _out"]
    body.append(f"    return _redispatch(_ks(_ks_.repr & _AFTER), {call_args})")
    kernel: Callable[..., Any] = _compile_kernel(op, env, "autograd", params, body)
    env["_kernel"] = kernel
    return kernel


# --- forward AD -------------------------------------------------------------------------------


class _Held:
    """A tensor a forward AD product reads, with the interface of a saved variable (read at once,
    so nothing is version-checked or released)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Any, is_output: bool) -> None:
        self.tensor = tensor

    def unpack(self, saved_for: Node) -> Any:
        return self.tensor


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _forward_ad_kernel(op: OperatorHandle, spec: NodeSpec, kind: str) -> Callable[..., Any]:
    """The Autograd kernel's work while a forward AD level is active: `call(kernel, ks, values)`
    runs `kernel` (forward AD suspended) on the schema-ordered `values` and gives the outputs the
    tangents that the inputs' tangents imply.  A view operator applies itself to the tangent (so a
    view's tangent is the same view of the tangent); any other operator transposes its backward
    formulas, which are linear in the incoming gradient `g`: the gradient of `<backward(g), t>`
    with respect to `g` is the Jacobian-vector product `J t`."""
    schema = op.schema
    keyword = tuple(a.kwarg_only for a in schema.arguments)
    names = tuple(param_name(a.name) for a in schema.arguments)
    list_kinds = (TensorKind.TENSOR_LIST, TensorKind.OPTIONAL_TENSOR_LIST)
    n_outputs = len(schema.returns)
    is_view = kind == "functional" and _is_view(schema) and [i for i, _ in spec.inputs] == [0]
    clone_self = kind == "inplace" and any(s.index == 0 and s.mode == SAVE_TENSOR for s in spec.saved_inputs)
    diffs = spec.output_differentiability
    base_name = schema.name.partition("::")[2]

    def call(kernel: Callable[..., Any], ks: DispatchKeySet, values: tuple[Any, ...]) -> Any:
        tangents: list[Any] = []
        spans: list[tuple[int, int]] = []
        for index, tensor_kind_ in spec.inputs:
            value = values[index]
            start = len(tangents)
            if tensor_kind_ in list_kinds:
                tangents += [None if t is None else fw_grad(t) for t in value]
            else:
                tangents.append(None if value is None else fw_grad(value))
            spans.append((start, len(tangents)))
        args = [v for v, k in zip(values, keyword, strict=True) if not k]
        kwargs = {n: v for n, v, k in zip(names, values, keyword, strict=True) if k}
        if all(t is None for t in tangents):
            with _Suspended():
                return kernel(ks, *args, **kwargs)
        if is_view or kind == "inplace_view":
            with _Suspended():
                out = kernel(ks, *args, **kwargs)
                view_of = tangents[0] if is_view else framework.alias(tangents[0])
                products = _as_list(op.call(view_of, *args[1:], **kwargs))
            targets = _as_list(out) if is_view else [values[0]]
            for target, product in zip(targets, products, strict=True):
                if _differentiable_dtype(target):
                    set_fw_grad(target, product)
            return out
        create_graph = grad_mode.get() and any(
            t is not None and t.requires_grad for t in (*tangents, *_flat_tensors(values))
        )
        with _Suspended():
            formula_values = list(values)
            if clone_self:
                formula_values[0] = values[0].clone()
            out = kernel(ks, *args, **kwargs)
            outputs = _as_list(out) if spec.list_output or n_outputs > 1 else [out]
            node = spec.node_class((None,) * len(tangents), tuple(t is not None for t in tangents))
            node.spans = spans
            node.input_metadata = [
                InputMetadata(o._impl) if diffs[min(j, len(diffs) - 1)] and _differentiable_dtype(o) else None
                for j, o in enumerate(outputs)
            ]
            node.saved = [
                *(_save(formula_values[s.index], s.mode, False, _Held) for s in spec.saved_inputs),
                *(
                    _save(out if n_outputs == 1 else out[s.index], s.mode, True, _Held)
                    for s in spec.saved_outputs
                ),
            ]
            jvps = _transposed(node, tangents, create_graph, base_name)
        for j, jvp in jvps.items():
            if kind == "inplace":
                update_fw_grad(values[0], jvp)
            else:
                set_fw_grad(outputs[j], jvp)
        return out

    return call


def _flat_tensors(values: Iterable[Any]) -> list[Any]:
    """The tensors among `values` (tensors, lists of tensors and anything else)."""
    flat: list[Any] = []
    for value in values:
        if isinstance(value, framework.Tensor):
            flat.append(value)
        elif isinstance(value, (list, tuple)):
            flat += [v for v in value if isinstance(v, framework.Tensor)]
    return flat


def _transposed(node: FormulaNode, tangents: Sequence[Any], create_graph: bool, name: str) -> dict[int, Any]:
    """output index -> `J t` for each differentiable output of `node` (an operator called `name`):
    its backward formulas run on gradients that require grad (ones: a formula may take the
    logarithm of a gradient's magnitude, as logcumsumexp's does, and is linear all the same), and
    the gradient of `sum <vjp_i, t_i>` (its real part for complex values) with respect to those
    gradients is the product."""
    token = grad_mode.set(True)
    try:
        seeds = {j: m.ones().requires_grad_() for j, m in enumerate(node.input_metadata) if m is not None}
        vjps = node.apply([seeds.get(j) for j in range(len(node.input_metadata))])
        total = None
        for vjp, tangent in zip(vjps, tangents, strict=True):
            if vjp is None or tangent is None:
                continue
            term = (vjp.conj() * tangent).sum()
            if term.is_complex():
                term = term.real
            total = term if total is None else total + term
        if total is None or not total.requires_grad:
            return {j: framework.zeros_like(seed) for j, seed in seeds.items()}
        try:
            products = framework.autograd.grad(
                total, list(seeds.values()), allow_unused=True, create_graph=create_graph
            )
        except RuntimeError as error:
            if not str(error).startswith("derivative for "):
                raise
            # A backward formula that calls an operator without a derivative of its own: PyTorch
            # has no forward formula for these either.
            raise NotImplementedError(
                f"Trying to use forward AD with {name} that does not support it because it has not "
                "been implemented yet.\nPlease file an issue to PyTorch at "
                "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
                "we can prioritize its implementation or submit a PR adding the implementation to "
                "derivatives.yaml"
            ) from None
    finally:
        grad_mode.reset(token)
    return {
        j: framework.zeros_like(seed) if product is None else product
        for (j, seed), product in zip(seeds.items(), products, strict=True)
    }


# --- ADInplaceOrView --------------------------------------------------------------------------


_OUT_ERROR: Final = (
    "{}(): functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)
_INFERENCE_INPLACE: Final = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
    "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
    "more details."
)


def _ad_inplace_or_view_env(op: OperatorHandle) -> dict[str, Any]:
    return {
        **_RECORDING_ENV,
        "_redispatch": op.redispatch,
        "_AFTER": _AFTER_AD_INPLACE_OR_VIEW_BITS,
        "_inference_mode": is_inference_mode_enabled,
        "_is_inference": is_inference,
        "_as_view": as_view,
        "_INFERENCE_INPLACE": _INFERENCE_INPLACE,
    }


def inplace_kernel(op: OperatorHandle) -> Callable[..., Any]:
    """ADInplaceOrView for an operator writing its `(a!)` arguments (tensors, or each tensor of a
    `Tensor(a!)[]` list): bump their versions."""
    schema = op.schema
    env = _ad_inplace_or_view_env(op)
    params, call_args = _signature_source(schema, env)
    written = [
        (param_name(a.name), str(a.type).endswith("[]"))
        for a in schema.arguments
        if a.alias_info is not None and a.alias_info.is_write
    ]
    body = []
    if written:
        inference = " or ".join(
            f"any(_is_inference(_t._impl) for _t in {name})" if is_list else f"_is_inference({name}._impl)"
            for name, is_list in written
        )
        body += [
            f"    if not _inference_mode() and ({inference}):",
            "        raise RuntimeError(_INFERENCE_INPLACE)",
        ]
    body += _below_autograd(call_args, "    ")
    body += [
        f"    for _t in {name}:\n        _t._impl.version_counter.version += 1"
        if is_list
        else f"    {name}._impl.version_counter.version += 1"
        for name, is_list in written
    ]
    body.append("    return _out")
    kernel: Callable[..., Any] = _compile_kernel(op, env, "ad_inplace", params, body)
    return kernel


def view_kernel(op: OperatorHandle) -> Callable[..., Any]:
    """ADInplaceOrView for a view operator: record each output's base."""
    schema = op.schema
    env = _ad_inplace_or_view_env(op)
    params, call_args = _signature_source(schema, env)
    base = param_name(schema.arguments[0].name)
    body = _below_autograd(call_args, "    ")
    body.append(f"    if not _is_inference({base}._impl):")
    if str(schema.returns[0].type) == "Tensor[]":
        body += ["        for _view in _out:", f"            _as_view({base}, _view, True)"]
    else:
        body.append(f"        _as_view({base}, _out, False)")
    body.append("    return _out")
    kernel: Callable[..., Any] = _compile_kernel(op, env, "ad_view", params, body)
    return kernel


def _is_view(schema: FunctionSchema) -> bool:
    if not schema.arguments or not schema.returns:
        return False
    first, ret = schema.arguments[0].alias_info, schema.returns[0].alias_info
    return first is not None and ret is not None and not first.is_write and not ret.is_write


# --- loading ----------------------------------------------------------------------------------


def load_derivatives(path: Path = DERIVATIVES_YAML) -> list[DerivativeEntry]:
    return parse_derivatives(path.read_text(), str(path), formula_namespace())


def _view_replay(specs: dict[str, NodeSpec]) -> Callable[[Any, Any, Any], Node]:
    spec = specs["as_strided"]
    indices = {s.name: k for k, s in enumerate(spec.saved_inputs)}
    bit_specs = ((CONJ_BIT, specs["_conj"]), (NEG_BIT, specs["_neg_view"]))

    def make(base: Any, view: Any, base_edge: Any) -> Node:
        node = spec.node_class((), (True,))
        saved: list[Any] = [None] * len(spec.saved_inputs)
        values = {
            "self": TensorGeometry(base),
            "size": list(view.sizes),
            "stride": list(view.strides),
            "storage_offset": view.storage_offset,
        }
        for name, k in indices.items():
            saved[k] = values[name]
        node.saved = saved
        node.next_edges = (base_edge,)
        node.input_metadata = [InputMetadata(view)]
        bits = (base.key_set.repr ^ view.key_set.repr) & MATH_BITS
        for bit, bit_spec in bit_specs:
            if bits & bit:
                below, node = node, bit_spec.node_class((), (True,))
                node.saved = []
                node.next_edges = ((below, 0),)
                node.input_metadata = [InputMetadata(view)]
        return node

    return make


def register_autograd(entries: Sequence[DerivativeEntry], source: str) -> Library:
    """Register the Autograd kernels and the ADInplaceOrView kernels of every aten operator."""
    namespace = formula_namespace()
    specs = {e.key: build_node_spec(e, namespace, source) for e in entries}
    served = match_entries(entries, NATIVE, source)
    lib = Library("aten", "IMPL")
    d = dispatcher()
    view_signatures = {_signature(f.schema) for f in NATIVE if _is_view(f.schema)}
    for f in NATIVE:
        if _is_composite_implicit(f) or not _tensor_args(f.schema):
            continue
        op = d.find_schema_or_throw(f.schema.name, f.schema.overload_name)
        pair = served.get(str(f.schema))
        if pair is not None:
            spec = specs[pair[1].key]
            if _is_out(f.schema):
                if spec.differentiable:
                    lib.impl(op, autograd_kernel(op, spec, "out"), "Autograd", with_keyset=True)
            else:
                if not _writes_first(f.schema):
                    kind = "functional"
                else:
                    kind = "inplace_view" if _signature(f.schema) in view_signatures else "inplace"
                lib.impl(op, autograd_kernel(op, spec, kind), "Autograd", with_keyset=True)
        if f.schema.is_mutable:
            lib.impl(op, inplace_kernel(op), "ADInplaceOrView", with_keyset=True)
        elif _is_view(f.schema):
            lib.impl(op, view_kernel(op), "ADInplaceOrView", with_keyset=True)
    set_view_replay(_view_replay(specs))
    return lib


DERIVATIVES: Final = load_derivatives()
AUTOGRAD_LIBRARY: Final = register_autograd(DERIVATIVES, str(DERIVATIVES_YAML))

__all__ = ["DERIVATIVES", "DerivativeEntry", "DerivativesError", "load_derivatives", "parse_derivatives"]
