"""Sample inputs for the derivative tests: one `Sample` is one call of an operator overload."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """`framework.ops.aten.<name>.<overload>(*args, **kwargs)`; floating tensors among the
    arguments (also inside lists) are the inputs gradcheck differentiates.  `prepare`, when
    given, maps each such input (a framework or a torch tensor) before the call, inside the
    differentiated function: e.g. `A + A.transpose(-2, -1)` for an operator that reads one
    triangle of a symmetric matrix.  `outputs`, when given, maps the list of outputs to the ones
    to differentiate (e.g. gauge-invariant products of singular vectors, whose signs LAPACK
    builds choose differently)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    desc: str = ""
    prepare: Callable[[Any], Any] | None = None
    outputs: Callable[[list[Any]], list[Any]] | None = None
