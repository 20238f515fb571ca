"""Helpers shared by the distributions, as `torch.distributions.utils`: broadcasting of parameters,
standard-normal noise, conversions between probabilities and logits, and `lazy_property`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import update_wrapper
from typing import Any, Final, Generic, TypeVar, overload

import framework
from framework._size import Size
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as _dtype
from framework.nn import functional as F
from framework.ops._iter import broadcast_all as _broadcast_all_shapes

euler_constant: Final[float] = 0.57721566490153286060  # Euler-Mascheroni constant

#: The Python number types PyTorch's distributions accept in place of a tensor parameter.
_Number: Final[tuple[type, ...]] = (int, float, bool)

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "euler_constant",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
]


class _GivenParam:
    """`_new` and `param_shape` of a distribution that keeps its given parameter tensor (probs or
    logits) as `_param`."""

    _param: Tensor

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


def broadcast_all(*values: Tensor | float) -> tuple[Tensor, ...]:
    """Broadcast tensors and Python numbers to one shape, as `torch.distributions.utils.broadcast_all`:
    numbers become tensors of the first tensor's dtype (or the default dtype when none is a tensor);
    a tensor already of the broadcast shape is returned as is, others are expanded views."""
    if not all(isinstance(v, (Tensor, *_Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else framework.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else framework.tensor(v, dtype=dtype) for v in values]
    shape = _broadcast_all_shapes([t.shape for t in tensors])
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def _batch_shape(given: Sequence[Tensor | float], param: Tensor) -> Size:
    """The batch shape of a distribution built from parameters `given` and broadcast to `param`:
    empty when all were Python numbers, else `param`'s size."""
    return Size() if all(isinstance(v, _Number) for v in given) else param.size()


def _standard_normal(shape: Sequence[int], dtype: _dtype | None, device: Device | None) -> Tensor:
    """A tensor of `shape` filled by `normal_()`, the draw PyTorch's reparameterized samplers use."""
    return framework.empty(list(shape), dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the `dim` rightmost dimensions of `value` (no-op for `dim == 0`)."""
    if dim == 0:
        return value
    return value.reshape((*Size(value.shape[: value.dim() - dim]), -1)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: sigmoid for binary (Bernoulli) logits, else softmax over the last
    dimension."""
    if is_binary:
        return framework.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into `[eps, 1 - eps]` of their dtype."""
    eps = framework.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from (clamped) probabilities: `log(p) - log1p(-p)` for binary ones, else `log(p)`."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return framework.log(ps_clamped) - framework.log1p(-ps_clamped)
    return framework.log(ps_clamped)


T = TypeVar("T")
R = TypeVar("R")


class lazy_property(Generic[T, R]):
    """A property computed (with grad enabled) on first access and then stored as an instance
    attribute of the same name; a distribution given `probs` computes `logits` this way and the
    other way round."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> lazy_property[T, R]: ...

    @overload
    def __get__(self, instance: T, obj_type: Any = None) -> R: ...

    def __get__(self, instance: T | None, obj_type: Any = None) -> R | lazy_property[T, R]:
        if instance is None:
            return self
        with framework.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
