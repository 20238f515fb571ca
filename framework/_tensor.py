"""`Tensor`: the Python handle on a `TensorImpl` (PyTorch's `at::Tensor` / `torch.Tensor`)."""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn, SupportsIndex, TypeGuard, TypeVar, overload

import numpy as np
import numpy.typing as npt

from framework import _indexing
from framework._generated.tensor_methods import TensorMethods
from framework._method_table import set_tensor_class
from framework._size import SIZES as _SIZES
from framework._size import Size, size_of
from framework._tensor_str import format_tensor
from framework._torch_function import (
    DisableTorchFunctionSubclass,
    route_attributes,
    route_subclass,
    routed_attributes,
)
from framework._typed_storage import TypedStorage, legacy_storage, warn_typed_storage_removal
from framework.autograd import variable
from framework.autograd.forward_ad import tangent_repr
from framework.autograd.graph import is_inference
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dispatch_key import DispatchKeySet
from framework.c10.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype,
    dtype_from_numpy,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from framework.c10.dtypes import dtype as _dtype
from framework.c10.storage import StorageImpl, UntypedStorage, get_cpu_allocator, get_meta_allocator
from framework.c10.tensor_impl import CONJ_BIT, NEG_BIT, TensorImpl

if TYPE_CHECKING:
    from framework.autograd.graph import Node, RemovableHandle

_T = TypeVar("_T", bound="Tensor")

_WARNED: Final[set[str]] = set()
"""The warnings given once per process (PyTorch's TORCH_WARN_ONCE) already given: the deprecations of
`T`/`mT`/`mH`/`H`, index_reduce's beta notice."""


_WARN_ALWAYS: list[bool] = [False]
"""`framework.set_warn_always`: give the once-per-process warnings every time."""


def warn_once(key: str, message: str) -> None:
    if key not in _WARNED or _WARN_ALWAYS[0]:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def set_warn_always_flag(value: builtins.bool) -> None:
    _WARN_ALWAYS[0] = value


def warn_always_enabled() -> builtins.bool:
    return _WARN_ALWAYS[0]


def wrap_dim(dim: int, ndim: int, *, wrap_scalar: bool = True) -> int:
    """`dim` as an index in [0, ndim), negative dims counting from the end (PyTorch's
    maybe_wrap_dim); a 0-dim tensor accepts dims -1 and 0 unless `wrap_scalar` is False."""
    if ndim == 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
        )
    return dim % ndim


class Tensor(TensorMethods):
    """A handle on a `TensorImpl`; several handles may share one storage (views).

    Its operator methods (`add`, `__add__`, ...) are generated from native_functions.yaml."""

    __slots__ = ("__weakref__", "_impl")

    __array_priority__ = 1000
    """Above NumPy's: a NumPy scalar or array on the left of an operator defers to the tensor's
    reflected operator, so `np.float64(2) * t` is a tensor, as in PyTorch."""

    def __init__(self, impl: TensorImpl) -> None:
        self._impl = impl

    def __hash__(self) -> builtins.int:
        return id(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        route_subclass(cls)

    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: Sequence[builtins.type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """PyTorch's default handler of the `__torch_function__` protocol (`framework.overrides`):
        NotImplemented unless `cls` subclasses every type involved; else `func` runs with subclass
        handlers disabled, and its tensor results (in tuples and lists too) become `cls` instances
        (`as_subclass`), except for `.grad` and `._base`."""
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **(kwargs or {}))
            if func in _nowrap_functions():
                return result
            return _convert(result, cls)

    @property
    def requires_grad(self) -> builtins.bool:
        return variable.requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None:
        variable.set_requires_grad(self, value)

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        variable.set_requires_grad(self, requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (leaves, and non-leaves that retain_grad)."""
        value = variable.grad(self)
        if value is None and not self.retains_grad and not self.is_leaf:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
                "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
                "information.",
                UserWarning,
                stacklevel=2,
            )
        return value

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        variable.set_grad(self, value)

    @grad.deleter
    def grad(self) -> None:
        variable.set_grad(self, None)

    @property
    def grad_fn(self) -> Node | None:
        """The node that computed this tensor (None for leaves)."""
        return variable.grad_fn_of(self._impl)

    @property
    def is_leaf(self) -> builtins.bool:
        return variable.grad_fn_of(self._impl) is None

    @property
    def output_nr(self) -> builtins.int:
        return variable.output_nr(self)

    @property
    def retains_grad(self) -> builtins.bool:
        meta = self._impl.autograd_meta
        return isinstance(meta, variable.AutogradMeta) and meta.retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in `.grad` after backward."""
        if self.is_leaf:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        variable.retain_grad(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it."""
        return variable.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call `hook(tensor)` after a gradient was accumulated into this leaf's `.grad`."""
        return variable.register_post_accumulate_grad_hook(self, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor into the leaves' `.grad` (`torch.Tensor.backward`)."""
        from framework.autograd.engine import backward

        backward(self, None if gradient is None else [gradient], retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        """The same data, cut from the graph (shares the version counter)."""
        return variable.detach(self)

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad."""
        if variable.is_view(self):
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                "function in torch/optim/optimizer.py as the solution."
            )
        meta = self._impl.autograd_meta
        if isinstance(meta, variable.AutogradMeta):
            meta.grad_fn = None
            meta.output_nr = 0
            meta._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The same data, cut from the graph, with a version counter of its own."""
        return variable.detach(self, share_version=False)

    @data.setter
    def data(self, value: Tensor) -> None:
        src = value._impl
        impl = self._impl
        impl.storage = src.storage
        impl.dtype = src.dtype
        impl.set_geometry(src.sizes, src.strides, src.storage_offset)

    @property
    def _version(self) -> builtins.int:
        if is_inference(self._impl):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._impl.version_counter.version

    @property
    def _base(self) -> Tensor | None:
        return variable.view_base(self)

    def _is_view(self) -> builtins.bool:
        return variable.is_view(self)

    def is_inference(self) -> builtins.bool:
        """Whether this tensor was made in inference mode."""
        return is_inference(self._impl)

    @property
    def shape(self) -> Size:
        sizes = self._impl.sizes
        try:
            return _SIZES[sizes]
        except KeyError:
            return size_of(sizes)

    @overload
    def size(self, dim: None = None) -> Size: ...

    @overload
    def size(self, dim: builtins.int) -> builtins.int: ...

    def size(self, dim: builtins.int | None = None) -> Size | builtins.int:
        if dim is None:
            return self.shape
        sizes = self._impl.sizes
        return sizes[wrap_dim(dim, len(sizes), wrap_scalar=False)]

    def stride(self, dim: builtins.int | None = None) -> tuple[builtins.int, ...] | builtins.int:
        strides = self._impl.strides
        return strides if dim is None else strides[wrap_dim(dim, len(strides), wrap_scalar=False)]

    def storage_offset(self) -> builtins.int:
        return self._impl.storage_offset

    @property
    def dtype(self) -> dtype:
        return self._impl.dtype

    @property
    def device(self) -> Device:
        return self._impl.device

    @property
    def is_cpu(self) -> builtins.bool:
        return self._impl.device.type == "cpu"

    @property
    def is_meta(self) -> builtins.bool:
        return self._impl.device.type == "meta"

    @property
    def is_cuda(self) -> builtins.bool:
        """False: there are only CPU and meta tensors (as `is_sparse`, `is_quantized`,
        `is_mkldnn` and `is_nested`: every tensor is a dense strided one)."""
        return False

    is_sparse = is_quantized = is_mkldnn = is_nested = is_cuda

    @property
    def layout(self) -> Layout:
        return Layout.strided

    def get_device(self) -> builtins.int:
        """The device index: -1 for CPU (and meta) tensors, as PyTorch."""
        return -1

    def is_pinned(self) -> builtins.bool:
        """False: pinned memory belongs to an accelerator, and there is none."""
        return False

    def pin_memory(self) -> Tensor:
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        raise AssertionError("Torch not compiled with CUDA enabled")

    @property
    def real(self) -> Tensor:
        """The real part: a view of a complex tensor's real values, a real tensor itself.
        Assigning copies into it (`t.real = values`)."""
        return _real(self)

    @real.setter
    def real(self, value: Tensor | complex) -> None:
        _real(self).copy_(value)

    @property
    def imag(self) -> Tensor:
        """The imaginary part of a complex tensor (a view); PyTorch's error for other dtypes.
        Assigning copies into it."""
        return _imag(self)

    @imag.setter
    def imag(self, value: Tensor | complex) -> None:
        _imag(self).copy_(value)

    def new(self, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor of this tensor's dtype (`x.new(2, 3)`: uninitialised of these
        sizes; `x.new(data)`: a copy of the data in this dtype; `x.new()`: empty)."""
        from framework._tensor_type import LEGACY_TYPES, legacy_type_name

        legacy = LEGACY_TYPES[legacy_type_name(self._impl.dtype).removeprefix("framework.")]
        result: Tensor = legacy(*args, **kwargs)
        return result

    def apply_(self, callable: Callable[[Any], Any]) -> Tensor:
        """Replace each element by `callable(element)`, in place: a Python call per element (as in
        PyTorch, which says so: not for code that needs speed); CPU tensors only."""
        return self._map("apply_", callable)

    def map_(self, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
        """Replace each element by `callable(element, other)`, `other` the element of `tensor`
        (broadcast to this tensor's shape) at the same place, in place; CPU tensors only."""
        return self._map("map_", callable, tensor)

    def map2_(self, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Tensor:
        """Replace each element by `callable(element, x_element, y_element)` (`x` and `y`, of this
        tensor's dtype, broadcast to its shape), in place; CPU tensors only."""
        for name, other in (("x", x), ("y", y)):
            if other._impl.dtype is not self._impl.dtype:
                raise TypeError(
                    f"map2_: expected {self.type().replace('framework.', 'torch.')} for argument "
                    f"'{name}' (got {other.type().replace('framework.', 'torch.')})"
                )
        if x.requires_grad or y.requires_grad:
            raise RuntimeError(
                "Can't call map2_() on Variable that requires grad. Use var.detach().map2_() instead."
            )
        return self._map("map2_", callable, x, y)

    def _map(self, name: str, callable: Callable[..., Any], *others: Tensor) -> Tensor:
        if self.requires_grad:
            raise RuntimeError(
                f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead."
            )
        if self._impl.device.type == "meta":
            return self
        values = self._impl.numpy_view()
        arrays = [other.expand_as(self)._impl.numpy_view() for other in others]
        for index in np.ndindex(values.shape):
            result = callable(values[index].item(), *(a[index].item() for a in arrays))
            if not isinstance(result, (builtins.int, builtins.float, builtins.complex)):
                raise TypeError(f"must be real number, not {type(result).__name__}")
            values[index] = result
        self._impl.version_counter.bump()
        return self

    @property
    def key_set(self) -> DispatchKeySet:
        """The dispatch keys of this tensor (PyTorch's `torch._C._dispatch_keys(t)`)."""
        return self._impl.key_set

    def dim(self) -> builtins.int:
        return len(self._impl.sizes)

    @property
    def ndim(self) -> builtins.int:
        return len(self._impl.sizes)

    def ndimension(self) -> builtins.int:
        """The number of dimensions (an alias of `dim`)."""
        return len(self._impl.sizes)

    def element_size(self) -> builtins.int:
        """Bytes per element."""
        return self._impl.dtype.itemsize

    @property
    def itemsize(self) -> builtins.int:
        return self._impl.dtype.itemsize

    @property
    def nbytes(self) -> builtins.int:
        return self._impl.numel() * self._impl.dtype.itemsize

    def numel(self) -> builtins.int:
        return self._impl.numel()

    def nelement(self) -> builtins.int:
        """The number of elements (an alias of `numel`)."""
        return self._impl.numel()

    def is_floating_point(self) -> builtins.bool:
        """Whether the dtype is a floating point type (float16, float32, float64)."""
        return self._impl.dtype.is_floating_point

    def is_complex(self) -> builtins.bool:
        """Whether the dtype is a complex type."""
        return self._impl.dtype.is_complex

    def is_conj(self) -> builtins.bool:
        """Whether this is a lazily conjugated view (its elements read conjugated)."""
        return builtins.bool(self._impl.key_set.repr & CONJ_BIT)

    def is_neg(self) -> builtins.bool:
        """Whether this is a lazily negated view (its elements read negated)."""
        return builtins.bool(self._impl.key_set.repr & NEG_BIT)

    def is_signed(self) -> builtins.bool:
        """Whether the dtype is signed (every dtype but uint8 and bool)."""
        return self._impl.dtype.is_signed

    def is_contiguous(self) -> builtins.bool:
        return self._impl.is_contiguous()

    def data_ptr(self) -> builtins.int:
        impl = self._impl
        return impl.storage.data_ptr() + impl.storage_offset * impl.dtype.itemsize

    def const_data_ptr(self) -> builtins.int:
        """The address of the first element, for reading (the same as `data_ptr`)."""
        return self.data_ptr()

    def dim_order(
        self, *, ambiguity_check: builtins.bool | list[MemoryFormat] = False
    ) -> tuple[builtins.int, ...]:
        """The dimensions from the outermost to the innermost in memory (PyTorch's order for an
        elementwise result's strides). `ambiguity_check`: True refuses a tensor with several
        orders (size-1 dimensions or equal strides); a list of memory formats refuses it unless it
        is contiguous in exactly one of them."""
        from framework._api_misc import tensor_dim_order

        if not isinstance(ambiguity_check, builtins.bool) and not (
            isinstance(ambiguity_check, list) and all(isinstance(f, MemoryFormat) for f in ambiguity_check)
        ):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
        return tensor_dim_order(self._impl, ambiguity_check)

    def numpy(self, *, force: builtins.bool = False) -> npt.NDArray[Any]:
        """A NumPy array sharing this tensor's memory (`force=True`: a copy, even of a tensor
        that requires grad)."""
        if force:
            self._check_numpy_dtype()
            return self._impl.logical_values().copy()
        return self._array()

    def _check_numpy_dtype(self) -> None:
        """PyTorch hands NumPy no bfloat16 (NumPy has none)."""
        if self._impl.dtype is bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")

    def _array(self) -> npt.NDArray[Any]:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        bits = self._impl.key_set.repr
        if bits & CONJ_BIT:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. "
                "Use tensor.resolve_conj().numpy() instead."
            )
        if bits & NEG_BIT:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has negative bit set. "
                "Use tensor.resolve_neg().numpy() instead."
            )
        self._check_numpy_dtype()
        return self._impl.numpy_view()

    def __array__(self, dtype: Any = None, copy: builtins.bool | None = None) -> npt.NDArray[Any]:
        array = self._array()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def __array_wrap__(
        self, array: npt.NDArray[Any], context: Any = None, return_scalar: builtins.bool = False
    ) -> Tensor:
        """NumPy functions of tensors give tensors, as in PyTorch (`np.sin(t)`, and `t + array`,
        which the operator leaves to NumPy): the result's memory becomes a tensor's, a bool
        result a uint8 one (PyTorch's choice)."""
        return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def tolist(self) -> Any:
        return self._impl.logical_values().tolist()

    def __len__(self) -> builtins.int:
        if not self._impl.sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._impl.sizes[0]

    def __bool__(self) -> builtins.bool:
        n = self._impl.numel()
        if n != 1:
            amount = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self.item())

    def __getitem__(self, index: Any) -> Tensor:
        return _indexing.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _indexing.setitem(self, index, value)

    def __iter__(self) -> Iterator[Tensor]:
        if not self._impl.sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    @property
    def T(self) -> Tensor:
        """The dimensions reversed (`permute(n-1, ..., 0)`); PyTorch deprecates it for tensors that
        are not matrices, with a warning given once per process (0-dim tensors have a warning of
        their own)."""
        ndim = self.dim()
        if ndim == 0:
            warn_once(
                "T0", "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
            )
        elif ndim != 2:
            warn_once(
                "T",
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
                "reverse the dimensions of a tensor.",
            )
        return self.permute(list(range(ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        """Each matrix of a batch transposed (`transpose(-2, -1)`)."""
        ndim = self.dim()
        if ndim == 0:
            warn_once(
                "mT0", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."
            )
            return self
        if ndim < 2:
            raise RuntimeError(
                f"tensor.mT is only supported on matrices or batches of matrices. Got {ndim}-D tensor."
            )
        return self.transpose(-2, -1)

    @property
    def mH(self) -> Tensor:
        """Each matrix of a batch transposed and conjugated; for tensors that are not complex the
        same as `mT`."""
        ndim = self.dim()
        if ndim == 0:
            warn_once("mH0", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
            return self.conj()
        if ndim < 2:
            raise RuntimeError(
                f"tensor.mH is only supported on matrices or batches of matrices. Got {ndim}-D tensor."
            )
        return self.transpose(-2, -1).conj()

    @property
    def H(self) -> Tensor:
        """The matrix transposed and conjugated; for tensors that are not complex the same as `T`
        of a matrix."""
        ndim = self.dim()
        if ndim == 0:
            warn_once("H0", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
            return self.conj()
        if ndim != 2:
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor. For "
                "batches of matrices, consider using tensor.mH"
            )
        return self.transpose(0, 1).conj()

    @overload
    def type(self, dtype: None = None, non_blocking: builtins.bool = False) -> str: ...

    @overload
    def type(
        self, dtype: str | _dtype | builtins.type[Tensor], non_blocking: builtins.bool = False
    ) -> Tensor: ...

    def type(
        self,
        dtype: str | _dtype | builtins.type[Tensor] | None = None,
        non_blocking: builtins.bool = False,
    ) -> str | Tensor:
        """The legacy type name (`'framework.FloatTensor'`) without `dtype`; with it, this tensor
        converted to `dtype`: a dtype, a legacy type (`framework.LongTensor`) or its name
        (`'framework.LongTensor'`, `'torch.LongTensor'` accepted too), itself when already of it."""
        from framework._tensor_type import legacy_type_name, resolve_type

        if dtype is None:
            return legacy_type_name(self._impl.dtype)
        target = resolve_type(dtype)
        if target is self._impl.dtype:
            return self
        return self.to(target, non_blocking=non_blocking)

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def half(self) -> Tensor:
        return self.to(float16)

    def bfloat16(self) -> Tensor:
        return self.to(bfloat16)

    def byte(self) -> Tensor:
        return self.to(uint8)

    def char(self) -> Tensor:
        return self.to(int8)

    def short(self) -> Tensor:
        return self.to(int16)

    def cfloat(self) -> Tensor:
        return self.to(complex64)

    def cdouble(self) -> Tensor:
        return self.to(complex128)

    def long(self) -> Tensor:
        return self.to(int64)

    def int(self) -> Tensor:
        return self.to(int32)

    def bool(self) -> Tensor:
        return self.to(bool_)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """The generated `to` overloads, plus PyTorch's Python-only `to(device, dtype=None,
        non_blocking=False, copy=False)` form with a positional device."""
        if args and isinstance(args[0], (str, Device)):
            options = dict(zip(("device", "dtype", "non_blocking", "copy"), args, strict=False))
            return super().to(**options, **kwargs)
        return super().to(*args, **kwargs)

    def __copy__(self) -> Tensor:
        """A new leaf of the same class over the same memory and geometry, with `requires_grad`
        and a subclass's attributes but no `.grad` (what PyTorch's pickling protocol gives
        `copy.copy`)."""
        impl = self._impl
        new = _new_leaf(
            type(self),
            TensorImpl(impl.storage, impl.dtype, impl.sizes, impl.strides, impl.storage_offset),
            self.requires_grad,
        )
        state = _subclass_state(self)
        if state is not None:
            attributes, slots = state
            for name, value in (*(attributes or {}).items(), *slots.items()):
                setattr(new, name, value)
        return new

    def __deepcopy__(self, memo: dict[builtins.int, Any]) -> Tensor:
        """A copy with its own memory, `requires_grad` and (copied) `.grad`; graph leaves only.
        Tensors copied together that share a storage (views) share the copied storage."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        done = memo.get(id(self))
        if done is not None:
            return done  # type: ignore[no-any-return]
        impl = self._impl
        storage = memo.get(id(impl.storage))
        if storage is None:
            storage = memo[id(impl.storage)] = impl.storage.copy()
            memo.setdefault(id(memo), []).append(impl.storage)  # keep the source alive, as deepcopy does
        new = Tensor(TensorImpl(storage, impl.dtype, impl.sizes, impl.strides, impl.storage_offset))
        memo[id(self)] = new
        if self.requires_grad:
            new.requires_grad_()
        grad = variable.grad(self)
        if grad is not None:
            new.grad = grad.__deepcopy__(memo)
        return new

    def cpu(self) -> Tensor:
        return self.to(device="cpu")

    def untyped_storage(self) -> UntypedStorage:
        """The storage this tensor views (shared by all its views), as bytes."""
        return UntypedStorage(self._impl.storage)

    def storage(self) -> TypedStorage:
        """The storage this tensor views, as elements of its dtype (deprecated in PyTorch, which
        warns once: `untyped_storage()` is the bytes)."""
        warn_typed_storage_removal()
        return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self._impl.dtype, _internal=True)

    def storage_type(self) -> builtins.type[Any]:
        """The legacy storage type of this tensor's dtype (`framework.FloatStorage`, ...)."""
        return legacy_storage(self._impl.dtype)

    def share_memory_(self) -> Tensor:
        """Move this tensor's storage into shared memory (a no-op if it is there already); the
        tensor and every view of the storage keep working on the moved bytes."""
        self._impl.storage.share_memory_()
        return self

    def is_shared(self) -> builtins.bool:
        """Whether this tensor's storage is in shared memory."""
        return self._impl.storage.is_shared()

    def as_subclass(self, cls: builtins.type[_T]) -> _T:
        """This tensor as an instance of the Tensor subclass `cls`, sharing data and autograd
        history (an alias, as PyTorch's)."""
        if not (isinstance(cls, builtins.type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                "possible. Make sure your class inherits from Tensor."
            )
        from framework.ops.kernels._registry import aten_op

        alias: Tensor = aten_op("alias.default")(self)
        result = cls.__new__(cls)
        result._impl = alias._impl
        return result

    @property
    def volatile(self) -> builtins.bool:
        """Removed in PyTorch (always False; warns)."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value: builtins.bool) -> None:
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            UserWarning,
            stacklevel=2,
        )

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[builtins.int, builtins.int] | None = None,
        dl_device: Any = None,
        copy: builtins.bool | None = None,
    ) -> Any:
        """A DLPack capsule sharing this tensor's memory (NumPy's DLPack export of its elements)."""
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        array = self._impl.numpy_view()
        if max_version is None:
            return array.__dlpack__(stream=None, copy=copy)
        return array.__dlpack__(stream=None, max_version=max_version, copy=copy)

    def __dlpack_device__(self) -> tuple[builtins.int, builtins.int]:
        """(device type, index) in DLPack's numbering: (1, 0) for the CPU."""
        if self._impl.device.type != "cpu":
            raise BufferError(f"Cannot export a tensor on device '{self._impl.device}' through DLPack")
        return (1, 0)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle as the bytes of the whole storage plus the geometry, dtype and `requires_grad`
        (as PyTorch, neither the graph nor `.grad`; each tensor pickles its own storage). The
        class is kept, and so are a subclass's attributes."""
        impl = self._impl
        data = impl.storage.data
        state = _subclass_state(self)
        args = (
            type(self),
            None if data is None else data.tobytes(),
            impl.storage.nbytes,
            impl.dtype,
            str(impl.device),
            impl.sizes,
            impl.strides,
            impl.storage_offset,
            self.requires_grad,
        )
        return (_rebuild_tensor, args) if state is None else (_rebuild_tensor, args, state)

    def _real_item(self, to: str) -> builtins.int | builtins.float:
        value = self.item()
        if isinstance(value, complex):
            raise TypeError(f"can't convert complex to {to}")
        return value

    def __float__(self) -> builtins.float:
        return float(self._real_item("float"))

    def __int__(self) -> builtins.int:
        return int(self._real_item("int"))

    def __index__(self) -> builtins.int:
        value = self.item() if self._impl.numel() == 1 else None
        if not isinstance(value, int):
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return value

    def item(self) -> builtins.bool | builtins.int | builtins.float | builtins.complex:
        if self._impl.numel() != 1:
            raise RuntimeError(f"a Tensor with {self._impl.numel()} elements cannot be converted to Scalar")
        value: bool | int | float | complex = self._impl.logical_values().reshape(()).item()
        return value

    def new_tensor(
        self,
        data: Any,
        *,
        dtype: _dtype | None = None,
        device: Device | str | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A new leaf holding a copy of `data`, with this tensor's dtype and device unless given."""
        from framework._tensor_new import new_tensor

        return new_tensor(self, data, dtype=dtype, device=device, requires_grad=requires_grad)

    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: builtins.int | None = None,
    ) -> Any:
        """`framework.unique(self, ...)`: the distinct elements (or slices along `dim`), with the
        inverse indices and/or counts asked for."""
        from framework._unique_api import unique

        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(
        self,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: builtins.int | None = None,
    ) -> Any:
        """`framework.unique_consecutive(self, ...)`: runs of equal consecutive elements (or
        slices along `dim`) reduced to one, with the inverse indices and/or counts asked for."""
        from framework._unique_api import unique_consecutive

        return unique_consecutive(self, return_inverse, return_counts, dim)

    def lu(self, pivot: builtins.bool = True, get_infos: builtins.bool = False) -> tuple[Tensor, ...]:
        """`framework.lu(self, pivot, get_infos)` (deprecated): the LU factorization and pivots,
        and the info when get_infos."""
        from framework.functional import lu

        return lu(self, pivot, get_infos)

    def resize(self, *sizes: builtins.int) -> Tensor:
        """Deprecated (warns): a view (a copy when not contiguous) with `sizes`, which must keep
        the number of elements; recorded as ResizeBackward."""
        from framework.autograd._functions import Resize

        warnings.warn("non-inplace resize is deprecated", stacklevel=2)
        result: Tensor = Resize.apply(self, sizes)
        return result

    def resize_as(self, tensor: Tensor) -> Tensor:
        """Deprecated (warns): `self.resize(*tensor.size())`."""
        from framework.autograd._functions import Resize

        warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
        result: Tensor = Resize.apply(self, tensor.size())
        return result

    def solve(self, other: Tensor) -> NoReturn:
        """Removed in PyTorch 1.9: raises, naming framework.linalg.solve."""
        from framework._linalg_utils import solve

        solve(self, other)

    def lstsq(self, other: Tensor) -> NoReturn:
        """Removed in PyTorch 1.9: raises, naming framework.linalg.lstsq."""
        from framework._linalg_utils import lstsq

        lstsq(self, other)

    def eig(self, eigenvectors: builtins.bool = False) -> NoReturn:
        """Removed in PyTorch 1.9: raises, naming framework.linalg.eig."""
        from framework._linalg_utils import eig

        eig(self, eigenvectors)

    def symeig(self, eigenvectors: builtins.bool = False) -> NoReturn:
        """Removed in PyTorch 1.9: raises, naming framework.linalg.eigh."""
        from framework._linalg_utils import symeig

        symeig(self, eigenvectors)

    def stft(
        self,
        n_fft: builtins.int,
        hop_length: builtins.int | None = None,
        win_length: builtins.int | None = None,
        window: Tensor | None = None,
        center: builtins.bool = True,
        pad_mode: str = "reflect",
        normalized: builtins.bool = False,
        onesided: builtins.bool | None = None,
        return_complex: builtins.bool | None = None,
        align_to_window: builtins.bool | None = None,
    ) -> Tensor:
        """`framework.stft(self, ...)`: the short-time Fourier transform."""
        from framework.functional import stft

        return stft(
            self,
            n_fft,
            hop_length,
            win_length,
            window,
            center,
            pad_mode,
            normalized,
            onesided,
            return_complex,
            align_to_window,
        )

    def __format__(self, format_spec: str) -> str:
        """A 0-dim tensor formats as its value (`f"{loss:.4f}"`), as in PyTorch; anything else (a
        subclass such as Parameter included) as an object, which takes no format spec."""
        if self._impl.dim() == 0 and self._impl.storage.data is not None and type(self) is Tensor:
            return format(self.item(), format_spec)
        return object.__format__(self, format_spec)

    def __repr__(self) -> str:
        impl = self._impl
        data = None if impl.storage.data is None else impl.logical_values()
        return format_tensor(
            data,
            dtype_name=impl.dtype.name,
            is_default_dtype=impl.dtype is get_default_dtype(),
            shape=impl.sizes,
            device=str(impl.device),
            requires_grad=self.requires_grad,
            grad_fn=None if (fn := variable.grad_fn_of(impl)) is None else type(fn).__name__,
            tangent=tangent_repr(self),
        )


set_tensor_class(Tensor)

route_attributes(
    Tensor,
    properties=(
        *("requires_grad", "grad", "grad_fn", "is_leaf", "output_nr", "retains_grad", "data", "_version"),
        *("_base", "shape", "dtype", "device", "is_cpu", "is_meta", "is_cuda", "layout", "real", "imag"),
        *("ndim", "itemsize", "nbytes", "T", "mT", "mH", "H", "volatile"),
    ),
    methods=(
        *("requires_grad_", "retain_grad", "detach", "detach_", "_is_view", "is_inference", "size"),
        *("stride", "storage_offset", "get_device", "is_pinned", "pin_memory", "cuda", "new", "apply_"),
        *("map_", "map2_", "dim", "ndimension", "element_size", "numel", "nelement", "is_floating_point"),
        *("is_complex", "is_conj", "is_neg", "is_signed", "is_contiguous", "data_ptr", "const_data_ptr"),
        *("dim_order", "numpy", "tolist", "__bool__", "__getitem__", "__setitem__", "type", "float"),
        *("double", "half", "bfloat16", "byte", "char", "short", "cfloat", "cdouble", "long", "int", "bool"),
        *("to", "cpu", "untyped_storage", "__float__", "__int__", "__index__", "item", "new_tensor"),
    ),
    python_methods=(
        *("register_hook", "register_post_accumulate_grad_hook", "backward", "__array__", "__len__"),
        *("__deepcopy__", "storage", "storage_type", "share_memory_", "is_shared", "__dlpack__"),
        *("__reduce_ex__", "unique", "unique_consecutive", "lu", "stft", "__format__", "__repr__"),
    ),
)


def _convert(result: Any, cls: builtins.type[Tensor]) -> Any:
    """`Tensor.__torch_function__`'s results as `cls`: a tensor not already one is `as_subclass`ed,
    and so are the tensors of a tuple or list (a named tuple keeps its class)."""
    if cls is Tensor:
        return result
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        converted = [_convert(r, cls) for r in result]
        if hasattr(result, "_fields"):
            return type(result)(*converted)
        return type(result)(converted)
    return result


_NOWRAP: list[frozenset[Any]] = []


def _nowrap_functions() -> frozenset[Any]:
    """What `Tensor.__torch_function__` returns unconverted (PyTorch's get_default_nowrap_functions):
    the getters of `.grad` and `._base` (routed or not)."""
    if not _NOWRAP:
        getters = [prop.__get__ for name in ("grad", "_base") for prop in routed_attributes(name)]
        _NOWRAP.append(frozenset(getters))
    return _NOWRAP[0]


def _real(t: Tensor) -> Tensor:
    from framework._generated.functions import real

    return real(t)


def _imag(t: Tensor) -> Tensor:
    from framework._generated.functions import imag

    return imag(t)


def _subclass_state(tensor: Tensor) -> tuple[dict[str, Any] | None, dict[str, Any]] | None:
    """The attributes a Tensor subclass adds (its `__dict__` and slots), as pickle's state; None
    for a plain tensor."""
    cls = type(tensor)
    if cls is Tensor:
        return None
    slots = {
        name: getattr(tensor, name)
        for klass in cls.__mro__[: cls.__mro__.index(Tensor)]
        for name in klass.__dict__.get("__slots__", ())
        if name not in ("__dict__", "__weakref__") and hasattr(tensor, name)
    }
    return (getattr(tensor, "__dict__", None), slots)


def _rebuild_tensor(
    cls: type[Tensor],
    data: bytes | None,
    nbytes: builtins.int,
    dtype: _dtype,
    device: str,
    sizes: tuple[builtins.int, ...],
    strides: tuple[builtins.int, ...],
    storage_offset: builtins.int,
    requires_grad: builtins.bool,
) -> Tensor:
    """A tensor from what `Tensor.__reduce_ex__` pickled: a new storage holding `data` (none on
    the meta device), viewed with the same geometry, as a leaf of class `cls`."""
    allocator = get_meta_allocator() if device == "meta" else get_cpu_allocator()
    storage = StorageImpl(nbytes, allocator)
    if storage.data is not None and data is not None:
        storage.data[:] = np.frombuffer(data, np.uint8)
    return _new_leaf(cls, TensorImpl(storage, dtype, sizes, strides, storage_offset), requires_grad)


def _new_leaf(cls: type[Tensor], impl: TensorImpl, requires_grad: builtins.bool) -> Tensor:
    """A new graph leaf of class `cls` (no `__init__` run) over `impl`."""
    tensor = cls.__new__(cls)
    tensor._impl = impl
    if requires_grad:
        variable.set_requires_grad(tensor, True)
    return tensor


def from_numpy(array: npt.NDArray[Any]) -> Tensor:
    """A CPU tensor sharing memory with `array` (as `torch.from_numpy`)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor(TensorImpl.from_numpy(array, dtype_from_numpy(array.dtype)))


def is_tensor(obj: object) -> TypeGuard[Tensor]:
    """Whether `obj` is a framework tensor (as `torch.is_tensor`)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> builtins.int:
    """The number of elements of `input` (as `torch.numel`)."""
    return input.numel()
