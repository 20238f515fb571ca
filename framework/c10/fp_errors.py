"""Floating-point errors inside operators: silent, as in PyTorch.

PyTorch's kernels follow IEEE arithmetic without reporting anything: `log(0)` is `-inf`,
`0 / 0` is `nan`, an overflowing product is `inf`. NumPy computes the same values but, by
default, also emits a `RuntimeWarning` ("divide by zero encountered in log"), which PyTorch code
never sees (and which `-W error` would turn into an exception). The dispatcher therefore runs every
operator with NumPy's floating-point error handling set to "ignore".

NumPy keeps that setting in a context variable (what `np.errstate` sets), so setting it is one C
call and it is per thread and per asyncio task; it is restored when the operator returns, so
NumPy code of the user's own, outside operators, reports errors as the user configured.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Final

import numpy as np
from numpy._core import _ufunc_config

__all__ = ["QUIET", "fp_errors"]

fp_errors: Final[ContextVar[object]] = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
"""NumPy's floating-point error state (the variable `np.errstate` sets; not in NumPy's stubs)."""


def _quiet_state() -> object:
    with np.errstate(all="ignore"):
        return fp_errors.get()


QUIET: Final = _quiet_state()
"""The state with every floating-point error ignored."""
