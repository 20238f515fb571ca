"""`framework.autocast`: mixed precision on the CPU, as PyTorch's `torch.autocast`.

Autocast is a dispatch key.  CPU tensors carry `AutocastCPU` (above the autograd keys), and every
thread excludes it from its calls until autocast is enabled, which takes it out of the thread's
excluded set (PyTorch's design: `is_autocast_enabled("cpu")` *is* "AutocastCPU is not excluded").
Operators without an autocast kernel fall through the key; those on PyTorch's lists
(`framework.amp._policies`) cast their floating-point arguments and call the operator again with the
key excluded.  The target dtype, the cast cache switch and the nesting depth are per thread.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, Literal, TypeVar

from framework.c10.device import Device
from framework.c10.dispatch_key import DispatchKey
from framework.c10.dtypes import bfloat16, dtype, float16
from framework.c10.local_dispatch_key_set import tls_is_dispatch_key_excluded, tls_set_dispatch_key_excluded

__all__ = [
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])

_CPU_SUPPORTED: Final = (bfloat16, float16)
_DEFAULT_DTYPES: Final = {"cpu": bfloat16, "cuda": float16}
"""Each device type's autocast dtype until set (PyTorch's defaults)."""


class _State(threading.local):
    """The calling thread's autocast settings (PyTorch keeps them thread-local too)."""

    def __init__(self) -> None:
        self.dtypes: dict[str, dtype] = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0


_STATE: Final = _State()

_CACHE: Final[dict[int, tuple[Any, Any]]] = {}
"""Casts of float32 leaf parameters kept while autocast is on: id of the source's TensorImpl ->
(the source's TensorImpl, its cast).  Holding the source keeps its id from being reused."""
_CACHE_LOCK: Final = threading.Lock()


def _device_type(device_type: str) -> str:
    """The device type named by `device_type` ("cpu", "cuda", or one framework parses)."""
    if device_type == "cuda":
        return device_type
    return str(Device(device_type).device_type)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast serves `device_type`: the CPU (and CUDA, which it turns off, as a CPU-only
    PyTorch build does)."""
    return _device_type(device_type) in _DEFAULT_DTYPES


def _check_available(device_type: str) -> str:
    kind = _device_type(device_type)
    if kind not in _DEFAULT_DTYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return kind


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for `device_type` in this thread (CUDA without an argument, which is
    never on here)."""
    if device_type is None or _check_available(device_type) == "cuda":
        return False
    return not tls_is_dispatch_key_excluded(DispatchKey.AutocastCPU)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for `device_type` in this thread (CUDA stays off: there is none)."""
    if _check_available(device_type) == "cpu":
        tls_set_dispatch_key_excluded(DispatchKey.AutocastCPU, not enabled)


def get_autocast_dtype(device_type: str) -> dtype:
    """The dtype autocast casts to on `device_type` (bfloat16 on the CPU until set)."""
    return _STATE.dtypes[_check_available(device_type)]


def set_autocast_dtype(device_type: str, dtype: dtype) -> None:
    _STATE.dtypes[_check_available(device_type)] = dtype


def _deprecated(old: str, new: str) -> None:
    message = f"torch.{old}() is deprecated. Please use torch.{new} instead."
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> dtype:
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: dtype) -> None:
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> dtype:
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def is_autocast_cache_enabled() -> bool:
    return _STATE.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _STATE.cache_enabled = enabled


def autocast_increment_nesting() -> int:
    _STATE.nesting += 1
    return _STATE.nesting


def autocast_decrement_nesting() -> int:
    _STATE.nesting -= 1
    return _STATE.nesting


def clear_autocast_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def cached_cast(impl: Any, make: Callable[[], Any]) -> Any:
    """The cast `make()` of the tensor whose TensorImpl is `impl`, made once while autocast stays
    on (PyTorch caches the lower-precision casts of float32 leaves that require grad)."""
    with _CACHE_LOCK:
        hit = _CACHE.get(id(impl))
        if hit is None:
            hit = _CACHE[id(impl)] = (impl, make())
        return hit[1]


class autocast:
    """Run a region (a `with` block, or a function when used as a decorator) with autocast on or
    off for `device_type`: matmuls, convolutions and linear layers run in `dtype` (bfloat16 on the
    CPU by default), losses, reductions and numerically sensitive operators in float32, as
    PyTorch's autocast lists say."""

    def __init__(
        self,
        device_type: str,
        dtype: dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        if enabled and self.fast_dtype not in _CPU_SUPPORTED:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of "
                + ", ".join(map(str, _CPU_SUPPORTED))
                + " currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> None:
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        # The cached casts go when the outermost autocast region ends.
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorate_autocast  # type: ignore[return-value]
