"""Seeding and the state of the default CPU generator (`torch.random`), with states as uint8
tensors as PyTorch gives them."""

from __future__ import annotations

from typing import Final

from framework._tensor import Tensor, from_numpy
from framework.c10 import generator as _rng
from framework.c10.dtypes import uint8
from framework.c10.generator import Generator, initial_seed, manual_seed, seed

default_generator: Final = _rng.default_generator()
"""The process-wide CPU generator (`torch.default_generator`), a `Generator` object."""


def get_rng_state() -> Tensor:
    """The default generator's state (a uint8 tensor of 5056 bytes, PyTorch's layout)."""
    return from_numpy(_rng.get_rng_state())


def set_rng_state(new_state: Tensor) -> None:
    """Restore a state from `get_rng_state()` (or PyTorch's `torch.get_rng_state()` bytes)."""
    if not isinstance(new_state, Tensor) or new_state.dtype is not uint8:
        got = new_state.dtype if isinstance(new_state, Tensor) else type(new_state).__name__
        raise TypeError(f"set_rng_state: expected a torch.ByteTensor, but got {got}")
    _rng.set_rng_state(new_state.numpy())


__all__ = [
    "Generator",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]
