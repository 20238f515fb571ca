"""The two operators gradient scaling runs on (PyTorch's CPU kernels of torch.amp.GradScaler):
unscaling gradients while checking them for infs/NaNs, and the scale's growth/backoff update."""

from __future__ import annotations

import numpy as np

from framework._tensor import Tensor
from framework.c10.dtypes import float32, int32
from framework.ops.kernels._registry import array, kernel, not_implemented


def _check_one_element_float(t: Tensor, what: str) -> None:
    if t._impl.numel() != 1:
        raise RuntimeError(f"{what} must be a 1-element tensor.")
    if t._impl.dtype is not float32:
        raise RuntimeError(f"{what} must be a float tensor.")


@kernel("_amp_foreach_non_finite_check_and_unscale_")
def _amp_foreach_non_finite_check_and_unscale_(
    self: list[Tensor], found_inf: Tensor, inv_scale: Tensor
) -> None:
    """Multiply every tensor of `self` by `inv_scale` in place and set `found_inf` to 1.0 if any
    holds an inf or a NaN (the multiplication happens either way, as in PyTorch)."""
    _check_one_element_float(inv_scale, "inv_scale")
    _check_one_element_float(found_inf, "found_inf")
    factor = array(inv_scale).reshape(())
    for t in self:
        if not t._impl.dtype.is_floating_point:
            raise not_implemented("_amp_foreach_non_finite_check_and_unscale_cpu", t._impl.dtype)
        values = array(t)
        compute = values.astype(t._impl.dtype.opmath_numpy, copy=False)
        if not np.isfinite(compute).all():
            array(found_inf)[...] = 1.0
        values[...] = compute * factor


@kernel("_amp_update_scale_")
def _amp_update_scale_(
    self: Tensor,
    growth_tracker: Tensor,
    found_inf: Tensor,
    scale_growth_factor: float,
    scale_backoff_factor: float,
    growth_interval: int,
) -> Tensor:
    """PyTorch's scale update: a found inf multiplies the scale by the backoff factor and resets the
    tracker; otherwise the tracker counts successful steps and every `growth_interval` of them
    multiplies the scale by the growth factor (unless that overflows float32)."""
    _check_one_element_float(self, "current_scale")
    if growth_tracker._impl.numel() != 1:
        raise RuntimeError("growth_tracker must be a 1-element tensor.")
    if growth_tracker._impl.dtype is not int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    _check_one_element_float(found_inf, "found_inf")
    scale, tracker = array(self).reshape(()), array(growth_tracker).reshape(())
    if array(found_inf).reshape(()) != 0:
        scale[...] = scale * np.float32(scale_backoff_factor)
        tracker[...] = 0
        return self
    successful = int(tracker) + 1
    if successful == growth_interval:
        grown = scale * np.float32(scale_growth_factor)
        if np.isfinite(grown):
            scale[...] = grown
        tracker[...] = 0
    else:
        tracker[...] = successful
    return self
