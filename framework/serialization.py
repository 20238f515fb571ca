"""`framework.save` / `framework.load`: dicts of tensors in the safetensors format.

The format is a JSON header (names, dtypes, shapes, offsets) followed by raw little-endian data,
so loading never runs code. Files written by PyTorch's `safetensors.torch.save_file` load here, and
files written here load there, bfloat16 tensors included (safetensors' NumPy API writes
ml_dtypes' bfloat16 arrays as BF16 but cannot read them back, so loading reads the header itself)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt
from safetensors import SafetensorError, deserialize
from safetensors import numpy as safetensors_numpy

from framework._tensor import Tensor
from framework.c10.dtypes import DTYPES
from framework.c10.tensor_impl import TensorImpl

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
        resolved = value.detach().resolve_conj().resolve_neg()
        arrays[key] = np.asarray(resolved._impl.numpy_view(), order="C")
    return arrays


_SAFETENSORS_DTYPES: Final = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "I32": "int32",
    "I64": "int64",
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
    "C64": "complex64",
}
"""The safetensors dtype codes framework reads, by the framework dtype they hold."""


def _tensor(name: str, spec: dict[str, Any]) -> Tensor:
    code = spec["dtype"]
    if code not in _SAFETENSORS_DTYPES:
        raise ValueError(
            f"framework.load: {name!r} has safetensors dtype {code}, which framework does not hold"
        )
    d = DTYPES[_SAFETENSORS_DTYPES[code]]
    little_endian = d.numpy_dtype.newbyteorder("<")
    array = np.frombuffer(spec["data"], dtype=little_endian).astype(d.numpy_dtype, copy=False)
    return Tensor(TensorImpl.from_numpy(array.reshape(spec["shape"]), d))


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
            with open(f, "rb") as file:
                data = file.read()
        else:
            data = f.read()
        flat: list[tuple[str, dict[str, Any]]] = deserialize(data)  # type: ignore[no-untyped-call]
    except SafetensorError as error:
        raise ValueError(f"{_describe(f)} is not a valid safetensors file: {error}") from error
    return {name: _tensor(name, spec) for name, spec in flat}
