"""Forward-mode automatic differentiation (PyTorch's `torch.autograd.forward_ad`).

Inside `dual_level()`, `make_dual(x, t)` gives a tensor that carries the tangent `t` alongside its
values; every differentiable operator applied to dual tensors gives outputs whose tangents are the
Jacobian-vector products of the inputs' tangents, and `unpack_dual(y)` reads them.  As in PyTorch,
one level exists at a time (nesting is refused), the tangents of a level are dropped when it is
exited, the tangent of a view is the same view of its base's tangent, and an in-place operator
updates the tangent of the tensor it writes.

The products are computed at the Autograd key from the derivatives.yaml entries (see
`framework.autograd.derivatives`): a view operator applies itself to the tangent; any other operator
evaluates its backward formulas, which are linear in the incoming gradient, and transposes them
(the gradient of `<backward(g), t>` with respect to `g` is `J t`).  So every operator with a
derivatives.yaml entry supports forward AD, with the same formulas reverse mode uses.

The level and the on/off switch are process-wide state here (PyTorch keeps levels global too).
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import TYPE_CHECKING, Final, NamedTuple

from framework.autograd.grad_mode import _DecoratorContextManager
from framework.autograd.variable import AutogradMeta, ViewMeta, _meta
from framework.c10.tensor_impl import MATH_BITS, TensorImpl

if TYPE_CHECKING:
    from framework._tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

ACTIVE: Final[list[int]] = []
"""`[level]` while a level exists and forward grad is enabled, else empty: the generated Autograd
kernels test its truth before anything else, so forward AD costs one test when it is off."""
_LEVEL: Final[list[int]] = []
_ENABLED: Final[list[bool]] = [True]
_DUALS: Final[weakref.WeakSet[AutogradMeta]] = weakref.WeakSet()


def _refresh() -> None:
    ACTIVE[:] = _LEVEL if _ENABLED[0] else []


def _current_level() -> int:
    return _LEVEL[0] if _LEVEL else -1


def _is_fwd_grad_enabled() -> bool:
    return _ENABLED[0]


def _set_fwd_grad_enabled(enabled: bool) -> None:
    _ENABLED[0] = bool(enabled)
    _refresh()


class _Suspended:
    """Forward AD off for a block (the primal computation and the tangent formulas of one
    operator, which must not propagate tangents themselves)."""

    __slots__ = ("_saved",)

    def __enter__(self) -> None:
        self._saved = list(ACTIVE)
        ACTIVE.clear()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        ACTIVE[:] = self._saved


def suspended() -> _Suspended:
    """Forward AD off for a `with` block."""
    return _Suspended()


def enter_dual_level() -> int:
    """Create the forward AD level and return its index (0)."""
    if _LEVEL:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _LEVEL.append(0)
    _refresh()
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the level: every tangent made in it is dropped."""
    if level is None:
        level = _current_level()
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current_level():
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is "
            "not supported."
        )
    for meta in list(_DUALS):
        meta.fw_grad = None
    _DUALS.clear()
    _LEVEL.clear()
    _refresh()


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) for forward AD: all forward AD computation must happen in
    a `dual_level` context; its tangents are dropped when it exits."""

    def __enter__(self) -> int:  # type: ignore[override]
        return enter_dual_level()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view without tangent) and the tangent."""

    primal: Tensor
    tangent: Tensor | None


def fw_grad(tensor: Tensor) -> Tensor | None:
    """The tangent of `tensor` at the current level, if it has one; a view without its own takes
    the same view of its base's."""
    meta = tensor._impl.autograd_meta
    if not isinstance(meta, AutogradMeta):
        return None
    tangent = meta.fw_grad
    if tangent is None and type(meta) is ViewMeta and meta.fw_view:
        base_tangent = fw_grad(meta.base)
        if base_tangent is not None:
            impl = tensor._impl
            with _Suspended():
                tangent = base_tangent.as_strided(impl.sizes, impl.strides, impl.storage_offset)
            meta.fw_grad = tangent
            _DUALS.add(meta)
    return tangent


def _storage_numel(impl: TensorImpl) -> int:
    return impl.storage.nbytes // impl.dtype.itemsize


def set_fw_grad(tensor: Tensor, tangent: Tensor) -> None:
    """Give `tensor` the tangent `tangent`.  Unless the tangent has `tensor`'s sizes, strides,
    storage offset and storage size, it is copied into a zero tangent laid out as `tensor` in a
    storage of the same size (as PyTorch does), so that any view of `tensor`, as_strided included,
    is the same view of its tangent."""
    impl, given = tensor._impl, tangent._impl
    if given.sizes != impl.sizes:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(impl.sizes)} while the given "
            f"forward gradient is of size {list(given.sizes)}."
        )
    if (given.strides, given.storage_offset, _storage_numel(given) * impl.dtype.itemsize) != (
        impl.strides,
        impl.storage_offset,
        impl.storage.nbytes,
    ) or (given.key_set.repr ^ impl.key_set.repr) & MATH_BITS:
        import framework

        with _Suspended():
            storage = framework.zeros(_storage_numel(impl), dtype=tangent.dtype, device=tangent.device)
            laid_out = storage.as_strided(impl.sizes, impl.strides, impl.storage_offset)
            tangent = laid_out.copy_(tangent)
    meta = _meta(impl)
    meta.fw_grad = tangent
    _DUALS.add(meta)


def update_fw_grad(tensor: Tensor, tangent: Tensor) -> None:
    """An in-place operator wrote `tensor`, whose tangent is now `tangent`: write it into the
    existing tangent (which a view's base shares), else into a zero tangent given to the base of a
    view, else make it the tangent."""
    current = fw_grad(tensor)
    if current is None:
        meta = tensor._impl.autograd_meta
        if type(meta) is ViewMeta:
            import framework

            base = meta.base
            with _Suspended():
                set_fw_grad(base, framework.zeros_like(base, dtype=tangent.dtype))
            current = fw_grad(tensor)
    if current is None:
        set_fw_grad(tensor, tangent)
        return
    with _Suspended():
        current.copy_(tangent)


def _check_level(level: int | None) -> int:
    if level is None:
        level = _current_level()
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` whose tangent is `tangent` (kept as given when its strides match
    `tensor`'s, else copied into `tensor`'s layout)."""
    level = _check_level(level)
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.dtype.is_floating_point or tangent.dtype.is_complex):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if level != _current_level():
        raise RuntimeError(f"Trying to use the forward AD level {level}, which does not exist.")
    if fw_grad(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
            f"level {level} is not supported."
        )
    with _Suspended():
        dual = tensor.view(tensor.shape)
    set_fw_grad(dual, tangent)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)`: the primal is a view of `tensor` without tangent, the tangent is
    `tensor`'s as stored (None without one).  Outside a level, `(tensor, None)`."""
    level = _check_level(level)
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    import framework

    tangent = fw_grad(tensor)
    with _Suspended():
        primal = framework.alias(tensor)
    meta = primal._impl.autograd_meta
    if type(meta) is ViewMeta:
        meta.fw_view = False
    return UnpackedDualTensor(primal, tangent)


def tangent_repr(tensor: Tensor) -> str | None:
    """What a tensor's repr shows after `tangent=` (None for a tensor without tangent): the
    tangent's repr, or its value for a zero-dim tensor, as PyTorch prints it."""
    if not _LEVEL:
        return None
    tangent = fw_grad(tensor)
    if tangent is None:
        return None
    return repr(tangent.item()) if tangent.dim() == 0 else repr(tangent)

