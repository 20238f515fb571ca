"""`framework.amp`: automatic mixed precision (`autocast`), as `torch.amp`."""

from __future__ import annotations

from framework.amp import _policies as _policies
from framework.amp.autocast_mode import autocast, is_autocast_available

__all__ = ["autocast", "is_autocast_available"]
