"""Scalar types, user-facing ``dtype`` singletons, type promotion and the default dtype.

Mirrors c10's ``ScalarType`` and ``torch.dtype`` for the twelve dtypes this framework supports.
Each ``dtype`` exists exactly once, so dtypes compare (and hash) by identity. ``bfloat16``'s
elements are ``ml_dtypes.bfloat16`` values (NumPy has no bfloat16 of its own).
"""

from __future__ import annotations

import enum
from typing import Any, Final, final

import attrs
import ml_dtypes
import numpy as np
import numpy.typing as npt

__all__ = [
    "DTYPES",
    "REDUCED_FLOAT_NUMPY",
    "ScalarType",
    "bfloat16",
    "bool_",
    "can_cast",
    "complex64",
    "complex128",
    "default_complex_dtype",
    "dtype",
    "dtype_from_numpy",
    "dtype_from_scalar_type",
    "float16",
    "float32",
    "float64",
    "get_default_dtype",
    "int8",
    "int16",
    "int32",
    "int64",
    "numpy_finfo",
    "numpy_is_floating",
    "promote_types",
    "set_default_dtype",
    "uint8",
]


class ScalarType(enum.IntEnum):
    """c10's ScalarType codes (same numbering as PyTorch), with lowercase aliases."""

    Byte = 0
    Char = 1
    Short = 2
    Int = 3
    Long = 4
    Half = 5
    Float = 6
    Double = 7
    ComplexFloat = 9
    ComplexDouble = 10
    Bool = 11
    BFloat16 = 15

    uint8 = 0
    int8 = 1
    int16 = 2
    int32 = 3
    int64 = 4
    float16 = 5
    float32 = 6
    float64 = 7
    complex64 = 9
    complex128 = 10
    bool = 11
    bfloat16 = 15


@final
@attrs.frozen(eq=False, repr=False)
class dtype:
    """A tensor element type; only the module-level singletons exist (compare them with ``is``)."""

    name: str
    scalar_type: ScalarType
    itemsize: int
    is_floating_point: bool
    is_complex: bool
    is_signed: bool
    numpy_dtype: np.dtype[Any]
    scalar_type_name: str
    is_reduced_float: bool
    """float16 or bfloat16: PyTorch's CPU kernels compute these in float32 (the "opmath" type)."""
    opmath_numpy: np.dtype[Any]
    """The NumPy type PyTorch's CPU kernels compute this dtype in: float32 for float16 and
    bfloat16, else its own."""

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __str__(self) -> str:
        return self.__repr__()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> dtype:
        """The real counterpart of a complex dtype; any other dtype maps to itself."""
        return _TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        """The complex counterpart of a floating dtype; complex dtypes map to themselves.

        Raises ``RuntimeError`` for dtypes without a supported complex counterpart (integers, bool
        and float16, whose counterpart complex32 is not implemented here).
        """
        result = _TO_COMPLEX.get(self)
        if result is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self.scalar_type_name}")
        return result


_NP_BFLOAT16: Final = np.dtype(ml_dtypes.bfloat16)


def _make(name: str, scalar_type: ScalarType, np_type: Any) -> dtype:
    np_dtype = np.dtype(np_type)
    # ml_dtypes' bfloat16 is a NumPy "V" (user-defined) kind: it is a float all the same.
    floating = np_dtype.kind == "f" or np_dtype == _NP_BFLOAT16
    return dtype(
        name=name,
        scalar_type=scalar_type,
        itemsize=np_dtype.itemsize,
        is_floating_point=floating,
        is_complex=np_dtype.kind == "c",
        is_signed=floating or np_dtype.kind in "ic",
        numpy_dtype=np_dtype,
        scalar_type_name=scalar_type.name,
        is_reduced_float=floating and np_dtype.itemsize == 2,
        opmath_numpy=np.dtype(np.float32) if floating and np_dtype.itemsize == 2 else np_dtype,
    )



bool_: Final = _make("bool", ScalarType.Bool, "bool")
uint8: Final = _make("uint8", ScalarType.Byte, "uint8")
int8: Final = _make("int8", ScalarType.Char, "int8")
int16: Final = _make("int16", ScalarType.Short, "int16")
int32: Final = _make("int32", ScalarType.Int, "int32")
int64: Final = _make("int64", ScalarType.Long, "int64")
float16: Final = _make("float16", ScalarType.Half, "float16")
bfloat16: Final = _make("bfloat16", ScalarType.BFloat16, ml_dtypes.bfloat16)
float32: Final = _make("float32", ScalarType.Float, "float32")
float64: Final = _make("float64", ScalarType.Double, "float64")
complex64: Final = _make("complex64", ScalarType.ComplexFloat, "complex64")
complex128: Final = _make("complex128", ScalarType.ComplexDouble, "complex128")

_ALL: Final[tuple[dtype, ...]] = (
    bool_,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,
    complex64,
    complex128,
    bfloat16,
)

DTYPES: Final[dict[str, dtype]] = {
    **{d.name: d for d in _ALL},
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "cfloat": complex64,
    "cdouble": complex128,
}
"""Every dtype by its canonical name (``"float32"``, ``"bool"``, ...) and by PyTorch's aliases."""

_BY_SCALAR_TYPE: Final[dict[ScalarType, dtype]] = {d.scalar_type: d for d in _ALL}
_TO_REAL: Final[dict[dtype, dtype]] = {complex64: float32, complex128: float64}
_TO_COMPLEX: Final[dict[dtype, dtype]] = {
    float32: complex64,
    float64: complex128,
    complex64: complex64,
    complex128: complex128,
}


def _dtype_by_name(name: str) -> dtype:
    return DTYPES[name]


def dtype_from_scalar_type(scalar_type: ScalarType) -> dtype:
    """The dtype singleton for a ``ScalarType``."""
    return _BY_SCALAR_TYPE[scalar_type]


def _category(d: dtype) -> int:
    """0 for bool, 1 for integers, 2 for floating point, 3 for complex."""
    if d.is_complex:
        return 3
    if d.is_floating_point:
        return 2
    return 0 if d is bool_ else 1


def _promote(a: dtype, b: dtype) -> dtype:
    cat_a, cat_b = _category(a), _category(b)
    if cat_a != cat_b:
        high, low = (a, b) if cat_a > cat_b else (b, a)
        if high.is_complex and low is float64:
            return complex128
        return high
    if cat_a == 1 and a.is_signed != b.is_signed:
        signed = a if a.is_signed else b
        return int16 if signed is int8 else signed
    if a.is_reduced_float and b.is_reduced_float and a is not b:
        return float32
    return a if a.itemsize >= b.itemsize else b


_PROMOTION: Final[dict[dtype, dict[dtype, dtype]]] = {a: {b: _promote(a, b) for b in _ALL} for a in _ALL}
_CAN_CAST: Final[dict[dtype, dict[dtype, bool]]] = {
    a: {b: _category(a) <= _category(b) for b in _ALL} for a in _ALL
}


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing category (torch.promote_types)."""
    return _PROMOTION[a][b]


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (torch.can_cast).

    Disallowed: floating point to integral or bool, complex to non-complex, non-bool to bool.
    """
    return _CAN_CAST[from_][to]


_default_dtype: dtype = float32


def get_default_dtype() -> dtype:
    """The process-global default floating dtype (initially float32)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the process-global default floating dtype; only floating-point dtypes are accepted."""
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def default_complex_dtype() -> dtype:
    """complex128 when the default dtype is float64, otherwise complex64."""
    return complex128 if _default_dtype is float64 else complex64


REDUCED_FLOAT_NUMPY: Final = frozenset({np.dtype(np.float16), _NP_BFLOAT16})
"""The NumPy types of float16 and bfloat16 (PyTorch computes them in float32)."""


def numpy_finfo(d: npt.DTypeLike) -> np.finfo[Any]:
    """NumPy's `finfo` of a floating NumPy type, ml_dtypes' bfloat16 included (NumPy's refuses it)."""
    info: np.finfo[Any] = ml_dtypes.finfo(d)  # type: ignore[no-untyped-call]  # ml_dtypes is unannotated
    return info


def numpy_is_floating(d: np.dtype[Any]) -> bool:
    """Whether a NumPy dtype is a real floating type, ml_dtypes' bfloat16 included."""
    return d.kind == "f" or d == _NP_BFLOAT16

_FROM_NUMPY: Final[dict[tuple[str, int], dtype]] = {
    (d.numpy_dtype.kind, d.numpy_dtype.itemsize): d for d in _ALL if d is not bfloat16
}
"""NumPy arrays convert by kind and size (any byte order, refused separately); PyTorch converts
no bfloat16 array (NumPy has no such type)."""
_NUMPY_SUPPORTED: Final = (
    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool"
)


def dtype_from_numpy(np_dtype: np.dtype[Any]) -> dtype:
    """The dtype matching a NumPy dtype.

    Raises ``TypeError`` for NumPy dtypes without a counterpart and ``ValueError`` for
    non-native byte orders, with PyTorch's messages (as in ``torch.from_numpy``).
    """
    result = _FROM_NUMPY.get((np_dtype.kind, np_dtype.itemsize))
    if result is None:
        raise TypeError(
            f"can't convert np.ndarray of type {np_dtype.type.__module__}.{np_dtype.type.__name__}. "
            f"The only supported types are: {_NUMPY_SUPPORTED}."
        )
    if not np_dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported."
        )
    return result
