"""`framework.amp`: automatic mixed precision (`autocast`, `GradScaler`), as `torch.amp`."""

from __future__ import annotations

from framework.amp import _policies as _policies
from framework.amp.autocast_mode import autocast, is_autocast_available
from framework.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
