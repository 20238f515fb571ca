"""Remaining operators: ormqr (the product with the Q of a geqrf factorization, without forming Q),
conv_tbc (the time-batch-channel 1-d convolution), embedding_renorm_ (the
in-place row renormalization of nn.functional.embedding's max_norm), segment_reduce and its
backward (reductions over consecutive segments, vectorised with ufunc.at in the data's order).

NumPy is the engine.  ormqr applies the Householder reflectors H_i = I - tau_i v_i v_i^H one by
one to the other matrix (LAPACK's ormqr), in the order and conjugation that `left` and
`transpose` ask for.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import bfloat16, float16, float32, float64, int32, int64
from framework.ops._iter import Number
from framework.ops.kernels._registry import (
    array,
    aten_op,
    dispatched_empty,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    resize_output,
    same_device,
    wrap_dim,
)
from framework.ops.kernels.linalg_more import _lapack_dtype, _mH, check_tau_batch, householder_vector
from framework.ops.kernels.nn import _check_indices

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
    check_tau_batch(op, a, t)
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


# ---- conv_tbc ---------------------------------------------------------------------------------


def _conv_tbc_checks(self: Tensor, weight: Tensor, bias: Tensor) -> None:
    x, w, b = self._impl, weight._impl, bias._impl
    if x.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if w.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if b.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if b.sizes[0] != w.sizes[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if x.sizes[2] != w.sizes[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")


def tbc_taps(ilen: int, kw: int, olen: int, pad: int) -> Iterator[tuple[int, int, int, int]]:
    """(k, i, o, t) for each kernel tap k that meets the input: output rows o .. o + t - 1 read
    input rows i .. i + t - 1 (output row r reads input row r + k - pad)."""
    for k in range(kw):
        i, o = max(0, k - pad), max(0, pad - k)
        t = min(ilen + pad - k, olen) - o
        if t > 0:
            yield k, i, o, t


@kernel("conv_tbc")
def conv_tbc(self: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """The 1-d convolution of a (time, batch, in_channels) input with a (kernel_width,
    in_channels, out_channels) weight, zero-padded by `pad` on both ends of time, plus bias: one
    matrix product per kernel tap added into the output rows it reaches."""
    _conv_tbc_checks(self, weight, bias)
    ilen, batch, cin = self._impl.sizes
    kw, cout = weight._impl.sizes[0], weight._impl.sizes[2]
    olen = ilen - kw + 1 + 2 * pad
    output = dispatched_empty((olen, batch, cout), self._impl.dtype, None, self._impl.device)
    output.copy_(bias.expand(olen, batch, cout))
    for k, i, o, t in tbc_taps(ilen, kw, olen, pad):
        rows = self.narrow(0, i, t).reshape(t * batch, cin)
        output.narrow(0, o, t).view(t * batch, cout).addmm_(rows, weight[k])
    return output


# ---- embedding_renorm_ ------------------------------------------------------------------------


@kernel("embedding_renorm_")
def embedding_renorm_(self: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scale each row of `self` that `indices` names (once, however often named) whose
    norm_type-norm (in self's dtype) exceeds max_norm by max_norm / (norm + 1e-7), in place; the
    scale is rounded to self's (real) dtype before the product, as PyTorch's `row *= scale`."""
    impl = self._impl
    if impl.dim() != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {impl.dim()}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for embedding_renorm_)"
        )
    _check_indices("#2 'indices'", indices, "embedding_renorm_")
    rows = np.unique(array(indices))
    count = impl.sizes[0]
    outside = rows[(rows < -count) | (rows >= count)]
    if outside.size:
        raise IndexError(
            f"select(): index {outside[0]} out of range for tensor of size {list(impl.sizes)} at dimension 0"
        )
    rows = np.unique(rows % count) if count else rows
    index = new_tensor((rows.size,), int64, impl.device)
    array(index)[...] = rows
    selected = self.index_select(0, index)
    norms = array(aten_op("norm.ScalarOpt_dim")(selected, norm_type, [1])).astype(np.float64)
    with np.errstate(divide="ignore"):
        scales = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    scale = new_tensor((rows.size, 1), impl.dtype.to_real(), impl.device)
    array(scale)[...] = scales[:, None]
    self.index_copy_(0, index, selected.mul(scale))
    return self


# ---- segment_reduce ---------------------------------------------------------------------------

_SEGMENT_REDUCTIONS: Final = {"max": "max", "amax": "max", "min": "min", "amin": "min"} | {
    r: r for r in ("sum", "prod", "mean")
}
_SEGMENT_DTYPES: Final = (float16, bfloat16, float32, float64)


class _Segments(NamedTuple):
    """Where each element of data (viewed (batch, n, rest)) goes: `flat` the (batch * segments)
    row of the elements `mask` keeps (in data order), `counts` the elements per segment."""

    mask: Array
    flat: Array
    counts: Array
    shape: tuple[int, int, int, int]  # batch, n, rest, segments


def _segment_reduction(reduce: str) -> str:
    if reduce not in _SEGMENT_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _SEGMENT_REDUCTIONS[reduce]


def _segments(data: Tensor, lengths: Tensor | None, offsets: Tensor | None, axis: int) -> _Segments:
    """The segments of `data` along `axis` that the rows of lengths (or of offsets, which win)
    describe; a row's segments cover data's slice of the leading dimensions, in order."""
    sizes = data._impl.sizes
    batch, n = math.prod(sizes[:axis]), sizes[axis]
    rest = math.prod(sizes[axis + 1 :])
    if offsets is not None:
        bounds = array(offsets).reshape(-1, offsets._impl.sizes[-1]).astype(np.int64)
        starts, ends = bounds[:batch, :-1], bounds[:batch, 1:]
        if (ends < starts).any():
            raise RuntimeError(
                "Expected segment_length >= 0 to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )
    else:
        assert lengths is not None
        ends = np.cumsum(array(lengths).reshape(-1, lengths._impl.sizes[-1])[:batch], axis=-1, dtype=np.int64)
        starts = ends - array(lengths).reshape(ends.shape[0], -1)[:batch]
    count = ends.shape[-1]
    if ends.shape[0] < batch:
        raise RuntimeError(
            f"segment_reduce(): Expected {batch} rows of segments along axis {axis}, but got {ends.shape[0]}"
        )
    rows = np.arange(batch)[:, None]
    shift = rows * (n + 1)
    position = np.arange(n)[None, :]
    segment = np.searchsorted((ends + shift).ravel(), (position + shift).ravel(), side="right").reshape(
        batch, n
    )
    segment -= rows * count
    mask = (
        (position >= starts[:, :1]) & (position < ends[:, -1:]) & (segment < count) if count else position < 0
    )
    flat = (segment + rows * count)[mask]
    return _Segments(mask, flat, (ends - starts).ravel(), (batch, n, rest, count))


def _segment_checks(
    data: Tensor,
    lengths: Tensor | None,
    indices: Tensor | None,
    offsets: Tensor | None,
    axis: int,
    unsafe: bool,
) -> int:
    """PyTorch's checks of segment_reduce, in its order; the wrapped axis."""
    axis = wrap_dim(axis, data._impl.dim())
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    name, bounds = ("offsets", offsets) if offsets is not None else ("lengths", lengths)
    assert bounds is not None
    b = bounds._impl
    if data._impl.dim() < b.dim():
        raise RuntimeError(
            f"Expected data.dim() >= {name}_value.dim() to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    if axis != b.dim() - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {name} but got {axis}."
        )
    if b.dtype not in (int32, int64):
        raise not_implemented(f"_segment_reduce_{name}_cpu_kernel1", b.dtype)
    if offsets is None and not unsafe:
        values = array(bounds)
        if values.size == 0:
            raise RuntimeError(
                "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        if values.min() < 0:
            raise RuntimeError("lengths contains negative value!")
        if (values.sum(-1) != data._impl.sizes[axis]).any():
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
    if data._impl.dtype not in _SEGMENT_DTYPES:
        raise not_implemented("_segment_reduce_cpu", data._impl.dtype)
    return axis


def _segment_result(data: Tensor, axis: int, count: int) -> Tensor:
    sizes = data._impl.sizes
    return new_tensor((*sizes[:axis], count, *sizes[axis + 1 :]), data._impl.dtype, data._impl.device)


@kernel("segment_reduce")
def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Number | None = None,
) -> Tensor:
    """The sum, prod, mean, max (amax) or min (amin) of each segment of `data` along `axis`,
    segments given by `lengths` or `offsets` (per row of the leading dimensions); `initial` joins
    every segment (and fills empty ones, which otherwise get 0, 1, nan, -inf or inf).  Values
    accumulate in data's dtype, element after element, as PyTorch's CPU kernel."""
    kind = _segment_reduction(reduce)
    axis = _segment_checks(data, lengths, indices, offsets, axis, unsafe)
    seg = _segments(data, lengths, offsets, axis)
    batch, n, rest, count = seg.shape
    result = _segment_result(data, axis, count)
    values = array(data).reshape(batch, n, rest)[seg.mask]
    np_dtype = values.dtype
    identity = {"sum": 0, "mean": 0, "prod": 1, "max": -np.inf, "min": np.inf}[kind]
    out = np.full((batch * count, rest), identity if initial is None else initial, np_dtype)
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind]
    ufunc.at(out, seg.flat, values)
    if kind == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            means = out / seg.counts[:, None].astype(np_dtype)
        out = np.where(seg.counts[:, None] > 0, means, np.nan if initial is None else initial).astype(
            np_dtype
        )
    result_view = array(result).reshape(batch, count, rest)
    result_view[...] = out.reshape(batch, count, rest)
    return result


@kernel("_segment_reduce_backward")
def _segment_reduce_backward(
    grad: Tensor,
    output: Tensor,
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    initial: Number | None = None,
) -> Tensor:
    """The gradient of segment_reduce for data, as PyTorch's CPU kernel gives it: sum copies the
    segment's gradient, mean divides it by the length; max and min give it to the elements equal
    to the result (or NaN), a positive one shared among them; prod gives grad * result / x, or,
    for a zero or NaN x, grad times the product of initial and the segment's other elements."""
    kind = _segment_reduction(reduce)
    axis = wrap_dim(axis, data._impl.dim())
    if data._impl.dtype not in _SEGMENT_DTYPES:
        raise not_implemented("_segment_reduce_cpu", data._impl.dtype)
    seg = _segments(data, lengths, offsets, axis)
    batch, n, rest, count = seg.shape
    x = array(data).reshape(batch, n, rest)[seg.mask]
    g = array(grad).reshape(batch * count, rest)[seg.flat]
    y = array(output).reshape(batch * count, rest)[seg.flat]
    dt = x.dtype
    if kind == "sum":
        gx = g
    elif kind == "mean":
        gx = g / seg.counts[seg.flat, None].astype(dt)
    elif kind in ("max", "min"):
        marked = np.isnan(x) | (x == y)
        gx = np.where(marked, g, 0).astype(dt)
        counter = np.zeros((batch * count, rest), np.int64)
        np.add.at(counter, seg.flat, marked.astype(np.int64))
        shared = counter[seg.flat]
        share = (shared >= 2) & (gx > 0)
        gx = np.where(share, gx / np.maximum(shared, 1).astype(dt), gx).astype(dt)
    else:
        nan, zero = np.isnan(x), x == 0
        special = nan | zero
        others = np.full((batch * count, rest), 1 if initial is None else initial, dt)
        np.multiply.at(others, seg.flat, np.where(special, 1, x).astype(dt))
        nans, zeros = (np.zeros((batch * count, rest), np.int64) for _ in range(2))
        np.add.at(nans, seg.flat, nan.astype(np.int64))
        np.add.at(zeros, seg.flat, zero.astype(np.int64))
        other_nan, other_zero = nans[seg.flat] - nan, zeros[seg.flat] - zero
        factor = np.where(other_nan > 0, np.nan, np.where(other_zero > 0, 0, 1)).astype(dt)
        with np.errstate(invalid="ignore", divide="ignore"):
            gx = np.where(
                special, g * (others[seg.flat] * factor), (g * y) / np.where(special, 1, x).astype(dt)
            )
        gx = gx.astype(dt)
    result = new_tensor(data._impl.sizes, data._impl.dtype, data._impl.device)
    full = np.zeros((batch, n, rest), dt)
    full[seg.mask] = gx
    array(result)[...] = full.reshape(data._impl.sizes)
    return result
