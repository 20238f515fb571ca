"""The helper functions the formulas of derivatives.yaml call, one module per operator family.

`HELPERS` maps each public helper name to its function; two modules exporting the same name is an
error, so a formula's name always means one thing."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Final

from framework.autograd.engine import sum_to
from framework.autograd.formulas import (
    activation,
    complex,
    fft,
    indexing,
    linalg,
    math_more,
    misc3,
    nn,
    nn_more,
    pointwise,
    shapes,
    sorting,
    weight_norm,
)


def _collect(modules: tuple[ModuleType, ...]) -> dict[str, Any]:
    helpers: dict[str, Any] = {"sum_to": sum_to}
    for module in modules:
        for name in module.__all__:
            if name in helpers:
                raise ImportError(f"formula helper {name!r} is defined twice ({module.__name__})")
            helpers[name] = getattr(module, name)
    return helpers


HELPERS: Final = _collect(
    (
        pointwise,
        shapes,
        nn,
        sorting,
        activation,
        linalg,
        nn_more,
        indexing,
        math_more,
        weight_norm,
        complex,
        fft,
        misc3,
    )
)
