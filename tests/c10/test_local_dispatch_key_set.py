"""Thread-local included/excluded dispatch keys and the guards that change them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from framework.c10.dispatch_key import (
    AUTOGRAD_KEYS,
    DEFAULT_EXCLUDED,
    DEFAULT_INCLUDED,
    DispatchKey,
    DispatchKeySet,
)
from framework.c10.local_dispatch_key_set import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
    ExcludeDispatchKeyGuard,
    IncludeDispatchKeyGuard,
    tls_excluded,
    tls_included,
    tls_is_dispatch_key_excluded,
    tls_is_dispatch_key_included,
)

try:
    import torch

    TC: Any = torch._C
except ImportError:  # the oracle is optional
    TC = None

needs_torch = pytest.mark.skipif(TC is None, reason="torch (oracle) not installed")

K = DispatchKey
EMPTY = DispatchKeySet()
DEFAULT_STATE = (DispatchKeySet((K.BackendSelect, K.ADInplaceOrView)), DispatchKeySet(K.AutocastCPU))


def state() -> tuple[DispatchKeySet, DispatchKeySet]:
    return tls_included(), tls_excluded()


def in_new_thread(fn: Callable[[], object]) -> object:
    result: list[object] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join(timeout=10)
    assert not t.is_alive()
    if errors:
        raise errors[0]
    return result[0]


@pytest.fixture(autouse=True)
def _tls_is_default_around_each_test() -> Any:
    assert state() == DEFAULT_STATE
    yield
    assert state() == DEFAULT_STATE


def test_defaults() -> None:
    assert tls_included() == DEFAULT_INCLUDED == DispatchKeySet((K.BackendSelect, K.ADInplaceOrView))
    assert tls_excluded() == DEFAULT_EXCLUDED == DispatchKeySet(K.AutocastCPU)  # autocast is off
    assert tls_is_dispatch_key_included(K.BackendSelect)
    assert tls_is_dispatch_key_included(K.ADInplaceOrView)
    assert not tls_is_dispatch_key_included(K.Python)
    for k in K:
        assert tls_is_dispatch_key_excluded(k) == (k is K.AutocastCPU)


def test_include_guard_adds_and_restores() -> None:
    with IncludeDispatchKeyGuard(K.Python):
        assert tls_included() == DispatchKeySet((K.BackendSelect, K.ADInplaceOrView, K.Python))
        assert tls_is_dispatch_key_included(K.Python)
        assert tls_excluded() == DEFAULT_EXCLUDED
    assert state() == DEFAULT_STATE


def test_include_guard_accepts_set_and_name() -> None:
    with IncludeDispatchKeyGuard(DispatchKeySet((K.Python, K.FPGA))):
        assert tls_included() == DEFAULT_INCLUDED | DispatchKeySet((K.Python, K.FPGA))
    with IncludeDispatchKeyGuard("Python"):
        assert tls_is_dispatch_key_included(K.Python)
    assert state() == DEFAULT_STATE


def test_include_of_already_included_key_keeps_it_after_exit() -> None:
    with IncludeDispatchKeyGuard(K.BackendSelect):
        assert tls_included() == DEFAULT_INCLUDED
    assert tls_is_dispatch_key_included(K.BackendSelect)


def test_exclude_guard_adds_and_restores() -> None:
    with ExcludeDispatchKeyGuard(DispatchKeySet((K.CPU, K.Python))):
        assert tls_excluded() == DEFAULT_EXCLUDED | DispatchKeySet((K.CPU, K.Python))
        assert tls_is_dispatch_key_excluded(K.CPU)
        assert not tls_is_dispatch_key_excluded(K.Meta)
        assert tls_included() == DEFAULT_INCLUDED  # excluding does not touch the included set
    assert state() == DEFAULT_STATE


@pytest.mark.parametrize(
    "make_guard",
    [
        lambda: IncludeDispatchKeyGuard(K.Python),
        lambda: ExcludeDispatchKeyGuard(K.CPU),
        AutoDispatchBelowAutograd,
        AutoDispatchBelowADInplaceOrView,
    ],
)
def test_guards_restore_on_exception(make_guard: Callable[[], Any]) -> None:
    with pytest.raises(ZeroDivisionError), make_guard():
        assert state() != DEFAULT_STATE
        _ = 1 / 0
    assert state() == DEFAULT_STATE


def test_nesting_restores_each_level() -> None:
    with IncludeDispatchKeyGuard(K.Python):
        level1 = state()
        with ExcludeDispatchKeyGuard(K.AutogradCPU):
            level2 = state()
            assert level2 == (level1[0], DEFAULT_EXCLUDED | DispatchKeySet(K.AutogradCPU))
            with IncludeDispatchKeyGuard(K.FPGA), AutoDispatchBelowADInplaceOrView():
                assert tls_included() == DEFAULT_INCLUDED | DispatchKeySet((K.Python, K.FPGA))
                assert tls_excluded() == DEFAULT_EXCLUDED | AUTOGRAD_KEYS | DispatchKeySet(K.ADInplaceOrView)
            assert state() == level2
        assert state() == level1
        assert tls_is_dispatch_key_included(K.Python)
    assert state() == DEFAULT_STATE


def test_guard_object_can_be_reused() -> None:
    guard = ExcludeDispatchKeyGuard(K.Meta)
    for _ in range(2):
        with guard:
            assert tls_excluded() == DEFAULT_EXCLUDED | DispatchKeySet(K.Meta)
        assert state() == DEFAULT_STATE


def test_auto_dispatch_below_autograd() -> None:
    with AutoDispatchBelowAutograd():
        assert tls_excluded() == DEFAULT_EXCLUDED | DispatchKeySet(
            (K.AutogradOther, K.AutogradCPU, K.AutogradPrivateUse1, K.AutogradMeta)
        )
        for k in AUTOGRAD_KEYS:
            assert tls_is_dispatch_key_excluded(k)
        assert not tls_is_dispatch_key_excluded(K.ADInplaceOrView)
        assert tls_included() == DEFAULT_INCLUDED
    assert state() == DEFAULT_STATE


def test_auto_dispatch_below_ad_inplace_or_view() -> None:
    with AutoDispatchBelowADInplaceOrView():
        assert tls_excluded() == DEFAULT_EXCLUDED | DispatchKeySet(
            (K.ADInplaceOrView, K.AutogradOther, K.AutogradCPU, K.AutogradPrivateUse1, K.AutogradMeta)
        )
        assert tls_is_dispatch_key_excluded(K.ADInplaceOrView)
        assert not tls_is_dispatch_key_excluded(K.BackendSelect)
        assert not tls_is_dispatch_key_excluded(K.CPU)
    assert state() == DEFAULT_STATE


def test_new_thread_started_inside_a_guard_sees_defaults() -> None:
    with IncludeDispatchKeyGuard(K.Python), AutoDispatchBelowADInplaceOrView():
        outer = state()
        assert in_new_thread(state) == DEFAULT_STATE
        assert state() == outer  # the other thread did not disturb this one


def test_guard_in_another_thread_is_not_seen_here() -> None:
    entered = threading.Event()
    release = threading.Event()
    seen: list[tuple[DispatchKeySet, DispatchKeySet]] = []

    def worker() -> None:
        with ExcludeDispatchKeyGuard(K.CPU), IncludeDispatchKeyGuard(K.Python):
            entered.set()
            release.wait(timeout=10)
            seen.append(state())
        seen.append(state())

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert entered.wait(timeout=10)
        assert state() == DEFAULT_STATE  # the worker's guards are active right now
    finally:
        release.set()
        t.join(timeout=10)
    inside = (DEFAULT_INCLUDED | DispatchKeySet(K.Python), DEFAULT_EXCLUDED | DispatchKeySet(K.CPU))
    assert seen == [inside, DEFAULT_STATE]


def test_concurrent_threads_each_see_their_own_guard() -> None:
    n = 4
    barrier = threading.Barrier(n, timeout=10)
    guards: list[Callable[[], Any]] = [
        lambda: IncludeDispatchKeyGuard(K.Python),
        lambda: ExcludeDispatchKeyGuard(K.CPU),
        AutoDispatchBelowAutograd,
        AutoDispatchBelowADInplaceOrView,
    ]
    expected = [
        (DEFAULT_INCLUDED | DispatchKeySet(K.Python), DEFAULT_EXCLUDED),
        (DEFAULT_INCLUDED, DEFAULT_EXCLUDED | DispatchKeySet(K.CPU)),
        (DEFAULT_INCLUDED, DEFAULT_EXCLUDED | AUTOGRAD_KEYS),
        (DEFAULT_INCLUDED, DEFAULT_EXCLUDED | AUTOGRAD_KEYS | DispatchKeySet(K.ADInplaceOrView)),
    ]
    results: list[list[tuple[DispatchKeySet, DispatchKeySet]]] = [[] for _ in range(n)]
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            with guards[i]():
                barrier.wait()  # every thread is inside its guard
                results[i].append(state())
                barrier.wait()  # ... and stays there until all have looked
                results[i].append(state())
            results[i].append(state())
        except BaseException as e:
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not errors
    for i in range(n):
        assert results[i] == [expected[i], expected[i], DEFAULT_STATE], i


# ---- cross-checks against PyTorch --------------------------------------------------------------


def torch_has(torch_keyset: Any, key: DispatchKey) -> bool:
    return bool(torch_keyset.has(getattr(TC.DispatchKey, key.name)))


@needs_torch
def test_torch_tls_defaults_and_guards_agree() -> None:
    for k in (K.BackendSelect, K.ADInplaceOrView, K.Python, K.CPU):
        assert torch_has(TC._dispatch_tls_local_include_set(), k) == tls_is_dispatch_key_included(k)
    with TC._IncludeDispatchKeyGuard(TC.DispatchKey.Python), IncludeDispatchKeyGuard(K.Python):
        for k in (K.BackendSelect, K.ADInplaceOrView, K.Python, K.CPU):
            assert torch_has(TC._dispatch_tls_local_include_set(), k) == tls_is_dispatch_key_included(k)
    # AutogradOther and ADInplaceOrView are not per-backend keys, so `has` on PyTorch's exclude
    # set answers for them directly.
    for torch_guard, ours in (
        (TC._AutoDispatchBelowAutograd, AutoDispatchBelowAutograd),
        (TC._AutoDispatchBelowADInplaceOrView, AutoDispatchBelowADInplaceOrView),
    ):
        with torch_guard(), ours():
            theirs = TC._dispatch_tls_local_exclude_set()
            for k in (K.AutogradOther, K.ADInplaceOrView, K.BackendSelect, K.Python, K.AutocastCPU):
                assert torch_has(theirs, k) == tls_is_dispatch_key_excluded(k), (ours.__name__, k)


@needs_torch
def test_torch_new_thread_sees_default_include_set_too() -> None:
    def torch_python_included() -> bool:
        return torch_has(TC._dispatch_tls_local_include_set(), K.Python)

    with TC._IncludeDispatchKeyGuard(TC.DispatchKey.Python), IncludeDispatchKeyGuard(K.Python):
        assert torch_python_included() and tls_is_dispatch_key_included(K.Python)
        assert in_new_thread(torch_python_included) is False
        assert in_new_thread(lambda: tls_is_dispatch_key_included(K.Python)) is False
