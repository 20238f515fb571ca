"""Weight normalization (`w = g * v / ||v||`, the norm over every dimension but `dim`):
`norm_except_dim` and `_weight_norm` composed of other operators (CompositeImplicitAutograd, as in
PyTorch), and the fused `_weight_norm_interface` kernel `_weight_norm` uses for the first or last
dimension (its node is WeightNormInterfaceBackward0)."""

from __future__ import annotations

import numpy as np

from framework._tensor import Tensor
from framework.c10.dtypes import float32
from framework.ops.kernels._registry import aten_op, kernel, not_implemented, same_device
from framework.ops.kernels.nn import _acc, _emit_many, _values


@kernel("norm_except_dim")
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """The `pow`-norm of `v` over every dimension but `dim`, with size 1 there except along `dim`;
    `dim=-1`: the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(v.size(0), *([1] * (v.dim() - 1)))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(*([1] * (v.dim() - 1)), v.size(-1))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


@kernel("_weight_norm")
def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """The fused `_weight_norm_interface` for the first or last dimension (not for float16), else
    `v * (g / norm_except_dim(v, 2, dim))`."""
    if v.device != g.device:
        raise RuntimeError(
            "weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
            f"{v.device} and g_in is on {g.device}"
        )
    v, g = v.contiguous(), g.contiguous()
    if not (v.dtype.is_reduced_float or g.dtype.is_reduced_float) and dim in (0, v.dim() - 1):
        result: Tensor = aten_op("_weight_norm_interface.default")(v, g, dim)[0]
        return result
    return v * (g / norm_except_dim(v, 2, dim))


@kernel("_weight_norm_interface")
def weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """(w, norms): `w = v * g / norms`, the norms of `v` over every dimension but `dim` (0 or the
    last), output in a tensor shaped as `g` (float32 for float16 `v`, as PyTorch)."""
    v_impl, g_impl = v._impl, g._impl
    device = same_device("_weight_norm_interface", (v, g))
    if not v_impl.dtype.is_floating_point:
        raise not_implemented("weight_norm_kernel", v_impl.dtype)
    if g_impl.dtype is not v_impl.dtype:
        raise RuntimeError(
            f"expected scalar type {v_impl.dtype.scalar_type_name} but found {g_impl.dtype.scalar_type_name}"
        )
    if dim not in (0, v_impl.dim() - 1):
        raise RuntimeError("fused kernels can only be applied for first or last dim")
    axes = tuple(i for i in range(v_impl.dim()) if i != dim)
    count = v_impl.sizes[dim] if v_impl.dim() else 1
    if g_impl.numel() < count:
        raise RuntimeError(
            f"_weight_norm_interface: g has {g_impl.numel()} elements, but v has {count} along dim {dim}"
        )

    def compute() -> tuple[np.ndarray, np.ndarray]:
        """PyTorch's kernel reads the first `count` elements of g (in order) as the gains and
        writes the norms there; the rest of the norms output stays zero."""
        values = _values(v, _acc(v_impl.dtype))
        norms = np.sqrt(np.sum(values * values, axis=axes, keepdims=True))
        gains = _values(g, _acc(v_impl.dtype)).reshape(-1)[:count].reshape(norms.shape)
        norms_out = np.zeros(g_impl.numel(), dtype=norms.dtype)
        norms_out[:count] = norms.reshape(-1)
        return values * (gains / norms), norms_out.reshape(g_impl.sizes)

    norms_dtype = float32 if v_impl.dtype.is_reduced_float else v_impl.dtype
    w, norms = _emit_many(((v_impl.sizes, v_impl.dtype), (g_impl.sizes, norms_dtype)), device, compute)
    return w, norms
