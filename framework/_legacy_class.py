"""The base of PyTorch's legacy dtype-named classes: `framework.FloatTensor` (framework._tensor_type)
and `framework.FloatStorage` (framework._typed_storage)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from framework.c10.dtypes import dtype

__all__ = ["LegacyClass", "legacy_classes"]


class LegacyClass(type):
    """A metaclass whose classes stand for one dtype (`dtype`), live in `framework` and print as
    `<class 'framework.FloatTensor'>`."""

    dtype: dtype

    def __repr__(cls) -> str:
        return f"<class 'framework.{cls.__name__}'>"


_Meta = TypeVar("_Meta", bound=LegacyClass)


def legacy_classes(meta: type[_Meta], suffix: str, dtypes: Iterable[dtype]) -> dict[str, _Meta]:
    """One class of metaclass `meta` per dtype, named after its scalar type and `suffix`
    (`FloatTensor`), by name."""
    classes = [
        meta(f"{d.scalar_type_name}{suffix}", (), {"dtype": d, "__module__": "framework"}) for d in dtypes
    ]
    return {c.__name__: c for c in classes}
