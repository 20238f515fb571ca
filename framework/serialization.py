"""`framework.save` / `framework.load`: dicts of tensors in the safetensors format.

The format is a JSON header (names, dtypes, shapes, offsets) followed by raw little-endian data,
so loading never runs code. Files written by PyTorch's `safetensors.torch.save_file` load here, and
files written here load there."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any

import numpy as np
import numpy.typing as npt
from safetensors import SafetensorError
from safetensors import numpy as safetensors_numpy

from framework._tensor import Tensor, from_numpy

__all__ = ["load", "save"]

FileLike = str | os.PathLike[str] | IO[bytes]


def _describe(f: FileLike) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return str(getattr(f, "name", repr(f)))


def _arrays(obj: Mapping[str, Tensor]) -> dict[str, npt.NDArray[Any]]:
    """The tensors of `obj` as C-contiguous arrays (detached, copied when not dense)."""
    if not isinstance(obj, Mapping):
        raise TypeError(f"framework.save saves a dict of tensors (a state_dict), got {type(obj).__name__}")
    arrays = {}
    for key, value in obj.items():
        if not isinstance(key, str):
            raise TypeError(f"framework.save: keys must be strings, got {key!r}")
        if not isinstance(value, Tensor):
            raise TypeError(f"framework.save: the value of {key!r} is a {type(value).__name__}, not a tensor")
        if value.device.type != "cpu":
            raise ValueError(f"framework.save: {key!r} is on {value.device}; only CPU tensors can be saved")
        arrays[key] = np.asarray(value.detach().numpy(), order="C")
    return arrays


def save(obj: Mapping[str, Tensor], f: FileLike, *, metadata: Mapping[str, str] | None = None) -> None:
    """Write a dict of tensors (a `state_dict()`) to `f` (a path or a binary file) as safetensors;
    `metadata` is stored as string pairs in the header."""
    arrays = _arrays(obj)
    meta = None if metadata is None else dict(metadata)
    if isinstance(f, (str, os.PathLike)):
        safetensors_numpy.save_file(arrays, f, metadata=meta)
    else:
        f.write(safetensors_numpy.save(arrays, metadata=meta))


def load(f: FileLike, map_location: Any = None, *, weights_only: bool = True) -> dict[str, Tensor]:
    """Read a dict of tensors written by `save` (or by safetensors from PyTorch) from `f` (a path or
    a binary file). A truncated or malformed file raises a ValueError naming it. Only CPU loading
    exists: `map_location` may be None or "cpu"."""
    if map_location not in (None, "cpu") and str(map_location) != "cpu":
        raise ValueError(f"framework.load loads onto the CPU only, got map_location={map_location!r}")
    try:
        if isinstance(f, (str, os.PathLike)):
            arrays = safetensors_numpy.load_file(f)
        else:
            arrays = safetensors_numpy.load(f.read())
    except SafetensorError as error:
        raise ValueError(f"{_describe(f)} is not a valid safetensors file: {error}") from error
    return {key: from_numpy(array) for key, array in arrays.items()}
