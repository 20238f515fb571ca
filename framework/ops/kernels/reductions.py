"""Reduction kernels: sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, norm and
linalg_vector_norm (one kernel body), logsumexp, all/any, cumsum/cumprod, count_nonzero,
nansum/nanmean, aminmax, var_mean/std_mean.

Each operator first decides, from shapes and dtypes alone, the output shape and dtype and checks
its arguments with PyTorch's messages (that much is all a Meta tensor gets); then, on CPU, one
NumPy expression computes the result, which is written into a new tensor or the `out=` tensor.

Precision follows PyTorch's CPU accumulation types: sums, means, variances and cumulative
sums/products of float32 accumulate in float64 (float16 in float32, complex64 in complex128);
products and norms compute in the input's own precision (float16 in float32); logsumexp
exponentiates in the input's dtype and sums in the result's.  PyTorch sums float32 with a cascade
of float32 partial sums and uses its own vectorised exp, so such results can differ from it in
the last bit.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import (
    bfloat16,
    bool_,
    can_cast,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int64,
    promote_types,
    uint8,
)
from framework.ops._iter import Number, check_can_cast
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    array,
    aten_op,
    check_out_dtype,
    int_list,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    out_dtype_message,
    register_variants,
    resize_output,
    same_device,
    wrap_dim,
)
from framework.ops.kernels.indexing import along_axis_index

Array = npt.NDArray[Any]
DimArg = int | Sequence[int] | None
Compute = Callable[[Array], tuple[Any, ...]]
Reducer = Callable[..., Any]
_SUM: Final[Reducer] = np.add.reduce
_PROD: Final[Reducer] = np.multiply.reduce
_MAX: Final[Reducer] = np.maximum.reduce
_MIN: Final[Reducer] = np.minimum.reduce
_ARGMAX: Final[Reducer] = np.ndarray.argmax
_ARGMIN: Final[Reducer] = np.ndarray.argmin
"""The ufuncs' reductions and the arrays' argmax/argmin (`np.sum`, `np.argmax` and the like
without their Python wrappers)."""


# ---- dtypes ---------------------------------------------------------------------------------

_ACC: Final[dict[dtype, np.dtype[Any]]] = {
    float16: np.dtype(np.float32),
    bfloat16: np.dtype(np.float32),
    float32: np.dtype(np.float64),
    float64: np.dtype(np.float64),
    complex64: np.dtype(np.complex128),
    complex128: np.dtype(np.complex128),
}


def _is_float(d: dtype) -> bool:
    return d.is_floating_point or d.is_complex


def _acc(d: dtype) -> np.dtype[Any]:
    """PyTorch's CPU accumulation type (acc_type): wider floats, int64 for integers and bool."""
    return _ACC.get(d, np.dtype(np.int64))


def _opmath(d: dtype) -> np.dtype[Any]:
    """The type PyTorch computes in: float32 for float16 and bfloat16, int64 for integers, else `d`
    itself."""
    return d.opmath_numpy if _is_float(d) else np.dtype(np.int64)


def _sum_dtype(input_dtype: dtype, requested: dtype | None) -> dtype:
    """sum/prod/cumsum's result dtype: the requested one, else int64 for integers and bool."""
    if requested is not None:
        return requested
    return input_dtype if _is_float(input_dtype) else int64


def _cast(a: Array, to: dtype) -> Array:
    """`a` converted to `to` (as Tensor.to: complex to real keeps the real part, with a warning)."""
    target = to.numpy_dtype
    if a.dtype == target:
        return a
    if a.dtype.kind == "c" and target.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
        a = a.real
    return a.astype(target)


# ---- dims and shapes ------------------------------------------------------------------------


def _dim_list(dim: DimArg) -> list[int] | None:
    return None if dim is None else int_list(dim)


def _reduce_dims(ndim: int, dim: DimArg, *, empty_is_all: bool = True) -> tuple[int, ...]:
    """The sorted axes a reduction over `dim` covers: None means every dim, and so does an empty
    list unless `empty_is_all` is False (all/any reduce nothing then)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else dim
    if not dims and empty_is_all:
        return tuple(range(ndim))
    axes: list[int] = []
    for d in dims:
        wrapped = wrap_dim(d, ndim)
        if wrapped in axes:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        axes.append(wrapped)
    axes.sort()
    return tuple(axes) if ndim else ()


def _reduced_shape(sizes: tuple[int, ...], axes: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    shape = list(sizes)
    for d in reversed(axes):
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    return tuple(shape)


def _check_nonempty_dims(op: str, sizes: tuple[int, ...], axes: tuple[int, ...], whole: bool) -> None:
    """PyTorch's zero_numel_check_dims: a reduction without identity over an empty tensor needs a
    dim, and every reduced dim must be non-empty."""
    if math.prod(sizes) != 0:
        return
    if whole:
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )
    for d in axes:
        if sizes[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


# ---- writing results ------------------------------------------------------------------------


def _output(shape: tuple[int, ...], d: dtype, out: Tensor | None, device: Device) -> Tensor:
    """A new tensor of `shape` and `d`, or the given `out=` tensor resized to `shape`."""
    if out is None:
        return new_tensor(shape, d, device)
    resize_output(out, shape)
    return out


def _emit(
    op: str,
    self: Tensor,
    shape: tuple[int, ...],
    d: dtype,
    compute: Callable[[Array], Any],
    out: Tensor | None,
) -> Tensor:
    """Allocate (or resize the given `out=`) an output of `shape` and `d` and, off Meta, fill it
    with `compute(self's array)`.  The value is computed before the output is touched, so an
    output may alias the input."""
    if out is not None:
        same_device(op, (self, out))
    device = self._impl.device
    value = None if is_meta(device) else compute(array(self))
    result = _output(shape, d, out, device)
    if value is not None:
        array(result)[...] = value
    return result


def _emit_many(
    op: str,
    self: Tensor,
    specs: Sequence[tuple[tuple[int, ...], dtype, Tensor | None]],
    compute: Compute,
) -> tuple[Tensor, ...]:
    """`_emit` for several outputs of (shape, dtype, out=) from one `compute` returning a value
    for each."""
    given = [out for _, _, out in specs if out is not None]
    if given:
        same_device(op, (self, *given))
    device = self._impl.device
    values = None if is_meta(device) else compute(array(self))
    outputs = tuple(_output(shape, d, out, device) for shape, d, out in specs)
    if values is not None:
        for result, value in zip(outputs, values, strict=True):
            array(result)[...] = value
    return outputs


# ---- sum, prod, mean ------------------------------------------------------------------------


def _accumulate(
    op: str,
    reducer: Reducer,
    acc: Callable[[dtype], np.dtype[Any]],
    self: Tensor,
    dim: DimArg,
    keepdim: bool,
    requested: dtype | None,
    out: Tensor | None,
) -> Tensor:
    """sum/prod: the input converted to the result dtype (the requested one, else out='s, else
    the default), reduced in the accumulation type."""
    impl = self._impl
    axes = _reduce_dims(impl.dim(), dim)
    if out is not None and requested is not None:
        check_out_dtype(out, requested)
    result = out._impl.dtype if out is not None and requested is None else _sum_dtype(impl.dtype, requested)

    def compute(a: Array) -> Any:
        reduced = reducer(_cast(a, result), axis=axes, keepdims=keepdim, dtype=acc(result))
        return reduced.astype(result.numpy_dtype, copy=False)

    return _emit(op, self, _reduced_shape(impl.sizes, axes, keepdim), result, compute, out)


@kernel("sum")
def sum_all(self: Tensor, *, dtype: dtype | None = None) -> Tensor:
    result: Tensor = aten_op("sum.dim_IntList")(self, None, False, dtype=dtype)
    return result


@kernel("sum_out")
def sum_out(self: Tensor, *, dtype: dtype | None = None, out: Tensor) -> Tensor:
    check_out_dtype(out, _sum_dtype(self._impl.dtype, dtype))
    result: Tensor = aten_op("sum.IntList_out")(self, None, False, dtype=dtype, out=out)
    return result


@kernel("sum_dim")
def sum_dim(self: Tensor, dim: DimArg, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    return _accumulate("sum", _SUM, _acc, self, dim, keepdim, dtype, None)


@kernel("sum_dim_out")
def sum_dim_out(
    self: Tensor, dim: DimArg, keepdim: bool = False, *, dtype: dtype | None = None, out: Tensor
) -> Tensor:
    return _accumulate("sum", _SUM, _acc, self, dim, keepdim, dtype, out)


@kernel("prod")
def prod(
    self: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: dtype | None = None
) -> Tensor:
    return _accumulate("prod", _PROD, _opmath, self, dim, keepdim, dtype, None)


@kernel("prod_dim_out")
def prod_dim_out(
    self: Tensor, dim: int, keepdim: bool = False, *, dtype: dtype | None = None, out: Tensor
) -> Tensor:
    return _accumulate("prod", _PROD, _opmath, self, dim, keepdim, dtype, out)


@kernel("prod_out")
def prod_out(self: Tensor, *, dtype: dtype | None = None, out: Tensor) -> Tensor:
    check_out_dtype(out, _sum_dtype(self._impl.dtype, dtype))
    return _accumulate("prod", _PROD, _opmath, self, None, False, dtype, out)


def _mean(self: Tensor, dim: DimArg, keepdim: bool, requested: dtype | None, out: Tensor | None) -> Tensor:
    impl = self._impl
    if requested is None and not _is_float(impl.dtype):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {impl.dtype.scalar_type_name}"
        )
    if requested is not None and not _is_float(requested):
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
            f"complex dtype. Got: {requested.scalar_type_name}"
        )
    axes = _reduce_dims(impl.dim(), dim)
    result = requested or impl.dtype
    if out is not None:
        if requested is not None:
            check_out_dtype(out, requested)
        result = out._impl.dtype
        if not _is_float(result):
            # PyTorch sums into `out`, then divides it in place: a true division's result.
            check_can_cast(get_default_dtype(), result)
    count = math.prod(impl.sizes[d] for d in axes)

    def compute(a: Array) -> Any:
        total = _SUM(_cast(a, result), axis=axes, keepdims=keepdim, dtype=_acc(result))
        total = total.astype(result.numpy_dtype).astype(_opmath(result))
        return (total / count).astype(result.numpy_dtype)

    return _emit("mean", self, _reduced_shape(impl.sizes, axes, keepdim), result, compute, out)


@kernel("mean")
def mean_all(self: Tensor, *, dtype: dtype | None = None) -> Tensor:
    result: Tensor = aten_op("mean.dim")(self, None, False, dtype=dtype)
    return result


@kernel("mean_dtype_out")
def mean_dtype_out(self: Tensor, *, dtype: dtype | None = None, out: Tensor) -> Tensor:
    result: Tensor = aten_op("mean.out")(self, None, False, dtype=dtype, out=out)
    return result


@kernel("mean_dim")
def mean_dim(self: Tensor, dim: DimArg, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    return _mean(self, dim, keepdim, dtype, None)


@kernel("mean_dim_out")
def mean_dim_out(
    self: Tensor, dim: DimArg, keepdim: bool = False, *, dtype: dtype | None = None, out: Tensor
) -> Tensor:
    return _mean(self, dim, keepdim, dtype, out)


# ---- max, min, amax, amin, argmax, argmin ---------------------------------------------------

_CAN_CAST_MESSAGE: Final = (
    "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) to be "
    "true, but got false.  (Could this error message be improved?  If so, please report an "
    "enhancement request to PyTorch.)"
)


def _extreme_all(op: str, reducer: Reducer, self: Tensor, out: Tensor | None) -> Tensor:
    """max()/min(): the extreme element of a non-empty tensor (NaN if any element is NaN)."""
    impl = self._impl
    _check_nonempty_dims(op, impl.sizes, (), whole=True)
    if impl.dtype.is_complex:
        raise not_implemented(f"{op}_all", impl.dtype)
    result = impl.dtype
    if out is not None:
        if not can_cast(result, out._impl.dtype):
            raise RuntimeError(_CAN_CAST_MESSAGE)
        result = out._impl.dtype
    return _emit(op, self, (), result, lambda a: reducer(a, axis=None).astype(result.numpy_dtype), out)


@kernel("max_all")
def max_all(self: Tensor) -> Tensor:
    return _extreme_all("max", _MAX, self, None)


@kernel("max_all_out")
def max_all_out(self: Tensor, *, out: Tensor) -> Tensor:
    return _extreme_all("max", _MAX, self, out)


@kernel("min_all")
def min_all(self: Tensor) -> Tensor:
    return _extreme_all("min", _MIN, self, None)


@kernel("min_all_out")
def min_all_out(self: Tensor, *, out: Tensor) -> Tensor:
    return _extreme_all("min", _MIN, self, out)


def _extreme_dim(
    op: str,
    arg_reducer: Reducer,
    self: Tensor,
    dim: int,
    keepdim: bool,
    values: Tensor | None,
    indices: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """max.dim/min.dim: values and the index of their first occurrence along `dim` (a NaN counts
    as the extreme, so the first NaN wins)."""
    impl = self._impl
    ndim = impl.dim()
    d = wrap_dim(dim, ndim)
    axes = (d,) if ndim else ()
    _check_nonempty_dims(op, impl.sizes, axes, whole=False)
    if impl.dtype.is_complex:
        raise RuntimeError(f"{op}(): does not support complex input")
    if values is not None and indices is not None:
        check_out_dtype(values, impl.dtype)
        check_out_dtype(indices, int64)
    shape = _reduced_shape(impl.sizes, axes, keepdim)

    def compute(a: Array) -> tuple[Array, Array]:
        lined = a.reshape(1) if ndim == 0 else a
        index = arg_reducer(lined, axis=d, keepdims=True)
        return lined[along_axis_index(index, d)].reshape(shape), index.reshape(shape)

    specs = ((shape, impl.dtype, values), (shape, int64, indices))
    found, index = _emit_many(op, self, specs, compute)
    return found, index


@kernel("max_dim")
def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("max", _ARGMAX, self, dim, keepdim, None, None)


@kernel("max_dim_out")
def max_dim_out(
    self: Tensor, dim: int, keepdim: bool = False, *, max: Tensor, max_values: Tensor
) -> tuple[Tensor, Tensor]:
    return _extreme_dim("max", _ARGMAX, self, dim, keepdim, max, max_values)


@kernel("min_dim")
def min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("min", _ARGMIN, self, dim, keepdim, None, None)


@kernel("min_dim_out")
def min_dim_out(
    self: Tensor, dim: int, keepdim: bool = False, *, min: Tensor, min_indices: Tensor
) -> tuple[Tensor, Tensor]:
    return _extreme_dim("min", _ARGMIN, self, dim, keepdim, min, min_indices)


def _extreme_values(
    op: str, reducer: Reducer, self: Tensor, dim: DimArg, keepdim: bool, out: Tensor | None
) -> Tensor:
    """amax/amin: the extreme values over `dim` (every dim when empty), NaN propagating."""
    impl = self._impl
    axes = _reduce_dims(impl.dim(), dim)
    _check_nonempty_dims(op, impl.sizes, axes, whole=not _dim_list(dim))
    if impl.dtype.is_complex:
        raise not_implemented(f"{op[1:]}_values_cpu", impl.dtype)
    if out is not None and out._impl.dtype is not impl.dtype:
        raise RuntimeError(
            f"Expected the dtype for input and out to match, but got {impl.dtype.scalar_type_name} for "
            f"input's dtype and {out._impl.dtype.scalar_type_name} for out's dtype."
        )
    shape = _reduced_shape(impl.sizes, axes, keepdim)
    return _emit(op, self, shape, impl.dtype, lambda a: reducer(a, axis=axes, keepdims=keepdim), out)


@kernel("amax")
def amax(self: Tensor, dim: DimArg = (), keepdim: bool = False) -> Tensor:
    return _extreme_values("amax", _MAX, self, dim, keepdim, None)


@kernel("amax_out")
def amax_out(self: Tensor, dim: DimArg = (), keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _extreme_values("amax", _MAX, self, dim, keepdim, out)


@kernel("amin")
def amin(self: Tensor, dim: DimArg = (), keepdim: bool = False) -> Tensor:
    return _extreme_values("amin", _MIN, self, dim, keepdim, None)


@kernel("amin_out")
def amin_out(self: Tensor, dim: DimArg = (), keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _extreme_values("amin", _MIN, self, dim, keepdim, out)


def _arg_extreme(
    op: str, arg_reducer: Reducer, self: Tensor, dim: int | None, keepdim: bool, out: Tensor | None
) -> Tensor:
    """argmax/argmin: the index of the first extreme (first NaN) along `dim`, or in the flattened
    tensor when `dim` is None."""
    impl = self._impl
    ndim = impl.dim()
    if impl.dtype.is_complex:
        raise RuntimeError(f"{op}(): does not support complex input")
    if impl.dtype is bool_:
        raise RuntimeError(f"{op}(): does not support bool input")
    if dim is None:
        if impl.numel() == 0:
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        shape = (1,) * ndim if keepdim else ()
    else:
        d = wrap_dim(dim, ndim)
        axes = (d,) if ndim else ()
        _check_nonempty_dims(op, impl.sizes, axes, whole=False)
        shape = _reduced_shape(impl.sizes, axes, keepdim)
    if out is not None:
        check_out_dtype(out, int64)

    def compute(a: Array) -> Any:
        if dim is None or ndim == 0:
            return np.asarray(arg_reducer(a.reshape(-1))).reshape(shape)
        return arg_reducer(a, axis=dim % ndim, keepdims=keepdim)

    return _emit(op, self, shape, int64, compute, out)


@kernel("argmax")
def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmax", _ARGMAX, self, dim, keepdim, None)


@kernel("argmax_out")
def argmax_out(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _arg_extreme("argmax", _ARGMAX, self, dim, keepdim, out)


@kernel("argmin")
def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmin", _ARGMIN, self, dim, keepdim, None)


@kernel("argmin_out")
def argmin_out(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _arg_extreme("argmin", _ARGMIN, self, dim, keepdim, out)


# ---- var, std -------------------------------------------------------------------------------


def _var(
    op: str,
    self: Tensor,
    dim: DimArg,
    correction: float | None,
    keepdim: bool,
    out: Tensor | None,
) -> Tensor:
    """var/std (and the first result of var_mean/std_mean, by `op`) with `correction` (default
    1): sum |x - mean|^2 / max(0, N - correction), where N is the number of elements reduced into
    each output; warns when that is <= 0."""
    impl = self._impl
    if not _is_float(impl.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axes = _reduce_dims(impl.dim(), dim)
    shape = _reduced_shape(impl.sizes, axes, keepdim)
    result = impl.dtype.to_real()
    if out is not None:
        check_can_cast(result, out._impl.dtype)
    precision = (result if out is None else out._impl.dtype.to_real()).numpy_dtype
    out_numel = math.prod(shape)
    n = impl.numel() // out_numel if out_numel else 0
    dof = n - (1 if correction is None else correction)
    if dof <= 0:
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
    divisor = max(dof, 0)

    def compute(a: Array) -> Any:
        x = a.astype(_acc(impl.dtype))
        centred = x - _SUM(x, axis=axes, keepdims=True) / n
        squares = np.square(centred.real) + np.square(centred.imag) if x.dtype.kind == "c" else centred**2
        variance = _SUM(squares, axis=axes, keepdims=keepdim) / divisor
        return (np.sqrt(variance) if op.startswith("std") else variance).astype(precision)

    return _emit(op, self, shape, result, compute, out)


def _correction(unbiased: bool) -> int:
    return 1 if unbiased else 0


def _variance_kernel(op: str) -> None:
    """Register `<op>_correction` and `<op>_correction_out` (var, std): one kernel, `out` optional."""

    def variance(
        self: Tensor,
        dim: DimArg = None,
        *,
        correction: float | None = None,
        keepdim: bool = False,
        out: Tensor | None = None,
    ) -> Tensor:
        return _var(op, self, dim, correction, keepdim, out)

    variance.__name__ = variance.__qualname__ = f"{op}_correction"
    kernel(f"{op}_correction")(variance)
    kernel(f"{op}_correction_out")(variance)


_variance_kernel("var")
_variance_kernel("std")


@kernel("var_unbiased")
def var_unbiased(self: Tensor, unbiased: bool = True) -> Tensor:
    result: Tensor = aten_op("var.correction")(self, None, correction=_correction(unbiased))
    return result


@kernel("var_dim")
def var_dim(self: Tensor, dim: DimArg, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    result: Tensor = aten_op("var.correction")(self, dim, correction=_correction(unbiased), keepdim=keepdim)
    return result


@kernel("var_dim_out")
def var_dim_out(
    self: Tensor, dim: DimArg, unbiased: bool = True, keepdim: bool = False, *, out: Tensor
) -> Tensor:
    correction = _correction(unbiased)
    result: Tensor = aten_op("var.correction_out")(self, dim, correction=correction, keepdim=keepdim, out=out)
    return result


@kernel("std_unbiased")
def std_unbiased(self: Tensor, unbiased: bool = True) -> Tensor:
    result: Tensor = aten_op("std.correction")(self, None, correction=_correction(unbiased))
    return result


@kernel("std_dim")
def std_dim(self: Tensor, dim: DimArg, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    result: Tensor = aten_op("std.correction")(self, dim, correction=_correction(unbiased), keepdim=keepdim)
    return result


@kernel("std_dim_out")
def std_dim_out(
    self: Tensor, dim: DimArg, unbiased: bool = True, keepdim: bool = False, *, out: Tensor
) -> Tensor:
    correction = _correction(unbiased)
    result: Tensor = aten_op("std.correction_out")(self, dim, correction=correction, keepdim=keepdim, out=out)
    return result


# ---- norm -----------------------------------------------------------------------------------


def _order(p: Number | None) -> float:
    if isinstance(p, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of norm.")
    return 2.0 if p is None else float(p)


def _vector_norm(a: Array, order: float, axes: tuple[int, ...], keepdim: bool) -> Any:
    magnitude = np.abs(a)
    if order == 0:
        return _SUM(magnitude != 0, axis=axes, keepdims=keepdim)
    if order == math.inf:
        return _MAX(magnitude, axis=axes, keepdims=keepdim)
    if order == -math.inf:
        return _MIN(magnitude, axis=axes, keepdims=keepdim)
    if order == 1:
        return _SUM(magnitude, axis=axes, keepdims=keepdim)
    if order == 2:
        return np.sqrt(_SUM(np.square(magnitude), axis=axes, keepdims=keepdim))
    return np.power(_SUM(np.power(magnitude, order), axis=axes, keepdims=keepdim), 1 / order)


def _norm(
    self: Tensor,
    p: Number | None,
    dim: DimArg,
    keepdim: bool,
    requested: dtype | None,
    out: Tensor | None,
) -> Tensor:
    """torch.norm over `dim` (every dim when empty): its own dtype checks, then linalg.vector_norm."""
    impl = self._impl
    if requested is None and not _is_float(impl.dtype):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{impl.dtype.scalar_type_name} instead."
        )
    if requested is not None and not _is_float(requested):
        raise RuntimeError(
            "norm(): the desired output dtype should be either floating point or complex. Got "
            f"{requested.scalar_type_name} instead."
        )
    return _linalg_vector_norm(self, p, dim, keepdim, requested, out)


def _linalg_vector_norm(
    self: Tensor,
    p: Number | None,
    dim: DimArg,
    keepdim: bool,
    requested: dtype | None,
    out: Tensor | None,
) -> Tensor:
    """linalg.vector_norm over `dim` (every dim when None or empty): p = 2 (default), 1, 0 (count
    of non-zeros), inf, -inf, or any other real p as (sum |x|^p)^(1/p)."""
    impl = self._impl
    if not _is_float(impl.dtype):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{impl.dtype.scalar_type_name}"
        )
    order = _order(p)
    axes = _reduce_dims(impl.dim(), dim)
    dims = _dim_list(dim) or []
    if impl.numel() == 0 and (order < 0 or order == math.inf):
        if not dims:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {order:g} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        for d in dims:
            if impl.sizes[wrap_dim(d, impl.dim())] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {order:g} norm on the dimension {d}because "
                    "this dimension is empty and the operation does not have an identity"
                )
    compute_dtype = impl.dtype
    if requested is not None:
        if impl.dtype.is_complex and not requested.is_complex:
            raise RuntimeError(
                "linalg.vector_norm: dtype should be complex for complex inputs, but got "
                f"{requested.scalar_type_name}"
            )
        if not impl.dtype.is_complex and requested.is_complex:
            raise RuntimeError(
                "linalg.vector_norm: dtype should be real for real inputs, but got "
                f"{requested.scalar_type_name}"
            )
        if promote_types(impl.dtype, requested) is not requested:
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({impl.dtype.scalar_type_name}) should be "
                f"convertible without narrowing to the specified dtype ({requested.scalar_type_name})"
            )
        compute_dtype = requested
    result = compute_dtype.to_real()
    if out is not None:
        check_out_dtype(out, result)
    elif requested is not None and requested is not result:
        # PyTorch allocates the result with the requested (complex) dtype and then refuses it.
        raise RuntimeError(out_dtype_message(result, requested))

    def compute(a: Array) -> Any:
        x = _cast(a, compute_dtype).astype(_opmath(compute_dtype))
        return _vector_norm(x, order, axes, keepdim).astype(result.numpy_dtype)

    return _emit("norm", self, _reduced_shape(impl.sizes, axes, keepdim), result, compute, out)


@kernel("norm_dim")
def norm_dim(
    self: Tensor, p: Number | None, dim: DimArg, keepdim: bool = False, *, dtype: dtype | None = None
) -> Tensor:
    return _norm(self, p, dim, keepdim, dtype, None)


@kernel("norm_dim_out")
def norm_dim_out(
    self: Tensor,
    p: Number | None,
    dim: DimArg,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
    out: Tensor,
) -> Tensor:
    return _norm(self, p, dim, keepdim, dtype, out)


@kernel("linalg_vector_norm")
def linalg_vector_norm(
    self: Tensor, ord: Number = 2, dim: DimArg = None, keepdim: bool = False, *, dtype: dtype | None = None
) -> Tensor:
    return _linalg_vector_norm(self, ord, dim, keepdim, dtype, None)


@kernel("linalg_vector_norm_out")
def linalg_vector_norm_out(
    self: Tensor,
    ord: Number = 2,
    dim: DimArg = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
    out: Tensor,
) -> Tensor:
    return _linalg_vector_norm(self, ord, dim, keepdim, dtype, out)


@kernel("norm")
def norm(self: Tensor, p: Number = 2) -> Tensor:
    result: Tensor = aten_op("norm.ScalarOpt_dim")(self, p, [], False)
    return result


@kernel("norm_out")
def norm_out(self: Tensor, p: Number = 2, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("norm.out")(self, p, [], False, out=out)
    return result


@kernel("norm_dtype")
def norm_dtype(self: Tensor, p: Number | None, *, dtype: dtype) -> Tensor:
    result: Tensor = aten_op("norm.ScalarOpt_dim_dtype")(self, p, [], False, dtype=dtype)
    return result


@kernel("norm_dtype_out")
def norm_dtype_out(self: Tensor, p: Number | None, *, dtype: dtype, out: Tensor) -> Tensor:
    result: Tensor = aten_op("norm.dtype_out")(self, p, [], False, dtype=dtype, out=out)
    return result


# ---- logsumexp ------------------------------------------------------------------------------


def _logsumexp(self: Tensor, dim: DimArg, keepdim: bool, out: Tensor | None) -> Tensor:
    """log(sum(exp(x))) over `dim`, computed as m + log(sum(exp(x - m))) with m the largest
    (real part of an) element, taken as 0 where it is infinite so that all -inf gives -inf and
    +inf gives +inf; an empty reduction gives -inf."""
    impl = self._impl
    ndim = impl.dim()
    axes = _reduce_dims(ndim, dim)
    if not _dim_list(dim) and not keepdim and ndim:
        # PyTorch reduces `dim=[]` into a zero-dim result but adds a kept-dim maximum to it.
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * ndim}")
    source = impl.dtype if _is_float(impl.dtype) else get_default_dtype()
    result = source
    if out is not None:
        result = out._impl.dtype
        if not _is_float(result):
            raise RuntimeError(
                "logsumexp(): Expected floating point type for result tensor, but got: "
                f"{result.scalar_type_name}"
            )
    shape = _reduced_shape(impl.sizes, axes, keepdim)

    def compute(a: Array) -> Any:
        x = _cast(a, source).astype(_opmath(source), copy=False)
        real = x.real if x.dtype.kind == "c" else x
        shift = _MAX(real, axis=axes, keepdims=True, initial=-np.inf)
        shift = np.where(np.isinf(shift), 0, shift)
        # PyTorch exponentiates in the input's dtype and sums in the result's.
        exps = np.exp(x - shift).astype(source.numpy_dtype, copy=False)
        exps = _cast(exps, result).astype(_opmath(result), copy=False)
        total = np.log(_SUM(exps, axis=axes, keepdims=True)) + shift
        return total.reshape(shape).astype(result.numpy_dtype, copy=False)

    return _emit("logsumexp", self, shape, result, compute, out)


@kernel("logsumexp")
def logsumexp(self: Tensor, dim: DimArg, keepdim: bool = False) -> Tensor:
    return _logsumexp(self, dim, keepdim, None)


@kernel("logsumexp_out")
def logsumexp_out(self: Tensor, dim: DimArg, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _logsumexp(self, dim, keepdim, out)


# ---- all, any -------------------------------------------------------------------------------


def _logical(
    op: str, reducer: Reducer, self: Tensor, dim: DimArg, keepdim: bool, out: Tensor | None
) -> Tensor:
    """all/any over `dim` (None: every dim; an empty list: none); uint8 input gives uint8."""
    impl = self._impl
    axes = _reduce_dims(impl.dim(), dim, empty_is_all=False)
    result = uint8 if impl.dtype is uint8 else bool_
    if out is not None:
        result = out._impl.dtype
        if result is not bool_ and result is not uint8:
            raise RuntimeError(f"{op} only supports bool tensor for result, got: {result.scalar_type_name}")

    def compute(a: Array) -> Any:
        return reducer(a, axis=axes, keepdims=keepdim).astype(result.numpy_dtype)

    return _emit(op, self, _reduced_shape(impl.sizes, axes, keepdim), result, compute, out)


@kernel("all")
def all_dims(self: Tensor, dim: DimArg = None, keepdim: bool = False) -> Tensor:
    return _logical("all", np.all, self, dim, keepdim, None)


@kernel("all_out")
def all_out(self: Tensor, dim: DimArg = None, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _logical("all", np.all, self, dim, keepdim, out)


@kernel("any")
def any_dims(self: Tensor, dim: DimArg = None, keepdim: bool = False) -> Tensor:
    return _logical("any", np.any, self, dim, keepdim, None)


@kernel("any_out")
def any_out(self: Tensor, dim: DimArg = None, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _logical("any", np.any, self, dim, keepdim, out)


# ---- cumsum, cumprod ------------------------------------------------------------------------


def _cumulative(
    op: str,
    scan: Reducer,
    self: Tensor,
    dim: int,
    requested: dtype | None,
    out: Tensor | None,
    *,
    inplace: bool = False,
) -> Tensor:
    """cumsum/cumprod along `dim`: the input converted to the result dtype, scanned in order in
    the accumulation type."""
    impl = self._impl
    d = wrap_dim(dim, impl.dim())
    if inplace:
        result = impl.dtype
        if requested is not None and requested is not result:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {CPP_TYPE_NAMES[result]} and output tensor dtype "
                f"{CPP_TYPE_NAMES[requested]} should match"
            )
        out = self
    elif out is not None:
        if requested is not None:
            check_out_dtype(out, requested)
        result = out._impl.dtype
    else:
        result = _sum_dtype(impl.dtype, requested)
    if result is bool_:
        raise not_implemented(f"{op}_out_cpu", result)

    def compute(a: Array) -> Any:
        lined = _cast(a.reshape(a.shape or (1,)), result)
        return scan(lined, axis=d, dtype=_acc(result)).astype(result.numpy_dtype).reshape(a.shape)

    return _emit(op, self, impl.sizes, result, compute, out)


@kernel("cumsum")
def cumsum(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _cumulative("cumsum", np.cumsum, self, dim, dtype, None)


@kernel("cumsum_")
def cumsum_(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _cumulative("cumsum", np.cumsum, self, dim, dtype, None, inplace=True)


@kernel("cumsum_out")
def cumsum_out(self: Tensor, dim: int, *, dtype: dtype | None = None, out: Tensor) -> Tensor:
    return _cumulative("cumsum", np.cumsum, self, dim, dtype, out)


@kernel("cumprod")
def cumprod(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _cumulative("cumprod", np.cumprod, self, dim, dtype, None)


@kernel("cumprod_")
def cumprod_(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _cumulative("cumprod", np.cumprod, self, dim, dtype, None, inplace=True)


@kernel("cumprod_out")
def cumprod_out(self: Tensor, dim: int, *, dtype: dtype | None = None, out: Tensor) -> Tensor:
    return _cumulative("cumprod", np.cumprod, self, dim, dtype, out)


# ---- count_nonzero, nansum, nanmean, aminmax, var_mean, std_mean ----------------------------


@kernel("count_nonzero_dims")
def count_nonzero_dims(self: Tensor, dim: Sequence[int]) -> Tensor:
    """The number of non-zero elements over `dim` (every dim when empty), as int64."""
    axes = _reduce_dims(self._impl.dim(), dim)
    shape = _reduced_shape(self._impl.sizes, axes, False)
    return _emit("count_nonzero", self, shape, int64, lambda a: np.count_nonzero(a, axis=axes), None)


@kernel("count_nonzero")
def count_nonzero(self: Tensor, dim: int | None = None) -> Tensor:
    result: Tensor = aten_op("count_nonzero.dim_IntList")(self, [] if dim is None else [dim])
    return result


def _nan_sum(a: Array, **kwargs: Any) -> Any:
    """The sum with NaNs counted as zero."""
    return _SUM(np.where(np.isnan(a), 0, a) if a.dtype.kind in "fc" else a, **kwargs)


def _nansum(self: Tensor, dim: DimArg, keepdim: bool, requested: dtype | None, out: Tensor | None) -> Tensor:
    """sum with NaNs counted as zero (integers and bool: sum itself)."""
    d = self._impl.dtype
    if d.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if d.is_floating_point:
        result = requested or (out._impl.dtype if out is not None else d)
        if not result.is_floating_point:
            raise not_implemented("nansum_cpu", result)
    return _accumulate("nansum", _nan_sum, _acc, self, dim, keepdim, requested, out)


@kernel("nansum")
def nansum(self: Tensor, dim: DimArg = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    return _nansum(self, dim, keepdim, dtype, None)


@kernel("nansum_out")
def nansum_out(
    self: Tensor, dim: DimArg = None, keepdim: bool = False, *, dtype: dtype | None = None, out: Tensor
) -> Tensor:
    return _nansum(self, dim, keepdim, dtype, out)


def _nanmean_count(self: Tensor, dim: DimArg, keepdim: bool) -> Tensor:
    """nanmean's divisor: the number of non-NaN elements reduced into each output (checking the
    input dtype first, as PyTorch)."""
    d = self._impl.dtype
    if not _is_float(d):
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {d.scalar_type_name}"
        )
    present = aten_op("logical_not.default")(aten_op("isnan.default")(self))
    count: Tensor = aten_op("sum.dim_IntList")(present, dim, keepdim)
    return count


@kernel("nanmean")
def nanmean(self: Tensor, dim: DimArg = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    """nansum divided by the number of non-NaN elements (CompositeImplicitAutograd, as PyTorch's)."""
    count = _nanmean_count(self, dim, keepdim)
    total = aten_op("nansum.default")(self, dim, keepdim, dtype=dtype)
    result: Tensor = aten_op("div.Tensor")(total, count)
    return result


@kernel("nanmean_out")
def nanmean_out(
    self: Tensor, dim: DimArg = None, keepdim: bool = False, *, dtype: dtype | None = None, out: Tensor
) -> Tensor:
    count = _nanmean_count(self, dim, keepdim)
    total = aten_op("nansum.out")(self, dim, keepdim, dtype=dtype, out=out)
    result: Tensor = aten_op("div_.Tensor")(total, count)
    return result


def _aminmax(
    self: Tensor, dim: int | None, keepdim: bool, mins: Tensor | None, maxs: Tensor | None
) -> tuple[Tensor, Tensor]:
    """The minimum and maximum over `dim` (every element when None), NaN propagating."""
    impl = self._impl
    ndim = impl.dim()
    if dim is None:
        if impl.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
            )
        axes: tuple[int, ...] = tuple(range(ndim))
    else:
        d = wrap_dim(dim, ndim)
        axes = (d,) if ndim else ()
        if ndim and impl.sizes[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if impl.dtype.is_complex:
        raise not_implemented("aminmax_cpu", impl.dtype)
    if mins is not None and maxs is not None:
        check_out_dtype(mins, impl.dtype)
        check_out_dtype(maxs, impl.dtype)
    shape = _reduced_shape(impl.sizes, axes, keepdim)

    def compute(a: Array) -> tuple[Any, Any]:
        return _MIN(a, axis=axes, keepdims=keepdim), _MAX(a, axis=axes, keepdims=keepdim)

    low, high = _emit_many("aminmax", self, ((shape, impl.dtype, mins), (shape, impl.dtype, maxs)), compute)
    return low, high


@kernel("aminmax")
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _aminmax(self, dim, keepdim, None, None)


@kernel("aminmax_out")
def aminmax_out(
    self: Tensor, *, dim: int | None = None, keepdim: bool = False, min: Tensor, max: Tensor
) -> tuple[Tensor, Tensor]:
    return _aminmax(self, dim, keepdim, min, max)


def _moments_kernels(op: str) -> None:
    """Register `<op>_mean_correction` (the variance or standard deviation and the mean in one
    call) and the CompositeImplicitAutograd `<op>_mean_unbiased`/`<op>_mean_dim` (var, std)."""
    name = f"{op}_mean"

    def correction(
        self: Tensor, dim: DimArg = None, *, correction: float | None = None, keepdim: bool = False
    ) -> tuple[Tensor, Tensor]:
        if not _is_float(self._impl.dtype):
            raise RuntimeError(f"{name} only support floating point and complex dtypes")
        spread = _var(name, self, dim, correction, keepdim, None)
        mean: Tensor = aten_op("mean.dim")(self, dim, keepdim)
        return spread, mean

    def unbiased(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
        result: tuple[Tensor, Tensor] = aten_op(f"{name}.correction")(
            self, None, correction=_correction(unbiased)
        )
        return result

    def dims(
        self: Tensor, dim: DimArg, unbiased: bool = True, keepdim: bool = False
    ) -> tuple[Tensor, Tensor]:
        call = aten_op(f"{name}.correction")
        result: tuple[Tensor, Tensor] = call(self, dim, correction=_correction(unbiased), keepdim=keepdim)
        return result

    register_variants(name, {"_correction": correction, "_unbiased": unbiased, "_dim": dims})


_moments_kernels("var")
_moments_kernels("std")
