"""The thread-local autograd state (PyTorch's `AutogradState`): grad mode and inference mode.

Each thread starts with grad mode on and inference mode off; both live in `ContextVar`s so that a
read on the hot path is one C call.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Final

grad_mode: Final[ContextVar[bool]] = ContextVar("framework_grad_mode", default=True)
inference_mode: Final[ContextVar[bool]] = ContextVar("framework_inference_mode", default=False)

is_grad_enabled: Final = grad_mode.get
is_inference_mode_enabled: Final = inference_mode.get
