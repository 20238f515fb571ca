"""The 784-256-10 ReLU MLP with cross-entropy, forward and backward written by hand in NumPy: the
floor any NumPy-backed framework is measured against (shared by autograd.py and training.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


def loss_and_grads(
    x: Array, y: Array, w1: Array, b1: Array, w2: Array, b2: Array
) -> tuple[float, Array, Array, Array, Array]:
    """The mean cross-entropy and the gradients of w1, b1, w2, b2 (weights laid out as PyTorch's
    Linear: (out_features, in_features))."""
    n = x.shape[0]
    rows = np.arange(n)
    h_pre = x @ w1.T + b1
    h = np.maximum(h_pre, 0)
    logits = h @ w2.T + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = float((np.log(total[:, 0]) - shifted[rows, y]).mean())
    d_logits = exp / total
    d_logits[rows, y] -= 1
    d_logits /= n
    d_h = (d_logits @ w2) * (h_pre > 0)
    return loss, d_h.T @ x, d_h.sum(axis=0), d_logits.T @ h, d_logits.sum(axis=0)
