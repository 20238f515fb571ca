"""Custom autograd Functions against PyTorch: both forward styles, saved tensors, needs_input_grad,
mark_dirty, mark_non_differentiable, set_materialize_grads, gradient-count checks, non-tensor
inputs, double backward, once_differentiable.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`.
The Function classes are made per library (`functions(m)`) since they subclass its `Function`."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from ad_backends import (
    ACCUMULATE_GRAD,
    SECOND_BACKWARD,
    assert_saved_modified,
    backends,
    edges,
    exactly,
    leaf,
)

import framework
from framework import Tensor


@functools.cache
def functions(m: ModuleType) -> SimpleNamespace:
    """The custom Functions of these tests, subclassing `m.autograd.Function`."""

    def function(
        name: str, forward: Callable[..., Any], backward: Callable[..., Any] | None = None, **more: Any
    ) -> Any:
        """A subclass `name` of `m.autograd.Function` whose static methods are `forward`, `backward`
        (without one, the base class's, which refuses) and `more`; its node is `<name>Backward`."""
        methods = {"forward": forward, **more}
        if backward is not None:
            methods["backward"] = backward
        return type(name, (m.autograd.Function,), {key: staticmethod(f) for key, f in methods.items()})

    def save_and_cube(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        ctx.grad_enabled_in_forward = m.is_grad_enabled()
        return x**3

    def cube_backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2

    def save_exp(ctx: Any, x: Any) -> Any:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    def scale_shift(ctx: Any, a: Any, k: float, b: Any) -> Any:
        """a * k + b with a float k."""
        ctx.k = k
        return a * k + b

    def scale_shift_backward(ctx: Any, grad: Any) -> Any:
        needs = ctx.needs_input_grad
        return (grad * ctx.k if needs[0] else None, None, grad if needs[2] else None)

    def double_in_place(ctx: Any, a: Any) -> Any:
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    def max_with_index(ctx: Any, a: Any) -> Any:
        index = m.argmax(a)
        doubled = a * 2
        ctx.mark_non_differentiable(index, doubled)
        ctx.save_for_backward(index)
        return a.max(), index, doubled

    def max_with_index_backward(ctx: Any, grad: Any, grad_index: Any, grad_doubled: Any) -> Any:
        (index,) = ctx.saved_tensors
        out = m.zeros(3, dtype=m.float64)
        out[index] = grad
        return out

    def two_outputs(ctx: Any, a: Any, materialize: bool) -> Any:
        ctx.set_materialize_grads(materialize)
        return a * 2, a * 3

    def two_outputs_backward(ctx: Any, grad2: Any, grad3: Any) -> Any:
        ctx.received = (values_or_none(grad2), values_or_none(grad3))
        total = m.zeros(2, dtype=m.float64)
        if grad2 is not None:
            total = total + grad2 * 2
        if grad3 is not None:
            total = total + grad3 * 3
        return total, None

    return SimpleNamespace(
        Cube=function("Cube", save_and_cube, cube_backward),
        CubeSetup=function(
            "CubeSetup",
            lambda x: x**3,
            cube_backward,
            setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
        ),
        OnceCube=function("OnceCube", save_and_cube, m.autograd.function.once_differentiable(cube_backward)),
        SaveExp=function("SaveExp", save_exp, lambda ctx, grad: grad * ctx.saved_tensors[0]),
        ScaleShift=function("ScaleShift", scale_shift, scale_shift_backward),
        TooFew=function("TooFew", lambda ctx, a, b: a + b, lambda ctx, grad: grad),
        TooMany=function("TooMany", lambda ctx, a: a * 2, lambda ctx, grad: (grad * 2, grad)),
        TrailingNone=function("TrailingNone", lambda ctx, a: a * 2, lambda ctx, grad: (grad * 2, None)),
        GradForFloat=function("GradForFloat", lambda ctx, a, k: a * k, lambda ctx, grad: (grad * 2, grad)),
        DoubleInPlace=function("DoubleInPlace", double_in_place, lambda ctx, grad: grad * 2),
        Identity=function("Identity", lambda ctx, a: a, lambda ctx, grad: grad * 2),
        MaxWithIndex=function("MaxWithIndex", max_with_index, max_with_index_backward),
        TwoOutputs=function("TwoOutputs", two_outputs, two_outputs_backward),
        # returns its first input as is and a new tensor
        PassThrough=function("PassThrough", lambda ctx, x, y: (x, y * 2), lambda ctx, g, h: (g * 10, h * 2)),
        WrongShape=function("WrongShape", lambda ctx, x: x * 2, lambda ctx, grad: m.ones(3, dtype=m.float64)),
        NoBackward=function("NoBackward", lambda ctx, x: x * 2),
    )


def values_or_none(grad: Any) -> list[float] | None:
    return None if grad is None else list(grad.tolist())


# --- forward styles ---------------------------------------------------------------------------


@backends()
def test_forward_with_ctx(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = functions(m).Cube.apply(x)
    assert y.tolist() == [1.0, 8.0]
    assert (y.requires_grad, y.is_leaf, y.grad_fn.name()) == (True, False, "CubeBackward")
    assert edges(y.grad_fn) == [(ACCUMULATE_GRAD, 0)]
    assert y.grad_fn.grad_enabled_in_forward is False
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


@backends()
def test_forward_with_setup_context(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = functions(m).CubeSetup.apply(x)
    assert (y.tolist(), y.grad_fn.name()) == ([1.0, 8.0], "CubeSetupBackward")
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


@backends()
def test_no_node_without_inputs_requiring_grad(m: ModuleType) -> None:
    cube = functions(m).Cube
    y = cube.apply(m.tensor([1.0, 2.0], dtype=m.float64))
    assert (y.requires_grad, y.grad_fn) == (False, None)
    with m.no_grad():
        y = cube.apply(leaf(m, [1.0, 2.0]))
    assert (y.requires_grad, y.grad_fn) == (False, None)


@backends()
def test_apply_with_keyword_arguments(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    assert functions(m).Cube.apply(x=x).tolist() == [1.0, 8.0]


# --- inputs and gradients ---------------------------------------------------------------------


@backends()
def test_needs_input_grad_and_non_tensor_inputs(m: ModuleType) -> None:
    a = leaf(m, [1.0, 2.0])
    b = m.tensor([3.0, 4.0], dtype=m.float64)
    y = functions(m).ScaleShift.apply(a, 5.0, b)
    assert y.tolist() == [8.0, 14.0]
    assert y.grad_fn.needs_input_grad == (True, False, False)
    # only tensor inputs have an edge
    assert edges(y.grad_fn) == [(ACCUMULATE_GRAD, 0), (None, 0)]
    y.sum().backward()
    assert a.grad.tolist() == [5.0, 5.0]


def one_leaf(m: ModuleType) -> tuple[Any, ...]:
    """The inputs [1., 2.] of a Function taking one tensor."""
    return (leaf(m, [1.0, 2.0]),)


@backends()
@pytest.mark.parametrize(
    ("name", "inputs", "error", "message"),
    [
        pytest.param(
            "TooFew",
            lambda m: (leaf(m, [1.0, 2.0]), leaf(m, [1.0, 2.0])),
            RuntimeError,
            "function TooFewBackward returned an incorrect number of gradients (expected 2, got 1)",
            id="too-few",
        ),
        pytest.param(
            "TooMany",
            one_leaf,
            RuntimeError,
            "function TooManyBackward returned an incorrect number of gradients (expected 1, got 2)",
            id="too-many",
        ),
        pytest.param(
            "GradForFloat",
            lambda m: (leaf(m, [1.0, 2.0]), 2.0),
            RuntimeError,
            "function GradForFloatBackward returned a gradient different than None at position 2, but the "
            "corresponding forward input was not a Variable",
            id="grad-for-a-float",
        ),
        pytest.param(
            "WrongShape",
            one_leaf,
            RuntimeError,
            "Function WrongShapeBackward returned an invalid gradient at index 0 - got [3] but expected "
            "shape compatible with [2]",
            id="wrong-shape",
        ),
        pytest.param(
            "NoBackward",
            lambda m: (leaf(m, [1.0]),),
            NotImplementedError,
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.",
            id="missing-backward",
        ),
    ],
)
def test_wrong_gradients_or_no_backward(
    m: ModuleType,
    name: str,
    inputs: Callable[[ModuleType], tuple[Any, ...]],
    error: type[Exception],
    message: str,
) -> None:
    """Function `name`'s backward returns too few or too many gradients, one for a non-tensor input
    or one of the wrong shape, or is missing: the backward through it fails with `message`."""
    with pytest.raises(error, match=exactly(message)):
        getattr(functions(m), name).apply(*inputs(m)).sum().backward()


@backends()
def test_trailing_none_gradients_are_dropped(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    functions(m).TrailingNone.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


# --- ctx.mark_* and set_materialize_grads -----------------------------------------------------


@backends()
def test_mark_dirty(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    a = x * 1
    y = functions(m).DoubleInPlace.apply(a)
    assert y is a
    assert (a.grad_fn.name(), a.tolist()) == ("DoubleInPlaceBackward", [2.0, 4.0])
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@backends()
def test_mark_dirty_bumps_the_version(m: ModuleType) -> None:
    a = leaf(m, [1.0, 2.0]) * 1
    functions(m).DoubleInPlace.apply(a)
    assert a._version == 2


@backends()
def test_mark_dirty_on_a_leaf(m: ModuleType) -> None:
    with pytest.raises(
        RuntimeError,
        match=exactly("a leaf Variable that requires grad has been used in an in-place operation."),
    ):
        functions(m).DoubleInPlace.apply(leaf(m, [1.0, 2.0]))


@backends()
def test_returning_an_input(m: ModuleType) -> None:
    fns = functions(m)
    x = leaf(m, [1.0, 2.0])
    y = fns.Identity.apply(x)
    assert (y is x, y.grad_fn.name(), x.is_leaf) == (False, "IdentityBackward", True)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    x, w = leaf(m, [1.0]), leaf(m, [2.0])
    a, b = fns.PassThrough.apply(x, w)
    assert (a is x, a.grad_fn.name(), x.is_leaf) == (False, "PassThroughBackward", True)
    assert b.grad_fn is a.grad_fn
    (a + b).sum().backward()
    assert (x.grad.tolist(), w.grad.tolist()) == ([10.0], [2.0])


@backends()
def test_returned_input_is_a_view(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = functions(m).Identity.apply(x)
    assert y._base is x


@backends()
def test_mark_non_differentiable(m: ModuleType) -> None:
    x = leaf(m, [1.0, 5.0, 2.0])
    maximum, index, doubled = functions(m).MaxWithIndex.apply(x)
    assert (maximum.requires_grad, maximum.grad_fn.name()) == (True, "MaxWithIndexBackward")
    assert (index.requires_grad, index.grad_fn) == (False, None)
    assert (doubled.requires_grad, doubled.is_leaf) == (False, True)
    maximum.backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


@backends()
def test_set_materialize_grads(m: ModuleType) -> None:
    two = functions(m).TwoOutputs
    x = leaf(m, [1.0, 2.0])
    a, b = two.apply(x, False)
    node = a.grad_fn
    assert (b.grad_fn is node, a.output_nr, b.output_nr) == (True, 0, 1)
    a.sum().backward()
    assert node.received == ([1.0, 1.0], None)
    assert x.grad.tolist() == [2.0, 2.0]
    x = leaf(m, [1.0, 2.0])
    a, b = two.apply(x, True)
    node = b.grad_fn
    b.sum().backward()
    assert node.received == ([0.0, 0.0], [1.0, 1.0])
    assert x.grad.tolist() == [3.0, 3.0]


# --- saved tensors ----------------------------------------------------------------------------


@backends()
def test_saved_tensors_are_freed_after_backward(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = functions(m).Cube.apply(x)
    node = y.grad_fn
    assert [t.tolist() for t in node.saved_tensors] == [[1.0, 2.0]]
    y.sum().backward()
    with pytest.raises(RuntimeError, match=exactly(SECOND_BACKWARD)):
        _ = node.saved_tensors


@backends()
def test_saved_tensors_modified_in_place(m: ModuleType) -> None:
    fns = functions(m)
    x = leaf(m, [1.0, 2.0])
    a = x * 1
    y = fns.Cube.apply(a)
    a.add_(1)
    assert_saved_modified(y.sum(), "Add")
    y = fns.SaveExp.apply(leaf(m, [0.0, 1.0]))
    y.add_(1)
    assert_saved_modified(y.sum(), "SaveExp")


# --- double backward --------------------------------------------------------------------------


@backends()
def test_double_backward(m: ModuleType) -> None:
    fns = functions(m)
    x = leaf(m, [1.0, 2.0])
    (g,) = m.autograd.grad(fns.Cube.apply(x).sum(), x, create_graph=True)
    assert (g.tolist(), g.requires_grad) == ([3.0, 12.0], True)
    (gg,) = m.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0]
    # a saved output gets its grad_fn back: d/dx e^x twice
    x = leaf(m, [0.0, 1.0])
    (g,) = m.autograd.grad(fns.SaveExp.apply(x).sum(), x, create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), x)
    assert gg.tolist() == pytest.approx([1.0, 2.718281828459045], rel=1e-15)


@backends()
def test_once_differentiable(m: ModuleType) -> None:
    once = functions(m).OnceCube
    x = leaf(m, [1.0, 2.0])
    (g,) = m.autograd.grad(once.apply(x).sum(), x)
    assert g.tolist() == [3.0, 12.0]
    # the backward runs without recording: with a seed that does not require grad, the gradient
    # does not require grad either
    (g,) = m.autograd.grad(once.apply(x).sum(), x, create_graph=True)
    assert (g.requires_grad, g.grad_fn) == (False, None)


@backends(
    xfail="double backward through @once_differentiable with a seed requiring grad: PyTorch's gradient "
    "requires grad through a torch::autograd::Error node that raises, framework's does not require grad"
)
def test_once_differentiable_refuses_double_backward(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    seed = leaf(m, [1.0, 1.0])
    (g,) = m.autograd.grad(functions(m).OnceCube.apply(x), x, seed, create_graph=True)
    assert g.requires_grad
    assert g.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(
        RuntimeError,
        match=exactly("trying to differentiate twice a function that was marked with @once_differentiable"),
    ):
        g.sum().backward()


def test_node_reprs_as_pytorch_prints_them() -> None:
    """C++ nodes show their class name (AccumulateGrad, CopySlices: not their `name()`), a custom
    Function's node its module-qualified Python class."""

    class Twice(framework.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Tensor) -> Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Tensor) -> Tensor:
            return g * 2

    x = framework.ones(2, requires_grad=True)
    relu = x.relu().grad_fn
    assert re.fullmatch(r"<ReluBackward0 object at 0x[0-9a-f]+>", repr(relu))
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(relu.next_functions[0][0]))
    z = x.clone()
    z[0] = 1
    assert re.fullmatch(r"<CopySlices object at 0x[0-9a-f]+>", repr(z.grad_fn))
    assert z.grad_fn.name() == "torch::autograd::CopySlices"
    custom = Twice.apply(x).grad_fn
    assert re.fullmatch(r"<framework\.autograd\.function\.TwiceBackward object at 0x[0-9a-f]+>", repr(custom))
