"""`framework.cpu.amp.autocast`: the deprecated spelling of `framework.autocast("cpu", ...)`."""

from __future__ import annotations

import warnings

from framework.amp.autocast_mode import autocast as _autocast
from framework.c10.dtypes import bfloat16, dtype

__all__ = ["autocast"]


class autocast(_autocast):
    """`framework.amp.autocast("cpu", ...)` with PyTorch's deprecation warning."""

    def __init__(self, enabled: bool = True, dtype: dtype = bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
