"""Backward formulas of the pointwise and reduction operators, called from derivatives.yaml.

Every helper computes with framework operators only, so that the gradients it returns are
themselves differentiable (double backward). Conventions follow PyTorch's derivatives: ties of
max/min-like operators share the gradient evenly, non-differentiable points get the one-sided
value PyTorch picks (clamp and relu pass the gradient at their boundaries as stated per helper).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import framework
from framework._tensor import Tensor
from framework.autograd.formulas.complex import conj_any, conjugate, handle_r_to_c
from framework.types import Number

__all__ = [
    "acosh_backward",
    "amax_amin_backward",
    "aminmax_backward",
    "clamp_backward",
    "clamp_backward_max",
    "clamp_backward_min",
    "copysign_tensor_self_backward",
    "cumprod_backward",
    "cumsum_backward",
    "div_backward_other",
    "div_backward_self",
    "evenly_distribute_backward",
    "logit_backward",
    "logsumexp_backward",
    "maximum_backward",
    "mean_backward",
    "minimum_backward",
    "nansum_backward",
    "norm_backward",
    "not_implemented",
    "pow_backward",
    "pow_backward_exponent",
    "pow_backward_self",
    "prod_backward",
    "prod_dim_backward",
    "restore_reduced_dims",
    "sgn_backward",
    "std_backward",
    "std_mean_backward",
    "sum_backward",
    "value_selecting_reduction_backward",
    "var_backward",
    "var_mean_backward",
    "xlogy_backward_self",
]


def _reduced_dims(dims: Sequence[int] | int | None, ndim: int) -> list[int]:
    """The dimensions, wrapped and sorted, that a reduction over `dims` of an `ndim`-dimensional
    tensor removes: all of them for None or an empty list, none for a 0-dim tensor."""
    if ndim == 0:
        return []
    if isinstance(dims, int):
        dims = [dims]
    if dims is None or len(dims) == 0:
        return list(range(ndim))
    return sorted({d % ndim for d in dims})


def _reduced_count(sizes: Sequence[int], dims: Sequence[int] | int | None) -> int:
    """How many input elements a reduction over `dims` folds into each output element."""
    return math.prod(sizes[d] for d in _reduced_dims(dims, len(sizes)))


def _any(mask: Tensor) -> bool:
    """Whether a boolean tensor has a true element."""
    return bool(mask.any().item())


def restore_reduced_dims(grad: Tensor, dims: Sequence[int] | int | None, ndim: int, keepdim: bool) -> Tensor:
    """`grad` of a reduction's output with the reduced dimensions of an `ndim`-dimensional input
    put back as size-1 dimensions (unchanged when the reduction kept them)."""
    if keepdim:
        return grad
    for d in _reduced_dims(dims, ndim):
        grad = grad.unsqueeze(d)
    return grad


def sum_backward(
    grad: Tensor, sizes: Sequence[int], dims: Sequence[int] | int | None, keepdim: bool
) -> Tensor:
    """Gradient of a sum over `dims` of an input of shape `sizes`: `grad` broadcast back (the
    0-dim gradient of a full reduction broadcasts as it is)."""
    if grad.ndim == 0:
        return grad.expand(tuple(sizes))
    return restore_reduced_dims(grad, dims, len(sizes), keepdim).expand(tuple(sizes))


def mean_backward(
    grad: Tensor, sizes: Sequence[int], dims: Sequence[int] | int | None, keepdim: bool
) -> Tensor:
    """Gradient of a mean over `dims`: `grad` broadcast back, divided by the reduced count."""
    return sum_backward(grad, sizes, dims, keepdim) / _reduced_count(sizes, dims)


def value_selecting_reduction_backward(
    grad: Tensor, dim: int, indices: Tensor, sizes: Sequence[int], keepdim: bool
) -> Tensor:
    """Gradient of max.dim/min.dim: `grad` scattered to the selected `indices` along `dim`,
    zero elsewhere."""
    if len(sizes) == 0:
        return grad
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    zeros = framework.zeros(tuple(sizes), dtype=grad.dtype, device=grad.device)
    return zeros.scatter(dim, indices, grad)


def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """Gradient of the full max()/min() reduction: `grad` shared evenly by the elements of
    `input` equal to the result `value` (by the NaNs when the result is NaN)."""
    mask = input.isnan() if bool(value.isnan().item()) else input == value
    return framework.where(mask, grad / mask.sum(), 0.0)


def amax_amin_backward(
    grad: Tensor, self: Tensor, result: Tensor, dims: Sequence[int], keepdim: bool
) -> Tensor:
    """Gradient of amax/amin over `dims`: each output's `grad` shared evenly by the input
    elements equal to it."""
    grad = restore_reduced_dims(grad, dims, self.ndim, keepdim)
    mask = self == restore_reduced_dims(result, dims, self.ndim, keepdim)
    count = mask.sum(_reduced_dims(dims, self.ndim), keepdim=True)
    return framework.where(mask, grad / count, 0.0)


def _product_of_others(x: Tensor, dim: int) -> Tensor:
    """For every element, the product of the other elements of its slice along `dim`, computed
    without division (exact when `x` has zeros): exclusive cumulative products from both ends."""
    n = x.shape[dim]
    if n <= 1:
        return framework.ones_like(x)
    one = framework.ones_like(x.narrow(dim, 0, 1))
    before = framework.cat([one, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = framework.cat([x.narrow(dim, 1, n - 1), one], dim).flip([dim]).cumprod(dim)
    return before * after.flip([dim])


def prod_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """Gradient of the product of all elements: `grad * result / self`, or, when `self` has
    zeros, `grad` times the product of the other elements."""
    if self.ndim == 0:
        return grad
    if not _any(self == 0):
        return grad * conjugate(result / self)
    flat = self.reshape([-1])
    return (grad * conjugate(_product_of_others(flat, 0))).reshape(list(self.shape))


def prod_dim_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int, keepdim: bool) -> Tensor:
    """Gradient of the product along `dim`: `grad * result / self`, or, when `self` has zeros,
    `grad` times the product of the other elements of the slice."""
    if self.ndim == 0:
        return grad
    grad = restore_reduced_dims(grad, dim, self.ndim, keepdim)
    if not _any(self == 0):
        return grad * conjugate(restore_reduced_dims(result, dim, self.ndim, keepdim) / self)
    return grad * conjugate(_product_of_others(self, dim % self.ndim))


def _reversed_cumsum(x: Tensor, dim: int) -> Tensor:
    """Sums of `x` along `dim` from each position to the end."""
    return x.flip([dim]).cumsum(dim).flip([dim])


def cumsum_backward(grad: Tensor, dim: int) -> Tensor:
    """Gradient of cumsum along `dim`: the reversed cumulative sum of `grad`."""
    if grad.ndim == 0:
        return grad
    return _reversed_cumsum(grad, dim)


def cumprod_backward(grad: Tensor, self: Tensor, dim: int, result: Tensor) -> Tensor:
    """Gradient of cumprod along `dim`: `sum_{k>=i} grad_k * result_k / self_i`; when `self` has
    zeros, the sum of `grad_k` times the product of `self_j` over `j <= k, j != i`, formed for
    every pair (i, k) of the slice."""
    if self.ndim == 0 or self.numel() == 0:
        return grad
    if not _any(self == 0):
        return _reversed_cumsum(grad * conjugate(result), dim) / conjugate(self)
    dim %= self.ndim
    n = self.shape[dim]
    pair_shape = [1] * dim + [n, n] + [1] * (self.ndim - dim - 1)
    # axis `dim` indexes i (the input element), axis `dim + 1` indexes j, then k after cumprod
    diagonal = framework.eye(n, dtype=framework.bool, device=self.device).reshape(pair_shape)
    others = framework.where(diagonal, 1.0, self.unsqueeze(dim)).cumprod(dim + 1)
    upper = framework.ones(n, n, dtype=framework.bool, device=self.device).triu()
    partials = framework.where(upper.reshape(pair_shape), conjugate(others), 0.0)
    return (partials * grad.unsqueeze(dim)).sum(dim + 1)


def logsumexp_backward(
    grad: Tensor, self: Tensor, result: Tensor, dims: Sequence[int], keepdim: bool
) -> Tensor:
    """Gradient of logsumexp over `dims`: `grad * exp(self - result)` (the softmax weights)."""
    grad = restore_reduced_dims(grad, dims, self.ndim, keepdim)
    result = restore_reduced_dims(result, dims, self.ndim, keepdim)
    return grad * (self - result).exp()


def var_backward(
    grad: Tensor,
    self: Tensor,
    dims: Sequence[int] | None,
    correction: float | None,
    keepdim: bool,
) -> Tensor:
    """Gradient of var over `dims` with `correction` (1 when None):
    `grad * 2 (self - mean) / (N - correction)`, N the reduced count."""
    divisor = max(_reduced_count(self.shape, dims) - (1 if correction is None else correction), 0)
    scale = 2.0 / divisor if divisor != 0 else math.inf
    grad = restore_reduced_dims(grad, dims, self.ndim, keepdim)
    mean = self.mean(_reduced_dims(dims, self.ndim), keepdim=True)
    return scale * grad * (self - mean)


def std_backward(
    grad: Tensor,
    self: Tensor,
    result: Tensor,
    dims: Sequence[int] | None,
    correction: float | None,
    keepdim: bool,
) -> Tensor:
    """Gradient of std over `dims`: var's gradient for `grad / (2 std)`, zero where std is 0."""
    grad_var = framework.where(result == 0, 0.0, grad / (2 * result))
    return var_backward(grad_var, self, dims, correction, keepdim)


def norm_backward(
    grad: Tensor,
    self: Tensor,
    p: float | None,
    norm: Tensor,
    dims: Sequence[int] | None,
    keepdim: bool,
) -> Tensor:
    """Gradient of the p-norm (p = 2 when None) over `dims`: zero for p = 0; `sign(self) grad`
    for p = 1; for p = +-inf `sign(self) grad` shared evenly by the elements whose absolute
    value is the norm; else `sign(self) |self|^(p-1) grad / norm^(p-1)`, zero where the norm is
    0 (and, for p < 1, where self is 0)."""
    p = 2.0 if p is None else p
    if p == 0:
        return framework.zeros_like(self)
    grad = restore_reduced_dims(grad, dims, self.ndim, keepdim)
    if p == 1:
        return self.sign() * grad
    norm = restore_reduced_dims(norm, dims, self.ndim, keepdim)
    if math.isinf(p):
        mask = self.abs() == norm
        count = mask.sum(_reduced_dims(dims, self.ndim), keepdim=True)
        return framework.where(mask, self.sign() * (grad / count), 0.0)
    if p == 2:
        return framework.where(norm == 0, 0.0, self * (grad / norm))
    scaled = framework.where(self == 0, 0.0, self.sign() * self.abs().pow(p - 1))
    return scaled * framework.where(norm == 0, 0.0, grad / norm.pow(p - 1))


def pow_backward(grad: Tensor, self: Tensor, exponent: float) -> Tensor:
    """Gradient of `self ** exponent` for a Scalar exponent: `grad * exponent * self^(exponent-1)`,
    zero for exponent 0."""
    if exponent == 0:
        return framework.zeros_like(grad)
    return handle_r_to_c(self, grad * conj_any(exponent) * conjugate(self.pow(exponent - 1)))


def pow_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    """Gradient reaching `self` of `self ** exponent` (tensors): `grad * exponent *
    self^(exponent-1)`, zero where exponent is 0 (also where self is 0, as 0 * inf would be NaN)."""
    zero_power = (exponent == 0) & (self == 0)
    slope = conjugate(exponent * self.pow(exponent - 1))
    return handle_r_to_c(self, framework.where(zero_power, 0.0, grad * slope))


def pow_backward_exponent(
    grad: Tensor, self: Tensor | Number, exponent: Tensor, result: Tensor
) -> Tensor:
    """Gradient reaching `exponent` of `self ** exponent`: `grad * result * log(self)`, zero
    where self is 0 and exponent >= 0 (where the power is 0 or 1 near the exponent). A Python
    number base (pow.Scalar) has its log taken as a double, as PyTorch's Scalar::log does:
    `grad * (result * log(self))`."""
    if isinstance(self, Tensor):
        zero_base = (self == 0) & _nonnegative_real(exponent)
        slope = conjugate(result * self.log())
        return handle_r_to_c(exponent, framework.where(zero_base, 0.0, grad * slope))
    base = np.complex128(self) if isinstance(self, complex) or exponent.dtype.is_complex else np.float64(self)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_base: complex = np.log(base).item()
    if self == 0:
        slope = framework.where(_nonnegative_real(exponent), 0.0, conjugate(result * log_base))
        return handle_r_to_c(exponent, grad * slope)
    return handle_r_to_c(exponent, grad * conjugate(result * log_base))


def _nonnegative_real(exponent: Tensor) -> Tensor:
    """Where `exponent` is a real number >= 0 (a complex one: with no imaginary part), the
    exponents for which a zero base has the limit 0 or 1 and so a zero exponent gradient."""
    if exponent._impl.dtype.is_complex:
        return (framework.imag(exponent) == 0) & (framework.real(exponent) >= 0)
    return exponent >= 0


def acosh_backward(grad: Tensor, self: Tensor) -> Tensor:
    """acosh'(z) = 1 / sqrt(z^2 - 1) for real z; for complex z, 1 / (sqrt(z + 1) sqrt(z - 1)) on
    acosh's branch (the two differ across the cut), conjugated."""
    if self._impl.dtype.is_complex:
        return grad * conjugate((self + 1).rsqrt() * (self - 1).rsqrt())
    return grad * (self * self - 1).rsqrt()


def clamp_backward(
    grad: Tensor, self: Tensor, min: Tensor | float | None, max: Tensor | float | None
) -> Tensor:
    """Gradient reaching `self` of clamp(self, min, max): `grad` where min <= self <= max (bounds
    included, missing bounds ignored), zero elsewhere."""
    if min is None and max is None:
        return grad
    if min is None:
        inside = self <= max
    elif max is None:
        inside = self >= min
    else:
        inside = (self >= min) & (self <= max)
    return framework.where(inside, grad, 0.0)


def clamp_backward_min(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor | None) -> Tensor | None:
    """Gradient reaching the tensor `min` of clamp: `grad` where self < min and (when max is
    given) min < max, the elements where the result is `min`."""
    if min is None:
        return None
    chosen = self < min
    if max is not None:
        chosen = chosen & (min < max)
    return framework.where(chosen, grad, 0.0)


def clamp_backward_max(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor | None) -> Tensor | None:
    """Gradient reaching the tensor `max` of clamp: `grad` where self > max or (when min is
    given) max < min, the elements where the result is `max`."""
    if max is None:
        return None
    chosen = self > max
    if min is not None:
        chosen = chosen | (max < min)
    return framework.where(chosen, grad, 0.0)


def maximum_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """Gradient reaching `self` of maximum(self, other): `grad` unless self < other, half of it
    where they tie."""
    return framework.where(self == other, grad / 2, framework.where(self < other, 0.0, grad))


def minimum_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """Gradient reaching `self` of minimum(self, other): `grad` unless self > other, half of it
    where they tie."""
    return framework.where(self == other, grad / 2, framework.where(self > other, 0.0, grad))


def div_backward_self(grad: Tensor, other: Tensor | float, rounding_mode: str | None) -> Tensor:
    """Gradient reaching `self` of div(self, other, rounding_mode): `grad / other` for true
    division, zero when the quotient is rounded."""
    if rounding_mode is not None:
        return framework.zeros_like(grad)
    return handle_r_to_c(grad, grad / conj_any(other))


def div_backward_other(grad: Tensor, self: Tensor, other: Tensor, rounding_mode: str | None) -> Tensor:
    """Gradient reaching `other` of div(self, other, rounding_mode): `-grad * self / other^2`
    for true division, zero when the quotient is rounded."""
    if rounding_mode is not None:
        return framework.zeros_like(grad)
    return handle_r_to_c(other, -grad * ((self / other) / other).conj())


def not_implemented(name: str) -> Tensor:
    """Raises the error PyTorch raises when backpropagating through an operator that has no
    derivative (its result requires grad, its backward fails)."""
    raise RuntimeError(f"derivative for {name} is not implemented")


# ---- erf family, sgn, logit, copysign, xlogy ---------------------------------------------------


def sgn_backward(self: Tensor, grad: Tensor, result: Tensor) -> Tensor:
    """Gradient of sgn: zero for real inputs; for complex z = |z| sgn(z), the part of `grad`
    orthogonal to sgn(z) over |z|: (grad - sgn * real(grad / sgn)) / |z| (zero at z = 0)."""
    if not self.dtype.is_complex:
        return framework.zeros_like(grad)
    magnitude = self.abs()
    zero = magnitude == 0
    unit = framework.where(zero, 1.0, result)
    return framework.where(zero, 0.0, (grad - unit * framework.real(grad / unit)) / magnitude)


def logit_backward(grad: Tensor, self: Tensor, eps: float | None) -> Tensor:
    """Gradient of logit: grad / (x (1 - x)) inside [eps, 1 - eps], zero outside it; without
    `eps`, inside [0, 1] and NaN outside."""
    low, high, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1.0 - eps, 0.0)
    inside = (self >= low) & (self <= high)
    return framework.where(inside, grad / (self * (1.0 - self)), outside)


def copysign_tensor_self_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """Gradient reaching `self` of copysign: grad * result / self, zero where self is 0."""
    return grad * (result / self).masked_fill(self == 0, 0.0)


def xlogy_backward_self(grad: Tensor, self: Tensor, other: Tensor | Number) -> Tensor:
    """Gradient reaching `self` of xlogy: xlogy(grad, other), zero where self is 0 and other <= 0
    (where x log(y) is defined only as its value 0)."""
    scaled = framework.xlogy(grad, other)
    if isinstance(other, Tensor):
        return scaled.masked_fill((self == 0) & (other <= 0), 0.0)
    return scaled if other.real > 0 else scaled.masked_fill(self == 0, 0.0)


# ---- nansum, aminmax, var_mean, std_mean -------------------------------------------------------


def nansum_backward(grad: Tensor, self: Tensor, dims: Sequence[int] | None, keepdim: bool) -> Tensor:
    """Gradient of nansum: sum's, zero at the NaNs (which the sum skipped)."""
    return sum_backward(grad, self.shape, dims, keepdim) * self.isnan().logical_not()


def aminmax_backward(
    self: Tensor, dim: int | None, keepdim: bool, grad_min: Tensor, grad_max: Tensor, min: Tensor, max: Tensor
) -> Tensor:
    """Gradient of aminmax: each of min's and max's gradients shared evenly by the input
    elements equal to that extreme (amin's and amax's gradients added)."""
    dims = [] if dim is None else [dim]
    return amax_amin_backward(grad_min, self, min, dims, keepdim) + amax_amin_backward(
        grad_max, self, max, dims, keepdim
    )


def var_mean_backward(
    grad_var: Tensor,
    grad_mean: Tensor,
    self: Tensor,
    dims: Sequence[int] | None,
    correction: float | None,
    keepdim: bool,
) -> Tensor:
    """Gradient of var_mean: var's gradient plus mean's."""
    return var_backward(grad_var, self, dims, correction, keepdim) + mean_backward(
        grad_mean, self.shape, dims, keepdim
    )


def std_mean_backward(
    grad_std: Tensor,
    grad_mean: Tensor,
    self: Tensor,
    std: Tensor,
    dims: Sequence[int] | None,
    correction: float | None,
    keepdim: bool,
) -> Tensor:
    """Gradient of std_mean: std's gradient plus mean's."""
    return std_backward(grad_std, self, std, dims, correction, keepdim) + mean_backward(
        grad_mean, self.shape, dims, keepdim
    )
