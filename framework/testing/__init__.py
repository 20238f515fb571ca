"""`framework.testing`: PyTorch's `torch.testing` -- `assert_close` (tolerances per dtype, mismatch
reports, containers compared item by item) and `make_tensor` (random test tensors)."""

from framework.testing._comparison import assert_close
from framework.testing._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
