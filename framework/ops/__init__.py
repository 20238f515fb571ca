"""The operator library and `framework.ops.<namespace>.<operator>[.<overload>]`."""

from __future__ import annotations

from framework.ops._ops import OpNamespace, OpOverload, OpOverloadPacket

_namespaces: dict[str, OpNamespace] = {}


def __getattr__(ns: str) -> OpNamespace:
    """`framework.ops.<ns>`: the operators defined in namespace `ns`."""
    if ns.startswith("__"):
        raise AttributeError(ns)
    namespace = _namespaces.get(ns)
    if namespace is None:
        namespace = _namespaces[ns] = OpNamespace(ns)
    return namespace


__all__ = ["OpNamespace", "OpOverload", "OpOverloadPacket"]
