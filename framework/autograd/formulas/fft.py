"""Backward formulas of the FFT primitives (PyTorch's fft_r2c_backward and fft_c2r_backward; the
gradient of _fft_c2c is the transform in the other direction, written in derivatives.yaml)."""

from __future__ import annotations

from collections.abc import Sequence

import framework
from framework._tensor import Tensor

__all__ = ["fft_c2r_backward", "fft_r2c_backward"]


def fft_r2c_backward(
    grad: Tensor, dim: Sequence[int], normalization: int, onesided: bool, last_dim_size: int
) -> Tensor:
    """Gradient of _fft_r2c: a onesided result is first zero-filled back to the full
    `last_dim_size` (the discarded half contributes nothing), then the inverse complex transform
    with the same normalization; the input was real, so the real part."""
    if onesided:
        ndim = grad.dim()
        last = dim[-1] % ndim
        pad = [0] * (2 * ndim)
        pad[2 * (ndim - 1 - last) + 1] = last_dim_size - grad.shape[last]
        if any(pad):
            grad = framework.ops.aten.constant_pad_nd.default(grad, pad)
    full: Tensor = framework.ops.aten._fft_c2c.default(grad, dim, normalization, False)
    return framework.real(full)


def fft_c2r_backward(grad: Tensor, dim: Sequence[int], normalization: int) -> Tensor:
    """Gradient of _fft_c2r: the onesided forward transform of `grad`, with the entries whose
    conjugate-symmetric partners the forward transform filled in (indices 1 .. n - n // 2 - 1 of
    the last dimension) counted twice."""
    half: Tensor = framework.ops.aten._fft_r2c.default(grad, dim, normalization, True)
    last = dim[-1] % grad.dim()
    doubled = grad.shape[last] - half.shape[last]
    if doubled <= 0:
        return half
    weight_shape = [1] * grad.dim()
    weight_shape[last] = half.shape[last]
    weight = framework.ones(half.shape[last], dtype=grad.dtype, device=grad.device)
    weight[1 : 1 + doubled] = 2
    return half * weight.reshape(weight_shape)
