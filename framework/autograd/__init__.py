"""Autograd: variables (autograd metadata on tensors) and, to come, the graph and the engine."""

from framework.autograd.variable import AutogradMeta, make_variable

__all__ = ["AutogradMeta", "make_variable"]
