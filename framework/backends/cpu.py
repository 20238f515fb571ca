"""`framework.backends.cpu`: what the CPU offers."""

import importlib
from typing import Final

_FEATURES: Final[dict[str, bool]] = importlib.import_module("numpy._core._multiarray_umath").__cpu_features__
"""The CPU features NumPy detected at import (its dispatch of SIMD kernels goes by them)."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The widest vector instruction set NumPy's kernels use on this CPU, named as PyTorch names
    its CPU capability: ``"AVX512"``, ``"AVX2"``, or ``"DEFAULT"`` for anything else."""
    if _FEATURES.get("AVX512_SKX"):
        return "AVX512"
    if _FEATURES.get("AVX2"):
        return "AVX2"
    return "DEFAULT"
