"""Nested Python containers of tensors ("pytrees") as `torch.func` sees them: tuples (named ones
too), lists, dicts and OrderedDicts are nodes, anything else (None included) is a leaf.
`tree_flatten` gives the leaves in order and a `TreeSpec` to rebuild the structure with
`tree_unflatten`."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["TreeSpec", "broadcast_to_and_flatten", "tree_flatten", "tree_map", "tree_unflatten"]


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _children(node: Any) -> tuple[type | None, Any, list[Any]]:
    """A node's type (None for a leaf), context (dict keys, a named tuple's class) and children."""
    if _is_namedtuple(node):
        return tuple, type(node), list(node)
    if type(node) in (tuple, list):
        return type(node), None, list(node)
    if type(node) in (dict, OrderedDict):
        return type(node), list(node), list(node.values())
    return None, None, []


class TreeSpec:
    """The structure of a pytree: its node type, context and children's specs (a leaf: no type)."""

    def __init__(self, kind: type | None, context: Any, children: list[TreeSpec]) -> None:
        self.kind, self.context, self.children = kind, context, children
        self.num_leaves: int = 1 if kind is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and (self.kind, self.context) == (other.kind, other.context)
            and self.children == other.children
        )

    def __hash__(self) -> int:
        return hash((self.kind, len(self.children), self.num_leaves))

    def _repr(self, indent: int) -> str:
        if self.kind is None:
            return "*"
        separator = ",\n" + " " * (indent + 2)
        children = separator.join(child._repr(indent + 2) for child in self.children)
        context = self.context.__name__ if isinstance(self.context, type) else self.context
        return f"TreeSpec({self.kind.__name__}, {context}, [{children}])"

    def __repr__(self) -> str:
        return self._repr(0)

    def pprint(self) -> str:
        """The structure in Python-like notation, leaves as `*`: `(*, [*, {'a': *}])`."""
        if self.kind is None:
            return "*"
        parts = [child.pprint() for child in self.children]
        if isinstance(self.context, type):
            return f"{self.context.__name__}({', '.join(parts)})"
        if self.kind is tuple:
            return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
        if self.kind is list:
            return f"[{', '.join(parts)}]"
        return (
            "{" + ", ".join(f"{key!r}: {part}" for key, part in zip(self.context, parts, strict=True)) + "}"
        )


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """The leaves of `tree`, depth first, and its structure."""
    kind, context, children = _children(tree)
    if kind is None:
        return [tree], TreeSpec(None, None, [])
    leaves: list[Any] = []
    specs = []
    for child in children:
        child_leaves, spec = tree_flatten(child)
        leaves.extend(child_leaves)
        specs.append(spec)
    return leaves, TreeSpec(kind, context, specs)


def tree_unflatten(leaves: list[Any] | tuple[Any, ...], spec: TreeSpec) -> Any:
    """The pytree of structure `spec` holding `leaves` (as many as `spec` has)."""
    if len(leaves) != spec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
            f"pytree that holds {spec.num_leaves} items ({spec})."
        )
    return _build(iter(leaves), spec)


def _build(leaves: Any, spec: TreeSpec) -> Any:
    if spec.kind is None:
        return next(leaves)
    children = [_build(leaves, child) for child in spec.children]
    if isinstance(spec.context, type):
        return spec.context(*children)
    if spec.kind in (tuple, list):
        return spec.kind(children)
    return spec.kind(zip(spec.context, children, strict=True))


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """`tree` with `fn` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_to_and_flatten(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """`prefix`, a pytree whose structure is a prefix of `spec`'s, flattened to `spec`'s leaves:
    each leaf of `prefix` repeated for the leaves of the subtree it stands for. None when `prefix`
    does not fit `spec`."""
    kind, context, children = _children(prefix)
    if kind is None:
        return [prefix] * spec.num_leaves
    if (kind, context) != (spec.kind, spec.context) or len(children) != len(spec.children):
        return None
    result: list[Any] = []
    for child, child_spec in zip(children, spec.children, strict=True):
        flat = broadcast_to_and_flatten(child, child_spec)
        if flat is None:
            return None
        result.extend(flat)
    return result
