"""`functional_call` (a module run with parameters and buffers given by name) and
`stack_module_state` (the states of same-class modules stacked, for `vmap` ensembles)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Final

import framework
from framework._tensor import Tensor
from framework.nn.modules.module import Module

__all__ = ["functional_call", "stack_module_state"]

_MISSING: Final = object()


def _untie(module: Module, given: dict[str, Tensor]) -> dict[str, Tensor]:
    """`given` extended so that a value given for one name of tensors tied in `module` (the same
    parameter or buffer under several names) goes to all of them; two different values for names
    of one tied tensor are refused."""
    named: dict[str, Tensor] = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of: dict[int, set[str]] = {}
    for name, tensor in named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    untied = dict(given)
    for name in [n for n in given if n in tied]:
        names = tied[name]
        if len({id(given[n]) for n in names if n in given}) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. Consider "
                "using tie_weights=False"
            )
        untied.update(dict.fromkeys(names, given[name]))
    return untied


def _check_keys(module: Module, keys: set[str]) -> None:
    valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
    errors = []
    if unexpected := sorted(keys - valid):
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing := sorted(valid - keys):
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors))


def _swap(module: Module, name: str, value: Any) -> Any:
    """Put `value` (or, for `_MISSING`, nothing) under the dotted `name` in `module`, as a
    parameter or buffer where there is one by that name, else as a plain attribute; what was
    there before (`_MISSING` for nothing)."""
    owner_path, _, attr = name.rpartition(".")
    owner = module.get_submodule(owner_path)
    if value is not _MISSING and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for table in (owner._parameters, owner._buffers):
        if attr in table:
            tables: dict[str, Any] = table
            old = tables[attr]
            if value is _MISSING:
                del tables[attr]
            else:
                tables[attr] = value
            return old
    old = getattr(owner, attr, _MISSING)
    if value is _MISSING:
        if old is not _MISSING:
            delattr(owner, attr)
    else:
        object.__setattr__(owner, attr, value)
    return old


@contextmanager
def _reparametrized(
    module: Module, given: dict[str, Tensor], tie_weights: bool, strict: bool
) -> Iterator[None]:
    values = _untie(module, given) if tie_weights else given
    if strict:
        _check_keys(module, set(values))
    originals: dict[str, Any] = {}
    try:
        for name, value in values.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        current = {name: _swap(module, name, original) for name, original in originals.items()}
        given.update({name: current[name] for name in given if name in current})


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Mapping[str, Tensor] | Sequence[Mapping[str, Tensor]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """`module(*args, **kwargs)` with its parameters and buffers replaced, for the call only, by
    the tensors given by dotted name (one dict, or several with distinct keys). Names the module
    does not have are set as attributes for the call. `tie_weights`: a value given for one of
    several names of the same tensor is used for all of them. `strict`: the names given must be
    exactly the module's parameters and buffers. `args` that is not a tuple is the single
    positional argument."""
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        if repeated := [key for key, n in counts.items() if n > 1]:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous"
            )
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    positional = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrized(module, given, tie_weights, strict):
        return module(*positional, **(kwargs or {}))


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    """`tensors` stacked into a new leaf (requiring grad when they all do)."""
    requires_grad = [t.requires_grad for t in tensors]
    if any(requires_grad) and not all(requires_grad):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = framework.stack(tensors)
    return stacked.detach().requires_grad_() if all(requires_grad) else stacked


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(params, buffers): each parameter and buffer name of `models` (same class, same training
    mode) mapped to the models' tensors stacked along a new leading dim, as new leaves that are
    optimizable when the originals require grad (for `vmap(functional_call ...)` ensembles)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {name: _stacked_leaf([p[name] for p in all_params], name) for name in all_params[0]}
    buffers = {name: _stacked_leaf([b[name] for b in all_buffers], name) for name in all_buffers[0]}
    return params, buffers
