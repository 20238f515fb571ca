"""`framework.nn.utils.parametrize`: express a parameter or buffer as a function of others
(PyTorch's `torch.nn.utils.parametrize`).

`register_parametrization(module, "weight", P)` moves the tensor to
`module.parametrizations.weight.original` (or `original0`, `original1`, ... when `P.right_inverse`
returns several tensors), swaps the module's class for a `Parametrized<Class>` subclass whose
`weight` property computes `P(original)` on every access (once per `cached()` block), and
assigning `module.weight = value` stores `P.right_inverse(value)` in the originals."""

from __future__ import annotations

import collections.abc
import contextlib
import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

from framework._tensor import Tensor
from framework.autograd import no_grad
from framework.nn.modules.container import ModuleDict, ModuleList
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Within this block, each parametrized tensor is computed once, on first access, and reused
    (blocks nest; the cache empties when the outermost one exits)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _parametrizations(module: Module) -> ModuleDict:
    """The `parametrizations` ModuleDict of a parametrized module."""
    return cast(ModuleDict, module.parametrizations)


def _parametrization_list(module: Module, tensor_name: str) -> ParametrizationList:
    return cast(ParametrizationList, _parametrizations(module)[tensor_name])


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_data(dest: Tensor, src: Tensor) -> None:
    """Make `dest` (same object: a registered parameter or buffer) hold `src`'s data."""
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start from:
    `original`, or `original0`, `original1`, ... when the first one takes several."""

    original: Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Tensor | Parameter, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    with contextlib.suppress(NotImplementedError):
                        new = cast(Any, module).right_inverse(new)
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if isinstance(new, Tensor):
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            if original.shape != new.shape:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the shape.\n"
                    f"original.shape: {original.shape}\nright_inverse(original).shape: {new.shape}"
                )
            with no_grad():
                _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {i} of the sequence with type {type(value).__name__}."
                    )
                if isinstance(original, Parameter):
                    value = Parameter(value, original.requires_grad)
                value.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not self.unsafe:
            result = self()
            if not isinstance(result, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
            if result.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
                    "flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\nparametrized dtype: {result.dtype}"
                )
            if result.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                    "flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\nparametrized shape: {result.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Store in the originals what the parametrizations' `right_inverse`s (last to first) make
        of `value`, so that the parametrized tensor becomes `value`."""
        with no_grad():
            result: Any = value
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                result = cast(Any, module).right_inverse(result)
            if self.is_tensor:
                if not isinstance(result, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(result).__name__}")
                if result.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {result.dtype} while `original` "
                        f"has dtype {self.original.dtype}"
                    )
                _set_data(self.original, result)
                return
            if not isinstance(result, collections.abc.Sequence):
                raise ValueError(
                    f"'right_inverse' must return a sequence of tensors. Got {type(result).__name__}."
                )
            if len(result) != self.ntensors:
                raise ValueError(
                    f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. Got a "
                    f"sequence of length {len(result)}."
                )
            for i, tensor in enumerate(result):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        f"`right_inverse` must return a sequence of tensors. Got element {i} of type "
                        f"{type(tensor).__name__}"
                    )
                if original_i.dtype != tensor.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                        f"`original{i}` has dtype {original_i.dtype}"
                    )
                _set_data(original_i, tensor)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        result: Tensor = x
        return result


def _parametrized_getstate(self: Module) -> Any:
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _parametrized_deepcopy(self: Module, memo: dict[int, Any]) -> Module:
    """Deep copy through `__dict__` (the class's `__getstate__` refuses pickling)."""
    replica = memo.get(id(self))
    if replica is not None:
        return cast(Module, replica)
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module: Module) -> None:
    """Give `module` its own subclass `Parametrized<Class>` (where the properties will live)."""
    cls = type(module)
    namespace: dict[str, Any] = {"__getstate__": _parametrized_getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _parametrized_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    """The `tensor_name` property of the module's class: the parametrization's value (cached
    inside `cached()`), and assignment through `right_inverse`."""

    def get_parametrized(self: Module) -> Tensor:
        parametrization = _parametrization_list(self, tensor_name)
        if not _cache_enabled:
            return cast(Tensor, parametrization())
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = cast(Tensor, parametrization())
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        _parametrization_list(self, tensor_name).right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether `module` has a parametrization on `tensor_name` (on any tensor when None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations swapped it (its class when there are none)."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def _check_keeps(name: str, value: Any, reference: Tensor, *, inverse: bool) -> None:
    """PyTorch's checks that a parametrization appended to others (or, with `inverse`, its
    `right_inverse`) returns a tensor of `module.<name>`'s dtype and shape."""
    if not isinstance(value, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(value).__name__}"
            if inverse
            else f"A parametrization must return a tensor. Got {type(value).__name__}."
        )
    for attribute in ("dtype", "shape"):
        want, got = getattr(reference, attribute), getattr(value, attribute)
        if want == got:
            continue
        if inverse:
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same {attribute} as "
                f"module.{name}, unless the `unsafe` flag is enabled.\nmodule.{name}.{attribute}: {want}\n"
                f"returned {attribute}: {got}"
            )
        raise ValueError(
            f"Registering a parametrization may not change the {attribute} of the tensor, unless the "
            f"`unsafe` flag is enabled.\nmodule.{name}.{attribute}: {want}\n"
            f"parametrization(module.{name}).{attribute}: {got}"
        )


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Parametrize `module.<tensor_name>` (a parameter, a buffer, or an already parametrized
    tensor, to which `parametrization` is appended) by `parametrization`. Unless `unsafe`, the
    parametrization may not change the tensor's dtype or shape (nor its `right_inverse`)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            value = parametrization(current)
            _check_keeps(tensor_name, value, current, inverse=False)
            if hasattr(parametrization, "right_inverse"):
                try:
                    inverse = cast(Any, parametrization).right_inverse(value)
                except NotImplementedError:
                    pass
                else:
                    _check_keeps(tensor_name, inverse, current, inverse=True)
        parametrizations = _parametrization_list(module, tensor_name)
        parametrizations.append(parametrization)
        parametrizations.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        new_list = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        _parametrizations(module)[tensor_name] = new_list
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of `module.<tensor_name>`: the tensor becomes a plain parameter
    or buffer again, holding its current parametrized value (`leave_parametrized`) or its
    original; the module gets its class back when no parametrization is left."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = _parametrization_list(module, tensor_name)
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _set_data(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach(), value.requires_grad) if value.requires_grad else value.detach()
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms "
            "of a sequence of tensors."
        )
    delattr(type(module), tensor_name)
    del _parametrizations(module)[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module
