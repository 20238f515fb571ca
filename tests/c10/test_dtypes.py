from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Iterator
from typing import Any

import attrs
import ml_dtypes
import numpy as np
import pytest

from framework.c10 import dtypes
from framework.c10.dtypes import (
    DTYPES,
    ScalarType,
    bfloat16,
    bool_,
    can_cast,
    complex64,
    complex128,
    default_complex_dtype,
    dtype,
    dtype_from_numpy,
    dtype_from_scalar_type,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)

torch: Any
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128, bfloat16)
SHORT = {
    "b": bool_,
    "u1": uint8,
    "i1": int8,
    "i2": int16,
    "i4": int32,
    "i8": int64,
    "f2": float16,
    "f4": float32,
    "f8": float64,
    "c8": complex64,
    "c16": complex128,
    "bf": bfloat16,
}

# PyTorch's promotion table (torch.promote_types); rows and columns in ALL's order.
PROMOTION_TABLE = """
b   u1  i1  i2  i4  i8  f2  f4  f8  c8  c16 bf
u1  u1  i2  i2  i4  i8  f2  f4  f8  c8  c16 bf
i1  i2  i1  i2  i4  i8  f2  f4  f8  c8  c16 bf
i2  i2  i2  i2  i4  i8  f2  f4  f8  c8  c16 bf
i4  i4  i4  i4  i4  i8  f2  f4  f8  c8  c16 bf
i8  i8  i8  i8  i8  i8  f2  f4  f8  c8  c16 bf
f2  f2  f2  f2  f2  f2  f2  f4  f8  c8  c16 f4
f4  f4  f4  f4  f4  f4  f4  f4  f8  c8  c16 f4
f8  f8  f8  f8  f8  f8  f8  f8  f8  c16 c16 f8
c8  c8  c8  c8  c8  c8  c8  c8  c16 c8  c16 c8
c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
bf  bf  bf  bf  bf  bf  f4  f4  f8  c8  c16 bf
"""

# torch.can_cast(row, column); rows and columns in ALL's order.
CAN_CAST_TABLE = """
111111111111
011111111111
011111111111
011111111111
011111111111
011111111111
000000111111
000000111111
000000111111
000000000110
000000000110
000000111111
"""

# name, itemsize, is_floating_point, is_complex, is_signed, ScalarType name, NumPy dtype
PROPERTIES = [
    ("bool", 1, False, False, False, "Bool", "bool"),
    ("uint8", 1, False, False, False, "Byte", "uint8"),
    ("int8", 1, False, False, True, "Char", "int8"),
    ("int16", 2, False, False, True, "Short", "int16"),
    ("int32", 4, False, False, True, "Int", "int32"),
    ("int64", 8, False, False, True, "Long", "int64"),
    ("float16", 2, True, False, True, "Half", "float16"),
    ("float32", 4, True, False, True, "Float", "float32"),
    ("float64", 8, True, False, True, "Double", "float64"),
    ("complex64", 8, False, True, True, "ComplexFloat", "complex64"),
    ("complex128", 16, False, True, True, "ComplexDouble", "complex128"),
    ("bfloat16", 2, True, False, True, "BFloat16", "bfloat16"),
]


def _expected_promotion() -> dict[tuple[dtype, dtype], dtype]:
    rows = [line.split() for line in PROMOTION_TABLE.strip().splitlines()]
    assert len(rows) == len(ALL) and all(len(row) == len(ALL) for row in rows)
    return {(a, b): SHORT[rows[i][j]] for i, a in enumerate(ALL) for j, b in enumerate(ALL)}


def _expected_can_cast() -> dict[tuple[dtype, dtype], bool]:
    rows = CAN_CAST_TABLE.split()
    assert len(rows) == len(ALL) and all(len(row) == len(ALL) for row in rows)
    return {(a, b): rows[i][j] == "1" for i, a in enumerate(ALL) for j, b in enumerate(ALL)}


def _exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


def _torch_dtype(d: dtype) -> Any:
    return getattr(torch, d.name)


@pytest.fixture
def restore_default_dtype() -> Iterator[None]:
    saved = get_default_dtype()
    yield
    set_default_dtype(saved)


def test_promote_types_matches_pytorch_table_for_all_144_pairs() -> None:
    expected = _expected_promotion()
    assert len(expected) == 144
    mismatches = {
        pair: (promote_types(*pair), want)
        for pair, want in expected.items()
        if promote_types(*pair) is not want
    }
    assert mismatches == {}


def test_promote_types_notable_cases() -> None:
    assert promote_types(uint8, int8) is int16
    assert promote_types(float16, int64) is float16
    assert promote_types(complex64, float64) is complex128
    for d in ALL:
        assert promote_types(bool_, d) is d
        assert promote_types(d, d) is d


def test_promote_types_is_symmetric() -> None:
    for a in ALL:
        for b in ALL:
            assert promote_types(a, b) is promote_types(b, a)


@needs_torch
def test_promote_types_matches_live_torch() -> None:
    for a in ALL:
        for b in ALL:
            result = torch.promote_types(_torch_dtype(a), _torch_dtype(b))
            assert _torch_dtype(promote_types(a, b)) is result, (a, b)


@needs_torch
def test_hardcoded_tables_match_live_torch() -> None:
    for (a, b), want in _expected_promotion().items():
        assert torch.promote_types(_torch_dtype(a), _torch_dtype(b)) is _torch_dtype(want)
    for (a, b), allowed in _expected_can_cast().items():
        assert torch.can_cast(_torch_dtype(a), _torch_dtype(b)) == allowed


@pytest.mark.parametrize("row", PROPERTIES, ids=[row[0] for row in PROPERTIES])
def test_properties(row: tuple[str, int, bool, bool, bool, str, str]) -> None:
    name, itemsize, is_float, is_complex, is_signed, st_name, np_name = row
    d = DTYPES[name]
    assert d.name == name
    assert d.itemsize == itemsize
    assert d.is_floating_point is is_float
    assert d.is_complex is is_complex
    assert d.is_signed is is_signed
    assert d.scalar_type_name == st_name
    assert d.scalar_type is ScalarType[st_name]
    assert d.numpy_dtype == np.dtype(np_name)
    assert repr(d) == str(d) == f"framework.{name}"
    assert dtype_from_scalar_type(d.scalar_type) is d


@needs_torch
def test_properties_match_live_torch() -> None:
    for d in ALL:
        t = _torch_dtype(d)
        assert (d.itemsize, d.is_floating_point, d.is_complex, d.is_signed) == (
            t.itemsize,
            t.is_floating_point,
            t.is_complex,
            t.is_signed,
        )
        assert repr(d).removeprefix("framework.") == repr(t).removeprefix("torch.")


def test_scalar_type_codes_and_aliases() -> None:
    assert ScalarType["float32"] is ScalarType.Float
    assert ScalarType["bool"] is ScalarType.Bool
    assert ScalarType["complex128"] is ScalarType.ComplexDouble
    codes = {
        "Byte": 0,
        "Char": 1,
        "Short": 2,
        "Int": 3,
        "Long": 4,
        "Half": 5,
        "Float": 6,
        "Double": 7,
        "ComplexFloat": 9,
        "ComplexDouble": 10,
        "Bool": 11,
        "BFloat16": 15,
    }
    assert {member.name: member.value for member in ScalarType} == codes
    for d in ALL:
        assert getattr(ScalarType, d.name) is d.scalar_type


def test_dtypes_mapping_and_aliases() -> None:
    aliases = {
        "float": float32,
        "double": float64,
        "half": float16,
        "long": int64,
        "int": int32,
        "short": int16,
        "cfloat": complex64,
        "cdouble": complex128,
        "bool": bool_,
    }
    for alias, d in aliases.items():
        assert DTYPES[alias] is d
    assert {DTYPES[d.name] for d in ALL} == set(ALL)
    assert len(DTYPES) == 20


def test_to_real_and_to_complex() -> None:
    assert complex64.to_real() is float32
    assert complex128.to_real() is float64
    for d in (bool_, int32, float16, float32, float64):
        assert d.to_real() is d
    assert float32.to_complex() is complex64
    assert float64.to_complex() is complex128
    assert complex64.to_complex() is complex64
    with pytest.raises(RuntimeError, match=_exactly("Unknown Complex ScalarType for Int")):
        int32.to_complex()
    with pytest.raises(RuntimeError, match=_exactly("Unknown Complex ScalarType for Bool")):
        bool_.to_complex()


def test_singletons_survive_copy_and_pickle() -> None:
    for d in ALL:
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.copy(d) is d
        assert copy.deepcopy(d) is d


def test_dtype_is_frozen_and_hashable() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        float32.itemsize = 8  # type: ignore[misc]
    assert len({d: d.name for d in ALL}) == 12
    assert float32 != float64


def test_default_dtype(restore_default_dtype: None) -> None:
    assert get_default_dtype() is float32
    assert default_complex_dtype() is complex64
    set_default_dtype(float64)
    assert get_default_dtype() is float64
    assert default_complex_dtype() is complex128
    set_default_dtype(float16)
    assert get_default_dtype() is float16
    assert default_complex_dtype() is complex64


@pytest.mark.parametrize("bad", [int32, bool_, complex64, complex128, uint8])
def test_set_default_dtype_rejects_non_floating(bad: dtype, restore_default_dtype: None) -> None:
    message = "only floating-point types are supported as the default type"
    with pytest.raises(TypeError, match=_exactly(message)):
        set_default_dtype(bad)
    assert get_default_dtype() is float32


def test_default_dtype_is_module_state(restore_default_dtype: None) -> None:
    set_default_dtype(float64)
    assert dtypes.get_default_dtype() is float64


def test_can_cast_table() -> None:
    for (a, b), allowed in _expected_can_cast().items():
        assert can_cast(a, b) is allowed, (a, b)


@needs_torch
def test_can_cast_matches_live_torch() -> None:
    for a in ALL:
        for b in ALL:
            assert can_cast(a, b) == torch.can_cast(_torch_dtype(a), _torch_dtype(b)), (a, b)


def test_dtype_from_numpy_round_trips() -> None:
    for d in ALL[:-1]:  # NumPy has no bfloat16: PyTorch refuses ml_dtypes' (below)
        assert dtype_from_numpy(d.numpy_dtype) is d
    assert dtype_from_numpy(np.dtype(np.longlong)) is int64
    assert dtype_from_numpy(np.dtype("=i4")) is int32


SUPPORTED = "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."


@pytest.mark.parametrize(
    ("np_dtype", "type_name"),
    [
        (np.dtype(ml_dtypes.bfloat16), "bfloat16"),
        (np.dtype(object), "object_"),
        (np.dtype("U3"), "str_"),
        (np.dtype(np.uint16), "uint16"),
        (np.dtype(np.longdouble), "longdouble"),
        (np.dtype("M8[s]"), "datetime64"),
        (np.dtype([("a", "f4")]), "void"),
    ],
)
def test_dtype_from_numpy_rejects_unsupported(np_dtype: np.dtype[Any], type_name: str) -> None:
    with pytest.raises(TypeError) as info:
        dtype_from_numpy(np_dtype)
    assert str(info.value) == (
        f"can't convert np.ndarray of type {np_dtype.type.__module__}.{type_name}. The only supported "
        f"types are: {SUPPORTED}"
    )


def test_dtype_from_numpy_rejects_non_native_byte_order() -> None:
    with pytest.raises(ValueError, match="byte order different from the native byte order"):
        dtype_from_numpy(np.dtype("f4").newbyteorder())


@needs_torch
def test_dtype_from_numpy_matches_torch_from_numpy() -> None:
    for d in ALL[:-1]:
        from_torch = torch.from_numpy(np.zeros(1, d.numpy_dtype)).dtype
        assert _torch_dtype(dtype_from_numpy(d.numpy_dtype)) is from_torch
    with pytest.raises(TypeError) as info:
        torch.from_numpy(np.zeros(1, dtype=object))
    assert str(info.value).startswith("can't convert np.ndarray of type numpy.object_. The only supported")
