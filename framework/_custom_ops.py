"""torch.library's high-level API: `custom_op` / `CustomOpDef`, `infer_schema`, fake kernels and
`get_ctx`, the autograd and autocast kernels of custom operators.

Everything goes through `Library` and the dispatcher: a custom operator `ns::name` is defined in a
FRAGMENT library of its own (redefining the same name destroys the previous one), its device
kernels sit at the backend keys (CompositeExplicitAutograd for the default one), its fake kernel
at Meta, a generated autograd kernel at Autograd and, when it writes an input, a version-bumping
kernel at ADInplaceOrView (as PyTorch's custom ops)."""

from __future__ import annotations

import collections.abc
import contextlib
import functools
import inspect
import logging
import typing
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import GenericAlias
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar, overload

from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch.schema import (
    BaseTy,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    parse_schema,
)
from framework.c10.dispatch_key import (
    AFTER_AD_INPLACE_OR_VIEW_KEYS,
    AFTER_AUTOGRAD_KEYS,
    DispatchKey,
    DispatchKeySet,
)
from framework.c10.local_dispatch_key_set import AutoDispatchBelowAutograd, ExcludeDispatchKeyGuard
from framework.library import Library

if TYPE_CHECKING:
    from framework.c10.dtypes import dtype
    from framework.ops._ops import OpOverload

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
device_types_t: TypeAlias = str | Sequence[str] | None

_UNKNOWN_MUTATES: Final = "unknown"
_TORCH_DEVICE_TYPES: Final = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
    "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip
"""The device types PyTorch parses; framework has tensors only on cpu, meta and privateuseone."""


# ---- infer_schema ----------------------------------------------------------------------------


def _derived_types(
    base: object, schema_type: str, list_base: bool, optional_base_list: bool, optional_list_base: bool
) -> list[tuple[object, str]]:
    def sequences(t: object) -> tuple[object, ...]:
        return (
            typing.Sequence[t],  # type: ignore[valid-type]
            typing.List[t],  # type: ignore[valid-type]  # noqa: UP006
            GenericAlias(collections.abc.Sequence, (t,)),
            GenericAlias(list, (t,)),
        )

    optional_base: object = typing.Optional[base]  # noqa: UP045
    result: list[tuple[object, str]] = [(base, schema_type), (optional_base, f"{schema_type}?")]
    if list_base:
        result += [(s, f"{schema_type}[]") for s in sequences(base)]
    if optional_base_list:
        result += [(s, f"{schema_type}?[]") for s in sequences(optional_base)]
    if optional_list_base:
        result += [(typing.Optional[s], f"{schema_type}[]?") for s in sequences(base)]  # noqa: UP045
    return result


@dataclass(frozen=True)
class _TypeTables:
    params: dict[object, str]
    returns: dict[object, str]


@functools.cache
def _type_tables() -> _TypeTables:
    """PyTorch's tables of the annotations `infer_schema` maps (built on first use: they name
    framework's Tensor, dtype and device classes)."""
    from framework._tensor import Tensor
    from framework.c10.device import Device
    from framework.c10.dtypes import dtype as dtype_class
    from framework.types import Number

    rows: list[tuple[object, str, bool, bool, bool]] = [
        (Tensor, "Tensor", True, True, False),
        (int, "SymInt", True, False, True),
        (float, "float", True, False, True),
        (bool, "bool", True, False, True),
        (str, "str", False, False, False),
        (Number, "Scalar", True, False, False),
        (dtype_class, "ScalarType", False, False, False),
        (Device, "Device", False, False, False),
    ]
    params = dict(pair for row in rows for pair in _derived_types(*row))
    returns: dict[object, str] = {
        Tensor: "Tensor",
        typing.List[Tensor]: "Tensor[]",  # noqa: UP006
        list[Tensor]: "Tensor[]",
        int: "SymInt",
        float: "float",
        bool: "bool",
        Number: "Scalar",
    }
    return _TypeTables(params, returns)


def _default_text(value: object) -> str | None:
    from framework.c10.device import Device
    from framework.c10.dtypes import dtype as dtype_class

    if value is None or isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, (str, Device)):
        return f'"{value}"'
    if isinstance(value, dtype_class):
        return str(value).removeprefix("framework.")
    return None


def infer_schema(
    prototype_function: Callable[..., Any],
    /,
    *,
    mutates_args: str | Iterable[str],
    op_name: str | None = None,
) -> str:
    """The schema of `prototype_function` from its type annotations, as PyTorch infers it:
    `(Tensor x, SymInt n, float? eps=None) -> Tensor`, prefixed by `op_name` if given.

    Tensor, Optional/Sequence/list of Tensor, int (SymInt), float, bool, str, framework.types.Number
    (Scalar), dtype (ScalarType), device (Device) and their list/optional forms are supported;
    the arguments named in `mutates_args` (or every Tensor argument for "unknown") get
    `Tensor(a<i>!)` write annotations."""
    tables = _type_tables()
    sig = inspect.signature(prototype_function)
    mutates: str | tuple[str, ...] = mutates_args if isinstance(mutates_args, str) else tuple(mutates_args)

    def error_fn(what: str) -> typing.NoReturn:
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(annotation: object) -> object:
        if isinstance(annotation, str):
            try:
                return eval(annotation, prototype_function.__globals__)
            except NameError as e:
                error_fn(
                    f"Unsupported type annotation {annotation}. It is not a type. ({e}). If you are "
                    f"using 'from __future__ import annotations', note that annotations are evaluated "
                    f"lazily as strings; make sure all types referenced in annotations are importable "
                    f"at module scope, not only inside a local function."
                )
            except Exception as e:
                error_fn(
                    f"Unsupported type annotation {annotation}. It is not a type. ({type(e).__name__}: {e})"
                )
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is not None and any(isinstance(a, str) for a in args):
            return GenericAlias(origin, tuple(resolve(a) for a in args))
        return annotation

    params: list[str] = []
    seen: set[str] = set()
    saw_kwarg_only = False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg_only:
            params.append("*")
            saw_kwarg_only = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = resolve(param.annotation)
        schema_type = tables.params.get(annotation)
        if schema_type is None:
            if typing.get_origin(annotation) is tuple:
                items = typing.get_args(annotation)
                as_list: object = list
                if len(items) == 1 or (len(items) == 2 and items[1] is Ellipsis):
                    as_list = list[items[0]]  # type: ignore[valid-type]
                elif items:
                    as_list = list[typing.Union[items]]  # type: ignore[valid-type]  # noqa: UP007
                example = f"For example, {as_list}.\n\n" if as_list in tables.params else "\n\n"
                error_fn(
                    f"Parameter {name} has unsupported type {param.annotation}. We do not support Tuple "
                    f"inputs in schema. As a workaround, please try to use List instead. {example}"
                    f"The valid types are: {tables.params.keys()}."
                )
            error_fn(
                f"Parameter {name} has unsupported type {param.annotation}. "
                f"The valid types are: {tables.params.keys()}."
            )
        if isinstance(mutates, str):
            if mutates != _UNKNOWN_MUTATES:
                raise ValueError(
                    "mutates_args must either be a sequence of the names of the arguments that are "
                    "mutated or the string 'unknown'. "
                )
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor') :]}"
        elif name in mutates:
            if not schema_type.startswith("Tensor"):
                error_fn(
                    f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can "
                    f"be mutated"
                )
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor') :]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
            continue
        default = _default_text(param.default)
        if default is None:
            error_fn(
                f"Parameter {name} has an unsupported default value type {type(param.default)}. "
                f"Please file an issue on GitHub so we can prioritize this."
            )
        params.append(f"{schema_type} {name}={default}")
    if not isinstance(mutates, str):
        not_seen = set(mutates) - seen
        if not_seen:
            error_fn(
                f"{not_seen} in mutates_args were not found in the custom op's signature. mutates_args "
                f"should contain the names of all args that the custom op mutates, or just the string "
                f"'unknown' if you don't know."
            )
    ret = _parse_return(resolve(sig.return_annotation), tables.returns, error_fn)
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"


def _parse_return(
    annotation: object, table: dict[object, str], error_fn: Callable[[str], typing.NoReturn]
) -> str:
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        found = table.get(annotation)
        if found is None:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {table}.")
        return found
    items = typing.get_args(annotation)
    if any(item not in table for item in items):
        error_fn(f"Return has unsupported type {annotation}. The valid types are: {table}.")
    text = ", ".join(table[item] for item in items)
    return f"(({text}))" if len(items) == 1 else f"({text})"


# ---- schema facts ----------------------------------------------------------------------------


def _is_tensor_like(t: object) -> bool:
    """Tensor or Tensor? (PyTorch's is_tensor_like_type)."""
    return t == BaseType(BaseTy.Tensor) or t == OptionalType(BaseType(BaseTy.Tensor))


def _is_tensorlist_like(t: object) -> bool:
    inner = t.elem if isinstance(t, OptionalType) else t
    return isinstance(inner, ListType) and _is_tensor_like(inner.elem)


def is_functional_schema(schema: FunctionSchema, allow_valid_view: bool) -> bool:
    """PyTorch's is_functional_schema: writes nothing, returns something, and a view only when
    allowed and it is one Tensor of one Tensor."""
    if schema.is_mutable:
        return False
    if any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns):
        tensor = BaseType(BaseTy.Tensor)
        n_in = sum(a.type == tensor for a in schema.arguments)
        n_out = sum(r.type == tensor for r in schema.returns)
        return allow_valid_view and n_in == 1 and n_out == 1
    return bool(schema.returns)


def has_kwarg_only_tensors(schema: FunctionSchema) -> bool:
    return any(_is_tensor_like(a.type) or _is_tensorlist_like(a.type) for a in schema.kwarg_only_arguments)


def op_display_name(op: OperatorHandle) -> str:
    """How PyTorch prints an OpOverload: "ns.name.overload"."""
    return op.schema.name.replace("::", ".") + "." + (op.overload_name or "default")


def _fill_defaults(
    schema: FunctionSchema, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Every positional argument (defaults filled in) and every keyword-only one."""
    positional = schema.positional_arguments
    filled = args + tuple(a.default for a in positional[len(args) :])
    keywords = {a.name: kwargs.get(a.name, a.default) for a in schema.kwarg_only_arguments}
    return filled, keywords


def iter_tensors(values: Iterable[Any]) -> Iterator[Any]:
    """The tensors among `values`, those of lists and tuples included (one level)."""
    from framework._tensor import Tensor

    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


# ---- autograd --------------------------------------------------------------------------------


class _AutogradInfo(typing.Protocol):
    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


@dataclass
class Info:
    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


@dataclass
class _Metadata:
    keyset: DispatchKeySet
    keyword_only_args: dict[str, Any]
    list_lengths: tuple[int | None, ...]
    """For each positional argument, the length of the tensor list it was flattened from (None
    for an argument passed as itself)."""
    output_lengths: tuple[int | None, ...] = ()
    output_is_tuple: bool = False


def _unflatten(flat: Sequence[Any], lengths: Sequence[int | None]) -> list[Any]:
    out: list[Any] = []
    i = 0
    for n in lengths:
        if n is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i : i + n]))
            i += n
    return out


def make_autograd_impl(op: OperatorHandle, info: _AutogradInfo) -> Callable[..., Any]:
    """The Autograd kernel of a custom operator: an autograd.Function named
    `GeneratedBackwardFor_<ns>_<name>_<overload>` whose backward is `info._backward_fn` (tensor
    list arguments and returns are flattened into the Function's inputs and outputs)."""
    from framework.autograd import grad_mode
    from framework.autograd.function import Function
    from framework.autograd.variable import requires_grad

    schema = op.schema
    ns, _, base = schema.name.partition("::")
    name = f"GeneratedBackwardFor_{ns}_{base}_{op.overload_name or 'default'}"
    has_kwarg_only = bool(schema.kwarg_only_arguments)
    list_arguments = tuple(_is_tensorlist_like(a.type) for a in schema.positional_arguments)

    def run(metadata: _Metadata, args: Sequence[Any]) -> Any:
        with AutoDispatchBelowAutograd():
            return op.redispatch(metadata.keyset & AFTER_AUTOGRAD_KEYS, *args, **metadata.keyword_only_args)

    def forward(ctx: Any, *flat: Any) -> Any:
        metadata: _Metadata = flat[-1]
        args = tuple(_unflatten(flat[:-1], metadata.list_lengths))
        result = run(metadata, args)
        if info._setup_context_fn is not None:
            inputs, keywords = _fill_defaults(schema, args, metadata.keyword_only_args)
            if has_kwarg_only:
                info._setup_context_fn(ctx=ctx, inputs=inputs, keyword_only_inputs=keywords, output=result)
            else:
                info._setup_context_fn(ctx=ctx, inputs=inputs, output=result)
        metadata.output_is_tuple = isinstance(result, tuple)
        outputs = result if metadata.output_is_tuple else (result,)
        metadata.output_lengths = tuple(len(o) if isinstance(o, list) else None for o in outputs)
        ctx._pt_metadata = metadata
        return tuple(x for o in outputs for x in (o if isinstance(o, list) else (o,)))

    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        if info._backward_fn is None:
            raise RuntimeError(
                f"Trying to backward through {op_display_name(op)} but no autograd formula was registered. "
                f"Please use register_autograd to add one."
            )
        metadata: _Metadata = ctx._pt_metadata
        previous = ctx.needs_input_grad
        ctx.needs_input_grad = tuple(_unflatten(previous[:-1], metadata.list_lengths))
        try:
            result = info._backward_fn(ctx, *_unflatten(grads, metadata.output_lengths))
        finally:
            ctx.needs_input_grad = previous
        result = result if isinstance(result, tuple) else (result,)
        flat: list[Any] = []
        for lengths, g in zip(metadata.list_lengths, result, strict=False):
            if lengths is None:
                flat.append(g)
            else:
                flat.extend([None] * lengths if g is None else g)
        return (*flat, None)

    generated: type[Function] = type(
        name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    )

    def autograd_impl(keyset: DispatchKeySet, *args: Any, **keyword_only_args: Any) -> Any:
        flat: list[Any] = []
        lengths: list[int | None] = []
        for is_list, a in zip(list_arguments, args, strict=False):
            if is_list and isinstance(a, (list, tuple)):
                flat.extend(a)
                lengths.append(len(a))
            else:
                flat.append(a)
                lengths.append(None)
        metadata = _Metadata(keyset, keyword_only_args, tuple(lengths))
        if not (grad_mode.is_grad_enabled() and any(requires_grad(t) for t in iter_tensors(args))):
            return run(metadata, args)
        outputs = generated.apply(*flat, metadata)
        grouped = _unflatten(outputs, metadata.output_lengths)
        return tuple(grouped) if metadata.output_is_tuple else grouped[0]

    return autograd_impl


# ---- fake kernels and get_ctx ----------------------------------------------------------------


class _CtxGetter:
    getter: Callable[[], Any] = staticmethod(lambda: None)


def get_ctx() -> Any:
    """The context of the running fake implementation (PyTorch's FakeImplCtx).  Framework runs
    fake implementations only as Meta kernels, on meta tensors: there this raises PyTorch's error
    for data-dependent output shapes, which meta tensors cannot have; elsewhere it is None."""
    return _CtxGetter.getter()


def meta_kernel(qualname: str, fake: Callable[..., Any], source: str) -> Callable[..., Any]:
    """The Meta kernel running the fake implementation `fake` of `qualname`."""

    def error_on_ctx() -> typing.NoReturn:
        raise RuntimeError(
            f"{qualname} ({source}): You're trying to run this operator with meta Tensors (as "
            f"opposed to FakeTensors), but this operator may return an output Tensor with "
            f"data-dependent shape. Meta Tensors don't support operators with outputs that have "
            f"data-dependent shapes but FakeTensors do. If your operator does not return an output "
            f"with data-dependent shape, make sure the FakeTensor and/or meta kernel does not call "
            f"torch.library.get_ctx(). Otherwise, please use FakeTensors."
        )

    def kernel(*args: Any, **kwargs: Any) -> Any:
        previous = _CtxGetter.getter
        _CtxGetter.getter = error_on_ctx
        try:
            return fake(*args, **kwargs)
        finally:
            _CtxGetter.getter = previous

    FAKE_SOURCES[kernel] = source
    return kernel


FAKE_SOURCES: Final[weakref.WeakKeyDictionary[Callable[..., Any], str]] = weakref.WeakKeyDictionary()
"""Where each Meta kernel made from a fake implementation was registered."""


# ---- device types and autocast ---------------------------------------------------------------


def device_type_key(device_type: str) -> DispatchKey | None:
    """The backend key of `device_type` ("cpu" -> CPU); None for a device type PyTorch has that
    framework has no tensors on ("cuda", "mps"...), whose kernels can never be reached."""
    from framework.c10.device import Device
    from framework.c10.tensor_impl import backend_key_for_device

    if device_type in _TORCH_DEVICE_TYPES and device_type not in ("cpu", "meta", "privateuseone"):
        return None
    try:
        return backend_key_for_device(Device(device_type))
    except RuntimeError:
        raise RuntimeError(
            f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start of device string: "
            f"{device_type}"
        ) from None


def _cast(value: Any, device_type: str, to: dtype) -> Any:
    """`value` with its floating-point tensors on `device_type` other than float64 cast to `to`
    (inside lists and tuples too), as a custom operator's autocast kernel casts its inputs."""
    from framework._tensor import Tensor
    from framework.c10.dtypes import float64

    if isinstance(value, Tensor):
        eligible = (
            value.is_floating_point() and value.device.type == device_type and value.dtype is not float64
        )
        return value.to(to) if eligible else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, to) for v in value)
    return value


def autocast_kernel(op: OperatorHandle, device_type: str, cast_inputs: dtype) -> Callable[..., Any]:
    """An Autocast<device> kernel casting the inputs of `op` to `cast_inputs`, then calling it
    again with the autocast key excluded."""
    key = DispatchKeySet(DispatchKey.AutocastCPU)

    def kernel(_keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise AssertionError(f"Custom ops do not support kwargs yet, got {list(kwargs.keys())}")
        with ExcludeDispatchKeyGuard(key):
            return op(*_cast(args, device_type, cast_inputs))

    return kernel


def check_autocast_device(device_type: object) -> str:
    from framework.amp.autocast_mode import is_autocast_available

    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if not is_autocast_available(device_type):
        raise ValueError(f"Device type '{device_type}' does not support autocast.")
    return device_type


# ---- custom_op -------------------------------------------------------------------------------


_OPDEF_TO_LIB: Final[dict[str, Library]] = {}
OPDEFS: Final[weakref.WeakValueDictionary[str, CustomOpDef]] = weakref.WeakValueDictionary()


def _library_allowing_overwrite(namespace: str, name: str) -> Library:
    qualname = f"{namespace}::{name}"
    previous = _OPDEF_TO_LIB.pop(qualname, None)
    if previous is not None:
        previous._destroy()
    lib = _OPDEF_TO_LIB[qualname] = Library(namespace, "FRAGMENT")
    return lib


def _alias_error(name: str, fn: Callable[..., Any]) -> RuntimeError:
    return RuntimeError(
        f"{name} (with implementation in {inspect.getmodule(fn)}): The output of this custom operator "
        f"(1) must not also be an input to this custom operator and (2) may not alias any inputs to this "
        f"custom operator or other returns. The most common way to trigger this error is if we have y = "
        f"custom_op(x) and y and x are the same Tensor. Please instead return a clone of the offending "
        f"output tensor(s) (e.g. return x.clone()) or refactor the custom operator to not return y."
    )


def _check_aliasing(
    name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
) -> None:
    """Refuse outputs that are, or share storage with, an input or another output."""
    storages = {id(t._impl.storage) for t in iter_tensors((*args, *kwargs.values()))}
    for t in iter_tensors(result if isinstance(result, tuple) else (result,)):
        key = id(t._impl.storage)
        if key in storages:
            raise _alias_error(name, fn)
        storages.add(key)


def _version_bump_kernel(op: OperatorHandle) -> Callable[..., Any]:
    """ADInplaceOrView for a custom operator writing its `(a!)` arguments: bump their versions,
    then run the kernels below (which see ADInplaceOrView again, as in PyTorch)."""
    schema = op.schema
    written = [
        (i, a) for i, a in enumerate(schema.arguments) if a.alias_info is not None and a.alias_info.is_write
    ]

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        positional, keywords = _fill_defaults(schema, args, kwargs)
        for i, a in written:
            for t in iter_tensors((keywords[a.name] if a.kwarg_only else positional[i],)):
                t._impl.version_counter.bump()
        return op.redispatch(keyset & AFTER_AD_INPLACE_OR_VIEW_KEYS, *args, **kwargs)

    return kernel


class CustomOpDef:
    """A Python function made an operator by `custom_op`: call it like the function; register
    more behaviour with its methods.  Don't instantiate it directly."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable[..., Any]) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._init_fn = fn
        self._backend_fns: dict[str | None, Callable[..., Any]] = {}
        self._abstract_fn: Callable[..., Any] | None = None
        self._setup_context_fn: Callable[..., Any] | None = None
        self._backward_fn: Callable[..., Any] | None = None
        self._autocast_dtype: dict[str, dtype | None] = {}
        self._disabled_kernel: set[str | None] = set()
        self._lib = _library_allowing_overwrite(namespace, name)
        self._register_to_dispatcher()
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    @property
    def _opoverload(self) -> OpOverload:
        """`framework.ops.<ns>.<name>.default`."""
        import framework

        overload: OpOverload = getattr(getattr(framework.ops, self._namespace), self._name).default
        return overload

    def _register_to_dispatcher(self) -> None:
        schema_str = self._name + self._schema
        parsed = parse_schema(schema_str)
        if has_kwarg_only_tensors(parsed):
            raise NotImplementedError(
                f"custom_op with kwarg-only Tensor args. Please make your tensors not kwarg-only. "
                f"Got: {schema_str}"
            )
        self._lib.define(schema_str)
        self._handle = self._lib._find(self._name)
        self._lib.impl(self._handle, meta_kernel(self._qualname, self._fake_impl, "custom_op"), "Meta")
        self._lib.impl(self._handle, make_autograd_impl(self._handle, self), "Autograd", with_keyset=True)
        if parsed.is_mutable:
            self._lib.impl(
                self._handle, _version_bump_kernel(self._handle), "ADInplaceOrView", with_keyset=True
            )

    def _fake_impl(self, *args: Any, **kwargs: Any) -> Any:
        if self._abstract_fn is not None:
            return self._abstract_fn(*args, **kwargs)
        schema = self._handle.schema
        if schema.is_mutable and not schema.returns:
            return None
        raise RuntimeError(
            f"There was no fake impl registered for {self}. This is necessary for torch.compile/export/fx "
            f"tracing to work. Please use `{self._init_fn.__name__}.register_fake` to add an fake impl."
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._handle(*args, **kwargs)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True) -> Iterator[None]:
        """Within the block, turn the kernel registered for `device_type` off (the function the
        operator was made from runs instead) or back on."""
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning(
                "Attempted to %s kernel for %s but no kernel was registered for this device type.",
                action,
                device_type,
            )
        if not enabled:
            if originally_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.", device_type)
            else:
                self._disabled_kernel.add(device_type)
        elif not originally_disabled:
            log.warning("Attempted to enable kernel for  %s but it was already enabled.", device_type)
        else:
            self._disabled_kernel.remove(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    @overload
    def register_kernel(self, device_types: device_types_t, fn: None = None, /) -> Callable[[F], F]: ...

    @overload
    def register_kernel(self, device_types: device_types_t, fn: F, /) -> F: ...

    def register_kernel(self, device_types: device_types_t, fn: F | None = None, /) -> F | Callable[[F], F]:
        """Register `fn` as the operator's kernel for `device_types` ("cpu", "meta"...; None for
        every device type).  Usable as a decorator."""
        schema = self._handle.schema
        if device_types is not None and not any(
            _is_tensor_like(a.type) or _is_tensorlist_like(a.type) for a in schema.arguments
        ):
            index = next(
                (
                    i
                    for i, a in enumerate(schema.arguments)
                    if a.name == "device" and a.type == BaseType(BaseTy.Device)
                ),
                None,
            )
            if index is None:
                raise ValueError(
                    "Functions without tensor inputs are required to have a `device: torch.device` argument"
                )
            self._register_backend_select(index)

        def inner(f: F) -> F:
            types: list[str | None] = (
                [device_types]
                if device_types is None or isinstance(device_types, str)
                else list(device_types)
            )
            for device_type in types:
                if device_type not in self._backend_fns:
                    key = (
                        DispatchKey.CompositeExplicitAutograd
                        if device_type is None
                        else device_type_key(device_type)
                    )
                    if key is not None:
                        self._lib.impl(self._handle, self._backend_impl(device_type), key)
                self._backend_fns[device_type] = self._enabled_or_init(device_type, f)
            return f

        return inner if fn is None else inner(fn)

    def _enabled_or_init(self, device_type: str | None, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if device_type in self._disabled_kernel:
                return self._init_fn(*args, **kwargs)
            return fn(*args, **kwargs)

        wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapped

    def _backend_impl(self, device_type: str | None) -> Callable[..., Any]:
        def backend_impl(*args: Any, **kwargs: Any) -> Any:
            fn = self._backend_fns[device_type]
            result = fn(*args, **kwargs)
            _check_aliasing(self._name, inspect.unwrap(fn), args, kwargs, result)
            return result

        return backend_impl

    def _register_backend_select(self, device_arg_index: int) -> None:
        def backend_select(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
            from framework.c10.device import Device

            device = Device(args[device_arg_index]).type
            if device not in self._backend_fns:
                raise RuntimeError(
                    f"{self._name} does not have a kernel registered for {device}. Please use "
                    f"register_kernel to do so."
                )
            key = device_type_key(device)
            assert key is not None
            return self._handle.redispatch(DispatchKeySet(key), *args, **kwargs)

        self._lib.impl(self._handle, backend_select, "BackendSelect", with_keyset=True)

    def register_fake(self, fn: F, /) -> F:
        """Register the operator's fake implementation: given meta tensors, it returns meta
        tensors of the shapes/dtypes the real kernel would (framework runs it as the Meta kernel)."""
        self._abstract_fn = fn
        return fn

    def register_autograd(
        self, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None
    ) -> None:
        """Give the operator a derivative: `setup_context(ctx, inputs, output)` (plus
        `keyword_only_inputs=` when the operator has keyword-only arguments) saves what
        `backward(ctx, *grads)` needs; backward returns a gradient (or None) per positional input."""
        schema = self._handle.schema
        if not is_functional_schema(schema, allow_valid_view=True):
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator {self} with schema "
                f"{schema}. Please create a functional operator and register an autograd formula for that."
            )
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def register_autocast(self, device_type: str, cast_inputs: dtype) -> Callable[..., Any]:
        """Under autocast on `device_type`, cast the operator's floating-point inputs (float64
        excepted) to `cast_inputs` before running it."""
        check_autocast_device(device_type)
        need_register = self._autocast_dtype.get(device_type) is None
        if need_register:
            self._autocast_dtype[device_type] = cast_inputs
        kernel = autocast_kernel(self._handle, device_type, cast_inputs)
        if need_register and device_type == "cpu":
            self._lib.impl(self._handle, kernel, "AutocastCPU", with_keyset=True)
        return kernel


@overload
def custom_op(
    name: str,
    fn: None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: device_types_t = None,
    schema: str | None = None,
) -> Callable[[Callable[..., object]], CustomOpDef]: ...


@overload
def custom_op(
    name: str,
    fn: Callable[..., object],
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: device_types_t = None,
    schema: str | None = None,
) -> CustomOpDef: ...


def custom_op(
    name: str,
    fn: Callable[..., object] | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: device_types_t = None,
    schema: str | None = None,
) -> Callable[[Callable[..., object]], CustomOpDef] | CustomOpDef:
    """Make the type-annotated function `fn` the operator `name` ("namespace::name"), as
    `torch.library.custom_op`: its schema is inferred from the annotations (or given as `schema`),
    `fn` becomes the kernel for `device_types` (every device type when None), and the returned
    `CustomOpDef` calls the operator.  `mutates_args` names the arguments `fn` writes ("unknown":
    any Tensor argument).  Usable as a decorator."""

    def inner(fn: Callable[..., object]) -> CustomOpDef:
        schema_str = infer_schema(fn, mutates_args=mutates_args) if schema is None else schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn)
        if schema is not None:
            expected = {
                a.name
                for a in result._handle.schema.arguments
                if a.alias_info is not None and a.alias_info.is_write
            }
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}which is "
                    f"different from what was provided to us in `mutates_args`. Please make these consistent."
                )
        result.register_kernel(device_types)(fn)
        return result

    return inner if fn is None else inner(fn)


def maybe_get_opdef(op: object) -> CustomOpDef | None:
    """The CustomOpDef `op` names ("ns::name", an OpOverload, or the CustomOpDef itself)."""
    from framework.ops._ops import OpOverload

    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, OpOverload):
        op = op.name.removesuffix(".default")
    return OPDEFS.get(op) if isinstance(op, str) else None


__all__ = ["CustomOpDef", "custom_op", "get_ctx", "infer_schema"]
