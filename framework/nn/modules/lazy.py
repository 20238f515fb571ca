"""`LazyModuleMixin`: modules whose parameters' shapes are inferred from their first input.

A lazy module holds `UninitializedParameter`s and `UninitializedBuffer`s until its first call,
when a forward pre-hook runs `initialize_parameters` on the input (which materializes them and
draws their initial values), removes itself and turns the module into its `cls_to_become` (the
regular class: LazyLinear becomes Linear).  Loading a state dict into an uninitialized module
materializes the parameters it gives with their shapes."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Self

from framework import no_grad
from framework._tensor import Tensor
from framework.autograd.graph import RemovableHandle
from framework.nn.parameter import is_lazy

__all__ = ["LazyModuleMixin"]

if TYPE_CHECKING:
    from framework.nn.modules.module import Module

    _MixinBase = Module
else:
    _MixinBase = object


class LazyModuleMixin(_MixinBase):
    """Put before the regular module class among a lazy module's bases; the lazy class
    implements `initialize_parameters(input)` and names the class it becomes."""

    cls_to_become: ClassVar[type[Any] | None] = None
    _initialize_hook: RemovableHandle

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Self:
        """As Module's, but an uninitialized buffer stays one: it keeps `fn` of its placeholder
        data (so `.double()` before the first call decides the dtype it is materialized with)."""
        lazy = {
            key: buffer for key, buffer in self._buffers.items() if buffer is not None and is_lazy(buffer)
        }
        super()._apply(fn)
        for key, buffer in lazy.items():
            converted = self._buffers[key]
            if converted is not None:
                buffer.data = converted
            self._buffers[key] = buffer
        return self

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        """As Module's, but uninitialized parameters and buffers are saved as they are."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if is_lazy(buffer) or keep_vars else buffer.detach()

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
        """Materialize each uninitialized parameter or buffer that `state_dict` holds an
        initialized tensor for with that tensor's shape, then load as Module does."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)  # type: ignore[attr-defined]
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize and initialize the parameters for an input like `args` (the lazy class's)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of the module is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(
        self, module: LazyModuleMixin, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        """The forward pre-hook: initialize from the first input, then stop being lazy."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
