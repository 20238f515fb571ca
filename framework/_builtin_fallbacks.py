"""The backend fallbacks every process starts with, as in PyTorch.

BackendSelect, ADInplaceOrView and every autograd key fall through for an operator with no kernel
of its own there: a call on a CPU tensor with no autograd kernel goes straight to the CPU kernel.
(PyTorch registered the autograd fallback as a fallthrough until 2.0; since 2.1 its fallback also
marks outputs so that backward through an operator without a derivative warns.  That belongs to
autograd and replaces this fallthrough when autograd lands.)
"""

from __future__ import annotations

from typing import Final

from framework.c10.dispatch_key import AUTOGRAD_KEYS, DispatchKey
from framework.library import Library, fallthrough_kernel

_library: Final = Library("_", "IMPL")
_library.fallback(fallthrough_kernel, DispatchKey.BackendSelect)
_library.fallback(fallthrough_kernel, DispatchKey.ADInplaceOrView)
for _key in AUTOGRAD_KEYS:
    _library.fallback(fallthrough_kernel, _key)
