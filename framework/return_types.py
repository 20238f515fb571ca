"""`framework.return_types`: the named tuples operators with several named returns give, as
PyTorch's `torch.return_types` (`values, indices = framework.max(x, 1)`, or `.values`)."""

from framework._generated.return_types import *  # noqa: F403
from framework._generated.return_types import __all__ as __all__
