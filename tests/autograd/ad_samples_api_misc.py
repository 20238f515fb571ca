"""Sample inputs of the misc top-level and Tensor API entries of derivatives.yaml: the `*_copy`
operators (gradients as their view operators'), `narrow_copy`, `detach_copy`, `fill`,
`nonzero_static`, `resize_`/`resize_as_` (int64 inputs: PyTorch refuses to resize a tensor that
requires grad) and the `set_` overloads (no derivative, as in PyTorch). One non-contiguous input
per family is enough: the view kernels are tested with their own entries."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _rand(*shape: int, seed: int = 0) -> Tensor:
    """A float64 tensor of standard normal values."""
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _one(*args: object, **kwargs: object) -> Callable[[], list[Sample]]:
    """Samples of one call on a (2, 3, 4) input (made fresh for each test) and `args`."""
    return lambda: [Sample((_rand(2, 3, 4), *args), dict(kwargs))]


def _transposed(*args: object) -> Callable[[], list[Sample]]:
    """Samples of one call on a non-contiguous (4, 3) input (a transposed (3, 4) one) and `args`."""
    return lambda: [Sample((_rand(3, 4).t(), *args), desc="transposed")]


def _view_as_real_copy() -> list[Sample]:
    values = np.random.default_rng(0).standard_normal((3, 2))
    return [Sample((framework.from_numpy(values[:, 0] + 1j * values[:, 1]),))]


def _fill_tensor() -> list[Sample]:
    return [Sample((_rand(2, 3), framework.tensor(1.5, dtype=framework.float64)))]


def _squeezable() -> Callable[[], list[Sample]]:
    return lambda: [Sample((_rand(2, 1, 3),))]


def _set_storage() -> list[Sample]:
    return [Sample((_rand(2), _rand(6).untyped_storage()))]


def _set_storage_offset() -> list[Sample]:
    return [Sample((_rand(2), _rand(6).untyped_storage(), 1, [2, 2], [1, 2]))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "view_copy": _transposed([12]),
    "permute_copy": _one([2, 0, 1]),
    "transpose_copy.int": _one(0, 2),
    "t_copy": _transposed(),
    "expand_copy": lambda: [Sample((_rand(3, 1), [2, 3, 4]))],
    "squeeze_copy": _squeezable(),
    "squeeze_copy.dim": lambda: [Sample((_rand(2, 1, 3), 1))],
    "squeeze_copy.dims": lambda: [Sample((_rand(2, 1, 3), [0, 1]))],
    "unsqueeze_copy": _transposed(1),
    "select_copy.int": _one(1, -1),
    "slice_copy.Tensor": _one(2, 1, 4, 2),
    "diagonal_copy": _one(1, 1, 2),
    "split_copy.Tensor": _one(2, 1),
    "split_with_sizes_copy": _one([1, 3], 2),
    "unbind_copy.int": _transposed(1),
    "unfold_copy": _transposed(0, 2, 1),
    "alias_copy": _transposed(),
    "detach_copy": _transposed(),
    "as_strided_copy": lambda: [Sample((_rand(3, 4), [2, 2], [1, 2], 1))],
    "view_as_real_copy": _view_as_real_copy,
    "narrow_copy": _transposed(1, 1, 2),
    "fill.Scalar": _one(2.5),
    "fill.Tensor": _fill_tensor,
    "fill_.Tensor": _fill_tensor,
    "nonzero_static": lambda: [Sample((_rand(2, 3),), {"size": 4})],
    "resize_": lambda: [Sample((framework.arange(6), [2, 2]), desc="int64: no grad to refuse")],
    "resize_as_": lambda: [Sample((framework.arange(3), framework.zeros(2, 3, dtype=framework.int64)))],
    "set_.source_Storage": _set_storage,
    "set_.source_Storage_storage_offset": _set_storage_offset,
    "set_.source_Tensor": lambda: [Sample((_rand(2), _rand(3, 4).t()))],
    "set_.source_Tensor_storage_offset": lambda: [Sample((_rand(2), _rand(6), 2, [2, 2]))],
    "set_": lambda: [Sample((_rand(2),))],
}

NO_GRADGRAD: dict[str, str] = {}
