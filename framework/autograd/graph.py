"""The autograd graph: nodes, edges, saved variables, gradient accumulators, and hooks.

A `Node` is one backward function; its `next_edges` say where each gradient it computes goes:
`(node, input_nr)` of the function that produced that input, or None for an input that needs no
gradient.  Every forward output that requires grad points back at the node that made it
(`grad_fn`, `output_nr`); leaves point at their `AccumulateGrad` node.
"""

from __future__ import annotations

import itertools
import sys
import weakref
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from framework.c10.device import Device
from framework.c10.dispatch_key import AUTOGRAD_KEYS
from framework.c10.dtypes import dtype
from framework.c10.tensor_impl import TensorImpl

if TYPE_CHECKING:
    from framework._tensor import Tensor

Edge: TypeAlias = "tuple[Node, int]"
Grads: TypeAlias = "list[Tensor | None]"
_sequence_nr: Final = itertools.count()
_AUTOGRAD_BITS: Final = AUTOGRAD_KEYS.repr


class _HookDict(dict[int, Any]):
    """An ordered hook table that handles can refer to weakly."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """Returned by every hook registration; `remove()` unregisters the hook (also as a context
    manager, as PyTorch's `torch.utils.hooks.RemovableHandle`)."""

    _next_id: Final = itertools.count()
    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: _HookDict) -> None:
        self._hooks = weakref.ref(hooks)
        self.id = next(RemovableHandle._next_id)

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args: object) -> None:
        self.remove()


def add_hook(hooks: _HookDict, fn: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class TensorGeometry:
    """What a formula may ask of a tensor whose data it does not need: shape, strides, offset,
    dtype, device (saving this instead of the tensor keeps no memory alive)."""

    __slots__ = ("_offset", "_strides", "device", "dtype", "shape")

    def __init__(self, impl: TensorImpl) -> None:
        self.shape: tuple[int, ...] = impl.sizes
        self._strides = impl.strides
        self._offset = impl.storage_offset
        self.dtype: dtype = impl.dtype
        self.device: Device = impl.device

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim: int | None = None) -> Any:
        return self._strides if dim is None else self._strides[dim]

    def storage_offset(self) -> int:
        return self._offset

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


class InputMetadata:
    """Shape, dtype and device of one forward output: what the gradient flowing into the node
    for that output must match (PyTorch's `InputMetadata`)."""

    __slots__ = ("device", "dtype", "shape")

    def __init__(self, impl: TensorImpl) -> None:
        self.shape = impl.sizes
        self.dtype = impl.dtype
        self.device = impl.device

    def zeros(self) -> Tensor:
        """The gradient of an output that received none."""
        import framework

        result: Tensor = framework.zeros(self.shape, dtype=self.dtype, device=self.device)
        return result

    def ones(self) -> Tensor:
        import framework

        result: Tensor = framework.ones(self.shape, dtype=self.dtype, device=self.device)
        return result


class Node:
    """One backward function of the graph (PyTorch's `torch.autograd.graph.Node`)."""

    __slots__ = (
        "__weakref__",
        "_metadata",
        "_post_hooks",
        "_pre_hooks",
        "_retains_grad_hooks",
        "_tensor_pre_hooks",
        "input_metadata",
        "next_edges",
        "sequence_nr",
    )

    def __init__(self, next_edges: tuple[Edge | None, ...] = (), sequence_nr: int | None = None) -> None:
        self.next_edges = next_edges
        self.sequence_nr = next(_sequence_nr) if sequence_nr is None else sequence_nr
        self.input_metadata: list[InputMetadata | None] = []
        self._pre_hooks: _HookDict | None = None
        self._post_hooks: _HookDict | None = None
        self._tensor_pre_hooks: dict[int, _HookDict] | None = None
        self._retains_grad_hooks: dict[int, Callable[[Tensor], None]] | None = None
        self._metadata: dict[str, Any] | None = None

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for whatever users (and anomaly mode) attach to the node, made on first use."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def apply(self, grads: Grads) -> Sequence[Tensor | None]:
        """Gradients for each next edge, from the gradients of this node's forward outputs."""
        raise NotImplementedError(f"{self.name()}.apply")

    def release_variables(self) -> None:
        """Free what was saved for backward (called after a backward without retain_graph)."""

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((None, 0) if e is None else e for e in self.next_edges)

    def register_hook(self, fn: Callable[[tuple[Any, ...], tuple[Any, ...]], Any]) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` after the node runs; it may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = _HookDict()
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[[tuple[Any, ...]], Any]) -> RemovableHandle:
        """`fn(grad_outputs)` before the node runs; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        return add_hook(self._pre_hooks, fn)

    def tensor_pre_hooks(self, output_nr: int) -> _HookDict:
        """The hooks on the gradient of this node's forward output `output_nr` (`Tensor.register_hook`)."""
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return self._tensor_pre_hooks.setdefault(output_nr, _HookDict())

    def set_retains_grad_hook(self, output_nr: int, fn: Callable[[Tensor], None]) -> None:
        if self._retains_grad_hooks is None:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = fn

    def __repr__(self) -> str:
        """As PyTorch shows its C++ nodes: the class name, which is `name()` without the
        `torch::autograd::` of AccumulateGrad, CopySlices and the like."""
        return f"<{type(self).__name__} object at {id(self):#x}>"


class GraphRoot(Node):
    """The node a backward starts from: its outputs are the root gradients."""

    __slots__ = ("roots",)

    def __init__(self, next_edges: tuple[Edge | None, ...], roots: Grads) -> None:
        super().__init__(next_edges, sequence_nr=sys.maxsize)
        self.roots = roots

    def apply(self, grads: Grads) -> Sequence[Tensor | None]:
        return self.roots


def is_inference(impl: TensorImpl) -> bool:
    """A tensor made in inference mode: it has no autograd key and may never enter autograd."""
    return not impl.key_set.repr & _AUTOGRAD_BITS


def type_string(impl: TensorImpl) -> str:
    """PyTorch's legacy type name of a CPU tensor (`torch.FloatTensor`), used in its messages."""
    return f"torch.{impl.dtype.scalar_type_name}Tensor"


def alias_impl(impl: TensorImpl) -> TensorImpl:
    """A new TensorImpl over the same data, geometry and version counter, without autograd meta
    (what `detach()` returns)."""
    return TensorImpl(
        impl.storage,
        impl.dtype,
        impl.sizes,
        impl.strides,
        impl.storage_offset,
        key_set=impl.key_set,
        version_counter=impl.version_counter,
    )


SECOND_BACKWARD: Final = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


PackHook: TypeAlias = "Callable[[Tensor], Any]"
UnpackHook: TypeAlias = "Callable[[Any], Tensor]"
_saved_tensors_hooks: Final[ContextVar[tuple[tuple[PackHook, UnpackHook], ...]]] = ContextVar(
    "framework_saved_tensors_hooks", default=()
)


class saved_tensors_hooks:
    """Context manager: while active, every tensor an operation saves for backward is passed to
    `pack_hook` and only what it returns is kept; backward calls `unpack_hook` on that to get the
    tensor back (`torch.autograd.graph.saved_tensors_hooks`). Nested managers: the innermost wins.
    Saved tensors packed this way are not version-checked (the hooks own them)."""

    def __init__(self, pack_hook: PackHook, unpack_hook: UnpackHook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._tokens: list[Any] = []

    def __enter__(self) -> saved_tensors_hooks:
        hooks = _saved_tensors_hooks.get()
        self._tokens.append(_saved_tensors_hooks.set((*hooks, (self.pack_hook, self.unpack_hook))))
        return self

    def __exit__(self, *args: object) -> None:
        _saved_tensors_hooks.reset(self._tokens.pop())


class SavedVariable:
    """A tensor saved for backward, with the version it had then: unpacking it after it was
    modified in place raises PyTorch's error.  An output of the saving node is kept as a detached
    alias (no reference back to the node, so no cycle) and gets its grad_fn back on unpack.  Under
    `saved_tensors_hooks`, only what the pack hook returned is kept, for the unpack hook."""

    __slots__ = ("_data", "_hooks", "_is_output", "_output_nr", "_requires_grad", "_version")

    def __init__(self, tensor: Tensor, is_output: bool) -> None:
        impl = tensor._impl
        if is_inference(impl):
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` "
                "instead of `torch.inference_mode()`."
            )
        self._version = impl.version_counter.version
        self._is_output = is_output
        meta = impl.autograd_meta
        self._output_nr: int = getattr(meta, "output_nr", 0)
        self._requires_grad = meta is not None and getattr(meta, "requires_grad", False)
        hooks = _saved_tensors_hooks.get()
        self._hooks: tuple[Any, UnpackHook] | None = None
        self._data: Tensor | None = None
        if hooks:
            pack_hook, unpack_hook = hooks[-1]
            self._hooks = (pack_hook(tensor), unpack_hook)
        elif is_output:
            from framework._tensor import Tensor

            self._data = Tensor(alias_impl(impl))
        else:
            self._data = tensor

    def unpack(self, saved_for: Node) -> Tensor:
        if self._hooks is not None:
            return self._unpack_hooked(saved_for)
        data = self._data
        if data is None:
            raise RuntimeError(SECOND_BACKWARD)
        impl = data._impl
        current = impl.version_counter.version
        if current != self._version:
            from framework.autograd.anomaly_mode import is_anomaly_enabled
            from framework.autograd.variable import grad_fn_of

            fn = saved_for if self._is_output else grad_fn_of(impl)
            which = (
                ""
                if fn is None
                else f", which is output {self._output_nr if self._is_output else _output_nr(impl)} of "
                f"{short_name(fn)},"
            )
            sizes = ", ".join(map(str, impl.sizes))
            hint = (
                "Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. Good luck!"
                if is_anomaly_enabled()
                else "Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
            )
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{type_string(impl)} [{sizes}]]{which} is at version "
                f"{current}; expected version {self._version} instead. {hint}"
            )
        return self._with_grad_fn(data, saved_for)

    def _unpack_hooked(self, saved_for: Node) -> Tensor:
        from framework._tensor import Tensor

        assert self._hooks is not None
        packed, unpack_hook = self._hooks
        data = unpack_hook(packed)
        if not isinstance(data, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                f"{type(data).__name__}"
            )
        return self._with_grad_fn(data, saved_for)

    def _with_grad_fn(self, data: Tensor, saved_for: Node) -> Tensor:
        """`data`, or for a saved output that requires grad an alias of it whose grad_fn is the
        node it was saved for."""
        if not self._is_output or not self._requires_grad:
            return data
        from framework._tensor import Tensor
        from framework.autograd.variable import AutogradMeta

        out = Tensor(alias_impl(data._impl))
        meta = AutogradMeta(True)
        meta.grad_fn = saved_for
        meta.output_nr = self._output_nr
        out._impl.autograd_meta = meta
        return out

    def release(self) -> None:
        self._data = None
        self._hooks = None


def short_name(node: Node) -> str:
    """How PyTorch's messages name a node: `AddBackward0` is "Add"."""
    name = node.name()
    stripped = name.rstrip("0123456789")
    return stripped.removesuffix("Backward") if stripped.endswith("Backward") else name


def _output_nr(impl: TensorImpl) -> int:
    return int(getattr(impl.autograd_meta, "output_nr", 0))
