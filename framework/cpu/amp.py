"""`framework.cpu.amp`: the deprecated spellings of `framework.autocast("cpu", ...)` and
`framework.amp.GradScaler("cpu", ...)`."""

from __future__ import annotations

import warnings

from framework.amp.autocast_mode import autocast as _autocast
from framework.amp.grad_scaler import GradScaler as _GradScaler
from framework.c10.dtypes import bfloat16, dtype

__all__ = ["GradScaler", "autocast"]


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


class GradScaler(_GradScaler):
    """`framework.amp.GradScaler("cpu", ...)` with PyTorch's deprecation warning."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
