"""torch.fft: the three primitive transforms and the public functions composed of them.

`_fft_r2c` (real to complex, the last transformed dimension halved when `onesided`), `_fft_c2r`
(onesided Hermitian complex to real, `last_dim_size` output points in the last dimension) and
`_fft_c2c` are CPU/Meta kernels on `np.fft`, which keeps float32/complex64 precision.  Their
`normalization` is PyTorch's fft_norm_mode: 0 no scaling, 1 by 1/sqrt(n), 2 by 1/n, n being the
number of signal points over the transformed dimensions.

fft, ifft, rfft, irfft, hfft, ihfft and their 2-d and n-d forms are CompositeImplicitAutograd, as
in PyTorch: the input is promoted (integers and bool to the default float dtype; float16 refused
on CPU), cropped or zero-padded to the requested sizes (slice, constant_pad_nd) and handed to a
primitive, so the result's grad_fn is the primitive's node.  ifft of a real tensor, ihfft, hfft
and their n-d forms conjugate as PyTorch does, with a conjugate view (ConjBackward0).  fftfreq
and rfftfreq are CompositeExplicitAutograd factories; fftshift and ifftshift roll.

stft and istft are PyTorch's compositions too (as_strided frames, the window, _fft_r2c/_fft_c2c;
the inverse transform, unfold_backward overlap-add and the window envelope)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import numpy as np

from framework._tensor import Tensor
from framework.c10.dtypes import float32, float64, get_default_dtype
from framework.ops.kernels._registry import (
    array,
    aten_op,
    dispatched_empty,
    is_meta,
    kernel,
    new_tensor,
    not_implemented,
    register_variants,
    resize,
    resize_output,
    wrap_dim,
)

_NORM_MODES: Final = 3
"""fft_norm_mode values: 0 none, 1 by_root_n, 2 by_n."""

_Sizes: TypeAlias = Sequence[int] | None
"""The optional `s` and `dim` lists of the n-d transforms."""


# ---- the primitives ------------------------------------------------------------------------------


def _checked_dims(
    op: str, self: Tensor, dim: Sequence[int], normalization: int, *, complex_input: bool, allow_empty: bool
) -> list[int]:
    """What every primitive checks first (the input's dtype, `normalization`, the dims: unique,
    and at least one unless `allow_empty`), and its dims wrapped."""
    dtype = self._impl.dtype
    if complex_input and not dtype.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {dtype.scalar_type_name}")
    if not complex_input and (dtype.is_complex or not dtype.is_floating_point):
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {dtype.scalar_type_name}")
    if not complex_input and dtype not in (float32, float64):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {dtype.scalar_type_name}")
    if not 0 <= normalization < _NORM_MODES:
        raise RuntimeError(
            f"{op}: expected normalization to be 0 (none), 1 (by_root_n) or 2 (by_n), but got {normalization}"
        )
    ndim = len(self._impl.sizes)
    dims = [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]
    if not dims and not allow_empty:
        raise RuntimeError(f"{op}: expected at least one dimension to transform, but got dim=[]")
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return dims


def _scale(values: Any, sizes: Sequence[int], dims: Sequence[int], normalization: int) -> Any:
    """`values` times the normalization factor of a transform over `dims` of a signal of `sizes`."""
    if normalization == 0:
        return values
    n = float(np.prod([sizes[d] for d in dims]))
    factor = 1.0 / (np.sqrt(n) if normalization == 1 else n)
    return values * values.real.dtype.type(factor)


@kernel("_fft_r2c")
def _fft_r2c(self: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Tensor:
    dims = _checked_dims("_fft_r2c", self, dim, normalization, complex_input=False, allow_empty=False)
    impl = self._impl
    sizes = list(impl.sizes)
    if onesided:
        sizes[dims[-1]] = sizes[dims[-1]] // 2 + 1
    result = new_tensor(tuple(sizes), impl.dtype.to_complex(), impl.device)
    if not is_meta(impl.device):
        values = array(self)
        spectrum = np.fft.rfftn(values, axes=dims) if onesided else np.fft.fftn(values, axes=dims)
        array(result)[...] = _scale(spectrum, impl.sizes, dims, normalization)
    return result


@kernel("_fft_c2r")
def _fft_c2r(self: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int) -> Tensor:
    dims = _checked_dims("_fft_c2r", self, dim, normalization, complex_input=True, allow_empty=False)
    _check_points(last_dim_size)
    impl = self._impl
    half = impl.sizes[dims[-1]]
    if half not in (last_dim_size // 2 + 1, last_dim_size):
        raise RuntimeError(
            f"_fft_c2r: expected dimension {dims[-1]} of the input to have last_dim_size // 2 + 1 = "
            f"{last_dim_size // 2 + 1} (or last_dim_size = {last_dim_size}) elements, but got {half}"
        )
    sizes = list(impl.sizes)
    sizes[dims[-1]] = last_dim_size
    result = new_tensor(tuple(sizes), impl.dtype.to_real(), impl.device)
    if not is_meta(impl.device):
        signal = [sizes[d] for d in dims]
        values = np.fft.irfftn(array(self), s=signal, axes=dims, norm="forward")
        array(result)[...] = _scale(values, sizes, dims, normalization)
    return result


@kernel("_fft_c2c")
def _fft_c2c(self: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Tensor:
    dims = _checked_dims("_fft_c2c", self, dim, normalization, complex_input=True, allow_empty=True)
    impl = self._impl
    result = new_tensor(impl.sizes, impl.dtype, impl.device)
    if not is_meta(impl.device):
        values = array(self)
        if dims:
            transform = np.fft.fftn if forward else np.fft.ifftn
            values = transform(values, axes=dims, norm="backward" if forward else "forward")
        array(result)[...] = _scale(values, impl.sizes, dims, normalization)
    return result


def _copy_into(out: Tensor, result: Tensor) -> Tensor:
    """`out` resized to `result`'s shape (as PyTorch's resize_output) and holding it (copy_
    converts the dtype)."""
    resize_output(out, result._impl.sizes)
    aten_op("copy_.default")(out, result)
    return out


def _out_variant(functional: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The out= kernel of a primitive: its result copied into `out`."""

    def out_variant(*args: Any, out: Tensor) -> Tensor:
        return _copy_into(out, functional(*args))

    return out_variant


for _name, _functional in (("_fft_r2c", _fft_r2c), ("_fft_c2r", _fft_c2r), ("_fft_c2c", _fft_c2c)):
    register_variants(_name, {"_out": _out_variant(_functional)})


# ---- argument handling of the public transforms (PyTorch's SpectralOps helpers) -----------------


def _norm(norm: str | None, forward: bool) -> int:
    """PyTorch's norm_from_string: "backward" (the default) scales the inverse by 1/n, "forward"
    the forward transform, "ortho" both by 1/sqrt(n)."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(self: Tensor, require_complex: bool) -> Tensor:
    """PyTorch's promote_tensor_fft: integers and bool become the default float dtype, float16
    (and other reduced floats) are refused on CPU, and `require_complex` makes the result complex."""
    d = self._impl.dtype
    if d.is_complex:
        return self
    target = d if d.is_floating_point else get_default_dtype()
    if target not in (float32, float64):
        raise RuntimeError(f"Unsupported dtype {target.scalar_type_name}")
    if require_complex:
        target = target.to_complex()
    if target is d:
        return self
    promoted: Tensor = aten_op("to.dtype")(self, target)
    return promoted


def _check_points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """PyTorch's resize_fft_input: each of `dims` cropped or zero-padded at its end to `sizes`."""
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes, strict=True):
        have = x._impl.sizes[d]
        if have < n:
            pad[len(pad) - 2 * d - 1] = n - have
        elif have > n:
            x = aten_op("slice.Tensor")(x, d, 0, n)
    if any(pad):
        padded: Tensor = aten_op("constant_pad_nd.default")(x, pad)
        return padded
    return x


def _conj(x: Tensor) -> Tensor:
    """The complex conjugate of `x`: a conjugate view, as PyTorch's `Tensor.conj()`."""
    conjugate: Tensor = aten_op("conj.default")(x)
    return conjugate


def _check_out(fname: str, out: Tensor | None, complex_result: bool) -> None:
    """Refuse an out= tensor of the wrong kind, with PyTorch's message naming the transform."""
    if out is None:
        return
    got = out._impl.dtype
    if complex_result and not got.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {got.scalar_type_name}")
    if not complex_result and not got.is_floating_point:
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {got.scalar_type_name}")


def _primitive(fname: str, primitive: str, out: Tensor | None, *args: Any) -> Tensor:
    """`primitive(*args)`, or its out= overload writing `out` (PyTorch's fft_*_maybe_out, which
    checks the out= dtype for the transform `fname`)."""
    if out is None:
        result: Tensor = aten_op(f"{primitive}.default")(*args)
        return result
    _check_out(fname, out, complex_result=primitive != "_fft_c2r")
    written: Tensor = aten_op(f"{primitive}.out")(*args, out=out)
    return written


def _conj_into(fname: str, out: Tensor | None, x: Tensor) -> Tensor:
    """The conjugate of `x`, or `out` holding it (PyTorch's conj_physical_out)."""
    result = _conj(x)
    if out is None:
        return result
    _check_out(fname, out, complex_result=True)
    return _copy_into(out, result)


def _check_real_input(name: str, self: Tensor, out: Tensor | None) -> None:
    if self._impl.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {self._impl.dtype.scalar_type_name}")
    _check_out(name, out, complex_result=True)


# ---- one-dimensional transforms ------------------------------------------------------------------
# The public transforms take (self, n or s, dim, norm) and out=: the dispatcher passes every
# argument (schema defaults filled in), so the kernels below are partial applications of a few
# shared bodies, and the 2-d kernels are the n-d ones (their dim default [-2, -1] comes from the
# schema).


def _r2c(
    name: str,
    forward: bool,
    onesided: bool,
    self: Tensor,
    n: int | None,
    dim: int,
    norm: str | None,
    out: Tensor | None = None,
) -> Tensor:
    _check_real_input(name, self, out)
    x = _promote(self, require_complex=False)
    d = wrap_dim(dim, x.dim(), wrap_scalar=False)
    _check_points(x._impl.sizes[d] if n is None else n)
    if n is not None:
        x = _resize(x, [d], [n])
    if forward:
        return _primitive(name, "_fft_r2c", out, x, [d], _norm(norm, forward), onesided)
    return _conj_into(name, out, aten_op("_fft_r2c.default")(x, [d], _norm(norm, forward), onesided))


def _c2r(
    name: str,
    forward: bool,
    self: Tensor,
    n: int | None,
    dim: int,
    norm: str | None,
    out: Tensor | None = None,
) -> Tensor:
    _check_out(name, out, complex_result=False)
    x = _promote(self, require_complex=True)
    d = wrap_dim(dim, x.dim(), wrap_scalar=False)
    points = 2 * (x._impl.sizes[d] - 1) if n is None else n
    _check_points(points)
    if n is not None:
        x = _resize(x, [d], [n // 2 + 1])
    if forward:
        x = _conj(x)
    return _primitive(name, "_fft_c2r", out, x, [d], _norm(norm, forward), points)


def _fft_or_ifft(
    name: str,
    forward: bool,
    self: Tensor,
    n: int | None,
    dim: int,
    norm: str | None,
    out: Tensor | None = None,
) -> Tensor:
    """fft and ifft: c2c of a complex input, the two-sided r2c of a real one."""
    if not self._impl.dtype.is_complex:
        return _r2c(name, forward, False, self, n, dim, norm, out)
    d = wrap_dim(dim, self.dim(), wrap_scalar=False)
    _check_points(self._impl.sizes[d] if n is None else n)
    x = self if n is None else _resize(self, [d], [n])
    return _primitive(name, "_fft_c2c", out, x, [d], _norm(norm, forward), forward)


# ---- n-dimensional transforms --------------------------------------------------------------------


def _shape_and_dims(self: Tensor, s: _Sizes, dim: _Sizes) -> tuple[list[int], list[int]]:
    """PyTorch's canonicalize_fft_shape_and_dim_args: the signal sizes and the (wrapped, unique)
    dimensions of an n-d transform."""
    ndim = self.dim()
    sizes = self._impl.sizes
    dims: list[int] = []
    if dim is not None:
        dims = [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for d, n in zip(dims, s, strict=True)]
    elif dim is None:
        shape, dims = list(sizes), list(range(ndim))
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        _check_points(n)
    return shape, dims


def _r2c_input(name: str, self: Tensor, s: _Sizes, dim: _Sizes) -> tuple[Tensor, list[int]]:
    """The promoted, resized real input of an n-d real-to-complex transform and its dimensions
    (at least one)."""
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    return _resize(_promote(self, require_complex=False), dims, shape), dims


def _c2r_input(name: str, self: Tensor, s: _Sizes, dim: _Sizes) -> tuple[Tensor, list[int], int]:
    """PyTorch's canonicalize_fft_c2r_shape_and_dim_args: the promoted complex input, cut or padded
    to last_dim_size // 2 + 1 in its last transformed dimension, the dimensions and
    last_dim_size, the output size of that dimension."""
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (self._impl.sizes[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _check_points(last)
    shape[-1] = last // 2 + 1
    return _resize(_promote(self, require_complex=True), dims, shape), dims, last


def _fftn_c2c(
    forward: bool,
    self: Tensor,
    s: _Sizes,
    dim: _Sizes,
    norm: str | None,
    out: Tensor | None = None,
) -> Tensor:
    shape, dims = _shape_and_dims(self, s, dim)
    x = _resize(_promote(self, require_complex=True), dims, shape)
    return _primitive("fftn", "_fft_c2c", out, x, dims, _norm(norm, forward), forward)


def _rfftn(self: Tensor, s: _Sizes, dim: _Sizes, norm: str | None, out: Tensor | None = None) -> Tensor:
    if self._impl.dtype.is_complex:
        raise RuntimeError(
            f"rfftn expects a real-valued input tensor, but got {self._impl.dtype.scalar_type_name}"
        )
    x, dims = _r2c_input("rfftn", self, s, dim)
    return _primitive("rfftn", "_fft_r2c", out, x, dims, _norm(norm, True), True)


def _irfftn(self: Tensor, s: _Sizes, dim: _Sizes, norm: str | None, out: Tensor | None = None) -> Tensor:
    x, dims, last = _c2r_input("irfftn", self, s, dim)
    return _primitive("irfftn", "_fft_c2r", out, x, dims, _norm(norm, False), last)


def _hfftn(self: Tensor, s: _Sizes, dim: _Sizes, norm: str | None, out: Tensor | None = None) -> Tensor:
    x, dims, last = _c2r_input("hfftn", self, s, dim)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = aten_op("_fft_c2c.default")(x, dims[:-1], mode, True)
    return _primitive("hfftn", "_fft_c2r", out, _conj(x), dims[-1:], mode, last)


def _ihfftn(self: Tensor, s: _Sizes, dim: _Sizes, norm: str | None, out: Tensor | None = None) -> Tensor:
    x, dims = _r2c_input("ihfftn", self, s, dim)
    mode = _norm(norm, False)
    half = aten_op("_fft_r2c.default")(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return _conj_into("ihfftn", out, half)
    return _primitive("ihfftn", "_fft_c2c", out, _conj(half), dims[:-1], mode, False)


def _with_out(fn: Callable[..., Tensor]) -> dict[str, Callable[..., Tensor]]:
    """The functional and out= kernels of a public transform (one function takes `out=None`)."""

    def functional(*args: Any) -> Tensor:
        return fn(*args)

    def out_variant(*args: Any, out: Tensor) -> Tensor:
        return fn(*args, out=out)

    return {"": functional, "_out": out_variant}


_TRANSFORMS: Final[dict[str, Callable[..., Tensor]]] = {
    "fft": functools.partial(_fft_or_ifft, "fft", True),
    "ifft": functools.partial(_fft_or_ifft, "ifft", False),
    "rfft": functools.partial(_r2c, "rfft", True, True),
    "ihfft": functools.partial(_r2c, "ihfft", False, True),
    "irfft": functools.partial(_c2r, "irfft", False),
    "hfft": functools.partial(_c2r, "hfft", True),
    "fftn": functools.partial(_fftn_c2c, True),
    "ifftn": functools.partial(_fftn_c2c, False),
    "rfftn": _rfftn,
    "irfftn": _irfftn,
    "hfftn": _hfftn,
    "ihfftn": _ihfftn,
}
for _base in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    _TRANSFORMS[f"{_base}2"] = _TRANSFORMS[f"{_base}n"]
for _name, _transform in _TRANSFORMS.items():
    register_variants(f"fft_{_name}", _with_out(_transform))


# ---- sample frequencies and shifts ---------------------------------------------------------------


def _frequencies(name: str, n: int, d: float, out: Tensor, onesided: bool) -> Tensor:
    """PyTorch's fft_fftfreq_out / fft_rfftfreq_out: the sample frequencies of an n-point
    transform with sample spacing `d` (k / (n * d), in `out`'s dtype; complex dtypes are refused
    on CPU, where PyTorch's arange has no complex kernel)."""
    target = out._impl.dtype
    if not (target.is_floating_point or target.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if target.is_complex and not is_meta(out._impl.device):
        raise not_implemented("arange_cpu", target)
    count = n // 2 + 1 if onesided else n
    resize(out, (count,))
    if not is_meta(out._impl.device):
        k = np.arange(count)
        if not onesided:
            k[(n + 1) // 2 :] -= n
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.float64(1.0) / np.float64(n * d)
        values = array(out)
        scalar = values.real.dtype.type(step)
        values[...] = k.astype(values.dtype) * scalar
    return out


def _frequency_variants(name: str, onesided: bool) -> dict[str, Callable[..., Tensor]]:
    def functional(
        n: int,
        d: float = 1.0,
        *,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool | None = None,
    ) -> Tensor:
        return _frequencies(name, n, d, dispatched_empty([n], dtype, layout, device), onesided)

    def out_variant(n: int, d: float = 1.0, *, out: Tensor) -> Tensor:
        return _frequencies(name, n, d, out, onesided)

    return {"": functional, "_out": out_variant}


register_variants("fft_fftfreq", _frequency_variants("fftfreq", onesided=False))
register_variants("fft_rfftfreq", _frequency_variants("rfftfreq", onesided=True))


def _shift(self: Tensor, dim: Sequence[int] | None, extra: int) -> Tensor:
    """roll by half of each dimension's size: size // 2 (fftshift), (size + 1) // 2 (ifftshift)."""
    ndim = self.dim()
    dims = list(range(ndim)) if dim is None else [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]
    shifts = [(self._impl.sizes[d] + extra) // 2 for d in dims]
    rolled: Tensor = aten_op("roll.default")(self, shifts, dims)
    return rolled


@kernel("fft_fftshift")
def fft_fftshift(self: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    return _shift(self, dim, 0)


@kernel("fft_ifftshift")
def fft_ifftshift(self: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    return _shift(self, dim, 1)


# ---- stft and istft ------------------------------------------------------------------------------

_STFT_NO_WINDOW: Final = (
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral "
    "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
    "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`."
)
_ISTFT_NO_WINDOW: Final = (
    "A window was not provided. A rectangular window will be applied.Please provide the same window used "
    "by stft to make the inversion lossless.To suppress this warning and use a rectangular window, "
    "explicitly set `window=torch.ones(n_fft, device=<device>)`."
)


def _flag(value: bool | int | None) -> str:
    """An optional argument as PyTorch's messages print it (bools as 0/1)."""
    return "None" if value is None else str(int(value))


def _window_repr(window: Tensor | None) -> str:
    return "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"


def center_pad(signal: Tensor, n_fft: int, pad_mode: str) -> Tensor:
    """stft's centering: `signal` padded by n_fft // 2 on both sides of its last dimension with
    torch.nn.functional.pad's `pad_mode`, on a view with at least three dimensions."""
    from framework.nn.functional import pad  # the padding modes live with nn (imported late)

    signal_dim = signal.dim()
    extended = [1] * (3 - signal_dim) + list(signal.shape)
    padded = pad(aten_op("view.default")(signal, extended), [n_fft // 2, n_fft // 2], pad_mode)
    centered: Tensor = aten_op("view.default")(padded, list(padded.shape)[-signal_dim:])
    return centered


def _stft_frames(
    self: Tensor,
    n_fft: int,
    hop_length: int | None,
    win_length: int | None,
    window: Tensor | None,
    center: bool,
    pad_mode: str,
    normalized: bool,
    onesided: bool | None,
    return_complex: bool | None,
    align_to_window: bool | None,
) -> Tensor:
    """PyTorch's stft: the signal padded by n_fft // 2 on both sides when `center`
    (torch.nn.functional.pad with `pad_mode`, on a 3-d view), frames of n_fft points every
    hop_length (as_strided), times the window (zero-padded on both sides to n_fft), transformed
    along the frame."""
    if window is None:
        warnings.warn(_STFT_NO_WINDOW, UserWarning, stacklevel=4)
    is_complex = self._impl.dtype.is_complex or (window is not None and window._impl.dtype.is_complex)
    complex_result = is_complex if return_complex is None else return_complex
    if not complex_result:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will further "
                "require that return_complex=True in a future PyTorch release."
            )
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
            "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
            "still call torch.view_as_real on the complex output to recover the old return format.",
            UserWarning,
            stacklevel=4,
        )
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    where = (
        f"stft({self.type()}{list(self.shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
        f"window={_window_repr(window)}, normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
        f"return_complex={_flag(return_complex)}, align_to_window={_flag(align_to_window)}) : "
    )
    d = self._impl.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"{where}expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        raise RuntimeError(f"{where}expected a 1D or 2D tensor")
    x = self if self.dim() == 2 else aten_op("unsqueeze.default")(self, 0)
    if center:
        x = center_pad(x, n_fft, pad_mode)
    length = x._impl.sizes[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"{where}expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(f"{where}expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{where}expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window._impl.sizes[0] != win):
        raise RuntimeError(
            f"{where}expected a 1D window tensor of size equal to win_length={win}, but got window with size "
            f"{list(window.shape)}"
        )
    left = (n_fft - win) // 2
    if win < n_fft:
        source = window
        like = self if window is None else window
        window = aten_op("zeros.default")([n_fft], dtype=like._impl.dtype, device=like._impl.device)
        middle = aten_op("narrow.default")(window, 0, left, win)
        if source is None:
            aten_op("fill_.Scalar")(middle, 1)
        else:
            aten_op("copy_.default")(middle, source)
        if align_to_window:
            x = aten_op("constant_pad_nd.default")(x, [left, left])
    frames_count = 1 + (x._impl.sizes[1] - n_fft) // hop
    stride0, stride1 = x._impl.strides
    frames = aten_op("as_strided.default")(
        x, [x._impl.sizes[0], frames_count, n_fft], [stride0, hop * stride1, stride1], x._impl.storage_offset
    )
    if window is not None:
        frames = aten_op("mul.Tensor")(frames, window)
    mode = 1 if normalized else 0
    if frames._impl.dtype.is_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        result: Tensor = aten_op("_fft_c2c.default")(frames, [2], mode, True)
    else:
        result = aten_op("_fft_r2c.default")(frames, [2], mode, True if onesided is None else onesided)
    result = aten_op("transpose_.default")(result, 1, 2)
    if self.dim() == 1:
        result = aten_op("squeeze_.dim")(result, 0)
    if complex_result:
        return result
    pairs: Tensor = aten_op("view_as_real.default")(result)
    return pairs


@kernel("stft")
def stft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    return _stft_frames(
        self,
        n_fft,
        hop_length,
        win_length,
        window,
        False,
        "",
        normalized,
        onesided,
        return_complex,
        align_to_window,
    )


@kernel("stft_center")
def stft_center(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    return _stft_frames(
        self,
        n_fft,
        hop_length,
        win_length,
        window,
        center,
        pad_mode,
        normalized,
        onesided,
        return_complex,
        align_to_window,
    )


@kernel("istft")
def istft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """PyTorch's istft: the inverse transform of each frame, windowed, overlap-added
    (unfold_backward) and divided by the overlap-added squared window."""
    if window is None:
        warnings.warn(_ISTFT_NO_WINDOW, UserWarning, stacklevel=3)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not self._impl.dtype.is_complex:
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    where = (
        f"istft(CPU{self._impl.dtype.scalar_type_name}Type{list(self.shape)}, n_fft={n_fft}, "
        f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, center={_flag(center)}, "
        f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, length={_flag(length)}, "
        f"return_complex={_flag(return_complex)})"
    )
    pairs = aten_op("view_as_real.default")(self)
    pairs_dim = pairs.dim()
    if pairs.numel() == 0:
        raise RuntimeError(f"{where} : input tensor cannot be empty.")
    if pairs_dim not in (3, 4):
        raise RuntimeError(f"{where} : expected a tensor with 3 or 4 dimensions, but got {pairs_dim}")
    frames_count, fft_size = pairs._impl.sizes[-2], pairs._impl.sizes[-3]
    one_sided = fft_size != n_fft if onesided is None else onesided
    if one_sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            f"{where} : expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not one_sided and n_fft != fft_size:
        raise RuntimeError(
            f"{where} : expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError(f"{where} : expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{where} : expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window._impl.sizes[0] != win):
        raise RuntimeError(f"{where} : Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = pairs._impl.dtype
    envelope_window = (
        aten_op("ones.default")([win], dtype=real_dtype, device=self._impl.device)
        if window is None
        else window
    )
    if win != n_fft:
        left = (n_fft - win) // 2
        envelope_window = aten_op("constant_pad_nd.default")(envelope_window, [left, n_fft - win - left])
    if pairs_dim == 3:
        pairs = aten_op("unsqueeze.default")(pairs, 0)
    frames = aten_op("view_as_complex.default")(aten_op("transpose.int")(pairs, 1, 2))
    mode = 1 if normalized else 2
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = aten_op("_fft_c2c.default")(frames, [2], mode, False)
    else:
        if window is not None and window._impl.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            frames = aten_op("narrow.default")(frames, -1, 0, n_fft // 2 + 1)
        frames = aten_op("_fft_c2r.default")(frames, [2], mode, n_fft)
    expected_length = n_fft + hop * (frames_count - 1)
    windowed = aten_op("mul.Tensor")(frames, aten_op("view.default")(envelope_window, [1, 1, n_fft]))
    unfold_backward = aten_op("unfold_backward.default")
    y = unfold_backward(windowed, [windowed._impl.sizes[0], expected_length], 1, n_fft, hop)
    squares = aten_op("expand.default")(
        aten_op("pow.Tensor_Scalar")(envelope_window, 2), [1, frames_count, n_fft]
    )
    envelope = unfold_backward(squares, [1, expected_length], 1, n_fft, hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else expected_length)
    y = aten_op("slice.Tensor")(y, 1, start, end)
    envelope = aten_op("slice.Tensor")(envelope, 1, start, end)
    if bool(aten_op("lt.Scalar")(aten_op("min.default")(aten_op("abs.default")(envelope)), 1e-11).item()):
        raise RuntimeError(f"{where} window overlap add min: 1\n[ CPUBoolType{{}} ]")
    y = aten_op("div.Tensor")(y, envelope)
    if pairs_dim == 3:
        y = aten_op("squeeze.dim")(y, 0)
    if end > expected_length:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being padded with zeros "
            "in the tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=3,
        )
        y = aten_op("constant_pad_nd.default")(y, [0, end - expected_length])
    result: Tensor = y
    return result
