"""Hooks against PyTorch: `Tensor.register_hook` on leaves and non-leaves, their order, removal
and checks, `register_post_accumulate_grad_hook`, `Node.register_hook`/`register_prehook`, and
`retain_grad` together with hooks.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from ad_backends import backends, exactly, leaf

Log = list[tuple[Any, ...]]


def values(grads: tuple[Any, ...]) -> list[Any]:
    """The gradients a node hook receives, as lists (None stays None)."""
    return [None if g is None else g.tolist() for g in grads]


# --- Tensor.register_hook ---------------------------------------------------------------------


@backends()
def test_tensor_hooks_order_and_modification(m: ModuleType) -> None:
    log: Log = []

    def log_then_add_one(grad: Any) -> Any:
        log.append(("x", grad.tolist()))
        return grad + 1

    x = leaf(m, [1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: log.append(("y1", g.tolist())))
    y.register_hook(lambda g: g * 10)
    y.register_hook(lambda g: log.append(("y3", g.tolist())))
    x.register_hook(log_then_add_one)
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist())))
    y.sum().backward()
    assert log == [("y1", [1.0, 1.0]), ("y3", [10.0, 10.0]), ("x", [30.0, 30.0]), ("post", [31.0, 31.0])]
    assert x.grad.tolist() == [31.0, 31.0]


@backends()
def test_tensor_hook_removal(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    with x.register_hook(lambda g: g * 1000):
        pass
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    y = x * 2
    handle = y.register_hook(lambda g: g * 100)
    handle.remove()
    handle.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@backends()
def test_tensor_hook_runs_on_every_backward(m: ModuleType) -> None:
    seen: list[list[float]] = []
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: seen.append(g.tolist()))
    z = y.sum()
    z.backward(retain_graph=True)
    z.backward()
    assert seen == [[1.0, 1.0], [1.0, 1.0]]


@backends()
def test_tensor_hooks_with_autograd_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    x.register_hook(lambda g: g * 2)
    (g,) = m.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [4.0, 8.0]
    a = x * 1
    a.register_hook(lambda g: g * 2)
    (g,) = m.autograd.grad((a * a).sum(), a)
    assert g.tolist() == [4.0, 8.0]


@backends()
def test_tensor_hook_refused_without_grad(m: ModuleType) -> None:
    with pytest.raises(
        RuntimeError, match=exactly("cannot register a hook on a tensor that doesn't require gradient")
    ):
        m.tensor([1.0, 2.0]).register_hook(lambda g: g)


@backends()
def test_tensor_hook_changing_the_size(m: ModuleType) -> None:
    def wrong_size(grad: Any) -> Any:
        return m.ones(3, dtype=m.float64)

    message = exactly("hook 'wrong_size' has changed the size of value")
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.register_hook(wrong_size)
    with pytest.raises(RuntimeError, match=message):
        y.sum().backward()
    z = leaf(m, [1.0, 2.0])
    z.register_hook(wrong_size)
    with pytest.raises(RuntimeError, match=message):
        (z * 2).sum().backward()


@backends()
def test_tensor_hook_changing_the_dtype(m: ModuleType) -> None:
    def to_float(grad: Any) -> Any:
        return grad.to(m.float32)

    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.register_hook(to_float)
    with pytest.raises(
        RuntimeError,
        match=exactly(
            "hook 'to_float' has changed the type of value (was torch.DoubleTensor got torch.FloatTensor)"
        ),
    ):
        y.sum().backward()


# --- post-accumulate-grad hooks ---------------------------------------------------------------


@backends()
def test_post_accumulate_grad_hook(m: ModuleType) -> None:
    seen: list[tuple[bool, list[float]]] = []
    x = leaf(m, [1.0, 2.0])
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    (x * x).sum().backward()
    (x * x).sum().backward()
    assert seen == [(True, [2.0, 4.0]), (True, [4.0, 8.0])]
    # autograd.grad accumulates nothing, so the hook does not run
    m.autograd.grad((x * x).sum(), x)
    assert len(seen) == 2


@backends()
def test_post_accumulate_grad_hook_as_an_optimizer_step(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])

    def step(t: Any) -> None:
        with m.no_grad():
            t.sub_(t.grad)
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    (x * x).sum().backward()
    assert (x.tolist(), x.grad) == ([-1.0, -2.0], None)


@backends()
def test_post_accumulate_grad_hook_refused_on_non_leaves(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=exactly("post accumulate grad hooks cannot be registered on non-leaf tensors")
    ):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


# --- Node hooks -------------------------------------------------------------------------------


@backends()
def test_node_prehook_and_hook(m: ModuleType) -> None:
    log: Log = []

    def log_then_double(grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        log.append(("pre", values(grad_outputs)))
        return (grad_outputs[0] * 2,)

    x = leaf(m, [1.0, 2.0])
    y = x * m.tensor([3.0, 4.0], dtype=m.float64)
    node = y.grad_fn
    node.register_prehook(log_then_double)
    node.register_hook(
        lambda grad_inputs, grad_outputs: log.append(("post", values(grad_inputs), values(grad_outputs)))
    )
    y.sum().backward()
    assert log == [("pre", [[1.0, 1.0]]), ("post", [[6.0, 8.0], None], [[2.0, 2.0]])]
    assert x.grad.tolist() == [6.0, 8.0]


@backends()
def test_node_hook_replaces_grad_inputs(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, *grad_inputs[1:]))
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@backends()
def test_node_hook_removal(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 7,)).remove()
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 7, None)).remove()
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@backends()
def test_hooks_on_an_accumulate_grad_node(m: ModuleType) -> None:
    log: Log = []
    x = leaf(m, [1.0, 2.0])
    y = x * 3
    accumulate = y.grad_fn.next_functions[0][0]
    accumulate.register_prehook(lambda grad_outputs: log.append(("pre", values(grad_outputs))))
    accumulate.register_hook(
        lambda grad_inputs, grad_outputs: log.append(("post", values(grad_inputs), values(grad_outputs)))
    )
    y.sum().backward()
    assert log == [("pre", [[3.0, 3.0]]), ("post", [], [[3.0, 3.0]])]


@backends()
def test_prehook_of_a_node_with_a_non_differentiable_output(m: ModuleType) -> None:
    log: Log = []
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    maxima, _ = x.max(1)
    maxima.grad_fn.register_prehook(lambda grad_outputs: log.append(tuple(values(grad_outputs))))
    maxima.sum().backward()
    assert log == [([1.0, 1.0],)]
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 1.0]]


# --- retain_grad with hooks -------------------------------------------------------------------


@backends()
def test_retain_grad_sees_every_hook(m: ModuleType) -> None:
    """The retained gradient is the one after all tensor hooks, whenever they were registered."""
    x = leaf(m, [1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    y.register_hook(lambda g: g * 5)
    (y * 1).sum().backward()
    assert (y.grad.tolist(), x.grad.tolist()) == ([10.0, 10.0], [30.0, 30.0])


@backends()
def test_leaf_hook_with_retain_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    x.register_hook(lambda g: g * 2)
    x.retain_grad()
    (x * 1).sum().backward()
    assert (x.grad.tolist(), x.retains_grad) == ([2.0, 2.0], False)
