"""`framework.backends.mps`: Apple's Metal backend is never available."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: there is no MPS device."""
    return False


def is_built() -> bool:
    """False: this framework is not built with MPS."""
    return False
