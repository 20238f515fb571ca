"""Sample inputs of the entries of derivatives.yaml for grid sampling, affine grids, the CTC loss,
fractional max pooling and native_channel_shuffle (framework/ops/kernels/vision.py).

Grid points reach outside [-1, 1] so that every padding mode pads; random float64 points stay off
the pixel lattice, where the interpolations have kinks. _ctc_loss's gradient is PyTorch's, which
is only right through a log_softmax (its exp(log_probs) term cancels there): its samples take
log_softmax inside the call. Fractional pooling inputs have no ties. Tensors are small float64
ones."""

from __future__ import annotations

from collections.abc import Callable

from ad_sample import Sample
from ad_samples_nn import _distinct, _uniform

import framework


def _log_softmax(t: framework.Tensor) -> framework.Tensor:
    return t.log_softmax(2)


def _grid_sampler_2d_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(700, (2, 2, 3, 4)), _uniform(701, (2, 3, 2, 2), -1.3, 1.3), 0, 2, False),
            desc="bilinear, reflection",
        ),
        Sample(
            (_uniform(702, (1, 2, 4, 3)), _uniform(703, (1, 2, 3, 2), -1.2, 1.2), 2, 1, True),
            desc="bicubic, border",
        ),
        Sample(
            (_uniform(704, (1, 1, 3, 3)), _uniform(705, (1, 2, 2, 2), -1.2, 1.2), 1, 0, False),
            desc="nearest, zeros",
        ),
    ]


def _grid_sampler_3d_samples() -> list[Sample]:
    return [
        Sample(
            (_uniform(706, (1, 2, 2, 3, 3)), _uniform(707, (1, 2, 2, 1, 3), -1.2, 1.2), 0, 0, True),
            desc="bilinear, zeros",
        )
    ]


def _grid_sampler_backward_samples(spatial: int) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        input = _uniform(708, (1, 1, *([2] * spatial)))
        grid = _uniform(709, (1, *([2] * spatial), spatial), -1.1, 1.1)
        return [Sample((_uniform(710, (1, 1, *([2] * spatial))), input, grid, 0, 0, False, [True, True]))]

    return samples


def _affine_grid_samples() -> list[Sample]:
    return [
        Sample((_uniform(711, (2, 2, 3)), [2, 1, 3, 4], False), desc="2-d"),
        Sample((_uniform(712, (1, 3, 4)), [1, 1, 2, 2, 3], True), desc="3-d"),
    ]


def _detach_samples(t: framework.Tensor) -> framework.Tensor:
    """The random samples (the only 3-d floating input) as constants: PyTorch refuses samples
    that require grad."""
    return t.detach() if t.dim() == 3 else t


def _ctc_samples() -> list[Sample]:
    padded = framework.tensor([[1, 2, 2], [3, 1, 0]])
    return [
        Sample(
            (_uniform(713, (5, 2, 4)), padded, [5, 4], [3, 2], 0, False),
            desc="padded targets",
            prepare=_log_softmax,
        ),
        Sample(
            (_uniform(714, (4, 2, 3)), framework.tensor([1, 1, 0]), [4, 3], [2, 1], 2, True),
            desc="concatenated targets, blank 2, zero_infinity",
            prepare=_log_softmax,
        ),
    ]


def _ctc_tensor_samples() -> list[Sample]:
    lengths = framework.tensor([5, 4]), framework.tensor([3, 2])
    targets = framework.tensor([[1, 2, 2], [3, 1, 0]])
    return [Sample((_uniform(715, (5, 2, 4)), targets, *lengths, 0, False), prepare=_log_softmax)]


def _ctc_backward_samples() -> list[Sample]:
    log_probs = _uniform(716, (3, 1, 3)).log_softmax(2)
    targets = framework.tensor([[1, 2]])
    nll, alpha = framework._ctc_loss(log_probs, targets, [3], [2])
    return [Sample((_uniform(717, (1,)), log_probs, targets, [3], [2], nll, alpha, 0))]


def _ctc_backward_tensor_samples() -> list[Sample]:
    log_probs = _uniform(718, (3, 1, 3)).log_softmax(2)
    targets = framework.tensor([[1, 2]])
    nll, alpha = framework._ctc_loss(log_probs, targets, [3], [2])
    lengths = framework.tensor([3]), framework.tensor([2])
    return [Sample((_uniform(719, (1,)), log_probs, targets, *lengths, nll, alpha, 0))]


def _fractional_samples(n: int) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        sizes = (1, 2, 5, 6) if n == 2 else (2, 4, 5, 4)
        out = [3, 4] if n == 2 else [2, 3, 2]
        random = framework.rand(
            1, 2, n, generator=framework.Generator().manual_seed(720), dtype=framework.float64
        )
        return [Sample((_distinct(721, sizes), [2] * n, out, random), prepare=_detach_samples)]

    return samples


def _fractional_backward_samples(n: int) -> Callable[[], list[Sample]]:
    def samples() -> list[Sample]:
        sizes = (1, 2, 5, 6) if n == 2 else (2, 4, 5, 4)
        out = [3, 4] if n == 2 else [2, 3, 2]
        random = framework.rand(
            1, 2, n, generator=framework.Generator().manual_seed(722), dtype=framework.float64
        )
        x = _distinct(723, sizes)
        pool = getattr(framework, f"fractional_max_pool{n}d")
        _, indices = pool(x, [2] * n, out, random)
        return [Sample((_uniform(724, tuple(indices.shape)), x, [2] * n, out, indices))]

    return samples


def _native_channel_shuffle_samples() -> list[Sample]:
    return [Sample((_uniform(725, (1, 4, 2)), 2))]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "grid_sampler_2d": _grid_sampler_2d_samples,
    "grid_sampler_3d": _grid_sampler_3d_samples,
    "grid_sampler_2d_backward": _grid_sampler_backward_samples(2),
    "grid_sampler_3d_backward": _grid_sampler_backward_samples(3),
    "affine_grid_generator": _affine_grid_samples,
    "_ctc_loss": _ctc_samples,
    "_ctc_loss.Tensor": _ctc_tensor_samples,
    "_ctc_loss_backward": _ctc_backward_samples,
    "_ctc_loss_backward.Tensor": _ctc_backward_tensor_samples,
    "fractional_max_pool2d": _fractional_samples(2),
    "fractional_max_pool3d": _fractional_samples(3),
    "fractional_max_pool2d_backward": _fractional_backward_samples(2),
    "fractional_max_pool3d_backward": _fractional_backward_samples(3),
    "native_channel_shuffle": _native_channel_shuffle_samples,
}

NO_GRADGRAD: dict[str, str] = {
    "grid_sampler_2d": "grid_sampler_2d_backward has no double backward here",
    "grid_sampler_3d": "grid_sampler_3d_backward has no double backward here",
    "_ctc_loss": "_ctc_loss_backward has no derivative in PyTorch",
    "_ctc_loss.Tensor": "_ctc_loss_backward has no derivative in PyTorch",
}
