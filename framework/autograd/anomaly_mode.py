"""Anomaly detection: nodes remember the forward traceback that created them, and the engine
checks every gradient a node returns for NaN (PyTorch's `detect_anomaly`/`set_detect_anomaly`).

Like PyTorch's, the mode is process-wide, not per thread."""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _state["check_nan"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (`check_nan`: also check gradients for NaN), silently,
    as PyTorch's `torch.set_anomaly_enabled`."""
    _state["enabled"] = enabled
    _state["check_nan"] = check_nan


def forward_traceback() -> str:
    """The stack of the forward call being recorded (innermost framework frames dropped)."""
    frames = traceback.extract_stack()[:-1]
    while frames and (frames[-1].filename.startswith("<") or _in_framework(frames[-1].filename)):
        frames.pop()
    return "".join(traceback.format_list(frames))


def _in_framework(filename: str) -> bool:
    return "/framework/" in filename.replace("\\", "/")


class _AnomalyMode:
    def __init__(self, mode: bool, check_nan: bool) -> None:
        self.prev = (_state["enabled"], _state["check_nan"])
        self.mode = mode
        self.check_nan = check_nan

    def _set(self) -> None:
        if self.mode:
            warnings.warn(
                "Anomaly Detection has been enabled. This mode will increase the runtime and should "
                "only be enabled for debugging.",
                stacklevel=3,
            )
        _state["enabled"] = self.mode
        _state["check_nan"] = self.check_nan

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _state["enabled"], _state["check_nan"] = self.prev


class detect_anomaly(_AnomalyMode):
    """Context manager (and decorator) enabling anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)

    def __enter__(self) -> None:
        self.prev = (_state["enabled"], _state["check_nan"])
        self._set()

    def __call__(self, fn: F) -> F:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = fn.__doc__
        return wrapper  # type: ignore[return-value]


class set_detect_anomaly(_AnomalyMode):
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        super().__init__(mode, check_nan)
        self._set()

    def __enter__(self) -> None:
        pass
