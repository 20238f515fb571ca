"""`assert_close`: compare tensors, NumPy arrays, Python numbers, None and (nested) sequences and
mappings of them, with PyTorch's default tolerances and its failure messages."""

from __future__ import annotations

import cmath
import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NoReturn

import numpy as np

from framework._tensor import Tensor
from framework._tensor_new import as_tensor
from framework.autograd import no_grad
from framework.c10.device import strided
from framework.c10.dtypes import complex64, complex128, dtype, float16, float32, float64, int64, promote_types

__all__ = ["assert_close"]

_DTYPE_PRECISIONS: Final[dict[dtype, tuple[float, float]]] = {
    float16: (0.001, 1e-5),
    float32: (1.3e-6, 1e-5),
    float64: (1e-7, 1e-7),
    complex64: (1.3e-6, 1e-5),
    complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES: Final[dict[type, dtype]] = {int: int64, float: float64, complex: complex128}

Id = tuple[Any, ...]


class _ErrorMeta(Exception):
    """A comparison failure: the exception type to raise, its message, and where in the inputs."""

    def __init__(self, kind: type[Exception], msg: str, *, id: Id = ()) -> None:
        super().__init__(msg)
        self.kind = kind
        self.msg = msg
        self.id = id

    def to_error(self, msg: str | Callable[[str], str] | None) -> Exception:
        """The exception: `msg` itself when a string, else the generated message (with the failing
        item's path) passed through `msg` when it is callable."""
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {_path(self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.kind(msg)


class _Unsupported(Exception):
    """A comparison pair does not handle these inputs; the next one is tried."""


def _path(id: Id) -> str:
    return "".join(str([item]) for item in id)


def _tolerances(*dtypes: dtype, rtol: float | None, atol: float | None, id: Id) -> tuple[float, float]:
    """The given `rtol`/`atol` (both or neither), else the loosest defaults of `dtypes` (0 for
    integral and boolean ones)."""
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}.",
            id=id,
        )
    if rtol is not None and atol is not None:
        return rtol, atol
    rtols, atols = zip(*(_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes), strict=True)
    return max(rtols), max(atols)


def _mismatch_msg(
    default_identifier: str,
    *,
    extra: str,
    abs_diff: float,
    abs_diff_idx: tuple[int, ...] | None,
    atol: float,
    rel_diff: float,
    rel_diff_idx: tuple[int, ...] | None,
    rtol: float,
) -> str:
    equality = rtol == 0 and atol == 0

    def diff_line(kind: str, diff: float, idx: tuple[int, ...] | None, tol: float) -> str:
        line = (
            f"{kind.title()} difference: {diff}"
            if idx is None
            else f"Greatest {kind} difference: {diff} at index {idx}"
        )
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{default_identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_line("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual: Any, expected: Any, *, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(
        "Scalars",
        extra=f"Expected {expected} but got {actual}.",
        abs_diff=abs_diff,
        abs_diff_idx=None,
        atol=atol,
        rel_diff=rel_diff,
        rel_diff_idx=None,
        rtol=rtol,
    )


def _tensor_mismatch_msg(
    actual: Tensor, expected: Tensor, matches: Tensor, *, rtol: float, atol: float
) -> str:
    """PyTorch's report: how many elements mismatch, and the greatest absolute and relative
    differences among them with their indices (integers compared as int64)."""
    total = matches.numel()
    mismatches = total - int(np.count_nonzero(matches.numpy()))
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        actual_flat, expected_flat = actual_flat.to(int64), expected_flat.to(int64)
    abs_diff = (actual_flat - expected_flat).abs()
    abs_diff[matches_flat] = 0
    rel_diff = abs_diff / expected_flat.abs()
    rel_diff[matches_flat] = 0

    def greatest(diff: Tensor) -> tuple[Any, tuple[int, ...]]:
        values = diff.numpy()
        flat_idx = int(np.argmax(values))
        return values[flat_idx].item(), tuple(
            int(i) for i in np.unravel_index(flat_idx, tuple(matches.shape))
        )

    max_abs, abs_idx = greatest(abs_diff)
    max_rel, rel_idx = greatest(rel_diff)
    return _mismatch_msg(
        "Tensor-likes",
        extra=f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})",
        abs_diff=max_abs,
        abs_diff_idx=abs_idx,
        atol=atol,
        rel_diff=max_rel,
        rel_diff_idx=rel_idx,
        rtol=rtol,
    )


class _Pair:
    """Two inputs to compare; the constructor raises `_Unsupported` for inputs it does not handle."""

    def __init__(self, actual: Any, expected: Any, id: Id) -> None:
        self.actual = actual
        self.expected = expected
        self.id = id

    def fail(self, kind: type[Exception], msg: str) -> NoReturn:
        raise _ErrorMeta(kind, msg, id=self.id)

    def compare(self) -> None:
        raise NotImplementedError


class _NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, id: Id, **options: Any) -> None:
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, id)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual: Any, expected: Any, id: Id, **options: Any) -> None:
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), id)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(
        self,
        actual: Any,
        expected: Any,
        id: Id,
        *,
        rtol: float | None,
        atol: float | None,
        equal_nan: bool,
        check_dtype: bool,
        **options: Any,
    ) -> None:
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id)
        self.rtol, self.atol = _tolerances(
            *(_NUMBER_DTYPES[type(x)] for x in (actual, expected)), rtol=rtol, atol=atol, id=id
        )
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self.fail(AssertionError, _scalar_mismatch_msg(actual, expected, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(
        self,
        actual: Any,
        expected: Any,
        id: Id,
        *,
        allow_subclasses: bool,
        rtol: float | None,
        atol: float | None,
        equal_nan: bool,
        check_device: bool,
        check_dtype: bool,
        check_layout: bool,
        check_stride: bool,
    ) -> None:
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported
        super().__init__(self._to_tensor(actual), self._to_tensor(expected), id)
        self.rtol, self.atol = _tolerances(
            self.actual.dtype, self.expected.dtype, rtol=rtol, atol=atol, id=id
        )
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    @staticmethod
    def _to_tensor(value: Any) -> Tensor:
        if isinstance(value, Tensor):
            return value
        try:
            return as_tensor(value)
        except Exception:
            raise _Unsupported from None

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if actual.device.type == "meta" or expected.device.type == "meta":
            return
        with no_grad():
            if actual.dtype != expected.dtype:
                common = promote_types(actual.dtype, expected.dtype)
                actual, expected = actual.to(common), expected.to(common)
            matches = actual.isclose(expected, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
            if bool(matches.all().item()):
                return
            if actual.dim() == 0:
                msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=self.rtol, atol=self.atol)
            else:
                msg = _tensor_mismatch_msg(actual, expected, matches, rtol=self.rtol, atol=self.atol)
        self.fail(AssertionError, msg)

    def _compare_attributes(self, actual: Tensor, expected: Tensor) -> None:
        checks: list[tuple[str, bool, Any, Any]] = [
            ("shape", True, actual.shape, expected.shape),
            ("device", self.check_device, actual.device, expected.device),
            ("dtype", self.check_dtype, actual.dtype, expected.dtype),
            ("layout", self.check_layout, actual.layout, expected.layout),
            ("stride()", self.check_stride and actual.layout == strided, actual.stride(), expected.stride()),
        ]
        for name, enabled, actual_value, expected_value in checks:
            if enabled and actual_value != expected_value:
                self.fail(
                    AssertionError,
                    f"The values for attribute '{name}' do not match: {actual_value} != {expected_value}.",
                )


_PAIR_TYPES: Final = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)
_NUMBER_OPTIONS: Final = ("rtol", "atol", "equal_nan", "check_dtype")


def _originate_pairs(actual: Any, expected: Any, options: dict[str, Any], id: Id = ()) -> list[_Pair]:
    """The leaf pairs of two (nested) inputs: sequences item by item, mappings key by key."""
    if all(isinstance(x, Sequence) and not isinstance(x, str) for x in (actual, expected)):
        if len(actual) != len(expected):
            raise _ErrorMeta(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                id=id,
            )
        return [
            pair
            for idx in range(len(actual))
            for pair in _originate_pairs(actual[idx], expected[idx], options, (*id, idx))
        ]
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        actual_keys, expected_keys = set(actual), set(expected)
        if actual_keys != expected_keys:
            raise _ErrorMeta(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                id=id,
            )
        keys: list[Any] = list(actual_keys)
        with contextlib.suppress(TypeError):
            keys = sorted(keys)
        return [
            pair for key in keys for pair in _originate_pairs(actual[key], expected[key], options, (*id, key))
        ]
    number_options = {name: options[name] for name in _NUMBER_OPTIONS}
    for pair_type in _PAIR_TYPES:
        try:
            if pair_type is _TensorLikePair:
                return [_TensorLikePair(actual, expected, id, **options)]
            return [pair_type(actual, expected, id, **number_options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.",
        id=id,
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Assert that `actual` and `expected` are close: `|actual - expected| <= atol + rtol * |expected|`
    elementwise (NaNs equal only with `equal_nan`), after checking shape, device, dtype, layout and
    (with `check_stride`) strides. Without `rtol`/`atol` the defaults follow the dtype (float16
    1e-3/1e-5, float32 and complex64 1.3e-6/1e-5, float64 and complex128 1e-7/1e-7, others exact).
    Tensors, NumPy arrays, Python numbers, booleans and None compare, as do sequences and mappings
    of them item by item. On failure, raises the AssertionError PyTorch raises (or `msg`: a string
    replaces the message, a callable maps it)."""
    options: dict[str, Any] = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_layout": check_layout,
        "check_stride": check_stride,
    }
    try:
        pairs = _originate_pairs(actual, expected, options)
        for pair in pairs:
            pair.compare()
    except _ErrorMeta as error:
        raise error.to_error(msg) from None
