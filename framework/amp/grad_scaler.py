"""`framework.amp.GradScaler`: gradient scaling for mixed-precision training, as torch.amp's.

`scale(loss)` multiplies by the current scale; `step(optimizer)` unscales the gradients (through
`_amp_foreach_non_finite_check_and_unscale_`, which also notes infs/NaNs) and skips the step if
any were found; `update()` grows or backs off the scale (`_amp_update_scale_`).  The scale lives in
a float32 tensor, the growth tracker in an int32 one, made on the first `scale`.  A scaler for
"cuda" disables itself with PyTorch's warning, as on a CPU-only build.
"""

from __future__ import annotations

import enum
import warnings
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, Final, overload

import framework
from framework._tensor import Tensor
from framework.autograd.grad_mode import no_grad
from framework.c10.dtypes import float16, float32, int32

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_FIX: Final = (
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
)


class GradScaler:
    """Scales losses so that low-precision gradients do not underflow, unscales the gradients
    before the optimizer steps, skips steps whose gradients overflowed and adapts the scale:
    `init_scale` to start with, times `growth_factor` after `growth_interval` clean steps, times
    `backoff_factor` after an overflow."""

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2
            )
            self._enabled = False
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale: Tensor | None = None
        self._growth_tracker: Tensor | None = None
        self._per_optimizer_states: defaultdict[int, dict[str, Any]] = defaultdict(
            _refresh_per_optimizer_state
        )
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  {_FIX}")
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  {_FIX}")
        return self._scale, self._growth_tracker

    def _scale_tensor(self) -> Tensor:
        if self._scale is None:
            self._scale = framework.full((), self._init_scale, dtype=float32)
            self._growth_tracker = framework.full((), self._init_growth_tracker, dtype=int32)
        return self._scale

    @overload
    def scale(self, outputs: Tensor) -> Tensor: ...

    @overload
    def scale(self, outputs: list[Tensor]) -> list[Tensor]: ...

    @overload
    def scale(self, outputs: tuple[Tensor, ...]) -> tuple[Tensor, ...]: ...

    @overload
    def scale(self, outputs: Iterable[Tensor]) -> Iterable[Tensor]: ...

    def scale(self, outputs: Tensor | Iterable[Tensor]) -> Tensor | Iterable[Tensor]:
        """`outputs` (a tensor, or nested lists/tuples/iterables of them) times the scale;
        unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs
        scaled: Tensor | Iterable[Tensor] = self._apply_scale(outputs)
        return scaled

    def _apply_scale(self, value: Any) -> Any:
        if isinstance(value, Tensor):
            return value * self._scale_tensor()
        if isinstance(value, Iterable):
            scaled = map(self._apply_scale, value)
            return type(value)(scaled) if isinstance(value, list | tuple) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(self, optimizer: Any, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool) -> None:
        by_dtype: defaultdict[Any, list[Tensor]] = defaultdict(list)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    by_dtype[grad.dtype].append(grad)
            for grads in by_dtype.values():
                framework._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale (once per step), noting infs/NaNs."""
        if not self._enabled:
            return
        scale, _ = self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal in float64, as PyTorch computes it.
        inv_scale = scale.double().reciprocal().float()
        found_inf = framework.full((), 0.0, dtype=float32)
        self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["found_inf_per_device"] = {scale.device: found_inf}
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, return_found_inf: bool = False, **kwargs: Any) -> Any:
        """Unscale the gradients (unless `unscale_` did) and run `optimizer.step(*args, **kwargs)`
        if none is inf/NaN; returns its result (and, with `return_found_inf`, whether one was)."""
        if not self._enabled:
            result = optimizer.step(*args, **kwargs)
            return (result, False) if return_found_inf else result
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        found_inf = any(v.item() for v in state["found_inf_per_device"].values())
        result = None if found_inf else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return (result, found_inf) if return_found_inf else result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back off the scale if a step found infs/NaNs, grow it after `growth_interval` clean
        steps, or set it to `new_scale`; then start a new iteration."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
            else:
                scale.fill_(new_scale)
        else:
            found_infs = [
                found
                for state in self._per_optimizer_states.values()
                for found in state["found_inf_per_device"].values()
            ]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for found in found_infs[1:]:
                combined = combined + found
            framework._amp_update_scale_(
                scale,
                growth_tracker,
                combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item().real)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item().real)

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when
        disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
