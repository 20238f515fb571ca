"""`framework.backends.cudnn`: cuDNN is never available; its flags are settable attributes."""

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled: bool = True
"""Whether cuDNN would be used where available (PyTorch's default: True)."""

benchmark: bool = False
"""Whether cuDNN would benchmark convolution algorithms (PyTorch's default: False)."""

deterministic: bool = False
"""Whether cuDNN would use only deterministic algorithms (PyTorch's default: False)."""

allow_tf32: bool = True
"""Whether cuDNN convolutions would be allowed TF32 (PyTorch's default: True)."""


def is_available() -> bool:
    """False: there is no cuDNN."""
    return False


def version() -> int | None:
    """None: there is no cuDNN."""
    return None
