"""DispatchKey priorities, the interned immutable DispatchKeySet, named sets and alias expansion."""

from __future__ import annotations

import copy
import itertools
import pickle
import re
from typing import Any

import pytest

from framework.c10.dispatch_key import (
    AFTER_AD_INPLACE_OR_VIEW_KEYS,
    AFTER_AUTOGRAD_KEYS,
    AUTOGRAD_KEYS,
    AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW,
    AUTOGRAD_OTHER_BACKENDS,
    BACKEND_KEYS,
    DEFAULT_EXCLUDED,
    DEFAULT_INCLUDED,
    MATH_KEYS,
    RUNTIME_KEYS,
    DispatchKey,
    DispatchKeySet,
    alias_runtime_keys,
    autograd_key_for_backend,
    backend_keys_for_autograd,
    is_included_in_alias,
    parse_dispatch_key,
)

try:
    import torch

    TC: Any = torch._C
except ImportError:  # the oracle is optional
    TC = None

needs_torch = pytest.mark.skipif(TC is None, reason="torch (oracle) not installed")

K = DispatchKey
ALIASES = (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)
RUNTIME = [k for k in K if k.is_runtime]


def ks(*names: str) -> DispatchKeySet:
    return DispatchKeySet(names)


def names(keyset: DispatchKeySet) -> set[str]:
    return {k.name for k in keyset}


# ---- DispatchKey ------------------------------------------------------------------------------


def test_runtime_and_alias_partition() -> None:
    assert [k.name for k in RUNTIME] == [
        "CPU",
        "PrivateUse1",
        "Meta",
        "FPGA",
        "BackendSelect",
        "Python",
        "Conjugate",
        "Negative",
        "ADInplaceOrView",
        "AutogradOther",
        "AutogradCPU",
        "AutogradPrivateUse1",
        "AutogradMeta",
        "AutocastCPU",
    ]
    assert [k for k in K if k.is_alias] == list(ALIASES)
    assert not K.Undefined.is_runtime and not K.Undefined.is_alias
    assert str(K.AutogradCPU) == "AutogradCPU"
    assert names(RUNTIME_KEYS) == {k.name for k in RUNTIME}
    assert len(RUNTIME_KEYS) == 14


def test_parse_dispatch_key() -> None:
    assert parse_dispatch_key("AutogradMeta") is K.AutogradMeta
    assert parse_dispatch_key(K.Python) is K.Python
    with pytest.raises(ValueError) as info:
        parse_dispatch_key("CUDA")
    msg = str(info.value)
    assert msg.startswith("Unknown dispatch key 'CUDA'. Expected one of: CPU, PrivateUse1, Meta, FPGA,")
    for k in K:
        if k is not K.Undefined:
            assert k.name in msg
    assert "Undefined" not in msg
    with pytest.raises(ValueError, match="Unknown dispatch key 'cpu'"):
        parse_dispatch_key("cpu")  # names are case-sensitive, as in PyTorch


# ---- DispatchKeySet -------------------------------------------------------------------------


def test_highest_priority_key() -> None:
    assert ks("CPU", "AutogradCPU").highest_priority_key() is K.AutogradCPU
    assert ks("CPU", "ADInplaceOrView", "BackendSelect").highest_priority_key() is K.ADInplaceOrView
    assert ks("CPU", "Meta").highest_priority_key() is K.Meta
    assert ks("AutogradOther", "AutogradCPU").highest_priority_key() is K.AutogradCPU
    assert ks("Python", "BackendSelect", "FPGA").highest_priority_key() is K.Python
    assert DispatchKeySet().highest_priority_key() is K.Undefined
    assert RUNTIME_KEYS.highest_priority_key() is K.AutocastCPU


def test_iteration_is_highest_priority_first() -> None:
    s = ks("CPU", "AutogradCPU", "BackendSelect", "ADInplaceOrView", "Python")
    assert list(s) == [K.AutogradCPU, K.ADInplaceOrView, K.Python, K.BackendSelect, K.CPU]
    assert list(RUNTIME_KEYS) == RUNTIME[::-1]
    assert list(DispatchKeySet()) == []
    # repr lists lowest first, like PyTorch's printing
    assert repr(ks("AutogradCPU", "CPU")) == "DispatchKeySet(CPU, AutogradCPU)"
    assert repr(DispatchKeySet()) == "DispatchKeySet()"


def test_set_algebra() -> None:
    a = ks("CPU", "AutogradCPU", "Python")
    b = ks("Python", "Meta")
    assert a | b == ks("CPU", "AutogradCPU", "Python", "Meta")
    assert a & b == ks("Python")
    assert a - b == ks("CPU", "AutogradCPU")
    assert b - a == ks("Meta")
    assert (a & ks("FPGA")).empty()
    assert a.add(K.FPGA) == ks("CPU", "AutogradCPU", "Python", "FPGA")
    assert a.remove(K.Python) == ks("CPU", "AutogradCPU")
    assert a.remove(K.Meta) == a  # removing an absent key is a no-op
    assert a == ks("CPU", "AutogradCPU", "Python")  # operands unchanged
    assert a.is_superset_of(ks("CPU", "Python"))
    assert not a.is_superset_of(b)


def test_has_len_bool_contains() -> None:
    s = ks("CPU", "AutogradCPU")
    assert s.has(K.CPU) and s.has("AutogradCPU")
    assert not s.has(K.Meta)
    assert not s.has(K.Undefined)
    assert not s.has(K.Autograd)  # alias keys are never members
    assert K.CPU in s and "AutogradCPU" in s and K.Meta not in s
    assert 1 not in s  # not a key at all
    assert s.has_any(ks("Meta", "CPU"))
    assert not s.has_any(ks("Meta", "AutogradMeta"))
    assert not s.has_any(DispatchKeySet())
    assert len(s) == 2 and len(DispatchKeySet()) == 0 and len(RUNTIME_KEYS) == 14
    assert bool(s) is True and bool(DispatchKeySet()) is False
    assert DispatchKeySet().empty() and not s.empty()


def test_constructor_forms() -> None:
    assert DispatchKeySet(K.CPU) == DispatchKeySet("CPU") == DispatchKeySet([K.CPU]) == ks("CPU")
    assert DispatchKeySet(K.CPU).repr == 1 << int(K.CPU)
    assert ks("CPU", "CPU") == ks("CPU")
    with pytest.raises(ValueError, match="Unknown dispatch key 'Bogus'"):
        DispatchKeySet("Bogus")


def test_eq_and_hash() -> None:
    a = ks("CPU", "AutogradCPU")
    b = DispatchKeySet((K.AutogradCPU, K.CPU))
    assert a is not b
    assert a == b and hash(a) == hash(b)
    assert a != ks("CPU")
    assert a != a.repr  # not equal to its own bitset
    assert len({a, b, ks("Meta")}) == 2
    assert {a: 1}[b] == 1


def test_immutable() -> None:
    s = ks("CPU")
    with pytest.raises(AttributeError, match="DispatchKeySet is immutable"):
        s.repr = 0
    with pytest.raises(AttributeError):
        s.other = 1
    assert s.repr == 1 << int(K.CPU)
    assert not hasattr(s, "__dict__")


@pytest.mark.parametrize("alias", ALIASES)
def test_alias_key_refused(alias: DispatchKey) -> None:
    with pytest.raises(ValueError) as info:
        DispatchKeySet(alias)
    assert str(info.value) == (
        f"DispatchKeySet holds runtime keys only; {alias.name} is an alias key "
        f"(use alias_runtime_keys({alias.name}) for the keys it stands for)"
    )
    with pytest.raises(ValueError, match="is an alias key"):
        DispatchKeySet((K.CPU, alias.name))


def test_undefined_is_not_a_member() -> None:
    with pytest.raises(ValueError, match=r"^DispatchKeySet holds runtime keys only; Undefined is no key$"):
        DispatchKeySet(K.Undefined)


def test_from_bits_interning() -> None:
    bits = ks("CPU", "AutogradCPU").repr
    a = DispatchKeySet.from_bits(bits)
    assert DispatchKeySet.from_bits(bits) is a
    assert a == ks("CPU", "AutogradCPU")
    # set operations return the interned object for their result
    assert (ks("CPU") | ks("AutogradCPU")) is a
    assert (ks("CPU", "AutogradCPU", "Meta") - ks("Meta")) is a
    assert (ks("CPU", "AutogradCPU", "Meta") & ks("CPU", "AutogradCPU")) is a
    assert DispatchKeySet.from_bits(0) is DispatchKeySet.from_bits(0)
    assert DispatchKeySet.from_bits(0) == DispatchKeySet()


def test_copy_and_pickle_round_trip() -> None:
    s = DispatchKeySet.from_bits(ks("Meta", "AutogradMeta").repr)
    assert copy.copy(s) is s
    assert copy.deepcopy({"k": s})["k"] is s
    assert pickle.loads(pickle.dumps(s)) is s
    fresh = ks("Python", "FPGA")
    assert pickle.loads(pickle.dumps(fresh)) == fresh


def test_full_after() -> None:
    assert DispatchKeySet.full_after(K.CPU) == DispatchKeySet()
    assert DispatchKeySet.full_after(K.FPGA) == ks("CPU", "PrivateUse1", "Meta")
    assert DispatchKeySet.full_after(K.Python) == ks("CPU", "PrivateUse1", "Meta", "FPGA", "BackendSelect")
    assert not DispatchKeySet.full_after(K.Python).has(K.Undefined)
    assert DispatchKeySet.full_after(K.Autograd) == RUNTIME_KEYS


# ---- PyTorch's named sets and alias/backend mapping -----------------------------------------


def test_autograd_alias() -> None:
    expected = ks("AutogradOther", "AutogradCPU", "AutogradPrivateUse1", "AutogradMeta")
    assert AUTOGRAD_KEYS == expected
    assert alias_runtime_keys(K.Autograd) == expected
    assert AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW == expected | ks("ADInplaceOrView")


def test_composite_explicit_autograd_is_the_backends() -> None:
    expected = ks("CPU", "PrivateUse1", "Meta", "FPGA")
    assert BACKEND_KEYS == expected
    assert alias_runtime_keys(K.CompositeExplicitAutograd) == expected


def test_composite_implicit_autograd_is_backends_and_autograd() -> None:
    expected = ks(
        "CPU",
        "PrivateUse1",
        "Meta",
        "FPGA",
        "AutogradOther",
        "AutogradCPU",
        "AutogradPrivateUse1",
        "AutogradMeta",
    )
    assert MATH_KEYS == expected
    assert alias_runtime_keys(K.CompositeImplicitAutograd) == expected
    for k in ("BackendSelect", "Python", "ADInplaceOrView"):
        assert not is_included_in_alias(parse_dispatch_key(k), K.CompositeImplicitAutograd)


def test_alias_runtime_keys_of_a_runtime_key_is_itself() -> None:
    for k in RUNTIME:
        assert alias_runtime_keys(k) == DispatchKeySet(k)


def test_is_included_in_alias() -> None:
    assert is_included_in_alias(K.AutogradOther, K.Autograd)
    assert not is_included_in_alias(K.CPU, K.Autograd)
    assert is_included_in_alias(K.FPGA, K.CompositeExplicitAutograd)
    assert not is_included_in_alias(K.AutogradCPU, K.CompositeExplicitAutograd)
    assert is_included_in_alias(K.AutogradMeta, K.CompositeImplicitAutograd)


def test_autograd_key_for_backend() -> None:
    assert autograd_key_for_backend(K.CPU) is K.AutogradCPU
    assert autograd_key_for_backend(K.Meta) is K.AutogradMeta
    assert autograd_key_for_backend(K.PrivateUse1) is K.AutogradPrivateUse1
    assert autograd_key_for_backend(K.FPGA) is K.AutogradOther
    with pytest.raises(ValueError, match=r"^Python is not a backend dispatch key$"):
        autograd_key_for_backend(K.Python)


def test_backend_keys_for_autograd() -> None:
    assert backend_keys_for_autograd(K.AutogradOther) == ks("FPGA") == AUTOGRAD_OTHER_BACKENDS
    assert backend_keys_for_autograd(K.AutogradCPU) == ks("CPU")
    assert backend_keys_for_autograd(K.AutogradMeta) == ks("Meta")
    assert backend_keys_for_autograd(K.AutogradPrivateUse1) == ks("PrivateUse1")
    assert backend_keys_for_autograd(K.CPU) == DispatchKeySet()
    for backend in BACKEND_KEYS:
        assert backend_keys_for_autograd(autograd_key_for_backend(backend)).has(backend)


def test_after_autograd_keys() -> None:
    assert AFTER_AUTOGRAD_KEYS == ks(
        "CPU",
        "PrivateUse1",
        "Meta",
        "FPGA",
        "BackendSelect",
        "Python",
        "Conjugate",
        "Negative",
        "ADInplaceOrView",
    )
    assert not AFTER_AUTOGRAD_KEYS.has_any(AUTOGRAD_KEYS)
    assert AFTER_AUTOGRAD_KEYS.is_superset_of(BACKEND_KEYS)


def test_after_ad_inplace_or_view_keys() -> None:
    assert AFTER_AD_INPLACE_OR_VIEW_KEYS == AFTER_AUTOGRAD_KEYS - ks("ADInplaceOrView")
    assert not AFTER_AD_INPLACE_OR_VIEW_KEYS.has(K.ADInplaceOrView)
    assert AFTER_AD_INPLACE_OR_VIEW_KEYS.has(K.BackendSelect)


def test_default_included() -> None:
    assert DEFAULT_INCLUDED == ks("BackendSelect", "ADInplaceOrView")


# ---- cross-checks against PyTorch --------------------------------------------------------------

OURS = {k.name for k in RUNTIME}


def torch_names(torch_keyset: Any) -> set[str]:
    """The names in a torch._C.DispatchKeySet that are also keys here."""
    text = str(torch_keyset)
    match = re.fullmatch(r"DispatchKeySet\((.*)\)", text)
    assert match is not None, text
    return {n for n in match.group(1).split(", ") if n} & OURS


@needs_torch
def test_torch_after_autograd_keyset() -> None:
    assert torch_names(TC._after_autograd_keyset) == names(AFTER_AUTOGRAD_KEYS)
    assert torch_names(TC._after_ADInplaceOrView_keyset) == names(AFTER_AD_INPLACE_OR_VIEW_KEYS)


@needs_torch
@pytest.mark.parametrize("key", ["BackendSelect", "Python", "ADInplaceOrView", "AutogradOther"])
def test_torch_full_after(key: str) -> None:
    # Only keys that are not per-backend map cleanly: PyTorch's FULL_AFTER of a per-backend key
    # is computed from its functionality bit.
    theirs = TC._dispatch_keyset_full_after(getattr(TC.DispatchKey, key))
    assert torch_names(theirs) == names(DispatchKeySet.full_after(parse_dispatch_key(key)))


@needs_torch
def test_torch_default_tls_include_set() -> None:
    assert torch_names(TC._dispatch_tls_local_include_set()) == names(DEFAULT_INCLUDED)
    assert torch_names(TC._dispatch_tls_local_exclude_set()) == names(DEFAULT_EXCLUDED) == {"AutocastCPU"}


@needs_torch
@pytest.mark.parametrize("alias", ALIASES)
def test_torch_alias_membership(alias: DispatchKey) -> None:
    for k in RUNTIME:
        theirs = TC._dispatch_is_included_in_alias(k.name, alias.name)
        assert theirs == is_included_in_alias(k, alias), (k.name, alias.name)
    assert TC._dispatch_is_alias_key(getattr(TC.DispatchKey, alias.name))


@needs_torch
def test_torch_backend_keyset_from_autograd() -> None:
    for ag in AUTOGRAD_KEYS:
        theirs = TC._dispatch_get_backend_keyset_from_autograd(getattr(TC.DispatchKey, ag.name))
        assert torch_names(theirs) == names(backend_keys_for_autograd(ag)), ag.name


@needs_torch
def test_torch_priority_order() -> None:
    """For every pair of keys whose PyTorch set is exactly that pair, both pick the same key."""
    compared = 0
    for a, b in itertools.combinations(RUNTIME, 2):
        ta, tb = getattr(TC.DispatchKey, a.name, None), getattr(TC.DispatchKey, b.name, None)
        if ta is None or tb is None:  # FPGA has no Python enum value in torch
            continue
        theirs = TC.DispatchKeySet(ta) | TC.DispatchKeySet(tb)
        if torch_names(theirs) != {a.name, b.name}:
            continue  # per-backend keys of different backends cross-multiply in PyTorch
        assert theirs.highestPriorityTypeId().name == DispatchKeySet((a, b)).highest_priority_key().name
        compared += 1
    assert compared >= 35, compared
