"""Random kernels: in-place samplers on CPU (drawing from a `Generator` in element order, as
PyTorch's CPU generator does) and the factories built from them (`rand` is `empty` followed by
`uniform_`, as in the seeds)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import dtype, int64
from framework.ops._iter import broadcast_shapes
from framework.ops.kernels._registry import (
    array,
    aten,
    aten_op,
    dispatched_empty,
    is_meta,
    kernel,
    not_implemented,
    register_variants,
    resize,
    resize_output,
)
from framework.ops.kernels.composite import empty_like


def _gen(generator: rng.Generator | None) -> rng.Generator:
    return rng.default_generator() if generator is None else generator


def _fill(self: Tensor, values: np.ndarray[Any, Any]) -> Tensor:
    """Write samples into `self` in the order PyTorch's samplers fill it: row-major when
    contiguous, otherwise by increasing stride (TensorIterator's order)."""
    impl = self._impl
    if impl.is_contiguous():
        array(self)[...] = values.reshape(impl.sizes)
    else:
        array(self).flat[rng.fill_order(impl.sizes, impl.strides)] = values
    return self


@kernel("uniform_")
def uniform_(
    self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: rng.Generator | None = None
) -> Tensor:
    if self._impl.dtype.is_complex:  # real and imaginary parts drawn as a real tensor, as PyTorch does
        aten().uniform_(aten().view_as_real(self), from_, to, generator=generator)
        return self
    if is_meta(self._impl.device):
        return self
    impl = self._impl
    return _fill(self, rng.uniform(_gen(generator), impl.numel(), impl.dtype.numpy_dtype, from_, to))


@kernel("normal_")
def normal_(
    self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: rng.Generator | None = None
) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if self._impl.dtype.is_complex:  # each part with std / sqrt(2), as PyTorch does
        aten().normal_(aten().view_as_real(self), mean, std / math.sqrt(2), generator=generator)
        return self
    if is_meta(self._impl.device):
        return self
    impl = self._impl
    values = rng.normal(
        _gen(generator), impl.numel(), impl.dtype.numpy_dtype, mean, std, contiguous=impl.is_contiguous()
    )
    return _fill(self, values)


@kernel("random_")
def random_(self: Tensor, *, generator: rng.Generator | None = None) -> Tensor:
    if is_meta(self._impl.device):
        return self
    impl = self._impl
    return _fill(self, rng.random_default(_gen(generator), impl.numel(), impl.dtype.numpy_dtype))


@kernel("random_from")
def random_from(
    self: Tensor, from_: int, to: int | None, *, generator: rng.Generator | None = None
) -> Tensor:
    if self._impl.dtype.is_complex:
        check = "random_from_to_impl" if to is None else "check_random_bounds"
        raise RuntimeError(f"{check} handles only integral, floating-point and boolean types")
    if is_meta(self._impl.device):
        return self
    impl = self._impl
    return _fill(self, rng.random_integers(_gen(generator), impl.numel(), impl.dtype.numpy_dtype, from_, to))


@kernel("random_to")
def random_to(self: Tensor, to: int, *, generator: rng.Generator | None = None) -> Tensor:
    return random_from(self, 0, to, generator=generator)


def _sampled(name: str, sampler: str) -> None:
    """Register `name` (rand, randn) and `name_out`: the in-place sampler (`uniform_` /
    `normal_`, with its default parameters) through the dispatcher on `out` resized to `size`, or
    on a new tensor from `empty`."""

    def sampled_out(size: Sequence[int], *, generator: rng.Generator | None = None, out: Tensor) -> Tensor:
        resize(out, tuple(size))
        result: Tensor = getattr(aten(), sampler)(out, generator=generator)
        return result

    def sampled(
        size: Sequence[int],
        *,
        generator: rng.Generator | None = None,
        dtype: dtype | None = None,
        layout: Layout | None = None,
        device: Device | str | None = None,
        pin_memory: bool | None = None,
    ) -> Tensor:
        return sampled_out(size, generator=generator, out=dispatched_empty(size, dtype, layout, device))

    register_variants(name, {"": sampled, "_out": sampled_out})


def _sampled_like(name: str, sampler: str) -> None:
    """Register `name` (rand_like, randn_like): `empty_like`, then the in-place sampler."""

    def sampled_like(
        self: Tensor,
        *,
        dtype: dtype | None = None,
        layout: Layout | None = None,
        device: Device | str | None = None,
        pin_memory: bool | None = None,
        memory_format: MemoryFormat | None = None,
    ) -> Tensor:
        empty = empty_like(self, dtype=dtype, layout=layout, device=device, memory_format=memory_format)
        result: Tensor = getattr(aten(), sampler)(empty)
        return result

    sampled_like.__name__ = sampled_like.__qualname__ = name
    kernel(name)(sampled_like)


_sampled("rand", "uniform_")
_sampled("randn", "normal_")
_sampled_like("rand_like", "uniform_")
_sampled_like("randn_like", "normal_")


@kernel("randint")
def randint(
    high: int,
    size: Sequence[int],
    *,
    generator: rng.Generator | None = None,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return randint_low(0, high, size, generator=generator, dtype=dtype, layout=layout, device=device)


@kernel("randint_out")
def randint_out(
    high: int, size: Sequence[int], *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    return randint_low_out(0, high, size, generator=generator, out=out)


@kernel("randint_low")
def randint_low(
    low: int,
    high: int,
    size: Sequence[int],
    *,
    generator: rng.Generator | None = None,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    empty = dispatched_empty(size, dtype or int64, layout, device)
    return randint_low_out(low, high, size, generator=generator, out=empty)


@kernel("randint_low_out")
def randint_low_out(
    low: int, high: int, size: Sequence[int], *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    resize(out, tuple(size))
    result: Tensor = getattr(aten().random_, "from")(out, low, high, generator=generator)
    return result


@kernel("randperm")
def randperm(
    n: int,
    *,
    generator: rng.Generator | None = None,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    empty = dispatched_empty((n,), dtype or int64, layout, device)
    result: Tensor = aten_op("randperm.generator_out")(n, generator=generator, out=empty)
    return result


@kernel("randperm_out")
def randperm_out(n: int, *, out: Tensor) -> Tensor:
    result: Tensor = aten_op("randperm.generator_out")(n, generator=None, out=out)
    return result


@kernel("randperm_out_cpu")
def randperm_out_cpu(n: int, *, generator: rng.Generator | None = None, out: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    resize(out, (n,))
    if not is_meta(out._impl.device):
        _fill(out, rng.randperm(_gen(generator), n, out.dtype.numpy_dtype))
    return out


@kernel("randint_like")
def randint_like(
    self: Tensor,
    high: int,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    return randint_like_low(
        self, 0, high, dtype=dtype, layout=layout, device=device, memory_format=memory_format
    )


@kernel("randint_like_low")
def randint_like_low(
    self: Tensor,
    low: int,
    high: int,
    *,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
    memory_format: MemoryFormat | None = None,
) -> Tensor:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    empty = empty_like(self, dtype=dtype, layout=layout, device=device, memory_format=memory_format)
    result: Tensor = getattr(aten().random_, "from")(empty, low, high)
    return result


# The distributions filled in place, one sampler of framework.c10.generator each. On meta tensors the
# sampler runs for no elements: its dtype and parameter checks, no draws.


def _sample_into(
    self: Tensor, generator: rng.Generator | None, draw: Callable[[rng.Generator, int, Any], Any]
) -> Tensor:
    """Fill `self` with `draw(generator, count, NumPy dtype)`, in PyTorch's element order."""
    impl = self._impl
    if is_meta(impl.device):
        draw(_gen(generator), 0, impl.dtype.numpy_dtype)
        return self
    return _fill(self, draw(_gen(generator), impl.numel(), impl.dtype.numpy_dtype))


@kernel("exponential_")
def exponential_(self: Tensor, lambd: float = 1.0, *, generator: rng.Generator | None = None) -> Tensor:
    return _sample_into(self, generator, lambda g, n, dt: rng.exponential(g, n, dt, lambd))


@kernel("geometric_")
def geometric_(self: Tensor, p: float, *, generator: rng.Generator | None = None) -> Tensor:
    return _sample_into(self, generator, lambda g, n, dt: rng.geometric(g, n, dt, p))


@kernel("log_normal_")
def log_normal_(
    self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: rng.Generator | None = None
) -> Tensor:
    return _sample_into(self, generator, lambda g, n, dt: rng.log_normal(g, n, dt, mean, std))


@kernel("cauchy_")
def cauchy_(
    self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: rng.Generator | None = None
) -> Tensor:
    return _sample_into(self, generator, lambda g, n, dt: rng.cauchy(g, n, dt, median, sigma))


@kernel("bernoulli_float")
def bernoulli_float(self: Tensor, p: float = 0.5, *, generator: rng.Generator | None = None) -> Tensor:
    return _sample_into(self, generator, lambda g, n, dt: rng.bernoulli(g, n, p, dt))


@kernel("bernoulli_tensor")
def bernoulli_tensor(self: Tensor, p: Tensor, *, generator: rng.Generator | None = None) -> Tensor:
    """Fill `self` with 0/1 draws of probabilities `p` (broadcast to `self`'s shape)."""
    impl = self._impl
    if impl.dtype.is_complex:
        raise not_implemented("bernoulli_tensor_cpu_self_", impl.dtype)
    expanded: Tensor = aten().expand(p, list(impl.sizes))
    if is_meta(impl.device):
        rng.bernoulli(_gen(generator), 0, np.zeros(0, dtype=p.dtype.numpy_dtype), impl.dtype.numpy_dtype)
        return self
    probs = array(expanded).reshape(-1)
    if not impl.is_contiguous():
        probs = probs[rng.fill_order(impl.sizes, impl.strides)]
    return _fill(self, rng.bernoulli(_gen(generator), impl.numel(), probs, impl.dtype.numpy_dtype))


@kernel("bernoulli_out")
def bernoulli_out(self: Tensor, *, generator: rng.Generator | None = None, out: Tensor) -> Tensor:
    resize_output(out, self._impl.sizes)
    return bernoulli_tensor(out, self, generator=generator)


@kernel("bernoulli")
def bernoulli(self: Tensor, *, generator: rng.Generator | None = None) -> Tensor:
    result: Tensor = aten().bernoulli_(empty_like(self), self, generator=generator)
    return result


@kernel("bernoulli_p")
def bernoulli_p(self: Tensor, p: float, *, generator: rng.Generator | None = None) -> Tensor:
    result: Tensor = aten().bernoulli_(empty_like(self), p, generator=generator)
    return result


def _check_std(std: Tensor) -> None:
    if std._impl.dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std._impl.numel() and not is_meta(std._impl.device) and not (array(std) >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


@kernel("normal_tensor_float_out")
def normal_tensor_float_out(
    mean: Tensor, std: float = 1.0, *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    """Standard draws scaled by `std` (normal_(0, std)), then `mean` added, as PyTorch does."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    resize_output(out, broadcast_shapes(mean._impl.sizes, out._impl.sizes))
    aten().normal_(out, 0.0, std, generator=generator)
    result: Tensor = out.add_(mean)
    return result


@kernel("normal_float_tensor_out")
def normal_float_tensor_out(
    mean: float, std: Tensor, *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    """Standard draws times `std`, plus `mean`, as PyTorch does."""
    _check_std(std)
    resize_output(out, broadcast_shapes((), std._impl.sizes))
    aten().normal_(out, generator=generator)
    result: Tensor = out.mul_(std).add_(mean)
    return result


@kernel("normal_tensor_tensor_out")
def normal_tensor_tensor_out(
    mean: Tensor, std: Tensor, *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    """Standard draws times `std`, plus `mean` (shapes broadcast), as PyTorch does."""
    _check_std(std)
    resize_output(out, broadcast_shapes(mean._impl.sizes, std._impl.sizes))
    aten().normal_(out, generator=generator)
    result: Tensor = out.mul_(std).add_(mean)
    return result


@kernel("normal_tensor_float")
def normal_tensor_float(mean: Tensor, std: float = 1.0, *, generator: rng.Generator | None = None) -> Tensor:
    out = empty_like(mean, memory_format=MemoryFormat.contiguous_format)
    return normal_tensor_float_out(mean, std, generator=generator, out=out)


@kernel("normal_float_tensor")
def normal_float_tensor(mean: float, std: Tensor, *, generator: rng.Generator | None = None) -> Tensor:
    out = empty_like(std, memory_format=MemoryFormat.contiguous_format)
    return normal_float_tensor_out(mean, std, generator=generator, out=out)


@kernel("normal_tensor_tensor")
def normal_tensor_tensor(mean: Tensor, std: Tensor, *, generator: rng.Generator | None = None) -> Tensor:
    _check_std(std)
    shape = broadcast_shapes(mean._impl.sizes, std._impl.sizes)
    out = dispatched_empty(shape, mean.dtype, None, mean._impl.device)
    return normal_tensor_tensor_out(mean, std, generator=generator, out=out)


@kernel("normal_float_float_out")
def normal_float_float_out(
    mean: float, std: float, size: Sequence[int], *, generator: rng.Generator | None = None, out: Tensor
) -> Tensor:
    resize(out, tuple(size))
    result: Tensor = aten().normal_(out, mean, std, generator=generator)
    return result


@kernel("normal_float_float")
def normal_float_float(
    mean: float,
    std: float,
    size: Sequence[int],
    *,
    generator: rng.Generator | None = None,
    dtype: dtype | None = None,
    layout: Layout | None = None,
    device: Device | str | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    out = dispatched_empty(size, dtype, layout, device)
    return normal_float_float_out(mean, std, size, generator=generator, out=out)


def _multinomial_checks(self: Tensor, num_samples: int, replacement: bool) -> None:
    impl = self._impl
    if not 0 < impl.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not impl.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {impl.dtype.scalar_type_name}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > impl.sizes[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if impl.sizes[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")


@kernel("multinomial_out")
def multinomial_out(
    self: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: rng.Generator | None = None,
    out: Tensor,
) -> Tensor:
    """Category indices drawn from each row of probabilities (see `framework.c10.generator.multinomial`)."""
    _multinomial_checks(self, num_samples, replacement)
    if out.dtype is not int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype.scalar_type_name}")
    impl = self._impl
    resize_output(out, (*impl.sizes[:-1], num_samples))
    if is_meta(impl.device) or out._impl.numel() == 0:
        return out
    probs = array(self).reshape(-1, impl.sizes[-1])
    array(out)[...] = rng.multinomial(_gen(generator), probs, num_samples, replacement).reshape(out.shape)
    return out


@kernel("multinomial")
def multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, *, generator: rng.Generator | None = None
) -> Tensor:
    out = dispatched_empty((0,), int64, None, self._impl.device)
    return multinomial_out(self, num_samples, replacement, generator=generator, out=out)


@kernel("poisson_out")
def poisson_out(self: Tensor, generator: rng.Generator | None = None, *, out: Tensor) -> Tensor:
    """Poisson counts with the rates of `self`, in its dtype (PyTorch's numbers for one element,
    its distribution otherwise: see `framework.c10.generator.poisson`)."""
    impl = self._impl
    counts = rng.poisson(
        _gen(generator), np.zeros(0, dtype=impl.dtype.numpy_dtype) if is_meta(impl.device) else array(self)
    )
    resize_output(out, impl.sizes)
    if not is_meta(impl.device):
        array(out)[...] = counts.reshape(impl.sizes)
    return out


@kernel("poisson")
def poisson(self: Tensor, generator: rng.Generator | None = None) -> Tensor:
    return poisson_out(self, generator, out=empty_like(self, memory_format=MemoryFormat.contiguous_format))
