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
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_sizes_and_dims(name: str) -> None:
    values = _input(name, "float64", seed=1)
    one_dim = name in NAMES
    for sizes, axes in ([5, 0] if one_dim else [(3, 7), (0, 1)], [8, 1] if one_dim else [(5, 2), (1, 0)]):
        expected, ours = _call(name, values, "ortho", sizes, axes)
        assert tuple(ours.shape) == expected.shape
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "ihfft", "fftn", "irfftn", "hfft2"])
def test_single_precision_and_promotion(name: str) -> None:
    values = _input(name, "float32" if name not in ("irfft", "irfftn", "hfft2") else "complex64")
    expected, ours = _call(name, values, None)
    assert ours.dtype == (framework.float32 if np.isrealobj(expected) else framework.complex64)
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-5, atol=1e-5)
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
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12, atol=1e-12)


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
    """Values, dtype, grad_fn name and the gradient of a random real functional; the
    conjugating transforms (ifft of real input, ihfft) end in ViewAsComplexBackward0 here, where
    PyTorch records ConjBackward0 (no conj operator yet)."""
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
        ours.detach().numpy(), theirs.detach().resolve_conj().numpy(), rtol=1e-10, atol=1e-12
    )
    conjugated = theirs.grad_fn.name() in ("ConjBackward0", "ConjPhysicalBackward0")
    assert ours.grad_fn is not None
    assert ours.grad_fn.name() == ("ViewAsComplexBackward0" if conjugated else theirs.grad_fn.name())
    seed = np.random.default_rng(5).standard_normal(
        (*theirs.shape, 2) if theirs.is_complex() else tuple(theirs.shape)
    )
    ours_real = framework.view_as_real(ours) if ours.dtype.is_complex else ours
    theirs_real = torch.view_as_real(theirs.resolve_conj()) if theirs.is_complex() else theirs
    (ours_grad,) = framework.autograd.grad(ours_real, ours_in, framework.from_numpy(seed))
    (theirs_grad,) = torch.autograd.grad(theirs_real, theirs_in, torch.from_numpy(seed))
    np.testing.assert_allclose(ours_grad.numpy(), theirs_grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("n", [0, 1, 6, 7])
def test_frequencies_against_torch(n: int) -> None:
    import torch

    for name in ("fftfreq", "rfftfreq"):
        for dtype in ("float32", "float64"):
            ours = getattr(framework.fft, name)(n, 0.3, dtype=getattr(framework, dtype))
            theirs = getattr(torch.fft, name)(n, 0.3, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
