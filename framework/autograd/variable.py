"""Autograd metadata on a TensorImpl and `make_variable`, which every factory output goes through."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework._tensor import Tensor


class AutogradMeta:
    """What autograd knows about one tensor: whether it requires grad, and its gradient."""

    __slots__ = ("grad", "requires_grad")

    def __init__(self, requires_grad: bool = False) -> None:
        self.requires_grad = requires_grad
        self.grad: Tensor | None = None


def set_requires_grad(tensor: Tensor, requires_grad: bool) -> None:
    """Set the flag, refusing it on dtypes that cannot hold gradients (as PyTorch does)."""
    impl = tensor._impl
    if requires_grad and not (impl.dtype.is_floating_point or impl.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    meta = impl.autograd_meta
    if isinstance(meta, AutogradMeta):
        meta.requires_grad = requires_grad
    elif requires_grad:
        impl.autograd_meta = AutogradMeta(requires_grad=True)


def make_variable(tensor: Tensor, requires_grad: bool = False) -> Tensor:
    """Attach autograd metadata to a freshly made tensor (PyTorch's `make_variable`)."""
    if requires_grad:
        set_requires_grad(tensor, True)
    return tensor


def requires_grad(tensor: Tensor) -> bool:
    meta = tensor._impl.autograd_meta
    return isinstance(meta, AutogradMeta) and meta.requires_grad


def grad(tensor: Tensor) -> Tensor | None:
    meta = tensor._impl.autograd_meta
    return meta.grad if isinstance(meta, AutogradMeta) else None
