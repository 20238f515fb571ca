"""Grad modes against PyTorch: `no_grad`, `enable_grad`, `set_grad_enabled` (call, context manager,
decorator), `inference_mode` and inference tensors, and thread-locality of the modes.

Tests taking `m` run on framework and on PyTorch as the oracle: see `ad_backends.backends`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from ad_backends import backends, exactly, leaf

TIMEOUT = 30.0
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
    "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
    "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
INFERENCE_IN_PLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
    "details."
)


def in_other_thread(
    body: Callable[[threading.Barrier], object], main: Callable[[threading.Barrier], None]
) -> object:
    """Run `body(barrier)` in a new thread while `main(barrier)` runs here; the barrier (two
    parties) lets each side hold its mode while the other observes. Returns body's result."""
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(body(barrier)))
    worker.start()
    main(barrier)
    worker.join(TIMEOUT)
    assert not worker.is_alive()
    return results[0]


# --- no_grad / enable_grad / set_grad_enabled -------------------------------------------------


@backends()
def test_no_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    assert m.is_grad_enabled()
    with m.no_grad():
        assert not m.is_grad_enabled()
        y = x * x
        made = m.tensor([1.0, 2.0], requires_grad=True)
    assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)
    assert (made.requires_grad, made.is_leaf) == (True, True)
    assert m.is_grad_enabled()
    with pytest.raises(ValueError), m.no_grad():
        raise ValueError
    assert m.is_grad_enabled()


@backends()
def test_no_grad_as_decorator(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])

    @m.no_grad()
    def double(t: Any) -> tuple[Any, bool]:
        return t * 2, m.is_grad_enabled()

    y, enabled = double(x)
    assert (y.requires_grad, enabled, m.is_grad_enabled()) == (False, False, True)
    assert double.__name__ == "double"


@backends()
def test_no_grad_as_bare_decorator(m: ModuleType) -> None:
    @m.no_grad
    def enabled() -> bool:
        return bool(m.is_grad_enabled())

    assert enabled() is False


@backends()
def test_no_grad_on_a_generator(m: ModuleType) -> None:
    @m.no_grad()
    def modes() -> Iterator[bool]:
        yield m.is_grad_enabled()
        yield m.is_grad_enabled()

    assert list(modes()) == [False, False]


@backends()
def test_enable_grad(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])

    @m.enable_grad()
    def enabled() -> bool:
        return bool(m.is_grad_enabled())

    with m.no_grad():
        with m.enable_grad():
            assert m.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not m.is_grad_enabled()
        assert enabled()
        assert not m.is_grad_enabled()


@backends()
def test_set_grad_enabled(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    try:
        m.set_grad_enabled(False)
        assert not m.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        m.set_grad_enabled(True)
    assert m.is_grad_enabled()
    with m.set_grad_enabled(False):
        assert not m.is_grad_enabled()
    assert m.is_grad_enabled()
    with m.no_grad():
        with m.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not m.is_grad_enabled()


@backends()
def test_set_grad_enabled_as_decorator(m: ModuleType) -> None:
    @m.set_grad_enabled(False)
    def enabled() -> bool:
        return bool(m.is_grad_enabled())

    # decorating does not change the mode; each call runs in the decorator's mode
    assert m.is_grad_enabled()
    assert enabled() is False
    assert m.is_grad_enabled()


# --- inference_mode ---------------------------------------------------------------------------


@backends()
def test_inference_mode(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with m.inference_mode():
        assert (m.is_inference_mode_enabled(), m.is_grad_enabled()) == (True, False)
        y = x * x
        made = m.ones(2, dtype=m.float64)
        with m.inference_mode(False):
            assert (m.is_inference_mode_enabled(), m.is_grad_enabled()) == (False, True)
            assert not m.ones(1).is_inference()
    assert (m.is_inference_mode_enabled(), m.is_grad_enabled()) == (False, True)
    assert (y.requires_grad, y.grad_fn, y.is_leaf, y.is_inference()) == (False, None, True, True)
    assert (made.is_inference(), x.is_inference()) == (True, False)


@backends()
def test_inference_mode_as_decorator(m: ModuleType) -> None:
    @m.inference_mode()
    def inside() -> tuple[bool, bool]:
        return bool(m.is_inference_mode_enabled()), bool(m.ones(1).is_inference())

    assert inside() == (True, True)
    assert not m.is_inference_mode_enabled()


@backends()
def test_inference_tensors_outside_inference_mode(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])
    with m.inference_mode():
        z = m.ones(2, dtype=m.float64)
    with pytest.raises(RuntimeError, match=exactly(INFERENCE_SAVED)):
        x * z
    # add saves no tensor: an inference tensor may take part
    assert (x + z).requires_grad
    product = z * 2
    assert (product.is_inference(), product.requires_grad) == (False, False)
    view = z[0:1]
    assert view.is_inference()
    with pytest.raises(RuntimeError, match=exactly(INFERENCE_IN_PLACE)):
        z.add_(1)
    with pytest.raises(RuntimeError, match=exactly(INFERENCE_IN_PLACE)), m.no_grad():
        z.add_(1)
    with pytest.raises(
        RuntimeError,
        match=exactly("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."),
    ):
        z.requires_grad_()
    with m.inference_mode():
        z.add_(1)
        z.requires_grad_()
        assert z.requires_grad


@backends()
def test_inference_tensors_have_no_version_counter(m: ModuleType) -> None:
    with m.inference_mode():
        z = m.ones(2, dtype=m.float64)
        with pytest.raises(RuntimeError, match=exactly("Inference tensors do not track version counter.")):
            _ = z._version


@backends()
def test_in_place_on_a_normal_tensor_in_inference_mode(m: ModuleType) -> None:
    x = m.ones(3, dtype=m.float64)
    with m.inference_mode():
        x.add_(1)
    assert (x._version, x.is_inference()) == (1, False)


@backends()
def test_view_created_in_inference_mode(m: ModuleType) -> None:
    a = leaf(m, [1.0, 2.0, 3.0]) * 1
    with m.inference_mode():
        view = a[0:2]
    assert (view.requires_grad, view.is_inference(), view._is_view()) == (True, False, True)
    with pytest.raises(
        RuntimeError,
        match=exactly(
            "A view was created in inference mode and is being modified inplace in normal mode. Given that "
            "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            "moving both the view and the inplace either both inside the inference_mode block (if you "
            "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
        ),
    ):
        view.add_(1)


# --- thread-locality --------------------------------------------------------------------------


@backends()
def test_new_thread_starts_with_grad_enabled(m: ModuleType) -> None:
    x = leaf(m, [1.0, 2.0])

    def worker(barrier: threading.Barrier) -> tuple[bool, bool, list[float]]:
        barrier.wait()
        enabled = bool(m.is_grad_enabled())
        y = (x * x).sum()
        y.backward()
        barrier.wait()
        return enabled, bool(y.requires_grad), x.grad.tolist()

    def main(barrier: threading.Barrier) -> None:
        with m.no_grad():
            barrier.wait()
            barrier.wait()
            assert not m.is_grad_enabled()

    assert in_other_thread(worker, main) == (True, True, [2.0, 4.0])


@backends()
def test_no_grad_in_another_thread_does_not_leak(m: ModuleType) -> None:
    def worker(barrier: threading.Barrier) -> bool:
        with m.no_grad():
            barrier.wait()
            barrier.wait()
            return bool(m.is_grad_enabled())

    def main(barrier: threading.Barrier) -> None:
        barrier.wait()
        assert m.is_grad_enabled()
        barrier.wait()

    assert in_other_thread(worker, main) is False


@backends()
def test_new_thread_starts_outside_inference_mode(m: ModuleType) -> None:
    def worker(barrier: threading.Barrier) -> tuple[bool, bool]:
        barrier.wait()
        modes = bool(m.is_inference_mode_enabled()), bool(m.is_grad_enabled())
        barrier.wait()
        return modes

    def main(barrier: threading.Barrier) -> None:
        with m.inference_mode():
            barrier.wait()
            barrier.wait()

    assert in_other_thread(worker, main) == (False, True)
