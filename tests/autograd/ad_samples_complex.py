"""Sample inputs of the complex-number entries of derivatives.yaml (angle, polar, complex and the
conjugate/negative views).

The tests differentiate real (float64) inputs and real outputs: `prepare` makes each input complex
through view_as_complex (last dimension of 2) where the operator takes complex values, and
`outputs` splits complex outputs into their real and imaginary parts (after resolve_conj and
resolve_neg, as PyTorch's gradcheck reads complex outputs).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from ad_sample import Sample

import framework
from framework import Tensor


def _values(seed: int, shape: tuple[int, ...], low: float = 0.3, high: float = 1.2) -> Tensor:
    """float64 values with magnitude in [low, high) and random signs."""
    rng = np.random.default_rng(seed)
    return framework.from_numpy(np.asarray(rng.uniform(low, high, shape) * rng.choice([-1.0, 1.0], shape)))


def _module(t: Any) -> Any:
    """framework or torch, whichever `t` belongs to."""
    return framework if isinstance(t, framework.Tensor) else sys.modules["torch"]


def _as_complex(t: Any) -> Any:
    return _module(t).view_as_complex(t)


def _parts(outputs: list[Any]) -> list[Any]:
    parts = []
    for o in outputs:
        o = o.resolve_conj().resolve_neg()
        parts += [o.real, o.imag] if o.is_complex() else [o]
    return parts


def _complex_unary() -> list[Sample]:
    """One complex input (a transposed, non-contiguous one in the second sample)."""
    return [
        Sample((_values(0, (2, 3, 2)),), prepare=_as_complex, outputs=_parts, desc="complex"),
        Sample(
            (_values(1, (3, 2, 2)),),
            prepare=lambda t: _as_complex(t).transpose(0, 1),
            outputs=_parts,
            desc="complex, transposed",
        ),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "angle": lambda: [
        Sample((_values(0, (3, 2, 2)),), prepare=_as_complex, desc="complex"),
        Sample((_values(1, (2, 3)),), desc="real"),
    ],
    "polar": lambda: [
        Sample((_values(0, (2, 3), 0.5, 2.0).abs(), _values(1, (3,), 0.1, 3.0)), outputs=_parts),
    ],
    "complex": lambda: [Sample((_values(0, (2, 3)), _values(1, (3,))), outputs=_parts)],
    "_conj": _complex_unary,
    "_neg_view": lambda: [
        Sample((_values(0, (2, 3)),), outputs=_parts, desc="real"),
        *_complex_unary(),
    ],
    "_conj_physical": _complex_unary,
    "conj_physical_": _complex_unary,
}

NO_GRADGRAD: dict[str, str] = {}
