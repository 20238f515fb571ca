"""Quantiles, histograms and the torch.special namespace (session 11).

quantile and nanquantile are CompositeImplicitAutograd, as in PyTorch: sort, gather and lerp
through the dispatcher, so their graphs record PyTorch's nodes (SortBackward0, GatherBackward0,
LerpBackward1, ...) and differentiate with respect to `self` and a tensor `q`."""

from __future__ import annotations

from typing import Final

from framework._tensor import Tensor
from framework.c10.dtypes import float32, float64, int64
from framework.ops.kernels._registry import aten_op, register_variants, resize_output, wrap_dim

# ---- quantile, nanquantile ----------------------------------------------------------------------

_INTERPOLATIONS: Final = ("linear", "lower", "higher", "midpoint", "nearest")
_MAX_QUANTILE_SIZE: Final = 2**24
"""The longest reduced dimension whose indices convert exactly to float."""


def _check_scalar_q(q: float) -> None:
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")


def _check_quantile(self: Tensor, q: Tensor, interpolation: str, out: Tensor | None) -> None:
    """PyTorch's argument checks, in its order."""
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (float32, float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if q.device != self.device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    if out is not None and out.device != self.device:
        raise RuntimeError("quantile() out tensor must be on the same device as the input tensor")


def _reduced_shape(self: Tensor, dim: int | None, keepdim: bool) -> list[int]:
    """The shape of one quantile over `dim` (None: over all elements)."""
    if dim is not None and self.dim() > 0:
        shape = list(self.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return shape
    return [1] * self.dim() if keepdim else []


def _quantile_compute(
    self: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool
) -> tuple[Tensor, list[int]]:
    """The quantiles and their shape (q's size for a 1-d q, then the reduced shape): the sorted
    values at the ranks q * (n - 1) (n counting the non-NaN values for nanquantile; the last
    rank, a NaN, where quantile meets a NaN), rounded or interpolated as `interpolation` says."""
    wrapped = wrap_dim(0 if dim is None else dim, self.dim())
    reduced = _reduced_shape(self, None if dim is None else wrapped, keepdim)
    out_shape = [q.numel(), *reduced] if q.dim() > 0 else reduced
    if self.device.type == "cpu" and not bool(q.ge(0).logical_and_(q.le(1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        data = self.flatten()
    elif wrapped == self.dim() - 1:
        data = self
    else:
        data = self.unsqueeze(-1).transpose(wrapped, -1)
    sorted_values: Tensor = data.sort()[0]
    sorted_values = sorted_values.view([*reduced, sorted_values.shape[-1]])
    if sorted_values.shape[-1] > _MAX_QUANTILE_SIZE:
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        ranks = q * (sorted_values.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        last_index = sorted_values.shape[-1] - 1
        scaled, has_nan = aten_op("broadcast_tensors.default")(
            [q * last_index, sorted_values.isnan().any(-1, True)]
        )
        ranks = scaled.masked_fill(has_nan, last_index)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.to(int64)
    values: Tensor = sorted_values.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = aten_op("full_like.default")(ranks, 0.5).masked_fill_(ranks.isnan(), float("nan"))
        else:
            weights = ranks - ranks_below
        ranks_above = ranks.ceil_().to(int64)
        values.lerp_(sorted_values.gather(-1, ranks_above), weights)
    if q.dim() == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values, out_shape


def _scalar_q(self: Tensor, q: float) -> Tensor:
    """A float q as a tensor of `self`'s dtype and device (after PyTorch's range check)."""
    _check_scalar_q(q)
    result: Tensor = aten_op("scalar_tensor.default")(q, dtype=self.dtype, device=self.device)
    return result


def _quantile_variants(name: str, ignore_nan: bool) -> None:
    def tensor_q(
        self: Tensor, q: Tensor, dim: int | None = None, keepdim: bool = False, *, interpolation: str = "linear"
    ) -> Tensor:
        _check_quantile(self, q, interpolation, None)
        return _quantile_compute(self, q, dim, keepdim, interpolation, ignore_nan)[0]

    def tensor_q_out(
        self: Tensor,
        q: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
        out: Tensor,
    ) -> Tensor:
        _check_quantile(self, q, interpolation, out)
        values, shape = _quantile_compute(self, q, dim, keepdim, interpolation, ignore_nan)
        resize_output(out, tuple(shape))
        result: Tensor = out.copy_(values)
        return result

    def float_q(
        self: Tensor, q: float, dim: int | None = None, keepdim: bool = False, *, interpolation: str = "linear"
    ) -> Tensor:
        return tensor_q(self, _scalar_q(self, q), dim, keepdim, interpolation=interpolation)

    def float_q_out(
        self: Tensor,
        q: float,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
        out: Tensor,
    ) -> Tensor:
        return tensor_q_out(self, _scalar_q(self, q), dim, keepdim, interpolation=interpolation, out=out)

    register_variants(
        name, {"": tensor_q, "_out": tensor_q_out, "_scalar": float_q, "_scalar_out": float_q_out}
    )


_quantile_variants("quantile", ignore_nan=False)
_quantile_variants("nanquantile", ignore_nan=True)
