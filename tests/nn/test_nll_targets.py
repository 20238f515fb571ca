"""nll_loss_forward and nll_loss_backward on both sides of their shortcut for targets that are all
in range and none ignored (no per-row mask): ignore_index inside or outside the classes, present
or not, Byte targets, and targets out of range, against NumPy and PyTorch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import framework

A: Any = framework.ops.aten
CLASSES = 4
LOG_PROBS = np.random.default_rng(7).uniform(-3.0, 0.0, (6, CLASSES))

TARGET_CASES = [
    (np.array([1, 0, 3, 2, 2, 1]), -100),  # none ignored, ignore_index outside the classes
    (np.array([1, 0, 3, 2, 2, 1]), 0),  # ignore_index a class, present
    (np.array([1, 3, 3, 2, 2, 1]), 0),  # ignore_index a class, absent
    (np.array([1, -100, 3, 2, -100, 1]), -100),  # ignore_index outside the classes, present
    (np.array([1, 0, 3, 2, 2, 1], dtype=np.uint8), 2),  # Byte targets
]


def expected_losses(
    target: npt.NDArray[Any], ignore_index: int, weight: npt.NDArray[np.float64] | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per-row losses and per-row target weights (0 where ignored), in float64."""
    kept = target.astype(np.int64) != ignore_index
    index = np.where(kept, target, 0)
    weights = np.where(kept, 1.0 if weight is None else weight[index], 0.0)
    return -weights * LOG_PROBS[np.arange(len(target)), index], weights


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("target", "ignore_index"), TARGET_CASES)
def test_nll_loss_with_and_without_ignored_targets(
    dtype: Any, weighted: bool, target: npt.NDArray[Any], ignore_index: int
) -> None:
    x = framework.from_numpy(LOG_PROBS.astype(dtype))
    t = framework.from_numpy(target)
    weight_values = np.array([0.5, 1.5, 2.0, 0.75]) if weighted else None
    weight = None if weight_values is None else framework.from_numpy(weight_values.astype(dtype))
    losses, weights = expected_losses(target, ignore_index, weight_values)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    for reduction, value in ((0, losses), (1, losses.sum() / weights.sum()), (2, losses.sum())):
        out, total_weight = A.nll_loss_forward(x, t, weight, reduction, ignore_index)
        assert out.dtype is total_weight.dtype is x.dtype
        np.testing.assert_allclose(out.numpy(), value, rtol=rtol)
        if reduction:
            assert total_weight.item() == pytest.approx(weights.sum())
        scale = np.linspace(0.5, 2.0, len(target)) if reduction == 0 else np.array(1.25)
        grad = A.nll_loss_backward(
            framework.from_numpy(scale.astype(dtype)), x, t, weight, reduction, ignore_index, total_weight
        )
        expected_grad = np.zeros(LOG_PROBS.shape)
        rows = np.arange(len(target))
        index = np.where(weights != 0, target, 0).astype(np.int64)
        expected_grad[rows, index] = -weights * scale / (weights.sum() if reduction == 1 else 1.0)
        np.testing.assert_allclose(grad.numpy(), expected_grad, rtol=rtol)


@pytest.mark.parametrize(
    ("target", "ignore_index", "bad"),
    [
        (np.array([1, 0, -1, 2, 2, 1]), -100, -1),
        (np.array([1, 0, -100, 2, 4, 1]), -100, 4),
        (np.array([1, 0, -100, -3, 2, 1]), 0, -100),
        (np.array([1, 7, 3, 2, 2, 1], dtype=np.uint8), -100, 7),
    ],
)
def test_nll_loss_target_out_of_bounds(target: npt.NDArray[Any], ignore_index: int, bad: int) -> None:
    x, t = framework.from_numpy(LOG_PROBS), framework.from_numpy(target)
    total_weight = framework.from_numpy(np.array(1.0))
    with pytest.raises(IndexError, match=f"^Target {bad} is out of bounds.$"):
        A.nll_loss_forward(x, t, None, 1, ignore_index)
    with pytest.raises(IndexError, match=f"^Target {bad} is out of bounds.$"):
        A.nll_loss_backward(framework.from_numpy(np.array(1.0)), x, t, None, 1, ignore_index, total_weight)
