"""Linear algebra and joining kernels: matrix products (matmul, mm, bmm, addmm, mv, dot, outer/ger,
addmv, addr, baddbmm, addbmm)
on NumPy's matmul (BLAS for float32/float64/complex), and joining and rearranging (cat, stack, flip,
repeat, roll, tril, triu).

Each operator is a meta function (PyTorch's argument checks, in PyTorch's order and with its texts;
the output's shape, dtype and device) and an impl that writes into a NumPy output; `_register`
makes the functional, out= and, where PyTorch has one, in-place kernel from the pair, each serving
CPU and Meta.  Unlike pointwise operators, most out= variants here demand the exact result dtype,
as PyTorch's do; each operator names its own out= check.

`matmul` follows PyTorch's decomposition (dot, mv, mm, folding into mm/mv, or broadcast bmm) only
to pick PyTorch's error text when its arguments are wrong; valid arguments go straight to one
`np.matmul` call writing into the output tensor's memory.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import (
    REDUCED_FLOAT_NUMPY,
    bool_,
    can_cast,
    complex64,
    complex128,
    dtype,
    float32,
    float64,
    promote_types,
)
from framework.c10.tensor_impl import TensorImpl
from framework.ops._iter import Number, broadcast_shapes, check_can_cast
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    TensorMeta,
    array,
    aten_op,
    check_out_dtype,
    checked_scalar,
    int_list,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    register_variants,
    resize_output,
    same_device,
    wrap_dim,
)

Array = npt.NDArray[Any]
Sizes = tuple[int, ...]
IntList = int | Sequence[int]

MetaFn = Callable[..., TensorMeta]
ImplFn = Callable[..., None]
OutCheck = Callable[[Tensor, TensorMeta, tuple[Any, ...]], None]
"""`check(out, meta_result, positional_args)`: refuse an out= tensor before it is resized."""
EarlyOutCheck = Callable[[Tensor, tuple[Any, ...]], None]
"""`check(out, positional_args)`: checks PyTorch makes with the out= tensor before the others."""

_BLAS: Final = frozenset((float32, float64, complex64, complex128))
"""Dtypes PyTorch multiplies with BLAS gemm, which skips the product when alpha is 0."""


# ---- registration -----------------------------------------------------------------------------


def _exact_out(out: Tensor, m: TensorMeta, args: tuple[Any, ...]) -> None:
    check_out_dtype(out, m.dtype)


def _castable_out(out: Tensor, m: TensorMeta, args: tuple[Any, ...]) -> None:
    check_can_cast(m.dtype, out._impl.dtype)


def _register(
    name: str,
    meta: MetaFn,
    impl: ImplFn,
    check_out: OutCheck = _exact_out,
    *,
    early_out_check: EarlyOutCheck | None = None,
    inplace: bool = False,
    late_check: Callable[..., None] | None = None,
) -> None:
    """Register kernels `name` and `name_out` (and `name_` when `inplace`) from a meta function
    and an impl.  The out= kernel runs `early_out_check` before the meta function and `check_out`
    after it; `late_check(*args, **kwargs)` runs after the output checks, where PyTorch's kernel
    (not its meta function) checks."""

    def functional(*args: Any, **kwargs: Any) -> Tensor:
        m = meta(*args, **kwargs)
        out = new_tensor(m.sizes, m.dtype, m.device)
        if late_check is not None:
            late_check(*args, **kwargs)
        if not is_meta(m.device):
            impl(out._impl.numpy_view(), *args, **kwargs)
        return out

    def out_variant(*args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        if early_out_check is not None:
            early_out_check(out, args)
        m = meta(*args, **kwargs)
        check_out(out, m, args)
        resize_output(out, m.sizes)
        if late_check is not None:
            late_check(*args, **kwargs)
        if not is_meta(m.device):
            impl(out._impl.numpy_view(), *args, **kwargs)
        return out

    def inplace_variant(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        m = meta(self, *args, **kwargs)
        if m.sizes != self._impl.sizes:
            raise RuntimeError(
                f"Bad in-place call: input tensor size {list(self._impl.sizes)} and output tensor size "
                f"{list(m.sizes)} should match"
            )
        if late_check is not None:
            late_check(self, *args, **kwargs)
        if not is_meta(m.device):
            impl(self._impl.numpy_view(), self, *args, **kwargs)
        return self

    variants: dict[str, Callable[..., Tensor]] = {"": functional, "_out": out_variant}
    if inplace:
        variants["_"] = inplace_variant
    register_variants(name, variants)


# ---- shared helpers ---------------------------------------------------------------------------


def _compute_dtype(d: dtype) -> dtype:
    """The dtype a product in `d` accumulates in, and converts its Scalars to: float16 computes in
    float32, as PyTorch's CPU kernels do (its opmath type)."""
    return float32 if d.is_reduced_float else d


def _product(out: Array, a: Array, b: Array) -> None:
    """`out = a @ b` by one `np.matmul` writing straight into `out` (float16 and bfloat16: in
    float32)."""
    if a.dtype in REDUCED_FLOAT_NUMPY:
        out[...] = np.matmul(a.astype(np.float32), b.astype(np.float32))
    else:
        np.matmul(a, b, out=out)


def _dim_list(sizes: Sizes) -> str:
    return "x".join(str(s) for s in sizes)


# ---- checks shared by matmul and the operators it decomposes into -----------------------------


def _check_dot(s1: Sizes, s2: Sizes, d1: dtype, d2: dtype) -> None:
    if len(s1) != 1 or len(s2) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(s1)}D and {len(s2)}D tensors")
    if d1 is not d2:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {d1.scalar_type_name} and "
            f"{d2.scalar_type_name}"
        )
    if s1[0] != s2[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{s1[0]}] and src [{s2[0]}] to have the same "
            f"number of elements, but got {s1[0]} and {s2[0]} elements respectively"
        )


def _check_mv(mat: Sizes, vec: Sizes, d_mat: dtype, d_vec: dtype, self_sizes: Sizes, d_self: dtype) -> None:
    """PyTorch's mv is addmv(self, mat, vec, beta=0): `self` is a fresh vector of `vec`'s dtype,
    or the out= tensor when that already has a fitting size."""
    if not (len(mat) == 2 and len(vec) == 1 and len(self_sizes) <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {len(self_sizes)}, {len(mat)}, {len(vec)}"
        )
    n_self = math.prod(self_sizes)
    if mat[1] != vec[0] or (mat[0] != n_self and n_self != 1):
        raise RuntimeError(f"size mismatch, got input ({n_self}), mat ({_dim_list(mat)}), vec ({vec[0]})")
    if not (d_self is d_mat and d_mat is d_vec):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {d_self.scalar_type_name}, "
            f"{d_mat.scalar_type_name}, and {d_vec.scalar_type_name}"
        )


def _check_mm(s1: Sizes, s2: Sizes, d1: dtype, d2: dtype) -> None:
    if len(s1) != 2:
        raise RuntimeError("self must be a matrix")
    if len(s2) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if s1[1] != s2[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dim_list(s1)} and {_dim_list(s2)})")
    if d1 is not d2:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{CPP_TYPE_NAMES[d1]} != {CPP_TYPE_NAMES[d2]}"
        )


def _check_bmm(s1: Sizes, s2: Sizes, d1: dtype, d2: dtype) -> None:
    if len(s1) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(s2) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if s2[0] != s1[0] or s2[1] != s1[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] but got: "
            f"[{s2[0]}, {s2[1]}]."
        )
    if d1 is not d2:
        raise RuntimeError(f"expected scalar type {d1.scalar_type_name} but found {d2.scalar_type_name}")


_CPU_KERNEL_NAME: Final = {
    "dot": "dot",
    "mv": "addmv_impl_cpu",
    "mm": "addmm_impl_cpu_",
    "bmm": "bmm",
    "baddbmm": "baddbmm",
}
"""The name in PyTorch's "not implemented for 'Bool'" error of each product kernel."""


def _refuse_bool(op: str, d: dtype) -> None:
    if d is bool_:
        raise not_implemented(_CPU_KERNEL_NAME[op], d)


# ---- matmul -----------------------------------------------------------------------------------


def _should_fold(a: TensorImpl, b: TensorImpl) -> bool:
    """PyTorch's choice to fold the larger operand's batch dimensions into a matrix (mm or mv)
    instead of a broadcast bmm: only when that needs no copy.  (PyTorch also folds when the
    smaller operand requires grad; kernels run below autograd and do not see that.)"""
    if a.dim() >= b.dim():
        sizes, strides, small = a.sizes, a.strides, b.dim()
    else:
        sizes = (*b.sizes[:-2], b.sizes[-1], b.sizes[-2])
        strides = (*b.strides[:-2], b.strides[-1], b.strides[-2])
        small = a.dim()
    if len(sizes) < 3 or small > 2 or a.dim() == 2:
        return False
    if math.prod(sizes) == 0:
        return True
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(len(sizes) - 2))


def _matmul_plan(self: Tensor, other: Tensor) -> tuple[str, Sizes, Sizes, dtype, dtype]:
    """The product PyTorch's matmul reduces to: (op, sizes1, sizes2, dtype1, dtype2) for op in
    dot, mv, mm or bmm (raising the batch-broadcast error of the bmm path)."""
    a, b = self._impl, other._impl
    sa, sb, da, db = a.sizes, b.sizes, a.dtype, b.dtype
    na, nb = len(sa), len(sb)
    if na == 1 and nb == 1:
        return "dot", sa, sb, da, db
    if na == 2 and nb == 1:
        return "mv", sa, sb, da, db
    if na <= 2 and nb == 2:
        return "mm", sa if na == 2 else (1, sa[0]), sb, da, db
    if _should_fold(a, b):
        if na >= nb:
            return ("mm" if nb == 2 else "mv"), (math.prod(sa[:-1]), sa[-1]), sb, da, db
        return "mv", (math.prod(sb[:-2]) * sb[-1], sb[-2]), sa, db, da
    batch = math.prod(broadcast_shapes(sa[:-2], sb[:-2]))
    rows = sa[-2] if na > 1 else 1
    inner, cols = (sb[-2], sb[-1]) if nb > 1 else (sb[0], 1)
    return "bmm", (batch, rows, sa[-1]), (batch, inner, cols), da, db


def _matmul_errors(self: Tensor, other: Tensor) -> None:
    """Raise the error PyTorch's matmul raises for these (bad) arguments."""
    op, s1, s2, d1, d2 = _matmul_plan(self, other)
    if op == "dot":
        _check_dot(s1, s2, d1, d2)
    elif op == "mv":
        _check_mv(s1, s2, d1, d2, s1[:1], d2)
    elif op == "mm":
        _check_mm(s1, s2, d1, d2)
    else:
        _check_bmm(s1, s2, d1, d2)


def _matmul_meta(self: Tensor, other: Tensor) -> TensorMeta:
    a, b = self._impl, other._impl
    sa, sb = a.sizes, b.sizes
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    device = same_device("matmul", (self, other))
    if sa[-1] != (sb[-2] if nb > 1 else sb[0]) or a.dtype is not b.dtype:
        _matmul_errors(self, other)
    batch = broadcast_shapes(sa[:-2], sb[:-2]) if na > 2 or nb > 2 else ()
    return TensorMeta(batch + sa[-2:-1] + (sb[-1:] if nb > 1 else ()), a.dtype, device)


def _matmul_addmv_out_check(out: Tensor, args: tuple[Any, ...]) -> None:
    """A matmul that reduces to mv hands a fitting out= tensor to addmv as its `self` (a folded
    one after resizing it), so addmv's checks see the out= tensor first."""
    self, other = args
    if self._impl.dim() == 0 or other._impl.dim() == 0:
        return
    op, s1, s2, d1, d2 = _matmul_plan(self, other)
    if op == "mv":
        sizes = out._impl.sizes if self._impl.dim() == 2 else s1[:1]
        if len(sizes) <= 1 and math.prod(sizes) in (s1[0], 1):
            _check_mv(s1, s2, d1, d2, sizes, out._impl.dtype)


def _matmul_out_check(out: Tensor, m: TensorMeta, args: tuple[Any, ...]) -> None:
    if out._impl.dtype is not m.dtype and _matmul_plan(*args)[0] == "dot":
        _dot_out_check(out, m, args)
    _exact_out(out, m, args)


def _matmul_impl(out: Array, self: Tensor, other: Tensor) -> None:
    if self._impl.dtype is bool_:
        _refuse_bool(_matmul_plan(self, other)[0], bool_)
    _product(out, array(self), array(other))


_register("matmul", _matmul_meta, _matmul_impl, _matmul_out_check, early_out_check=_matmul_addmv_out_check)


# ---- mm, bmm, mv, dot -------------------------------------------------------------------------


def _mm_meta(self: Tensor, mat2: Tensor) -> TensorMeta:
    a, b = self._impl, mat2._impl
    device = same_device("mm", (self, mat2))
    _check_mm(a.sizes, b.sizes, a.dtype, b.dtype)
    return TensorMeta((a.sizes[0], b.sizes[1]), a.dtype, device)


def _bmm_meta(self: Tensor, mat2: Tensor) -> TensorMeta:
    a, b = self._impl, mat2._impl
    device = same_device("bmm", (self, mat2))
    _check_bmm(a.sizes, b.sizes, a.dtype, b.dtype)
    return TensorMeta((a.sizes[0], a.sizes[1], b.sizes[2]), a.dtype, device)


def _mv_meta(self: Tensor, vec: Tensor) -> TensorMeta:
    a, b = self._impl, vec._impl
    device = same_device("mv", (self, vec))
    if a.dim() == 0:  # PyTorch sizes its addmv `self` by mat.size(0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    _check_mv(a.sizes, b.sizes, a.dtype, b.dtype, a.sizes[:1], b.dtype)
    return TensorMeta(a.sizes[:1], b.dtype, device)


def _mv_addmv_out_check(out: Tensor, args: tuple[Any, ...]) -> None:
    """PyTorch's mv.out hands an out= tensor of fitting size to addmv as its `self`."""
    mat, vec, o = args[0]._impl, args[1]._impl, out._impl
    if mat.dim() and o.dim() <= 1 and o.numel() in (mat.sizes[0], 1):
        _check_mv(mat.sizes, vec.sizes, mat.dtype, vec.dtype, o.sizes, o.dtype)


def _dot_meta(self: Tensor, tensor: Tensor) -> TensorMeta:
    a, b = self._impl, tensor._impl
    device = same_device("dot", (self, tensor))
    _check_dot(a.sizes, b.sizes, a.dtype, b.dtype)
    return TensorMeta((), a.dtype, device)


def _dot_out_check(out: Tensor, m: TensorMeta, args: tuple[Any, ...]) -> None:
    got = out._impl.dtype
    if got is not m.dtype:
        raise RuntimeError(
            f"result dtype {got.scalar_type_name} does not match input dtype {m.dtype.scalar_type_name}"
        )


def _product_impl(op: str) -> ImplFn:
    def impl(out: Array, self: Tensor, other: Tensor) -> None:
        _refuse_bool(op, self._impl.dtype)
        _product(out, array(self), array(other))

    return impl


_register("mm", _mm_meta, _product_impl("mm"))
_register("bmm", _bmm_meta, _product_impl("bmm"))
_register("mv", _mv_meta, _product_impl("mv"), early_out_check=_mv_addmv_out_check)
_register("dot", _dot_meta, _product_impl("dot"), _dot_out_check)


# ---- addmm ------------------------------------------------------------------------------------


def _addmm_meta(
    self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> TensorMeta:
    device = same_device("addmm", (self, mat1, mat2))
    s1, s2 = mat1._impl.sizes, mat2._impl.sizes
    d_self, d1, d2 = self._impl.dtype, mat1._impl.dtype, mat2._impl.dtype
    if len(s1) != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {len(s1)}-D tensor")
    if len(s2) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(s2)}-D tensor")
    if s1[1] != s2[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dim_list(s1)} and {_dim_list(s2)})")
    if d_self is not d2:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {d_self.scalar_type_name} and "
            f"{d2.scalar_type_name}"
        )
    if d1 is not d2:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {d1.scalar_type_name} and {d2.scalar_type_name}"
        )
    return TensorMeta((s1[0], s2[1]), d1, device)


def _addmm_expand_check(
    self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    """`self` must broadcast to the product's shape (PyTorch's kernel expands it)."""
    _expand_check(self, (mat1._impl.sizes[0], mat2._impl.sizes[1]))


def _expand_check(self: Tensor, target: Sizes) -> None:
    """PyTorch's error when `self` does not broadcast to `target` (expand's text)."""
    sizes = self._impl.sizes
    if len(sizes) > len(target):
        raise RuntimeError(
            f"expand(torch.{self._impl.dtype.scalar_type_name}Tensor{{{list(sizes)}}}, size={list(target)}): "
            f"the number of sizes provided ({len(target)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(sizes)})"
        )
    lead = len(target) - len(sizes)
    for i, size in enumerate(sizes):
        if size not in (1, target[lead + i]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing size ({size}) "
                f"at non-singleton dimension {lead + i}.  Target sizes: {list(target)}.  Tensor sizes: "
                f"{list(sizes)}"
            )


def _add_scaled_product(
    out: Array,
    self: Tensor,
    d: dtype,
    product: Callable[[Array, np.dtype[Any]], None],
    beta: Number,
    alpha: Number,
) -> None:
    """`out = beta * self + alpha * product` in `d`'s compute dtype, where `product(result,
    compute_dtype)` writes the product into `result`.  As PyTorch's BLAS-backed kernels: with
    alpha 0 the product is not computed (NaNs in the factors vanish), with beta 0 `self` is not
    read (NaNs there vanish too)."""
    opmath = _compute_dtype(d)
    compute = opmath.numpy_dtype
    beta_c = checked_scalar(beta, opmath)
    alpha_c = checked_scalar(alpha, opmath)
    addend = array(self)
    # The product goes straight into `out` unless `out` is `self` (in place) or needs a cast.
    direct = compute == out.dtype and not np.may_share_memory(out, addend)
    result = out if direct else np.empty(out.shape, compute)
    if alpha_c == 0 and d in _BLAS:
        result.fill(0)
    else:
        product(result, compute)
        if alpha_c != 1:
            np.multiply(result, alpha_c, out=result)
    if beta_c != 0:
        np.add(result, addend if beta_c == 1 else np.multiply(addend, beta_c, dtype=compute), out=result)
    if not direct:
        out[...] = result


def _matmul_into(a: Tensor, b: Tensor) -> Callable[[Array, np.dtype[Any]], None]:
    def product(result: Array, compute: np.dtype[Any]) -> None:
        np.matmul(array(a).astype(compute, copy=False), array(b).astype(compute, copy=False), out=result)

    return product


def _addmm_impl(
    out: Array, self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    d = mat1._impl.dtype
    _refuse_bool("mm", d)
    _add_scaled_product(out, self, d, _matmul_into(mat1, mat2), beta, alpha)


_register("addmm", _addmm_meta, _addmm_impl, inplace=True, late_check=_addmm_expand_check)


# ---- addmv, addr, baddbmm, addbmm -------------------------------------------------------------


def _addmv_meta(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Number = 1, alpha: Number = 1) -> TensorMeta:
    device = same_device("addmv", (self, mat, vec))
    m, v, s = mat._impl, vec._impl, self._impl
    _check_mv(m.sizes, v.sizes, m.dtype, v.dtype, s.sizes, s.dtype)
    return TensorMeta(m.sizes[:1], m.dtype, device)


def _addmv_impl(
    out: Array, self: Tensor, mat: Tensor, vec: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    d = mat._impl.dtype
    _refuse_bool("mv", d)
    _add_scaled_product(out, self, d, _matmul_into(mat, vec), beta, alpha)


_register("addmv", _addmv_meta, _addmv_impl, inplace=True)


def _addr_meta(
    self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> TensorMeta:
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._impl.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._impl.dim()}-D")
    device = same_device("addr", (self, vec1, vec2))
    result = promote_types(promote_types(self._impl.dtype, vec1._impl.dtype), vec2._impl.dtype)
    for name, value in (("beta", beta), ("alpha", alpha)):
        if result is not bool_ and isinstance(value, bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if not (result.is_floating_point or result.is_complex) and isinstance(value, float):
            raise RuntimeError(
                f"For integral input tensors, argument {name} must not be a floating point number."
            )
    target = (vec1._impl.sizes[0], vec2._impl.sizes[0])
    _expand_check(self, target)
    return TensorMeta(target, result, device)


def _addr_impl(
    out: Array, self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    d = np.dtype(out.dtype) if out.dtype not in REDUCED_FLOAT_NUMPY else np.dtype(np.float32)
    a, b = array(vec1).astype(d, copy=False), array(vec2).astype(d, copy=False)
    if out.dtype == np.bool_:  # (beta and self) or (alpha and vec1 vec2^T)
        product = np.logical_and.outer(a, b) if alpha else np.zeros(out.shape, np.bool_)
        out[...] = np.logical_or(product, array(self)) if beta else product
        return
    result = np.multiply.outer(a, b)
    if alpha != 1:
        result *= alpha
    if beta != 0:
        result += array(self).astype(d, copy=False) * beta if beta != 1 else array(self)
    out[...] = result


_register("addr", _addr_meta, _addr_impl, _castable_out, inplace=True)


def _baddbmm_meta(
    self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> TensorMeta:
    device = same_device("baddbmm", (self, batch1, batch2))
    b1, b2 = batch1._impl, batch2._impl
    _check_bmm(b1.sizes, b2.sizes, b1.dtype, b2.dtype)
    target = (b1.sizes[0], b1.sizes[1], b2.sizes[2])
    _expand_check(self, target)
    if self._impl.dtype is not b1.dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {self._impl.dtype.name}, batch1: {b1.dtype.name}, "
            f"batch2: {b2.dtype.name}"
        )
    return TensorMeta(target, b1.dtype, device)


def _baddbmm_impl(
    out: Array, self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    d = batch1._impl.dtype
    _refuse_bool("baddbmm", d)
    _add_scaled_product(out, self, d, _matmul_into(batch1, batch2), beta, alpha)


_register("baddbmm", _baddbmm_meta, _baddbmm_impl, inplace=True)


def _addbmm_meta(
    self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> TensorMeta:
    device = same_device("addbmm", (self, batch1, batch2))
    b1, b2 = batch1._impl, batch2._impl
    if b1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b1.sizes[0] != b2.sizes[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {b1.sizes[0]} and {b2.sizes[0]}"
        )
    if b1.sizes[2] != b2.sizes[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({b1.sizes[1]}x{b1.sizes[2]} and {b2.sizes[1]}x{b2.sizes[2]})"
        )
    target = (b1.sizes[1], b2.sizes[2])
    _expand_check(self, target)
    for name, other in (("mat1", b1), ("self", self._impl)):
        if other.dtype is not b2.dtype:
            first = "mat1 and mat2" if name == "mat1" else "self and mat2"
            raise RuntimeError(
                f"{first} must have the same dtype, but got {other.dtype.scalar_type_name} and "
                f"{b2.dtype.scalar_type_name}"
            )
    return TensorMeta(target, b1.dtype, device)


def _addbmm_impl(
    out: Array, self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1, alpha: Number = 1
) -> None:
    """The sum of the batch's products, as one product of the batches laid side by side."""
    d = batch1._impl.dtype
    _refuse_bool("mm", d)
    b, n, m = batch1._impl.sizes
    p = batch2._impl.sizes[2]

    def product(result: Array, compute: np.dtype[Any]) -> None:
        wide = np.moveaxis(array(batch1), 0, 1).reshape(n, b * m).astype(compute, copy=False)
        tall = array(batch2).reshape(b * m, p).astype(compute, copy=False)
        np.matmul(wide, tall, out=result)

    _add_scaled_product(out, self, d, product, beta, alpha)


_register("addbmm", _addbmm_meta, _addbmm_impl, inplace=True)


# ---- outer / ger ------------------------------------------------------------------------------


def _outer_meta(self: Tensor, vec2: Tensor) -> TensorMeta:
    for name, t in (("self", self), ("vec2", vec2)):
        if t._impl.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._impl.dim()}-D")
    device = same_device("outer", (self, vec2))
    result = promote_types(self._impl.dtype, vec2._impl.dtype)
    return TensorMeta((self._impl.sizes[0], vec2._impl.sizes[0]), result, device)


def _outer_impl(out: Array, self: Tensor, vec2: Tensor) -> None:
    compute = promote_types(self._impl.dtype, vec2._impl.dtype).numpy_dtype
    a, b = array(self).astype(compute, copy=False), array(vec2).astype(compute, copy=False)
    np.multiply.outer(a, b, out=out, casting="unsafe")


_register("outer", _outer_meta, _outer_impl, _castable_out)


def _warn_ger() -> None:
    warnings.warn(
        "torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer instead.",
        UserWarning,
        stacklevel=4,
    )


@kernel("ger")
def ger(self: Tensor, vec2: Tensor) -> Tensor:
    """CompositeImplicitAutograd: `outer` with PyTorch's deprecation warning."""
    _warn_ger()
    result: Tensor = aten_op("outer.default")(self, vec2)
    return result


@kernel("ger_out")
def ger_out(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    _warn_ger()
    result: Tensor = aten_op("outer.out")(self, vec2, out=out)
    return result


# ---- cat / stack ------------------------------------------------------------------------------


def _is_legacy_empty(t: TensorImpl) -> bool:
    """A 1-D tensor of size 0: cat skips it whatever the other tensors' shapes (legacy rule)."""
    return t.sizes == (0,)


def _join_dtype(tensors: Sequence[Tensor]) -> dtype:
    result = tensors[0]._impl.dtype
    for t in tensors[1:]:
        result = promote_types(result, t._impl.dtype)
    return result


def _cat_meta(tensors: Sequence[Tensor], dim: int = 0) -> TensorMeta:
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._impl.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    device = same_device("cat", tuple(tensors))
    result = _join_dtype(tensors)
    kept = [(i, t._impl) for i, t in enumerate(tensors) if not _is_legacy_empty(t._impl)]
    if not kept:
        return TensorMeta((0,), result, device)
    ref = kept[0][1].sizes
    d = wrap_dim(dim, len(ref))
    total = 0
    for i, impl in kept:
        sizes = impl.sizes
        if len(sizes) != len(ref):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {len(sizes)}"
            )
        for j, (expected, got) in enumerate(zip(ref, sizes, strict=True)):
            if j != d and expected != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {expected} but "
                    f"got size {got} for tensor number {i} in the list."
                )
        total += sizes[d]
    return TensorMeta((*ref[:d], total, *ref[d + 1 :]), result, device)


def _join_out_check(out: Tensor, m: TensorMeta, args: tuple[Any, ...]) -> None:
    """cat's (and stack's) out= rules: a castable dtype, no output element written twice, no input
    sharing memory with the output."""
    o = out._impl
    if not can_cast(m.dtype, o.dtype):
        raise TypeError(
            f"torch.cat(): input types can't be cast to the desired output type {o.dtype.scalar_type_name}"
        )
    if any(size > 1 and stride == 0 for size, stride in zip(o.sizes, o.strides, strict=True)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation."
        )
    if is_meta(o.device) or o.numel() == 0:
        return
    written = out._impl.numpy_view()
    for t in args[0]:
        if np.shares_memory(written, array(t)):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                "a single memory location. Please clone() the tensor before performing the operation."
            )


def _cat_impl(out: Array, tensors: Sequence[Tensor], dim: int = 0) -> None:
    parts = [array(t) for t in tensors if not _is_legacy_empty(t._impl)]
    if parts and out.size:
        np.concatenate(parts, axis=wrap_dim(dim, out.ndim), out=out, casting="unsafe")


_register("cat", _cat_meta, _cat_impl, _join_out_check)


def _stack_meta(tensors: Sequence[Tensor], dim: int = 0) -> TensorMeta:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._impl.sizes
    d = wrap_dim(dim, len(first) + 1)
    for i, t in enumerate(tensors):
        if t._impl.sizes != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and "
                f"{list(t._impl.sizes)} at entry {i}"
            )
    device = same_device("stack", tuple(tensors))
    return TensorMeta((*first[:d], len(tensors), *first[d:]), _join_dtype(tensors), device)


def _stack_impl(out: Array, tensors: Sequence[Tensor], dim: int = 0) -> None:
    np.stack([array(t) for t in tensors], axis=wrap_dim(dim, out.ndim), out=out, casting="unsafe")


_register("stack", _stack_meta, _stack_impl, _join_out_check)


# ---- flip, repeat, roll -----------------------------------------------------------------------


def _same_shape_meta(self: Tensor) -> TensorMeta:
    return TensorMeta(self._impl.sizes, self._impl.dtype, self._impl.device)


def _flip_dims(self: Tensor, dims: IntList) -> tuple[int, ...]:
    ndim = self._impl.dim()
    wrapped = [wrap_dim(d, ndim) for d in int_list(dims)]
    seen: set[int] = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return tuple(wrapped) if ndim else ()


def _flip_meta(self: Tensor, dims: IntList) -> TensorMeta:
    _flip_dims(self, dims)
    return _same_shape_meta(self)


def _flip_impl(out: Array, self: Tensor, dims: IntList) -> None:
    out[...] = np.flip(array(self), axis=_flip_dims(self, dims))


_register("flip", _flip_meta, _flip_impl)


def _repeat_meta(self: Tensor, repeats: IntList) -> TensorMeta:
    reps = int_list(repeats)
    sizes = self._impl.sizes
    if len(reps) < len(sizes):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(reps) - len(sizes)) + sizes
    target = tuple(s * r for s, r in zip(padded, reps, strict=True))
    for size in target:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(target)}")
    return TensorMeta(target, self._impl.dtype, self._impl.device)


def _repeat_impl(out: Array, self: Tensor, repeats: IntList) -> None:
    """Write the tiles straight into `out`: each output dimension r*s is viewed as (r, s), and
    the input broadcasts over the r axes."""
    reps = int_list(repeats)
    if out.size == 0:
        return
    a = array(self)
    padded = (1,) * (len(reps) - a.ndim) + a.shape
    shape = [n for r, s in zip(reps, padded, strict=True) for n in (r, s)]
    strides = [n for s, st in zip(padded, out.strides, strict=True) for n in (s * st, st)]
    tiles = np.lib.stride_tricks.as_strided(out, shape=shape, strides=strides, writeable=True)
    tiles[...] = a.reshape([n for s in padded for n in (1, s)])


_register("repeat", _repeat_meta, _repeat_impl)


def _roll_args(self: Tensor, shifts: IntList, dims: IntList) -> tuple[list[int], tuple[int, ...] | None]:
    """(shifts, wrapped dims or None for a roll of the flattened tensor), checked as PyTorch does
    (dims are only checked when the tensor has elements)."""
    shift_list, dim_list = int_list(shifts), int_list(dims)
    if not shift_list:
        raise RuntimeError("`shifts` required")
    if not dim_list and len(shift_list) == 1:
        return shift_list, None
    if len(shift_list) != len(dim_list):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}"
        )
    if self._impl.numel() == 0:
        return shift_list, tuple(dim_list)
    return shift_list, tuple(wrap_dim(d, self._impl.dim(), wrap_scalar=False) for d in dim_list)


def _roll_meta(self: Tensor, shifts: IntList, dims: IntList = ()) -> TensorMeta:
    _roll_args(self, shifts, dims)
    return _same_shape_meta(self)


def _roll_impl(out: Array, self: Tensor, shifts: IntList, dims: IntList = ()) -> None:
    shift_list, axes = _roll_args(self, shifts, dims)
    if out.size:
        out[...] = np.roll(array(self), shift_list[0] if axes is None else shift_list, axis=axes)


_register("roll", _roll_meta, _roll_impl)


# ---- tril / triu ------------------------------------------------------------------------------


def _triangle(op: str, upper: bool) -> None:
    def meta(self: Tensor, diagonal: int = 0) -> TensorMeta:
        if self._impl.dim() < 2:
            raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
        return _same_shape_meta(self)

    def impl(out: Array, self: Tensor, diagonal: int = 0) -> None:
        rows, cols = out.shape[-2:]
        # np.tri(k) marks j <= i + k: the lower triangle; triu keeps j >= i + diagonal.
        drop = (
            np.tri(rows, cols, diagonal - 1, dtype=np.bool_)
            if upper
            else ~np.tri(rows, cols, diagonal, dtype=np.bool_)
        )
        a = array(self)
        if out is not a:  # in place, `out` is `self`'s (cached) array
            np.copyto(out, a)
        np.copyto(out, out.dtype.type(0), where=drop)

    _register(op, meta, impl, inplace=True)


_triangle("tril", upper=False)
_triangle("triu", upper=True)
