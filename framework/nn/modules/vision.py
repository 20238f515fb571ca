"""Vision and sequence layers: `CTCLoss`, `FractionalMaxPool2d`, `FractionalMaxPool3d`, `LPPool3d`,
the legacy `CrossMapLRN2d` (a custom autograd Function with PyTorch's own forward and backward
sums over channel windows) and the deprecated `NLLLoss2d` alias (PyTorch's constructor arguments,
defaults, buffers, warnings and reprs)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from framework._tensor import Tensor
from framework.nn import functional as F
from framework.nn._functional_vision import CrossMapLRN2d as _cross_map_lrn2d
from framework.nn.modules.loss import NLLLoss, _Loss
from framework.nn.modules.misc import _LPPoolNd
from framework.nn.modules.module import Module

__all__ = ["CTCLoss", "CrossMapLRN2d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool3d", "NLLLoss2d"]


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (F.ctc_loss) with a fixed blank label."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self,
        log_probs: Tensor,
        targets: Tensor,
        input_lengths: Tensor | Sequence[int],
        target_lengths: Tensor | Sequence[int],
    ) -> Tensor:
        return F.ctc_loss(
            log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction, self.zero_infinity
        )


class _FractionalMaxPoolNd(Module):
    _n = 2
    _random_samples: Tensor | None

    def __init__(
        self,
        kernel_size: int | Sequence[int],
        output_size: int | Sequence[int] | None = None,
        output_ratio: float | Sequence[float] | None = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        n = self._n
        name = type(self).__name__
        if n == 3 and (
            (isinstance(kernel_size, int) and kernel_size <= 0)
            or (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, n) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = F.fractional_max_pool3d if self._n == 3 else F.fractional_max_pool2d
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


def _tuple(value: Any, n: int) -> tuple[Any, ...]:
    """PyTorch's `_pair` / `_triple`: a sequence as a tuple, anything else repeated n times."""
    return tuple(value) if isinstance(value, Sequence) else (value,) * n


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-random, overlapping windows of (N, C, H, W) or (C, H, W) inputs,
    to an output size or ratio (F.fractional_max_pool2d)."""


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """FractionalMaxPool2d over (N, C, T, H, W) or (C, T, H, W) inputs (F.fractional_max_pool3d)."""

    _n = 3


class LPPool3d(_LPPoolNd):
    """3-d power-average pooling: (sum over each window of x^p)^(1/p)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (warns on construction)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
            "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CrossMapLRN2d(Module):
    """Legacy local response normalization across channels of (N, C, H, W) inputs:
    x (k + alpha / size * sum of x^2 over a window of channels)^-beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        result: Tensor = _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)
        return result

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
