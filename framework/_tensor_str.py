"""Tensor printing: the text of ``repr(tensor)``, identical to PyTorch's, and the print options.

``format_tensor`` renders a tensor from its elements and metadata, so it needs no ``Tensor``:
element formatting (fixed, integer-valued or scientific floats, integers, booleans, complex
numbers), column alignment, line wrapping at ``linewidth``, summarisation with ``...`` above
``threshold`` elements, and the ``device=``/``size=``/``dtype=``/``grad_fn=`` suffixes.

Only the elements that are shown are ever formatted: a summarised tensor is first cut down to
its edge items along every dimension with NumPy indexing, and the common width of a column is
found from the few extreme values (the length of a formatted number only grows with its
magnitude, or with its exponent's magnitude in scientific notation), not by formatting all of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework.c10.dtypes import default_complex_dtype

__all__ = ["format_tensor", "get_printoptions", "printoptions", "set_printoptions"]


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS: Final = _PrintOptions()

_PROFILES: Final[dict[str, _PrintOptions]] = {
    "default": _PrintOptions(),
    "short": _PrintOptions(precision=2, edgeitems=2),
    "full": _PrintOptions(threshold=math.inf),
}

_DTYPE_PREFIX: Final = "dtype=framework."
_TORCH_DTYPE_PREFIX: Final = "dtype=torch."

_ALWAYS_IMPLIED_DTYPES: Final = frozenset({"int64", "bool"})
"""Dtypes that a non-empty tensor's repr never names (with the default float and complex dtypes)."""


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options for printing tensors, as ``torch.set_printoptions``.

    ``profile`` ("default", "short" or "full"; other names are ignored) first resets precision,
    threshold, edgeitems and linewidth; the other arguments then override it. ``sci_mode`` is
    always assigned: ``None`` (the default) restores the automatic choice of scientific notation.
    """
    if profile in _PROFILES:
        base = _PROFILES[profile]
        _OPTIONS.precision = base.precision
        _OPTIONS.threshold = base.threshold
        _OPTIONS.edgeitems = base.edgeitems
        _OPTIONS.linewidth = base.linewidth
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, object]:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(_OPTIONS)


@contextlib.contextmanager
def printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> Iterator[None]:
    """Apply ``set_printoptions`` with these arguments inside a ``with`` block, then restore."""
    saved = dataclasses.replace(_OPTIONS)
    set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)
    try:
        yield
    finally:
        set_printoptions(
            saved.precision, saved.threshold, saved.edgeitems, saved.linewidth, None, saved.sci_mode
        )


@dataclasses.dataclass(frozen=True)
class _Formatter:
    """How the elements of one real-valued array are written, and their common width."""

    width: int
    floating: bool = False
    int_mode: bool = True
    sci_mode: bool = False
    precision: int = 4

    def strings(self, values: npt.NDArray[Any]) -> list[str]:
        """Each element of ``values`` formatted and right-aligned to ``width``, in C order.

        One ``%`` operation formats them all (``%`` and ``format`` write numbers alike).
        """
        width = self.width
        if not self.floating:
            template = f"%{width}s"
        elif self.sci_mode or not self.int_mode:
            template = f"%{width}.{self.precision}{'e' if self.sci_mode else 'f'}"
        else:
            # Integer-valued floats end in "."; nan and inf are corrected below.
            template = f"%{width - 1 if width > 1 else ''}.0f."
        items = values.ravel().tolist()
        strings = ((template + "\n") * len(items) % tuple(items)).split("\n")
        strings.pop()
        if self.floating and self.int_mode and not self.sci_mode:
            for index in np.flatnonzero(~np.isfinite(values.ravel())).tolist():
                strings[index] = f"{items[index]:.0f}".rjust(width)
        return strings


def _formatter(values: npt.NDArray[Any]) -> _Formatter:
    """The formatter PyTorch chooses for these (real) values, shown or not."""
    if values.dtype.kind != "f":
        if values.size == 0:
            return _Formatter(width=1)
        lowest, highest = values.min().item(), values.max().item()
        return _Formatter(width=max(1, len(str(lowest)), len(str(highest))))
    flat = values.astype(np.float64).ravel()
    nonzero = flat[np.isfinite(flat) & (flat != 0)]
    if nonzero.size == 0:
        return _Formatter(width=1, floating=True)
    magnitudes = np.abs(nonzero)
    smallest, largest = float(magnitudes.min()), float(magnitudes.max())
    int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
    sci_mode = _OPTIONS.sci_mode
    if sci_mode is None:
        sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    precision = _OPTIONS.precision
    # Within one sign, the formatted length grows with the magnitude (fixed notation) or with the
    # exponent's magnitude (scientific), so the widest strings come from the extremes of each sign.
    extremes: list[float] = []
    for part in (nonzero[nonzero > 0], nonzero[nonzero < 0]):
        if part.size:
            extremes += [float(part.min()), float(part.max())]
    if sci_mode:
        width = max(len(f"{value:.{precision}e}") for value in extremes)
    elif int_mode:
        width = max(len(f"{value:.0f}") + 1 for value in extremes)
    else:
        width = max(len(f"{value:.{precision}f}") for value in extremes)
    return _Formatter(width, floating=True, int_mode=int_mode, sci_mode=sci_mode, precision=precision)


def _edges(array: npt.NDArray[Any], cut: Sequence[bool], edgeitems: int) -> npt.NDArray[Any]:
    """The first and last ``edgeitems`` entries of every dimension flagged in ``cut``."""
    for axis, is_cut in enumerate(cut):
        if is_cut:
            size = array.shape[axis]
            index = np.r_[0:edgeitems, size - edgeitems : size]
            array = np.take(array, index, axis=axis)
    return array


def _element_strings(shown: npt.NDArray[Any]) -> tuple[list[str], int]:
    """The formatted elements of ``shown`` in C order, and the length each takes in a row."""
    if shown.dtype.kind != "c":
        formatter = _formatter(shown)
        return formatter.strings(shown), formatter.width + 2
    real_formatter, imag_formatter = _formatter(shown.real), _formatter(shown.imag)
    reals = real_formatter.strings(shown.real)
    imags = imag_formatter.strings(shown.imag)
    strings = []
    for real, imag in zip(reals, imags, strict=True):
        imag = imag.lstrip()
        strings.append(f"{real}{imag}j" if imag[0] in "+-" else f"{real}+{imag}j")
    return strings, real_formatter.width + imag_formatter.width + 3


def _nest(
    elements: list[str],
    shape: tuple[int, ...],
    cut: Sequence[bool],
    edgeitems: int,
    indent: int,
    element_length: int,
    linewidth: int,
) -> str:
    """Bracketed rows of ``elements`` (laid out with ``shape``), with ``...`` where ``cut``."""
    ndim = len(shape)
    if ndim == 0:
        return elements[0]
    per_line = max(1, (linewidth - indent - (ndim - 1)) // element_length)
    strides = [math.prod(shape[axis + 1 :]) for axis in range(ndim)]

    def build(axis: int, start: int, depth_indent: int) -> str:
        size = shape[axis]
        if axis == ndim - 1:
            row = elements[start : start + size]
            if cut[axis]:
                row = [*row[:edgeitems], " ...", *row[edgeitems:]]
            lines = [", ".join(row[i : i + per_line]) for i in range(0, len(row), per_line)]
            return "[" + (",\n" + " " * (depth_indent + 1)).join(lines) + "]"
        parts = [build(axis + 1, start + i * strides[axis], depth_indent + 1) for i in range(size)]
        if cut[axis]:
            parts.insert(edgeitems, "...")
        separator = "," + "\n" * (ndim - axis - 1) + " " * (depth_indent + 1)
        return "[" + separator.join(parts) + "]"

    return build(0, 0, indent)


def _body(array: npt.NDArray[Any], indent: int) -> str:
    """The bracketed elements of a non-empty array whose first line starts at column ``indent``."""
    options = _OPTIONS
    summarize = array.size > options.threshold
    edgeitems = options.edgeitems
    if summarize and not edgeitems and array.ndim:
        return "[...]"
    cut = [summarize and size > 2 * edgeitems for size in array.shape]
    shown = _edges(array, cut, edgeitems)
    elements, element_length = _element_strings(shown)
    return _nest(elements, shown.shape, cut, edgeitems, indent, element_length, options.linewidth)


def _with_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """``text`` followed by ``, suffix`` for each suffix (wrapped to the line width) and ``)``.

    Lines break where PyTorch's would: the last line is measured two characters longer than it
    is, as PyTorch does, and a dtype suffix as long as PyTorch's ``dtype=torch.<name>``.
    """
    linewidth = _OPTIONS.linewidth
    pieces = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = len(suffix)
        if suffix.startswith(_DTYPE_PREFIX):
            length -= len(_DTYPE_PREFIX) - len(_TORCH_DTYPE_PREFIX)
        if line_length + length + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + length
        else:
            pieces.append(", " + suffix)
            line_length += length + 2
    pieces.append(")")
    return "".join(pieces)


def format_tensor(
    data: npt.NDArray[Any] | None,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    shape: tuple[int, ...],
    device: str,
    requires_grad: bool = False,
    grad_fn: str | None = None,
    tangent: str | None = None,
) -> str:
    """The ``repr`` PyTorch prints for a tensor with these elements and attributes.

    ``data`` holds the elements in logical (C) order, in any shape with ``prod(shape)`` elements,
    or is ``None`` when they are not available (meta tensors), which prints ``...``.
    ``is_default_dtype`` tells whether ``dtype_name`` is the default float dtype; a complex dtype
    is compared with ``default_complex_dtype()``. ``device`` is printed unless its type is ``cpu``.
    ``grad_fn`` is the backward node's class name; without one, ``requires_grad`` is printed.
    ``tangent`` is what follows ``tangent=`` for a dual tensor of forward AD.
    """
    prefix = "tensor("
    indent = len(prefix)
    shape = tuple(int(size) for size in shape)
    suffixes: list[str] = []
    if device.partition(":")[0] != "cpu":
        suffixes.append(f"device='{device}'")
    dtype_suffix = _DTYPE_PREFIX + dtype_name
    if data is None or math.prod(shape) == 0:
        if data is None or len(shape) != 1:
            suffixes.append(f"size={shape}")
        if not is_default_dtype:
            suffixes.append(dtype_suffix)
        body = "..." if data is None else "[]"
    else:
        if not _OPTIONS.edgeitems:
            suffixes.append(f"size={shape}")
        implied = is_default_dtype or dtype_name in _ALWAYS_IMPLIED_DTYPES
        if not implied and dtype_name != default_complex_dtype().name:
            suffixes.append(dtype_suffix)
        values = np.asarray(data, dtype=np.dtype(dtype_name))
        if values.dtype.isbuiltin == 2:  # bfloat16, a type NumPy lacks: formatted from float32
            values = values.astype(np.float32)
        body = _body(values.reshape(shape), indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _with_suffixes(prefix + body, suffixes, indent)


def return_type_repr(self: tuple[Any, ...]) -> str:
    """The repr of a `framework.return_types` named tuple, laid out as PyTorch's structseq repr:
    `framework.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...))`."""
    cls = type(self)
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(cls._fields, self, strict=True))  # type: ignore[attr-defined]
    return f"{cls.__module__}.{cls.__qualname__}(\n{fields})"
