"""Sample inputs for the derivative tests: one `Sample` is one call of an operator overload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """`framework.ops.aten.<name>.<overload>(*args, **kwargs)`; floating tensors among the
    arguments (also inside lists) are the inputs gradcheck differentiates."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    desc: str = ""
