"""Dispatch keys and key sets.

A `DispatchKey` is an ordered enum: a runtime key's position is its priority, so the key of
highest priority in a `DispatchKeySet` is the one with the highest bit.  Alias keys
(`Autograd`, `CompositeImplicitAutograd`, `CompositeExplicitAutograd`) sit after the runtime keys;
they never appear in a key set, they stand for a set of runtime keys when a kernel is registered.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Final, final


class DispatchKey(enum.IntEnum):
    """Runtime keys in increasing priority, then the alias keys."""

    Undefined = 0
    # Backends ("Dense" functionality, one bit each).  Meta is the last backend bit, as in PyTorch.
    CPU = 1
    PrivateUse1 = 2
    Meta = 3
    # A backend with no autograd key of its own: autograd for it is AutogradOther.
    FPGA = 4
    BackendSelect = 5
    Python = 6
    Conjugate = 7
    Negative = 8
    ADInplaceOrView = 9
    AutogradOther = 10
    AutogradCPU = 11
    AutogradPrivateUse1 = 12
    AutogradMeta = 13
    # Above autograd, as in PyTorch: casts the arguments of some operators when autocast is on
    # (excluded from every thread's calls otherwise).
    AutocastCPU = 14
    # Alias keys: never in a key set.
    Autograd = 15
    CompositeImplicitAutograd = 16
    CompositeExplicitAutograd = 17

    @property
    def is_alias(self) -> bool:
        return self >= DispatchKey.Autograd

    @property
    def is_runtime(self) -> bool:
        return DispatchKey.Undefined < self < DispatchKey.Autograd

    def __str__(self) -> str:
        return self.name


NUM_RUNTIME_KEYS: Final = int(DispatchKey.Autograd)
"""Runtime keys occupy bits 1..NUM_RUNTIME_KEYS-1; table index == key value."""

_KEYS_BY_VALUE: Final[tuple[DispatchKey, ...]] = tuple(DispatchKey)
_INTERNED: dict[int, DispatchKeySet] = {}


def parse_dispatch_key(name: str | DispatchKey) -> DispatchKey:
    """The key named `name` (PyTorch's spelling); a `ValueError` lists the valid names."""
    if isinstance(name, DispatchKey):
        return name
    try:
        return DispatchKey[name]
    except KeyError:
        valid = ", ".join(k.name for k in DispatchKey if k is not DispatchKey.Undefined)
        raise ValueError(f"Unknown dispatch key '{name}'. Expected one of: {valid}") from None


@final
class DispatchKeySet:
    """An immutable set of runtime dispatch keys, stored as a bitset (bit i is key value i)."""

    __slots__ = ("repr",)
    repr: int

    def __init__(self, keys: Iterable[DispatchKey | str] | DispatchKey | str = ()) -> None:
        if isinstance(keys, (DispatchKey, str)):
            keys = (keys,)
        bits = 0
        for key in keys:
            k = parse_dispatch_key(key)
            if k.is_alias:
                raise ValueError(
                    f"DispatchKeySet holds runtime keys only; {k.name} is an alias key "
                    f"(use alias_runtime_keys({k.name}) for the keys it stands for)"
                )
            if not k.is_runtime:
                raise ValueError("DispatchKeySet holds runtime keys only; Undefined is no key")
            bits |= 1 << k
        object.__setattr__(self, "repr", bits)

    @classmethod
    def from_bits(cls, bits: int) -> DispatchKeySet:
        """The set whose bitset is `bits`.  Sets are interned (there are at most 2**14), so
        this is a dictionary lookup on the hot path."""
        ks = _INTERNED.get(bits)
        if ks is None:
            ks = cls.__new__(cls)
            object.__setattr__(ks, "repr", bits)
            ks = _INTERNED.setdefault(bits, ks)
        return ks

    @classmethod
    def full_after(cls, key: DispatchKey) -> DispatchKeySet:
        """Every runtime key of strictly lower priority than `key` (PyTorch's FULL_AFTER)."""
        return cls.from_bits(((1 << int(key)) - 1) & ~1)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DispatchKeySet is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # The default protocol restores slots with setattr, which an immutable set refuses.
        return (DispatchKeySet.from_bits, (self.repr,))

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        bits = self.repr | other.repr
        ks = _INTERNED.get(bits)
        return ks if ks is not None else DispatchKeySet.from_bits(bits)

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        bits = self.repr & other.repr
        ks = _INTERNED.get(bits)
        return ks if ks is not None else DispatchKeySet.from_bits(bits)

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        bits = self.repr & ~other.repr
        ks = _INTERNED.get(bits)
        return ks if ks is not None else DispatchKeySet.from_bits(bits)

    def add(self, key: DispatchKey) -> DispatchKeySet:
        return self | DispatchKeySet(key)

    def remove(self, key: DispatchKey) -> DispatchKeySet:
        return self - DispatchKeySet(key)

    def has(self, key: DispatchKey | str) -> bool:
        k = parse_dispatch_key(key)
        return k.is_runtime and bool(self.repr >> k & 1)

    def has_any(self, other: DispatchKeySet) -> bool:
        return bool(self.repr & other.repr)

    def is_superset_of(self, other: DispatchKeySet) -> bool:
        return self.repr & other.repr == other.repr

    def empty(self) -> bool:
        return self.repr == 0

    def highest_priority_key(self) -> DispatchKey:
        """The key of highest priority (`Undefined` for the empty set)."""
        return _KEYS_BY_VALUE[self.repr.bit_length() - 1] if self.repr else DispatchKey.Undefined

    def __iter__(self) -> Iterator[DispatchKey]:
        """Keys in priority order, highest first."""
        bits = self.repr
        while bits:
            top = bits.bit_length() - 1
            yield _KEYS_BY_VALUE[top]
            bits ^= 1 << top

    def __len__(self) -> int:
        return self.repr.bit_count()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, (DispatchKey, str)) and self.has(key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DispatchKeySet) and other.repr == self.repr

    def __hash__(self) -> int:
        return hash(self.repr)

    def __bool__(self) -> bool:
        return self.repr != 0

    def __repr__(self) -> str:
        return "DispatchKeySet(" + ", ".join(k.name for k in reversed(list(self))) + ")"


# ---- named sets, as in PyTorch's DispatchKeySet.h ----------------------------------------

BACKEND_KEYS: Final = DispatchKeySet(
    (DispatchKey.CPU, DispatchKey.PrivateUse1, DispatchKey.Meta, DispatchKey.FPGA)
)
"""The backends: what CompositeExplicitAutograd stands for."""

AUTOGRAD_OTHER_BACKENDS: Final = DispatchKeySet((DispatchKey.FPGA,))
"""Backends with no autograd key of their own, served by AutogradOther."""

AUTOGRAD_KEYS: Final = DispatchKeySet(
    (
        DispatchKey.AutogradOther,
        DispatchKey.AutogradCPU,
        DispatchKey.AutogradPrivateUse1,
        DispatchKey.AutogradMeta,
    )
)
"""What the `Autograd` alias stands for (PyTorch's autograd_dispatch_keyset)."""

MATH_KEYS: Final = BACKEND_KEYS | AUTOGRAD_KEYS
"""What CompositeImplicitAutograd stands for (PyTorch's math_dispatch_keyset)."""

AUTOGRAD_KEYS_WITH_AD_INPLACE_OR_VIEW: Final = AUTOGRAD_KEYS | DispatchKeySet(DispatchKey.ADInplaceOrView)

AFTER_AUTOGRAD_KEYS: Final = DispatchKeySet.full_after(DispatchKey.AutogradOther)
"""Every key below the autograd keys: what an autograd kernel redispatches to."""

AFTER_AD_INPLACE_OR_VIEW_KEYS: Final = DispatchKeySet.full_after(DispatchKey.ADInplaceOrView)
"""Every key below ADInplaceOrView."""

DEFAULT_INCLUDED: Final = DispatchKeySet((DispatchKey.BackendSelect, DispatchKey.ADInplaceOrView))
"""Keys every thread includes in every call unless a guard says otherwise."""

DEFAULT_EXCLUDED: Final = DispatchKeySet(DispatchKey.AutocastCPU)
"""Keys every thread excludes from every call until told otherwise: autocast is off until enabled
(PyTorch's default excluded set)."""

_AUTOCAST_KEY_OF_BACKEND: Final[dict[DispatchKey, DispatchKey]] = {DispatchKey.CPU: DispatchKey.AutocastCPU}


def autocast_keys_for_backend(backend: DispatchKey) -> DispatchKeySet:
    """The autocast key a backend's tensors carry (CPU's AutocastCPU; none for the others)."""
    key = _AUTOCAST_KEY_OF_BACKEND.get(backend)
    return DispatchKeySet() if key is None else DispatchKeySet(key)

RUNTIME_KEYS: Final = DispatchKeySet.from_bits(((1 << NUM_RUNTIME_KEYS) - 1) & ~1)

_ALIAS_KEYSETS: Final[dict[DispatchKey, DispatchKeySet]] = {
    DispatchKey.Autograd: AUTOGRAD_KEYS,
    DispatchKey.CompositeImplicitAutograd: MATH_KEYS,
    DispatchKey.CompositeExplicitAutograd: BACKEND_KEYS,
}

_AUTOGRAD_KEY_OF_BACKEND: Final[dict[DispatchKey, DispatchKey]] = {
    DispatchKey.CPU: DispatchKey.AutogradCPU,
    DispatchKey.PrivateUse1: DispatchKey.AutogradPrivateUse1,
    DispatchKey.Meta: DispatchKey.AutogradMeta,
    DispatchKey.FPGA: DispatchKey.AutogradOther,
}


def alias_runtime_keys(key: DispatchKey) -> DispatchKeySet:
    """The runtime keys `key` stands for: itself for a runtime key, its expansion for an alias."""
    if key.is_alias:
        return _ALIAS_KEYSETS[key]
    return DispatchKeySet(key)


def is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    return _ALIAS_KEYSETS[alias].has(key)


def autograd_key_for_backend(backend: DispatchKey) -> DispatchKey:
    """The autograd key of a backend (FPGA, which has none of its own, maps to AutogradOther)."""
    try:
        return _AUTOGRAD_KEY_OF_BACKEND[backend]
    except KeyError:
        raise ValueError(f"{backend.name} is not a backend dispatch key") from None


def backend_keys_for_autograd(key: DispatchKey) -> DispatchKeySet:
    """The backends an autograd key serves (empty for keys that are not autograd keys)."""
    return DispatchKeySet(b for b, a in _AUTOGRAD_KEY_OF_BACKEND.items() if a is key)
