"""`framework.linalg`: PyTorch's torch.linalg namespace (the `linalg_*` operators of
native_functions.yaml under their short names, e.g. `framework.linalg.norm`), and `LinAlgError`,
the RuntimeError raised for singular or non-positive-definite matrices."""

from framework._generated.linalg import *  # noqa: F403
from framework._generated.linalg import __all__ as _operator_functions
from framework.ops.kernels.linalg_decomp import LinAlgError

__all__ = [*_operator_functions, "LinAlgError"]
