"""`framework.backends.cpu`: what the CPU offers."""

from numpy._core._multiarray_umath import __cpu_features__

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The widest vector instruction set NumPy's kernels use on this CPU, named as PyTorch names
    its CPU capability: ``"AVX512"``, ``"AVX2"``, or ``"DEFAULT"`` for anything else."""
    if __cpu_features__.get("AVX512_SKX"):
        return "AVX512"
    if __cpu_features__.get("AVX2"):
        return "AVX2"
    return "DEFAULT"
