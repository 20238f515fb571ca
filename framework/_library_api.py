"""torch.library's module-level registration functions (`define`, `impl`, `register_kernel`,
`register_fake`, `register_autograd`, `register_autocast`) and `opcheck`.

Each takes an operator as "ns::name[.overload]", an OpOverload, or a CustomOpDef (whose own
methods then serve the call); registrations go through `lib` or, without one, a FRAGMENT library
kept for good."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, overload

from framework._custom_ops import (
    FAKE_SOURCES,
    CustomOpDef,
    Info,
    autocast_kernel,
    check_autocast_device,
    device_type_key,
    has_kwarg_only_tensors,
    is_functional_schema,
    iter_tensors,
    make_autograd_impl,
    maybe_get_opdef,
    meta_kernel,
    op_display_name,
)
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch_key import DispatchKey, parse_dispatch_key
from framework.library import Library, _caller_location, _library_for, _parse_namespace

if TYPE_CHECKING:
    from framework.c10.dtypes import dtype
    from framework.ops._ops import OpOverload, OpOverloadPacket

F = TypeVar("F", bound=Callable[..., Any])

_NAMELESS_SCHEMA: Final = re.compile(r"\(.*\) -> .*")


def _lookup(qualname: str) -> OperatorHandle:
    """The operator "ns::name[.overload]" (PyTorch's lookup_op: framework.ops attribute access)."""
    import framework

    namespace, name = _parse_namespace(qualname)
    base, _, overload_name = name.partition(".")
    overload: OpOverload = getattr(
        getattr(getattr(framework.ops, namespace), base), overload_name or "default"
    )
    return overload.handle


def _resolve(op: object, registration_name: str) -> str | CustomOpDef:
    from framework.ops._ops import OpOverload

    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        raise ValueError(f"{registration_name}({op}): got unexpected type for op: {type(op)}")
    opdef = maybe_get_opdef(op)
    if opdef is not None:
        return opdef
    return op.name.removesuffix(".default") if isinstance(op, OpOverload) else op


def _device_key(device_type: str) -> DispatchKey | None:
    """A dispatch key name as itself, "default" as CompositeExplicitAutograd, a device type as its
    backend key (None for one framework has no tensors on)."""
    if device_type == "default":
        return DispatchKey.CompositeExplicitAutograd
    try:
        return parse_dispatch_key(device_type)
    except (KeyError, ValueError, RuntimeError):
        return device_type_key(device_type)


def define(qualname: str, schema: str, *, lib: Library | None = None) -> None:
    """Define the operator `qualname` ("ns::name") with `schema` ("(Tensor x) -> Tensor")."""
    if not isinstance(qualname, str):
        raise ValueError(
            f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}"
        )
    namespace, name = _parse_namespace(qualname)
    if not _NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(
            f'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
            f'but got "{schema}"'
        )
    _library_for(namespace, lib).define(name + schema)


@overload
def impl(
    qualname: str, types: str | Sequence[str], func: None = None, *, lib: Library | None = None
) -> Callable[[F], F]: ...


@overload
def impl(
    qualname: str, types: str | Sequence[str], func: Callable[..., object], *, lib: Library | None = None
) -> None: ...


@overload
def impl(qualname: Library, types: str, func: str = "") -> Callable[[F], F]: ...


def impl(
    qualname: str | Library,
    types: str | Sequence[str],
    func: Callable[..., object] | str | None = None,
    *,
    lib: Library | None = None,
) -> Callable[[F], F] | None:
    """Register `func` as the kernel of `qualname` for `types` (device types such as "cpu",
    dispatch key names, or "default").  `impl(lib, name, dispatch_key)` is the older decorator
    form registering through `lib`."""
    if isinstance(qualname, Library):
        library, name = qualname, str(types)
        key = func if isinstance(func, str) else ""

        def register_on(f: F) -> F:
            library.impl(name, f, key)
            return f

        return register_on
    keys = {_device_key(t) for t in ((types,) if isinstance(types, str) else types)}
    target = qualname

    def register(f: F) -> F:
        use_lib = _library_for(_parse_namespace(target)[0], lib)
        for key in keys:
            if key is not None:
                use_lib.impl(target, f, key)
        return f

    if func is None:
        return register
    assert callable(func)
    register(func)
    return None


def register_kernel(
    op: str | OpOverload | CustomOpDef,
    device_types: str | Sequence[str] | None,
    func: F | None = None,
    /,
    *,
    lib: Library | None = None,
) -> Any:
    """Register `func` as the kernel of `op` for `device_types` (None: every device type)."""
    resolved = _resolve(op, "register_kernel")
    if isinstance(resolved, CustomOpDef):
        return resolved.register_kernel(device_types, func)
    return impl(
        resolved, "CompositeExplicitAutograd" if device_types is None else device_types, func, lib=lib
    )


def register_fake(
    op: str | OpOverload | CustomOpDef,
    func: F | None = None,
    /,
    *,
    lib: Library | None = None,
    _stacklevel: int = 1,
    allow_override: bool = True,
) -> Any:
    """Register `func` as the fake implementation of `op`: framework runs it as the Meta kernel.
    A newer one replaces the older; with `allow_override=False`, an operator that has a fake
    implementation, a Meta kernel or a CompositeImplicitAutograd kernel is refused."""
    resolved = _resolve(op, "register_fake")
    if isinstance(resolved, CustomOpDef):
        return resolved.register_fake if func is None else resolved.register_fake(func)
    qualname = resolved
    stacklevel = _stacklevel + (1 if func is not None else 0)

    def register(f: F) -> F:
        source = _caller_location(stacklevel)
        handle = _lookup(qualname)
        if not allow_override:
            _check_no_fake(qualname, handle)
        use_lib = _library_for(_parse_namespace(qualname)[0], lib)
        with warnings.catch_warnings():
            # A newer fake implementation replaces the older one silently, as in PyTorch.
            warnings.filterwarnings("ignore", "Overriding a previously registered kernel", UserWarning)
            use_lib.impl(handle, meta_kernel(qualname, f, source), "Meta")
        return f

    return register if func is None else register(func)


def _check_no_fake(qualname: str, handle: OperatorHandle) -> None:
    kernels = handle.entry.kernels
    for reg in kernels.get(DispatchKey.Meta, []):
        source = FAKE_SOURCES.get(reg.kernel.fn) if reg.kernel.fn is not None else None
        if source is not None:
            raise RuntimeError(
                f"register_fake(...): the operator {qualname} already has a fake impl registered at {source}."
            )
    if kernels.get(DispatchKey.Meta):
        raise RuntimeError(
            f"register_fake(...): the operator {qualname} already has a DispatchKey::Meta implementation "
            f"via a pre-existing torch.library or TORCH_LIBRARY registration. Please either remove that "
            f"registration or don't call register_fake."
        )
    if kernels.get(DispatchKey.CompositeImplicitAutograd):
        raise RuntimeError(
            f"register_fake(...): the operator {qualname} already has an implementation for this device "
            f"type via a pre-existing registration to DispatchKey::CompositeImplicitAutograd."
            f"CompositeImplicitAutograd operators do not need a fake impl; instead, the operator will "
            f"decompose into its constituents and those can have fake impls defined on them."
        )


def impl_abstract(
    qualname: str, func: F | None = None, *, lib: Library | None = None, _stacklevel: int = 1
) -> Any:
    """The former name of `register_fake` (deprecated)."""
    warnings.warn(
        "`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that "
        "instead; we will remove `torch.library.impl_abstract` in a future version of PyTorch.",
        FutureWarning,
        stacklevel=2,
    )
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + (1 if func is not None else 0))


def register_autograd(
    op: str | OpOverload | CustomOpDef,
    backward: Callable[..., Any],
    /,
    *,
    setup_context: Callable[..., Any] | None = None,
    lib: Library | None = None,
) -> None:
    """Give `op` a derivative: `setup_context(ctx, inputs, output)` (plus `keyword_only_inputs=`
    when `op` has keyword-only arguments) saves what `backward(ctx, *grads)` needs; backward
    returns one gradient (or None) per positional input.  The node is named
    `GeneratedBackwardFor_<ns>_<name>_<overload>Backward`, as PyTorch's."""
    resolved = _resolve(op, "register_autograd")
    if isinstance(resolved, CustomOpDef):
        resolved.register_autograd(backward, setup_context=setup_context)
        return
    handle = _lookup(resolved)
    schema = handle.schema
    if not is_functional_schema(schema, allow_valid_view=False):
        raise RuntimeError(
            f"Cannot register autograd formula for non-functional operator {op_display_name(handle)} "
            f"with schema "
            f"{schema}. Please create a functional operator and register an autograd formula for that."
        )
    if has_kwarg_only_tensors(schema):
        raise NotImplementedError(
            f"register_autograd with kwarg-only Tensor args. In the original definition of the op, please "
            f"make your tensors not kwarg-only. Got: {schema}"
        )
    kernel = make_autograd_impl(handle, Info(backward, setup_context))
    _library_for(schema.namespace, lib).impl(handle, kernel, "Autograd", with_keyset=True)


def register_autocast(
    op: str | OpOverload | CustomOpDef,
    device_type: str,
    cast_inputs: dtype,
    /,
    *,
    lib: Library | None = None,
) -> Any:
    """Under autocast on `device_type`, cast the floating-point inputs of `op` (float64 excepted)
    to `cast_inputs` before running it."""
    resolved = _resolve(op, "register_autocast")
    check_autocast_device(device_type)
    if isinstance(resolved, CustomOpDef):
        return resolved.register_autocast(device_type, cast_inputs)
    handle = _lookup(resolved)
    kernel = autocast_kernel(handle, device_type, cast_inputs)
    if device_type == "cpu":
        _library_for(handle.schema.namespace, lib).impl(handle, kernel, "AutocastCPU", with_keyset=True)
    return None


# ---- opcheck ---------------------------------------------------------------------------------


class OpCheckError(Exception):
    """A check of `opcheck` failed."""


class MetadataMismatchError(Exception):
    """The fake implementation's output differs from the real kernel's in shape, dtype or count."""


def _copy(value: Any) -> Any:
    from framework._tensor import Tensor

    if isinstance(value, Tensor):
        copied = value.detach().clone()
        return copied.requires_grad_(value.requires_grad) if value.is_leaf else copied
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _is_abstract(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return any(t.device.type == "meta" for t in iter_tensors((*args, *kwargs.values())))


def _bound(
    handle: OperatorHandle, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, bool, Any]]:
    """(name, written, value) of each argument passed."""
    out = []
    for i, a in enumerate(handle.schema.arguments):
        if i < len(args) and not a.kwarg_only:
            value = args[i]
        elif a.name in kwargs:
            value = kwargs[a.name]
        else:
            continue
        out.append((a.name, a.alias_info is not None and a.alias_info.is_write, value))
    return out


def _test_schema(handle: OperatorHandle, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Run the operator and refuse writes to, and outputs aliasing, arguments its schema does not
    declare so (PyTorch's SchemaCheckMode)."""
    import numpy as np

    args, kwargs = _copy((args, kwargs))
    if _is_abstract(args, kwargs):
        return
    bound = _bound(handle, args, kwargs)
    before = [[t.detach().numpy().copy() for t in iter_tensors((v,))] for _, _, v in bound]
    result = handle(*args, **kwargs)
    outputs = list(iter_tensors(result if isinstance(result, tuple) else (result,)))
    for (name, written, value), old in zip(bound, before, strict=True):
        shown = "input" if name == "self" else name
        now = [t.detach().numpy() for t in iter_tensors((value,))]
        mutated = any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(old, now, strict=True))
        if mutated and not written:
            raise RuntimeError(f"Argument {shown} is not defined as mutable but was mutated")
        storages = {id(t._impl.storage) for t in iter_tensors((value,))}
        if not written and any(id(o._impl.storage) in storages for o in outputs):
            raise RuntimeError(f"Argument {shown} is not defined to alias output but was aliasing")
    for i, a in enumerate(outputs):
        for j in range(i + 1, len(outputs)):
            if a._impl.storage is outputs[j]._impl.storage:
                raise RuntimeError(f"Outputs {i} and {j} alias unexpectedly")


def _test_autograd_registration(
    handle: OperatorHandle, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Refuse an operator whose outputs require grad although it has no kernel at an autograd key
    (its derivative would come from a kernel below autograd)."""
    if _is_abstract(args, kwargs):
        return
    args, kwargs = _copy((args, kwargs))
    tensors = list(iter_tensors((*args, *kwargs.values())))
    if not any(t.requires_grad for t in tensors):
        return
    registered = set(handle.entry.registered_keys())
    if registered & {DispatchKey.AutogradCPU, DispatchKey.Autograd, DispatchKey.CompositeImplicitAutograd}:
        return
    inputs = {id(t) for t in tensors}
    result = handle(*args, **kwargs)
    if any(
        t.requires_grad and id(t) not in inputs
        for t in iter_tensors(result if isinstance(result, tuple) else (result,))
    ):
        raise AssertionError(
            f"{handle.qualified_name}: at least one output of this operator has requires_grad=True but the "
            f"operator does not have an autograd kernel defined at an autograd key (e.g. "
            f"DispatchKey::Autograd). This could mean that you have incorrectly registered an autograd "
            f"kernel to a non-Autograd DispatchKey, which may lead to silently incorrect results. If your "
            f"operator consists of regular PyTorch operations, consider not using an operator at all or "
            f"registering your operator as CompositeImplicitAutograd. If you have an autograd.Function "
            f"registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the Autograd key."
        )


def _to_meta(value: Any) -> Any:
    from framework._tensor import Tensor

    if isinstance(value, Tensor):
        return value.detach().to("meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_meta(v) for v in value)
    return value


def _aliases(outputs: tuple[Any, ...], inputs: tuple[Any, ...]) -> bool:
    """Whether an output shares storage with a tensor of `inputs` ((args, kwargs)), or, with no
    inputs, with another output."""
    if inputs:
        args, kwargs = inputs
        storages = {id(t._impl.storage) for t in iter_tensors((*args, *kwargs.values()))}
        return any(id(t._impl.storage) in storages for t in iter_tensors(outputs))
    ids = [id(t._impl.storage) for t in iter_tensors(outputs)]
    return len(set(ids)) != len(ids)


def _identical(outputs: tuple[Any, ...], inputs: tuple[Any, ...]) -> bool:
    args, kwargs = inputs
    ids = {id(t) for t in iter_tensors((*args, *kwargs.values()))}
    return any(id(t) in ids for t in iter_tensors(outputs))


def _test_faketensor(handle: OperatorHandle, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Run the operator on copies of the inputs, then on meta copies (its fake implementation),
    and compare the outputs' count, shapes and dtypes."""
    if _is_abstract(args, kwargs):
        return
    args, kwargs = _copy((args, kwargs))
    fake_args, fake_kwargs = _to_meta((args, kwargs))
    fake = handle(*fake_args, **fake_kwargs)
    real = handle(*args, **kwargs)
    name = op_display_name(handle)
    context = f"When comparing the output of {name} on FakeTensor and concrete Tensors, found"
    fakes = fake if isinstance(fake, tuple) else (fake,)
    reals = real if isinstance(real, tuple) else (real,)
    for check, f_value, r_value in (
        ("outputs_alias_inputs", _aliases(fakes, (fake_args, fake_kwargs)), _aliases(reals, (args, kwargs))),
        (
            "outputs_are_inputs",
            _identical(fakes, (fake_args, fake_kwargs)),
            _identical(reals, (args, kwargs)),
        ),
        ("outputs_alias_each_other", _aliases(fakes, ()), _aliases(reals, ())),
    ):
        if f_value != r_value:
            raise MetadataMismatchError(f"{context} mismatch in {check} check {f_value} != {r_value}")
    if len(fakes) != len(reals):
        raise AssertionError(f"{context} mismatch in number of returns {len(fakes)} != {len(reals)}")
    f_tensors, r_tensors = list(iter_tensors(fakes)), list(iter_tensors(reals))
    if len(f_tensors) != len(r_tensors):
        raise AssertionError(f"{context} mismatched number of tensor outputs")
    for r, f in zip(r_tensors, f_tensors, strict=True):
        if r.shape != f.shape:
            raise MetadataMismatchError(
                f"{context} mismatched tensor metadata: Shapes {r.shape} and {f.shape} are not equal!"
            )
        if r.dtype != f.dtype:
            raise MetadataMismatchError(
                f"{context} mismatched tensor metadata: Dtypes {r.dtype} and {f.dtype} are not equal!"
            )


_TEST_UTILS: Final[dict[str, Callable[[OperatorHandle, tuple[Any, ...], dict[str, Any]], None]]] = {
    "test_schema": _test_schema,
    "test_autograd_registration": _test_autograd_registration,
    "test_faketensor": _test_faketensor,
}
_DEFAULT_UTILS: Final = tuple(_TEST_UTILS)


def opcheck(
    op: OpOverload | OpOverloadPacket | CustomOpDef,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    test_utils: str | Sequence[str] = _DEFAULT_UTILS,
    raise_exception: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
) -> dict[str, Any]:
    """Check that `op` is registered correctly by calling it on `args`/`kwargs`, as
    `torch.library.opcheck`: "test_schema" (it writes only the arguments its schema marks
    `(a!)`, its outputs alias no input), "test_autograd_registration" (outputs requiring grad
    come from an autograd kernel), "test_faketensor" (the fake implementation gives the real
    outputs' count, shapes and dtypes).  Returns {test: "SUCCESS" or the exception}; the first
    failure raises OpCheckError when `raise_exception`.  (Framework has no AOT dispatcher: PyTorch's
    test_aot_dispatch_* checks are not available.)"""
    from framework.ops._ops import OpOverload, OpOverloadPacket

    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        overloads = op.overloads()
        if len(overloads) != 1:
            raise ValueError(
                f"opcheck(op, ...): op must be an OpOverload when the OpOverloadPacket has more than one "
                f"overload (got {overloads})"
            )
        op = getattr(op, overloads[0])
    if not isinstance(op, OpOverload):
        raise ValueError(
            f"opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
            f"torch.ops.aten.sin.default, got {type(op)}"
        )
    utils: str | Sequence[str] = tuple(_TEST_UTILS) if test_utils == "ALL" else test_utils
    if isinstance(utils, str):
        utils = (utils,)
    if not isinstance(utils, (tuple, list)) or not set(utils).issubset(_TEST_UTILS):
        raise ValueError(
            f"opcheck(op, ..., test_utils={utils}), expected test_utils to be subset of "
            f"{tuple(_TEST_UTILS)} but it was not"
        )
    results: dict[str, Any] = {}
    for name in utils:
        try:
            _TEST_UTILS[name](op.handle, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(
                    f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)"
                ) from ex
            results[name] = ex
    return results


__all__ = [
    "define",
    "impl",
    "impl_abstract",
    "opcheck",
    "register_autocast",
    "register_autograd",
    "register_fake",
    "register_kernel",
]
