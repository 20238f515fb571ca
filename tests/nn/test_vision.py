"""The vision and sequence ops (framework/ops/kernels/vision.py, framework/nn/_functional_vision.py,
framework/nn/modules/vision.py): grid_sample, affine_grid, ctc_loss, fractional max pooling,
lp_pool3d, the deprecated upsample wrappers, CrossMapLRN2d, NLLLoss2d and native_channel_shuffle.
Values against NumPy references (always: per-point sampling, CTC by enumerating every alignment,
windows by PyTorch's interval formula), argument errors with PyTorch's texts, warnings and reprs;
and, when PyTorch is importable, values, gradients and grad_fn names of the same calls against
PyTorch 2.13."""

from __future__ import annotations

import importlib.util
import itertools
import math
import re
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import framework
import framework.nn.functional as F
from framework import Tensor, nn

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch")
Array = npt.NDArray[Any]

_rng = np.random.default_rng(11)
IMAGE = _rng.standard_normal((2, 3, 4, 5))
GRID = _rng.uniform(-1.4, 1.4, (2, 3, 2, 2))
VOLUME = _rng.standard_normal((1, 2, 3, 4, 5))
GRID3 = _rng.uniform(-1.3, 1.3, (1, 2, 3, 2, 3))
MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}


def fw(a: Any, requires_grad: bool = False) -> Tensor:
    t = framework.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


# ---- grid_sample: NumPy reference, point by point -------------------------------------------------


def _source(coord: float, size: int, padding: str, align: bool) -> float:
    """One grid coordinate as a pixel coordinate inside the input (PyTorch's documented rules)."""
    x = (coord + 1) / 2 * (size - 1) if align else ((coord + 1) * size - 1) / 2
    return _pad(x, size, padding, align)


def _pad(x: float, size: int, padding: str, align: bool) -> float:
    if padding == "border":
        return min(max(x, 0.0), size - 1.0)
    if padding == "reflection":
        low, high = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        span = high - low
        if span == 0:
            return 0.0
        d = abs(x - low)
        flips, extra = divmod(d, span)
        x = low + extra if flips % 2 == 0 else high - extra
        return min(max(x, 0.0), size - 1.0)
    return x


def _pixel(plane: Array, y: float, x: float) -> float:
    h, w = plane.shape
    return float(plane[int(y), int(x)]) if 0 <= y < h and 0 <= x < w else 0.0


def _cubic(t: float) -> list[float]:
    a = -0.75

    def near(d: float) -> float:
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: float) -> float:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _grid_sample_2d(x: Array, grid: Array, mode: str, padding: str, align: bool) -> Array:
    n, c, h, w = x.shape
    out = np.zeros((n, c, *grid.shape[1:3]))
    for b, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        gx, gy = grid[b, i, j]
        for ch in range(c):
            plane = x[b, ch]
            if mode == "bicubic":
                px = (gx + 1) / 2 * (w - 1) if align else ((gx + 1) * w - 1) / 2
                py = (gy + 1) / 2 * (h - 1) if align else ((gy + 1) * h - 1) / 2
                x0, y0 = math.floor(px), math.floor(py)
                wx, wy = _cubic(px - x0), _cubic(py - y0)
                out[b, ch, i, j] = sum(
                    wx[p]
                    * wy[q]
                    * _pixel(plane, _pad(y0 - 1 + q, h, padding, align), _pad(x0 - 1 + p, w, padding, align))
                    for p in range(4)
                    for q in range(4)
                )
                continue
            sx, sy = _source(gx, w, padding, align), _source(gy, h, padding, align)
            if mode == "nearest":
                out[b, ch, i, j] = _pixel(plane, np.rint(sy), np.rint(sx))
                continue
            x0, y0 = math.floor(sx), math.floor(sy)
            fx, fy = sx - x0, sy - y0
            out[b, ch, i, j] = (
                _pixel(plane, y0, x0) * (1 - fx) * (1 - fy)
                + _pixel(plane, y0, x0 + 1) * fx * (1 - fy)
                + _pixel(plane, y0 + 1, x0) * (1 - fx) * fy
                + _pixel(plane, y0 + 1, x0 + 1) * fx * fy
            )
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d_matches_numpy(mode: str, padding_mode: str, align_corners: bool) -> None:
    out = F.grid_sample(fw(IMAGE), fw(GRID), mode, padding_mode, align_corners)
    expected = _grid_sample_2d(IMAGE, GRID, mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_grid_sample_identity_grid_and_affine_grid() -> None:
    theta = fw([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2)
    grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners=False)
    xs, ys = (np.arange(5) * 2 + 1) / 5 - 1, (np.arange(4) * 2 + 1) / 4 - 1
    np.testing.assert_allclose(grid.numpy()[0, ..., 0], np.broadcast_to(xs, (4, 5)), rtol=1e-12)
    np.testing.assert_allclose(grid.numpy()[1, ..., 1], np.broadcast_to(ys[:, None], (4, 5)), rtol=1e-12)
    np.testing.assert_allclose(F.grid_sample(fw(IMAGE), grid, align_corners=False).numpy(), IMAGE, atol=1e-12)
    corners = F.affine_grid(fw(np.eye(3, 4)[None]), [1, 1, 2, 3, 4], align_corners=True)
    assert corners.shape == (1, 2, 3, 4, 3)
    np.testing.assert_allclose(corners.numpy()[0, :, 0, 0, 2], [-1.0, 1.0])
    np.testing.assert_allclose(corners.numpy()[0, 0, 0, :, 0], np.linspace(-1, 1, 4))


def test_grid_sample_3d_nearest_and_meta() -> None:
    grid = fw(np.zeros((1, 1, 1, 1, 3)))
    out = F.grid_sample(fw(VOLUME), grid, "nearest", align_corners=True)
    np.testing.assert_allclose(out.numpy()[0, :, 0, 0, 0], VOLUME[0, :, 1, 2, 2])
    # a NaN coordinate is clipped to 0 by border padding, as in PyTorch
    nan_grid = fw(np.array([np.nan, 0.0, 0.0]).reshape(1, 1, 1, 1, 3))
    border = F.grid_sample(fw(VOLUME), nan_grid, "nearest", "border", align_corners=True)
    np.testing.assert_allclose(border.numpy()[0, :, 0, 0, 0], VOLUME[0, :, 1, 2, 0])
    meta = F.grid_sample(
        framework.empty(2, 3, 4, 5, 6, device="meta"),
        framework.empty(2, 1, 2, 3, 3, device="meta"),
        align_corners=False,
    )
    assert meta.shape == (2, 3, 1, 2, 3) and meta.device.type == "meta"
    empty = F.grid_sample(fw(np.zeros((0, 3, 4, 5)), True), fw(np.zeros((0, 2, 2, 2))), align_corners=False)
    assert empty.shape == (0, 3, 2, 2)


def test_grid_sample_argument_errors() -> None:
    x, g = fw(IMAGE), fw(GRID)
    with pytest.raises(
        ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"
    ):
        F.grid_sample(x, g, "area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, g, padding_mode="wrap", align_corners=False)
    cases = [
        (
            x,
            fw(GRID[:1]),
            "expected grid and input to have same batch size, but got input with sizes [2, 3, 4, 5]",
        ),
        (x, fw(GRID3[..., :3].repeat(2, 0)), "expected grid to have size 2 in last dimension"),
        (fw(np.zeros((2, 3, 0, 5))), g, "with dimension 2 being empty"),
        (
            fw(VOLUME),
            fw(GRID3[..., :2].reshape(1, 2, 3, 2, 2)),
            "expected grid to have size 3 in last dimension",
        ),
        (x, g.float(), "expected scalar type Double but found Float"),
        (x.int(), g.int(), "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Int'"),
    ]
    for input, grid, message in cases:
        with pytest.raises(RuntimeError, match=re.escape(message)):
            F.grid_sample(input, grid, align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(fw(VOLUME), fw(GRID3), "bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected 5D input and grid with same number of dimensions"):
        framework.grid_sampler_3d(x, g, 0, 0, False)


def test_affine_grid_errors_and_warnings() -> None:
    theta = fw(np.zeros((2, 2, 3)))
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.affine_grid(theta, [2, 1, 3, 4])
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.grid_sample(fw(IMAGE), fw(GRID))
    with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size grids"):
        F.affine_grid(theta, [2, 1, 1, 4], align_corners=True)
    with pytest.raises(
        ValueError, match=re.escape("Expected theta to have floating point type, but got framework.int64")
    ):
        F.affine_grid(theta.long(), [2, 1, 3, 4], align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3"):
        F.affine_grid(fw(np.zeros((2, 3, 4))), [2, 1, 3, 4], align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 3D affine matrices of shape Nx3x4"):
        F.affine_grid(theta, [2, 1, 3, 4, 5], align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(theta, [2, 1, 3], align_corners=False)
    with pytest.raises(ValueError, match="Expected non-zero, positive output size"):
        F.affine_grid(theta, [2, 1, 0, 4], align_corners=False)
    with pytest.raises(
        RuntimeError, match=r"AffineGridGenerator needs 4d \(spatial\) or 5d \(volumetric\) inputs."
    ):
        framework.affine_grid_generator(theta, [2, 1, 3], False)


@needs_torch
@pytest.mark.parametrize(
    ("spatial", "mode", "padding_mode", "align_corners"),
    [
        (2, "bilinear", "reflection", False),
        (2, "bicubic", "border", True),
        (2, "bicubic", "reflection", False),
        (2, "nearest", "zeros", True),
        (3, "bilinear", "reflection", True),
        (3, "nearest", "border", False),
    ],
)
def test_grid_sample_against_torch(spatial: int, mode: str, padding_mode: str, align_corners: bool) -> None:
    import torch

    x, g = (IMAGE, GRID) if spatial == 2 else (VOLUME, GRID3)
    grid = g.copy()
    ours_x, ours_g = fw(x, True), fw(grid, True)
    theirs_x, theirs_g = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    ours = F.grid_sample(ours_x, ours_g, mode, padding_mode, align_corners)
    theirs = torch.nn.functional.grid_sample(theirs_x, theirs_g, mode, padding_mode, align_corners)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert ours.grad_fn is not None and theirs.grad_fn is not None
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    seed = _rng.standard_normal(tuple(ours.shape))
    ours.backward(fw(seed))
    theirs.backward(torch.tensor(seed))
    assert ours_x.grad is not None and ours_g.grad is not None
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours_g.grad.numpy(), theirs_g.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_affine_grid_against_torch() -> None:
    import torch

    theta = _rng.standard_normal((2, 3, 4)).astype(np.float32)
    ours = F.affine_grid(fw(theta), [2, 1, 2, 3, 4], align_corners=False)
    theirs = torch.nn.functional.affine_grid(torch.tensor(theta), [2, 1, 2, 3, 4], align_corners=False)
    assert ours.dtype == framework.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


# ---- ctc_loss: NumPy reference by enumerating alignments ----------------------------------------


def _ctc_nll(log_probs: Array, target: list[int], blank: int) -> float:
    """-log of the total probability of every alignment (one label per step) that collapses
    (merge repeats, drop blanks) to `target`."""
    steps, labels = log_probs.shape
    total = 0.0
    for path in itertools.product(range(labels), repeat=steps):
        merged = [p for i, p in enumerate(path) if i == 0 or p != path[i - 1]]
        if [p for p in merged if p != blank] == target:
            total += math.exp(sum(log_probs[t, p] for t, p in enumerate(path)))
    return -math.log(total) if total else math.inf


CTC_LOGITS = _rng.standard_normal((4, 3, 3))


def _log_softmax(a: Array) -> Array:
    shifted = a - a.max(axis=-1, keepdims=True)
    out: Array = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return out


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_matches_enumeration(blank: int) -> None:
    log_probs = _log_softmax(CTC_LOGITS)
    labels = [c for c in range(3) if c != blank]
    targets = [[labels[0], labels[1]], [labels[0], labels[0]], [labels[1], labels[0]]]
    lengths = [2, 2, 1]
    inputs = [4, 4, 3]
    padded = fw(np.array(targets))
    out = F.ctc_loss(fw(log_probs), padded, inputs, lengths, blank=blank, reduction="none")
    expected = [_ctc_nll(log_probs[: inputs[b], b], targets[b][: lengths[b]], blank) for b in range(3)]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    concatenated = fw(np.array([t for b in range(3) for t in targets[b][: lengths[b]]]))
    mean = F.ctc_loss(fw(log_probs), concatenated, fw(inputs), fw(lengths), blank=blank)
    np.testing.assert_allclose(mean.item(), np.mean(np.array(expected) / lengths), rtol=1e-12)
    total = nn.CTCLoss(blank=blank, reduction="sum")(fw(log_probs), padded, inputs, lengths)
    np.testing.assert_allclose(total.item(), sum(expected), rtol=1e-12)


def test_ctc_loss_infinite_and_empty_cases() -> None:
    log_probs = fw(_log_softmax(CTC_LOGITS), True)
    targets = fw(np.array([[1, 1, 1], [1, 2, 0], [2, 2, 2]]))
    # two repeated labels need a blank between them: 3 steps cannot emit 1, 1, 1
    out = F.ctc_loss(log_probs, targets, [3, 0, 4], [3, 0, 1], reduction="none")
    assert math.isinf(out[0].item()) and out[1].item() == 0.0
    zeroed = F.ctc_loss(log_probs, targets, [3, 0, 4], [3, 0, 1], reduction="none", zero_infinity=True)
    assert (
        zeroed[0].item() == 0.0 and zeroed.grad_fn is not None and zeroed.grad_fn.name() == "WhereBackward0"
    )
    zeroed.sum().backward()
    assert log_probs.grad is not None
    assert np.all(log_probs.grad.numpy()[:, 0] == 0) and np.all(log_probs.grad.numpy()[:, 1] == 0)
    unbatched = F.ctc_loss(
        fw(_log_softmax(CTC_LOGITS[:, 0])), fw(np.array([1])), fw(4), fw(1), reduction="none"
    )
    assert unbatched.shape == ()
    meta = framework._ctc_loss(
        framework.empty(4, 3, 3, device="meta"), targets.to("meta"), [3, 2, 4], [3, 0, 1]
    )
    assert meta[0].shape == (3,) and meta[1].shape == (3, 4, 7)


def test_ctc_loss_argument_errors() -> None:
    log_probs = fw(_log_softmax(CTC_LOGITS))
    targets = fw(np.array([[1, 2], [2, 1], [1, 1]]))
    check = r" \(while checking arguments for ctc_loss_allocate_outputs\)"
    cases: list[tuple[Any, ...]] = [
        (
            (log_probs, targets, [4, 4, 5], [2, 2, 2]),
            "Expected input_lengths to have value at most 4, but got value 5" + check,
        ),
        (
            (log_probs, targets, [4, -1, 4], [2, 2, 2]),
            "Expected input_lengths to have value at least 0, but got value -1",
        ),
        (
            (log_probs, targets, [4, 4, 4], [2, 3, 2]),
            "Expected tensor to have size at least 3 at dimension 1, but got size 2",
        ),
        ((log_probs, targets, [4, 4], [2, 2, 2]), "input_lengths must be of size batch_size"),
        ((log_probs, targets, [4, 4, 4], [2, 2]), "target_lengths must be of size batch_size"),
        (
            (log_probs, fw(np.array([1, 2, 1])), [4, 4, 4], [2, 2, 2]),
            "Expected tensor to have size 6 at dimension 0, but got size 3",
        ),
        (
            (log_probs, targets[None], [4, 4, 4], [2, 2, 2]),
            "Expected 1 to 2 dimensions, but got 3-dimensional tensor",
        ),
    ]
    for args, message in cases:
        with pytest.raises(RuntimeError, match=message):
            F.ctc_loss(*args)
    with pytest.raises(RuntimeError, match="log_probs tensor must not be empty"):
        F.ctc_loss(fw(np.zeros((3, 0, 3))), fw(np.zeros((0, 2), np.int64)), [], [])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(log_probs, targets, [4, 4, 4], [2, 2, 2], blank=3)
    with pytest.raises(RuntimeError, match="input_lengths must be integral"):
        F.ctc_loss(log_probs, targets, fw([4.0, 4.0, 4.0]), fw([2, 2, 2]))
    with pytest.raises(NotImplementedError, match="\"ctc_loss_cpu\" not implemented for 'Half'"):
        F.ctc_loss(log_probs.half(), targets, [4, 4, 4], [2, 2, 2])
    with pytest.raises(
        RuntimeError, match=re.escape("'targets' to have scalar type Int; but got torch.DoubleTensor")
    ):
        framework._ctc_loss(log_probs, targets.double(), [4, 4, 4], [2, 2, 2])
    with pytest.raises(ValueError, match="sum_all is not a valid value for reduction"):
        F.ctc_loss(log_probs, targets, [4, 4, 4], [2, 2, 2], reduction="sum_all")


@needs_torch
@pytest.mark.parametrize("lengths_as_tensors", [False, True])
def test_ctc_loss_against_torch(lengths_as_tensors: bool) -> None:
    import torch

    logits = _rng.standard_normal((7, 3, 5))
    targets = np.array([3, 1, 1, 4, 2, 2, 2, 1])
    inputs, lengths = [7, 6, 7], [3, 0, 5]
    ours_in, theirs_in = fw(logits, True), torch.tensor(logits, requires_grad=True)
    if lengths_as_tensors:
        ours = F.ctc_loss(ours_in.log_softmax(2), fw(targets), fw(inputs), fw(lengths), zero_infinity=True)
        theirs = torch.nn.functional.ctc_loss(
            theirs_in.log_softmax(2),
            torch.tensor(targets),
            torch.tensor(inputs),
            torch.tensor(lengths),
            zero_infinity=True,
        )
    else:
        ours = F.ctc_loss(ours_in.log_softmax(2), fw(targets), inputs, lengths, blank=0)
        theirs = torch.nn.functional.ctc_loss(
            theirs_in.log_softmax(2), torch.tensor(targets), inputs, lengths, blank=0
        )
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-12)
    ours.backward()
    theirs.backward()
    assert ours_in.grad is not None and theirs_in.grad is not None
    np.testing.assert_allclose(ours_in.grad.numpy(), theirs_in.grad.numpy(), rtol=1e-10, atol=1e-12)
    raw = framework._ctc_loss(fw(_log_softmax(logits), True), fw(targets), inputs, lengths)
    assert raw[0].grad_fn is not None and raw[0].grad_fn.name() == "CtcLossBackward0"
    assert not raw[1].requires_grad


# ---- fractional max pooling ---------------------------------------------------------------------


def _intervals(u: float, size: int, out: int, pool: int) -> list[int]:
    alpha = (size - pool) / (out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - pool]


def test_fractional_max_pool2d_matches_windows() -> None:
    x = _rng.permutation(2 * 3 * 9 * 10).reshape(2, 3, 9, 10).astype(np.float64)
    samples = _rng.uniform(0, 1, (2, 3, 2))
    out, indices = F.fractional_max_pool2d(
        fw(x), (3, 2), output_size=(4, 5), return_indices=True, _random_samples=fw(samples)
    )
    for b, c in itertools.product(range(2), range(3)):
        rows = _intervals(samples[b, c, 1], 9, 4, 3)
        cols = _intervals(samples[b, c, 0], 10, 5, 2)
        expected = [[x[b, c, r : r + 3, s : s + 2].max() for s in cols] for r in rows]
        np.testing.assert_array_equal(out.numpy()[b, c], expected)
        np.testing.assert_array_equal(x[b, c].ravel()[indices.numpy()[b, c]], expected)
    assert indices.dtype == framework.int64


def test_fractional_max_pool_draws_samples_from_the_generator() -> None:
    x = fw(_rng.standard_normal((2, 3, 8, 9)).astype(np.float32))
    framework.manual_seed(4)
    first = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5))
    framework.manual_seed(4)
    samples = framework.rand(2, 3, 2, dtype=framework.float32)
    second = F.fractional_max_pool2d(x, 2, output_size=(4, 4), _random_samples=samples)
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    volume = fw(_rng.standard_normal((3, 6, 7, 8)))
    pool = nn.FractionalMaxPool3d(2, output_ratio=0.5, return_indices=True)
    values, indices = pool(volume)
    assert values.shape == (3, 3, 3, 4) and indices.shape == (3, 3, 3, 4)
    np.testing.assert_array_equal(
        volume.numpy().reshape(3, -1)[np.arange(3)[:, None], indices.numpy().reshape(3, -1)],
        values.numpy().reshape(3, -1),
    )


def test_fractional_max_pool_errors_and_modules() -> None:
    x, samples = fw(np.zeros((2, 3, 7, 8))), fw(np.zeros((2, 3, 2)))
    with pytest.raises(
        ValueError, match="fractional_max_pool2d requires specifying either an output_size or an output_ratio"
    ):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(
        RuntimeError, match="fractional_max_pool2d\\(\\): pool height 5 too large relative to input height 7"
    ):
        F.fractional_max_pool2d(x, (5, 2), (4, 4), _random_samples=samples)
    with pytest.raises(RuntimeError, match=re.escape("Expect _random_samples.size(2) equals to 2; got 3.")):
        F.fractional_max_pool2d(x, 2, (4, 4), _random_samples=fw(np.zeros((2, 3, 3))))
    with pytest.raises(RuntimeError, match="Expect _random_samples to have the same dtype as input"):
        F.fractional_max_pool2d(x, 2, (4, 4), _random_samples=samples.float())
    with pytest.raises(
        RuntimeError, match=re.escape("Expect _random_samples.size(0) no less then input batch size.")
    ):
        F.fractional_max_pool2d(x, 2, (4, 4), _random_samples=samples[:1])
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor, but got: \\[7, 8\\]"):
        F.fractional_max_pool2d(x[0, 0], 2, (4, 4), _random_samples=samples)
    with pytest.raises(
        RuntimeError, match="fractional_max_pool3d_out\\(\\): pool time 2 too large relative to input time 5"
    ):
        F.fractional_max_pool3d(fw(np.zeros((1, 5, 6, 7))), 2, (4, 3, 3))
    with pytest.raises(
        ValueError, match="FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"
    ):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="kernel_size must be greater than 0, but got 0"):
        nn.FractionalMaxPool3d(0, output_size=2)
    assert repr(nn.FractionalMaxPool2d(2, output_ratio=0.5)) == "FractionalMaxPool2d()"
    meta = framework.fractional_max_pool2d(
        framework.empty(2, 3, 7, 8, device="meta"), [2, 2], [3, 4], framework.empty(2, 3, 2, device="meta")
    )
    assert meta[0].shape == (2, 3, 3, 4) and meta[1].dtype == framework.int64


@needs_torch
@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_against_torch(n: int) -> None:
    import torch

    shape = (2, 3, 9, 10) if n == 2 else (2, 6, 7, 8)
    x = _rng.standard_normal(shape).astype(np.float32)
    torch.manual_seed(9)
    framework.manual_seed(9)
    ours_in, theirs_in = fw(x, True), torch.tensor(x, requires_grad=True)
    ratio = (0.5,) * n
    ours = getattr(F, f"fractional_max_pool{n}d")(ours_in, 2, output_ratio=ratio, return_indices=True)
    theirs = getattr(torch.nn.functional, f"fractional_max_pool{n}d")(
        theirs_in, 2, output_ratio=ratio, return_indices=True
    )
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    np.testing.assert_array_equal(ours[0].detach().numpy(), theirs[0].detach().numpy())
    assert ours[0].grad_fn is not None and ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    ours[0].sum().backward()
    theirs[0].sum().backward()
    assert ours_in.grad is not None and theirs_in.grad is not None
    np.testing.assert_array_equal(ours_in.grad.numpy(), theirs_in.grad.numpy())


# ---- lp_pool3d, upsample wrappers, native_channel_shuffle, CrossMapLRN2d, NLLLoss2d ----------------


def test_lp_pool3d_matches_numpy() -> None:
    x = np.abs(_rng.standard_normal((1, 2, 4, 4, 6)))
    out = F.lp_pool3d(fw(x), 2.0, (2, 2, 3))
    windows = x.reshape(1, 2, 2, 2, 2, 2, 2, 3).transpose(0, 1, 2, 4, 6, 3, 5, 7).reshape(1, 2, 2, 2, 2, -1)
    np.testing.assert_allclose(out.numpy(), np.sqrt((windows**2).sum(-1)), rtol=1e-12)
    layer = nn.LPPool3d(float("inf"), 2, stride=2)
    np.testing.assert_allclose(
        layer(fw(x)).numpy(), x.reshape(1, 2, 2, 2, 2, 2, 3, 2).max(axis=(3, 5, 7)), rtol=1e-12
    )
    assert repr(layer) == "LPPool3d(norm_type=inf, kernel_size=2, stride=2, ceil_mode=False)"


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_wrappers_warn_and_interpolate(name: str) -> None:
    x = fw(IMAGE)
    with pytest.warns(
        UserWarning, match=f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead."
    ):
        out = getattr(F, name)(x, scale_factor=2)
    mode = "bilinear" if name == "upsample_bilinear" else "nearest"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = F.interpolate(
            x, scale_factor=2, mode=mode, align_corners=True if mode == "bilinear" else None
        )
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_native_channel_shuffle() -> None:
    x = fw(np.arange(12.0).reshape(1, 6, 2), True)
    out = F.native_channel_shuffle(x, 3)
    np.testing.assert_array_equal(out.detach().numpy()[0, :, 0], [0, 4, 8, 2, 6, 10])
    assert out.grad_fn is not None and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::native_channel_shuffle is not implemented"):
        out.sum().backward()
    with pytest.raises(
        RuntimeError,
        match=re.escape("Number of channels must be divisible by groups. Got 6 channels and 4 groups."),
    ):
        F.native_channel_shuffle(x, 4)


def test_cross_map_lrn2d_single_window() -> None:
    # with size >= 2 * channels every channel's window holds all channels
    x = _rng.standard_normal((2, 3, 2, 2))
    layer = nn.CrossMapLRN2d(7, alpha=0.1, beta=0.5, k=2.0)
    expected = x * (2.0 + 0.1 / 7 * (x**2).sum(axis=1, keepdims=True)) ** -0.5
    np.testing.assert_allclose(layer(fw(x)).numpy(), expected, rtol=1e-12)
    assert repr(layer) == "CrossMapLRN2d(7, alpha=0.1, beta=0.5, k=2.0)"
    with pytest.raises(
        ValueError, match=re.escape("CrossMapLRN2d: Expected input to be 4D, got 3D instead.")
    ):
        layer(fw(x[0]))


@needs_torch
def test_cross_map_lrn2d_against_torch() -> None:
    import torch

    x = _rng.standard_normal((2, 7, 3, 2))
    ours_in, theirs_in = fw(x, True), torch.tensor(x, requires_grad=True)
    ours = nn.CrossMapLRN2d(3, alpha=0.2, beta=0.7)(ours_in)
    theirs = torch.nn.CrossMapLRN2d(3, alpha=0.2, beta=0.7)(theirs_in)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert (
        ours.grad_fn is not None and ours.grad_fn.name() == theirs.grad_fn.name() == "CrossMapLRN2dBackward"
    )
    seed = _rng.standard_normal(x.shape)
    ours.backward(fw(seed))
    theirs.backward(torch.tensor(seed))
    assert ours_in.grad is not None and theirs_in.grad is not None
    np.testing.assert_allclose(ours_in.grad.numpy(), theirs_in.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_nll_loss2d_is_a_deprecated_nll_loss() -> None:
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead"):
        loss = nn.NLLLoss2d(ignore_index=1)
    assert isinstance(loss, nn.NLLLoss) and loss.ignore_index == 1
    x, t = (
        fw(_log_softmax(IMAGE.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)),
        fw(np.zeros((2, 4, 5), np.int64)),
    )
    np.testing.assert_allclose(loss(x, t).item(), F.nll_loss(x, t, ignore_index=1).item())
