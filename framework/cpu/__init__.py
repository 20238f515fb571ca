"""`framework.cpu`: the CPU device module, as `torch.cpu` (its `amp.autocast` included)."""

from __future__ import annotations

from framework.cpu import amp

__all__ = ["amp", "device_count", "is_available"]


def is_available() -> bool:
    """The CPU is always available."""
    return True


def device_count() -> int:
    """One CPU device, as PyTorch counts it."""
    return 1
