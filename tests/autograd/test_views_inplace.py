"""In-place operations and views under autograd, against PyTorch: version-counter checks of saved
tensors, refusals (leaves, views of leaves, outputs of multi-output view functions, views made in
no_grad mode), CopySlices (in-place on a view rewrites its base's history), `__setitem__`.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`."""

from __future__ import annotations

from types import ModuleType

import pytest
from ad_backends import ACCUMULATE_GRAD, assert_saved_modified, backends, const, edges, exactly, leaf

COPY_SLICES = "torch::autograd::CopySlices"
MULTI_OUTPUT_VIEW = (
    "Output {nr} of {fn} is a view and is being modified inplace. This view is the output of a function "
    "that returns multiple views. Such functions do not allow the output views to be modified inplace. "
    "You should replace the inplace operation by an out-of-place one."
)
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the no_grad block (if you don't want the inplace "
    "to be tracked) or both outside (if you want the inplace to be tracked)."
)
NO_GRAD_VIEW_BASE = (
    "A view was created in no_grad mode and its base or another view of its base has been modified "
    "inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is "
    "forbidden. You can clarify your code by moving both the view and the inplace either both inside "
    "the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the "
    "inplace to be tracked)."
)
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_IN_PLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


# --- saved tensors modified in place ----------------------------------------------------------


@backends()
def test_saved_output_modified(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x.exp()
    y.add_(1)
    assert_saved_modified(y.sum(), "Exp")


@backends()
def test_saved_output_modified_under_no_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x.exp()
    z = y.sum()
    with m.no_grad():
        y.mul_(2)
    assert_saved_modified(z, "Exp")


@backends()
def test_saved_input_modified(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    a = x * const(m, [1.0, 1.0])
    y = a * a
    a.add_(const(m, [1.0, 1.0]))
    # the message names the tensor's grad_fn now (the in-place add), not the one it had when saved
    assert_saved_modified(y.sum(), "Add")


@backends()
def test_saved_view_modified_through_its_base(m: ModuleType) -> None:
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    a = x * 1
    row = a[0]
    y = row * row
    a.add_(1)
    assert_saved_modified(y.sum(), "AsStrided")


@backends()
def test_saved_tensor_modified_through_a_view(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0, 3.0, 4.0])
    a = x.exp()
    a.view(2, 2)[0].zero_()
    assert_saved_modified(a.sum(), "Exp", "4")


@backends()
def test_saved_leaf_modified(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    w = const(m, [3.0, 4.0])
    y = (x * w).sum()
    w.add_(1)
    assert_saved_modified(y, None)
    z = (x * x).sum()
    with m.no_grad():
        x.mul_(2)
    assert_saved_modified(z, None)


# --- refused in-place operations --------------------------------------------------------------


@backends()
def test_in_place_on_a_leaf_requiring_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=exactly(LEAF_IN_PLACE)):
        x.add_(1)
    with pytest.raises(RuntimeError, match=exactly(VIEW_OF_LEAF_IN_PLACE)):
        x[0:1].add_(1)
    with pytest.raises(RuntimeError, match=exactly(VIEW_OF_LEAF_IN_PLACE)):
        x[0] = 3.0
    assert (x.tolist(), x._version) == ([1.0, 2.0], 0)
    with m.no_grad():
        x.add_(1)
        x[0] = 5.0
    assert (x.tolist(), x._version) == ([5.0, 3.0], 2)
    assert (x.requires_grad, x.is_leaf, x.grad_fn) == (True, True, None)
    (x * x).sum().backward()
    assert x.grad.tolist() == [10.0, 6.0]


@backends()
def test_in_place_on_outputs_of_multi_output_views(m: ModuleType) -> None:
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    flat = leaf(m, [1.0, 2.0, 3.0, 4.0]) * 1
    # (output, its output_nr, its function): unbind of a non-leaf and of a leaf, split, and chunk
    # (whose function is Split too)
    for output, nr, fn in [
        ((x * 1).unbind(0)[1], 1, "Unbind"),
        (x.unbind(0)[1], 1, "Unbind"),
        (flat.split(2)[0], 0, "Split"),
        (flat.chunk(2)[1], 1, "Split"),
    ]:
        with pytest.raises(RuntimeError, match=exactly(MULTI_OUTPUT_VIEW.format(nr=nr, fn=fn))):
            output.mul_(2)


@backends()
def test_in_place_on_outputs_of_multi_output_views_without_grad(m: ModuleType) -> None:
    plain = const(m, [[1.0, 2.0], [3.0, 4.0]])
    _, second = plain.unbind(0)
    second.mul_(2)
    assert plain.tolist() == [[1.0, 2.0], [6.0, 8.0]]
    a = leaf(m, [[1.0, 2.0], [3.0, 4.0]]) * 1
    _, second = a.unbind(0)
    with m.no_grad():
        second.mul_(2)
    assert a.tolist() == [[1.0, 2.0], [6.0, 8.0]]


@backends()
def test_view_created_in_no_grad_modified_with_grad(m: ModuleType) -> None:
    a = leaf(m, [1.0, 2.0]) * 1
    with m.no_grad():
        view = a[0:1]
    with pytest.raises(RuntimeError, match=exactly(NO_GRAD_VIEW)):
        view.mul_(2)
    a = leaf(m, [1.0, 2.0]) * 1
    with m.no_grad():
        view = a[0:1]
    a.mul_(2)
    with pytest.raises(RuntimeError, match=exactly(NO_GRAD_VIEW_BASE)):
        _ = view.grad_fn


@backends()
def test_view_of_a_leaf_created_in_no_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with m.no_grad():
        view = x[0:1]
    assert (view.requires_grad, view.is_leaf, view._is_view(), view._base is x) == (True, True, True, True)
    with pytest.raises(RuntimeError, match=exactly(NO_GRAD_VIEW)):
        view.mul_(2)


# --- CopySlices -------------------------------------------------------------------------------


@backends()
def test_in_place_on_a_view_of_a_non_leaf(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0, 3.0])
    a = x * x
    view = a[0:2]
    view.mul_(const(m, [3.0, 3.0]))
    assert edges(a.grad_fn) == [("MulBackward0", 0), (None, 0)]
    assert view.grad_fn.name() == "AsStridedBackward0"
    assert view.grad_fn.next_functions[0][0] is a.grad_fn
    assert (a._version, view._version, view._base is a, view.is_leaf) == (1, 1, True, False)
    assert a.tolist() == [3.0, 12.0, 9.0]
    (a * const(m, [1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [6.0, 120.0, 600.0]


@backends()
def test_in_place_on_a_view_of_a_tensor_not_requiring_grad(m: ModuleType) -> None:
    x = m.zeros(3, dtype=m.float64)
    y = leaf(m, [5.0, 6.0])
    x[0:2].copy_(y)
    assert (x.requires_grad, x.is_leaf, x.tolist()) == (True, False, [5.0, 6.0, 0.0])
    assert edges(x.grad_fn) == [(None, 0), (ACCUMULATE_GRAD, 0)]
    (x * const(m, [1.0, 10.0, 100.0])).sum().backward()
    assert y.grad.tolist() == [1.0, 10.0]


@backends()
def test_successive_in_place_ops_on_a_view(m: ModuleType) -> None:
    x = m.zeros(3, dtype=m.float64)
    y = leaf(m, [5.0, 6.0])
    w = leaf(m, [2.0, 2.0])
    view = x[1:]
    view.copy_(y)
    view.mul_(w)
    assert x.grad_fn.next_functions[0][0].next_functions[1][0].variable is y
    assert edges(view.grad_fn) == edges(x.grad_fn)[:1]
    assert (view.grad_fn.name(), view.requires_grad, view.is_leaf) == ("AsStridedBackward0", True, False)
    assert x.tolist() == [0.0, 10.0, 12.0]
    (x * const(m, [1.0, 10.0, 100.0])).sum().backward()
    assert (y.grad.tolist(), w.grad.tolist()) == ([20.0, 200.0], [50.0, 600.0])


@backends()
def test_in_place_on_a_view_of_a_view(m: ModuleType) -> None:
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    a = x * 1
    row = a[0]
    element = row[1:]
    element.mul_(const(m, [5.0]))
    assert (row.grad_fn.name(), element.grad_fn.name()) == ("AsStridedBackward0", "AsStridedBackward0")
    assert (row._base is a, element._base is a) == (True, True)
    a.sum().backward()
    assert x.grad.tolist() == [[1.0, 5.0], [1.0, 1.0]]


@backends()
def test_in_place_on_a_transposed_view(m: ModuleType) -> None:
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    a = x * 1
    t = a.t()
    t.mul_(const(m, [[1.0, 2.0], [3.0, 4.0]]))
    assert t.grad_fn.name() == "AsStridedBackward0"
    a.sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0], [2.0, 4.0]]


@backends()
def test_base_used_before_an_in_place_change_of_its_view(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0, 3.0])
    a = x * 2
    before = a.sum()
    a[0:1].mul_(const(m, [5.0]))
    (before + a.sum()).backward()
    assert x.grad.tolist() == [12.0, 4.0, 4.0]


@backends()
def test_in_place_chain_names(m: ModuleType) -> None:
    k = const(m, [2.0, 3.0])
    a = leaf(m, [1.0, 2.0]) * k
    a.mul_(k)
    assert a.grad_fn.name() == "MulBackward0"
    a.add_(k)
    assert a.grad_fn.name() == "AddBackward0"
    a.exp_()
    assert (a.grad_fn.name(), a._version) == ("ExpBackward0", 3)


@backends()
def test_copy_slices_name(m: ModuleType) -> None:
    x = m.zeros(3, dtype=m.float64)
    x[0:2].copy_(leaf(m, [5.0, 6.0]))
    assert x.grad_fn.name() == COPY_SLICES
    a = leaf(m, [1.0, 2.0]) * 1
    view = a[0:1]
    view.mul_(2)
    assert a.grad_fn.name() == COPY_SLICES
    assert edges(view.grad_fn) == [(COPY_SLICES, 0)]


# --- __setitem__ ------------------------------------------------------------------------------


@backends()
def test_setitem_with_a_tensor_requiring_grad(m: ModuleType) -> None:
    weights = const(m, [1.0, 10.0, 100.0])
    x = m.zeros(3, dtype=m.float64)
    y = leaf(m, 2.0)
    x[1] = y
    assert (x.requires_grad, x.is_leaf, x._version) == (True, False, 1)
    assert edges(x.grad_fn) == [(None, 0), (ACCUMULATE_GRAD, 0)]
    (x * weights).sum().backward()
    assert y.grad.tolist() == 10.0

    rows = m.zeros(2, 3, dtype=m.float64)
    r = leaf(m, [1.0, 2.0, 3.0])
    rows[1] = r * 2
    (rows * const(m, [[1.0, 1.0, 1.0], [1.0, 10.0, 100.0]])).sum().backward()
    assert r.grad.tolist() == [2.0, 20.0, 200.0]


@backends()
def test_setitem_with_advanced_indices(m: ModuleType) -> None:
    weights = const(m, [1.0, 10.0, 100.0])
    x = m.zeros(3, dtype=m.float64)
    y = leaf(m, 2.0)
    x[m.tensor([True, False, True])] = y
    assert x.grad_fn.name() == "IndexPutBackward0"
    assert edges(x.grad_fn) == [(None, 0), (ACCUMULATE_GRAD, 0)]
    (x * weights).sum().backward()
    assert y.grad.tolist() == 101.0
    x = m.zeros(3, dtype=m.float64)
    v = leaf(m, [2.0, 3.0])
    x[m.tensor([0, 2])] = v
    assert x.grad_fn.name() == "IndexPutBackward0"
    (x * weights).sum().backward()
    assert v.grad.tolist() == [1.0, 100.0]
