"""The eleven dtypes NumPy holds natively, in c10's ScalarType order: the operator tests build and
check their values as NumPy arrays (bfloat16, the twelfth dtype, has tests/ops/test_bfloat16.py)."""

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
]
