"""framework.nn.functional and the neural-network operators under it, against NumPy references
(always) and PyTorch 2.13 (when it is importable): values in float32 and float64, the backward
operators against torch.autograd.grad, gradients through our autograd, Meta shapes, and PyTorch's
error messages."""

from __future__ import annotations

import importlib.util
import itertools
import math
import re
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pytest

import framework
import framework.nn.functional as F
from framework import Tensor
from framework.autograd import gradcheck, gradgradcheck

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch")
Array = npt.NDArray[Any]
A: Any = framework.ops.aten
FLOATS = [np.float32, np.float64]
TOL = {np.float32: (2e-5, 1e-5), np.float64: (1e-11, 1e-12)}


def rand(
    shape: tuple[int, ...], dtype: Any = np.float64, seed: int = 0, low: float = -1.0, high: float = 1.0
) -> Array:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def fw(a: Array, requires_grad: bool = False) -> Tensor:
    t = framework.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


def th(a: Array, requires_grad: bool = False) -> Any:
    import torch

    t = torch.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


def close(ours: Tensor | None, expected: Any, dtype: Any = np.float64, scale: float = 1.0) -> None:
    """`ours` equals `expected` (an array or a torch tensor) to the dtype's tolerance."""
    assert ours is not None
    got = ours.detach().numpy()
    want = expected.detach().numpy() if hasattr(expected, "detach") else np.asarray(expected)
    assert got.shape == want.shape
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got, want, rtol=rtol * scale, atol=atol * scale)


def raises(exc: type[BaseException], message: str) -> Any:
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def torch_error(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as e:  # the message of whatever PyTorch raises
        return str(e).split("\n")[0]
    raise AssertionError("PyTorch accepted the call")


# ---- activations and softmax --------------------------------------------------------------------


def _gelu_reference(x: Array, approximate: str) -> Array:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_against_numpy(dtype: Any, approximate: str) -> None:
    x = np.concatenate(
        [rand((50,), dtype, 1, -6, 6), np.array([0.0, -0.0, 1e-30, 7.0, -7.0, 40.0, -40.0], dtype)]
    )
    expected = _gelu_reference(x.astype(np.float64), approximate)
    close(F.gelu(fw(x), approximate=approximate), expected.astype(dtype), dtype)
    assert F.gelu(fw(x)).dtype == framework.from_numpy(x).dtype


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_backward_against_torch(dtype: Any, approximate: str) -> None:
    import torch

    x, g = rand((3, 7), dtype, 2, -4, 4), rand((3, 7), dtype, 3)
    tx = th(x, True)
    out = torch.nn.functional.gelu(tx, approximate=approximate)
    close(F.gelu(fw(x), approximate=approximate), out, dtype)
    (expected,) = torch.autograd.grad(out, tx, th(g))
    close(A.gelu_backward(fw(g), fw(x), approximate=approximate), expected, dtype)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
def test_silu_sigmoid_tanh_relu_against_torch(dtype: Any) -> None:
    import torch

    x, g = rand((4, 5), dtype, 4, -5, 5), rand((4, 5), dtype, 5)
    tx = th(x, True)
    out = torch.nn.functional.silu(tx)
    close(F.silu(fw(x)), out, dtype)
    close(A.silu_backward(fw(g), fw(x)), torch.autograd.grad(out, tx, th(g))[0], dtype)
    close(F.sigmoid(fw(x)), torch.sigmoid(th(x)), dtype)
    close(F.tanh(fw(x)), torch.tanh(th(x)), dtype)
    close(F.relu(fw(x)), torch.relu(th(x)), dtype)
    inplace = fw(x.copy())
    assert F.silu(inplace, inplace=True) is inplace
    close(inplace, torch.nn.functional.silu(th(x)), dtype)


def test_activation_errors() -> None:
    with raises(RuntimeError, "approximate argument must be either none or tanh."):
        F.gelu(fw(rand((3,))), approximate="fast")
    with raises(RuntimeError, "\"GeluKernelImpl\" not implemented for 'Long'"):
        F.gelu(framework.tensor([1, 2]))
    with raises(RuntimeError, "\"silu_cpu\" not implemented for 'Long'"):
        F.silu(framework.tensor([1, 2]))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_against_numpy(dtype: Any, dim: int) -> None:
    x = rand((3, 4, 5), dtype, 6, -10, 10)
    shifted = x.astype(np.float64) - x.max(axis=dim, keepdims=True)
    expected = np.exp(shifted) / np.exp(shifted).sum(axis=dim, keepdims=True)
    close(F.softmax(fw(x), dim), expected.astype(dtype), dtype)
    close(F.log_softmax(fw(x), dim), np.log(expected).astype(dtype), dtype)
    assert F.softmax(fw(x), dim, dtype=framework.float64).dtype is framework.float64


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_data_against_torch(dtype: Any, log: bool) -> None:
    import torch

    x, g = rand((3, 5), dtype, 7), rand((3, 5), dtype, 8)
    for dim in (0, 1):
        tx = th(x, True)
        out = (torch.log_softmax if log else torch.softmax)(tx, dim)
        (expected,) = torch.autograd.grad(out, tx, th(g))
        op = A._log_softmax_backward_data if log else A._softmax_backward_data
        close(op(fw(g), fw(out.detach().numpy()), dim, fw(x).dtype), expected, dtype)


def test_softmax_implicit_dim_and_errors() -> None:
    x = fw(rand((2, 3)))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        close(F.softmax(x), F.softmax(x, 1))
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        close(F.log_softmax(fw(rand((3,)))), F.log_softmax(fw(rand((3,))), 0))
    with raises(RuntimeError, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"):
        F.softmax(framework.tensor([1, 2]), 0)
    with raises(RuntimeError, "\"softmax_kernel_impl\" not implemented for 'Long'"):
        F.softmax(framework.tensor([[1, 2]]), 0)
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"):
        F.softmax(x, 2)
    with raises(RuntimeError, "softmax with half to float conversion is not supported on CPU"):
        A._softmax(x, 1, True)


# ---- convolution --------------------------------------------------------------------------------


def _conv2d_reference(
    x: Array,
    w: Array,
    b: Array | None,
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    groups: int,
) -> Array:
    """Direct summation over output positions and kernel offsets (float64)."""
    n, _, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for o in range(f):
        g = o // fg
        for i, j in itertools.product(range(oh), range(ow)):
            rows = i * stride[0] + dilation[0] * np.arange(kh)
            cols = j * stride[1] + dilation[1] * np.arange(kw)
            patch = xp[:, g * cg : (g + 1) * cg][:, :, rows][:, :, :, cols]
            out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


class ConvCase(NamedTuple):
    xs: tuple[int, ...]
    ws: tuple[int, ...]
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int


CONV_CASES = [
    ConvCase((2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1),
    ConvCase((2, 4, 8, 7), (6, 2, 3, 2), (2, 1), (1, 2), (1, 2), 2),
    ConvCase((1, 6, 9, 9), (6, 1, 3, 3), (2, 3), (1, 0), (2, 1), 6),
    ConvCase((3, 1, 8, 8), (16, 1, 3, 3), (1, 1), (1, 1), (1, 1), 1),
]
conv_cases = pytest.mark.parametrize("case", CONV_CASES, ids=[f"conv{i}" for i in range(len(CONV_CASES))])


@pytest.mark.parametrize("dtype", FLOATS)
@conv_cases
def test_conv2d_against_numpy(dtype: Any, case: ConvCase) -> None:
    xs, ws, stride, padding, dilation, groups = case
    x, w, b = rand(xs, dtype, 10), rand(ws, dtype, 11), rand((ws[0],), dtype, 12)
    out = F.conv2d(fw(x), fw(w), fw(b), stride, padding, dilation, groups)
    close(out, _conv2d_reference(x, w, b, stride, padding, dilation, groups).astype(dtype), dtype, 10)
    assert out.dtype is fw(x).dtype


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@conv_cases
def test_conv2d_and_backward_against_torch(dtype: Any, case: ConvCase) -> None:
    import torch

    xs, ws, stride, padding, dilation, groups = case
    x, w, b = rand(xs, dtype, 13), rand(ws, dtype, 14), rand((ws[0],), dtype, 15)
    tx, tw, tb = th(x, True), th(w, True), th(b, True)
    out = torch.nn.functional.conv2d(tx, tw, tb, stride, padding, dilation, groups)
    close(F.conv2d(fw(x), fw(w), fw(b), stride, padding, dilation, groups), out, dtype, 10)
    g = rand(tuple(out.shape), dtype, 16)
    expected = torch.autograd.grad(out, (tx, tw, tb), th(g))

    def backward(bias_sizes: list[int] | None, output_mask: list[bool]) -> Any:
        geometry = (list(stride), list(padding), list(dilation), False, [0, 0], groups)
        return A.convolution_backward(fw(g), fw(x), fw(w), bias_sizes, *geometry, output_mask)

    for mine, theirs in zip(backward([ws[0]], [True, True, True]), expected, strict=True):
        close(mine, theirs, dtype, 10)
    masked = backward(None, [False, True, False])
    assert masked[0] is None and masked[2] is None
    close(masked[1], expected[1], dtype, 10)


@needs_torch
@pytest.mark.parametrize(
    ("xs", "ws", "stride", "padding", "dilation", "output_padding", "groups"),
    [
        ((2, 3, 5, 4), (3, 4, 3, 3), (2, 2), (1, 1), (1, 1), (1, 0), 1),
        ((1, 4, 4, 5), (4, 3, 2, 3), (3, 2), (0, 1), (2, 1), (2, 1), 2),
    ],
)
def test_transposed_convolution_against_torch(
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    stride: Any,
    padding: Any,
    dilation: Any,
    output_padding: Any,
    groups: int,
) -> None:
    import torch

    x, w, b = rand(xs, seed=17), rand(ws, seed=18), rand((ws[1] * groups,), seed=19)
    args = (list(stride), list(padding), list(dilation), True, list(output_padding), groups)
    tx, tw, tb = th(x, True), th(w, True), th(b, True)
    out = torch.ops.aten.convolution(tx, tw, tb, *args)
    close(A.convolution(fw(x), fw(w), fw(b), *args), out)
    g = rand(tuple(out.shape), seed=20)
    expected = torch.autograd.grad(out, (tx, tw, tb), th(g))
    ours = A.convolution_backward(fw(g), fw(x), fw(w), [b.size], *args, [True, True, True])
    for mine, theirs in zip(ours, expected, strict=True):
        close(mine, theirs)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
def test_conv1d_and_string_padding_against_torch(dtype: Any) -> None:
    import torch

    tf = torch.nn.functional
    x1, w1, b1 = rand((2, 3, 9), dtype, 21), rand((4, 3, 3), dtype, 22), rand((4,), dtype, 23)
    close(F.conv1d(fw(x1), fw(w1), fw(b1), 2, 1), tf.conv1d(th(x1), th(w1), th(b1), 2, 1), dtype)
    close(F.conv1d(fw(x1[0]), fw(w1)), tf.conv1d(th(x1[0]), th(w1)), dtype)
    close(F.conv1d(fw(x1), fw(w1), padding="same"), tf.conv1d(th(x1), th(w1), padding="same"), dtype)
    x, w = rand((2, 3, 7, 6), dtype, 24), rand((4, 3, 3, 3), dtype, 25)
    close(F.conv2d(fw(x), fw(w), padding="same"), tf.conv2d(th(x), th(w), padding="same"), dtype)
    close(F.conv2d(fw(x), fw(w), padding="valid"), tf.conv2d(th(x), th(w), padding="valid"), dtype)
    close(F.conv2d(fw(x[0]), fw(w), padding=1), tf.conv2d(th(x[0]), th(w), padding=1), dtype)
    even = rand((4, 3, 2, 4), dtype, 26)
    with pytest.warns(UserWarning, match="Using padding='same' with even kernel lengths and odd dilation"):
        ours = F.conv2d(fw(x), fw(even), padding="same", dilation=(1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(ours, tf.conv2d(th(x), th(even), padding="same"), dtype)


def test_convolution_gradients_through_autograd() -> None:
    x, w, b = (
        fw(rand((1, 2, 5, 4), seed=27), True),
        fw(rand((3, 2, 2, 3), seed=28), True),
        fw(rand((3,), seed=29), True),
    )

    def fn(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.conv2d(x, w, b, stride=(2, 1), padding=1)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_convolution_errors() -> None:
    x, w = fw(rand((2, 3, 6, 6))), fw(rand((4, 3, 3, 3)))
    with raises(
        RuntimeError,
        "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 6, 6] to have 2 channels, but got "
        "3 channels instead",
    ):
        F.conv2d(x, fw(rand((4, 2, 3, 3))))
    with raises(
        RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [6, 6]"
    ):
        F.conv2d(fw(rand((6, 6))), w)
    with raises(RuntimeError, "padding='same' is not supported for strided convolutions"):
        F.conv2d(x, w, padding="same", stride=2)
    with raises(RuntimeError, "Invalid padding string: 'full'"):
        F.conv2d(x, w, padding="full")
    with raises(
        RuntimeError,
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be "
        "greater than actual input size",
    ):
        F.conv2d(fw(rand((2, 3, 2, 2))), w)
    with raises(RuntimeError, "non-positive stride is not supported"):
        F.conv2d(x, w, stride=0)
    with raises(RuntimeError, "negative padding is not supported"):
        F.conv2d(x, w, padding=-1)
    with raises(
        RuntimeError,
        "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
        "[[3, 3, 3, 3]] instead",
    ):
        F.conv2d(x, fw(rand((3, 3, 3, 3))), groups=2)
    with raises(
        RuntimeError,
        "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias "
        "of size [5] instead",
    ):
        F.conv2d(x, w, fw(rand((5,))))
    with raises(
        RuntimeError,
        "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input "
        "should be a MKLDNN tensor and weight is a dense tensor",
    ):
        F.conv2d(x.float(), w)
    with raises(
        RuntimeError,
        "expected stride to be a single integer value or a list of 2 values to match the convolution "
        "dimensions, but got stride=[1, 1, 1]",
    ):
        F.conv2d(x, w, stride=(1, 1, 1))


def test_convolution_on_meta() -> None:
    x = framework.empty((2, 3, 7, 6), device="meta")
    w = framework.empty((4, 3, 3, 3), device="meta")
    out = F.conv2d(x, w, stride=2, padding=1)
    assert out.shape == (2, 4, 4, 3) and out.device.type == "meta"
    grads = A.convolution_backward(
        framework.empty(out.shape, device="meta"),
        x,
        w,
        [4],
        [2, 2],
        [1, 1],
        [1, 1],
        False,
        [0, 0],
        1,
        [True, True, True],
    )
    assert [g.shape for g in grads] == [(2, 3, 7, 6), (4, 3, 3, 3), (4,)]


# ---- pooling ------------------------------------------------------------------------------------

MAX_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1)),
    dict(kernel_size=2, stride=3, ceil_mode=True),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]


def _pool_args(kwargs: dict[str, Any], **defaults: Any) -> list[Any]:
    """A pooling call's keyword arguments as its backward operator's positional ones: kernel_size,
    stride (the kernel size by default), then the arguments of `defaults`, in their order."""
    full = {"stride": kwargs["kernel_size"], **defaults} | kwargs
    return [full[name] for name in ("kernel_size", "stride", *defaults)]


def _max_pool_reference(x: Array, k: int, s: int, ceil_mode: bool) -> Array:
    h, w = x.shape[-2:]

    def size(n: int) -> int:
        out = (n - k + (s - 1 if ceil_mode else 0)) // s + 1
        return out - 1 if ceil_mode and (out - 1) * s >= n else out

    out = np.empty((*x.shape[:-2], size(h), size(w)), dtype=x.dtype)
    for i, j in itertools.product(range(out.shape[-2]), range(out.shape[-1])):
        out[..., i, j] = x[..., i * s : i * s + k, j * s : j * s + k].max(axis=(-2, -1))
    return out


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pool2d_against_numpy(dtype: Any, ceil_mode: bool) -> None:
    x = rand((2, 3, 9, 8), dtype, 30)
    close(F.max_pool2d(fw(x), 3, 2, ceil_mode=ceil_mode), _max_pool_reference(x, 3, 2, ceil_mode), dtype)


def test_max_pool2d_ties_infinities_and_nans() -> None:
    x = np.array([[[[1.0, 1.0, -np.inf], [1.0, 0.0, -np.inf], [np.nan, 2.0, -np.inf]]]])
    out, indices = F.max_pool2d(fw(x), 2, 1, padding=1, return_indices=True)
    expected_indices = [[0, 0, 1, 2], [0, 0, 1, 2], [6, 6, 7, 5], [6, 6, 7, 8]]  # PyTorch 2.13's
    assert indices.numpy()[0, 0].tolist() == expected_indices
    assert np.isnan(out.numpy()[0, 0, 2:, :2]).all()
    assert out.numpy()[0, 0, 0, 3] == -np.inf


AVG_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), divisor_override=5),
    dict(kernel_size=2, stride=3, ceil_mode=True, count_include_pad=False),
]


POOL_CASES = [("max", kwargs) for kwargs in MAX_POOL_CASES] + [("avg", kwargs) for kwargs in AVG_POOL_CASES]


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("pool", "kwargs"), POOL_CASES)
def test_pool2d_and_backward_against_torch(dtype: Any, pool: str, kwargs: dict[str, Any]) -> None:
    """max_pool2d (and its indices) or avg_pool2d, and its backward operator."""
    import torch

    seed = 31 if pool == "max" else 33
    x = rand((2, 3, 9, 8), dtype, seed)
    tx = th(x, True)
    if pool == "max":
        out, indices = torch.nn.functional.max_pool2d(tx, return_indices=True, **kwargs)
        ours, our_indices = F.max_pool2d(fw(x), return_indices=True, **kwargs)
        assert np.array_equal(our_indices.numpy(), indices.numpy())
    else:
        out, ours = torch.nn.functional.avg_pool2d(tx, **kwargs), F.avg_pool2d(fw(x), **kwargs)
    close(ours, out, dtype)
    g = rand(tuple(out.shape), dtype, seed + 1)
    (expected,) = torch.autograd.grad(out, tx, th(g))
    if pool == "max":
        args = _pool_args(kwargs, padding=0, dilation=1, ceil_mode=False)
        mine = A.max_pool2d_with_indices_backward(fw(g), fw(x), *args, our_indices)
    else:
        args = _pool_args(kwargs, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)
        mine = A.avg_pool2d_backward(fw(g), fw(x), *args)
    close(mine, expected, dtype)


def test_avg_pool2d_against_numpy() -> None:
    x = rand((2, 9, 8), seed=35)
    expected = x[:, :8].reshape(2, 4, 2, 4, 2).mean(axis=(2, 4))
    close(F.avg_pool2d(fw(x), 2), expected)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("output_size", [(4, 5), (9, 8), (3, 7), (10, 2), 1, (None, 3)])
def test_adaptive_avg_pool2d_and_backward_against_torch(dtype: Any, output_size: Any) -> None:
    import torch

    x = rand((2, 3, 9, 8), dtype, 36)
    tx = th(x, True)
    out = torch.nn.functional.adaptive_avg_pool2d(tx, output_size)
    ours = F.adaptive_avg_pool2d(fw(x), output_size)
    close(ours, out, dtype)
    g = rand(tuple(out.shape), dtype, 37)
    (expected,) = torch.autograd.grad(out, tx, th(g))
    close(A._adaptive_avg_pool2d_backward(fw(g), fw(x)), expected, dtype)


def test_pooling_errors() -> None:
    x = fw(rand((2, 3, 6, 6)))
    with raises(RuntimeError, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"):
        F.max_pool2d(x, (2, 2, 2))
    with raises(
        RuntimeError, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints"
    ):
        F.max_pool2d(x, 2, (1, 1, 1))
    with raises(
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1",
    ):
        F.max_pool2d(x, 2, padding=2)
    with raises(RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input"):
        F.max_pool2d(fw(rand((6, 6))), 2)
    with raises(
        RuntimeError, "Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small"
    ):
        F.max_pool2d(fw(rand((2, 3, 1, 1))), 2)
    with raises(RuntimeError, "kernel size should be greater than zero, but got kH: 0 kW: 2"):
        F.avg_pool2d(x, (0, 2), 1)
    with raises(RuntimeError, "divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with raises(
        RuntimeError,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
        "got:[1, 2, 3, 6, 6]",
    ):
        F.avg_pool2d(fw(rand((1, 2, 3, 6, 6))), 2)
    with raises(RuntimeError, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [6, 6]"):
        F.adaptive_avg_pool2d(fw(rand((6, 6))), 2)
    with raises(ValueError, "Input dimension should be at least 3"):
        F.adaptive_avg_pool2d(fw(rand((6, 6))), (None, 2))
    with raises(RuntimeError, "\"max_pool2d\" not implemented for 'Bool'"):
        F.max_pool2d(framework.ones((1, 2, 2), dtype=framework.bool), 2)


def test_pooling_on_meta() -> None:
    x = framework.empty((2, 3, 9, 8), device="meta")
    out, indices = F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
    assert out.shape == indices.shape == (2, 3, 5, 5) and indices.dtype is framework.int64
    assert F.avg_pool2d(x, 2).shape == (2, 3, 4, 4)
    assert F.adaptive_avg_pool2d(x, (2, 3)).shape == (2, 3, 2, 3)


# ---- embedding ----------------------------------------------------------------------------------


def test_embedding_against_numpy() -> None:
    weight = rand((6, 3), seed=40)
    indices = np.array([[1, 5, 0], [2, 2, 4]])
    close(F.embedding(fw(indices), fw(weight)), weight[indices])
    with raises(IndexError, "index out of range in self"):
        F.embedding(framework.tensor([6]), fw(weight))
    with raises(AssertionError, "Padding_idx must be within num_embeddings"):
        F.embedding(framework.tensor([1]), fw(weight), padding_idx=6)
    with raises(
        RuntimeError,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
        "got torch.FloatTensor instead (while checking arguments for embedding)",
    ):
        F.embedding(fw(np.array([1.0], dtype=np.float32)), fw(weight))
    with raises(RuntimeError, "'weight' must be 2-D"):
        F.embedding(framework.tensor([1]), fw(rand((6,))))


@needs_torch
@pytest.mark.parametrize(("padding_idx", "scale_grad_by_freq"), [(None, False), (2, False), (-1, True)])
def test_embedding_backward_against_torch(padding_idx: int | None, scale_grad_by_freq: bool) -> None:
    import torch

    weight = rand((6, 3), seed=41)
    indices = np.array([[1, 5, 2], [2, 2, 4]])
    tw = th(weight, True)
    out = torch.nn.functional.embedding(th(indices), tw, padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    close(F.embedding(fw(indices), fw(weight), padding_idx, scale_grad_by_freq=scale_grad_by_freq), out)
    g = rand((2, 3, 3), seed=42)
    (expected,) = torch.autograd.grad(out, tw, th(g))
    index = -1 if padding_idx is None else padding_idx % 6
    close(A.embedding_dense_backward(fw(g), fw(indices), 6, index, scale_grad_by_freq), expected)
    ours = fw(weight, True)
    F.embedding(fw(indices), ours, padding_idx, scale_grad_by_freq=scale_grad_by_freq).backward(fw(g))
    close(ours.grad, expected)


@needs_torch
def test_embedding_max_norm_against_torch() -> None:
    import torch

    weight = rand((6, 3), seed=43, low=-2, high=2)
    indices = np.array([1, 4, 1])
    ours, theirs = fw(weight.copy()), th(weight.copy())
    close(
        F.embedding(fw(indices), ours, max_norm=1.0),
        torch.nn.functional.embedding(th(indices), theirs, max_norm=1.0),
    )
    close(ours, theirs)


def test_embedding_dense_double_backward_with_frequencies() -> None:
    g = fw(rand((4, 2), seed=44), True)

    def fn(g: Tensor) -> Tensor:
        return A.embedding_dense_backward(g, framework.tensor([1, 3, 1, 0]), 5, 0, True)

    assert gradcheck(fn, (g,))
    assert gradgradcheck(fn, (g,))


# ---- normalization ------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("shape", "normalized"), [((2, 3, 5), [5]), ((4, 2, 3), [2, 3])])
def test_layer_norm_and_backward_against_torch(
    dtype: Any, shape: tuple[int, ...], normalized: list[int]
) -> None:
    import torch

    x, w, b = (
        rand(shape, dtype, 50, -3, 3),
        rand(tuple(normalized), dtype, 51),
        rand(tuple(normalized), dtype, 52),
    )
    tx, tw, tb = th(x, True), th(w, True), th(b, True)
    out = torch.nn.functional.layer_norm(tx, normalized, tw, tb, 1e-5)
    close(F.layer_norm(fw(x), normalized, fw(w), fw(b), 1e-5), out, dtype, 10)
    _, mean, rstd = A.native_layer_norm(fw(x), normalized, fw(w), fw(b), 1e-5)
    g = rand(shape, dtype, 53)
    expected = torch.autograd.grad(out, (tx, tw, tb), th(g))
    ours = A.native_layer_norm_backward(
        fw(g), fw(x), normalized, mean, rstd, fw(w), fw(b), [True, True, True]
    )
    for mine, theirs in zip(ours, expected, strict=True):
        close(mine, theirs, dtype, 10)


def test_layer_norm_against_numpy_and_errors() -> None:
    x = rand((3, 4), seed=54)
    expected = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    close(F.layer_norm(fw(x), [4]), expected)
    close(F.layer_norm(fw(x), 4), expected)
    with raises(
        RuntimeError,
        "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[3, 4]",
    ):
        F.layer_norm(fw(x), [5])
    with raises(
        RuntimeError,
        "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and "
        "normalized_shape = [4]",
    ):
        F.layer_norm(fw(x), [4], fw(rand((3,))))
    with raises(RuntimeError, "\"LayerNormKernelImpl\" not implemented for 'Long'"):
        F.layer_norm(framework.tensor([[1, 2]]), [2])


def test_layer_norm_double_backward() -> None:
    x, w, b = fw(rand((2, 3, 4), seed=55), True), fw(rand((4,), seed=56), True), fw(rand((4,), seed=57), True)

    def fn(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.layer_norm(x, [4], w, b)

    assert gradgradcheck(fn, (x, w, b))


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 4, 5)])
def test_batch_norm_training_updates_running_stats_like_torch(dtype: Any, shape: tuple[int, ...]) -> None:
    import torch

    channels = shape[1]
    x, w, b = rand(shape, dtype, 60, -2, 3), rand((channels,), dtype, 61), rand((channels,), dtype, 62)
    mean0, var0 = rand((channels,), dtype, 63), rand((channels,), dtype, 64, 0.5, 2.0)
    our_mean, our_var = fw(mean0.copy()), fw(var0.copy())
    their_mean, their_var = th(mean0.copy()), th(var0.copy())
    tx, tw, tb = th(x, True), th(w, True), th(b, True)
    out = torch.nn.functional.batch_norm(tx, their_mean, their_var, tw, tb, True, 0.3, 1e-5)
    close(F.batch_norm(fw(x), our_mean, our_var, fw(w), fw(b), True, 0.3, 1e-5), out, dtype, 10)
    close(our_mean, their_mean, dtype)
    close(our_var, their_var, dtype)
    axes = (0, *range(2, len(shape)))
    n = x.size // channels
    expected_var = (1 - 0.3) * var0 + 0.3 * x.astype(np.float64).var(axis=axes) * n / (n - 1)
    close(our_var, expected_var.astype(dtype), dtype)
    g = rand(shape, dtype, 65)
    expected = torch.autograd.grad(out, (tx, tw, tb), th(g))
    _, save_mean, save_invstd = A.native_batch_norm(fw(x), fw(w), fw(b), None, None, True, 0.3, 1e-5)
    ours = A.native_batch_norm_backward(
        fw(g), fw(x), fw(w), None, None, save_mean, save_invstd, True, 1e-5, [True, True, True]
    )
    for mine, theirs in zip(ours, expected, strict=True):
        close(mine, theirs, dtype, 10)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_evaluation_against_torch(dtype: Any) -> None:
    import torch

    x, w, b = rand((3, 2, 4), dtype, 66), rand((2,), dtype, 67), rand((2,), dtype, 68)
    mean, var = rand((2,), dtype, 69), rand((2,), dtype, 70, 0.5, 2.0)
    tx, tw, tb = th(x, True), th(w, True), th(b, True)
    out = torch.nn.functional.batch_norm(tx, th(mean), th(var), tw, tb, False, 0.1, 1e-5)
    running = fw(mean.copy())
    close(F.batch_norm(fw(x), running, fw(var), fw(w), fw(b), False), out, dtype)
    close(running, mean, dtype)
    g = rand((3, 2, 4), dtype, 71)
    expected = torch.autograd.grad(out, (tx, tw, tb), th(g))
    ours = A.native_batch_norm_backward(
        fw(g), fw(x), fw(w), fw(mean), fw(var), None, None, False, 1e-5, [True, True, True]
    )
    for mine, theirs in zip(ours, expected, strict=True):
        close(mine, theirs, dtype)


def test_batch_norm_double_backward() -> None:
    x, w, b = fw(rand((4, 2, 3), seed=72), True), fw(rand((2,), seed=73), True), fw(rand((2,), seed=74), True)
    mean, var = fw(rand((2,), seed=75)), fw(rand((2,), seed=76, low=0.5, high=2.0))

    def training(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.batch_norm(x, None, None, w, b, True)

    def evaluation(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.batch_norm(x, mean, var, w, b, False)

    for fn in (training, evaluation):
        assert gradcheck(fn, (x, w, b))
        assert gradgradcheck(fn, (x, w, b))


def test_batch_norm_errors() -> None:
    with raises(
        ValueError, "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"
    ):
        F.batch_norm(fw(rand((1, 3))), None, None, training=True)
    with raises(RuntimeError, "running_mean should contain 3 elements not 4"):
        F.batch_norm(fw(rand((2, 3))), fw(rand((4,))), fw(rand((3,))), training=True)
    with raises(RuntimeError, "running_mean must be defined in evaluation mode"):
        F.batch_norm(fw(rand((2, 3))), None, None)
    with raises(RuntimeError, "\"batch_norm\" not implemented for 'Long'"):
        F.batch_norm(framework.tensor([[1, 2], [3, 4]]), None, None, training=True)


# ---- losses -------------------------------------------------------------------------------------


def _log_softmax(x: Array, axis: int) -> Array:
    shifted = x - x.max(axis=axis, keepdims=True)
    result: Array = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return result


@pytest.mark.parametrize("dtype", FLOATS)
def test_cross_entropy_against_numpy(dtype: Any) -> None:
    x = rand((5, 4), dtype, 80, -3, 3)
    target = np.array([1, 0, 3, -100, 2])
    weight = rand((4,), dtype, 81, 0.5, 1.5)
    logp = _log_softmax(x.astype(np.float64), 1)
    kept = target != -100
    picked = -logp[np.arange(5)[kept], target[kept]] * weight[target[kept]]
    out = F.cross_entropy(fw(x), framework.from_numpy(target), fw(weight))
    close(out, np.asarray(picked.sum() / weight[target[kept]].sum(), dtype=dtype), dtype)
    smoothing = 0.2
    smooth = -(logp * weight).sum(1)[kept]
    expected = (1 - smoothing) * picked.sum() / weight[target[kept]].sum() + smoothing / 4 * (
        smooth.sum() / weight[target[kept]].sum()
    )
    close(
        F.cross_entropy(fw(x), framework.from_numpy(target), fw(weight), label_smoothing=smoothing),
        np.asarray(expected, dtype=dtype),
        dtype,
    )


CROSS_ENTROPY_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=True),
    dict(ignore_index=1),
    dict(label_smoothing=0.1),
    dict(label_smoothing=0.3, weight=True, reduction="sum"),
    dict(label_smoothing=0.25, weight=True),
    dict(label_smoothing=0.25, ignore_index=2, reduction="none"),
    dict(label_smoothing=0.4, weight=True, ignore_index=0),
]


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("kwargs", CROSS_ENTROPY_CASES)
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 2, 2), (4,)])
def test_cross_entropy_class_indices_against_torch(
    dtype: Any, kwargs: dict[str, Any], shape: tuple[int, ...]
) -> None:
    import torch

    x = rand(shape, dtype, 82, -3, 3)
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    target = np.random.default_rng(83).integers(0, classes, target_shape)
    options = dict(kwargs)
    weight = rand((classes,), dtype, 84, 0.5, 1.5) if options.pop("weight", False) else None
    tx = th(x, True)
    expected = torch.nn.functional.cross_entropy(
        tx, th(target), None if weight is None else th(weight), **options
    )
    ours_x = fw(x, True)
    ours = F.cross_entropy(
        ours_x, framework.from_numpy(np.asarray(target)), None if weight is None else fw(weight), **options
    )
    close(ours, expected, dtype, 10)
    g = rand(tuple(expected.shape), dtype, 85)
    (grad,) = torch.autograd.grad(expected, tx, th(g))
    ours.backward(fw(g))
    close(ours_x.grad, grad, dtype, 10)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "kwargs", [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.2, weight=True)]
)
def test_cross_entropy_probabilities_against_torch(dtype: Any, kwargs: dict[str, Any]) -> None:
    import torch

    x = rand((5, 3, 2), dtype, 86, -2, 2)
    target = np.exp(rand((5, 3, 2), dtype, 87))
    target = (target / target.sum(1, keepdims=True)).astype(dtype)
    options = dict(kwargs)
    weight = rand((3,), dtype, 88, 0.5, 1.5) if options.pop("weight", False) else None
    tx = th(x, True)
    expected = torch.nn.functional.cross_entropy(
        tx, th(target), None if weight is None else th(weight), **options
    )
    ours_x = fw(x, True)
    ours = F.cross_entropy(ours_x, fw(target), None if weight is None else fw(weight), **options)
    close(ours, expected, dtype, 10)
    g = rand(tuple(expected.shape), dtype, 89)
    (grad,) = torch.autograd.grad(expected, tx, th(g))
    ours.backward(fw(g))
    close(ours_x.grad, grad, dtype, 10)


def test_cross_entropy_errors() -> None:
    x = fw(rand((4, 5)))
    with raises(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, framework.tensor([1, 2, 3, 4]), label_smoothing=1.5)
    with raises(RuntimeError, "ignore_index is not supported for floating point target"):
        F.cross_entropy(x, fw(rand((4, 5))), ignore_index=1)
    with raises(RuntimeError, "Expected floating point type for target with class probabilities, got Long"):
        F.cross_entropy(x, framework.zeros((4, 5), dtype=framework.int64))
    with raises(ValueError, "foo is not a valid value for reduction"):
        F.cross_entropy(x, framework.tensor([1, 2, 3, 4]), reduction="foo")
    with raises(IndexError, "Target 5 is out of bounds."):
        F.cross_entropy(x, framework.tensor([1, 2, 3, 5]))
    with raises(RuntimeError, "expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(x, framework.tensor([1, 2, 3, 4], dtype=framework.int32))
    with raises(ValueError, "Expected input batch_size (4) to match target batch_size (3)."):
        F.nll_loss(x, framework.tensor([1, 2, 3]))
    with raises(RuntimeError, "Expected target size [2, 4], got [2, 5]"):
        F.nll_loss(fw(rand((2, 3, 4))), framework.zeros((2, 5), dtype=framework.int64))
    with pytest.warns(
        UserWarning, match="size_average and reduce args will be deprecated, please use reduction='sum'"
    ):
        F.nll_loss(x, framework.tensor([1, 2, 3, 4]), size_average=False)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_and_backward_against_torch(dtype: Any, reduction: str) -> None:
    import torch

    x = rand((5, 4), dtype, 90)
    target = np.array([1, 0, 3, 2, 2])
    weight = rand((4,), dtype, 91, 0.5, 1.5)
    tx = th(x, True)
    out = torch.nn.functional.nll_loss(tx, th(target), th(weight), ignore_index=2, reduction=reduction)
    close(
        F.nll_loss(fw(x), framework.from_numpy(target), fw(weight), ignore_index=2, reduction=reduction),
        out,
        dtype,
    )
    g = rand(tuple(out.shape), dtype, 92)
    (expected,) = torch.autograd.grad(out, tx, th(g))
    enum = {"none": 0, "mean": 1, "sum": 2}[reduction]
    _, total = A.nll_loss_forward(fw(x), framework.from_numpy(target), fw(weight), enum, 2)
    ours = A.nll_loss_backward(fw(g), fw(x), framework.from_numpy(target), fw(weight), enum, 2, total)
    close(ours, expected, dtype)


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_pointwise_losses_against_torch(dtype: Any, reduction: str) -> None:
    import torch

    tf = torch.nn.functional
    x, y = rand((3, 4), dtype, 93), rand((3, 4), dtype, 94)
    w = rand((3, 4), dtype, 95, 0.5, 1.5)
    for ours_fn, torch_fn in ((F.mse_loss, tf.mse_loss), (F.l1_loss, tf.l1_loss)):
        close(ours_fn(fw(x), fw(y), reduction=reduction), torch_fn(th(x), th(y), reduction=reduction), dtype)
        close(
            ours_fn(fw(x), fw(y), reduction=reduction, weight=fw(w)),
            torch_fn(th(x), th(y), reduction=reduction, weight=th(w)),
            dtype,
        )
    tx, ty = th(x, True), th(y, True)
    out = tf.mse_loss(tx, ty, reduction=reduction)
    g = rand(tuple(out.shape), dtype, 96)
    expected = torch.autograd.grad(out, (tx, ty), th(g))
    enum = {"none": 0, "mean": 1, "sum": 2}[reduction]
    close(A.mse_loss_backward(fw(g), fw(x), fw(y), enum), expected[0], dtype)
    close(A.mse_loss_backward(fw(g), fw(y), fw(x), enum), expected[1], dtype)
    p, t = rand((3, 4), dtype, 97, 0.05, 0.95), rand((3, 4), dtype, 98, 0.0, 1.0)
    row = rand((4,), dtype, 99, 0.5, 1.5)
    tp = th(p, True)
    out = tf.binary_cross_entropy(tp, th(t), th(row), reduction=reduction)
    close(F.binary_cross_entropy(fw(p), fw(t), fw(row), reduction=reduction), out, dtype)
    g = rand(tuple(out.shape), dtype, 100)
    (expected_p,) = torch.autograd.grad(out, tp, th(g))
    weight = fw(np.broadcast_to(row, (3, 4)).copy())
    close(A.binary_cross_entropy_backward(fw(g), fw(p), fw(t), weight, enum), expected_p, dtype)
    logits = rand((3, 4), dtype, 101, -4, 4)
    for pos_weight in (None, row):
        ours_l, expected_l = (
            bce(
                to(logits),
                to(t),
                to(w),
                reduction=reduction,
                pos_weight=None if pos_weight is None else to(pos_weight),
            )
            for bce, to in (
                (F.binary_cross_entropy_with_logits, fw),
                (tf.binary_cross_entropy_with_logits, th),
            )
        )
        close(ours_l, expected_l, dtype)


def test_loss_gradients_with_constant_weights() -> None:
    p, t = (
        fw(rand((2, 3), seed=102, low=0.1, high=0.9), True),
        fw(rand((2, 3), seed=103, low=0.1, high=0.9), True),
    )
    x = fw(rand((2, 3), seed=104, low=-3, high=3), True)
    weight, pos_weight = (
        fw(rand((2, 3), seed=105, low=0.5, high=1.5)),
        fw(rand((3,), seed=106, low=0.5, high=2.0)),
    )
    logits = fw(rand((5, 4), seed=107), True)
    class_weight = fw(rand((4,), seed=108, low=0.5, high=1.5))
    target = framework.tensor([1, 0, 3, 2, 2])
    checks: list[tuple[Callable[..., Tensor], tuple[Tensor, ...]]] = [
        (lambda p, t: F.binary_cross_entropy(p, t, weight), (p, t)),
        (lambda x, t: F.binary_cross_entropy_with_logits(x, t, weight, pos_weight=pos_weight), (x, t)),
        (lambda x: F.cross_entropy(x, target, class_weight, ignore_index=2, label_smoothing=0.2), (logits,)),
        (lambda x: F.nll_loss(x, target, class_weight, reduction="sum"), (logits,)),
    ]
    for fn, inputs in checks:
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)


def test_loss_errors() -> None:
    x = fw(rand((4,), low=0.1, high=0.9))
    with raises(
        ValueError,
        "Using a target size (torch.Size([3])) that is different to the input size (torch.Size([4])) is "
        "deprecated. Please ensure they have the same size.",
    ):
        F.binary_cross_entropy(x, fw(rand((3,))))
    with raises(RuntimeError, "all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(x + 1, x)
    with raises(ValueError, "Target size (torch.Size([3])) must be the same as input size (torch.Size([4]))"):
        F.binary_cross_entropy_with_logits(x, fw(rand((3,))))
    with pytest.warns(
        UserWarning, match=re.escape("Using a target size (torch.Size([4])) that is different")
    ):
        F.mse_loss(fw(rand((3, 4))), x)
    with raises(ValueError, "Weights and input must have the same size."):
        F.l1_loss(x, x, weight=fw(rand((3,))))
    with raises(RuntimeError, "\"mse_cpu\" not implemented for 'Long'"):
        F.mse_loss(framework.tensor([1]), framework.tensor([2]))


# ---- padding and dropout ------------------------------------------------------------------------


def test_constant_pad_against_numpy() -> None:
    x = rand((2, 3, 4), seed=110)
    expected = np.pad(x, ((0, 0), (2, 0), (1, 3)), constant_values=0.5)
    close(F.pad(fw(x), (1, 3, 2, 0), value=0.5), expected)
    close(F.pad(fw(x), (-1, 1)), np.pad(x[..., 1:], ((0, 0), (0, 0), (0, 1))))
    assert F.pad(framework.tensor([1, 2]), (1, 1), value=1.5).tolist() == [1, 1, 2, 1]


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(
    ("shape", "pads"),
    [
        ((2, 3, 4, 5), (1, 2, 3, 0)),
        ((2, 3, 5), (2, 1)),
        ((3, 4, 5), (0, 2, 1, 1)),
        ((1, 2, 4, 5), (-1, 2, 1, -2)),
    ],
)
def test_non_constant_pad_against_torch(
    dtype: Any, mode: str, shape: tuple[int, ...], pads: tuple[int, ...]
) -> None:
    import torch

    x = rand(shape, dtype, 111)
    tx = th(x, True)
    out = torch.nn.functional.pad(tx, pads, mode=mode)
    ours_x = fw(x, True)
    ours = F.pad(ours_x, pads, mode=mode)
    close(ours, out, dtype)
    g = rand(tuple(out.shape), dtype, 112)
    (expected,) = torch.autograd.grad(out, tx, th(g))
    ours.backward(fw(g))
    close(ours_x.grad, expected, dtype)
    if len(pads) == 4 and mode != "circular":
        op = A.reflection_pad2d_backward if mode == "reflect" else A.replication_pad2d_backward
        close(op(fw(g), fw(x), list(pads)), expected, dtype)


def test_pad_errors() -> None:
    x = fw(rand((2, 3, 4, 5)))
    with raises(RuntimeError, "Length of pad must be even but instead it equals 3"):
        F.pad(x, (1, 1, 1))
    with raises(NotImplementedError, "Unrecognised padding mode foo"):
        F.pad(x, (1, 1), mode="foo")
    with raises(RuntimeError, 'Padding mode "reflect" doesn\'t take in value argument'):
        F.pad(x, (1, 1, 1, 1), mode="reflect", value=2.0)
    with raises(
        RuntimeError,
        "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
        "(5, 1) at dimension 3 of input [2, 3, 4, 5]",
    ):
        F.pad(x, (5, 1, 1, 1), mode="reflect")
    with pytest.raises(
        NotImplementedError, match=re.escape("Padding size 2 is not supported for 4D input tensor.")
    ):
        F.pad(x, (1, 1), mode="reflect")


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 1.0])
def test_dropout_draws_torch_mask(dtype: Any, p: float) -> None:
    import torch

    x = rand((4, 5, 6), dtype, 120) + 2
    framework.manual_seed(7)
    torch.manual_seed(7)
    close(F.dropout(fw(x), p), torch.nn.functional.dropout(th(x), p), dtype)
    framework.manual_seed(8)
    torch.manual_seed(8)
    out, mask = A.native_dropout(fw(x), p, True)
    expected, expected_mask = torch.ops.aten.native_dropout(th(x), p, True)
    close(out, expected, dtype)
    assert np.array_equal(mask.numpy(), expected_mask.numpy())
    g = rand((4, 5, 6), dtype, 121)
    scale = 0.0 if p == 1 else 1 / (1 - p)
    close(
        A.native_dropout_backward(fw(g), mask, scale),
        torch.ops.aten.native_dropout_backward(th(g), expected_mask, scale),
        dtype,
    )


def test_dropout_modes_and_errors() -> None:
    x = fw(rand((3, 4), seed=122) + 2)
    assert F.dropout(x, 0.5, training=False) is x
    framework.manual_seed(3)
    out = F.dropout(x, 0.5)
    kept = out.numpy() != 0
    np.testing.assert_allclose(out.numpy()[kept], 2 * x.numpy()[kept])
    inplace = fw(x.numpy().copy())
    assert F.dropout(inplace, 0.5, inplace=True) is inplace
    with raises(ValueError, "dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    leaf = fw(rand((3, 4), seed=123), True)
    framework.manual_seed(4)
    F.dropout(leaf, 0.25).sum().backward()
    assert leaf.grad is not None
    assert set(np.unique(leaf.grad.numpy())) <= {0.0, 1 / 0.75}


# ---- linear and a training step -----------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_against_torch(dtype: Any) -> None:
    import torch

    x, w, b = rand((5, 3), dtype, 130), rand((4, 3), dtype, 131), rand((4,), dtype, 132)
    close(F.linear(fw(x), fw(w), fw(b)), torch.nn.functional.linear(th(x), th(w), th(b)), dtype)
    close(F.linear(fw(x), fw(w)), torch.nn.functional.linear(th(x), th(w)), dtype)
    x3 = rand((2, 5, 3), dtype, 133)
    close(F.linear(fw(x3), fw(w), fw(b)), torch.nn.functional.linear(th(x3), th(w), th(b)), dtype)


@needs_torch
def test_small_cnn_step_matches_torch() -> None:
    """One forward/backward of conv -> relu -> pool -> conv -> relu -> pool -> linear ->
    cross_entropy gives PyTorch's loss and gradients."""
    import torch

    tf = torch.nn.functional
    rng = np.random.default_rng(140)
    images = rng.standard_normal((16, 1, 8, 8))
    labels = rng.integers(0, 10, 16)
    shapes = [(16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (10, 32 * 2 * 2), (10,)]
    params = [rng.standard_normal(s) * 0.3 for s in shapes]
    ours = [fw(p, True) for p in params]
    theirs = [th(p, True) for p in params]

    def forward(F_: Any, x: Any, y: Any, p: list[Any]) -> Any:
        h = F_.max_pool2d(F_.relu(F_.conv2d(x, p[0], p[1], padding=1)), 2)
        h = F_.max_pool2d(F_.relu(F_.conv2d(h, p[2], p[3], padding=1)), 2)
        return F_.cross_entropy(F_.linear(h.reshape(h.shape[0], -1), p[4], p[5]), y)

    loss = forward(F, fw(images), framework.from_numpy(labels), ours)
    expected = forward(tf, th(images), th(labels), theirs)
    close(loss, expected)
    loss.backward()
    expected.backward()
    for mine, reference in zip(ours, theirs, strict=True):
        close(mine.grad, reference.grad)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    ("shape", "kernel"), [((128, 16, 8, 8), 2), ((3, 2, 7, 9), 3), ((2, 2, 4, 6), (2, 3))]
)
def test_max_pool_over_tiling_windows_keeps_pytorchs_choice(
    shape: tuple[int, ...], kernel: Any, dtype: Any
) -> None:
    """Windows that tile the input take the fast path: ties go to the first maximum and NaN wins,
    the last NaN of a window if there are several (PyTorch's scan, recorded from torch 2.13)."""
    a = rand(shape, dtype)
    a[0, 0, 0, :2] = np.nan  # two NaNs in one window: the second is the index
    a[-1, -1, :2, :2] = 5.0  # a window of ties: the first is the index
    ks = [kernel, kernel] if isinstance(kernel, int) else list(kernel)
    out, indices = A.max_pool2d_with_indices(framework.tensor(a), ks, ks)
    assert np.isnan(out.numpy()[0, 0, 0, 0]) and indices.numpy()[0, 0, 0, 0] == 1
    assert out.numpy()[-1, -1, 0, 0] == 5.0 and indices.numpy()[-1, -1, 0, 0] == 0
    windows = a[..., : out.shape[-2] * ks[0], : out.shape[-1] * ks[1]]
    blocks = windows.reshape(*shape[:2], out.shape[-2], ks[0], out.shape[-1], ks[1])
    expected = np.nanmax(blocks, axis=(3, 5))
    finite = ~np.isnan(out.numpy())
    np.testing.assert_array_equal(out.numpy()[finite], expected[finite])


@pytest.mark.parametrize(
    "shape",
    [(3, 2, 4, 4), (13, 16, 8, 8), (8, 1, 32, 32), (5, 600)],
    ids=["short", "tiled", "one-channel", "2d"],
)
def test_batch_last_layout_matches_moveaxis(shape: tuple[int, ...]) -> None:
    """The convolution's batch-last copy, tiled for long rows, equals NumPy's moveaxis copy,
    for contiguous and strided inputs and batches that are no multiple of the tile."""
    from framework.ops.kernels.nn import _batch_last

    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    strided = rng.standard_normal((shape[0], 2 * shape[1], *shape[2:])).astype(np.float32)[:, ::2]
    for x in (a, strided):
        got = _batch_last(x)
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(got, np.moveaxis(x, 0, -1))


def test_conv2d_gradients_over_long_rows_match_finite_differences() -> None:
    """conv2d's backward on gradients with rows long enough for the tiled batch-last copy (fast
    mode: the whole Jacobians would take one backward pass per output element, 9216 of them)."""
    rng = np.random.default_rng(1)
    x = framework.tensor(rng.standard_normal((9, 2, 16, 16)), requires_grad=True)
    w = framework.tensor(rng.standard_normal((4, 2, 3, 3)), requires_grad=True)
    assert gradcheck(lambda x, w: F.conv2d(x, w, padding=1), (x, w), fast_mode=True)


def test_threshold_backward_values_dtypes_and_errors() -> None:
    """relu's backward operator: the gradient where `self > threshold` (NaN lets it through),
    computed in the promoted dtype, with the threshold converted to it (PyTorch's checks)."""
    grad = framework.tensor([1.0, float("nan"), 3.0, 4.0])
    self_ = framework.tensor([-1.0, 0.0, float("nan"), 2.0])
    np.testing.assert_array_equal(framework.threshold_backward(grad, self_, 0).numpy(), [0.0, 0.0, 3.0, 4.0])
    ints = framework.threshold_backward(
        framework.ones(4, dtype=framework.int64), framework.tensor([-1, 0, 2, 3]), 0.5
    )
    assert ints.dtype is framework.int64 and ints.tolist() == [0, 0, 1, 1]
    promoted = framework.threshold_backward(framework.ones(2, 4, dtype=framework.float64), self_, 0)
    assert promoted.dtype is framework.float64 and promoted.shape == (2, 4)
    with pytest.raises(NotImplementedError, match="\"threshold_cpu\" not implemented for 'Bool'"):
        framework.threshold_backward(
            framework.ones(2, dtype=framework.bool), framework.ones(2, dtype=framework.bool), 0
        )
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        int8 = framework.ones(2, dtype=framework.int8)
        framework.threshold_backward(int8, int8, 300)
    meta = framework.threshold_backward(
        framework.empty(2, 3, device="meta"), framework.empty(3, device="meta"), 0
    )
    assert meta.device.type == "meta" and meta.shape == (2, 3)
    x = framework.tensor([-1.0, 2.0], requires_grad=True)
    assert type(x.relu().grad_fn).__name__ == "ReluBackward0"
    g = framework.ones(2, requires_grad=True)
    assert framework.threshold_backward(g, x, 0).grad_fn.name() == "ThresholdBackwardBackward0"
    if HAS_TORCH:
        import torch

        for g_np, s_np, threshold in (
            (grad.numpy(), self_.numpy(), 0),
            (np.arange(6.0), np.arange(6.0) - 2, 1.5),
        ):
            expected = torch.ops.aten.threshold_backward(torch.tensor(g_np), torch.tensor(s_np), threshold)
            got = framework.threshold_backward(framework.tensor(g_np), framework.tensor(s_np), threshold)
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
