"""Autograd metadata on a TensorImpl (PyTorch's `AutogradMeta`), views' metadata, history.

A tensor's `autograd_meta` is None until autograd has something to say about it.  A leaf that
requires grad has `requires_grad` set and gradients accumulate into its `grad` through its
`AccumulateGrad` node; a computed tensor has `grad_fn`/`output_nr`.  A view additionally knows
its base (`ViewMeta`) so that an in-place change of the view can rewrite the base's history.
"""

from __future__ import annotations

import enum
import sys
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from framework.autograd.graph import (
    Edge,
    Grads,
    InputMetadata,
    Node,
    TensorGeometry,
    _HookDict,
    add_hook,
    alias_impl,
    is_inference,
    short_name,
)
from framework.c10.autograd_state import is_grad_enabled, is_inference_mode_enabled
from framework.c10.tensor_impl import CONJ_BIT, MATH_BITS, NEG_BIT, TensorImpl, VersionCounter

if TYPE_CHECKING:
    from framework._tensor import Tensor
    from framework.autograd.graph import RemovableHandle


class CreationMeta(enum.Enum):
    """How a view was made: decides whether an in-place change of it may be tracked."""

    DEFAULT = 0
    NO_GRAD_MODE = 1
    MULTI_OUTPUT_NODE = 2
    INFERENCE_MODE = 3


class AutogradMeta:
    """What autograd knows about one tensor."""

    __slots__ = (
        "__weakref__",
        "_requires_grad",
        "fw_grad",
        "grad",
        "grad_accumulator",
        "grad_fn",
        "hooks",
        "output_nr",
        "post_accumulate_grad_hooks",
        "retains_grad",
    )

    def __init__(self, requires_grad: bool = False, grad_fn: Node | None = None, output_nr: int = 0) -> None:
        self._requires_grad = requires_grad
        self.grad: Tensor | None = None
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.retains_grad = False
        self.grad_accumulator: weakref.ref[AccumulateGrad] | None = None
        self.hooks: _HookDict | None = None
        self.post_accumulate_grad_hooks: _HookDict | None = None
        self.fw_grad: Tensor | None = None
        """The tangent at the forward AD level (see `framework.autograd.forward_ad`)."""

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None


class ViewMeta(AutogradMeta):
    """Autograd metadata of a view: its base (never itself a view), how it was created, and the
    version at which its grad_fn was last valid."""

    __slots__ = ("attr_version", "base", "creation_meta", "fw_view", "version_counter")

    def __init__(self, base: Tensor, creation_meta: CreationMeta, version_counter: VersionCounter) -> None:
        AutogradMeta.__init__(self)
        self.base = base
        self.creation_meta = creation_meta
        self.version_counter = version_counter
        self.attr_version = version_counter.version
        self.fw_view = True
        """Whether the view takes its tangent from its base's (not so the primal of `unpack_dual`)."""

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None or requires_grad(self.base)


def _meta(impl: TensorImpl) -> AutogradMeta:
    meta = impl.autograd_meta
    if not isinstance(meta, AutogradMeta):
        meta = AutogradMeta()
        impl.autograd_meta = meta
    return meta


def requires_grad(tensor: Tensor) -> bool:
    meta = tensor._impl.autograd_meta
    return isinstance(meta, AutogradMeta) and meta.requires_grad


def set_requires_grad(tensor: Tensor, value: bool, factory: bool = False) -> None:
    """`tensor.requires_grad = value`, with PyTorch's refusals (a factory's `requires_grad=True`
    words the dtype refusal differently)."""
    impl = tensor._impl
    if value and not (impl.dtype.is_floating_point or impl.dtype.is_complex):
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
            if factory
            else "only Tensors of floating point dtype can require gradients"
        )
    if value and is_inference(impl) and not is_inference_mode_enabled():
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
    meta = impl.autograd_meta
    if isinstance(meta, AutogradMeta) and grad_fn_of(impl) is not None:
        if value:
            return
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed "
            "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
        )
    if value or isinstance(meta, AutogradMeta):
        _meta(impl)._requires_grad = value


def make_variable(tensor: Tensor, requires_grad: bool = False) -> Tensor:
    """Attach autograd metadata to a freshly made tensor (PyTorch's `make_variable`)."""
    if requires_grad:
        set_requires_grad(tensor, True, factory=True)
    return tensor


_AS_STRIDED_BACKWARD: list[Callable[[TensorImpl, TensorImpl, Edge | None], Node]] = []


def set_view_replay(make_node: Callable[[TensorImpl, TensorImpl, Edge | None], Node]) -> None:
    """Install how a view's grad_fn is rebuilt after its data changed in place: `make_node(base,
    view, base_edge)` returns the node taking the view's gradient to the base's edge
    (AsStridedBackward0, under ConjBackward0/NegViewBackward0 for a view whose conjugate or
    negative bit differs from its base's)."""
    _AS_STRIDED_BACKWARD[:] = [make_node]


def _no_grad_view_error(creation_meta: CreationMeta) -> RuntimeError | None:
    if creation_meta is CreationMeta.NO_GRAD_MODE:
        return RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been "
            "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
            "inplace either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked)."
        )
    return None


def grad_fn_of(impl: TensorImpl) -> Node | None:
    """The tensor's grad_fn; a view whose data changed in place since its grad_fn was set gets a
    new one that takes its gradient to its base (PyTorch regenerates it the same way)."""
    meta = impl.autograd_meta
    if meta is None:
        return None
    if type(meta) is ViewMeta and meta.attr_version != meta.version_counter.version:
        if meta.grad_fn is not None or requires_grad(meta.base):
            error = _no_grad_view_error(meta.creation_meta)
            if error is not None:
                raise error
            meta.grad_fn = _AS_STRIDED_BACKWARD[0](meta.base._impl, impl, gradient_edge(meta.base))
            meta.output_nr = 0
        meta.attr_version = meta.version_counter.version
    grad_fn: Node | None = getattr(meta, "grad_fn", None)
    return grad_fn


class AccumulateGrad(Node):
    """The node of a leaf: adds the gradient it receives into the leaf's `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor, hooks: _HookDict | None) -> None:
        Node.__init__(self, (), sys.maxsize)
        self.variable = variable
        self.input_metadata = [InputMetadata(variable._impl)]
        if hooks is not None:
            self._tensor_pre_hooks = {0: hooks}

    def apply(self, grads: Grads) -> Sequence[Tensor | None]:
        new_grad = grads[0]
        grads[0] = None
        if new_grad is None:
            return ()
        variable = self.variable
        meta = _meta(variable._impl)
        old = meta.grad
        if old is None:
            meta.grad = (
                new_grad.detach() if _can_steal(new_grad, variable) else _clone_like(new_grad, variable)
            )
        elif not is_grad_enabled():
            old.add_(new_grad)
        else:
            meta.grad = old + new_grad
        if meta.post_accumulate_grad_hooks:
            for hook in tuple(meta.post_accumulate_grad_hooks.values()):
                hook(variable)
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


def check_inplace_of_function(tensor: Tensor) -> None:
    """A custom Function's mark_dirty on a leaf that requires grad (PyTorch's wording)."""
    meta = tensor._impl.autograd_meta
    if isinstance(meta, AutogradMeta) and meta.requires_grad and grad_fn_of(tensor._impl) is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")


# sys.getrefcount when nobody else holds the gradient, counted inside _can_steal: the handle is
# held by AccumulateGrad.apply's local, _can_steal's parameter and getrefcount's argument; the
# impl by the handle, the local `impl` and the argument; the storage by the impl and the argument.
# A view's base, counted inside _only_view_of_base, is held by the view's metadata, the local
# `base` and the argument; its impl by the base, the local and the argument.
_SOLE_HANDLE_REFS: Final = 3
_SOLE_IMPL_REFS: Final = 3
_SOLE_STORAGE_REFS: Final = 2
_SOLE_BASE_REFS: Final = 3


def _can_steal(grad: Tensor, variable: Tensor) -> bool:
    """Whether `.grad` may be the computed gradient itself: nothing else refers to it or to its
    memory and its layout is the variable's (PyTorch's AccumulateGrad steals under the same rule).
    A gradient that is a view (a transpose's backward) may be adopted when its base lives only
    for it."""
    impl = grad._impl
    var = variable._impl
    if not (
        not is_grad_enabled()
        and sys.getrefcount(grad) <= _SOLE_HANDLE_REFS
        and sys.getrefcount(impl) <= _SOLE_IMPL_REFS
        and impl.storage_offset == 0
        and impl.strides == var.strides
        and impl.dtype is var.dtype
    ):
        return False
    meta = impl.autograd_meta
    if meta is None:
        return sys.getrefcount(impl.storage) <= _SOLE_STORAGE_REFS
    return type(meta) is ViewMeta and meta.grad_fn is None and _only_view_of_base(meta, impl)


def _only_view_of_base(meta: ViewMeta, impl: TensorImpl) -> bool:
    """Whether the base of a view is held by nothing but the view's metadata, and its storage,
    which it spans exactly as the view does, by nothing but the two of them."""
    base = meta.base
    base_impl = base._impl
    return (
        sys.getrefcount(base) <= _SOLE_BASE_REFS
        and sys.getrefcount(base_impl) <= _SOLE_BASE_REFS
        and base_impl.storage is impl.storage
        and base_impl.numel() == impl.numel()
        and sys.getrefcount(impl.storage) <= _SOLE_STORAGE_REFS + 1
    )


def _clone_like(grad: Tensor, variable: Tensor) -> Tensor:
    """A copy of `grad` with the variable's strides when those are dense (the layout contract)."""
    from framework.ops.kernels._registry import is_non_overlapping_and_dense

    var = variable._impl
    if is_non_overlapping_and_dense(var):
        out = _empty_strided_like(var.sizes, var.strides, grad)
        out.copy_(grad)
        return out if is_grad_enabled() else out.detach()
    return grad.clone()


def _empty_strided_like(sizes: Sequence[int], strides: Sequence[int], like: Tensor) -> Tensor:
    import framework

    out: Tensor = framework.empty_strided(sizes, strides, dtype=like.dtype, device=like.device)
    return out


def grad_accumulator(tensor: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node (one per leaf, kept alive by the graphs that use it)."""
    return _accumulator(tensor, _meta(tensor._impl))


def _accumulator(tensor: Tensor, meta: AutogradMeta) -> AccumulateGrad:
    """`grad_accumulator` of a tensor whose autograd metadata is `meta`."""
    ref = meta.grad_accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(tensor, meta.hooks)
        meta.grad_accumulator = weakref.ref(node)
    return node


def gradient_edge(tensor: Tensor) -> Edge | None:
    """Where the gradient of `tensor` goes: its grad_fn, its AccumulateGrad, or nowhere."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if meta is None:
        return None
    fn = meta.grad_fn if type(meta) is AutogradMeta else grad_fn_of(impl)
    if fn is not None:
        return (fn, meta.output_nr)  # type: ignore[attr-defined]
    if meta.requires_grad:  # type: ignore[attr-defined]
        return (_accumulator(tensor, meta), 0)  # type: ignore[arg-type]
    return None


def set_history(tensor: Tensor, node: Node, output_nr: int) -> None:
    """Make `tensor` output `output_nr` of `node`."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if meta is None:
        impl.autograd_meta = AutogradMeta(False, node, output_nr)
    else:
        meta.grad_fn = node  # type: ignore[attr-defined]
        meta.output_nr = output_nr  # type: ignore[attr-defined]
        if type(meta) is ViewMeta:
            meta.attr_version = meta.version_counter.version
    metadata = node.input_metadata
    if len(metadata) == output_nr:
        metadata.append(InputMetadata(impl))
        return
    while len(metadata) <= output_nr:
        metadata.append(None)
    metadata[output_nr] = InputMetadata(impl)


def check_inplace(tensor: Tensor) -> None:
    """Refuse an in-place change that autograd cannot track (PyTorch's check_inplace)."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if type(meta) is ViewMeta:
        creation = meta.creation_meta
        if creation is CreationMeta.MULTI_OUTPUT_NODE:
            fn = grad_fn_of(impl)
            name = "a function" if fn is None else short_name(fn)
            raise RuntimeError(
                f"Output {meta.output_nr} of {name} is a view and is being modified inplace. This view "
                "is the output of a function that returns multiple views. Such functions do not allow "
                "the output views to be modified inplace. You should replace the inplace operation by "
                "an out-of-place one."
            )
        if creation is CreationMeta.NO_GRAD_MODE:
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
                "can clarify your code by moving both the view and the inplace either both inside the "
                "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
                "want the inplace to be tracked)."
            )
        if creation is CreationMeta.INFERENCE_MODE:
            raise RuntimeError(
                "A view was created in inference mode and is being modified inplace in normal mode. "
                "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
                "your code by moving both the view and the inplace either both inside the "
                "inference_mode block (if you don't want the inplace to be tracked) or both outside (if "
                "you want the inplace to be tracked)."
            )
        if meta.requires_grad and grad_fn_of(meta.base._impl) is None and requires_grad(meta.base):
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
            )
    if isinstance(meta, AutogradMeta) and meta.requires_grad and grad_fn_of(impl) is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


class CopySlices(Node):
    """The base's new grad_fn after an in-place change of one of its views: the base's gradient
    passes through unchanged except on the view's elements, which go through the in-place op's
    node `fn` (PyTorch's CopySlices)."""

    __slots__ = ("base", "bits", "fn", "view")

    def __init__(self, base: TensorImpl, view: TensorImpl, fn: Node, base_edge: Edge | None) -> None:
        super().__init__((base_edge, *fn.next_edges[1:]))
        self.base = TensorGeometry(base)
        self.view = TensorGeometry(view)
        self.bits = (base.key_set.repr ^ view.key_set.repr) & MATH_BITS
        """The conjugate/negative bits the view has and its base has not (or the reverse)."""
        self.fn = fn
        self.input_metadata = [InputMetadata(base)]

    def apply(self, grads: Grads) -> Sequence[Tensor | None]:
        grad = grads[0]
        if grad is None:
            return [None] * len(self.next_edges)
        base, view = self.base, self.view
        result = _empty_strided_like(base.shape, base.stride(), grad)
        result.copy_(grad)
        grad_slice = result.as_strided(
            view.shape, view.stride(), view.storage_offset() - base.storage_offset()
        )
        if self.bits & CONJ_BIT:
            grad_slice = grad_slice._conj()
        if self.bits & NEG_BIT:
            grad_slice = grad_slice._neg_view()
        res = list(self.fn.apply([grad_slice.clone()]))
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return [result, *res[1:]]

    def release_variables(self) -> None:
        self.fn.release_variables()

    def name(self) -> str:
        return "torch::autograd::CopySlices"


def rebase_history(tensor: Tensor, node: Node, output_nr: int = 0) -> None:
    """After an in-place op recorded as `node`: a plain tensor becomes its output `output_nr`; a
    view's base gets a CopySlices wrapping `node` and the view's grad_fn is rebuilt from the base."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if type(meta) is not ViewMeta:
        set_history(tensor, node, output_nr)
        return
    base = meta.base
    copy_slices = CopySlices(base._impl, impl, node, gradient_edge(base))
    set_history(base, copy_slices, 0)
    meta.grad_fn = None
    meta.attr_version = -1
    grad_fn_of(impl)


def as_view(base: Tensor, view: Tensor, multi_output: bool) -> None:
    """Record that `view` (fresh from a view kernel) views `base`."""
    impl = view._impl
    if impl is base._impl:
        return
    base_meta = base._impl.autograd_meta
    if type(base_meta) is ViewMeta:
        root = base_meta.base
        inherited = base_meta.creation_meta
    else:
        root = base
        inherited = CreationMeta.DEFAULT
    if multi_output:
        creation = CreationMeta.MULTI_OUTPUT_NODE
    elif is_inference_mode_enabled():
        creation = CreationMeta.INFERENCE_MODE
    elif not is_grad_enabled():
        creation = CreationMeta.NO_GRAD_MODE
    else:
        creation = inherited
    impl.autograd_meta = ViewMeta(root, creation, impl.version_counter)


def is_view(tensor: Tensor) -> bool:
    return type(tensor._impl.autograd_meta) is ViewMeta


def view_base(tensor: Tensor) -> Tensor | None:
    meta = tensor._impl.autograd_meta
    return meta.base if type(meta) is ViewMeta else None


def detach(tensor: Tensor, share_version: bool = True) -> Tensor:
    """A tensor over the same data with no autograd history (`detach()`; `.data` when
    `share_version` is False)."""
    from framework._tensor import Tensor

    alias = alias_impl(tensor._impl)
    if not share_version:
        alias.version_counter = VersionCounter()
    return Tensor(alias)


def grad(tensor: Tensor) -> Tensor | None:
    meta = tensor._impl.autograd_meta
    return meta.grad if isinstance(meta, AutogradMeta) else None


def set_grad(tensor: Tensor, value: Tensor | None) -> None:
    """`tensor.grad = value`, checked as PyTorch checks it."""
    impl = tensor._impl
    if value is not None:
        if value._impl.sizes != impl.sizes:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value._impl.sizes)}' to a tensor of "
                f"size '{list(impl.sizes)}'. Please ensure that the gradient and the tensor are the "
                "same size"
            )
        if value._impl.dtype is not impl.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{value._impl.dtype.name}' to a tensor with "
                f"dtype '{impl.dtype.name}'. Please ensure that the gradient and the tensor have the "
                "same dtype"
            )
        if value._impl.device != impl.device:
            raise RuntimeError(
                f"attempting to assign a gradient with device type '{value._impl.device.type}' to a "
                f"tensor with device type '{impl.device.type}'. Please ensure that the gradient and the "
                "tensor are on the same device"
            )
    if value is not None or isinstance(impl.autograd_meta, AutogradMeta):
        _meta(impl).grad = value


def retain_grad(tensor: Tensor) -> None:
    """Keep the gradient of a non-leaf in its `.grad` after backward."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if not isinstance(meta, AutogradMeta) or not meta.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = grad_fn_of(impl)
    if fn is None or meta.retains_grad:
        return
    holder = weakref.ref(meta)

    def retain(grad: Tensor) -> None:
        m = holder()
        if m is None:
            return
        m.grad = grad.clone() if m.grad is None else m.grad + grad

    fn.set_retains_grad_hook(meta.output_nr, retain)
    meta.retains_grad = True


def register_hook(tensor: Tensor, hook: Callable[[Tensor], Any]) -> RemovableHandle:
    """A hook on the tensor's gradient: called with it, it may return a replacement."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if not isinstance(meta, AutogradMeta) or not meta.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = grad_fn_of(impl)
    if fn is not None:
        return add_hook(fn.tensor_pre_hooks(meta.output_nr), hook)
    if meta.hooks is None:
        meta.hooks = _HookDict()
        node = meta.grad_accumulator() if meta.grad_accumulator is not None else None
        if node is not None:
            node._tensor_pre_hooks = {0: meta.hooks}
    return add_hook(meta.hooks, hook)


def register_post_accumulate_grad_hook(tensor: Tensor, hook: Callable[[Tensor], Any]) -> RemovableHandle:
    """A hook called with the leaf after its gradient was accumulated into `.grad`."""
    impl = tensor._impl
    meta = impl.autograd_meta
    if not isinstance(meta, AutogradMeta) or not meta.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if grad_fn_of(impl) is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if meta.post_accumulate_grad_hooks is None:
        meta.post_accumulate_grad_hooks = _HookDict()
    return add_hook(meta.post_accumulate_grad_hooks, hook)


def output_nr(tensor: Tensor) -> int:
    meta = tensor._impl.autograd_meta
    return meta.output_nr if isinstance(meta, AutogradMeta) else 0
