"""`make_tensor`: a tensor of a given shape and dtype with values drawn uniformly from a range,
as PyTorch's `torch.testing.make_tensor` draws them (same generator calls, so same seed, same
values)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from framework._generated.functions import empty, randint, view_as_real
from framework._tensor import Tensor
from framework._type_info import finfo, iinfo
from framework.c10.device import Device
from framework.c10.dtypes import bool_, dtype, int64

__all__ = ["make_tensor"]


def _low_high(
    dtype: dtype,
    low: float | None,
    high: float | None,
    *,
    lowest_inclusive: float,
    highest_exclusive: float,
    default_low: float,
    default_high: float,
) -> tuple[float, float]:
    """`low`/`high` (or the defaults), checked and clamped to what `dtype` represents; for
    integral dtypes rounded up to integers."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype.is_floating_point or dtype.is_complex):
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
            "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only supports "
            f"[{lowest_inclusive}, {highest_exclusive})"
        )
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if not (dtype.is_floating_point or dtype.is_complex):
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(
    *shape: int | Sequence[int],
    dtype: dtype,
    device: str | Device,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
) -> Tensor:
    """A tensor of `shape` (ints, or one sequence) with values uniform in `[low, high)`. Defaults:
    bool [0, 2), unsigned [0, 10), signed integral [-9, 10), floating and complex [-9, 9); given
    bounds are clamped to the dtype's finite range. `noncontiguous` returns every other element of
    a last dimension twice as long (when there are at least two elements); `exclude_zero` replaces
    zeros by 1 (bool, integral) or the dtype's `finfo.tiny` (floating; both parts for complex).
    `requires_grad` is refused for bool and integral dtypes."""
    dims: tuple[int, ...] = (
        tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], Sequence) else tuple(shape)  # type: ignore[arg-type]
    )
    floating = dtype.is_floating_point or dtype.is_complex
    if requires_grad and not floating:
        raise ValueError(
            f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(dims) > 1
    if noncontiguous:
        dims = (*dims[:-1], 2 * dims[-1])
    if dtype is bool_:
        lo, hi = _low_high(
            dtype, low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0, default_high=2
        )
        result = randint(int(lo), int(hi), dims, dtype=dtype, device=device)
    elif not floating:
        info = iinfo(dtype)
        lo, hi = _low_high(
            dtype,
            low,
            high,
            lowest_inclusive=info.min,
            highest_exclusive=info.max + (1 if dtype is not int64 else 0),
            default_low=-9,
            default_high=10,
        )
        result = randint(int(lo), int(hi), dims, dtype=dtype, device=device)
    else:
        largest = finfo(dtype).max
        lo, hi = _low_high(
            dtype,
            low,
            high,
            lowest_inclusive=-largest,
            highest_exclusive=largest,
            default_low=-9,
            default_high=9,
        )
        result = empty(dims, dtype=dtype, device=device)
        target = view_as_real(result) if dtype.is_complex else result
        if hi - lo >= largest:
            target.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            target.uniform_(lo, hi)
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        tiny = finfo(dtype).tiny if floating else 1
        result[result == 0] = complex(tiny, tiny) if dtype.is_complex else tiny
    if floating:
        result.requires_grad = requires_grad
    return result
