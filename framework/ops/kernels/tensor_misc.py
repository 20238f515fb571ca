"""Kernels of the `*_copy` operators (each a view operator's result copied out, contiguous, as
PyTorch's functionalization uses them), `dropout_`, `adjoint`, `fill`, `nonzero_static`,
`empty_permuted`, and the storage operators `resize_`, `resize_as_`, `set_` and `is_set_to`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor, warn_once
from framework._typed_storage import TypedStorage
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import dtype as _dtype
from framework.c10.dtypes import int64
from framework.c10.storage import StorageImpl, UntypedStorage, get_cpu_allocator, get_meta_allocator
from framework.c10.tensor_impl import contiguous_strides
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    array,
    aten_op,
    is_meta,
    kernel,
    new_tensor,
    register_variants,
)
from framework.ops.kernels.nn_more import _dropout_impl
from framework.ops.kernels.views import _write_out, format_strides, suggest_memory_format

_CONTIGUOUS = MemoryFormat.contiguous_format


# ---- *_copy -------------------------------------------------------------------------------------


def _contiguous_copy(t: Tensor) -> Tensor:
    result: Tensor = aten_op("clone.default")(t, memory_format=_CONTIGUOUS)
    return result


def _register_copy(name: str, view: str) -> None:
    """Register `name` (the view overload `view`'s result, copied out contiguous) and `name_out`."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _contiguous_copy(aten_op(view)(self, *args, **kwargs))

    def out_variant(self: Tensor, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        return _write_out(out, functional(self, *args, **kwargs))

    register_variants(name, {"": functional, "_out": out_variant})


def _register_list_copy(name: str, view: str) -> None:
    """Register `name`: each view of the multi-output view overload `view`, copied out contiguous."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> list[Tensor]:
        return [_contiguous_copy(t) for t in aten_op(view)(self, *args, **kwargs)]

    register_variants(name, {"": functional})


for _name, _view in (
    ("view_copy", "_reshape_copy.default"),  # PyTorch copies views it cannot make too
    ("permute_copy", "permute.default"),
    ("transpose_copy", "transpose.int"),
    ("t_copy", "t.default"),
    ("expand_copy", "expand.default"),
    ("squeeze_copy", "squeeze.default"),
    ("squeeze_copy_dim", "squeeze.dim"),
    ("squeeze_copy_dims", "squeeze.dims"),
    ("unsqueeze_copy", "unsqueeze.default"),
    ("select_copy", "select.int"),
    ("slice_copy", "slice.Tensor"),
    ("diagonal_copy", "diagonal.default"),
    ("unfold_copy", "unfold.default"),
    ("alias_copy", "alias.default"),
    ("detach_copy", "alias.default"),
    ("as_strided_copy", "as_strided.default"),
    ("narrow_copy", "narrow.default"),
    ("view_as_real_copy", "view_as_real.default"),
):
    _register_copy(_name, _view)

for _name, _view in (
    ("split_copy", "split.Tensor"),
    ("split_with_sizes_copy", "split_with_sizes.default"),
    ("unbind_copy", "unbind.int"),
):
    _register_list_copy(_name, _view)


# ---- dropout_, adjoint, fill --------------------------------------------------------------------


@kernel("dropout_")
def dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    """PyTorch's in-place dropout: multiply `self` by bernoulli(1 - p) noise scaled by 1 / (1 - p)."""
    return _dropout_impl(self, p, train, False, False, True)


@kernel("adjoint")
def adjoint(self: Tensor) -> Tensor:
    """The last two dimensions swapped, conjugated for complex tensors (a view: a conjugate view
    of the transpose, as PyTorch's)."""
    impl = self._impl
    if impl.dim() == 0:
        warn_once("adjoint0", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        result = self
    elif impl.dim() == 1:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    else:
        result = aten_op("transpose.int")(self, -2, -1)
    return aten_op("conj.default")(result) if impl.dtype.is_complex else result


@kernel("fill_Tensor_")
def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    """Fill `self` with the value of the 0-dim tensor `value`."""
    if value._impl.dim() != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value._impl.dim()} dimensions."
        )
    if not is_meta(self._impl.device):
        aten_op("fill_.Scalar")(self, value.item())
    return self


def _filled(self: Tensor, value: Any, fill: str) -> Tensor:
    result: Tensor = aten_op(fill)(aten_op("empty_like.default")(self), value)
    return result


register_variants(
    "fill",
    {
        "_Scalar": lambda self, value: _filled(self, value, "fill_.Scalar"),
        "_Tensor": lambda self, value: _filled(self, value, "fill_.Tensor"),
        "_Scalar_out": lambda self, value, *, out: _write_out(out, _filled(self, value, "fill_.Scalar")),
        "_Tensor_out": lambda self, value, *, out: _write_out(out, _filled(self, value, "fill_.Tensor")),
    },
)


# ---- nonzero_static, empty_permuted -------------------------------------------------------------


def _nonzero_static_indices(self: Tensor, size: int, fill_value: int) -> npt.NDArray[np.int64]:
    """The first `size` indices of nonzero elements (one row each), padded with `fill_value`."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    impl = self._impl
    found = np.full((size, impl.dim()), fill_value, dtype=np.int64)
    if not is_meta(impl.device):
        indices = np.argwhere(array(self))[:size]
        found[: len(indices)] = indices
    return found


@kernel("nonzero_static")
def nonzero_static(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    found = _nonzero_static_indices(self, size, fill_value)
    out = new_tensor(found.shape, int64, self._impl.device)
    if not is_meta(self._impl.device):
        array(out)[...] = found
    return out


@kernel("nonzero_static_out")
def nonzero_static_out(self: Tensor, *, size: int, fill_value: int = -1, out: Tensor) -> Tensor:
    if out._impl.dtype is not int64:
        raise RuntimeError(
            "nonzero_static: Expected out tensor to have scalar type Long but got scalar type"
            f"{out._impl.dtype.scalar_type_name}"
        )
    return _write_out(out, nonzero_static(self, size=size, fill_value=fill_value))


@kernel("empty_permuted")
def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: _dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """An uninitialised tensor of logical `size` whose memory holds the dimensions in the order
    `physical_layout` (outermost first): the strides of a contiguous tensor of the permuted sizes."""
    sizes = tuple(size)
    order = tuple(physical_layout)
    if len(sizes) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(sizes)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = [False] * len(sizes)
    for i, d in enumerate(order):
        if not 0 <= d < len(sizes):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(sizes) - 1}, but got {d} at "
                "index "
                f"{i}).  NB: negative dims not currently supported; file an issue if you want it."
            )
        if seen[d]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[d] = True
    physical = contiguous_strides([sizes[d] for d in order])
    strides = [0] * len(sizes)
    for d, stride in zip(order, physical, strict=True):
        strides[d] = stride
    result: Tensor = aten_op("empty_strided.default")(
        list(sizes), strides, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
    )
    return result


@kernel("empty_permuted_out")
def empty_permuted_out(size: Sequence[int], physical_layout: Sequence[int], *, out: Tensor) -> Tensor:
    return _write_out(
        out, empty_permuted(size, physical_layout, dtype=out._impl.dtype, device=out._impl.device)
    )


# ---- resize_, resize_as_, set_, is_set_to -------------------------------------------------------


@kernel("resize_")
def resize_(self: Tensor, size: Sequence[int], *, memory_format: MemoryFormat | None = None) -> Tensor:
    """Give `self` the sizes `size` with contiguous (or `memory_format`) strides, growing its
    storage if it is too small (refused for storage that is not resizable, e.g. NumPy's memory)."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    impl = self._impl
    sizes = tuple(size)
    if sizes == impl.sizes and memory_format is None:
        return self
    if memory_format is MemoryFormat.preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    impl.resize_(sizes)
    if memory_format is not None and memory_format is not _CONTIGUOUS:
        impl.set_geometry(sizes, format_strides(sizes, memory_format), impl.storage_offset)
    return self


@kernel("resize_as_")
def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: MemoryFormat | None = None) -> Tensor:
    """`resize_` to the sizes of `the_template` (preserve_format: the format its strides suggest)."""
    if memory_format is MemoryFormat.preserve_format:
        memory_format = suggest_memory_format(the_template._impl)
    result: Tensor = aten_op("resize_.default")(
        self, list(the_template._impl.sizes), memory_format=memory_format
    )
    return result


def _source_storage(self: Tensor, source: Tensor | UntypedStorage | TypedStorage) -> StorageImpl:
    """The storage `set_` points `self` at, with PyTorch's dtype and device checks."""
    impl = self._impl
    if isinstance(source, Tensor):
        if source._impl.dtype is not impl.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {CPP_TYPE_NAMES[source._impl.dtype]} to a tensor of type "
                f"{CPP_TYPE_NAMES[impl.dtype]}"
            )
        storage = source._impl.storage
    elif isinstance(source, TypedStorage) and source.dtype is not impl.dtype:
        raise RuntimeError(
            f"Expected a Storage of type {CPP_TYPE_NAMES[impl.dtype]} or an UntypedStorage, but got "
            f"type {source.dtype.scalar_type_name} for argument 1 'storage'"
        )
    else:
        storage = (source if isinstance(source, UntypedStorage) else source.untyped())._impl
    if storage.device != impl.device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{impl.device}" to a storage on '
            f'different device "{storage.device}".  This is no longer allowed; the devices must match.'
        )
    return storage


@kernel("set_")
def set_(
    self: Tensor,
    source: Tensor | UntypedStorage | TypedStorage | None = None,
    storage_offset: int | None = None,
    size: Sequence[int] = (),
    stride: Sequence[int] = (),
) -> Tensor:
    """Make `self` view `source`'s storage: with `source`'s geometry (a tensor), all of it as a
    1-D tensor (a storage), or the given offset, sizes and strides (contiguous when `stride` is
    empty), growing the storage if they need more; no source: a new empty storage."""
    impl = self._impl
    if source is None:
        storage = StorageImpl(0, get_meta_allocator() if is_meta(impl.device) else get_cpu_allocator())
        geometry: tuple[tuple[int, ...], tuple[int, ...], int] = ((0,), (1,), 0)
    else:
        storage = _source_storage(self, source)
        if storage_offset is not None:
            sizes = tuple(size)
            strides = tuple(stride) if stride else contiguous_strides(sizes)
            if len(strides) != len(sizes):
                raise RuntimeError(f"unequal size length ({len(sizes)}) and stride length ({len(strides)})")
            if storage_offset < 0:
                raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
            geometry = (sizes, strides, storage_offset)
        elif isinstance(source, Tensor):
            s = source._impl
            geometry = (s.sizes, s.strides, s.storage_offset)
        else:
            geometry = ((storage.nbytes // impl.dtype.itemsize,), (1,), 0)
    sizes, strides, offset = geometry
    if 0 not in sizes:
        extent = offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
        if extent * impl.dtype.itemsize > storage.nbytes:
            storage.resize_(extent * impl.dtype.itemsize)
    impl.storage = storage
    impl.set_geometry(sizes, strides, offset)
    return self


@kernel("is_set_to")
def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether `self` and `tensor` view the same storage with the same offset, sizes and strides."""
    a, b = self._impl, tensor._impl
    return (
        a.storage is b.storage
        and a.storage_offset == b.storage_offset
        and a.sizes == b.sizes
        and a.strides == b.strides
    )
