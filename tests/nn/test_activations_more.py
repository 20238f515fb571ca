"""The activations of framework/ops/kernels/activation.py through framework.nn.functional and their
nn modules: values against NumPy references (always) in float32 and float64, in-place and out=
variants, dtypes, argument errors with PyTorch's texts, module reprs; and, when PyTorch is
importable, values, grad_fn names, gradients and warnings against PyTorch 2.13."""

from __future__ import annotations

import importlib.util
import math
import warnings
from collections.abc import Callable
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
TOL = {np.float32: (2e-6, 1e-6), np.float64: (1e-12, 1e-14)}
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def sample(
    dtype: Any = np.float64, seed: int = 0, shape: tuple[int, ...] = (3, 8), scale: float = 4.0
) -> Array:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def fw(a: Array, requires_grad: bool = False) -> Tensor:
    t = framework.from_numpy(np.array(a, order="C"))
    return t.requires_grad_() if requires_grad else t


def softplus_ref(x: Array, beta: float = 1.0, threshold: float = 20.0) -> Array:
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta)


def sigmoid_ref(x: Array) -> Array:
    return 1 / (1 + np.exp(-x))


# name, framework function, NumPy reference (on float64 values)
CASES: list[tuple[str, Callable[[Tensor], Tensor], Callable[[Array], Array]]] = [
    ("leaky_relu", F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    ("leaky_relu 0.2", lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    ("elu", F.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("elu 0.5", lambda x: F.elu(x, alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("celu 2", lambda x: F.celu(x, 2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2))),
    ("selu", F.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("softplus", F.softplus, softplus_ref),
    ("softplus 2 3", lambda x: F.softplus(x, 2.0, 3.0), lambda x: softplus_ref(x, 2.0, 3.0)),
    ("hardtanh", F.hardtanh, lambda x: np.clip(x, -1, 1)),
    ("hardtanh -2 0.5", lambda x: F.hardtanh(x, -2.0, 0.5), lambda x: np.clip(x, -2, 0.5)),
    ("relu6", F.relu6, lambda x: np.clip(x, 0, 6)),
    ("hardsigmoid", F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    ("hardswish", F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("mish", F.mish, lambda x: x * np.tanh(np.logaddexp(0, x))),
    ("logsigmoid", F.logsigmoid, lambda x: -np.logaddexp(0, -x)),
    ("softshrink", F.softshrink, lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    ("softshrink 2", lambda x: F.softshrink(x, 2.0), lambda x: np.sign(x) * np.maximum(np.abs(x) - 2, 0)),
    ("hardshrink", F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("softsign", F.softsign, lambda x: x / (1 + np.abs(x))),
    ("tanhshrink", F.tanhshrink, lambda x: x - np.tanh(x)),
    ("threshold", lambda x: F.threshold(x, 0.5, -2.0), lambda x: np.where(x <= 0.5, -2.0, x)),
    ("glu", F.glu, lambda x: x[:, :4] * sigmoid_ref(x[:, 4:])),
    ("glu 0", lambda x: F.glu(x[:2], 0), lambda x: x[:1] * sigmoid_ref(x[1:2])),
    ("softmin", lambda x: F.softmin(x, 1), lambda x: np.exp(-x) / np.exp(-x).sum(1, keepdims=True)),
    (
        "prelu",
        lambda x: F.prelu(x, framework.tensor([-0.2], dtype=x.dtype)),
        lambda x: np.where(x > 0, x, -0.2 * x),
    ),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_against_numpy(case: tuple[str, Any, Any], dtype: Any) -> None:
    _, fn, reference = case
    x = sample(dtype)
    result = fn(fw(x))
    assert result.dtype == framework.from_numpy(x).dtype
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(result.numpy(), reference(x.astype(np.float64)), rtol=rtol, atol=atol)


def test_softplus_large_inputs_do_not_overflow() -> None:
    x = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    np.testing.assert_allclose(F.softplus(fw(x), threshold=1000.0).numpy(), np.logaddexp(0, x))
    np.testing.assert_allclose(F.logsigmoid(fw(x)).numpy(), -np.logaddexp(0, -x))
    assert np.isfinite(F.mish(fw(x)).numpy()).all()


def test_float16_computes_in_float32() -> None:
    x = sample(np.float16)
    result = F.elu(fw(x))
    assert result.dtype == framework.float16
    expected = np.where(x > 0, x, np.expm1(x.astype(np.float32))).astype(np.float16)
    np.testing.assert_array_equal(result.numpy(), expected)


INPLACE = [
    ("leaky_relu", lambda x, inplace: F.leaky_relu(x, 0.1, inplace=inplace)),
    ("elu", lambda x, inplace: F.elu(x, 0.7, inplace=inplace)),
    ("celu", lambda x, inplace: F.celu(x, 0.7, inplace=inplace)),
    ("selu", lambda x, inplace: F.selu(x, inplace=inplace)),
    ("hardtanh", lambda x, inplace: F.hardtanh(x, -0.5, 0.5, inplace=inplace)),
    ("relu6", lambda x, inplace: F.relu6(x, inplace=inplace)),
    ("hardsigmoid", lambda x, inplace: F.hardsigmoid(x, inplace=inplace)),
    ("hardswish", lambda x, inplace: F.hardswish(x, inplace=inplace)),
    ("mish", lambda x, inplace: F.mish(x, inplace=inplace)),
    ("threshold", lambda x, inplace: F.threshold(x, 0.1, 20.0, inplace=inplace)),
]


@pytest.mark.parametrize("case", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_variants_write_their_input(case: tuple[str, Any]) -> None:
    _, fn = case
    x = sample()
    expected = fn(fw(x), False).numpy()
    t = fw(x)
    result = fn(t, True)
    assert result is t
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("leaky_relu", (0.2,)),
        ("elu", (0.5, 2.0, 1.5)),
        ("celu", (0.5,)),
        ("softplus", (2.0, 3.0)),
        ("hardtanh", (-0.5, 0.5)),
        ("hardsigmoid", ()),
        ("hardswish", ()),
        ("mish", ()),
        ("glu", (0,)),
        ("softshrink", (1.0,)),
        ("hardshrink", (1.0,)),
        ("threshold", (0.1, 3.0)),
    ],
)
def test_out_variants(op: str, args: tuple[Any, ...]) -> None:
    x = fw(sample(shape=(4, 6)))
    out = framework.empty(0, dtype=framework.float64)
    result = getattr(framework.ops.aten, op).out(x, *args, out=out)
    assert result is out
    np.testing.assert_array_equal(out.numpy(), getattr(framework.ops.aten, op).default(x, *args).numpy())


def test_integer_hardtanh_and_threshold_keep_the_dtype() -> None:
    x = framework.tensor([-3, -1, 0, 2, 5])
    assert F.hardtanh(x, -2, 3).tolist() == [-2, -1, 0, 2, 3]
    assert F.relu6(x).tolist() == [0, 0, 0, 2, 5]
    assert F.threshold(x, 0, 9).tolist() == [9, 9, 9, 2, 5]
    assert F.threshold(x, 0, 9).dtype == framework.int64


def test_meta_tensors_get_shapes_only() -> None:
    x = framework.empty((2, 6), device="meta")
    assert F.glu(x).shape == (2, 3)
    assert F.leaky_relu(x).device.type == "meta"
    output, buffer = framework.ops.aten.log_sigmoid_forward(x)
    assert output.shape == buffer.shape == (2, 6)


def test_log_sigmoid_forward_returns_the_output_and_its_buffer() -> None:
    x = sample()
    output, buffer = framework.ops.aten.log_sigmoid_forward(fw(x))
    np.testing.assert_allclose(buffer.numpy(), np.exp(-np.abs(x)))
    np.testing.assert_allclose(output.numpy(), -np.logaddexp(0, -x))


def _raises(exception: type[BaseException], message: str, fn: Callable[[], Any]) -> None:
    with pytest.raises(exception) as info:
        fn()
    assert str(info.value) == message


def test_errors() -> None:
    x = fw(sample())
    ints = framework.tensor([1, 2])
    _raises(NotImplementedError, "\"leaky_relu_cpu\" not implemented for 'Long'", lambda: F.leaky_relu(ints))
    _raises(NotImplementedError, "\"elu_cpu\" not implemented for 'Long'", lambda: F.selu(ints))
    _raises(RuntimeError, "Bool inputs not supported for hardtanh", lambda: F.hardtanh(ints.bool()))
    _raises(
        RuntimeError,
        "cannot do hardtanh on an unsigned type with negative limits",
        lambda: F.hardtanh(ints.to(framework.uint8)),
    )
    _raises(ValueError, "min_val cannot be greater than max_val", lambda: F.hardtanh(x, 2.0, 1.0))
    _raises(RuntimeError, "ZeroDivisionError: alpha cannot be 0 for CELU", lambda: F.celu(x, 0.0))
    _raises(
        RuntimeError, "glu does not support scalars because halving size must be even", lambda: F.glu(x[0, 0])
    )
    _raises(RuntimeError, "Halving dimension must be even, but dimension 0 is size 3", lambda: F.glu(x, 0))
    _raises(
        RuntimeError,
        "lambda must be in range [0, 1.79769e+308] for input dtype Double, but found -1",
        lambda: F.softshrink(x, -1.0),
    )
    _raises(RuntimeError, "Not allow zero-dim input tensor.", lambda: F.prelu(x[0, 0], framework.ones(3)))
    _raises(
        RuntimeError,
        "Mismatch of parameter numbers and input channel size. "
        "Found parameter numbers = 4 and channel size = 8.",
        lambda: F.prelu(x, framework.ones(4, dtype=framework.float64)),
    )
    _raises(
        RuntimeError,
        "prelu: Type promoting not supported. Got Double and Float",
        lambda: F.prelu(x, framework.ones(3)),
    )
    _raises(
        RuntimeError,
        "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
        lambda: F.prelu(x, framework.ones((3, 1), dtype=framework.float64)),
    )


def test_inplace_backward_with_a_negative_slope_is_refused() -> None:
    x = fw(sample(), requires_grad=True)
    y = F.leaky_relu(x * 1, -0.5, inplace=True)
    assert y.grad_fn is not None and y.grad_fn.name() == "LeakyReluBackward1"
    with pytest.raises(
        RuntimeError, match="In-place leakyReLu backward calculation is triggered with a negative"
    ):
        y.sum().backward()
    z = F.elu(x * 1, -0.5, inplace=True)
    with pytest.raises(
        RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"
    ):
        z.sum().backward()


GRAD_FNS = [
    ("leaky_relu", lambda x: F.leaky_relu(x), "LeakyReluBackward0"),
    ("leaky_relu_", lambda x: F.leaky_relu(x * 1, inplace=True), "LeakyReluBackward1"),
    ("elu_", lambda x: F.elu(x * 1, inplace=True), "EluBackward1"),
    ("celu", lambda x: F.celu(x), "CeluBackward0"),
    ("celu_", lambda x: F.celu(x * 1, inplace=True), "CeluBackward1"),
    ("selu", lambda x: F.selu(x), "EluBackward0"),
    ("relu6", lambda x: F.relu6(x), "HardtanhBackward0"),
    ("hardtanh_", lambda x: F.hardtanh(x * 1, inplace=True), "HardtanhBackward0"),
    ("threshold_", lambda x: F.threshold(x * 1, 0.1, 2.0, inplace=True), "ThresholdBackward1"),
    ("logsigmoid", lambda x: F.logsigmoid(x), "LogSigmoidBackward0"),
    ("prelu", lambda x: F.prelu(x, framework.tensor([0.25], dtype=x.dtype)), "PreluKernelBackward0"),
    ("softsign", lambda x: F.softsign(x), "DivBackward0"),
    ("tanhshrink", lambda x: F.tanhshrink(x), "SubBackward0"),
    ("softmin", lambda x: F.softmin(x, 1), "SoftmaxBackward0"),
]


@pytest.mark.parametrize("case", GRAD_FNS, ids=[c[0] for c in GRAD_FNS])
def test_grad_fn_names(case: tuple[str, Any, str]) -> None:
    _, fn, name = case
    result = fn(fw(sample(), requires_grad=True))
    assert result.grad_fn is not None and result.grad_fn.name() == name


def test_threshold_inplace_differentiates_through_the_original_input() -> None:
    x = np.array([-1.0, 0.05, 0.2, 3.0])
    t = fw(x, requires_grad=True)
    F.threshold(t * 1, 0.1, 2.0, inplace=True).sum().backward()
    assert t.grad is not None
    assert t.grad.tolist() == [0.0, 0.0, 1.0, 1.0]


def test_softmin_implicit_dim_warns() -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        F.softmin(fw(sample()))


# ---- modules ------------------------------------------------------------------------------------

REPRS = [
    (lambda: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda: nn.ELU(0.5, True), "ELU(alpha=0.5, inplace=True)"),
    (lambda: nn.CELU(), "CELU(alpha=1.0)"),
    (lambda: nn.SELU(inplace=True), "SELU(inplace=True)"),
    (lambda: nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.Hardtanh(-2.0, 2.0, True), "Hardtanh(min_val=-2.0, max_val=2.0, inplace=True)"),
    (lambda: nn.ReLU6(), "ReLU6()"),
    (lambda: nn.ReLU6(True), "ReLU6(inplace=True)"),
    (lambda: nn.Hardsigmoid(True), "Hardsigmoid()"),
    (lambda: nn.Hardswish(True), "Hardswish()"),
    (lambda: nn.Mish(True), "Mish(inplace=True)"),
    (lambda: nn.LogSigmoid(), "LogSigmoid()"),
    (lambda: nn.PReLU(3), "PReLU(num_parameters=3)"),
    (lambda: nn.GLU(), "GLU(dim=-1)"),
    (lambda: nn.Softsign(), "Softsign()"),
    (lambda: nn.Tanhshrink(), "Tanhshrink()"),
    (lambda: nn.Softshrink(0.3), "Softshrink(0.3)"),
    (lambda: nn.Hardshrink(), "Hardshrink(0.5)"),
    (lambda: nn.Threshold(0.1, 20.0), "Threshold(threshold=0.1, value=20.0)"),
    (lambda: nn.Threshold(0.1, 20.0, True), "Threshold(threshold=0.1, value=20.0, inplace=True)"),
    (lambda: nn.Softmin(1), "Softmin(dim=1)"),
    (lambda: nn.Softmax2d(), "Softmax2d()"),
]


@pytest.mark.parametrize(("make", "text"), REPRS, ids=[r[1] for r in REPRS])
def test_module_reprs(make: Callable[[], nn.Module], text: str) -> None:
    assert repr(make()) == text


def test_modules_apply_their_functions() -> None:
    x = fw(sample(shape=(2, 4, 3, 2)))
    pairs: list[tuple[nn.Module, Callable[[Tensor], Tensor]]] = [
        (nn.LeakyReLU(0.3), lambda t: F.leaky_relu(t, 0.3)),
        (nn.ELU(0.4), lambda t: F.elu(t, 0.4)),
        (nn.CELU(0.4), lambda t: F.celu(t, 0.4)),
        (nn.SELU(), F.selu),
        (nn.Softplus(2.0, 5.0), lambda t: F.softplus(t, 2.0, 5.0)),
        (nn.Hardtanh(-0.5, 0.5), lambda t: F.hardtanh(t, -0.5, 0.5)),
        (nn.ReLU6(), F.relu6),
        (nn.Hardsigmoid(), F.hardsigmoid),
        (nn.Hardswish(), F.hardswish),
        (nn.Mish(), F.mish),
        (nn.LogSigmoid(), F.logsigmoid),
        (nn.GLU(1), lambda t: F.glu(t, 1)),
        (nn.Softsign(), F.softsign),
        (nn.Tanhshrink(), F.tanhshrink),
        (nn.Softshrink(1.0), lambda t: F.softshrink(t, 1.0)),
        (nn.Hardshrink(1.0), lambda t: F.hardshrink(t, 1.0)),
        (nn.Threshold(0.2, -1.0), lambda t: F.threshold(t, 0.2, -1.0)),
        (nn.Softmin(1), lambda t: F.softmin(t, 1)),
        (nn.Softmax2d(), lambda t: F.softmax(t, -3)),
    ]
    for module, fn in pairs:
        np.testing.assert_array_equal(module(x).numpy(), fn(x).numpy())


def test_prelu_module_has_one_learned_slope_per_channel() -> None:
    module = nn.PReLU(4, init=0.1, dtype=framework.float64)
    assert module.weight.shape == (4,) and module.weight.tolist() == [0.1] * 4
    assert [name for name, _ in module.named_parameters()] == ["weight"]
    x = fw(sample(shape=(2, 4, 3)))
    y = module(x)
    np.testing.assert_allclose(y.detach().numpy(), np.where(x.numpy() > 0, x.numpy(), 0.1 * x.numpy()))
    y.sum().backward()
    assert module.weight.grad is not None
    expected = np.where(x.numpy() > 0, 0, x.numpy()).sum(axis=(0, 2))
    np.testing.assert_allclose(module.weight.grad.numpy(), expected)


def test_hardtanh_module_checks_and_deprecated_names() -> None:
    with pytest.raises(AssertionError, match=r"max_val \(0.0\) must be greater than min_val \(1.0\)"):
        nn.Hardtanh(1.0, 0.0)
    with pytest.warns(
        FutureWarning, match="keyword argument `min_value` is deprecated and rename to `min_val`"
    ):
        module = nn.Hardtanh(min_value=-3.0)
    assert module.min_val == -3.0


def test_softmax2d_rejects_other_ranks() -> None:
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(fw(sample()))


# ---- against PyTorch ----------------------------------------------------------------------------

TORCH_CASES = [
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {"alpha": 0.5}),
    ("celu", {"alpha": 2.0}),
    ("selu", {}),
    ("softplus", {"beta": 2.0, "threshold": 3.0}),
    ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("relu6", {}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
    ("mish", {}),
    ("logsigmoid", {}),
    ("softshrink", {"lambd": 1.5}),
    ("hardshrink", {}),
    ("softsign", {}),
    ("tanhshrink", {}),
    ("glu", {}),
    ("softmin", {"dim": 0}),
    ("threshold", {"threshold": 0.5, "value": -3.0}),
]


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), TORCH_CASES, ids=[f"{c[0]}{c[1]}" for c in TORCH_CASES])
def test_against_torch(name: str, kwargs: dict[str, Any]) -> None:
    import torch

    x = sample()
    seed = np.random.default_rng(1).standard_normal
    ours_in, theirs_in = fw(x, True), torch.from_numpy(x).requires_grad_()
    ours = getattr(F, name)(ours_in, **kwargs)
    theirs = getattr(torch.nn.functional, name)(theirs_in, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert ours.grad_fn is not None and ours.grad_fn.name() == theirs.grad_fn.name()
    g = seed(tuple(theirs.shape))
    (ours_grad,) = framework.autograd.grad(ours, [ours_in], framework.tensor(g))
    (theirs_grad,) = torch.autograd.grad(theirs, [theirs_in], torch.from_numpy(g))
    np.testing.assert_allclose(ours_grad.numpy(), theirs_grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
def test_float32_against_torch() -> None:
    import torch

    x = sample(np.float32)
    for name, kwargs in TORCH_CASES:
        ours = getattr(F, name)(fw(x), **kwargs).numpy()
        theirs = getattr(torch.nn.functional, name)(torch.from_numpy(x), **kwargs).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6, err_msg=name)


@needs_torch
def test_prelu_against_torch() -> None:
    import torch

    x = sample(shape=(2, 3, 4))
    w = np.array([0.2, -0.1, 0.5])
    ours_w, theirs_w = fw(w, True), torch.from_numpy(w).requires_grad_()
    ours = F.prelu(fw(x), ours_w)
    theirs = torch.nn.functional.prelu(torch.from_numpy(x), theirs_w)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    assert ours_w.grad is not None and theirs_w.grad is not None
    np.testing.assert_allclose(ours_w.grad.numpy(), theirs_w.grad.numpy())


@needs_torch
def test_module_reprs_match_torch() -> None:
    import torch

    for _, text in REPRS:
        name = text.partition("(")[0]
        assert name in dir(torch.nn)
    assert repr(torch.nn.Softplus(2, 10)) == repr(nn.Softplus(2, 10))
    assert repr(torch.nn.Hardsigmoid(True)) == repr(nn.Hardsigmoid(True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isclose(torch.nn.PReLU().weight.detach().item(), nn.PReLU().weight.detach().item())
