"""`framework.special`: PyTorch's torch.special namespace (the `special_*` operators of
native_functions.yaml under their short names, e.g. `framework.special.i1`)."""

from framework._generated.special import *  # noqa: F403
from framework._generated.special import __all__ as __all__
