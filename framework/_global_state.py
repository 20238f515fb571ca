"""Top-level settings and predicates of PyTorch's namespace: intra-op threads, deterministic
algorithms, the default device, and `is_nonzero`/`is_storage`/`is_floating_point`/`is_complex`/
`result_type`.

Threads: the kernels are NumPy's, whose only threaded parts are its BLAS (matrix products) and
OpenMP pools. `set_num_threads(n)` records `n` and, when `threadpoolctl` is importable (it is not
a dependency), limits those pools to `n` threads; without it, the number is only recorded.
`get_num_threads()` returns the recorded number, at first the CPUs this process may run on.

Determinism: every kernel is deterministic already, so `use_deterministic_algorithms` records the
mode for `are_deterministic_algorithms_enabled` and `is_deterministic_algorithms_warn_only_enabled`
and changes nothing else (PyTorch's filling of uninitialised memory with NaN in that mode is not
done).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from framework._tensor import Tensor
from framework._typed_storage import TypedStorage
from framework.c10.device import Device
from framework.c10.dtypes import dtype
from framework.c10.storage import UntypedStorage
from framework.ops._iter import result_type as _result_type

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_default_device",
    "get_num_threads",
    "is_complex",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_floating_point",
    "is_nonzero",
    "is_storage",
    "result_type",
    "set_default_device",
    "set_num_threads",
    "use_deterministic_algorithms",
]


def _available_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class _State:
    num_threads: int = _available_cpus()
    thread_limit: Any = None
    deterministic: bool = False
    warn_only: bool = False


def set_num_threads(num: int) -> None:
    """Use `num` threads for intra-op parallelism (NumPy's BLAS and OpenMP pools, through
    `threadpoolctl` when it is installed)."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _State.num_threads = num
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        return
    if _State.thread_limit is not None:
        _State.thread_limit.restore_original_limits()
    _State.thread_limit = threadpoolctl.threadpool_limits(num)


def get_num_threads() -> int:
    """The number of intra-op threads (`set_num_threads`'s, at first the usable CPUs)."""
    return _State.num_threads


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether only deterministic algorithms may run (all kernels here are)."""
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            position = " (position 1)" if name == "mode" else ""
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{name}'{position} must be bool, not "
                f"{type(value).__name__}"
            )
    _State.deterministic = mode
    _State.warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _State.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _State.warn_only


def get_default_device() -> Device:
    """The device factories use when none is given: always the CPU."""
    return Device("cpu")


def set_default_device(device: Device | str | None) -> None:
    """Accepts the CPU (or None, PyTorch's reset), the only device factories make tensors on;
    any other device raises."""
    if device is not None and Device(device).type != "cpu":
        raise RuntimeError(
            f"set_default_device: only the cpu device is supported as the default device, got "
            f"'{Device(device)}'"
        )


def _check_tensor(op: str, input: object) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor's value is not zero (an error for any other number of
    elements, as `bool(tensor)`)."""
    return bool(_check_tensor("is_nonzero", input))


def is_floating_point(input: Tensor) -> bool:
    """Whether `input`'s dtype is a floating point type."""
    return _check_tensor("is_floating_point", input).is_floating_point()


def is_complex(input: Tensor) -> bool:
    """Whether `input`'s dtype is a complex type."""
    return _check_tensor("is_complex", input).is_complex()


def is_storage(obj: object) -> bool:
    """Whether `obj` is a storage (what `Tensor.untyped_storage()` or `Tensor.storage()` returns)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def result_type(tensor: Tensor | complex, other: Tensor | complex) -> dtype:
    """The dtype an arithmetic operation on `tensor` and `other` (tensors or Python numbers)
    computes in, by PyTorch's type promotion."""
    if not all(isinstance(v, Tensor | bool | int | float | complex) for v in (tensor, other)):
        raise TypeError(
            "result_type() received an invalid combination of arguments - got "
            f"({type(tensor).__name__}, {type(other).__name__}), but expected one of: "
            "(Tensor tensor, Tensor other), (Number scalar, Tensor tensor), "
            "(Tensor tensor, Number other), (Number scalar1, Number scalar2)"
        )
    return _result_type(tensor, other)
