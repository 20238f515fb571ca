"""`Module`: the base class of layers, with PyTorch's registration of parameters, buffers and
submodules, traversal, modes, conversion, state dicts, forward hooks and printing."""

from __future__ import annotations

import functools
import itertools
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, NamedTuple, TypeVar

from framework import no_grad
from framework._tensor import Tensor
from framework.autograd.graph import RemovableHandle, _HookDict, add_hook
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn.functional import _size
from framework.nn.parameter import Buffer, Parameter

__all__ = ["Module", "typename"]

T = TypeVar("T", bound="Module")


def typename(obj: object) -> str:
    """How PyTorch names a value's type in messages (`torch.typename`): `torch.FloatTensor` for
    a float32 tensor, `int`, `framework.nn.modules.linear.Linear`."""
    if isinstance(obj, Tensor):
        return f"torch.{obj.dtype.scalar_type_name}Tensor"
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """`text` with every line but the first indented by `spaces`."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first, *(pad + line for line in rest)])


def _add_hook(hooks: _HookDict, hook: Callable[..., Any], prepend: bool) -> RemovableHandle:
    """Register `hook` last in `hooks` (first when `prepend`)."""
    handle = add_hook(hooks, hook)
    if prepend:
        others = [(key, value) for key, value in hooks.items() if key != handle.id]
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(others)
    return handle


def _check_member_name(kind: str, name: object, module: Module, *, dotted_detail: bool = False) -> None:
    """PyTorch's checks of a parameter/buffer/module name before registration."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(
            f'{kind} name can\'t contain ".", got: {name}'
            if dotted_detail
            else f'{kind} name can\'t contain "."'
        )
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in module._member_dict(kind):
        raise KeyError(f"attribute '{name}' already exists")


class _WrappedHook:
    """A load-state-dict pre-hook, given its module (held weakly) first when there is one."""

    def __init__(self, hook: Callable[..., Any], module: Module | None = None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.module is None:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with the module itself (a weak reference does not pickle)."""
        return {"hook": self.hook, "module": None if self.module is None else self.module()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.hook = state["hook"]
        self.module = None if state["module"] is None else weakref.ref(state["module"])


class _IncompatibleKeys(NamedTuple):
    """What `load_state_dict` returns: the keys the model has and the dict lacked, and the keys
    the dict had and the model lacks."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Device | None, DType | None, bool]:
    """The device, dtype and non_blocking of a `Module.to(...)` call (as `Tensor.to` takes them)."""
    device: Device | str | None = kwargs.pop("device", None)
    dtype: DType | None = kwargs.pop("dtype", None)
    non_blocking: bool = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(
            f"to() received an invalid combination of arguments - got unexpected {sorted(kwargs)}"
        )
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        tensor = rest.pop(0)
        device, dtype = tensor.device, tensor.dtype
    if rest and isinstance(rest[0], (str, Device)):
        device = rest.pop(0)
    if rest and isinstance(rest[0], DType):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments - got {tuple(args)}")
    return (None if device is None else Device(device)), dtype, non_blocking


def _forward_unimplemented(self: Module, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """The base class of every layer: assign `Parameter`s, buffers and submodules as attributes in
    `__init__`, compute in `forward`, call the module itself."""

    _version: ClassVar[int] = 1
    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_pre_hooks: _HookDict
    _forward_pre_hooks_with_kwargs: set[int]
    _forward_hooks: _HookDict
    _forward_hooks_with_kwargs: set[int]
    _forward_hooks_always_called: set[int]
    _state_dict_pre_hooks: _HookDict
    _state_dict_hooks: _HookDict
    _load_state_dict_pre_hooks: _HookDict
    _load_state_dict_post_hooks: _HookDict

    def __init__(self) -> None:
        for name, value in (
            ("training", True),
            ("_parameters", {}),
            ("_buffers", {}),
            ("_non_persistent_buffers_set", set()),
            ("_modules", {}),
            ("_forward_pre_hooks", _HookDict()),
            ("_forward_pre_hooks_with_kwargs", set()),
            ("_forward_hooks", _HookDict()),
            ("_forward_hooks_with_kwargs", set()),
            ("_forward_hooks_always_called", set()),
            ("_state_dict_pre_hooks", _HookDict()),
            ("_state_dict_hooks", _HookDict()),
            ("_load_state_dict_pre_hooks", _HookDict()),
            ("_load_state_dict_post_hooks", _HookDict()),
        ):
            object.__setattr__(self, name, value)

    forward: Callable[..., Any] = _forward_unimplemented

    # ---- registration ---------------------------------------------------------------------------

    def _member_dict(self, kind: str) -> Mapping[str, object]:
        tables: dict[str, Mapping[str, object]] = {
            "parameter": self._parameters,
            "buffer": self._buffers,
            "module": self._modules,
        }
        return tables[kind]

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: module state that is not a parameter (in `state_dict()` when `persistent`)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name, self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None "
                "required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (None leaves a slot that `parameters()` skips)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name, self)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' (torch.nn.Parameter or None "
                "required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module (None leaves a slot that `children()` skips)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _check_member_name("module", name, self, dotted_detail=True)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path `target` ("" is the module itself)."""
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            child = getattr(module, item)
            if not isinstance(child, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
            module = child
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        buffer: Tensor = getattr(module, name)
        return buffer

    # ---- attribute protocol ---------------------------------------------------------------------

    def __getattr__(self, name: str) -> Tensor | Module:
        for table in ("_parameters", "_buffers", "_modules"):
            members = self.__dict__.get(table)
            if members is not None and name in members:
                value: Tensor | Module = members[name]
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _forget(self, name: str, *tables: str) -> None:
        """Remove `name` from the named member tables ("__dict__": the plain attributes)."""
        for table in tables:
            members = self.__dict__ if table == "__dict__" else self.__dict__.get(table)
            if members is not None and name in members:
                if isinstance(members, set):
                    members.discard(name)
                else:
                    del members[name]

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "__dict__", "_buffers", "_modules", "_non_persistent_buffers_set")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or None "
                    "expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._forget(name, "__dict__", "_parameters", "_buffers", "_non_persistent_buffers_set")
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{typename(value)}' as child module '{name}' (torch.nn.Module or "
                        "None expected)"
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{typename(value)}' as buffer '{name}' (torch.nn.Buffer, "
                            "torch.Tensor or None expected)"
                        )
                    persistent = (
                        value.persistent
                        if isinstance(value, Buffer)
                        else name not in self._non_persistent_buffers_set
                    )
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[table]:
                self._forget(name, table, "_non_persistent_buffers_set")
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = [*super().__dir__(), *self._parameters, *self._modules, *self._buffers]
        return sorted(name for name in set(names) if not name[0].isdigit())

    # ---- traversal ------------------------------------------------------------------------------

    def _named_members(
        self,
        members: Callable[[Module], Iterator[tuple[str, Any]]],
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(name, parameter) pairs, dotted names from the submodules when `recurse`."""
        return self._named_members(
            lambda module: iter(module._parameters.items()), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(name, buffer) pairs, dotted names from the submodules when `recurse`."""
        return self._named_members(
            lambda module: iter(module._buffers.items()), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(name, module) for this module ("" or `prefix`) and every submodule, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(
                    memo, prefix + ("." if prefix else "") + name, remove_duplicate
                )

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    # ---- modes and gradients --------------------------------------------------------------------

    def train(self: T, mode: bool = True) -> T:
        """Set training mode (`eval()` is `train(False)`) here and in every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: T) -> T:
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the parameters' gradients (or zero them in place when `set_to_none` is False)."""
        for param in self.parameters():
            zero_grad_of(param, set_to_none)

    # ---- conversion -----------------------------------------------------------------------------

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Call `fn` on every submodule, then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self: T, fn: Callable[[Tensor], Tensor]) -> T:
        """Replace every parameter's (and its gradient's) data with `fn` of it, and every buffer with
        `fn` of it; parameters stay the same objects."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                grad = param.grad
                if grad is not None:
                    grad.data = fn(grad)
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self

    def to(self: T, *args: Any, **kwargs: Any) -> T:
        """Move/cast parameters and buffers: `to(device)`, `to(dtype)`, `to(device, dtype)`,
        `to(tensor)`; only floating-point tensors change dtype."""
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype=torch.{dtype.name}"
            )

        def convert(t: Tensor) -> Tensor:
            keep = not (t.dtype.is_floating_point or t.dtype.is_complex)
            return t.to(device=device, dtype=None if keep else dtype, non_blocking=non_blocking)

        return self._apply(convert)

    def _cast_floating(self: T, dtype: DType) -> T:
        return self._apply(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self: T) -> T:
        from framework import float32

        return self._cast_floating(float32)

    def double(self: T) -> T:
        from framework import float64

        return self._cast_floating(float64)

    def half(self: T) -> T:
        from framework import float16

        return self._cast_floating(float16)

    def bfloat16(self: T) -> T:
        from framework import bfloat16

        return self._cast_floating(bfloat16)

    def cpu(self: T) -> T:
        return self._apply(lambda t: t.cpu())

    # ---- state dicts ----------------------------------------------------------------------------

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def state_dict(
        self, *, destination: dict[str, Any] | None = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached unless
        `keep_vars`); its `_metadata` records each module's version, as PyTorch's.  Each module's
        state-dict pre-hooks run before its entries are saved, its post-hooks after its
        submodules' (a hook of `_register_state_dict_hook` may return a new dict, which the
        module's own call returns)."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for pre_hook in self._state_dict_pre_hooks.values():
            pre_hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                if getattr(hook, "_from_public_api", False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = result
        return destination

    def _upgrade_state_dict(self, state_dict: dict[str, Any], prefix: str, version: int | None) -> None:
        """Bring this module's entries of `state_dict` (keys under `prefix`), saved by `version` of
        the module (None when the state dict does not record it), up to date in place before they
        load. Nothing to do here; a module whose `_version` has moved on overrides it."""

    def _load_from_state_dict(
        self,
        state_dict: dict[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """Copy this module's own entries of `state_dict` (keys under `prefix`) into its
        parameters and persistent buffers, recording what is missing, unexpected or wrong (after
        the load-state-dict pre-hooks, which may edit any of these)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        self._upgrade_state_dict(state_dict, prefix, local_metadata.get("version"))
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {
            k: v for k, v in itertools.chain(self._parameters.items(), persistent.items()) if v is not None
        }
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            source = state_dict[key]
            if not isinstance(source, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                    f"from checkpoint but received {type(source)}"
                )
                continue
            if param.dim() == 0 and source.dim() == 1:
                source = source[0]
            if source.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {_size(source.shape)} from "
                    f"checkpoint, the shape in current model is {_size(param.shape)}."
                )
                continue
            try:
                with no_grad():
                    param.copy_(source)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{_size(param.shape)} and whose dimensions in the checkpoint are {_size(source.shape)}, "
                    f"an exception occurred : {ex.args}."
                )
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                head, dot, _ = key[len(prefix) :].partition(".")
                if (dot and head not in self._modules) or (not dot and head not in local_state):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> _IncompatibleKeys:
        """Copy `state_dict` into the parameters and buffers (in place, under no_grad). With
        `strict`, missing or unexpected keys are errors; size mismatches always are.  Each module's
        load-state-dict post-hooks see the keys found so far once its submodules are loaded, and
        may edit them in place."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata: Mapping[str, dict[str, Any]] = getattr(state_dict, "_metadata", None) or {}

        def load(module: Module, local_state: dict[str, Any], prefix: str = "") -> None:
            local_metadata = metadata.get(prefix[:-1], {})
            module._load_from_state_dict(
                local_state, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(
                        child,
                        {k: v for k, v in local_state.items() if k.startswith(child_prefix)},
                        child_prefix,
                    )
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                        "return new values, if incompatible_keys need to be modified, it should be done "
                        "inplace."
                    )

        load(self, dict(state_dict))
        if strict:
            if unexpected_keys:
                names = ", ".join(f'"{k}"' for k in unexpected_keys)
                error_msgs.insert(0, f"Unexpected key(s) in state_dict: {names}. ")
            if missing_keys:
                names = ", ".join(f'"{k}"' for k in missing_keys)
                error_msgs.insert(0, f"Missing key(s) in state_dict: {names}. ")
        if error_msgs:
            details = "\n\t".join(error_msgs)
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t{details}")
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_pre_hook(self, hook: Callable[[Module, str, bool], None]) -> RemovableHandle:
        """Call `hook(module, prefix, keep_vars)` before `state_dict()` saves this module."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(
        self, hook: Callable[[Module, dict[str, Any], str, dict[str, Any]], None]
    ) -> RemovableHandle:
        """Call `hook(module, state_dict, prefix, local_metadata)` after `state_dict()` saved this
        module and its submodules; it edits the dict in place and must return None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(
        self, hook: Callable[[Module, dict[str, Any], str, dict[str, Any]], Any]
    ) -> RemovableHandle:
        """The private post-hook: as `register_state_dict_post_hook`, but a dict it returns
        replaces the state dict (respected by the module `state_dict()` was called on)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was previously "
                "registered via register_state_dict_post_hook"
            )
        return add_hook(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable[..., None], with_module: bool = False
    ) -> RemovableHandle:
        """Call `hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)` before this module loads its entries, with the module first when
        `with_module` (held weakly)."""
        return add_hook(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """Call `hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)` before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(
        self, hook: Callable[[Module, _IncompatibleKeys], None]
    ) -> RemovableHandle:
        """Call `hook(module, incompatible_keys)` after `load_state_dict()` loaded this module and
        its submodules; editing `incompatible_keys.missing_keys` / `unexpected_keys` in place
        changes what strict loading reports."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    # ---- hooks and calls ------------------------------------------------------------------------

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call `hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) before
        `forward`; what it returns (not None) replaces the arguments."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call `hook(module, args, output)` (or `hook(module, args, kwargs, output)` with
        `with_kwargs`) after `forward`; what it returns (not None) replaces the output.
        With `always_call` it runs even when forward raised."""
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def _run_pre_hooks(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        for hook_id, hook in tuple(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but "
                            f"got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    def _run_forward_hooks(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any, only_always_called: bool = False
    ) -> Any:
        for hook_id, hook in tuple(self._forward_hooks.items()):
            if only_always_called and hook_id not in self._forward_hooks_always_called:
                continue
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        args, kwargs = self._run_pre_hooks(args, kwargs)
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            if self._forward_hooks_always_called:
                self._run_forward_hooks(args, kwargs, None, only_always_called=True)
            raise
        return self._run_forward_hooks(args, kwargs, output)

    __call__: Callable[..., Any] = _call_impl

    # ---- printing -------------------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, printed inside its parentheses (override in layers)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def zero_grad_of(param: Tensor, set_to_none: bool) -> None:
    """Drop `param.grad`, or detach it and zero it in place (`Module.zero_grad` and
    `Optimizer.zero_grad`)."""
    grad = param.grad
    if grad is None:
        return
    if set_to_none:
        param.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
