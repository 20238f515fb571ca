"""The README's Python examples run as written, in order, as one session (the README stays true)."""

from __future__ import annotations

import re
from pathlib import Path

from framework.library import Library

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def test_readme_examples_run() -> None:
    assert len(BLOCKS) >= 4
    namespace: dict[str, object] = {}
    try:
        for index, block in enumerate(BLOCKS):
            exec(compile(block, f"README.md python block {index}", "exec"), namespace)
    finally:
        for value in namespace.values():
            if isinstance(value, Library):
                value._destroy()
