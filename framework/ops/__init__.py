"""The operator library and `framework.ops.<namespace>.<operator>[.<overload>]`."""

from __future__ import annotations

import importlib.util

from framework.ops._ops import OpNamespace, OpOverload, OpOverloadPacket

_namespaces: dict[str, OpNamespace] = {}


def __getattr__(ns: str) -> OpNamespace:
    """`framework.ops.<ns>`: the operators defined in namespace `ns` (names of this package's
    own modules are not namespaces: `from framework.ops import codegen` imports the module)."""
    namespace = _namespaces.get(ns)
    if namespace is None:
        if ns.startswith("__") or importlib.util.find_spec(f"{__name__}.{ns}") is not None:
            raise AttributeError(ns)
        namespace = _namespaces[ns] = OpNamespace(ns)
    return namespace


__all__ = ["OpNamespace", "OpOverload", "OpOverloadPacket"]
