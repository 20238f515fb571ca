"""Autograd's tensor metadata and engine against PyTorch: leaves, `requires_grad`, `detach`,
`.data`, `.grad`, `grad_fn`/`next_functions`, version counters, `backward`/`autograd.grad` with
their options and errors, double backward, memory released after backward, and composite
expressions.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`."""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from ad_backends import (
    ACCUMULATE_GRAD,
    SECOND_BACKWARD,
    TORCH,
    assert_saved_modified,
    backends,
    const,
    edges,
    exactly,
    leaf,
)

import framework
from framework.c10.storage import memory_stats

NON_LEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
    "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
    "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
    "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
NUMPY_REQUIRING_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
GRAD_SIZE = (
    "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the "
    "gradient and the tensor are the same size"
)
GRAD_DTYPE = (
    "attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Double'. The "
    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
    "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype "
    "with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
    "assume they match."
)
OUT_REQUIRING_GRAD = (
    "mul(): functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)
UNUSED_INPUT = (
    "The differentiated Tensor at index 1 appears to not have been used in the graph. Set "
    "allow_unused=True if this is the desired behavior."
)
MATERIALIZE_NOT_ALLOW_UNUSED = (
    "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
)
RETAIN_GRAD_WITHOUT_GRAD = "can't retain_grad on Tensor that has requires_grad=False"

# --- leaves, requires_grad, grad_fn -----------------------------------------------------------


@backends()
def test_leaf_metadata(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    assert (x.is_leaf, x.requires_grad, x.grad_fn, x.grad, x.output_nr) == (True, True, None, None, 0)
    plain = const(m, [1.0, 2.0])
    assert (plain.is_leaf, plain.requires_grad, plain.grad_fn) == (True, False, None)
    y = x * plain
    assert (y.is_leaf, y.requires_grad, y.output_nr) == (False, True, 0)
    z = plain * plain
    assert (z.is_leaf, z.requires_grad, z.grad_fn) == (True, False, None)


@backends()
def test_requires_grad_flag(m: ModuleType) -> None:
    x = const(m, [1.0, 2.0])
    assert x.requires_grad_() is x
    assert x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    y = x * x
    y.requires_grad_(True)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match=exactly(NON_LEAF_REQUIRES_GRAD)):
        y.requires_grad_(False)


@backends()
def test_factory_refuses_requires_grad_on_integer_dtype(m: ModuleType) -> None:
    message = exactly("Only Tensors of floating point and complex dtype can require gradients")
    with pytest.raises(RuntimeError, match=message):
        m.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match=message):
        m.zeros(2, dtype=m.int64, requires_grad=True)


@backends()
def test_requires_grad_method_refuses_integer_dtype(m: ModuleType) -> None:
    with pytest.raises(
        RuntimeError, match=exactly("only Tensors of floating point dtype can require gradients")
    ):
        m.tensor([1, 2]).requires_grad_()


@backends()
def test_grad_fn_and_next_functions(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = const(m, [3.0, 4.0])
    y = x * w
    assert y.grad_fn.name() == "MulBackward0"
    assert edges(y.grad_fn) == [(ACCUMULATE_GRAD, 0), (None, 0)]
    accumulate = y.grad_fn.next_functions[0][0]
    assert accumulate.variable is x
    assert accumulate.next_functions == ()
    # one AccumulateGrad per leaf, shared by the graphs that use it
    assert (x + w).grad_fn.next_functions[0][0] is accumulate
    z = y.exp().sum()
    assert z.grad_fn.name() == "SumBackward0"
    exp_node = z.grad_fn.next_functions[0][0]
    assert exp_node.name() == "ExpBackward0"
    assert exp_node.next_functions[0][0] is y.grad_fn
    both = x * leaf(m, [5.0, 6.0])
    assert edges(both.grad_fn) == [(ACCUMULATE_GRAD, 0), (ACCUMULATE_GRAD, 0)]


@backends()
def test_grad_fn_of_scalar_operand(m: ModuleType) -> None:
    """A Python scalar is wrapped into a tensor: the Tensor overload's node, with no edge for it."""
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    assert y.grad_fn.name() == "MulBackward0"
    assert edges(y.grad_fn) == [(ACCUMULATE_GRAD, 0), (None, 0)]


@backends()
def test_output_nr_of_multi_output_functions(m: ModuleType) -> None:
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    values, indices = x.max(1)
    assert (values.output_nr, values.grad_fn.name()) == (0, "MaxBackward0")
    assert (indices.requires_grad, indices.grad_fn) == (False, None)
    rows = x.unbind(0)
    assert [r.output_nr for r in rows] == [0, 1]
    assert rows[0].grad_fn is rows[1].grad_fn
    assert rows[0].grad_fn.name() == "UnbindBackward0"
    (rows[1] * 3).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [3.0, 3.0]]


# --- detach, .data ----------------------------------------------------------------------------


@backends()
def test_detach_shares_data_and_version_counter(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x * const(m, [2.0, 2.0])
    d = y.detach()
    assert (d.requires_grad, d.is_leaf, d.grad_fn) == (False, True, None)
    assert d.data_ptr() == y.data_ptr()
    d[0] = 10.0
    assert y.tolist() == [10.0, 4.0]
    assert (y._version, d._version) == (1, 1)


@backends()
def test_modifying_a_detached_saved_tensor_is_detected(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x.exp()
    y.detach().zero_()
    assert_saved_modified(y.sum(), "Exp")


@backends()
def test_detach_in_place(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = const(m, [2.0, 3.0])
    y = x * w
    z = y * w
    assert y.detach_() is y
    assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)
    # the graph already built through y is unchanged
    assert edges(z.grad_fn) == [("MulBackward0", 0), (None, 0)]
    z.sum().backward()
    assert x.grad.tolist() == [4.0, 9.0]


@backends()
def test_detach_in_place_refuses_views(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(DETACH_VIEW)):
        x[0:1].detach_()


@backends()
def test_data_has_its_own_version_counter(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    d = x.data
    assert (d.requires_grad, d.is_leaf, d.grad_fn, d._is_view()) == (False, True, None, False)
    assert d.data_ptr() == x.data_ptr()
    d.add_(1)
    assert (x._version, d._version) == (0, 1)
    assert x.tolist() == [2.0, 3.0]
    # a saved tensor changed through .data goes unnoticed: the gradient uses the new values
    y = x.exp()
    y.data.zero_()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@backends()
def test_data_setter(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    x.data = const(m, [5.0, 6.0, 7.0])
    assert (tuple(x.shape), x.requires_grad, x.is_leaf, x._version) == ((3,), True, True, 0)
    assert x.tolist() == [5.0, 6.0, 7.0]
    x.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


@backends()
def test_numpy_of_a_tensor_requiring_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(NUMPY_REQUIRING_GRAD)):
        x.numpy()
    array = x.detach().numpy()
    array[0] = 5.0
    assert x.tolist() == [5.0, 2.0]


# --- .grad ------------------------------------------------------------------------------------


@backends()
def test_grad_assignment_and_deletion(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    g = const(m, [10.0, 20.0])
    x.grad = g
    assert x.grad is g
    (x * x).sum().backward()
    # backward accumulates into the assigned gradient in place
    assert x.grad is g
    assert g.tolist() == [12.0, 24.0]
    del x.grad
    assert x.grad is None
    x.grad = const(m, [1.0, 1.0])
    x.grad = None
    assert x.grad is None


@backends()
def test_grad_assignment_checks_size(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(GRAD_SIZE)):
        x.grad = m.zeros(3, dtype=m.float64)


@backends(
    xfail="assigning a gradient of another dtype: PyTorch 2.13 names the tensor's grad_dtype ('float' / "
    "'Double') and explains grad_dtype, framework has the older 'Please ensure ... same dtype' text"
)
def test_grad_assignment_checks_dtype(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(GRAD_DTYPE)):
        x.grad = m.zeros(2, dtype=m.float32)


@backends()
def test_grad_accumulates_over_two_backwards(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    (x * leaf(m, [[1.0], [2.0]])).sum().backward()
    first = x.grad
    assert first.tolist() == [3.0, 3.0]
    assert first.requires_grad is False
    (x * x).sum().backward()
    assert x.grad is first
    assert x.grad.tolist() == [5.0, 7.0]


@backends()
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_grad_accumulation_with_create_graph_is_out_of_place(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    (x * x).sum().backward()
    first = x.grad
    (x * x).sum().backward(create_graph=True)
    assert x.grad is not first
    assert first.tolist() == [2.0, 4.0]
    assert x.grad.tolist() == [4.0, 8.0]
    assert x.grad.requires_grad


@backends()
def test_grad_of_non_leaf_warns(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x * x
    y.sum().backward()
    with pytest.warns(
        UserWarning, match=re.escape("The .grad attribute of a Tensor that is not a leaf Tensor")
    ):
        assert y.grad is None


@backends()
def test_retain_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x * x
    y.retain_grad()
    assert (y.retains_grad, x.retains_grad) == (True, False)
    z = (y * 3).sum()
    z.backward(retain_graph=True)
    assert y.grad.tolist() == [3.0, 3.0]
    z.backward()
    assert y.grad.tolist() == [6.0, 6.0]
    assert x.grad.tolist() == [12.0, 24.0]


@backends()
def test_retain_grad_on_leaves(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    x.retain_grad()
    assert not x.retains_grad
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match=exactly(RETAIN_GRAD_WITHOUT_GRAD)):
        m.tensor([1, 2]).retain_grad()


# --- version counters -------------------------------------------------------------------------


@backends()
def test_version_counter(m: ModuleType) -> None:
    x = m.zeros(4, dtype=m.float64)
    assert x._version == 0
    x.add_(1)
    assert x._version == 1
    x.zero_()
    x.fill_(2.0)
    x.copy_(m.ones(4, dtype=m.float64))
    assert x._version == 4
    m.add(x, 1, out=x)
    assert x._version == 5
    x[0] = 5.0
    assert x._version == 6
    view = x[1:3]
    reshaped = x.view(2, 2)
    view.mul_(2)
    assert (x._version, view._version, reshaped._version) == (7, 7, 7)
    _ = x + 1, x.view(4), x.exp()
    assert x._version == 7
    out = m.empty(4, dtype=m.float64)
    m.exp(x, out=out)
    assert out._version == 1


@backends()
def test_out_refuses_inputs_requiring_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    out = m.zeros(2, dtype=m.float64)
    with pytest.raises(RuntimeError, match=exactly(OUT_REQUIRING_GRAD)):
        m.mul(x, x, out=out)
    with m.no_grad():
        m.mul(x, x, out=out)
    assert (out.tolist(), out.requires_grad) == ([1.0, 4.0], False)


@backends()
def test_out_refuses_an_out_tensor_requiring_grad(m: ModuleType) -> None:
    out = leaf(m, [0.0, 0.0])
    with pytest.raises(RuntimeError, match=exactly(OUT_REQUIRING_GRAD)):
        m.mul(const(m, [1.0, 2.0]), const(m, [3.0, 4.0]), out=out)


# --- backward ---------------------------------------------------------------------------------


@backends()
def test_backward_with_gradient(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    (x * x).backward(const(m, [1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 40.0]
    x.grad = None
    m.autograd.backward([(x * x).sum(), x.sum() * const(m, 3.0)])
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    m.autograd.backward((x * x), grad_tensors=const(m, [2.0, 2.0]))
    assert x.grad.tolist() == [4.0, 8.0]


@backends()
def test_backward_of_a_leaf(m: ModuleType) -> None:
    x = leaf(m, 3.0)
    x.backward()
    assert x.grad.tolist() == 1.0


@backends()
def test_backward_through_a_dtype_conversion_and_broadcast(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x.to(m.float32)
    (y * y).sum().backward()
    assert (x.grad.dtype, x.grad.tolist()) == (m.float64, [2.0, 4.0])
    a = leaf(m, [1.0, 2.0])
    b = leaf(m, [[1.0], [2.0], [3.0]])
    (a * b).sum().backward()
    assert a.grad.tolist() == [6.0, 6.0]
    assert b.grad.tolist() == [[3.0], [3.0], [3.0]]


@backends()
def test_backward_diamond(m: ModuleType) -> None:
    x = leaf(m, 2.0)
    a = x * x
    (a.exp() + a.sin()).backward()
    assert x.grad.item() == pytest.approx((math.exp(4.0) + math.cos(4.0)) * 4.0, rel=1e-15)


@backends()
def test_backward_retain_graph(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match=exactly(SECOND_BACKWARD)):
        y.backward()
    z = (x * x).sum()
    (first,) = m.autograd.grad(z, x, retain_graph=True)
    (second,) = m.autograd.grad(z, x)
    assert first.tolist() == second.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match=exactly(SECOND_BACKWARD)):
        m.autograd.grad(z, x)


@backends()
def test_second_backward_through_nodes_that_saved_nothing(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = (x + const(m, [1.0, 1.0])).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


@backends()
def test_second_backward_through_a_scalar_product(m: ModuleType) -> None:
    """x * 2 saves the wrapped scalar, so its graph cannot run twice."""
    x = leaf(m, [1.0, 2.0])
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=exactly(SECOND_BACKWARD)):
        y.backward()


@backends()
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = (x**3).sum()
    y.backward(create_graph=True)
    g = x.grad
    assert (g.tolist(), g.requires_grad) == ([3.0, 12.0], True)
    assert g.grad_fn.name() == "torch::autograd::CopyBackwards"
    # create_graph retains the graph
    y.backward(create_graph=True)
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


@backends()
def test_backward_inputs(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = leaf(m, [3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    assert (x.grad.tolist(), w.grad) == ([3.0, 4.0], None)
    (x * w).sum().backward(inputs=w)
    assert (x.grad.tolist(), w.grad.tolist()) == ([3.0, 4.0], [1.0, 2.0])
    a = x * 2
    z = (a * a).sum()
    z.backward(inputs=[a], retain_graph=True)
    z.backward(inputs=a)
    assert a.grad.tolist() == [8.0, 16.0]
    assert x.grad.tolist() == [3.0, 4.0]


@backends()
def test_backward_inputs_marks_non_leaf_retains_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    a = x * 2
    (a * a).sum().backward(inputs=[a])
    assert a.retains_grad


@backends()
def test_backward_inputs_empty(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly("`inputs` argument to `backward()` cannot be empty.")):
        (x * x).sum().backward(inputs=[])


@backends()
def test_backward_inputs_not_requiring_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(RETAIN_GRAD_WITHOUT_GRAD)):
        (x * x).sum().backward(inputs=[const(m, [1.0])])


@backends()
def test_backward_errors(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly("grad can be implicitly created only for scalar outputs")):
        (x * x).backward()
    mismatch = exactly(
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of "
        "torch.Size([2])."
    )
    with pytest.raises(RuntimeError, match=mismatch):
        (x * x).backward(m.ones(3, dtype=m.float64))
    with pytest.raises(RuntimeError, match=mismatch):
        m.autograd.grad(x * x, x, m.ones(3, dtype=m.float64))
    with pytest.raises(
        RuntimeError, match=exactly("element 0 of tensors does not require grad and does not have a grad_fn")
    ):
        const(m, [1.0, 2.0]).sum().backward()
    with pytest.raises(
        RuntimeError, match=exactly("element 1 of tensors does not require grad and does not have a grad_fn")
    ):
        m.autograd.backward([x.sum(), const(m, 1.0)])


@backends()
def test_backward_of_a_complex_scalar_needs_a_gradient(m: ModuleType) -> None:
    z = m.tensor(1 + 2j, requires_grad=True)
    # the message names the dtype as the library prints it: framework deliberately prints
    # `framework.complex64` where PyTorch prints `torch.complex64`
    with pytest.raises(
        RuntimeError,
        match=exactly(f"grad can be implicitly created only for real scalar outputs but got {m.complex64}"),
    ):
        (z * z).backward()


# --- autograd.grad ----------------------------------------------------------------------------


@backends()
def test_grad_does_not_accumulate(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = leaf(m, [3.0, 4.0])
    gx, gw = m.autograd.grad((x * w).sum(), [x, w])
    assert (gx.tolist(), gw.tolist()) == ([3.0, 4.0], [1.0, 2.0])
    assert (x.grad, w.grad) == (None, None)
    assert gx.requires_grad is False
    (gx,) = m.autograd.grad(x, x, m.ones(2, dtype=m.float64))
    assert gx.tolist() == [1.0, 1.0]


@backends()
def test_grad_with_grad_outputs(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = leaf(m, [3.0, 4.0])
    grads = m.autograd.grad([x * w, x + w], [x, w], [m.ones(2, dtype=m.float64), const(m, [10.0, 100.0])])
    assert [g.tolist() for g in grads] == [[13.0, 104.0], [11.0, 102.0]]
    (g,) = m.autograd.grad([(x * x).sum(), (x * 3).sum()], [x], [None, const(m, 2.0)])
    assert g.tolist() == [8.0, 10.0]


@backends()
def test_grad_with_respect_to_an_intermediate(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    a = x * const(m, [3.0, 3.0])
    (g,) = m.autograd.grad((a * a).sum(), a)
    assert g.tolist() == [6.0, 12.0]
    assert x.grad is None


@backends()
def test_grad_allow_unused_and_materialize_grads(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    unused = leaf(m, [1.0])
    with pytest.raises(RuntimeError, match=exactly(UNUSED_INPUT)):
        m.autograd.grad((x * x).sum(), [x, unused])
    gx, gu = m.autograd.grad((x * x).sum(), [x, unused], allow_unused=True)
    assert (gx.tolist(), gu) == ([2.0, 4.0], None)
    gx, gu = m.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)
    assert (gx.tolist(), gu.tolist()) == ([2.0, 4.0], [0.0])
    with pytest.raises(ValueError, match=exactly(MATERIALIZE_NOT_ALLOW_UNUSED)):
        m.autograd.grad((x * x).sum(), [x, unused], allow_unused=False, materialize_grads=True)


@backends()
def test_grad_needs_inputs(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly("`inputs` argument to `grad()` cannot be empty.")):
        m.autograd.grad((x * x).sum(), [])


@backends()
def test_grad_of_an_input_not_requiring_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=exactly("One of the differentiated Tensors does not require grad")
    ):
        m.autograd.grad((x * x).sum(), [x, const(m, [1.0])])


# --- double backward --------------------------------------------------------------------------


@backends()
def test_double_backward(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    (g,) = m.autograd.grad((x**3).sum(), x, create_graph=True)
    assert (g.tolist(), g.requires_grad, g.grad_fn.name()) == ([3.0, 12.0], True, "MulBackward0")
    (gg,) = m.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0]


@backends()
def test_double_backward_of_a_composition(m: ModuleType) -> None:
    values = [0.5, -1.25, 2.0]
    x = leaf(m, values)
    (g,) = m.autograd.grad((x * x).sin().sum(), x, create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), x, create_graph=True)
    (ggg,) = m.autograd.grad(gg.sum(), x)
    v = np.array(values)
    np.testing.assert_allclose(g.tolist(), 2 * v * np.cos(v * v), rtol=1e-14)
    np.testing.assert_allclose(gg.tolist(), 2 * np.cos(v * v) - 4 * v * v * np.sin(v * v), rtol=1e-14)
    third = -12 * v * np.sin(v * v) - 8 * v**3 * np.cos(v * v)
    np.testing.assert_allclose(ggg.tolist(), third, rtol=1e-14)


@backends()
def test_hessian_vector_product(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = leaf(m, [3.0, -1.0])
    (gx,) = m.autograd.grad((x * x * w).sum(), x, create_graph=True)
    hx, hw = m.autograd.grad(gx, [x, w], const(m, [1.0, 10.0]))
    # d/dx of 2xw . v = 2wv, d/dw = 2xv
    assert (hx.tolist(), hw.tolist()) == ([6.0, -20.0], [2.0, 40.0])


# --- memory -----------------------------------------------------------------------------------


def _live_bytes() -> int:
    return memory_stats()["live_bytes"]


def test_saved_tensors_are_released() -> None:
    """framework only (PyTorch has no CPU allocator counters): once a graph has run without
    retain_graph, or was dropped, only the leaves, their gradients and the output stay alive;
    reference counting alone frees the rest (the cyclic GC is off)."""
    generator = framework.Generator().manual_seed(0)
    x = framework.randn(1000, dtype=framework.float64, generator=generator).requires_grad_()
    w = framework.randn(1000, dtype=framework.float64, generator=generator).requires_grad_()
    gc.collect()
    gc.disable()
    try:
        leaves = _live_bytes()

        def forward() -> framework.Tensor:
            return ((x.exp() * w).sin() * x).sum()

        y = forward()
        assert _live_bytes() > leaves + 8
        y.backward()
        grads = 2 * 8000
        assert _live_bytes() == leaves + grads + 8
        del y
        assert _live_bytes() == leaves + grads
        y = forward()
        y.backward(retain_graph=True)
        assert _live_bytes() > leaves + grads + 8
        del y
        assert _live_bytes() == leaves + grads
        (g,) = framework.autograd.grad(forward(), x, create_graph=True)
        assert _live_bytes() > leaves + grads + 8000
        del g
        assert _live_bytes() == leaves + grads
    finally:
        gc.enable()


def test_a_gradient_that_is_a_view_is_adopted_without_a_copy() -> None:
    """framework only: a leaf used through `t()` receives its gradient as the transpose of a fresh
    product; `.grad` takes over that memory, as PyTorch's AccumulateGrad does."""
    w = framework.randn(3, 4, dtype=framework.float64, requires_grad=True)
    x = framework.randn(5, 4, dtype=framework.float64)
    arrived: list[int] = []
    w.register_hook(lambda g: arrived.append(g.data_ptr()))
    x.matmul(w.t()).sum().backward()
    assert w.grad is not None and w.grad.data_ptr() == arrived[0]
    np.testing.assert_allclose(w.grad.numpy(), np.broadcast_to(x.numpy().sum(0), (3, 4)))


class _ViewOfBase(framework.autograd.Function):
    """Identity whose backward returns its gradient as a view of a fresh tensor (`bases` keeps
    that tensor alive when it is a list)."""

    bases: list[framework.Tensor] | None = None

    @staticmethod
    def forward(ctx: Any, a: framework.Tensor) -> framework.Tensor:
        return a.clone()

    @staticmethod
    def backward(ctx: Any, grad: framework.Tensor) -> framework.Tensor:
        base = grad * 2
        if _ViewOfBase.bases is not None:
            _ViewOfBase.bases.append(base)
        return base.view(3, 4)


@pytest.mark.parametrize("base_kept", [False, True])
def test_a_view_gradient_whose_base_lives_on_is_copied(base_kept: bool) -> None:
    """framework only: a view gradient is adopted only when nothing but the view holds its base;
    else `.grad` gets its own copy, unaffected by later changes of the base."""
    v = framework.randn(3, 4, dtype=framework.float64, requires_grad=True)
    _ViewOfBase.bases = [] if base_kept else None
    try:
        _ViewOfBase.apply(v).sum().backward()
        assert v.grad is not None and v.grad.tolist() == [[2.0] * 4] * 3
        if base_kept:
            assert _ViewOfBase.bases is not None
            (base,) = _ViewOfBase.bases
            assert v.grad.data_ptr() != base.data_ptr()
            base.zero_()
            assert v.grad.tolist() == [[2.0] * 4] * 3
    finally:
        _ViewOfBase.bases = None


# --- composite expressions --------------------------------------------------------------------


def _in_place_chain(m: ModuleType, x: Any, y: Any, z: Any) -> Any:
    a = x * 1
    a[1:].mul_(y)
    a.add_(z)
    b = a.unsqueeze(0).expand(3, 4).clone()
    b[:, 2] = y
    return (a**2).sum() + b.sum() * a[0]


COMPOSITES: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any]]] = {
    "broadcasting": (
        [(3,), (4,), (3, 4)],
        lambda m, a, b, c: (a[:, None] * b[None, :] + c).exp().sum(1).log().mean(),
    ),
    "views": (
        [(3, 4), (4,)],
        lambda m, x, y: (x.t()[1:, :2].reshape(6) * y.repeat(2)[:6] + x.diagonal().sum()).pow(2).sum(),
    ),
    "reductions": (
        [(3, 4)],
        lambda m, x: (
            x.max(dim=1)[0].sum()
            + x.var(dim=0).sum()
            + x.std()
            + x.norm()
            + x.logsumexp(1).sum()
            + x.prod(1).sum()
            + x.cumsum(0).sin().sum()
            + x.amax(0).sum()
            + x.mean(dim=(0, 1))
        ),
    ),
    "matmul": (
        [(2, 3, 4), (4, 5), (5,)],
        lambda m, a, b, c: (
            ((a @ b).relu() @ c).tanh().sum()
            + m.bmm(a, a.transpose(1, 2)).sum()
            + m.mv(b.t(), a[0, 0]).sum()
            + m.outer(c, c).sum()
            + m.dot(c, c)
        ),
    ),
    "selection": (
        [(3, 4), (3, 4)],
        lambda m, x, y: (
            m.where(x > 0, x * y, y.abs()).clamp(-0.5, 0.7)
            + m.stack([x, y]).sum(0).sigmoid()
            + m.cat([x, y], 1)[:, 1:5].exp()
        ).sum(),
    ),
    "in_place": ([(4,), (3,), (4,)], _in_place_chain),
}


def _composite_inputs(m: ModuleType, shapes: list[tuple[int, ...]]) -> list[Any]:
    rng = np.random.default_rng(0)
    return [m.tensor(rng.standard_normal(shape), dtype=m.float64, requires_grad=True) for shape in shapes]


@pytest.mark.parametrize("name", COMPOSITES)
def test_composite_gradcheck(name: str) -> None:
    shapes, expression = COMPOSITES[name]
    inputs = _composite_inputs(framework, shapes)
    assert framework.autograd.gradcheck(lambda *t: expression(framework, *t), tuple(inputs))


@pytest.mark.skipif(TORCH is None, reason="no PyTorch")
@pytest.mark.parametrize("name", COMPOSITES)
def test_composite_matches_torch(name: str) -> None:
    assert TORCH is not None
    shapes, expression = COMPOSITES[name]
    ours = _composite_inputs(framework, shapes)
    theirs = _composite_inputs(TORCH, shapes)
    out = expression(framework, *ours)
    expected = expression(TORCH, *theirs)
    assert out.item() == pytest.approx(expected.item(), rel=1e-12, abs=1e-12)
    for g, h in zip(framework.autograd.grad(out, ours), TORCH.autograd.grad(expected, theirs), strict=True):
        assert g is not None
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-12, atol=1e-12)


def test_composite_against_numpy() -> None:
    """Broadcasting and matmul gradients written out with NumPy."""
    rng = np.random.default_rng(1)
    a_np, b_np, v_np = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5)), rng.standard_normal(5)
    a, b, v = (framework.tensor(t, dtype=framework.float64, requires_grad=True) for t in (a_np, b_np, v_np))
    ga, gb, gv = framework.autograd.grad(((a @ b) * v).sum(), [a, b, v])
    assert ga is not None and gb is not None and gv is not None
    ones = np.ones((2, 3, 5))
    np.testing.assert_allclose(ga.numpy(), (ones * v_np) @ b_np.T, rtol=1e-14)
    np.testing.assert_allclose(gb.numpy(), np.einsum("bij,bik->jk", a_np, ones * v_np), rtol=1e-14)
    np.testing.assert_allclose(gv.numpy(), (a_np @ b_np).sum(axis=(0, 1)), rtol=1e-14)
