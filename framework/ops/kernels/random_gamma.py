"""Gamma-family sampling kernels: `_standard_gamma`, `_sample_dirichlet`, `binomial`, and the
reparameterized gradients `_standard_gamma_grad` and `_dirichlet_grad` (CPU; the samplers also
have Meta kernels, which compute shapes only).

`_standard_gamma` (and the gamma draws of `_sample_dirichlet`) run PyTorch's Marsaglia-Tsang
sampler element after element as its CPU kernel does, with PyTorch's draws: a shape below one is
boosted by ``(1 - u) ** (1 / alpha)`` of one double uniform, each attempt takes a standard normal
from the per-element normal path (a pair of doubles gives one now and caches one in the generator)
and then a double uniform. The number of draws an element takes depends on its own attempts, so the
elements are evaluated speculatively in windows: every element of a window is assumed to accept its
first attempt (which fixes where each element's draws start), the whole window is evaluated at once,
and from the first element that rejected on, its remaining attempts run alone and the next window
starts after it. That reproduces PyTorch's numbers for the same seed with one Python-level round per
rejection (a few per hundred elements) instead of one per element.

`binomial` draws like PyTorch's BTRS/inversion sampler, but (as `poisson`) its elements draw
together round by round, so only one-element tensors reproduce PyTorch's numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.dtypes import float32, float64
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import (
    array,
    check_out_dtype,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    resize_output,
)

Array = npt.NDArray[Any]
F64 = npt.NDArray[np.float64]

_THIRD: Final = float(np.float32(1) / np.float32(3))
"""``1.0f / 3.0f``: the float constant PyTorch subtracts from the boosted shape."""
_SQUEEZE: Final = float(np.float32(0.0331))
_WINDOW: Final = 64
_MAX_WINDOW: Final = 1 << 16


def _gen(generator: rng.Generator | None) -> rng.Generator:
    return rng.default_generator() if generator is None else generator


def _same_dtype(tensors: tuple[Tensor, ...]) -> None:
    """PyTorch's iterator refusal of inputs whose dtype differs from the first's."""
    expected = tensors[0]._impl.dtype
    for t in tensors[1:]:
        if t._impl.dtype is not expected:
            raise RuntimeError(
                f"Found dtype {t._impl.dtype.scalar_type_name} but expected {expected.scalar_type_name}"
            )


def _float_dtype(t: Tensor, op: str) -> None:
    d = t._impl.dtype
    if d not in (float32, float64):
        raise not_implemented(op, d)


# ---- the gamma sampler --------------------------------------------------------------------------


class _Stream:
    """The generator's double uniforms read ahead, then consumed exactly: `commit` puts the generator
    back where it was, draws the doubles used and leaves the normal cache as the sampler did."""

    def __init__(self, gen: rng.Generator) -> None:
        self.gen = gen
        self.state = gen.get_state()
        self.cache = gen._next_double_normal
        self.buffer: F64 = np.zeros(0)

    def upto(self, n: int) -> F64:
        """The buffer, holding at least `n` doubles."""
        if n > self.buffer.size:
            more = max(n - self.buffer.size, self.buffer.size, _WINDOW)
            self.buffer = np.concatenate([self.buffer, rng._unit_float64(self.gen, more)])
        return self.buffer

    def commit(self, used: int, cache: float | None) -> None:
        self.gen.set_state(self.state)
        rng._unit_float64(self.gen, used)
        self.gen._next_double_normal = cache


def _attempt(x: F64, u: F64, d: F64, c: F64) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], F64]:
    """One Marsaglia-Tsang attempt with normal `x` and uniform `u`: whether the normal is usable
    (``y = 1 + c x`` is not <= 0), whether the attempt accepts, and ``v = y ** 3``."""
    y = 1.0 + c * x
    v = y * y * y
    um = 1 - u
    xx = x * x
    with np.errstate(invalid="ignore", divide="ignore"):
        accepted = (um < 1.0 - _SQUEEZE * xx * xx) | (np.log(um) < 0.5 * xx + d * (1.0 - v + np.log(v)))
    return ~(y <= 0), accepted, v


def _retry(stream: _Stream, pos: int, cache: float | None, d: F64, c: F64) -> tuple[float, int, float | None]:
    """Run one element's attempts from stream position `pos` (its draws after the boost) until one
    accepts: ``v`` of that attempt, the position after it and the normal cache left."""
    while True:
        if cache is not None:
            x, cache = np.array([cache]), None
        else:
            buffer = stream.upto(pos + 2)
            x, sine = rng.normal_pair(buffer[pos : pos + 1], buffer[pos + 1 : pos + 2])
            cache, pos = float(sine[0]), pos + 2
        usable, accepted, v = _attempt(x, stream.upto(pos + 1)[pos : pos + 1], d, c)
        if usable[0]:
            pos += 1
            if accepted[0]:
                return float(v[0]), pos, cache


def standard_gamma(gen: rng.Generator, alpha: Array) -> F64:
    """PyTorch's `sample_gamma` for each shape of the flat float32/float64 `alpha` (in element order,
    shape arithmetic in alpha's precision, the rest in double): ``scale * d * v`` as float64, 0 for
    a zero shape (the caller rounds and clamps)."""
    n = alpha.size
    one = alpha.dtype.type(1)
    zero = alpha == 0
    boost = (alpha < one) & ~zero
    boosted = np.where(boost, alpha + one, alpha)
    d = (boosted - alpha.dtype.type(_THIRD)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1.0 / np.sqrt(9.0 * d)
        power = (one / alpha).astype(np.float64)
    result = np.zeros(n)
    with gen._lock:
        stream = _Stream(gen)
        pos, cache = 0, stream.cache
        i, width = 0, _WINDOW
        while i < n:
            stop = min(n, i + width)
            idx = np.flatnonzero(~zero[i:stop]) + i
            if not idx.size:
                i = stop
                continue
            cached = (np.arange(idx.size) + (cache is not None)) % 2 == 1
            b = boost[idx].astype(np.int64)
            need = b + np.where(cached, 1, 3)
            start = pos + np.cumsum(need) - need
            buffer = stream.upto(int(start[-1] + need[-1]))
            after_boost = start + b
            cosine, sine = rng.normal_pair(
                buffer[after_boost], buffer[np.minimum(after_boost + 1, buffer.size - 1)]
            )
            previous = np.concatenate([[np.nan if cache is None else cache], sine[:-1]])
            x = np.where(cached, previous, cosine)
            u = buffer[after_boost + np.where(cached, 0, 2)]
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                scale = np.where(b == 1, (1 - buffer[start]) ** power[idx], 1.0)
            usable, accepted, v = _attempt(x, u, d[idx], c[idx])
            failed = np.flatnonzero(~(usable & accepted))
            f = int(failed[0]) if failed.size else idx.size
            result[idx[:f]] = scale[:f] * d[idx[:f]] * v[:f]
            if f == idx.size:
                pos = int(start[-1] + need[-1])
                cache = None if cached[-1] else float(sine[-1])
                i, width = stop, min(2 * width, _MAX_WINDOW)
                continue
            j = int(idx[f])
            value, pos, cache = _retry(
                stream,
                int(after_boost[f]),
                float(previous[f]) if cached[f] else None,
                d[j : j + 1],
                c[j : j + 1],
            )
            result[j] = scale[f] * d[j] * value
            i, width = j + 1, max(_WINDOW, 2 * f)
        stream.commit(pos, cache)
    return result


def _clamp_tiny(values: F64, np_dtype: np.dtype[Any]) -> Array:
    """``std::max(smallest normal, values)`` in `np_dtype` (NaN becomes the smallest normal)."""
    rounded = values.astype(np_dtype)
    tiny = np.finfo(np_dtype).tiny
    return np.where(tiny < rounded, rounded, tiny)


def _register_with_out(name: str, functional: Callable[..., Tensor]) -> None:
    """Register `functional` as `name` and its out= form as `name_out`: the result computed, then
    copied into `out` (which must have the result's dtype; it is resized to the result's shape)."""

    def out_kernel(*args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        result = functional(*args, **kwargs)
        check_out_dtype(out, result._impl.dtype)
        resize_output(out, result._impl.sizes)
        if not is_meta(out._impl.device):
            array(out)[...] = array(result)
        return out

    functional.__name__ = functional.__qualname__ = name
    out_kernel.__name__ = out_kernel.__qualname__ = f"{name}_out"
    kernel(name)(functional)
    kernel(f"{name}_out")(out_kernel)


def _sampler(draw: Callable[[rng.Generator, Tensor], Array]) -> Callable[..., Tensor]:
    """The kernel of a sampler of one tensor: `draw(generator, self)` gives the values (row-major)
    for a CPU `self`; a Meta `self` gives an empty result of its shape."""

    def functional(self: Tensor, generator: rng.Generator | None = None) -> Tensor:
        impl = self._impl
        out = new_tensor(impl.sizes, impl.dtype, impl.device)
        if not is_meta(impl.device):
            array(out)[...] = draw(_gen(generator), self).reshape(impl.sizes)
        return out

    return functional


def _gamma_draw(gen: rng.Generator, self: Tensor) -> Array:
    _float_dtype(self, "gamma_cpu")
    alpha = array(self).reshape(-1)
    return _clamp_tiny(standard_gamma(gen, alpha), alpha.dtype)


def _dirichlet_draw(gen: rng.Generator, self: Tensor) -> Array:
    """Gamma draws of the shapes cast to double, normalized over the last dimension, rounded to the
    dtype and clamped into [smallest normal, largest value below 1]."""
    _float_dtype(self, "dirichlet")
    alpha = array(self)
    gamma = _clamp_tiny(standard_gamma(gen, alpha.astype(np.float64).reshape(-1)), np.dtype(np.float64))
    gamma = gamma.reshape(alpha.shape)
    total = gamma.sum(axis=-1, keepdims=True) if alpha.ndim else gamma
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = _clamp_tiny(gamma / total, alpha.dtype)
    below_one = np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0))
    return np.where(ratio < below_one, ratio, below_one).reshape(-1)


_register_with_out("_standard_gamma", _sampler(_gamma_draw))
_register_with_out("_sample_dirichlet", _sampler(_dirichlet_draw))


# ---- binomial -----------------------------------------------------------------------------------

_STIRLING_TAIL: Final = np.array(
    [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ]
)


def _stirling_tail(k: F64) -> F64:
    """``log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(sqrt(2 pi))``: a table below 10, the
    asymptotic series above."""
    kp1sq = (k + 1) * (k + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return np.where(k < 10, _STIRLING_TAIL[np.clip(k, 0, 9).astype(np.int64)], series)


def _binomial_inversion(gen: rng.Generator, count: Array, prob: Array) -> F64:
    """Count geometric waiting times (one double uniform each) until they pass `count`."""
    logprob = np.log1p(-prob.astype(np.float64)).astype(prob.dtype).astype(np.float64)
    total = np.zeros(count.size)
    successes = np.zeros(count.size)
    active = np.arange(count.size)
    while active.size:
        with gen._lock:
            u = rng._unit_float64(gen, active.size)
        with np.errstate(divide="ignore"):
            total[active] += np.ceil(np.log(u) / logprob[active])
        going = ~(total[active] > count[active])
        successes[active[going]] += 1
        active = active[going]
    return successes


def _binomial_btrs(gen: rng.Generator, count: Array, prob: Array) -> F64:
    """Hoermann's transformed rejection with squeeze (BTRS) for ``count * prob >= 10``: a (U, V)
    pair of double uniforms per element and round until each element accepted."""
    one = prob.dtype.type(1)
    stddev = np.sqrt(count * prob * (one - prob)).astype(np.float64)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob.astype(np.float64)
    c = (count * prob).astype(np.float64) + 0.5
    v_r = 0.92 - 4.2 / b
    r = (prob / (one - prob)).astype(np.float64)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + one) * prob).astype(np.float64)
    n = count.astype(np.float64)
    out = np.zeros(count.size)
    active = np.arange(count.size)
    while active.size:
        with gen._lock:
            uv = rng._unit_float64(gen, 2 * active.size).reshape(-1, 2)
        u, v = uv[:, 0] - 0.5, uv[:, 1]
        a_, b_, n_, m_, r_ = a[active], b[active], n[active], m[active], r[active]
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a_ / us + b_) * u + c[active]).astype(count.dtype).astype(np.float64)
        sensible = (k >= 0) & (k <= n_)
        quick = sensible & (us >= 0.07) & (v <= v_r[active])
        with np.errstate(invalid="ignore", divide="ignore"):
            log_v = np.log(v * alpha[active] / (a_ / (us * us) + b_))
            upper = (
                (m_ + 0.5) * np.log((m_ + 1) / (r_ * (n_ - m_ + 1)))
                + (n_ + 1) * np.log((n_ - m_ + 1) / (n_ - k + 1))
                + (k + 0.5) * np.log(r_ * (n_ - k + 1) / (k + 1))
                + _stirling_tail(m_)
                + _stirling_tail(n_ - m_)
                - _stirling_tail(k)
                - _stirling_tail(n_ - k)
            )
        accept = quick | (sensible & (log_v <= upper))
        out[active[accept]] = k[accept]
        active = active[~accept]
    return out


def binomial_draw(gen: rng.Generator, count: Array, prob: Array) -> Array:
    """PyTorch's `sample_binomial` for flat `count`, `prob` of one float dtype: 0 for count <= 0 or
    prob <= 0, count for prob >= 1, BTRS when ``count * min(prob, 1 - prob) >= 10``, inversion
    otherwise (counting failures for prob > 1/2), NaN for a NaN prob. The BTRS elements draw
    before the inversion ones, each group round by round."""
    dt = count.dtype
    out = np.full(count.size, np.nan)
    out[(count <= 0) | (prob <= 0)] = 0
    certain = (prob >= 1) & ~((count <= 0) | (prob <= 0))
    out[certain] = count[certain]
    rest = np.flatnonzero(np.isnan(out) & (prob == prob) & (count == count))
    flip = prob[rest] > 0.5
    q = np.where(flip, (1.0 - prob[rest].astype(np.float64)).astype(dt), prob[rest])
    n = count[rest]
    large = n * q >= 10.0
    draws = np.zeros(rest.size)
    draws[large] = _binomial_btrs(gen, n[large], q[large])
    draws[~large] = _binomial_inversion(gen, n[~large], q[~large])
    out[rest] = np.where(flip, n - draws, draws)
    return out.astype(dt)


def _check_binomial(count: Tensor, prob: Tensor) -> None:
    for name, t in (("count", count), ("prob", prob)):
        d = t._impl.dtype
        if not d.is_floating_point:
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: {d.scalar_type_name}"
            )
    _same_dtype((count, prob))
    _float_dtype(count, "binomial_cpu")


def binomial(count: Tensor, prob: Tensor, generator: rng.Generator | None = None) -> Tensor:
    """Binomial draws for the broadcast `count` and `prob` (PyTorch's numbers for one element, its
    distribution otherwise); like PyTorch, the result starts with count's shape and is resized
    (with the deprecation warning) when broadcasting enlarges it."""
    _check_binomial(count, prob)
    impl = count._impl
    out = new_tensor(impl.sizes, impl.dtype, impl.device)
    sizes = broadcast_shapes(impl.sizes, prob._impl.sizes)
    resize_output(out, sizes)
    if not is_meta(impl.device):
        n = np.broadcast_to(array(count), sizes).reshape(-1)
        p = np.broadcast_to(array(prob), sizes).reshape(-1)
        array(out)[...] = binomial_draw(_gen(generator), n, p).reshape(sizes)
    return out


_register_with_out("binomial", binomial)


# ---- reparameterized gradients ------------------------------------------------------------------

_F32_0_8: Final = float(np.float32(0.8))
_F32_0_9: Final = float(np.float32(0.9))
_F32_1_1: Final = float(np.float32(1.1))
_PSI_10: Final = 2.25175258906672110764
_DIGAMMA_SERIES: Final = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def _nan_to_zero(values: Array) -> Array:
    """`values` with NaN replaced by zero (PyTorch's fallback where a series breaks down)."""
    cleaned: Array = np.where(np.isnan(values), values.dtype.type(0), values)
    return cleaned


def _log(x: Array) -> Array:
    """``log`` in x's precision as the C library's ``logf``/``log`` give it: computed in double and
    rounded (NumPy's vectorized float32 ``log`` differs from ``logf`` in the last bit far more often)."""
    return np.log(x.astype(np.float64)).astype(x.dtype)


def digamma_one(x: Array) -> Array:
    """PyTorch's `digamma_one` for float32 or float64 `x` (its reflection, recurrence up to 10 in
    x's precision and asymptotic series in double), in x's dtype; +inf at 0 and negative integers."""
    dt = x.dtype.type
    with np.errstate(invalid="ignore", divide="ignore"):
        integer = x == np.floor(x)
        reflection = np.where(x < 0, -np.pi / np.tan(np.pi * x.astype(np.float64)), 0.0)
        y = np.where(x < 0, dt(1) - x, x)
        result = np.zeros(x.shape)
        low = y < 10
        while low.any():
            result[low] -= (dt(1) / y[low]).astype(np.float64)
            y = np.where(low, y + dt(1), y)
            low = y < 10
        z = 1.0 / (y * y).astype(np.float64)
        poly = np.zeros(x.shape)
        for coefficient in _DIGAMMA_SERIES:
            poly = poly * z + coefficient
        tail = np.where(y < 1.0e17, z * poly, 0.0)
        value = result + _log(y).astype(np.float64) - (dt(0.5) / y).astype(np.float64) - tail + reflection
        value = np.where(y == 10, result + _PSI_10 + reflection, value)
        return np.where((x == 0) | ((x < 0) & integer), np.inf, value).astype(x.dtype)


def standard_gamma_grad_values(alpha: F64, x: F64) -> F64:
    """PyTorch's `standard_gamma_grad_one`: ``-(d/dalpha cdf(x; alpha)) / pdf(x; alpha)`` in double,
    by a Taylor series for x < 0.8, Rice's saddle point expansion for alpha > 8 and a bivariate
    rational approximation otherwise."""
    with np.errstate(all="ignore"):
        numer = np.ones_like(x)
        denom = alpha.copy()
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / float(i))
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = x**alpha
        gamma_pdf = x ** (alpha - 1) * np.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (np.log(x) - digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
        taylor = -gamma_cdf_alpha / gamma_pdf
        taylor = _nan_to_zero(taylor)

        numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
        numer_2 = (
            1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        )
        saddle_mid = numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        sqrt8a = np.sqrt(8 * alpha)
        term2 = sqrt8a / (alpha - x)
        term3 = (x - alpha - alpha * np.log(x / alpha)) ** -1.5
        term23 = np.where(x < alpha, term2 - term3, term2 + term3)
        term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        saddle = -stirling * (x * term1) / sqrt8a
        near_mean = (_F32_0_9 * alpha <= x) & (x <= _F32_1_1 * alpha)

        u = np.log(x / alpha)
        v = np.log(alpha)
        coef = _GAMMA_GRAD_COEF
        cv = [coef[0][i] + u * (coef[1][i] + u * coef[2][i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = np.exp(p / q)
    large = np.where(near_mean, saddle_mid, saddle)
    result: F64 = np.where(x < _F32_0_8, taylor, np.where(alpha > 8.0, large, rational))
    return result


_GAMMA_GRAD_COEF: Final = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (
        0.53487893,
        0.1298071,
        0.065735949,
        -0.0015649758,
        0.16639465,
        0.020070113,
        -0.0035938915,
        -0.00058392623,
    ),
    (
        0.040121004,
        -0.0065914022,
        -0.0026286047,
        -0.0013441777,
        0.017050642,
        -0.0021309326,
        0.00085092367,
        -1.5247877e-07,
    ),
)


def _elementwise(op: str, tensors: tuple[Tensor, ...], values: Callable[..., Array]) -> Tensor:
    """`values` of the broadcast arrays of `tensors` (all float32 or all float64, as the first) in a
    new tensor of the first's shape, resized to the broadcast shape as PyTorch's iterator does."""
    _same_dtype(tensors)
    _float_dtype(tensors[0], op)
    first = tensors[0]._impl.dtype
    sizes = functools.reduce(broadcast_shapes, (t._impl.sizes for t in tensors))
    out = new_tensor(tensors[0]._impl.sizes, first, tensors[0]._impl.device)
    resize_output(out, sizes)
    array(out)[...] = values(*(np.broadcast_to(array(t), sizes) for t in tensors))
    return out


def _gamma_grad_values(alpha: Array, x: Array) -> Array:
    return standard_gamma_grad_values(alpha.astype(np.float64), x.astype(np.float64)).astype(alpha.dtype)


def _standard_gamma_grad(self: Tensor, output: Tensor) -> Tensor:
    """The reparameterized gradient of standard gamma draws `output` with respect to their shapes."""
    return _elementwise("_standard_gamma_grad_cpu", (self, output), _gamma_grad_values)


_register_with_out("_standard_gamma_grad", _standard_gamma_grad)


def _beta_grad_alpha_small(x: Array, alpha: Array, beta: Array) -> Array:
    """Taylor expansion of the Beta(alpha, beta) reparameterized gradient in alpha near x = 0 (in
    x's precision; NaN becomes 0)."""
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        factor = digamma_one(alpha) - digamma_one(alpha + beta) - _log(x)
        numer = np.ones_like(x)
        series = numer / alpha * (factor + dt(1) / alpha)
        for i in range(1, 11):
            numer = numer * ((dt(i) - beta) * x / dt(i))
            denom = alpha + dt(i)
            series = series + numer / denom * (factor + dt(1) / denom)
        result = x * (dt(1) - x) ** -beta * series
    return _nan_to_zero(result)


def _beta_grad_beta_small(x: Array, alpha: Array, beta: Array) -> Array:
    """Taylor expansion of the Beta(alpha, beta) reparameterized gradient in beta near x = 0 (in
    x's precision; NaN becomes 0)."""
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        factor = digamma_one(alpha + beta) - digamma_one(beta)
        numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
        series = factor / alpha
        for i in range(1, 9):
            numer = numer * (-x / dt(i))
            dbetas = dbetas * (beta - dt(i)) + betas
            betas = betas * (beta - dt(i))
            series = series + numer / (alpha + dt(i)) * (dbetas + factor * betas)
        result = -((dt(1) - x) ** (dt(1) - beta)) * series
    return _nan_to_zero(result)


def _beta_grad_alpha_mid(x: F64, alpha: F64, beta: F64) -> F64:
    """Rice saddle point expansion of the Beta reparameterized gradient in alpha for large alpha and
    beta (in double)."""
    with np.errstate(all="ignore"):
        total = alpha + beta
        mean = alpha / total
        std = np.sqrt(alpha * beta / (total + 1)) / total
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta
            + alpha
            * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta)
                + alpha
                * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))
            )
        )
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        near = prefactor_num / (1 - x) * poly / prefactor_den
        prefactor = -x / np.sqrt(2 * alpha * beta / total)
        stirling = (
            (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
            * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
            / (1 + 1 / (12 * total) + 1 / (288 * total * total))
        )
        term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
        axbx = alpha * (x - 1) + beta * x
        term1_den = np.sqrt(2 * alpha / beta) * total**1.5 * axbx * axbx
        term1 = term1_num / term1_den
        term2 = 0.5 * np.log(alpha / (total * x))
        term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
        term4 = (beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x))) ** -1.5
        term1234 = term1 + term2 * (term3 + np.where(x < mean, term4, -term4))
        far = stirling * prefactor * term1234
    result: F64 = np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)
    return result


_DIRICHLET_COEF: Final = np.array(
    [
        [
            [
                [1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
                [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
                [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013],
            ],
            [
                [0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
                [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
                [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05],
            ],
            [
                [-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
                [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
                [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05],
            ],
        ],
        [
            [
                [1, -0.02924021934, -0.04438342661, 0.007285809825],
                [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
                [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149],
            ],
            [
                [0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
                [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
                [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05],
            ],
            [
                [0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
                [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
                [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06],
            ],
        ],
    ]
)


def dirichlet_grad_values(x: Array, alpha: Array, total: Array) -> Array:
    """PyTorch's `dirichlet_grad_one`: the reparameterized gradient of a Beta(alpha, total - alpha)
    draw `x` in alpha, scaled by 1 / (1 - x): Taylor expansions near 0 and 1, the saddle point
    expansion when both parameters exceed 6, a rational correction of an analytic approximation
    otherwise. Arithmetic as PyTorch's (the expansions near the ends in x's precision)."""
    dt = x.dtype.type
    x64, alpha64, total64 = x.astype(np.float64), alpha.astype(np.float64), total.astype(np.float64)
    beta = total - alpha
    beta64 = total64 - alpha64
    boundary = total * x * (dt(1) - x)
    with np.errstate(all="ignore"):
        u = np.log(x64)
        a = np.log(alpha64) - u
        b = np.log(total64) - a
        powers_u, powers_a = (np.ones_like(u), u, u * u), (np.ones_like(a), a, a * a)
        p, q = np.zeros_like(u), np.zeros_like(u)
        for i in range(3):
            for j in range(3):
                ua = powers_u[i] * powers_a[j]
                cp, cq = _DIRICHLET_COEF[0, i, j], _DIRICHLET_COEF[1, i, j]
                p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
        digammas = (digamma_one(total64.astype(x.dtype)) - digamma_one(alpha64.astype(x.dtype))).astype(
            np.float64
        )
        rational = p / q * (x64 * digammas / beta64)
    result = np.where(
        (x <= 0.5) & (boundary < 2.5),
        _beta_grad_alpha_small(x, alpha, beta),
        np.where(
            (x >= 0.5) & (boundary < 0.75),
            -_beta_grad_beta_small(dt(1) - x, beta, alpha),
            np.where((alpha > 6) & (beta > 6), _beta_grad_alpha_mid(x64, alpha64, beta64), rational),
        ),
    )
    return result.astype(x.dtype)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """The reparameterized gradient of Dirichlet draws: `dirichlet_grad_values` elementwise."""
    return _elementwise("_dirichlet_grad_cpu", (x, alpha, total), dirichlet_grad_values)


_register_with_out("_dirichlet_grad", _dirichlet_grad)
