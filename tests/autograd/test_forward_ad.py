"""Forward-mode AD (`framework.autograd.forward_ad`): levels, dual tensors, propagation through
functional, view and in-place operators, custom Functions, printing and errors, against PyTorch's
behaviour (recorded values; live where PyTorch is installed)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import framework
from framework.autograd import forward_ad as fwAD

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture
def level() -> Iterator[int]:
    with fwAD.dual_level() as lvl:
        yield lvl


def _t(values: Any, dtype: framework.dtype = framework.float64) -> framework.Tensor:
    return framework.tensor(values, dtype=dtype)


def test_sin_of_square_matches_recorded_pytorch(level: int) -> None:
    x = fwAD.make_dual(_t([1.0, 2.0], framework.float32), _t([0.5, 0.25], framework.float32))
    primal, tangent = fwAD.unpack_dual((x * x).sin())
    np.testing.assert_allclose(primal.numpy(), [0.8415, -0.7568], atol=1e-4)
    assert tangent is not None
    np.testing.assert_allclose(tangent.numpy(), [0.5403, -0.6536], atol=1e-4)


def test_level_rules() -> None:
    x, t = _t([1.0, 2.0]), _t([1.0, 1.0])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, t)
    with pytest.raises(RuntimeError, match=r"^Dual level must be a positive number\.$"):
        fwAD.exit_dual_level()
    assert fwAD.unpack_dual(x) == (x, None)
    with fwAD.dual_level() as lvl:
        assert lvl == 0
        with pytest.raises(RuntimeError, match=r"^Nested forward mode AD is not supported at the moment$"):
            fwAD.enter_dual_level()
        dual = fwAD.make_dual(x, t)
        y = dual * 3
    assert fwAD.unpack_dual(y).tangent is None
    assert repr(y) == "tensor([3., 6.], dtype=framework.float64)"
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level(level=0)


def test_make_dual_errors(level: int) -> None:
    x = _t([1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=r"Tensor is of size \[2\] while the given forward gradient is of size \[3\]"
    ):
        fwAD.make_dual(x, _t([1.0, 2.0, 3.0]))
    with pytest.raises(
        ValueError, match=r"^Expected tangent to be floating point or complex, but got: framework\.int64$"
    ):
        fwAD.make_dual(x, framework.tensor([1, 2]))
    with pytest.raises(
        ValueError, match=r"^Expected primal to be floating point or complex, but got: framework\.int64$"
    ):
        fwAD.make_dual(framework.tensor([1, 2]), x)
    dual = fwAD.make_dual(x, x)
    with pytest.raises(
        RuntimeError, match="already has a forward gradient at the same level 0 is not supported"
    ):
        fwAD.make_dual(dual, x)


def test_dual_is_a_view_and_keeps_a_matching_tangent(level: int) -> None:
    x = _t([1.0, 2.0]).requires_grad_()
    t = _t([0.5, 0.25])
    dual = fwAD.make_dual(x, t)
    assert dual._base is x and type(dual.grad_fn).__name__ == "ViewBackward0"
    primal, tangent = fwAD.unpack_dual(dual)
    assert tangent is t
    assert primal._base is x and fwAD.unpack_dual(primal).tangent is None
    strided = _t([1.0, 9.0, 2.0, 9.0])[::2]
    stored = fwAD.unpack_dual(fwAD.make_dual(_t([0.0, 0.0]), strided)).tangent
    assert stored is not strided and stored is not None and stored.stride() == (1,)
    np.testing.assert_array_equal(stored.numpy(), [1.0, 2.0])


def test_view_tangent_is_a_view_of_the_tangent(level: int) -> None:
    t = _t([[1.0, 2.0], [3.0, 4.0]])
    dual = fwAD.make_dual(_t([[0.0, 0.0], [0.0, 0.0]]), t)
    for view in (dual.t(), dual[1], dual.view(4), dual.unbind(1)[0]):
        tangent = fwAD.unpack_dual(view).tangent
        assert tangent is not None and tangent._base is t


def test_inplace_updates_tangents(level: int) -> None:
    x = fwAD.make_dual(_t([1.0, 2.0]), _t([0.5, 0.25]))
    a = framework.zeros(2, dtype=framework.float64)
    a.add_(x)
    np.testing.assert_array_equal(fwAD.unpack_dual(a).tangent.numpy(), [0.5, 0.25])  # type: ignore[union-attr]
    # Writing a view of a tensor without tangent gives the base a zero tangent with the view's part.
    b = framework.zeros(3, dtype=framework.float64)
    b[1:].copy_(x)
    np.testing.assert_array_equal(fwAD.unpack_dual(b).tangent.numpy(), [0.0, 0.5, 0.25])  # type: ignore[union-attr]
    # A view made before its base got a tangent reads the base's.
    c = framework.ones(3, dtype=framework.float64)
    tail = c[1:]
    c.mul_(fwAD.make_dual(_t([1.0, 1.0, 1.0]), _t([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(fwAD.unpack_dual(tail).tangent.numpy(), [2.0, 3.0])  # type: ignore[union-attr]
    # exp_ reads its result: d exp(x) = exp(x) dx.
    e = fwAD.make_dual(_t([0.0, 1.0]), _t([1.0, 1.0])) * 1
    e.exp_()
    np.testing.assert_allclose(fwAD.unpack_dual(e).tangent.numpy(), [1.0, np.e])  # type: ignore[union-attr]


def test_multiple_outputs_and_non_differentiable_ones(level: int) -> None:
    m = fwAD.make_dual(
        framework.ones(2, 2, dtype=framework.float64), framework.eye(2, dtype=framework.float64)
    )
    values, indices = m.max(1)
    np.testing.assert_array_equal(fwAD.unpack_dual(values).tangent.numpy(), [1.0, 0.0])  # type: ignore[union-attr]
    assert fwAD.unpack_dual(indices).tangent is None
    assert fwAD.unpack_dual(m.detach()).tangent is None
    assert fwAD.unpack_dual(m.argmax()).tangent is None


def test_repr_shows_the_tangent(level: int) -> None:
    assert repr(fwAD.make_dual(framework.tensor(3.0), framework.tensor(0.123456789))) == (
        "tensor(3., tangent=0.12345679104328156)"
    )
    w = framework.tensor(3.0, requires_grad=True) * 1
    assert (
        repr(fwAD.make_dual(w, framework.tensor(2.0))) == "tensor(3., grad_fn=<ViewBackward0>, tangent=2.0)"
    )
    d = fwAD.make_dual(
        framework.ones(2, 2, dtype=framework.float64), framework.ones(2, 2, dtype=framework.float64) / 3
    )
    assert repr(d) == (
        "tensor([[1., 1.],\n        [1., 1.]], dtype=framework.float64,\n"
        "       tangent=tensor([[0.3333, 0.3333],\n        [0.3333, 0.3333]], dtype=framework.float64))"
    )


def test_reverse_over_forward(level: int) -> None:
    """The tangent is differentiable: a Hessian-vector product of sum(x^3) is 6 x v."""
    x = _t([1.0, 2.0]).requires_grad_()
    v = _t([1.0, -1.0])
    y = (fwAD.make_dual(x, v) ** 3).sum()
    tangent = fwAD.unpack_dual(y).tangent
    assert tangent is not None and tangent.grad_fn is not None
    np.testing.assert_allclose(tangent.item(), 3 * 1 - 3 * 4)
    (hvp,) = framework.autograd.grad(tangent, x)
    np.testing.assert_allclose(hvp.numpy(), [6.0, -12.0])


def test_complex_tangents(level: int) -> None:
    z = _t([1 + 2j, -0.5 + 1j], framework.complex128)
    t = _t([0.3 - 1j, 2 + 0.5j], framework.complex128)
    out = fwAD.make_dual(z, t)
    for fn, derivative in (
        (lambda a: a * a, lambda a: 2 * a),
        (lambda a: a / (a + 2), lambda a: 2 / (a + 2) ** 2),
        (lambda a: a.exp(), lambda a: a.exp()),
        (lambda a: a.sin(), lambda a: a.cos()),
        (lambda a: a.abs(), None),
        (lambda a: a.conj() * 1, None),
        (lambda a: a.conj() * a, None),
    ):
        tangent = fwAD.unpack_dual(fn(out)).tangent
        assert tangent is not None
        h = 1e-7
        expected = (fn(z + h * t) - fn(z - h * t)) / (2 * h)
        np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=1e-6)
        if derivative is not None:
            np.testing.assert_allclose(tangent.numpy(), (derivative(z) * t).numpy(), rtol=1e-12)


def test_training_ops_match_finite_differences(level: int) -> None:
    framework.manual_seed(0)
    model = framework.nn.Sequential(
        framework.nn.Conv2d(1, 2, 3), framework.nn.ReLU(), framework.nn.Flatten(), framework.nn.Linear(8, 3)
    ).double()
    x = framework.randn(2, 1, 4, 4, dtype=framework.float64)
    target = framework.tensor([0, 2])
    v = framework.randn(2, 1, 4, 4, dtype=framework.float64)

    def loss(inp: framework.Tensor) -> framework.Tensor:
        return framework.nn.functional.cross_entropy(model(inp), target)

    tangent = fwAD.unpack_dual(loss(fwAD.make_dual(x, v))).tangent
    assert tangent is not None
    with framework.no_grad():
        expected = (loss(x + 1e-6 * v) - loss(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(tangent.item(), expected.item(), rtol=1e-6)


class _Scale(framework.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: framework.Tensor, b: framework.Tensor, k: float) -> framework.Tensor:
        ctx.save_for_backward(a, b)
        ctx.save_for_forward(b)
        return a * b * k

    @staticmethod
    def jvp(ctx: Any, ta: framework.Tensor, tb: framework.Tensor, tk: None) -> framework.Tensor:
        assert tk is None
        np.testing.assert_array_equal(tb.numpy(), [0.0, 0.0])
        (b,) = ctx.saved_tensors
        return ta * b * 2

    @staticmethod
    def backward(ctx: Any, g: framework.Tensor) -> tuple[Any, ...]:
        return g, g, None


class _NoJvp(framework.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: framework.Tensor) -> framework.Tensor:
        return a * 2

    @staticmethod
    def backward(ctx: Any, g: framework.Tensor) -> framework.Tensor:
        return g * 2


def test_custom_function_jvp(level: int) -> None:
    x = fwAD.make_dual(framework.ones(2), framework.ones(2) * 5)
    y = _Scale.apply(x, framework.ones(2) * 3, 2.0)
    assert repr(y) == "tensor([6., 6.], tangent=tensor([30., 30.]))"
    with pytest.raises(
        NotImplementedError,
        match=r"^You must implement the jvp function for custom autograd\.Function to use it with "
        r"forward mode AD\.$",
    ):
        _NoJvp.apply(x)
    assert fwAD.unpack_dual(_NoJvp.apply(framework.ones(2))).tangent is None


def test_refused_operator_names_itself(level: int) -> None:
    x = fwAD.make_dual(_t([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]), _t([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]))
    with pytest.raises(
        NotImplementedError, match=r"^Trying to use forward AD with multi_margin_loss that does not"
    ):
        framework.nn.functional.multi_margin_loss(x, framework.tensor([0, 1]))


def test_off_costs_nothing_and_switch_is_restored() -> None:
    assert fwAD.ACTIVE == []
    with fwAD.dual_level():
        assert fwAD.ACTIVE == [0]
        fwAD._set_fwd_grad_enabled(False)
        assert not fwAD._is_fwd_grad_enabled()
        try:
            x = fwAD.make_dual(_t([1.0]), _t([1.0]))
            assert fwAD.unpack_dual(x * 2).tangent is None
        finally:
            fwAD._set_fwd_grad_enabled(True)
        assert fwAD._is_fwd_grad_enabled()
        assert fwAD.unpack_dual(x * 2).tangent is not None
    assert fwAD.ACTIVE == []


def _functional(t: Any) -> Any:
    """`nn.functional` of the library `t` belongs to (framework or torch)."""
    if isinstance(t, framework.Tensor):
        return framework.nn.functional
    import torch

    return torch.nn.functional


@pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")
@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.log_softmax(-1).sum(0),
        lambda m, x: (m @ x.t()).tanh(),
        lambda m, x: _functional(m).layer_norm(m * x, [3]),
        lambda m, x: m.cumsum(1) * x.var(),
        lambda m, x: m.transpose(0, 1)[1:].reshape(-1) ** 2,
        lambda m, x: m.sort(1).values - x.amax(0),
    ],
    ids=["log_softmax", "matmul_tanh", "layer_norm", "cumsum_var", "views_pow", "sort_amax"],
)
def test_against_torch(fn: Callable[[Any, Any], Any]) -> None:
    import torch
    import torch.autograd.forward_ad as torch_fw

    rng = np.random.default_rng(1)
    m, x, tm, tx = (rng.standard_normal((2, 3)) for _ in range(4))
    with fwAD.dual_level():
        ours = fwAD.unpack_dual(fn(fwAD.make_dual(_t(m), _t(tm)), fwAD.make_dual(_t(x), _t(tx)))).tangent
    with torch_fw.dual_level():
        duals = [torch_fw.make_dual(torch.from_numpy(p), torch.from_numpy(t)) for p, t in ((m, tm), (x, tx))]
        theirs = torch_fw.unpack_dual(fn(*duals)).tangent
    assert ours is not None
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
