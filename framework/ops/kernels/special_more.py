"""Quantiles, histograms and the torch.special namespace (session 11).

quantile and nanquantile are CompositeImplicitAutograd, as in PyTorch: sort, gather and lerp
through the dispatcher, so their graphs record PyTorch's nodes (SortBackward0, GatherBackward0,
LerpBackward1, ...) and differentiate with respect to `self` and a tensor `q`.

The special_* aliases (expit, gammaln, psi, ...) are CompositeImplicitAutograd kernels calling the
real operator, special_ndtr a composition; erfcx, i0e, i1e, ndtri, log_ndtr, entr, xlog1py, zeta,
igamma/igammac (special.gammainc/gammaincc) and bessel_j0/j1 are CPU kernels computing in float64
with NumPy only (series, continued fractions, asymptotic expansions; see each function).

histogram and the _histogramdd_* kernels bin points with a binary search over the edges (the
linspace edges for a bin count), as PyTorch's CPU kernels; histogramdd composes them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10.dtypes import can_cast, dtype, float32, float64, int64
from framework.ops.kernels._registry import (
    CPP_TYPE_NAMES,
    array,
    aten_op,
    forward_kernel,
    not_implemented,
    register_variants,
    resize_output,
    structured,
    wrap_dim,
)
from framework.ops.kernels.math_more import (
    _BESSEL_SWITCH,
    _STIRLING,
    _bessel_asymptotic_scaled,
    _bessel_series,
    _float64_unary,
    _lgamma_one_plus,
    _lgamma_positive,
    _polynomial,
    hurwitz_zeta,
    lgamma_array,
)
from framework.ops.kernels.pointwise import (
    _binary_impl,
    _binary_meta,
    _refuse,
    _to_float,
    _true_div_compute,
    _unary,
    _with_wrapped_self,
    erfc_array,
    erfc_continued_fraction,
    erfinv_array,
)

Array = npt.NDArray[Any]

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
        self: Tensor,
        q: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
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
        self: Tensor,
        q: float,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
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


# ---- torch.special: aliases (CompositeImplicitAutograd kernels calling the real operator) --------

_SPECIAL_ALIASES: Final[dict[str, str]] = {
    "special_expit": "sigmoid.default",
    "special_expit_out": "sigmoid.out",
    "special_logit": "logit.default",
    "special_logit_out": "logit.out",
    "special_erf": "erf.default",
    "special_erf_out": "erf.out",
    "special_erfc": "erfc.default",
    "special_erfc_out": "erfc.out",
    "special_erfinv": "erfinv.default",
    "special_erfinv_out": "erfinv.out",
    "special_gammaln": "lgamma.default",
    "special_gammaln_out": "lgamma.out",
    "special_digamma": "digamma.default",
    "special_digamma_out": "digamma.out",
    "special_psi": "digamma.default",
    "special_psi_out": "digamma.out",
    "special_polygamma": "polygamma.default",
    "special_polygamma_out": "polygamma.out",
    "special_multigammaln": "mvlgamma.default",
    "special_multigammaln_out": "mvlgamma.out",
    "special_i0": "i0.default",
    "special_i0_out": "i0.out",
    "special_xlogy": "xlogy.Tensor",
    "special_xlogy_self_scalar": "xlogy.Scalar_Self",
    "special_xlogy_other_scalar": "xlogy.Scalar_Other",
    "special_xlogy_out": "xlogy.OutTensor",
    "special_xlogy_self_scalar_out": "xlogy.OutScalar_Self",
    "special_xlogy_other_scalar_out": "xlogy.OutScalar_Other",
    "special_logsumexp": "logsumexp.default",
    "special_logsumexp_out": "logsumexp.out",
    "special_softmax": "softmax.int",
    "special_log_softmax": "log_softmax.int",
    "special_sinc": "sinc.default",
    "special_sinc_out": "sinc.out",
    "special_round": "round.decimals",
    "special_round_out": "round.decimals_out",
    "special_exp2": "exp2.default",
    "special_exp2_out": "exp2.out",
    "special_expm1": "expm1.default",
    "special_expm1_out": "expm1.out",
    "special_log1p": "log1p.default",
    "special_log1p_out": "log1p.out",
    "special_gammainc": "igamma.default",
    "special_gammainc_out": "igamma.out",
    "special_gammaincc": "igammac.default",
    "special_gammaincc_out": "igammac.out",
}
"""Alias kernel -> the aten overload it calls (so the graph records the real operator's node)."""

for _alias, _target in _SPECIAL_ALIASES.items():
    forward_kernel(_alias, _target)


def _special_ndtr(self: Tensor) -> Tensor:
    """The standard normal distribution function, (1 + erf(x / sqrt(2))) / 2 (a composition, as
    PyTorch's: its graph records MulBackward1, AddBackward1 and ErfBackward0)."""
    scaled = aten_op("mul.Scalar")(self, math.sqrt(0.5))
    result: Tensor = aten_op("mul.Scalar")(aten_op("add.Scalar")(scaled.erf(), 1), 0.5)
    return result


def _special_ndtr_out(self: Tensor, *, out: Tensor) -> Tensor:
    values = _special_ndtr(self)
    if not can_cast(values.dtype, out.dtype):
        raise RuntimeError(
            f"result type {values.dtype.scalar_type_name} can't be cast to the desired output type "
            f"{out.dtype.scalar_type_name}"
        )
    resize_output(out, tuple(values.shape))
    result: Tensor = out.copy_(values)
    return result


register_variants("special_ndtr", {"": _special_ndtr, "_out": _special_ndtr_out})


# ---- torch.special: native unary functions ---------------------------------------------------------
# Each computes in float64 (no SciPy); PyTorch's CPU kernels refuse the dtypes `_refused` names.

_SQRT_PI: Final = math.sqrt(math.pi)
_HALF_LOG_TWO_PI: Final = 0.5 * math.log(2.0 * math.pi)


def _refused(kernel: str, half: bool) -> Any:
    """PyTorch's refusal of complex dtypes (and of float16 and bfloat16 when `half`) by kernel name."""
    return _refuse(kernel, lambda d: d.is_complex or (half and d.is_reduced_float))


def erfcx_array(x: Array) -> Array:
    """exp(x^2) erfc(x) of float64 `x`: 1 / (sqrt(pi) times erfc's continued fraction) from 1 on,
    exp(x^2) erfc(x) below 1 (2 exp(x^2) - erfcx(-x) below -1; +inf where exp(x^2) overflows)."""
    a = np.abs(x)
    tail = np.empty_like(a)
    big = a >= 1.0
    tail[big] = 1.0 / (_SQRT_PI * erfc_continued_fraction(a[big]))
    small = ~big
    tail[small] = np.exp(a[small] * a[small]) * erfc_array(a[small])
    with np.errstate(over="ignore"):
        result: Array = np.where(x < 0, 2.0 * np.exp(x * x) - tail, tail)
    return result


def _scaled_bessel(x: Array, order: int) -> Array:
    """exp(-|x|) I_order(x) of float64 `x` (order 0 or 1): the power series times exp(-|x|) below
    |x| = 30, the asymptotic expansion above (no overflow)."""
    a = np.abs(x)
    result = np.full_like(a, np.nan)
    small = a < _BESSEL_SWITCH
    result[small] = _bessel_series(x[small], order) * np.exp(-a[small])
    big = (a >= _BESSEL_SWITCH) & np.isfinite(a)
    b = a[big]
    values = _bessel_asymptotic_scaled(b, order) / np.sqrt(2.0 * math.pi * b)
    result[big] = values if order == 0 else np.copysign(values, x[big])
    infinite = np.isinf(a)
    result[infinite] = 0.0
    return result


def log_ndtr_array(x: Array) -> Array:
    """log of the standard normal distribution function of float64 `x`: log1p(-erfc(x/sqrt 2)/2)
    from 0 on, log(erfcx(-x/sqrt 2)/2) - x^2/2 below (no underflow of the tail)."""
    z = x * math.sqrt(0.5)
    result = np.empty_like(x)
    upper = ~(x < 0)
    result[upper] = np.log1p(-0.5 * erfc_array(z[upper]))
    lower = x < 0
    w = z[lower]
    with np.errstate(over="ignore"):
        result[lower] = np.log(0.5 * erfcx_array(-w)) - w * w
    return result


_NDTRI_STEPS: Final = 6


def ndtri_array(p: Array) -> Array:
    """The inverse of the standard normal distribution function of float64 `p`: sqrt(2)
    erfinv(2p - 1) (exact argument) for p in [1/4, 3/4]; in the tails, Newton's method on
    log_ndtr(x) = log(min(p, 1 - p)) from erfinv's or the asymptotic estimate; -+inf at 0 and 1,
    NaN outside [0, 1]."""
    result = np.full_like(p, np.nan)
    central = (p >= 0.25) & (p <= 0.75)
    result[central] = math.sqrt(2.0) * erfinv_array(2.0 * p[central] - 1.0)
    tails = ((p > 0) & (p < 0.25)) | ((p > 0.75) & (p < 1))
    upper = p[tails] > 0.5
    tail = np.where(upper, 1.0 - p[tails], p[tails])  # exact for p > 1/2
    log_tail = np.log(tail)
    t2 = -2.0 * log_tail  # x^2 = t2 - log(2 pi) - log(x^2) asymptotically: two fixed-point steps
    square = np.maximum(t2 - math.log(2.0 * math.pi) - np.log(t2), 1.0)
    asymptotic = -np.sqrt(np.maximum(t2 - math.log(2.0 * math.pi) - np.log(square), 1.0))
    x = np.where(tail > 1e-8, math.sqrt(2.0) * erfinv_array(2.0 * tail - 1.0), asymptotic)
    for _ in range(_NDTRI_STEPS):
        x = x - (log_ndtr_array(x) - log_tail) * _SQRT_PI * math.sqrt(0.5) * erfcx_array(-x * math.sqrt(0.5))
    result[tails] = np.where(upper, -x, x)
    result[p == 0] = -np.inf
    result[p == 1] = np.inf
    return result


def _entr(x: Array) -> Array:
    """-x log(x): 0 at 0, -inf below 0, NaN at NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values = -x * np.log(x)
    result: Array = np.where(x == 0, 0, np.where(x < 0, -np.inf, values))
    return result.astype(x.dtype)


def _special_unary(base: str, float64_values: Callable[[Array], Array], half: bool) -> None:
    """Register special_<base>: `float64_values` computed in float64 (the result is floating:
    integer inputs promote); complex inputs (and float16/bfloat16 when `half`) are refused as
    PyTorch's <base>_cpu kernel refuses them."""
    _unary(
        f"special_{base}", _float64_unary(float64_values), to_float=True, check=_refused(f"{base}_cpu", half)
    )


_special_unary("erfcx", erfcx_array, half=True)
_special_unary("i0e", lambda a: _scaled_bessel(a, 0), half=False)
_special_unary("i1e", lambda a: _scaled_bessel(a, 1), half=False)
_special_unary("ndtri", ndtri_array, half=True)
_special_unary("log_ndtr", log_ndtr_array, half=True)
_unary("special_entr", _entr, to_float=True, check=_refused("entr_cpu", False))


# ---- torch.special: xlog1py, zeta (Tensor-Tensor kernels; a Scalar self is wrapped, as in PyTorch) --


def _xlog1py(x: Array | float, y: Array | float) -> Array:
    """x * log1p(y), 0 where x is 0 and y is not NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.multiply(x, np.log1p(y))
    result: Array = np.where(np.isnan(y), np.nan, np.where(np.equal(x, 0), 0, values))
    return result


def _zeta(s: Array | float, q: Array | float) -> Array:
    """The Hurwitz zeta function sum_k (q + k)^-s, computed in float64."""
    s64, q64 = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64))
    return hurwitz_zeta(s64.copy(), q64.copy())


for _name, _fn, _kernel, _half in (
    ("special_xlog1py", _xlog1py, "xlog1py_cpu", False),
    ("special_zeta", _zeta, "zeta_cpu", True),
):
    structured(
        _name,
        _binary_meta(_name, _to_float, _refused(_kernel, _half)),
        _binary_impl(_fn, _true_div_compute),
        inplace=False,
    )
    register_variants(
        f"{_name}_self_scalar",
        {"": _with_wrapped_self(f"{_name}.default"), "_out": _with_wrapped_self(f"{_name}.out")},
    )


# ---- histogram, histogramdd ---------------------------------------------------------------------------
# The kernels work on `self` as M points of N coordinates (its last dimension; histogram's input is
# N = 1 column of all its elements), as PyTorch's histogramdd kernels do.


def _check_histogramdd(
    shape: list[int], d: dtype, bins: list[Tensor], weight: Tensor | None, weight_shape: list[int]
) -> None:
    """PyTorch's histogramdd_check_inputs, in its order, for an input of `shape` and dtype `d`."""
    if len(shape) < 2:
        raise RuntimeError(
            f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {len(shape)}"
        )
    n = shape[-1]
    if len(bins) != n:
        raise RuntimeError(
            f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional histogram "
            f"but got {len(bins)}"
        )
    name = CPP_TYPE_NAMES[d]
    for k, edges in enumerate(bins):
        if edges.dtype is not d:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                f"input with dtype {name} and bins for dimension {k} with dtype {CPP_TYPE_NAMES[edges.dtype]}"
            )
        if edges.dim() != 1:
            raise RuntimeError(
                f"torch.histogramdd: bins tensor should have one dimension, but got {edges.dim()} "
                f"dimensions in the bins tensor for dimension {k}"
            )
        if edges.numel() == 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                f"the bins tensor for dimension {k}"
            )
    if weight is None:
        return
    if weight.dtype is not d:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have "
            f"the same dtype, but got input({name}), and weight({CPP_TYPE_NAMES[weight.dtype]})"
        )
    if (weight_shape or [1]) != shape[:-1]:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as the input "
            f"tensor excluding its innermost dimension, but got input with shape {shape} and weight with "
            f"shape {weight_shape}"
        )


def _prepare_histogram_out(d: dtype, counts: list[int], hist: Tensor, edges: list[Tensor]) -> None:
    """PyTorch's histogramdd_prepare_out: dtype checks, positive bin counts, resized outputs."""
    if hist.dtype is not d:
        raise RuntimeError(
            "torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
            f"{CPP_TYPE_NAMES[d]} and hist {CPP_TYPE_NAMES[hist.dtype]}"
        )
    for k, (count, e) in enumerate(zip(counts, edges, strict=True)):
        if e.dtype is not d:
            raise RuntimeError(
                "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got "
                f"input {CPP_TYPE_NAMES[d]} and bin_edges {CPP_TYPE_NAMES[e.dtype]} for dimension {k}"
            )
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension {k}")
        resize_output(e, (count + 1,))
    resize_output(hist, tuple(counts))


def _points(self: Tensor) -> Array:
    """The values of `self` (at least 2-d) as an (M, N) array of M points."""
    a = array(self)
    return a.reshape(-1, a.shape[-1])


def _outer_edges(points: Array, bounds: list[float] | None) -> list[tuple[float, float]]:
    """Each dimension's leftmost and rightmost edge: the pairs of `bounds` (the `range`
    argument), else the data's extremes (0 and 1 without data), widened by 1/2 each way when
    equal."""
    n = points.shape[1]
    if bounds is not None:
        if len(bounds) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} elements, "
                f"but got {len(bounds)}"
            )
        pairs = list(zip(bounds[0::2], bounds[1::2], strict=True))
    elif points.shape[0] > 0:
        pairs = list(zip(points.min(axis=0).tolist(), points.max(axis=0).tolist(), strict=True))
    else:
        pairs = [(0.0, 1.0)] * n
    result = []
    for k, (low, high) in enumerate(pairs):
        if not (math.isfinite(low) and math.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{low:g}, {high:g}] is not finite")
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for "
                f"dimension {k}"
            )
        result.append((low - 0.5, high + 0.5) if low == high else (float(low), float(high)))
    return result


def _fill_histogram(
    points: Array, weight: Tensor | None, density: bool, hist: Tensor, edges: list[Tensor]
) -> None:
    """Count (or sum the weights of) the M points (rows) of `points` into `hist`, bin i of
    dimension k being [edges[k][i], edges[k][i + 1]) (the last one closed); points outside the
    edges (NaN included) are left out.  With `density`, the result is divided by its sum and
    by each bin's volume (in the input's dtype)."""
    edge_arrays = [array(e) for e in edges]
    inside = np.ones(points.shape[0], dtype=bool)
    positions = []
    for k, e in enumerate(edge_arrays):
        x = points[:, k]
        inside &= (x >= e[0]) & (x <= e[-1])
        positions.append(np.minimum(np.searchsorted(e, x, side="right") - 1, e.size - 2))
    shape = tuple(e.size - 1 for e in edge_arrays)
    flat = np.ravel_multi_index(tuple(p[inside] for p in positions), shape)
    w = None if weight is None else array(weight).reshape(-1)[inside]
    counts = np.bincount(flat, weights=w, minlength=math.prod(shape)).reshape(shape).astype(points.dtype)
    if density:
        counts = counts / counts.sum(dtype=points.dtype)
        for k, e in enumerate(edge_arrays):
            widths = [1] * len(shape)
            widths[k] = -1
            counts = counts / np.diff(e).reshape(widths)
    array(hist)[...] = counts


def _refuse_histogram(d: dtype, kernel: str, half: bool) -> None:
    if not (d in (float32, float64) or (half and d.is_reduced_float)):
        raise not_implemented(kernel, d)


def _linear_histogram(
    self: Tensor,
    shape: list[int],
    points: Array,
    counts: list[int],
    bounds: list[float] | None,
    weight: Tensor | None,
    weight_shape: list[int],
    density: bool,
    hist: Tensor,
    edges: list[Tensor],
) -> None:
    """Equal bins: `edges` are linspaces over the outer edges, then the points are counted
    (`shape` and `weight_shape` are the input's and the weight's as PyTorch checks them)."""
    _prepare_histogram_out(self.dtype, counts, hist, edges)
    _refuse_histogram(self.dtype, "histogramdd", half=False)
    for count, e, (low, high) in zip(counts, edges, _outer_edges(points, bounds), strict=True):
        aten_op("linspace.out")(low, high, count + 1, out=e)
    _check_histogramdd(shape, self.dtype, edges, weight, weight_shape)
    _fill_histogram(points, weight, density, hist, edges)


def _edges_histogram(
    self: Tensor,
    shape: list[int],
    points: Array,
    bins: list[Tensor],
    weight: Tensor | None,
    weight_shape: list[int],
    density: bool,
    hist: Tensor,
    edges: list[Tensor],
) -> None:
    """Given bin edges (copied to `edges`), the points are counted."""
    _check_histogramdd(shape, self.dtype, bins, weight, weight_shape)
    _prepare_histogram_out(self.dtype, [b.numel() - 1 for b in bins], hist, edges)
    for source, e in zip(bins, edges, strict=True):
        array(e)[...] = array(source)
    _refuse_histogram(self.dtype, "histogram_cpu", half=True)
    _fill_histogram(points, weight, density, hist, edges)


def _empty_like_input(self: Tensor, shape: list[int]) -> Tensor:
    result: Tensor = aten_op("empty.memory_format")(shape, dtype=self.dtype, device=self.device)
    return result


def _histogram_weight_shape(weight: Tensor | None) -> list[int]:
    return [] if weight is None else [weight.numel()]


def _histogram_bins_tensor_out(
    self: Tensor,
    bins: Tensor,
    *,
    weight: Tensor | None = None,
    density: bool = False,
    hist: Tensor,
    bin_edges: Tensor,
) -> tuple[Tensor, Tensor]:
    """histogram with the given bin edges (`self` flattened)."""
    points = array(self).reshape(-1, 1)
    weight_shape = _histogram_weight_shape(weight)
    _edges_histogram(
        self, [points.shape[0], 1], points, [bins], weight, weight_shape, density, hist, [bin_edges]
    )
    return hist, bin_edges


def _histogram_bins_tensor(
    self: Tensor, bins: Tensor, *, weight: Tensor | None = None, density: bool = False
) -> tuple[Tensor, Tensor]:
    return _histogram_bins_tensor_out(
        self,
        bins,
        weight=weight,
        density=density,
        hist=_empty_like_input(self, [0]),
        bin_edges=_empty_like_input(self, [0]),
    )


def _histogram_bin_ct_out(
    self: Tensor,
    bins: int = 100,
    *,
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
    hist: Tensor,
    bin_edges: Tensor,
) -> tuple[Tensor, Tensor]:
    """histogram with `bins` equal bins over `range` (the data's extremes without it)."""
    points = array(self).reshape(-1, 1)
    weight_shape = _histogram_weight_shape(weight)
    _linear_histogram(
        self, [points.shape[0], 1], points, [bins], range, weight, weight_shape, density, hist, [bin_edges]
    )
    return hist, bin_edges


def _histogram_bin_ct(
    self: Tensor,
    bins: int = 100,
    *,
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> tuple[Tensor, Tensor]:
    return _histogram_bin_ct_out(
        self,
        bins,
        range=range,
        weight=weight,
        density=density,
        hist=_empty_like_input(self, [0]),
        bin_edges=_empty_like_input(self, [0]),
    )


register_variants(
    "histogram",
    {
        "_bins_tensor": _histogram_bins_tensor,
        "_bins_tensor_out": _histogram_bins_tensor_out,
        "_bin_ct": _histogram_bin_ct,
        "_bin_ct_out": _histogram_bin_ct_out,
    },
)


def _histogramdd_edges_for(self: Tensor) -> list[Tensor]:
    """Empty bin-edge tensors, one per dimension of the points (PyTorch's allocate_bin_edges_tensors)."""
    if self.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    return [_empty_like_input(self, [0]) for _ in range(self.shape[-1])]


def _check_bin_count_size(bins: list[int], points: Array) -> None:
    if len(bins) != points.shape[1]:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )


def _histogramdd_bin_edges(
    self: Tensor,
    bins: list[int],
    *,
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> list[Tensor]:
    """The bin edges histogramdd uses for `bins` equal bins per dimension."""
    edges = _histogramdd_edges_for(self)
    _refuse_histogram(self.dtype, "histogramdd", half=False)
    points = _points(self)
    outer = _outer_edges(points, range)
    _check_bin_count_size(bins, points)
    for count, e, (low, high) in zip(bins, edges, outer, strict=True):
        aten_op("linspace.out")(low, high, count + 1, out=e)
    return edges


def _histogramdd_from_bin_cts(
    self: Tensor,
    bins: list[int],
    *,
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Tensor:
    """histogramdd's counts for `bins` equal bins per dimension."""
    edges = _histogramdd_edges_for(self)
    points = _points(self)
    _check_bin_count_size(bins, points)
    hist = _empty_like_input(self, list(bins))
    weight_shape = [] if weight is None else list(weight.shape)
    _linear_histogram(
        self, list(self.shape), points, list(bins), range, weight, weight_shape, density, hist, edges
    )
    return hist


def _histogramdd_from_bin_tensors(
    self: Tensor, bins: list[Tensor], *, weight: Tensor | None = None, density: bool = False
) -> Tensor:
    """histogramdd's counts for the given bin edges of each dimension."""
    edges = _histogramdd_edges_for(self)
    hist = _empty_like_input(self, [0])
    weight_shape = [] if weight is None else list(weight.shape)
    _edges_histogram(self, list(self.shape), _points(self), bins, weight, weight_shape, density, hist, edges)
    return hist


register_variants("histogramdd_bin_edges", {"": _histogramdd_bin_edges})
register_variants("histogramdd_from_bin_cts", {"": _histogramdd_from_bin_cts})
register_variants("histogramdd_from_bin_tensors", {"": _histogramdd_from_bin_tensors})


def _histogramdd_int_list(
    self: Tensor,
    bins: list[int],
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> tuple[Tensor, list[Tensor]]:
    """histogramdd (CompositeImplicitAutograd): the bin edges, then the counts."""
    edges: list[Tensor] = aten_op("_histogramdd_bin_edges.default")(
        self, bins, range=range, weight=weight, density=density
    )
    hist: Tensor = aten_op("_histogramdd_from_bin_cts.default")(
        self, bins, range=range, weight=weight, density=density
    )
    return hist, edges


def _histogramdd_int(
    self: Tensor,
    bins: int,
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> tuple[Tensor, list[Tensor]]:
    """histogramdd with `bins` equal bins in every dimension."""
    return _histogramdd_int_list(self, [bins] * self.shape[-1], range, weight, density)


def _histogramdd_tensors(
    self: Tensor,
    bins: list[Tensor],
    range: list[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> tuple[Tensor, list[Tensor]]:
    """histogramdd with the given bin edges (`range` is not used)."""
    hist: Tensor = aten_op("_histogramdd_from_bin_tensors.default")(
        self, bins, weight=weight, density=density
    )
    return hist, list(bins)


register_variants(
    "histogramdd",
    {"": _histogramdd_int_list, "_int_bins": _histogramdd_int, "_tensorlist_bins": _histogramdd_tensors},
)


# ---- igamma, igammac (special_gammainc / special_gammaincc) -------------------------------------------
# The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x), choosing between
# the power series of P, the continued fraction of Q and (for x <= 1.1) the power series of Q
# as Cephes does; the factor x^a e^-x / Gamma(a) goes through Stirling's series for a >= 13.

_IGAMMA_EPS: Final = 1e-16
_IGAMMA_MAX_TERMS: Final = 20000
_TINY: Final = 1e-300


def _log1pmx_small(t: Array) -> Array:
    """log(1 + t) - t for |t| < 1/2, by the series of 2 atanh(t / (2 + t)) (no cancellation)."""
    u = t / (2.0 + t)
    u2 = u * u
    total = np.zeros_like(u)
    power = u * u2
    for k in range(1, 30):
        total = total + power / (2 * k + 1)
        power = power * u2
    result: Array = -t * t / (2.0 + t) + 2.0 * total
    return result


def _gamma_factor(a: Array, x: Array) -> Array:
    """x^a e^-x / Gamma(a) for a > 0 and x > 0: for a >= 13 by Stirling's series, as
    sqrt(a / (2 pi)) exp(a log(x/a) + a - x - correction(a)), the exponent by log1p(t) - t with
    t = x/a - 1 where it is small."""
    result = np.empty_like(a)
    big = a >= 13.0
    ab, xb = a[big], x[big]
    correction = _polynomial(1.0 / (ab * ab), _STIRLING) / ab
    t = (xb - ab) / ab
    near = np.abs(t) < 0.5
    exponent = np.empty_like(ab)
    exponent[near] = ab[near] * _log1pmx_small(t[near])
    far = ~near
    exponent[far] = ab[far] * np.log(xb[far] / ab[far]) - (xb[far] - ab[far])
    with np.errstate(over="ignore", under="ignore"):
        result[big] = np.sqrt(ab / (2.0 * math.pi)) * np.exp(exponent - correction)
        small = ~big
        result[small] = np.exp(a[small] * np.log(x[small]) - x[small] - lgamma_array(a[small]))
    return result


def _converge(step: Any, total: Array, state: tuple[Array, ...]) -> Array:
    """Run `step(n, total, state) -> (total, state, done)` for n = 1, 2, ... until every element
    is done; an element's total is kept from the step that finished it on (so a continued
    fraction does not gather rounding errors while the others converge)."""
    finished = np.zeros(total.shape, dtype=bool)
    for n in range(1, _IGAMMA_MAX_TERMS):
        updated, state, done = step(n, total, state)
        total = np.where(finished, total, updated)
        finished |= done
        if n % 8 == 0 and finished.all():
            break
    return total


def _p_series(a: Array, x: Array) -> Array:
    """P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))."""

    def step(n: int, total: Array, state: tuple[Array, ...]) -> tuple[Array, tuple[Array, ...], Array]:
        (term,) = state
        term = term * x / (a + n)
        return total + term, (term,), term <= _IGAMMA_EPS * total

    total = _converge(step, np.ones_like(a), (np.ones_like(a),))
    with np.errstate(under="ignore"):
        result: Array = _gamma_factor(a, x) / a * total
    return result


def _q_fraction(a: Array, x: Array) -> Array:
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)) by Lentz's method."""
    b = x + 1.0 - a
    c = np.full_like(a, 1.0 / _TINY)
    d = 1.0 / b

    def step(n: int, h: Array, state: tuple[Array, ...]) -> tuple[Array, tuple[Array, ...], Array]:
        b, c, d = state
        an = -n * (n - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        return h * delta, (b, c, d), np.abs(delta - 1.0) <= _IGAMMA_EPS

    h = _converge(step, d.copy(), (b, c, d))
    with np.errstate(under="ignore"):
        result: Array = _gamma_factor(a, x) * h
    return result


def _q_series(a: Array, x: Array) -> Array:
    """Q(a, x) for x <= 1.1 and small a: 1 - x^a / Gamma(a + 1) (by expm1) minus
    x^a / Gamma(a) sum_{n >= 1} (-x)^n / (n! (a + n))."""

    def step(n: int, total: Array, state: tuple[Array, ...]) -> tuple[Array, tuple[Array, ...], Array]:
        (factor,) = state
        factor = factor * -x / n
        term = factor / (a + n)
        return total + term, (factor,), np.abs(term) <= _IGAMMA_EPS * np.abs(total)

    total = _converge(step, np.zeros_like(a), (np.ones_like(a),))
    log_x = np.log(x)
    lgamma_one_plus = np.empty_like(a)
    tiny = a <= 0.5
    lgamma_one_plus[tiny] = _lgamma_one_plus(a[tiny])
    lgamma_one_plus[~tiny] = _lgamma_positive(a[~tiny] + 1.0)
    head = -np.expm1(a * log_x - lgamma_one_plus)
    result: Array = head - np.exp(a * log_x - lgamma_array(a)) * total
    return result


def _incomplete_gamma(a: Array, x: Array, upper: bool) -> Array:
    """P(a, x) (Q(a, x) when `upper`) of float64 a and x, with Cephes's special values: NaN for
    negative arguments, for a = x = 0 and for a = x = inf."""
    a, x = np.broadcast_arrays(a, x)
    result = np.full(a.shape, np.nan)
    regular = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    ar, xr = a[regular], x[regular]
    values = np.empty_like(ar)
    # Q's power series (x <= 1.1, a small for x), Q's continued fraction (x > 1.1, x >= a),
    # P's power series elsewhere.
    q_series = (xr <= 1.1) & np.where(xr <= 0.5, ar <= -0.4 / np.log(np.minimum(xr, 0.5)), xr * 1.1 >= ar)
    q_fraction = (xr > 1.1) & (xr >= ar)
    p_series = ~(q_series | q_fraction)
    if upper:
        values[p_series] = 1.0 - _p_series(ar[p_series], xr[p_series])
        values[q_series] = _q_series(ar[q_series], xr[q_series])
        values[q_fraction] = _q_fraction(ar[q_fraction], xr[q_fraction])
    else:
        p = (xr <= 1.0) | (xr <= ar)
        values[p] = _p_series(ar[p], xr[p])
        complement = ~p
        values[complement] = 1.0 - _incomplete_gamma(ar[complement], xr[complement], True)
    result[regular] = values
    valid = (a >= 0) & (x >= 0)
    low, high = (1.0, 0.0) if upper else (0.0, 1.0)
    result[valid & (a == 0) & (x > 0)] = high
    result[valid & (x == 0) & (a > 0)] = low
    result[valid & np.isinf(a) & np.isfinite(x) & (x > 0)] = low
    result[valid & np.isinf(x) & np.isfinite(a) & (a > 0)] = high
    return result


def _igamma(a: Array | float, x: Array | float) -> Array:
    return _incomplete_gamma(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64), False)


def _igammac(a: Array | float, x: Array | float) -> Array:
    return _incomplete_gamma(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64), True)


for _op, _incomplete in (("igamma", _igamma), ("igammac", _igammac)):
    structured(
        _op,
        _binary_meta(_op, check=_refuse(f"{_op}_cpu", lambda d: not d.is_floating_point)),
        _binary_impl(_incomplete),
    )


# ---- bessel_j0, bessel_j1 (not differentiable, as in PyTorch) ------------------------------------------

_BESSEL_J_SWITCH: Final = 25.0
_BESSEL_J_NODES: Final = 96
"""Trapezoidal nodes over a period: the aliasing error J_(96 - n)(x) is negligible for |x| <= 25."""


def _bessel_j(x: Array, order: int) -> Array:
    """J_order(x) (order 0 or 1) of float64 `x`: for |x| <= 25 the trapezoidal rule on Bessel's
    integral (1/2pi) int cos(x sin t - order t) dt over a period (exponentially accurate for a
    periodic analytic integrand), above it Hankel's asymptotic expansion with cos and sin of
    x - (2 order + 1) pi / 4 from cos x and sin x; NaN at +-inf, as PyTorch's."""
    a = np.abs(x)
    result = np.full_like(a, np.nan)
    near = a <= _BESSEL_J_SWITCH
    theta = 2.0 * math.pi * np.arange(_BESSEL_J_NODES) / _BESSEL_J_NODES
    sines = np.sin(theta)
    phases = np.outer(a[near], sines)
    # the odd part of the integrand sums to zero over the period: J_0 = mean cos(x sin t),
    # J_1 = mean sin(t) sin(x sin t)
    result[near] = (np.cos(phases) if order == 0 else np.sin(phases) * sines).mean(axis=1)
    far = a > _BESSEL_J_SWITCH
    b = a[far]
    mu = 4.0 * order * order
    term = np.ones_like(b)
    p = np.ones_like(b)
    q = np.zeros_like(b)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * b)
        if k % 2:
            q = q + (-1.0) ** (k // 2) * term
        else:
            p = p + (-1.0) ** (k // 2) * term
    with np.errstate(invalid="ignore"):
        cos_b, sin_b = np.cos(b), np.sin(b)
    if order == 0:
        cos_w, sin_w = cos_b + sin_b, sin_b - cos_b
    else:
        cos_w, sin_w = sin_b - cos_b, -(sin_b + cos_b)
    with np.errstate(invalid="ignore"):
        result[far] = np.sqrt(1.0 / (math.pi * b)) * (p * cos_w - q * sin_w)
    return result if order == 0 else np.where(x < 0, -result, result)


_special_unary("bessel_j0", lambda a: _bessel_j(a, 0), half=True)
_special_unary("bessel_j1", lambda a: _bessel_j(a, 1), half=True)
