"""framework.fft: the transforms against numpy.fft (values, dtypes, shapes, norms, n/s/dim),
PyTorch's argument errors, out=, the meta device, fftfreq/rfftfreq/fftshift/ifftshift, and live
against PyTorch (values, grad_fn names and gradients) when it is installed."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")

NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
ALL_NAMES = NAMES + [f"{n}2" for n in NAMES] + [f"{n}n" for n in NAMES]
NORMS = [None, "backward", "ortho", "forward"]
_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}
COMPLEX_INPUT = {"irfft", "hfft"}
"""Transforms whose natural input is complex (the others run on real input here; fft and ifft
also on complex)."""


def _numpy(name: str) -> Callable[..., Any]:
    """numpy.fft's counterpart of a transform; the 2-d and n-d Hermitian ones, which NumPy lacks,
    through their identities with irfftn and rfftn (norm directions swapped)."""
    if name in ("hfft2", "hfftn"):
        return lambda a, s, axes, norm: np.fft.irfftn(np.conj(a), s, axes, norm=_SWAP[norm])
    if name in ("ihfft2", "ihfftn"):
        return lambda a, s, axes, norm: np.conj(np.fft.rfftn(a, s, axes, norm=_SWAP[norm]))
    return getattr(np.fft, name)


def _input(name: str, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((4, 6))
    if name.rstrip("2").removesuffix("n") in COMPLEX_INPUT or dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal((4, 6))
    return values.astype({"float32": np.float32, "complex64": np.complex64}.get(dtype, values.dtype))


def _call(
    name: str, values: np.ndarray, norm: str | None, sizes: Any = None, axes: Any = None
) -> tuple[Any, Tensor]:
    """(numpy's result, framework's result) of one transform."""
    kwargs: dict[str, Any] = {"norm": norm}
    one_dim = name in NAMES
    if sizes is not None:
        kwargs["n" if one_dim else "s"] = sizes
    if axes is not None:
        kwargs["dim"] = axes
    ours = getattr(framework.fft, name)(framework.from_numpy(values.copy()), **kwargs)
    if one_dim:
        expected = _numpy(name)(values, sizes, -1 if axes is None else axes, norm=norm)
    else:
        default_axes = (-2, -1) if name.endswith("2") else None
        expected = _numpy(name)(values, sizes, default_axes if axes is None else axes, norm)
    return expected, ours


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("norm", NORMS)
def test_values_against_numpy(name: str, norm: str | None) -> None:
    values = _input(name, "float64")
    expected, ours = _call(name, values, norm)
    assert ours.dtype == (framework.float64 if np.isrealobj(expected) else framework.complex128)
    assert tuple(ours.shape) == expected.shape
    np.testing.assert_allclose(ours.resolve_conj().numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_sizes_and_dims(name: str) -> None:
    values = _input(name, "float64", seed=1)
    one_dim = name in NAMES
    for sizes, axes in ([5, 0] if one_dim else [(3, 7), (0, 1)], [8, 1] if one_dim else [(5, 2), (1, 0)]):
        expected, ours = _call(name, values, "ortho", sizes, axes)
        assert tuple(ours.shape) == expected.shape
        np.testing.assert_allclose(ours.resolve_conj().numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "ihfft", "fftn", "irfftn", "hfft2"])
def test_single_precision_and_promotion(name: str) -> None:
    values = _input(name, "float32" if name not in ("irfft", "irfftn", "hfft2") else "complex64")
    expected, ours = _call(name, values, None)
    assert ours.dtype == (framework.float32 if np.isrealobj(expected) else framework.complex64)
    np.testing.assert_allclose(ours.resolve_conj().numpy(), expected, rtol=1e-5, atol=1e-5)
    integers = framework.arange(6).reshape(2, 3)
    assert getattr(framework.fft, name)(integers).dtype in (framework.float32, framework.complex64)
    framework.set_default_dtype(framework.float64)
    try:
        assert getattr(framework.fft, name)(integers).dtype in (framework.float64, framework.complex128)
    finally:
        framework.set_default_dtype(framework.float32)


def test_complex_input_of_fft_and_ifft() -> None:
    values = _input("fft", "complex128")
    for name in ("fft", "ifft", "fft2", "ifftn"):
        expected, ours = _call(name, values, "forward")
        np.testing.assert_allclose(ours.resolve_conj().numpy(), expected, rtol=1e-12, atol=1e-12)


def test_non_contiguous_input_and_zero_dim() -> None:
    values = np.random.default_rng(2).standard_normal((6, 4))
    x = framework.from_numpy(values).t()
    np.testing.assert_allclose(framework.fft.rfft(x, dim=0).numpy(), np.fft.rfft(values.T, axis=0))
    scalar = framework.fft.fftn(framework.tensor(2.5))
    assert scalar.shape == () and scalar.dtype == framework.complex64 and complex(scalar.item()) == 2.5


ERRORS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (
        lambda: framework.fft.fft(framework.ones(4), norm="bad"),
        RuntimeError,
        'Invalid normalization mode: "bad"',
    ),
    (
        lambda: framework.fft.fft(framework.ones(4), n=0),
        RuntimeError,
        r"Invalid number of data points \(0\) specified",
    ),
    (
        lambda: framework.fft.irfft(framework.ones(1, dtype=framework.complex64)),
        RuntimeError,
        r"Invalid number of data points \(0\) specified",
    ),
    (
        lambda: framework.fft.fft(framework.ones(4), dim=2),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 2\)",
    ),
    (
        lambda: framework.fft.fft(framework.tensor(1.0)),
        IndexError,
        "Dimension specified as -1 but tensor has no dimensions",
    ),
    (
        lambda: framework.fft.fft(framework.ones(4, dtype=framework.float16)),
        RuntimeError,
        "Unsupported dtype Half",
    ),
    (
        lambda: framework.fft.rfft(framework.ones(3, dtype=framework.complex64)),
        RuntimeError,
        "rfft expects a real input tensor, but got ComplexFloat",
    ),
    (
        lambda: framework.fft.rfft2(framework.ones(3, 3, dtype=framework.complex64)),
        RuntimeError,
        "rfftn expects a real-valued input tensor, but got ComplexFloat",
    ),
    (
        lambda: framework.fft.ihfft2(framework.ones(3, 3, dtype=framework.complex64)),
        RuntimeError,
        "Only supports floating-point dtypes, but found: ComplexFloat",
    ),
    (
        lambda: framework.fft.rfftn(framework.tensor(1.0)),
        RuntimeError,
        "rfftn must transform at least one axis",
    ),
    (
        lambda: framework.fft.fftn(framework.ones(2, 3), s=(2, 3, 4)),
        RuntimeError,
        "Got shape with 3 values but input tensor only has 2 dimensions.",
    ),
    (
        lambda: framework.fft.fftn(framework.ones(2, 3), s=(2, 3), dim=(0,)),
        RuntimeError,
        "When given, dim and shape arguments must have the same length",
    ),
    (lambda: framework.fft.fftn(framework.ones(2, 3), dim=(0, -2)), RuntimeError, "FFT dims must be unique"),
    (
        lambda: framework.fft.fft(framework.ones(3), out=framework.empty(3)),
        RuntimeError,
        "fft expects a complex output tensor, but got Float",
    ),
    (
        lambda: framework.fft.irfft(
            framework.ones(3, dtype=framework.complex64), out=framework.empty(3, dtype=framework.complex64)
        ),
        RuntimeError,
        "irfft expects a floating point output tensor, but got ComplexFloat",
    ),
    (
        lambda: framework.ops.aten._fft_c2c(framework.ones(3), [0], 0, True),
        RuntimeError,
        "Only supports complex dtypes, but found: Float",
    ),
    (
        lambda: framework.ops.aten._fft_r2c(framework.ones(3, dtype=framework.int64), [0], 0, True),
        RuntimeError,
        "Only supports floating-point dtypes, but found: Long",
    ),
    (
        lambda: framework.fft.fftfreq(5, dtype=framework.int64),
        RuntimeError,
        "fftfreq requires a floating point or complex dtype",
    ),
    (
        lambda: framework.fft.rfftfreq(5, dtype=framework.int64),
        RuntimeError,
        "rfftfreq requires a floating point or complex dtype",
    ),
    (
        lambda: framework.fft.fftfreq(-1),
        RuntimeError,
        r"Trying to create tensor with negative dimension -1: \[-1\]",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case: int) -> None:
    fn, kind, message = ERRORS[case]
    with pytest.raises(kind, match=message):
        fn()


def test_out() -> None:
    values = _input("fft", "float64")
    out = framework.empty(0, dtype=framework.complex128)
    result = framework.fft.fft(framework.from_numpy(values), out=out)
    assert result is out and out.shape == (4, 6)
    np.testing.assert_allclose(out.numpy(), np.fft.fft(values), rtol=1e-12)
    out = framework.empty(0, dtype=framework.complex128)
    framework.fft.ihfft2(framework.from_numpy(values), out=out)
    np.testing.assert_allclose(
        out.numpy(), np.conj(np.fft.rfft2(values, norm="forward")), rtol=1e-12, atol=1e-15
    )
    real_out = framework.empty(0, dtype=framework.float64)
    framework.fft.irfftn(framework.from_numpy(np.fft.rfftn(values)), s=(4, 6), out=real_out)
    np.testing.assert_allclose(real_out.numpy(), values, rtol=1e-12, atol=1e-12)


def test_meta_device() -> None:
    x = framework.empty(4, 6, device="meta")
    assert framework.fft.rfft(x).shape == (4, 4) and framework.fft.rfft(x).dtype == framework.complex64
    assert framework.fft.irfftn(framework.fft.rfftn(x), s=(4, 6)).shape == (4, 6)
    assert framework.fft.hfft(x, n=9).shape == (4, 9)
    assert framework.fft.fftfreq(5, device="meta").shape == (5,)


@pytest.mark.parametrize("n", [1, 4, 7])
@pytest.mark.parametrize("d", [1.0, 0.3])
def test_frequencies(n: int, d: float) -> None:
    np.testing.assert_allclose(
        framework.fft.fftfreq(n, d, dtype=framework.float64).numpy(), np.fft.fftfreq(n, d)
    )
    np.testing.assert_allclose(
        framework.fft.rfftfreq(n, d, dtype=framework.float64).numpy(), np.fft.rfftfreq(n, d)
    )
    single = framework.fft.fftfreq(n, d)
    assert single.dtype == framework.float32
    np.testing.assert_allclose(single.numpy(), np.fft.fftfreq(n, d), rtol=1e-6)
    assert framework.fft.rfftfreq(n, d, requires_grad=True).requires_grad
    out = framework.empty(0, dtype=framework.float64)
    assert framework.fft.fftfreq(n, d, out=out) is out and out.shape == (n,)


@pytest.mark.parametrize("dim", [None, 1, (0, -1)])
def test_shifts(dim: Any) -> None:
    values = np.arange(15.0).reshape(3, 5)
    x = framework.from_numpy(values).requires_grad_()
    shifted = framework.fft.fftshift(x, dim=dim)
    np.testing.assert_array_equal(shifted.detach().numpy(), np.fft.fftshift(values, axes=dim))
    assert shifted.grad_fn is not None and shifted.grad_fn.name() == "RollBackward0"
    back = framework.fft.ifftshift(shifted, dim=dim)
    np.testing.assert_array_equal(back.detach().numpy(), values)


def test_round_trip_gradients() -> None:
    """Gradients of real compositions: irfft(rfft(x)) is the identity, |fft(x)|^2 sums to
    n * |x|^2 (Parseval)."""
    x = framework.from_numpy(np.random.default_rng(3).standard_normal((3, 8))).requires_grad_()
    (grad,) = framework.autograd.grad(framework.fft.irfft(framework.fft.rfft(x), n=8).sum(), x)
    np.testing.assert_allclose(grad.numpy(), np.ones((3, 8)), rtol=1e-12)
    power = framework.view_as_real(framework.fft.fft(x)).pow(2).sum()
    (grad,) = framework.autograd.grad(power, x)
    np.testing.assert_allclose(grad.numpy(), 16 * x.detach().numpy(), rtol=1e-12)


# ---- live against PyTorch ----------------------------------------------------------------------


def _torch_pair(values: np.ndarray) -> tuple[Tensor, Any]:
    import torch

    return framework.from_numpy(values.copy()).requires_grad_(), torch.from_numpy(
        values.copy()
    ).requires_grad_()


@needs_torch
@pytest.mark.parametrize("name", ALL_NAMES)
def test_against_torch(name: str) -> None:
    """Values, dtype, grad_fn name, conjugate bit and the gradient of a random real functional
    (the conjugating transforms, ifft of real input and ihfft, return conjugate views, as PyTorch)."""
    import torch

    values = _input(name, "float64", seed=4)
    ours_in, theirs_in = _torch_pair(values)
    kwargs: dict[str, Any] = {
        "norm": "ortho",
        ("n" if name in NAMES else "s"): 5 if name in NAMES else (3, 5),
    }
    ours = getattr(framework.fft, name)(ours_in, **kwargs)
    theirs = getattr(torch.fft, name)(theirs_in, **kwargs)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(
        ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(), rtol=1e-10, atol=1e-12
    )
    assert ours.grad_fn is not None and ours.grad_fn.name() == theirs.grad_fn.name()
    assert ours.is_conj() == theirs.is_conj()
    seed = np.random.default_rng(5).standard_normal(
        (*theirs.shape, 2) if theirs.is_complex() else tuple(theirs.shape)
    )
    ours_real = framework.view_as_real(ours.resolve_conj()) if ours.dtype.is_complex else ours
    theirs_real = torch.view_as_real(theirs.resolve_conj()) if theirs.is_complex() else theirs
    (ours_grad,) = framework.autograd.grad(ours_real, ours_in, framework.from_numpy(seed))
    (theirs_grad,) = torch.autograd.grad(theirs_real, theirs_in, torch.from_numpy(seed))
    np.testing.assert_allclose(ours_grad.numpy(), theirs_grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("n", [0, 1, 6, 7])
def test_frequencies_against_torch(n: int) -> None:
    import torch

    for name in ("fftfreq", "rfftfreq"):
        for dtype in ("float32", "float64"):
            ours = getattr(framework.fft, name)(n, 0.3, dtype=getattr(framework, dtype))
            theirs = getattr(torch.fft, name)(n, 0.3, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.resolve_conj().numpy(), theirs.numpy())


# ---- stft / istft --------------------------------------------------------------------------------


def _numpy_stft(
    signal: np.ndarray, n_fft: int, hop: int, window: np.ndarray, center: bool, mode: str
) -> np.ndarray:
    """The onesided STFT of a 1-D signal in NumPy: (n_fft // 2 + 1, frames)."""
    if center:
        signal = np.pad(signal, n_fft // 2, mode={"reflect": "reflect", "constant": "constant"}[mode])
    count = 1 + (len(signal) - n_fft) // hop
    frames = np.stack([signal[i * hop : i * hop + n_fft] for i in range(count)])
    return np.fft.rfft(frames * window, axis=-1).T


@pytest.mark.parametrize(
    ("n_fft", "hop", "win", "center", "mode"),
    [(8, None, None, True, "reflect"), (8, 3, 5, True, "constant"), (6, 2, 6, False, "reflect")],
)
def test_stft_against_numpy(n_fft: int, hop: int | None, win: int | None, center: bool, mode: str) -> None:
    signal = np.random.default_rng(6).standard_normal(21)
    width = n_fft if win is None else win
    window = np.hanning(width + 1)[:-1]
    padded_window = np.zeros(n_fft)
    left = (n_fft - width) // 2
    padded_window[left : left + width] = window
    result = framework.stft(
        framework.from_numpy(signal),
        n_fft,
        hop_length=hop,
        win_length=win,
        window=framework.from_numpy(window),
        center=center,
        pad_mode=mode,
        return_complex=True,
    )
    expected = _numpy_stft(signal, n_fft, n_fft // 4 if hop is None else hop, padded_window, center, mode)
    assert result.dtype == framework.complex128 and tuple(result.shape) == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12, atol=1e-12)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        batched = framework.from_numpy(np.stack([signal, 2 * signal])).stft(
            n_fft, hop, win, framework.from_numpy(window), center, mode, return_complex=False
        )
    assert tuple(batched.shape) == (2, *expected.shape, 2)
    np.testing.assert_allclose(batched[1].numpy()[..., 0], 2 * expected.real, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize("normalized", [False, True])
def test_istft_inverts_stft(onesided: bool, normalized: bool) -> None:
    signal = framework.from_numpy(np.random.default_rng(7).standard_normal((2, 30)))
    window = framework.hann_window(8, dtype=framework.float64)
    spectrum = framework.stft(
        signal, 8, hop_length=2, window=window, normalized=normalized, onesided=onesided, return_complex=True
    )
    restored = spectrum.istft(
        8, hop_length=2, window=window, normalized=normalized, onesided=onesided, length=30
    )
    np.testing.assert_allclose(restored.numpy(), signal.numpy(), rtol=1e-10, atol=1e-12)
    restored = framework.istft(
        spectrum[0], 8, hop_length=2, window=window, normalized=normalized, onesided=onesided
    )
    np.testing.assert_allclose(restored.numpy(), signal[0].numpy(), rtol=1e-10, atol=1e-12)
    with pytest.warns(UserWarning, match="padded with zeros"):
        longer = framework.istft(
            spectrum, 8, hop_length=2, window=window, normalized=normalized, onesided=onesided, length=40
        )
    assert longer.shape == (2, 40) and not longer[:, 34:].any()


def test_stft_warnings_and_complex_input() -> None:
    signal = framework.ones(16)
    with pytest.warns(UserWarning, match="A window was not provided"):
        framework.stft(signal, 4, return_complex=True)
    with pytest.warns(UserWarning, match="stft with return_complex=False is deprecated"):
        framework.stft(signal, 4, window=framework.ones(4), return_complex=False)
    spectrum = framework.stft(signal.to(framework.complex64), 4, hop_length=4, window=framework.ones(4))
    assert spectrum.dtype == framework.complex64 and spectrum.shape == (4, 5)
    restored = framework.istft(spectrum, 4, hop_length=4, window=framework.ones(4), return_complex=True)
    np.testing.assert_allclose(restored.numpy(), np.ones(16), atol=1e-6)


_W8 = framework.ones(8, dtype=framework.float64)
_SIGNAL = framework.ones(20, dtype=framework.float64)
_SPECTRUM = framework.ones(5, 11, dtype=framework.complex128)
STFT_ERRORS: list[tuple[Callable[[], Any], str]] = [
    (
        lambda: framework.stft(_SIGNAL, 8, window=_W8),
        "stft requires the return_complex parameter be given for real inputs",
    ),
    (
        lambda: framework.stft(_SIGNAL, 8, window=_W8, return_complex=True, align_to_window=True),
        "stft align_to_window should only be set when center = false",
    ),
    (
        lambda: framework.stft(_SIGNAL, 30, window=None, center=False, return_complex=True),
        r"stft\(.*DoubleTensor\[20\], n_fft=30, hop_length=7, win_length=30, window=None, normalized=0, "
        r"onesided=None, return_complex=1, align_to_window=None\) : "
        "expected 0 < n_fft < 20, but got n_fft=30",
    ),
    (
        lambda: framework.stft(_SIGNAL, 8, hop_length=0, window=_W8, return_complex=True),
        "expected hop_length > 0, but got hop_length=0",
    ),
    (
        lambda: framework.stft(_SIGNAL, 8, win_length=9, return_complex=True),
        "expected 0 < win_length <= n_fft, but got win_length=9",
    ),
    (
        lambda: framework.stft(_SIGNAL, 8, window=framework.ones(5), return_complex=True),
        r"expected a 1D window tensor of size equal to win_length=8, but got window with size \[5\]",
    ),
    (
        lambda: framework.stft(framework.ones(20, dtype=framework.int64), 8, window=_W8, return_complex=True),
        "expected a tensor of floating point or complex values",
    ),
    (
        lambda: framework.stft(framework.ones(2, 2, 20), 8, window=_W8, return_complex=True),
        "expected a 1D or 2D tensor",
    ),
    (
        lambda: framework.stft(
            _SIGNAL.to(framework.complex128), 8, window=_W8, onesided=True, return_complex=True
        ),
        "Cannot have onesided output if window or input is complex",
    ),
    (lambda: framework.istft(_SPECTRUM.real, 8, window=_W8), "istft requires a complex-valued input tensor"),
    (
        lambda: framework.istft(_SPECTRUM[:, :0], 8, window=_W8),
        r"istft\(CPUComplexDoubleType\[5, 0\], n_fft=8, hop_length=2, "
        r"win_length=8, window=.*DoubleTensor\{\[8\]\}, center=1, normalized=0, onesided=None, length=None, "
        r"return_complex=0\) : input tensor cannot be empty.",
    ),
    (
        lambda: framework.istft(_SPECTRUM[None, None], 8, window=_W8),
        "expected a tensor with 3 or 4 dimensions, but got 5",
    ),
    (
        lambda: framework.istft(_SPECTRUM[:4], 8, window=_W8),
        "to match n_fft / 2 \\+ 1 when onesided=True, but got 4",
    ),
    (
        lambda: framework.istft(_SPECTRUM[:4], 8, window=_W8, onesided=False),
        "to match n_fft when onesided=False, but got 4",
    ),
    (
        lambda: framework.istft(_SPECTRUM, 8, window=_W8, hop_length=9),
        "expected 0 < hop_length <= win_length",
    ),
    (lambda: framework.istft(_SPECTRUM, 8, window=_W8, win_length=9), "expected 0 < win_length <= n_fft"),
    (
        lambda: framework.istft(_SPECTRUM, 8, window=_W8[:5]),
        "Invalid window shape. window has to be 1D and length of `win_length`",
    ),
    (
        lambda: framework.istft(_SPECTRUM, 8, window=_W8, return_complex=True),
        "Cannot have onesided output if window or input is complex",
    ),
    (
        lambda: framework.istft(_SPECTRUM, 8, window=framework.zeros(8, dtype=framework.float64)),
        "window overlap add min: 1",
    ),
]


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("case", range(len(STFT_ERRORS)))
def test_stft_errors(case: int) -> None:
    fn, message = STFT_ERRORS[case]
    with pytest.raises(RuntimeError, match=message):
        fn()


def test_stft_gradcheck() -> None:
    window = framework.hann_window(6, dtype=framework.float64)

    def transform(x: Tensor) -> Tensor:
        spectrum = framework.stft(x, 6, hop_length=2, win_length=5, window=window[:5], return_complex=True)
        return framework.istft(spectrum * 2, 6, hop_length=2, win_length=5, window=window[:5], length=11)

    signal = framework.from_numpy(np.random.default_rng(8).standard_normal(11)).requires_grad_()
    assert framework.autograd.gradcheck(
        lambda x: framework.view_as_real(
            framework.stft(x, 6, hop_length=2, window=window, return_complex=True)
        ),
        (signal,),
    )
    assert framework.autograd.gradcheck(transform, (signal,))


def _chain(t: Any) -> list[str]:
    names, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.append(node.name().rpartition("::")[2])
            stack.extend(f for f, _ in node.next_functions)
    return names


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_fft": 8, "window": True},
        {"n_fft": 8, "hop_length": 3, "win_length": 5, "window": True, "return_complex": False},
        {
            "n_fft": 8,
            "hop_length": 3,
            "win_length": 4,
            "window": True,
            "center": False,
            "align_to_window": True,
        },
        {"n_fft": 6, "normalized": True, "onesided": False, "pad_mode": "constant"},
    ],
)
def test_stft_istft_against_torch(kwargs: dict[str, Any]) -> None:
    """Values, grad_fn chains and gradients (signal and window) of stft, and of istft of the
    result, against PyTorch."""
    import torch

    rng = np.random.default_rng(9)
    values, window = (
        rng.standard_normal((2, 20)),
        rng.uniform(0.5, 1.0, kwargs.get("win_length", kwargs["n_fft"])),
    )
    kwargs = {"return_complex": True, **kwargs}
    use_window = kwargs.pop("window", False)
    ours_in, theirs_in = _torch_pair(values)
    ours_w, theirs_w = _torch_pair(window) if use_window else (None, None)
    ours = framework.stft(ours_in, window=ours_w, **kwargs)
    theirs = torch.stft(theirs_in, window=theirs_w, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert _chain(ours) == _chain(theirs)
    inputs = ([ours_in, ours_w], [theirs_in, theirs_w]) if use_window else ([ours_in], [theirs_in])
    seed = rng.standard_normal(tuple(theirs.shape) + ((2,) if theirs.is_complex() else ()))
    ours_real = framework.view_as_real(ours.resolve_conj()) if ours.dtype.is_complex else ours
    theirs_real = torch.view_as_real(theirs) if theirs.is_complex() else theirs
    for a, b in zip(
        framework.autograd.grad(ours_real, inputs[0], framework.from_numpy(seed)),
        torch.autograd.grad(theirs_real, inputs[1], torch.from_numpy(seed)),
        strict=True,
    ):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    if not kwargs["return_complex"] or kwargs.get("align_to_window"):
        return
    keys = ("n_fft", "hop_length", "win_length", "center", "normalized", "onesided")
    inverse = {k: v for k, v in kwargs.items() if k in keys}
    ours_spec, theirs_spec = ours.detach().requires_grad_(), theirs.detach().requires_grad_()
    w = (ours_w.detach(), theirs_w.detach()) if use_window else (None, None)
    ours_y = framework.istft(ours_spec, window=w[0], length=20, **inverse)
    theirs_y = torch.istft(theirs_spec, window=w[1], length=20, **inverse)
    np.testing.assert_allclose(ours_y.detach().numpy(), theirs_y.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert _chain(ours_y) == _chain(theirs_y)
    seed = rng.standard_normal((2, 20))
    (a,) = framework.autograd.grad(ours_y, ours_spec, framework.from_numpy(seed))
    (b,) = torch.autograd.grad(theirs_y, theirs_spec, torch.from_numpy(seed))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
