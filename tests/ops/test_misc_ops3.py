"""The misc3 operators: ormqr, lobpcg, conv_tbc, embedding_renorm_ (and F.embedding's max_norm),
segment_reduce, Tensor.frexp and the deprecated Tensor.resize/resize_as: values against NumPy
oracles, PyTorch's error texts, and (when PyTorch is installed) values and gradients against it."""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")


def rand(*shape: int, seed: int = 0, complex_: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if complex_ else a


def t(a: Any) -> Tensor:
    return framework.tensor(np.asarray(a))


def spd(m: int, seed: int) -> np.ndarray:
    a = rand(m, m, seed=seed)
    return a @ a.T + m * np.eye(m)


# ---- ormqr ------------------------------------------------------------------------------------


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_is_the_product_with_q(complex_: bool, left: bool, transpose: bool) -> None:
    A = rand(2, 5, 3, seed=1, complex_=complex_)
    a, tau = framework.geqrf(t(A))
    Q = np.linalg.qr(A, mode="complete")[0]
    op = np.conj(np.swapaxes(Q, -1, -2)) if transpose else Q
    C = rand(2, 5, 4, seed=2, complex_=complex_) if left else rand(2, 4, 5, seed=2, complex_=complex_)
    expected = op @ C if left else C @ op
    np.testing.assert_allclose(framework.ormqr(a, tau, t(C), left, transpose).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(
        a.ormqr(tau, t(C), left=left, transpose=transpose).numpy(), expected, atol=1e-12
    )


def test_ormqr_out_and_empty() -> None:
    a, tau = framework.geqrf(t(rand(4, 2, seed=3)))
    out = framework.empty(0, dtype=framework.float64)
    result = framework.ormqr(a, tau, t(np.eye(4)), out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), np.linalg.qr(rand(4, 2, seed=3), mode="complete")[0], atol=1e-12)
    assert framework.ormqr(a, tau, framework.zeros(4, 0, dtype=framework.float64)).shape == (4, 0)
    with pytest.raises(
        RuntimeError, match="Expected input and result to have the same dtype, but input has dtypeDouble"
    ):
        framework.ormqr(a, tau, t(np.eye(4)), out=framework.empty(0))


@pytest.mark.parametrize(
    ("shapes", "kwargs", "message"),
    [
        (((3,), (3,), (3, 2)), {}, "torch.ormqr: input must have at least 2 dimensions."),
        (((5, 3), (3,), (3,)), {}, "torch.ormqr: other must have at least 2 dimensions."),
        (((5, 3), (3,), (4, 2)), {}, r"torch.ormqr: other.shape\[-2\] must be equal to input.shape\[-2\]"),
        (((5, 3), (3,), (4, 6)), {"left": False}, r"other.shape\[-1\] must be equal to input.shape\[-2\]"),
        (
            ((5, 3), (2,), (5, 4)),
            {},
            r"tau.shape\[-1\] must be equal to min\(other.shape\[-2\], input.shape\[-1\]\)",
        ),
        (((1, 5, 3), (3,), (1, 5, 2)), {}, "Expected tau to have one dimension less than input"),
        (((1, 5, 3), (1, 3), (5, 2)), {}, "Expected other to have the same number of dimensions as input"),
        (((2, 5, 3), (2, 3), (3, 5, 2)), {}, r"Expected batch dimensions of other .* but got \[3\]"),
    ],
)
def test_ormqr_errors(shapes: tuple[tuple[int, ...], ...], kwargs: dict[str, bool], message: str) -> None:
    args = [t(rand(*s, seed=i)) for i, s in enumerate(shapes)]
    with pytest.raises(RuntimeError, match=message):
        framework.ormqr(*args, **kwargs)


def test_ormqr_dtypes() -> None:
    with pytest.raises(
        RuntimeError, match="Expected input and tau to have the same dtype, but input has dtypeDouble"
    ):
        framework.ormqr(t(rand(3, 2)), framework.ones(2), t(rand(3, 2)))
    with pytest.raises(NotImplementedError, match="\"ormqr_cpu\" not implemented for 'Long'"):
        framework.ormqr(
            framework.ones(3, 2, dtype=framework.long),
            framework.ones(2, dtype=framework.long),
            framework.ones(3, 2, dtype=framework.long),
        )


@needs_torch
def test_ormqr_gradients_match_torch() -> None:
    import torch

    values = [rand(4, 3, seed=4), rand(3, seed=5), rand(3, 4, seed=6)]
    grads = []
    for lib in (torch, framework):
        inputs = [lib.tensor(v, requires_grad=True) for v in values]
        out = lib.ormqr(inputs[0], inputs[1], inputs[2], False, True)
        (out * lib.tensor(rand(3, 4, seed=7))).sum().backward()
        assert type(out.grad_fn).__name__ == "OrmqrBackward0"
        grads.append([x.grad.numpy() for x in inputs])
    for ours, theirs in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-10)


# ---- lobpcg -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenpairs(method: str, largest: bool) -> None:
    A = spd(18, seed=10)
    E, X = framework.lobpcg(t(A), k=2, X=t(rand(18, 3, seed=11)), largest=largest, method=method)
    w = np.linalg.eigh(A)[0]
    np.testing.assert_allclose(E.numpy(), w[::-1][:2] if largest else w[:2], rtol=1e-8)
    np.testing.assert_allclose(A @ X.numpy(), X.numpy() * E.numpy(), atol=1e-6)
    assert E.shape == (2,) and X.shape == (18, 2)


def test_lobpcg_generalized_batched_and_tracked() -> None:
    A, B = spd(12, seed=12), spd(12, seed=13)
    E, _ = framework.lobpcg(t(A), k=1, B=t(B), X=t(rand(12, 1, seed=14)))
    L = np.linalg.cholesky(B)
    Li = np.linalg.inv(L)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(Li @ A @ Li.T)[-1:], rtol=1e-8)
    steps: list[int] = []
    framework.lobpcg(t(A), k=1, X=t(rand(12, 1, seed=15)), tracker=lambda w: steps.append(w.ivars["istep"]))
    assert steps == list(range(1, len(steps) + 1))
    batch = np.stack([spd(9, seed=16), spd(9, seed=17)])
    framework.manual_seed(0)
    Eb, Xb = framework.lobpcg(t(batch), k=1)
    assert Eb.shape == (2, 1) and Xb.shape == (2, 9, 1)
    np.testing.assert_allclose(Eb.numpy()[:, 0], np.linalg.eigvalsh(batch)[:, -1], rtol=1e-8)


def test_lobpcg_errors() -> None:
    with pytest.raises(AssertionError, match="A must be square"):
        framework.lobpcg(framework.randn(4, 5))
    with pytest.raises(
        ValueError,
        match=r"number of A rows \(=5\) is smaller than 3 x the number of requested eigenpairs \(=2\)",
    ):
        framework.lobpcg(framework.randn(5, 5), k=2)
    A = t(spd(9, seed=18)).requires_grad_()
    E, _ = framework.lobpcg(A, k=1, B=framework.eye(9, dtype=framework.float64))
    with pytest.raises(ValueError, match=r"lobpcg\.backward does not support backward with B != I yet\."):
        E.sum().backward()


def test_lobpcg_eigenvalue_gradient() -> None:
    A_np = spd(12, seed=19)
    A = t(A_np).requires_grad_()
    E, _ = framework.lobpcg(A, k=2, X=t(rand(12, 2, seed=20)))
    assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
    E.sum().backward()
    U = np.linalg.eigh(A_np)[1][:, ::-1][:, :2]
    np.testing.assert_allclose(A.grad.numpy(), U @ U.T, atol=1e-6)


@needs_torch
def test_lobpcg_eigenvector_gradient_matches_torch() -> None:
    import torch

    A, X0, G = spd(12, seed=21), rand(12, 2, seed=22), rand(12, 2, seed=23)
    grads = []
    for lib in (torch, framework):
        At = lib.tensor(A, requires_grad=True)
        _, U = lib.lobpcg(At, k=2, X=lib.tensor(X0))
        ((U * lib.sign(U[:1])) * lib.tensor(G)).sum().backward()
        grads.append(At.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], atol=1e-7)


# ---- conv_tbc ---------------------------------------------------------------------------------


def _conv_tbc_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, pad: int) -> np.ndarray:
    padded = np.pad(x, ((pad, pad), (0, 0), (0, 0))) if pad >= 0 else x[-pad:pad]
    windows = np.lib.stride_tricks.sliding_window_view(padded, w.shape[0], axis=0)
    return np.einsum("tbck,kco->tbo", windows, w) + b


@pytest.mark.parametrize("pad", [0, 2, -1])
def test_conv_tbc(pad: int) -> None:
    x, w, b = rand(6, 2, 3, seed=30), rand(3, 3, 4, seed=31), rand(4, seed=32)
    out = framework.nn.functional.conv_tbc(t(x), t(w), t(b), pad)
    np.testing.assert_allclose(out.numpy(), _conv_tbc_reference(x, w, b, pad), atol=1e-12)
    xt = t(x).requires_grad_()
    framework.conv_tbc(xt, t(w), t(b), pad).sum().backward()
    assert xt.grad is not None and xt.grad.shape == x.shape


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((2, 3), (2, 3, 4), (4,)), "Input must have 3 dims: time, batch, in_channel"),
        (
            ((5, 2, 3), (3, 4), (4,)),
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.",
        ),
        (((5, 2, 3), (2, 3, 4), (1, 4)), "Bias must be 1-D"),
        (
            ((5, 2, 3), (2, 3, 4), (3,)),
            r"Bias size must equal dim 2 in the weight tensor \(output channels\).",
        ),
        (
            ((5, 2, 3), (2, 2, 4), (4,)),
            r"Input dim 2 \(input channels\) is not == dim 1 in the weight tensor",
        ),
        (((5, 2, 3), (7, 3, 4), (4,)), r"Trying to create tensor with negative dimension -1: \[-1, 2, 4\]"),
    ],
)
def test_conv_tbc_errors(shapes: tuple[tuple[int, ...], ...], message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        framework.conv_tbc(*[t(rand(*s)) for s in shapes])


# ---- embedding_renorm_ ------------------------------------------------------------------------


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_embedding_renorm(norm_type: float) -> None:
    w, idx = rand(6, 4, seed=40) * 3, np.array([[0, 4], [4, -1]])
    expected = w.copy()
    for row in np.unique(idx % 6):
        norm = np.linalg.norm(w[row], norm_type)
        if norm > 2.0:
            expected[row] = w[row] * (2.0 / (norm + 1e-7))
    weight = t(w)
    assert framework.embedding_renorm_(weight, t(idx), 2.0, norm_type) is weight
    np.testing.assert_allclose(weight.numpy(), expected, rtol=1e-12)
    weight = t(w)
    framework.nn.functional.embedding(t(idx % 6), weight, max_norm=2.0, norm_type=norm_type)
    np.testing.assert_allclose(weight.numpy(), expected, rtol=1e-12)


def test_embedding_renorm_errors() -> None:
    with pytest.raises(
        RuntimeError,
        match="Expected 2-dimensional tensor, but got 1-dimensional tensor for argument #1 'self'",
    ):
        framework.embedding_renorm_(framework.ones(3), t([0]), 1.0, 2.0)
    with pytest.raises(
        RuntimeError, match="argument #2 'indices' to have one of the following scalar types: Long, Int"
    ):
        framework.embedding_renorm_(framework.ones(3, 2), framework.ones(1), 1.0, 2.0)
    with pytest.raises(
        IndexError, match=r"select\(\): index 3 out of range for tensor of size \[3, 2\] at dimension 0"
    ):
        framework.embedding_renorm_(framework.ones(3, 2), t([3]), 1.0, 2.0)
    with pytest.raises(
        RuntimeError, match=r"norm\(\): input dtype should be either floating point or complex. Got Int"
    ):
        framework.embedding_renorm_(framework.ones(3, 2, dtype=framework.int32), t([0]), 1.0, 2.0)
    y = framework.ones(3, 2, requires_grad=True) * 2
    framework.embedding_renorm_(y, t([0]), 1.0, 2.0)
    assert type(y.grad_fn).__name__ == "EmbeddingRenormBackward0"
    with pytest.raises(RuntimeError, match="derivative for embedding_renorm is not implemented"):
        y.sum().backward()


# ---- segment_reduce ---------------------------------------------------------------------------

_EMPTY = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf, "mean": np.nan}
_NUMPY = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


@pytest.mark.parametrize("reduce", ["sum", "prod", "max", "min", "mean"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce(reduce: str, initial: float | None) -> None:
    data, lengths = rand(2, 6, 3, seed=50), np.array([[2, 0, 4], [1, 3, 2]])
    result = framework.segment_reduce(t(data), reduce, lengths=t(lengths), axis=1, initial=initial)
    offsets = np.concatenate([np.zeros((2, 1), np.int64), lengths.cumsum(-1)], -1)
    by_offsets = framework.segment_reduce(t(data), reduce, offsets=t(offsets), axis=-2, initial=initial)
    expected = np.empty((2, 3, 3))
    for b in range(2):
        for s in range(3):
            part = data[b, offsets[b, s] : offsets[b, s + 1]]
            if initial is not None:
                joined = {
                    "sum": initial + part.sum(0),
                    "prod": initial * part.prod(0),
                    "max": np.maximum(initial, part.max(0, initial=-np.inf)),
                    "min": np.minimum(initial, part.min(0, initial=np.inf)),
                    "mean": (initial + part.sum(0)) / len(part) if len(part) else np.full(3, initial),
                }
                expected[b, s] = joined[reduce]
            else:
                expected[b, s] = _NUMPY[reduce](part, 0) if len(part) else _EMPTY[reduce]
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(by_offsets.numpy(), expected, rtol=1e-12)


def test_segment_reduce_accumulates_in_its_dtype() -> None:
    ones = framework.ones(3000, dtype=framework.float16)
    assert framework.segment_reduce(ones, "sum", lengths=t([3000])).item() == 2048.0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, RuntimeError, r"segment_reduce\(\): Either lengths or offsets must be defined."),
        ({"indices": t([0])}, RuntimeError, "indices based reduction is not supported yet."),
        ({"lengths": t([2, 3])}, RuntimeError, "Expected all rows of lengths along axis to sum to"),
        ({"lengths": t([7, -1])}, RuntimeError, "lengths contains negative value!"),
        (
            {"lengths": t([[6]]), "axis": 0},
            RuntimeError,
            r"Expected data.dim\(\) >= lengths_value.dim\(\) to be true",
        ),
        (
            {"lengths": t([6.0])},
            NotImplementedError,
            "\"_segment_reduce_lengths_cpu_kernel1\" not implemented for 'Double'",
        ),
        ({"offsets": t([0, 4, 2])}, RuntimeError, "Expected segment_length >= 0 to be true"),
        (
            {"lengths": t([6]), "reduce": "SUM"},
            RuntimeError,
            "reduce argument must be either sum, prod, mean, amax or amin",
        ),
    ],
)
def test_segment_reduce_errors(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    reduce = kwargs.pop("reduce", "sum")
    with pytest.raises(error, match=message):
        framework.segment_reduce(t(rand(6)), reduce, **kwargs)
    with pytest.raises(NotImplementedError, match="\"_segment_reduce_cpu\" not implemented for 'Long'"):
        framework.segment_reduce(framework.ones(2, dtype=framework.long), "sum", lengths=t([2]))


@needs_torch
@pytest.mark.parametrize("reduce", ["max", "prod", "mean"])
def test_segment_reduce_backward_matches_torch(reduce: str) -> None:
    import torch

    data = np.array([3.0, 1, 3, 2, 2, np.nan, 0.0, 0.0, 4.0])
    grads = []
    for lib in (torch, framework):
        x = lib.tensor(data, requires_grad=True)
        out = lib.segment_reduce(
            x, reduce, lengths=lib.tensor([3, 2, 4]), initial=2.0 if reduce == "prod" else None
        )
        out.backward(lib.tensor([-1.0, 2.0, 5.0]))
        assert type(out.grad_fn).__name__ == "SegmentReduceBackward0"
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


# ---- Tensor methods: frexp, resize, resize_as -------------------------------------------------


def test_frexp_method() -> None:
    mantissa, exponent = t([1.0, 6.0, -0.25]).frexp()
    expected = np.frexp([1.0, 6.0, -0.25])
    np.testing.assert_array_equal(mantissa.numpy(), expected[0])
    np.testing.assert_array_equal(exponent.numpy(), expected[1])


def test_resize_and_resize_as_are_deprecated_views() -> None:
    x = framework.arange(6.0).reshape(2, 3).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x.resize(3, 2)
        z = x.resize_as(framework.empty(6))
    assert [str(w.message) for w in caught] == [
        "non-inplace resize is deprecated",
        "non-inplace resize_as is deprecated",
    ]
    assert y.shape == (3, 2) and z.shape == (6,) and type(y.grad_fn).__name__ == "ResizeBackward"
    (y * framework.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(2, 3))
    with (
        pytest.warns(UserWarning),
        pytest.raises(RuntimeError, match=r"requested resize to 4 \(4 elements in total\), but"),
    ):
        x.resize(4)
