"""Remaining operators: ormqr (the product with the Q of a geqrf factorization, without forming Q),
conv_tbc (the time-batch-channel 1-d convolution), embedding_renorm_ (the in-place row
renormalization of nn.functional.embedding's max_norm), segment_reduce and its backward.

NumPy is the engine.  ormqr applies the Householder reflectors H_i = I - tau_i v_i v_i^H one by
one to the other matrix (LAPACK's ormqr), in the order and conjugation that `left` and
`transpose` ask for.
"""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

from framework._tensor import Tensor
from framework.ops.kernels._registry import array, is_meta, kernel, new_tensor, resize_output, same_device
from framework.ops.kernels.linalg_more import _lapack_dtype, _mH, householder_vector

Array = npt.NDArray[Any]


# ---- ormqr ------------------------------------------------------------------------------------


def _ormqr_checks(input: Tensor, tau: Tensor, other: Tensor, left: bool) -> None:
    """PyTorch's argument checks of torch.ormqr, in its order."""
    op = "torch.ormqr"
    a, t, c = input._impl, tau._impl, other._impl
    if a.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if c.dim() < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if t.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if c.sizes[side] != a.sizes[-2]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if t.sizes[-1] != min(c.sizes[side], a.sizes[-1]):
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if a.dim() - t.dim() != 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to {t.dim()} "
            f"and input.ndim is equal to {a.dim()}"
        )
    if t.sizes[:-1] != a.sizes[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(t.sizes[:-1])}"
        )
    if c.dim() != a.dim():
        raise RuntimeError(
            f"{op}: Expected other to have the same number of dimensions as input, but got other.ndim "
            f"equal to {c.dim()} and input.ndim is equal to {a.dim()}"
        )
    if c.sizes[:-2] != a.sizes[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
            f"{list(c.sizes[:-2])}"
        )
    for name, x in (("tau", t), ("other", c)):
        if x.dtype is not a.dtype:
            raise RuntimeError(
                f"{op}: Expected input and {name} to have the same dtype, but input has dtype"
                f"{a.dtype.scalar_type_name} and {name} has dtype {x.dtype.scalar_type_name}"
            )
    same_device(op, (input, tau, other))
    _lapack_dtype("ormqr_cpu", input)


def _ormqr_into(out: Array, a: Array, taus: Array, c: Array, left: bool, transpose: bool) -> None:
    """op(Q) C (left) or C op(Q) into `out`, Q = H_1 ... H_k, op the conjugate transpose when
    `transpose`: the reflectors applied innermost first."""
    x = c.astype(out.dtype, copy=True)
    k = taus.shape[-1]
    for i in reversed(range(k)) if left != transpose else range(k):
        v = householder_vector(a, i)
        t = taus[..., i, None, None]
        if transpose:
            t = t.conj()
        if left:
            x -= t * v @ (_mH(v) @ x)
        else:
            x -= t * (x @ v) @ _mH(v)
    out[...] = x


@kernel("ormqr")
def ormqr(self: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """The product of `input3` with the Q whose Householder reflectors geqrf left in `self`
    (below the diagonal) and `input2` (the scales), Q^H when `transpose`, from the left or the right."""
    _ormqr_checks(self, input2, input3, left)
    c = input3._impl
    out = new_tensor(c.sizes, c.dtype, c.device)
    if not is_meta(c.device) and c.numel():
        _ormqr_into(array(out), array(self), array(input2), array(input3), left, transpose)
    return out


@kernel("ormqr_out")
def ormqr_out(
    self: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, *, out: Tensor
) -> Tensor:
    _ormqr_checks(self, input2, input3, left)
    a, o = self._impl, out._impl
    if o.dtype is not a.dtype:
        raise RuntimeError(
            "torch.ormqr: Expected input and result to have the same dtype, but input has dtype"
            f"{a.dtype.scalar_type_name} and result has dtype {o.dtype.scalar_type_name}"
        )
    resize_output(out, input3._impl.sizes)
    if not is_meta(o.device) and o.numel():
        _ormqr_into(array(out), array(self), array(input2), array(input3), left, transpose)
    return out
