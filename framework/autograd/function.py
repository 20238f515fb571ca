"""Custom autograd Functions (`torch.autograd.Function`): a forward and a backward written by
the user, recorded in the graph as one node named `<ClassName>Backward`.

`ctx` is that node: `save_for_backward`/`saved_tensors` (version-checked), `needs_input_grad`,
`mark_dirty` (in-place outputs), `mark_non_differentiable`, `set_materialize_grads`.  Both the
`forward(ctx, ...)` style and the `forward(...)` + `setup_context(ctx, inputs, output)` style work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import framework
from framework.autograd import anomaly_mode, forward_ad
from framework.autograd.graph import Grads, Node, SavedVariable
from framework.autograd.variable import (
    check_inplace,
    check_inplace_of_function,
    gradient_edge,
    rebase_history,
    requires_grad,
    set_history,
)
from framework.c10 import autograd_state

if TYPE_CHECKING:
    from framework._tensor import Tensor

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]

_NO_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."


class FunctionCtx:
    """What forward tells backward (a custom Function's node is its ctx)."""

    _to_save: tuple[Tensor | None, ...]
    _saved: list[SavedVariable | None]
    _dirty: tuple[Tensor, ...]
    _non_differentiable: tuple[Tensor, ...]
    _materialize_grads: bool
    _for_forward: tuple[Tensor | None, ...]
    _in_jvp: bool
    needs_input_grad: tuple[bool, ...]

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Tensors backward will need (read them back with `saved_tensors`)."""
        self._to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Tensors jvp will need (read them back with `saved_tensors` inside jvp)."""
        self._for_forward = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Inputs that forward modified in place (and returns)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that have no gradient."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (True, the default) or None for missing gradients."""
        self._materialize_grads = value

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to save_for_backward (PyTorch's error once backward freed them), or
        inside jvp those given to save_for_forward."""
        assert isinstance(self, Node)
        if self._in_jvp:
            return self._for_forward
        return tuple(None if s is None else s.unpack(self) for s in self._saved)


class BackwardCFunction(Node, FunctionCtx):
    """The node of one application of a custom Function."""

    _forward_cls: ClassVar[type[Function]]

    def __repr__(self) -> str:
        """A Python node's default repr, as PyTorch's (`<torch.autograd.function.MyFnBackward
        object at ...>`; the class lives in framework.autograd.function)."""
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {id(self):#x}>"

    def __init__(self) -> None:
        Node.__init__(self)
        self._to_save = ()
        self._saved = []
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self._for_forward = ()
        self._in_jvp = False
        self.needs_input_grad = ()
        self._is_tensor_input: tuple[bool, ...] = ()

    def apply(self, grads: Grads) -> Sequence[Tensor | None]:
        if self._materialize_grads:
            grads = [
                m.zeros() if g is None and m is not None else g
                for g, m in zip(grads, self.input_metadata, strict=False)
            ]
        result = self._forward_cls.backward(self, *grads)
        values = result if isinstance(result, tuple) else (result,)
        expected = len(self._is_tensor_input)
        if len(values) > expected and all(v is None for v in values[expected:]):
            values = values[:expected]
        if len(values) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected {expected}, "
                f"got {len(values)})"
            )
        out: list[Tensor | None] = []
        for position, (value, is_tensor) in enumerate(zip(values, self._is_tensor_input, strict=True)):
            if is_tensor:
                out.append(value)
            elif value is not None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position "
                    f"{position + 1}, but the corresponding forward input was not a Variable"
                )
        return out

    def release_variables(self) -> None:
        for s in self._saved:
            if s is not None:
                s.release()


class Function:
    """Subclass with static `forward` and `backward`, then call `MyFunction.apply(...)`."""

    _backward_cls: ClassVar[type[BackwardCFunction]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,), {"_forward_cls": cls})

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(_NO_JVP)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward (keyword arguments go to forward; gradients flow to the positional
        tensor arguments) and record the node; with forward AD, give the outputs the tangents
        `jvp` computes from the inputs' (zeros for a tensor without one, None for a non-tensor)."""
        node = cls._backward_cls()
        tangents = _input_tangents(cls, args) if forward_ad.ACTIVE else None
        if tangents is None:
            return cls._run(node, args, kwargs)
        with forward_ad.suspended():
            output = cls._run(node, args, kwargs)
        _set_output_tangents(cls, node, output, tangents)
        return output

    @classmethod
    def _run(cls, node: BackwardCFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        from framework._tensor import Tensor

        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        grad_on = autograd_state.is_grad_enabled()
        needs = tuple(grad_on and isinstance(a, Tensor) and requires_grad(a) for a in args)
        node._is_tensor_input = is_tensor
        node.needs_input_grad = needs
        node.next_edges = tuple(
            gradient_edge(a) if needs[i] else None for i, a in enumerate(args) if is_tensor[i]
        )
        custom_setup = cls.setup_context is not Function.setup_context
        token = autograd_state.grad_mode.set(False)
        try:
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, output)
            else:
                output = cls.forward(node, *args, **kwargs)
        finally:
            autograd_state.grad_mode.reset(token)
        if not any(needs):
            return output
        if anomaly_mode.is_anomaly_enabled():
            node.metadata["traceback_"] = anomaly_mode.forward_traceback()
        outputs = output if isinstance(output, tuple) else (output,)
        wrapped = tuple(_wrap(node, i, o, args) for i, o in enumerate(outputs))
        produced = {id(o._impl) for o in wrapped if isinstance(o, Tensor)}
        node._saved = [
            None if t is None else SavedVariable(t, id(t._impl) in produced) for t in node._to_save
        ]
        node._to_save = ()
        return wrapped if isinstance(output, tuple) else wrapped[0]


def _input_tangents(cls: type[Function], args: tuple[Any, ...]) -> list[Any] | None:
    """The tangents jvp receives, or None when no argument has one."""
    from framework._tensor import Tensor

    tangents = [forward_ad.fw_grad(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return None
    if cls.jvp is Function.jvp:
        raise NotImplementedError(_NO_JVP)
    return [
        framework.zeros_like(a) if t is None and isinstance(a, Tensor) else t
        for a, t in zip(args, tangents, strict=True)
    ]


def _set_output_tangents(
    cls: type[Function], ctx: BackwardCFunction, output: Any, tangents: list[Any]
) -> None:
    """Run jvp (which reads what forward gave save_for_forward as `saved_tensors`) and give each
    differentiable output its tangent; an output forward marked dirty gets its tangent written
    into its input's."""
    from framework._tensor import Tensor

    outputs = output if isinstance(output, tuple) else (output,)
    ctx._in_jvp = True
    try:
        with forward_ad.suspended():
            products = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    products = products if isinstance(products, tuple) else (products,)
    for out, product in zip(outputs, products, strict=False):
        if (
            not isinstance(out, Tensor)
            or product is None
            or not (out.dtype.is_floating_point or out.dtype.is_complex)
        ):
            continue
        if any(out is t for t in ctx._non_differentiable):
            continue
        if any(out is t for t in ctx._dirty):
            forward_ad.update_fw_grad(out, product)
        else:
            forward_ad.set_fw_grad(out, product)


def _wrap(node: BackwardCFunction, index: int, output: Any, inputs: tuple[Any, ...]) -> Any:
    from framework._tensor import Tensor

    while len(node.input_metadata) <= index:
        node.input_metadata.append(None)
    if not isinstance(output, Tensor):
        return output
    if any(output is t for t in node._non_differentiable):
        return output
    if not (output.dtype.is_floating_point or output.dtype.is_complex):
        return output
    if any(output is t for t in node._dirty):
        check_inplace_of_function(output)
        check_inplace(output)
        output._impl.version_counter.version += 1
        rebase_history(output, node, index)
        return output
    if any(output is a for a in inputs):
        output = output.view_as(output)
    set_history(output, node, index)
    return output


def once_differentiable(fn: Any) -> Any:
    """Mark a backward as not differentiable itself: it runs without recording a graph."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        token = autograd_state.grad_mode.set(False)
        try:
            return fn(ctx, *args)
        finally:
            autograd_state.grad_mode.reset(token)

    return wrapper
