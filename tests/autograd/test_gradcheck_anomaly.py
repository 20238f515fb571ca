"""gradcheck/gradgradcheck and anomaly detection against PyTorch: passing and failing checks with
PyTorch's report, NaN detection in backward with the forward traceback, set_detect_anomaly.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`."""

from __future__ import annotations

import importlib
import math
import re
from types import ModuleType
from typing import Any

import pytest
from ad_backends import backends, exactly, leaf

NAN_IN_DIV = "Function 'DivBackward0' returned nan values in its 0th output."
ANOMALY_ENABLED = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
    "for debugging."
)

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")


def gradcheck_error(m: ModuleType) -> type[RuntimeError]:
    """The library's GradcheckError (`autograd.gradcheck` names the function, so go through the module)."""
    error: type[RuntimeError] = importlib.import_module(f"{m.__name__}.autograd.gradcheck").GradcheckError
    return error


def cube(m: ModuleType, derivative_factor: float, detach_saved: bool) -> Any:
    """x**3 as a custom Function whose backward is `factor * x**2` (3 is right), with the saved x
    detached in backward when `detach_saved` (right once, wrong twice)."""

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            if detach_saved:
                x = x.detach()
            return grad * derivative_factor * x**2

    return Cube


def nan_in_div(m: ModuleType) -> Any:
    """x / x * 0 at x = [0, 1]: the backward of the division computes 0 / 0 in its 0th output."""
    x = leaf(m, [0.0, 1.0])
    return x, x / x * 0


# --- gradcheck / gradgradcheck ----------------------------------------------------------------


@backends()
def test_gradcheck_passes(m: ModuleType) -> None:
    a = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    b = leaf(m, [0.5, -0.5])
    assert m.autograd.gradcheck(lambda a, b: (a * b.exp()).sum(0), (a, b))
    assert m.autograd.gradgradcheck(lambda a, b: (a * b.exp()).sum(0), (a, b))
    assert m.autograd.gradcheck(lambda a, b: (a @ b, a.t() + 1), (a, b))
    right = cube(m, 3.0, detach_saved=False)
    assert m.autograd.gradcheck(right.apply, (leaf(m, [1.0, 2.0]),))
    assert m.autograd.gradgradcheck(right.apply, (leaf(m, [1.0, 2.0]),))


@backends()
def test_gradcheck_reports_a_wrong_backward(m: ModuleType) -> None:
    wrong = cube(m, 2.0, detach_saved=False)
    x = leaf(m, [1.0, 2.0])
    # the tensors print their dtype as the library names it: framework deliberately prints
    # `framework.float64` where PyTorch prints `torch.float64`
    report = (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[ 3.0000,  0.0000],\n"
        f"        [ 0.0000, 12.0000]], dtype={m.float64})\n"
        "analytical:tensor([[2., 0.],\n"
        f"        [0., 8.]], dtype={m.float64})\n"
    )
    with pytest.raises(gradcheck_error(m), match=exactly(report)):
        m.autograd.gradcheck(wrong.apply, (x,))
    assert issubclass(gradcheck_error(m), RuntimeError)
    assert m.autograd.gradcheck(wrong.apply, (x,), raise_exception=False) is False


@backends()
def test_gradgradcheck_reports_a_wrong_second_derivative(m: ModuleType) -> None:
    once_right = cube(m, 3.0, detach_saved=True)
    x = leaf(m, [1.0, 2.0])
    assert m.autograd.gradcheck(once_right.apply, (x,))
    with pytest.raises(gradcheck_error(m)) as info:
        m.autograd.gradgradcheck(once_right.apply, (x,))
    report = str(info.value)
    assert report.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor(")
    assert report.endswith(f"analytical:tensor([[0., 0.],\n        [0., 0.]], dtype={m.float64})\n")
    assert m.autograd.gradgradcheck(once_right.apply, (x,), raise_exception=False) is False


FAST_MODE_NOTE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
)


@backends()
def test_fast_mode_passes(m: ModuleType) -> None:
    a = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    b = leaf(m, [0.5, -0.5])
    assert m.autograd.gradcheck(lambda a, b: (a @ b, a.t() + 1), (a, b), fast_mode=True)
    assert m.autograd.gradgradcheck(lambda a, b: (a * b.exp()).sum(0), (a, b), fast_mode=True)
    right = cube(m, 3.0, detach_saved=False)
    assert m.autograd.gradcheck(right.apply, (leaf(m, [1.0, 2.0]),), fast_mode=True)


@backends()
def test_fast_mode_reports_the_projection_then_the_slow_jacobians(m: ModuleType) -> None:
    wrong = cube(m, 2.0, detach_saved=False)
    with pytest.raises(gradcheck_error(m)) as info:
        m.autograd.gradcheck(wrong.apply, (leaf(m, [1.0, 2.0]),), fast_mode=True)
    head, _, rest = str(info.value).partition(FAST_MODE_NOTE)
    # v^T J u with PyTorch's random unit vectors (its own generator at the default seed): the
    # analytical value is PyTorch's to the last digit, the finite difference to ~1e-9
    prefix, numerical, analytical = head.split("\n")[:3]
    assert prefix == "Jacobian mismatch for output 0 with respect to input 0,"
    assert float(numerical.removeprefix("numerical:")) == pytest.approx(9.38232328611296, rel=1e-9)
    assert analytical == "analytical:6.254882190289968"
    slow, _, difference = rest.partition("\n\nThe max per-element difference (slow mode) is: ")
    assert slow == (
        "Numerical:\n tensor([[ 3.0000,  0.0000],\n"
        f"        [ 0.0000, 12.0000]], dtype={m.float64})\n"
        "Analytical:\ntensor([[2., 0.],\n"
        f"        [0., 8.]], dtype={m.float64})"
    )
    assert float(difference.removesuffix(".\n")) == pytest.approx(4.0, rel=1e-8)


@backends()
def test_fast_mode_checks_reentrancy(m: ModuleType) -> None:
    class Noisy(m.autograd.Function):  # type: ignore[name-defined,misc]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2 + m.rand(grad.shape, dtype=grad.dtype) * 1e-9

    for fast_mode in (True, False):
        with pytest.raises(gradcheck_error(m)) as info:
            m.autograd.gradcheck(Noisy.apply, (leaf(m, [1.0, 2.0]),), fast_mode=fast_mode)
        assert str(info.value).startswith(
            "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
            "times gives different values, although analytical gradient matches numerical gradient.The "
            "tolerance for nondeterminism was 0.0.\n\nNOTE: If your op relies on non-deterministic"
        )
        assert str(info.value).endswith("  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


@backends()
def test_gradcheck_warns_about_single_precision(m: ModuleType) -> None:
    x = m.tensor([1.0, 2.0], dtype=m.float32, requires_grad=True)
    with pytest.warns(
        UserWarning,
        match=exactly(
            "Input #0 requires gradient and is not a double precision floating point or complex. This check "
            "will likely fail if all the inputs are not of double precision floating point or complex. "
        ),
    ):
        assert m.autograd.gradcheck(lambda t: t * 2, (x,), raise_exception=False) is False


@backends()
def test_gradcheck_needs_an_input_requiring_grad(m: ModuleType) -> None:
    with pytest.raises(
        ValueError,
        match=exactly(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True."
        ),
    ):
        m.autograd.gradcheck(lambda t: t * 2, (m.tensor([1.0, 2.0], dtype=m.float64),))


# --- anomaly detection ------------------------------------------------------------------------


@backends()
def test_detect_anomaly_reports_nan_with_the_forward_traceback(m: ModuleType) -> None:
    with pytest.warns(UserWarning, match=exactly(ANOMALY_ENABLED)), m.autograd.detect_anomaly():
        _, y = nan_in_div(m)
        with (
            pytest.warns(UserWarning, match="Error detected in DivBackward0") as record,
            pytest.raises(RuntimeError, match=exactly(NAN_IN_DIV)),
        ):
            y.sum().backward()
    (message,) = [str(w.message) for w in record if "Error detected" in str(w.message)]
    assert message.startswith(
        "Error detected in DivBackward0. Traceback of forward call that caused the error:\n"
    )
    assert f'File "{__file__}"' in message
    assert ", in nan_in_div\n    return x, x / x * 0\n" in message
    assert ", in test_detect_anomaly_reports_nan_with_the_forward_traceback\n" in message


@backends()
def test_anomaly_traceback_ends_at_the_forward_line(m: ModuleType) -> None:
    with m.autograd.detect_anomaly():
        _, y = nan_in_div(m)
        with (
            pytest.warns(UserWarning, match="Error detected in DivBackward0") as record,
            pytest.raises(RuntimeError),
        ):
            y.sum().backward()
    (message,) = [str(w.message) for w in record if "Error detected" in str(w.message)]
    lines = message.splitlines()
    last_frame = max(i for i, line in enumerate(lines) if line.startswith("  File "))
    assert lines[last_frame].endswith(", in nan_in_div")
    assert lines[last_frame + 1] == "    return x, x / x * 0"


@backends()
def test_detect_anomaly_without_forward_information(m: ModuleType) -> None:
    _, y = nan_in_div(m)
    with (
        m.autograd.detect_anomaly(),
        pytest.warns(
            UserWarning,
            match=re.escape(
                "Error detected in DivBackward0. No forward pass information available. Enable detect "
                "anomaly during forward pass for more information."
            ),
        ),
        pytest.raises(RuntimeError, match=exactly(NAN_IN_DIV)),
    ):
        y.sum().backward()


@backends()
def test_nan_passes_without_anomaly_detection_or_nan_check(m: ModuleType) -> None:
    x, y = nan_in_div(m)
    y.sum().backward()
    assert math.isnan(x.grad.tolist()[0])
    x, y = nan_in_div(m)
    with m.autograd.detect_anomaly(check_nan=False):
        y.sum().backward()
    assert math.isnan(x.grad.tolist()[0])


@backends()
@pytest.mark.filterwarnings("ignore:Error detected in DivBackward0:UserWarning")
def test_set_detect_anomaly(m: ModuleType) -> None:
    try:
        m.autograd.set_detect_anomaly(True)
        with pytest.raises(RuntimeError, match=exactly(NAN_IN_DIV)):
            nan_in_div(m)[1].sum().backward()
    finally:
        m.autograd.set_detect_anomaly(False)
    nan_in_div(m)[1].sum().backward()
    with m.autograd.set_detect_anomaly(True), pytest.raises(RuntimeError, match=exactly(NAN_IN_DIV)):
        nan_in_div(m)[1].sum().backward()
    nan_in_div(m)[1].sum().backward()
    with m.autograd.detect_anomaly(), m.autograd.set_detect_anomaly(False):
        nan_in_div(m)[1].sum().backward()


@backends()
def test_version_error_hint_under_anomaly_detection(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with m.autograd.detect_anomaly(), pytest.warns(UserWarning, match="Error detected in ExpBackward0"):
        y = x.exp()
        y.add_(1)
        with pytest.raises(
            RuntimeError,
            match=exactly(
                "one of the variables needed for gradient computation has been modified by an inplace "
                "operation: [torch.DoubleTensor [2]], which is output 0 of Exp, is at version 1; expected "
                "version 0 instead. Hint: the backtrace further above shows the operation that failed to "
                "compute its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!"
            ),
        ):
            y.sum().backward()
