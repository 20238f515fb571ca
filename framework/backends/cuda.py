"""`framework.backends.cuda`: CUDA is never built in; `matmul`'s flags are settable attributes."""

__all__ = ["is_built", "matmul"]


class _MatmulFlags:
    """`framework.backends.cuda.matmul`: the flags of CUDA matrix products (PyTorch's defaults)."""

    def __init__(self) -> None:
        self.allow_tf32: bool = False
        self.allow_fp16_reduced_precision_reduction: bool = True
        self.allow_bf16_reduced_precision_reduction: bool = True


matmul = _MatmulFlags()


def is_built() -> bool:
    """False: this framework is not built with CUDA."""
    return False
