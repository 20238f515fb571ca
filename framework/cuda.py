"""`framework.cuda`: what scripts ask before choosing a device
(`torch.device("cuda" if torch.cuda.is_available() else "cpu")`).

framework's kernels run on NumPy on the CPU and it has no CUDA backend, so, as in a CPU-only build
of PyTorch, no CUDA device is ever available."""

from __future__ import annotations

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Whether CUDA can be used: never (there is no CUDA backend)."""
    return False


def device_count() -> int:
    """The number of CUDA devices: 0."""
    return 0
