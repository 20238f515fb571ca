"""Type aliases of the public API (as `torch.types`)."""

from __future__ import annotations

from typing import TypeAlias

Number: TypeAlias = bool | int | float | complex
"""What a `Scalar` argument accepts."""

__all__ = ["Number"]
