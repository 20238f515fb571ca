"""Random kernels: in-place samplers on CPU (drawing from a `Generator` in element order, as
PyTorch's CPU generator does) and the factories built from them (`rand` is `empty` followed by
`uniform_`, as in the seeds)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from framework._tensor import Tensor
from framework.c10 import generator as rng
from framework.c10.device import Device, Layout, MemoryFormat
from framework.c10.dtypes import dtype, int64
from framework.ops.kernels._registry import (
    array,
    aten,
    aten_op,
    dispatched_empty,
    is_meta,
    kernel,
    register_variants,
    resize,
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
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
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
