"""`framework.utils.checkpoint`: activation checkpointing (PyTorch's `torch.utils.checkpoint`).

A checkpointed function runs forward without keeping its intermediate results; backward runs it
again (from the saved inputs, with the random number generator put back to its state at the
forward, so dropout draws the same numbers) to get them.

- `use_reentrant=True`: the forward runs under no_grad inside a custom Function
  (`CheckpointFunctionBackward`), whose backward recomputes with grad enabled and runs a nested
  backward through the recomputed graph. Not usable under `autograd.grad` or
  `backward(inputs=...)`.
- `use_reentrant=False`: the forward records its graph as usual (same grad_fn names as without
  checkpointing), but `saved_tensors_hooks` keep only placeholders for the tensors it saves; the
  first unpack in backward recomputes the function (stopping as soon as every saved tensor is
  back, with `early_stop`) and checks the recomputed tensors' shapes, dtypes and devices against
  the forward's (`determinism_check="default"`)."""

from __future__ import annotations

import contextlib
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from framework._tensor import Tensor
from framework.autograd import Function, backward, enable_grad, no_grad
from framework.autograd.engine import is_checkpoint_valid
from framework.autograd.graph import saved_tensors_hooks
from framework.random import get_rng_state, set_rng_state

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential", "noop_context_fn"]

_USE_REENTRANT_WARNING: Final = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
    "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two variants."
)
_SEQUENTIAL_USE_REENTRANT_WARNING: Final = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
    "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
    "two variants."
)
_DETERMINISM_CHECKS: Final = ("default", "none")


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce what the forward saved."""


def noop_context_fn() -> tuple[
    contextlib.AbstractContextManager[Any], contextlib.AbstractContextManager[Any]
]:
    """The default `context_fn`: no context around either the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def _rng_state(state: Tensor | None) -> Iterator[None]:
    """Run with the default generator set to `state` (when given), restoring the state it had."""
    if state is None:
        yield
        return
    before = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(before)


def _unexpected_kwargs(kwargs: dict[str, Any]) -> ValueError:
    return ValueError("Unexpected keyword arguments: " + ",".join(kwargs))


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad, recompute and backward in backward."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        ctx.run_function = run_function
        ctx.fwd_rng_state = get_rng_state() if preserve_rng_state else None
        ctx.tensor_indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        if not is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set "
                "use_reentrant=False, or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            detached = tensor.detach()
            detached.requires_grad = tensor.requires_grad
            inputs[index] = detached
        with _rng_state(ctx.fwd_rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (out, grad)
            for out, grad in zip(outputs, grad_outputs, strict=False)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None, *(inp.grad if isinstance(inp, Tensor) else None for inp in inputs))


class _Holder:
    """Stands in, in the graph, for one tensor the checkpointed forward saved; holds its
    recomputed value from the recomputation until backward unpacks it."""

    __slots__ = ("__weakref__", "value")

    def __init__(self) -> None:
        self.value: Tensor | None = None


class _StopRecomputation(Exception):
    """Every saved tensor has been recomputed: the rest of the function need not run."""


def _metadata(tensor: Tensor) -> dict[str, Any]:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


class _Frame:
    """One non-reentrant checkpointed call: placeholders for what its forward saved (in order),
    their metadata, and how to run the function again."""

    def __init__(self, recompute: Callable[[], None], early_stop: bool, check: bool) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.check = check
        self.holders: list[weakref.ref[_Holder]] = []
        self.metadata: list[dict[str, Any]] = []

    def pack(self, tensor: Tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        self.metadata.append(_metadata(tensor))
        return holder

    def unpack(self, holder: _Holder) -> Tensor:
        if holder.value is None:
            self._recompute_saved()
        value = holder.value
        assert value is not None
        holder.value = None
        return value

    def _recompute_saved(self) -> None:
        """Run the function again, handing what it saves, in order, to the live placeholders."""
        recomputed: list[Tensor] = []

        def pack(tensor: Tensor) -> Tensor:
            index = len(recomputed)
            if index >= len(self.holders):
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation than during "
                    "the original forward pass."
                )
            recomputed.append(tensor.detach() if tensor.requires_grad else tensor)
            holder = self.holders[index]()
            if holder is not None:
                holder.value = recomputed[-1]
            if self.early_stop and len(recomputed) == len(self.holders):
                raise _StopRecomputation
            return tensor

        with saved_tensors_hooks(pack, lambda tensor: tensor), contextlib.suppress(_StopRecomputation):
            self.recompute()
        if len(recomputed) != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {len(recomputed)}."
            )
        if not self.check:
            return
        mismatched = "".join(
            f"tensor at position {index}:\nsaved metadata: {saved}\nrecomputed metadata: {_metadata(value)}\n"
            for index, (saved, value) in enumerate(zip(self.metadata, recomputed, strict=True))
            if self.holders[index]() is not None and saved != _metadata(value)
        )
        if mismatched:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                f"than during the forward pass.\n{mismatched}."
            )


def _checkpoint_without_reentrant(
    function: Callable[..., Any],
    preserve_rng_state: bool,
    context_fn: Callable[[], tuple[Any, Any]],
    determinism_check: str,
    early_stop: bool,
    *args: Any,
    **kwargs: Any,
) -> Any:
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got {determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    rng_state = get_rng_state() if preserve_rng_state else None

    def recompute() -> None:
        with _rng_state(rng_state), enable_grad(), recompute_context:
            function(*args, **kwargs)

    frame = _Frame(recompute, early_stop, determinism_check == "default")
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
    determinism_check: str = "default",
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """`function(*args, **kwargs)` without keeping its intermediate results for backward, which
    recomputes them. `preserve_rng_state=True` (a keyword) restores the random state for the
    recomputation. Pass `use_reentrant` explicitly (omitting it warns and means True); keyword
    arguments for `function`, `context_fn` (two context managers: around the forward, around
    the recomputation), `determinism_check` ("default" or "none") and `early_stop` need
    `use_reentrant=False`."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise _unexpected_kwargs(kwargs)
        if context_fn is not noop_context_fn:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(
        function, preserve, context_fn, determinism_check, early_stop, *args, **kwargs
    )


def checkpoint_sequential(
    functions: Sequence[Callable[[Any], Any]] | Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Run `functions` (a list, or a `Sequential` module's children) one after the other on
    `input`, in `segments` chunks of `len(functions) // segments`: every chunk but the last is
    checkpointed (the last chunk takes the remaining functions)."""
    from framework.nn.modules.container import Sequential

    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise _unexpected_kwargs(kwargs)
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(value: Any) -> Any:
            for j in range(start, end + 1):
                value = functions[j](value)
            return value

        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
