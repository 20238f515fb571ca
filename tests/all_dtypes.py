"""The twelve dtypes framework supports, in c10's ScalarType order (shared by the operator tests)."""

from __future__ import annotations

import framework

ALL_DTYPES = [
    framework.bool,
    framework.uint8,
    framework.int8,
    framework.int16,
    framework.int32,
    framework.int64,
    framework.float16,
    framework.float32,
    framework.float64,
    framework.complex64,
    framework.complex128,
    framework.bfloat16,
]
