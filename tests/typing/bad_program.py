"""Misuses mypy --strict must catch through framework's stubs."""

from __future__ import annotations

import framework

x = framework.rand(2, 2)
framework.exp(x, 3)
y: int = framework.add(x, x)
x.sum(keepdim="yes")
