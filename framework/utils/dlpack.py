"""DLPack interchange (`torch.utils.dlpack`): `to_dlpack` exports a tensor's memory as a DLPack
capsule, `from_dlpack` makes a tensor sharing the memory of a capsule or of any object
implementing `__dlpack__` (NumPy arrays, other libraries' tensors)."""

from __future__ import annotations

from typing import Any

from framework._api_misc import from_dlpack
from framework._tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule sharing `tensor`'s memory (a versioned one, which keeps it writable for
    NumPy's importer; `from_dlpack` takes it back)."""
    return tensor.__dlpack__(max_version=(1, 0))
