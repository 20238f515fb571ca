"""The CPU random number generator and its samplers, stream-compatible with PyTorch's CPU generator.

A :class:`Generator` is an mt19937 engine seeded like PyTorch's ``CPUGeneratorImpl`` (``init_genrand``
with the low 32 bits of the seed), so the same seed yields the same raw 32-bit stream. NumPy's
``MT19937`` produces the draws; this module keeps PyTorch's view of the engine (``left``/``next``)
so that :meth:`Generator.get_state` returns PyTorch's 5056-byte ``CPUGeneratorImplState`` and states
round-trip between the two libraries.

The samplers return flat arrays of ``n`` values in the order PyTorch assigns draws to elements. That
is the logical (row-major) order for contiguous outputs and plain slices, but not in general: PyTorch's
TensorIterator visits a strided output with its dimensions sorted by stride, so a transposed or
channels-last output is filled in storage order. :func:`fill_order` gives the element visited at each
step. The samplers reproduce the x86-64 kernels of PyTorch 2.13 (the AVX2 kernels, which AVX-512
machines use as well):

* ``uniform``: float32 from one 32-bit draw (24 bits), float64 from one 64-bit draw (53 bits); the
  affine map ``x * (to - from) + from`` is a fused multiply-add, float16 is computed in float32 and
  rounded, and a value that rounds onto ``to`` is replaced by ``from``.
* ``normal``: contiguous outputs of 16 or more elements fill uniforms first and apply Box-Muller to
  blocks of 16 (the first 8 uniforms give radii, the last 8 angles; cosines land in the first half,
  sines in the second); if ``n % 16 != 0`` the last 16 elements are recomputed from 16 fresh
  uniforms. float32 and float16 use Cephes-style polynomial ``log``/``sincos`` in float32 (contracted
  into FMAs exactly as the compiled AVX2 kernel is), float64 uses the C library's ``log``/``cos``/
  ``sin``. Shorter or non-contiguous outputs draw pairs of doubles per two elements and keep the
  second value of a pair in the generator (part of its state) for the next call.
* ``random_integers``: ``from + draw % range`` with a 64-bit draw when ``range >= 2**28``.
* ``randperm``: PyTorch's Fisher-Yates variants, evaluated without a per-element Python loop.
* ``bernoulli``: ``uniform < p`` with a double uniform for a scalar or float64 ``p``, a float one
  otherwise.
* ``exponential``, ``geometric``, ``cauchy``: one double uniform per element, transformed in
  double precision (``(-1 / lambda) log1p(-u)``, ``ceil(log(u) / log1p(-p))``,
  ``median + sigma tan(pi (u - 1/2))``); ``log_normal``: ``exp`` of the per-element normal path.
* ``multinomial``: with replacement, one double uniform per sample searched in the row's normalized
  cumulative sums; without replacement (or one sample), the largest ``p / q`` for exponential ``q``.
* ``poisson`` is the exception: PyTorch's sampler (a product of uniforms below rate 10, Hoermann's
  transformed rejection above) draws a data-dependent number of uniforms per element one element
  after the other; here the elements draw together, round by round, so only one-element tensors
  reproduce PyTorch's numbers and larger ones agree in distribution.
"""

from __future__ import annotations

import math
import secrets
import threading
import warnings
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework.c10.device import Device
from framework.c10.dtypes import REDUCED_FLOAT_NUMPY, numpy_finfo

__all__ = [
    "DEFAULT_RNG_SEED",
    "STATE_SIZE",
    "Generator",
    "bernoulli",
    "cauchy",
    "default_generator",
    "exponential",
    "fill_order",
    "geometric",
    "get_rng_state",
    "initial_seed",
    "log_normal",
    "manual_seed",
    "multinomial",
    "normal",
    "normal_pair",
    "poisson",
    "random_default",
    "random_integers",
    "randperm",
    "seed",
    "set_rng_state",
    "uniform",
]

DEFAULT_RNG_SEED: Final = 67280421310721
"""The seed of a freshly constructed ``Generator()`` (PyTorch's ``default_rng_seed_val``)."""

_MT_N: Final = 624
_U64: Final = 2**64
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1

_STATE_LAYOUT: Final = np.dtype(
    {
        "names": [
            "the_initial_seed",
            "left",
            "seeded",
            "next",
            "state",
            "normal_x",
            "normal_y",
            "normal_rho",
            "normal_is_valid",
            "next_float_normal_sample",
            "is_next_float_normal_sample_valid",
        ],
        "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", (_MT_N,)), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
        "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
        "itemsize": 5056,
    }
)
STATE_SIZE: Final = _STATE_LAYOUT.itemsize
"""Bytes in a generator state: ``sizeof(CPUGeneratorImplState)`` on 64-bit PyTorch builds."""

_EMPTY_U64: Final[npt.NDArray[np.uint64]] = np.zeros(0, dtype=np.uint64)


def _temper(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """mt19937's output transform applied to raw state words (held in uint64)."""
    y = words.copy()
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & np.uint64(0xFFFFFFFF)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    value = int(seed)
    if not _INT64_MIN <= value < _U64:
        raise ValueError("Overflow when unpacking long long")
    return value % _U64


class Generator:
    """A CPU mt19937 generator with PyTorch's seeding, stream and state layout.

    All draws happen under the generator's lock, so one generator can be shared between threads
    (the interleaving of concurrent calls is then up to the scheduler, as in PyTorch).
    """

    def __init__(self, device: str | Device = "cpu") -> None:
        dev = Device(device)
        if dev.type != "cpu":
            raise RuntimeError(f"Generator: only 'cpu' generators are supported, got device '{dev}'")
        self._device = dev
        self._lock = threading.RLock()
        self._bitgen = np.random.MT19937(0)
        self._initial_seed = 0
        # PyTorch's `next` to report while NumPy's position is 624 (the next draw regenerates).
        self._stale_next = 0
        # Tempered outputs still to come from a hand-made state whose `left` ends before word 624.
        self._pending = _EMPTY_U64
        self._pending_next = 0
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None
        self._reseed(DEFAULT_RNG_SEED)

    def __repr__(self) -> str:
        return f"<framework.Generator device={self._device} initial_seed={self._initial_seed}>"

    @property
    def device(self) -> Device:
        """The generator's device (always CPU)."""
        return self._device

    def _reseed(self, seed: int) -> None:
        self._bitgen._legacy_seeding(seed & 0xFFFFFFFF)
        self._initial_seed = seed
        self._stale_next = 0
        self._pending = _EMPTY_U64
        self._pending_next = 0
        self._next_double_normal = None
        self._next_float_normal = None

    def manual_seed(self, seed: int | np.integer[Any]) -> Generator:
        """Seed the generator like ``torch.Generator.manual_seed``; negative seeds wrap modulo 2**64."""
        value = _check_seed(seed)
        with self._lock:
            self._reseed(value)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy source and return the seed."""
        value = secrets.randbits(64)
        with self._lock:
            self._reseed(value)
        return value

    def initial_seed(self) -> int:
        """The seed last set (as an unsigned 64-bit integer)."""
        return self._initial_seed

    def get_state(self) -> npt.NDArray[np.uint8]:
        """The state as PyTorch's ``CPUGeneratorImplState`` bytes (5056 uint8 values)."""
        with self._lock:
            raw = self._bitgen.state["state"]
            key = np.asarray(raw["key"], dtype=np.uint64)
            pos = int(raw["pos"])
            if self._pending.size:
                nxt, left = self._pending_next, int(self._pending.size) + 1
            elif pos >= _MT_N:
                nxt, left = self._stale_next, 1
            else:
                nxt, left = pos, _MT_N + 1 - pos
            record = np.zeros((), dtype=_STATE_LAYOUT)
            record["the_initial_seed"] = self._initial_seed
            record["left"] = left
            record["seeded"] = 1
            record["next"] = nxt
            record["state"] = key
            if self._next_double_normal is not None:
                record["normal_y"] = self._next_double_normal
                record["normal_is_valid"] = 1
            if self._next_float_normal is not None:
                record["next_float_normal_sample"] = self._next_float_normal
                record["is_next_float_normal_sample_valid"] = 1
        return np.frombuffer(record.tobytes(), dtype=np.uint8).copy()

    def set_state(self, state: npt.NDArray[np.uint8]) -> Generator:
        """Restore a state from :meth:`get_state` or from ``torch.Generator.get_state().numpy()``."""
        if not isinstance(state, np.ndarray) or state.dtype != np.uint8:
            got = (
                f"numpy array of dtype {state.dtype}"
                if isinstance(state, np.ndarray)
                else type(state).__name__
            )
            raise TypeError(f"RNG state must be a uint8 numpy array (a torch.ByteTensor), but got {got}")
        if state.size != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} "
                f"but found the input RNG state size to be {state.size}"
            )
        record = np.frombuffer(np.ascontiguousarray(state).tobytes(), dtype=_STATE_LAYOUT)[0]
        left = int(record["left"])
        nxt = int(record["next"]) & 0xFFFFFFFF
        if int(record["seeded"]) == 0 or not 0 < left <= _MT_N or nxt > _MT_N:
            raise RuntimeError(
                f"Invalid mt19937 state: expected seeded != 0, 0 < left <= {_MT_N} and next <= {_MT_N}, "
                f"got seeded={int(record['seeded'])}, left={left}, next={nxt}"
            )
        if left != 1 and left + nxt != _MT_N + 1 and nxt + left - 1 > _MT_N:
            raise RuntimeError(
                f"Invalid mt19937 state: left={left} and next={nxt} would read past the {_MT_N}-word state"
            )
        key = (record["state"] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        odd = left != 1 and left + nxt != _MT_N + 1
        pos = nxt if left + nxt == _MT_N + 1 else _MT_N
        with self._lock:
            self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
            self._initial_seed = int(record["the_initial_seed"])
            self._stale_next = nxt if left == 1 else _MT_N
            self._pending = _temper(key[nxt : nxt + left - 1].astype(np.uint64)) if odd else _EMPTY_U64
            self._pending_next = nxt
            self._next_double_normal = float(record["normal_y"]) if int(record["normal_is_valid"]) else None
            self._next_float_normal = (
                float(record["next_float_normal_sample"])
                if int(record["is_next_float_normal_sample_valid"])
                else None
            )
        return self

    # Raw draws: call with the lock held.

    def _u32(self, n: int) -> npt.NDArray[np.uint64]:
        """``n`` consecutive 32-bit outputs of the engine (as uint64 values)."""
        if n <= 0:
            return _EMPTY_U64
        head = _EMPTY_U64
        if self._pending.size:
            take = min(n, int(self._pending.size))
            head, self._pending = self._pending[:take], self._pending[take:]
            self._pending_next += take
            self._stale_next = self._pending_next
            if take == n:
                return head.copy()
            n -= take
        tail = self._bitgen.random_raw(n)
        self._stale_next = _MT_N
        return np.concatenate([head, tail]) if head.size else tail

    def _u64(self, n: int) -> npt.NDArray[np.uint64]:
        """``n`` 64-bit values, each ``(first << 32) | second`` of two consecutive draws."""
        raw = self._u32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]


_default_generator: Generator | None = None
_default_lock = threading.Lock()


def default_generator() -> Generator:
    """The process-wide CPU generator, seeded non-deterministically when first used."""
    global _default_generator
    if _default_generator is None:
        with _default_lock:
            if _default_generator is None:
                gen = Generator()
                gen.seed()
                _default_generator = gen
    return _default_generator


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (``torch.manual_seed``: the seed goes through ``int()`` first)."""
    return default_generator().manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator non-deterministically and return the seed."""
    return default_generator().seed()


def initial_seed() -> int:
    """The default generator's initial seed."""
    return default_generator().initial_seed()


def get_rng_state() -> npt.NDArray[np.uint8]:
    """The default generator's state bytes."""
    return default_generator().get_state()


def set_rng_state(state: npt.NDArray[np.uint8]) -> None:
    """Restore the default generator's state."""
    default_generator().set_state(state)


def fill_order(sizes: tuple[int, ...], strides: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """Row-major indices of a strided output's elements in the order PyTorch's samplers fill them.

    TensorIterator moves the dimension with the smallest stride innermost (dimensions of size 1 do
    not matter), so ``out.reshape(-1)[fill_order(out.shape, out.strides)] = samples`` places the
    ``k``-th sample where PyTorch puts it. Contiguous outputs give ``arange(numel)``.
    """
    if len(sizes) != len(strides):
        raise ValueError(f"fill_order: got {len(sizes)} sizes but {len(strides)} strides")
    outer_first = sorted(range(len(sizes)), key=lambda d: (sizes[d] != 1, abs(strides[d])), reverse=True)
    logical = np.arange(math.prod(sizes), dtype=np.int64).reshape(sizes)
    return np.ascontiguousarray(logical.transpose(outer_first)).reshape(-1)


# --------------------------------------------------------------------------------------------------
# dtype helpers

_SCALAR_TYPE_NAMES: Final = {
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
    "bool": "Bool",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
_C_TYPE_NAMES: Final = {
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_FLOATS: Final = frozenset({"float16", "bfloat16", "float32", "float64"})
_INTEGRALS: Final = frozenset({"uint8", "int8", "int16", "int32", "int64", "bool"})


def _dtype(np_dtype: npt.DTypeLike, kernel: str, allowed: frozenset[str]) -> np.dtype[Any]:
    dt = np.dtype(np_dtype)
    if dt.name not in allowed:
        name = _SCALAR_TYPE_NAMES.get(dt.name, str(dt))
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
    return dt


def _check_count(fn: str, n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ValueError(f"{fn}: expected a non-negative element count n, got {n!r}")


def _fmt(x: float) -> str:
    """A double as C++ streams print it (six significant digits)."""
    return f"{x:g}"


# --------------------------------------------------------------------------------------------------
# Exact fused multiply-add on NumPy arrays (PyTorch's AVX2 kernels are compiled with FMA contraction).

_F32_MIDPOINT_MASK: Final = np.int64((1 << 29) - 1)
_F32_MIDPOINT: Final = np.int64(1 << 28)
_F64_EXPONENT_MASK: Final = np.int64(0x7FF << 52)
_F32_TINY_EXPONENT: Final = np.int64((1023 - 126) << 52)


def _add_round_to_odd(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``a + b`` in double precision rounded to odd (Boldo and Melquiond)."""
    s = a + b
    bv = s - a
    err = (a - (s - bv)) + (b - bv)
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0)
    step = np.where((err > 0) == (s > 0), 1, -1).astype(np.int64)
    return np.where(fix, (bits + step).view(np.float64), s)


def fma32(a: npt.NDArray[np.float32], b: Any, c: Any) -> npt.NDArray[np.float32]:
    """Element-wise ``fmaf(a, b, c)`` for float32 operands (arrays or scalars).

    Products of float32 values are exact in double precision; the double sum is rounded to odd
    wherever rounding it to float32 could otherwise be a double rounding.
    """
    total: npt.NDArray[np.float64] = np.multiply(a, b, dtype=np.float64)
    total += c
    bits = total.view(np.int64)
    risky = (bits & _F32_MIDPOINT_MASK) == _F32_MIDPOINT
    risky |= (bits & _F64_EXPONENT_MASK) < _F32_TINY_EXPONENT
    if risky.any():
        where = np.nonzero(risky)
        a64 = np.broadcast_to(a, total.shape)[where].astype(np.float64)
        b64 = np.broadcast_to(np.asarray(b, dtype=np.float32), total.shape)[where].astype(np.float64)
        c64 = np.broadcast_to(np.asarray(c, dtype=np.float32), total.shape)[where].astype(np.float64)
        total[where] = _add_round_to_odd(a64 * b64, c64)
    return total.astype(np.float32)


def _split(a: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def fma64(
    a: npt.NDArray[np.float64], b: float, c: float | npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """``fma(a, b, c)`` for a double array, a double scalar and a double scalar or array, correctly
    rounded (Dekker's exact product, then the three-term sum with its low part rounded to odd)."""
    if np.ndim(c) == 0 and c == 0.0:
        return a * b + c
    if b == 1.0:
        return a + c
    if abs(b) > 2.0**900:
        # Veltkamp's split would overflow; scaling by a power of two is exact.
        return fma64(a, b * 2.0**-128, c * 2.0**-128) * 2.0**128
    bb = np.full_like(a, b)
    product = a * bb
    ah, al = _split(a)
    bh, bl = _split(bb)
    product_err = ((ah * bh - product) + ah * bl + al * bh) + al * bl
    cc = np.full_like(a, c)
    high = cc + product
    bv = high - cc
    low = (cc - (high - bv)) + (product - bv)
    return high + _add_round_to_odd(low, product_err)


# --------------------------------------------------------------------------------------------------
# uniform


def _uniform_bounds_check(dt: np.dtype[Any], low: float, high: float) -> None:
    info = numpy_finfo(dt)
    lowest, largest = float(info.min), float(info.max)
    c_name = _C_TYPE_NAMES[dt.name]
    if not lowest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {c_name}")
    if not lowest <= high <= largest:
        raise RuntimeError(f"to is out of bounds for {c_name}")
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > to={_fmt(high)}"
        )
    if not high - low <= largest:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_SCALAR_TYPE_NAMES[dt.name]}>::max(), "
            f"but found to={_fmt(high)} and from={_fmt(low)} which result in to-from to exceed the limit"
        )


def _unit_float32(gen: Generator, n: int) -> npt.NDArray[np.float32]:
    return (gen._u32(n) & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)


def _unit_float64(gen: Generator, n: int) -> npt.NDArray[np.float64]:
    return (gen._u64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53


def uniform(
    gen: Generator, n: int, np_dtype: npt.DTypeLike, low: float = 0.0, high: float = 1.0
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.uniform_(low, high)`` (and ``torch.rand``) as a flat array.

    float32, float16 and bfloat16 consume one 32-bit draw per element, float64 two.
    """
    _check_count("uniform", n)
    dt = _dtype(np_dtype, "check_uniform_bounds", _FLOATS)
    low, high = float(low), float(high)
    _uniform_bounds_check(dt, low, high)
    if n == 0:
        return np.zeros(0, dtype=dt)
    if dt == np.float64:
        with gen._lock:
            x64 = _unit_float64(gen, n)
        if low == 0.0 and high == 1.0:
            return x64
        out64 = fma64(x64, high - low, low)
        out64[out64 == high] = low
        return out64
    with gen._lock:
        x32 = _unit_float32(gen, n)
    if low == 0.0 and high == 1.0 and dt == np.float32:
        return x32
    low32, high32 = np.float32(low), np.float32(high)
    out = fma32(x32, high32 - low32, low32).astype(dt)
    out[out == dt.type(high32)] = dt.type(low32)
    return out


# --------------------------------------------------------------------------------------------------
# normal

_F32 = np.float32
_LOG_POLY: Final = tuple(
    _F32(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1: Final = _F32(-2.12194440e-4)
_LOG_Q2: Final = _F32(0.693359375)
_SQRT_HALF: Final = _F32(0.707106781186547524)
_FOUR_OVER_PI: Final = _F32(1.27323954473516)
_PI4_PARTS: Final = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_COS_POLY: Final = (_F32(2.443315711809948e-5), _F32(-1.388731625493765e-3), _F32(4.166664568298827e-2))
_SIN_POLY: Final = (_F32(-1.9515295891e-4), _F32(8.3321608736e-3), _F32(-1.6666654611e-1))
_TWO_PI_F32: Final = _F32(2.0 * math.pi)


def _log_f32(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``log`` of positive, normal float32 values as AVX2 ``log256_ps`` computes it.

    Cephes ``logf``: split off the exponent, bring the mantissa into [sqrt(1/2), sqrt(2)), evaluate a
    degree-9 polynomial by Horner's rule (each step one FMA) and add the exponent back in two parts.
    """
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 126).astype(_F32)
    mant = ((bits & np.int32(~0x7F800000)) | np.int32(0x3F000000)).view(_F32)
    small = mant < _SQRT_HALF
    exponent -= small.astype(_F32)
    m = (mant - _F32(1)) + np.where(small, mant, _F32(0))
    z = m * m
    y = np.full_like(m, _LOG_POLY[0])
    for coeff in _LOG_POLY[1:]:
        y = fma32(y, m, coeff)
    y = fma32(y * m, z, exponent * _LOG_Q1)
    # z / 2 and exponent * q2 are exact, so the kernel's FMAs for the last two terms round as these do.
    y = y - z * _F32(0.5)
    return (m + y) + exponent * _LOG_Q2


def _sincos_f32(x: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """``(sin x, cos x)`` for float32 values in [0, 2 pi) as AVX2 ``sincos256_ps`` computes them.

    Cephes ``sinf``/``cosf``: reduce by multiples of pi/4 (pi/4 in three parts), then evaluate the
    sine and cosine polynomials and pick/sign them by octant.
    """
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    k = octant.astype(_F32)
    # k <= 8 here, so k times the two short leading parts of pi/4 is exact and needs no FMA.
    r = (x + k * _PI4_PARTS[0]) + k * _PI4_PARTS[1]
    r = fma32(k, _PI4_PARTS[2], r)
    sin_negative = (octant & 4) != 0
    cos_negative = (~(octant - 2) & 4) != 0
    use_sin_poly = (octant & 2) == 0
    z = r * r
    c = fma32(np.full_like(z, _COS_POLY[0]), z, _COS_POLY[1])
    c = fma32(c, z, _COS_POLY[2])
    c = fma32(c * z, z, -(z * _F32(0.5))) + _F32(1)
    s = fma32(np.full_like(z, _SIN_POLY[0]), z, _SIN_POLY[1])
    s = fma32(s, z, _SIN_POLY[2])
    s = fma32(s * z, r, r)
    sine = np.where(use_sin_poly, s, c)
    cosine = np.where(use_sin_poly, c, s)
    return np.where(sin_negative, -sine, sine), np.where(cos_negative, -cosine, cosine)


def _box_muller_f32(u: npt.NDArray[np.float32], mean: np.float32, std: np.float32) -> npt.NDArray[np.float32]:
    """PyTorch's AVX2 ``normal_fill_16`` applied to every 16-value block of ``u`` (length % 16 == 0)."""
    blocks = u.reshape(-1, 2, 8)
    radius = np.sqrt(_F32(-2) * _log_f32(_F32(1) - blocks[:, 0]))
    sine, cosine = _sincos_f32(_TWO_PI_F32 * blocks[:, 1])
    out = np.stack([radius * cosine, radius * sine], axis=1).reshape(-1)
    if std == 1 and mean == 0:
        return out
    return fma32(out, std, mean)


def _box_muller_f64(u: npt.NDArray[np.float64], mean: float, std: float) -> npt.NDArray[np.float64]:
    """PyTorch's double ``normal_fill_16`` applied to every 16-value block of ``u``."""
    blocks = u.reshape(-1, 2, 8)
    radius = np.sqrt(-2.0 * np.log(1.0 - blocks[:, 0]))
    theta = (2.0 * math.pi) * blocks[:, 1]
    out = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)
    return fma64(out, std, mean)


def normal_pair(
    u1: npt.NDArray[np.float64], u2: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The two standard normals PyTorch's ``normal_distribution<double>`` makes of the consecutive
    double uniforms ``u1, u2``: ``r cos t`` (returned at once) and ``r sin t`` (cached in the
    generator), with ``r = sqrt(-2 log1p(-u2))`` and ``t = 2 pi u1``."""
    radius = np.sqrt(-2.0 * np.log1p(-u2))
    theta = 2.0 * math.pi * u1
    return radius * np.cos(theta), radius * np.sin(theta)


def _normal_scalar_path(gen: Generator, n: int) -> npt.NDArray[np.float64]:
    """``n`` standard normals from PyTorch's per-element ``normal_distribution<double>``: a pair of
    doubles gives ``r cos t`` now and caches ``r sin t`` in the generator for the next element."""
    out = np.empty(n, dtype=np.float64)
    start = 0
    if n and gen._next_double_normal is not None:
        out[0] = gen._next_double_normal
        gen._next_double_normal = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = _unit_float64(gen, 2 * pairs).reshape(pairs, 2)
        values = np.stack(normal_pair(u[:, 0], u[:, 1]), axis=1).reshape(-1)
        out[start:] = values[: n - start]
        if (n - start) % 2:
            gen._next_double_normal = float(values[-1])
    return out


def normal(
    gen: Generator,
    n: int,
    np_dtype: npt.DTypeLike,
    mean: float = 0.0,
    std: float = 1.0,
    *,
    contiguous: bool = True,
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.normal_(mean, std)`` (and ``torch.randn``) as a flat array.

    ``contiguous`` says whether the output tensor is contiguous: PyTorch only uses its 16-wide
    Box-Muller fill for contiguous outputs of at least 16 elements, and the per-element path
    otherwise.
    """
    _check_count("normal", n)
    dt = _dtype(np_dtype, "normal_kernel_cpu", _FLOATS)
    mean, std = float(mean), float(std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if n == 0:
        return np.zeros(0, dtype=dt)
    tail = 16 if n % 16 else 0
    if n < 16 or not contiguous:
        with gen._lock:
            values = _normal_scalar_path(gen, n)
        values = fma64(values, std, mean)
        return values.astype(np.float32).astype(dt) if dt in REDUCED_FLOAT_NUMPY else values.astype(dt)
    if dt == np.float64:
        with gen._lock:
            u64 = _unit_float64(gen, n + tail)
        out64 = np.empty(n, dtype=np.float64)
        full = n - n % 16
        out64[:full] = _box_muller_f64(u64[:full], mean, std)
        if tail:
            out64[n - 16 :] = _box_muller_f64(u64[-16:], mean, std)
        return out64
    # float32 fills all n uniforms before redrawing the last block; float16 and bfloat16 go block by block
    # through a float32 buffer, so its last block takes the 16 draws right after the full blocks.
    full = n - n % 16
    with gen._lock:
        u32 = _unit_float32(gen, n + tail if dt == np.float32 else full + tail)
    mean32, std32 = _F32(mean), _F32(std)
    out32 = np.empty(n, dtype=np.float32)
    out32[:full] = _box_muller_f32(u32[:full], mean32, std32)
    if tail:
        out32[n - 16 :] = _box_muller_f32(u32[-16:], mean32, std32)
    return out32.astype(dt)


# --------------------------------------------------------------------------------------------------
# random integers


def _digits(dt: np.dtype[Any]) -> int:
    return int(numpy_finfo(dt).nmant) + 1


def _to_dtype_int64(value: int, dt: np.dtype[Any]) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(value))`` for a floating dtype."""
    return int(np.array(value, dtype=np.int64).astype(dt).astype(np.int64))


def _update_from(low: int, dt: np.dtype[Any]) -> int:
    """Move ``from`` right to the closest value that stays >= ``from`` once cast to ``dt``."""
    from_plus_1 = _to_dtype_int64(low + 1, dt)
    if from_plus_1 < low:
        n = abs(low + 1).bit_length() - 1
        low = from_plus_1 + (1 << (n - _digits(dt) + 1))
    return low


def _update_to(high: int, dt: np.dtype[Any]) -> int:
    """Move ``to`` left to the closest value whose predecessor stays < ``to`` once cast to ``dt``."""
    to_minus_1 = _to_dtype_int64(high - 1, dt)
    if to_minus_1 >= high:
        n = abs(high - 1).bit_length() - 1
        high = to_minus_1 - (1 << (n - _digits(dt) + 1))
    return high


def _check_from_to_in_range(low: int, to_inc: int, dt: np.dtype[Any]) -> None:
    c_name = _C_TYPE_NAMES[dt.name]
    if dt.name in _FLOATS:
        info = numpy_finfo(dt)
        lowest, largest = float(info.min), float(info.max)
        digits = _digits(dt)
        for value, name in ((low, "from"), (to_inc, "to - 1")):
            if not lowest <= value <= largest:
                raise RuntimeError(f"{name} is out of bounds for {c_name}")
        for value, name in ((low, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                warnings.warn(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                    f"{c_name} can support discrete uniform distribution only within this range. "
                    "This warning will become an error in version 1.7 release, "
                    "please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )
        return
    bounds = (0, 1) if dt == np.bool_ else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    for value, name in ((low, "from"), (to_inc, "to - 1")):
        if not bounds[0] <= value <= bounds[1]:
            raise RuntimeError(f"{name} is out of bounds for {c_name}")


def _as_int64(fn: str, name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{fn}: expected an int for {name!r}, got {type(value).__name__}")
    value = int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise RuntimeError(f"{fn}: {name!r} must fit in int64, got {value}")
    return value


def _from_offsets(offsets: npt.NDArray[np.uint64], low: int, dt: np.dtype[Any]) -> npt.NDArray[Any]:
    """``static_cast<scalar_t>(static_cast<int64_t>(offset + from))`` with 64-bit wrap-around."""
    wrapped = (offsets + np.uint64(low % _U64)).view(np.int64)
    if dt in REDUCED_FLOAT_NUMPY:
        return wrapped.astype(np.float32).astype(dt)
    return wrapped.astype(dt)


def random_integers(
    gen: Generator, n: int, np_dtype: npt.DTypeLike, low: int, high: int | None = None
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.random_(low, high)`` / ``torch.randint(low, high)``.

    With ``high=None`` this is ``random_(low, None)``: values in ``[low, max]`` where ``max`` is the
    dtype's largest value (``2**digits`` for floating dtypes), and ``low=-2**63`` draws full 64-bit
    integers. Ranges of at least 2**28 consume two 32-bit draws per element, smaller ranges one.
    """
    _check_count("random_integers", n)
    dt = _dtype(np_dtype, "random_from_to_kernel_cpu", _FLOATS | _INTEGRALS)
    low = _as_int64("random_integers", "low", low)
    is_float = dt.name in _FLOATS
    if high is not None:
        high = _as_int64("random_integers", "high", high)
        if not low < high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if is_float:
            low, high = _update_from(low, dt), _update_to(high, dt)
            if not low < high:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    f"but got from={low} >= to={high}"
                )
        _check_from_to_in_range(low, high - 1, dt)
        span = (high - low) % _U64
    elif low != _INT64_MIN:
        if is_float:
            to_inc = min(1 << _digits(dt), _INT64_MAX)
            low = _update_from(low, dt)
            if not low < to_inc:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                    f"dtype, but got from={low} > to_inc={to_inc}"
                )
        else:
            to_inc = 1 if dt == np.bool_ else int(np.iinfo(dt).max)
        _check_from_to_in_range(low, to_inc, dt)
        span = (to_inc - low + 1) % _U64
    else:
        if dt.name not in ("int64", "float64", "float32", "bfloat16"):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
            )
        with gen._lock:
            draws = gen._u64(n)
        return draws.view(np.int64).astype(dt)
    if n == 0:
        return np.zeros(0, dtype=dt)
    with gen._lock:
        draws = gen._u64(n) if span >= 1 << 28 else gen._u32(n)
    return _from_offsets(draws % np.uint64(span), low, dt)


def random_default(gen: Generator, n: int, np_dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.random_()`` without bounds: ``[0, max]`` for integer dtypes,
    ``[0, 2**digits]`` for floating dtypes, ``{False, True}`` for bool."""
    _check_count("random_default", n)
    dt = _dtype(np_dtype, "random_kernel_cpu", _FLOATS | _INTEGRALS)
    with gen._lock:
        if dt == np.bool_:
            return (gen._u32(n) & np.uint64(1)).astype(np.bool_)
        if dt.name in _FLOATS:
            modulus = (1 << _digits(dt)) + 1
            draws = gen._u64(n) if dt == np.float64 else gen._u32(n)
        else:
            modulus = int(np.iinfo(dt).max) + 1
            draws = gen._u64(n) if dt == np.int64 else gen._u32(n)
    return _from_offsets(draws % np.uint64(modulus), 0, dt)


# --------------------------------------------------------------------------------------------------
# randperm

_RANDPERM_SMALL_LIMIT: Final = 0xFFFFFFFF // 20
"""Below this ``n`` PyTorch shuffles with 32-bit draws, at or above it with the inside-out variant."""


def _resolve_chains(value: npt.NDArray[np.int64], parent: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Fill every ``value[i] < 0`` with the value at the end of its ``parent`` chain (pointer jumping)."""
    value = value.copy()
    parent = parent.copy()
    pending = np.nonzero(value < 0)[0]
    while pending.size:
        up = parent[pending]
        known = value[up] >= 0
        value[pending[known]] = value[up[known]]
        waiting = pending[~known]
        parent[waiting] = parent[up[~known]]
        pending = waiting
    return value


def _group_links(target: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For steps ``i`` touching positions ``target[i]`` (both in ``[0, n)``): the previous step with
    the same target (or -1) and, per position, the last step that targets it (or -1)."""
    n = target.size
    steps = np.arange(n, dtype=np.int64)
    if n < 1 << 31:
        # Sorting packed (target, step) keys is several times faster than an argsort.
        keys = np.sort(target * n + steps)
        sorted_targets = keys // n
        sorted_steps = keys - sorted_targets * n
    else:
        order = np.lexsort((steps, target))
        sorted_targets, sorted_steps = target[order], order
    same = sorted_targets[1:] == sorted_targets[:-1]
    previous = np.full(n, -1, dtype=np.int64)
    previous[sorted_steps[1:][same]] = sorted_steps[:-1][same]
    ends = np.ones(n, dtype=bool)
    ends[:-1] = ~same
    last = np.full(n, -1, dtype=np.int64)
    last[sorted_targets[ends]] = sorted_steps[ends]
    return previous, last


def _shuffle_forward(offsets: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    """The permutation left by ``for i < n - 1: swap(p[i], p[i + offsets[i]])`` on ``p = arange(n)``.

    Position ``i`` is final after step ``i``; it receives what step ``i`` finds at its target, which
    is the value some earlier step with the same target left there. Those hand-offs form chains,
    resolved by pointer jumping.
    """
    steps = np.arange(n, dtype=np.int64)
    target = steps.copy()
    target[:-1] += offsets
    previous, last = _group_links(target)
    # Value held at position i just before step i: left there by the last earlier step targeting i.
    feeder = last.copy()
    feeder[feeder == steps] = previous[feeder == steps]
    held = _resolve_chains(np.where(feeder < 0, steps, -1), feeder)
    found = np.where(previous >= 0, held[np.maximum(previous, 0)], target)
    return np.where(target == steps, held, found)


def _shuffle_inside_out(picks: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The array left by ``for i < n: p[i] = p[picks[i]]; p[picks[i]] = i`` (``picks[i] <= i``).

    A position ends with the last step that picked it, or else with what its own step copied in;
    that copy is the last value written to the picked position before, which chains again.
    """
    n = picks.size
    steps = np.arange(n, dtype=np.int64)
    previous, last = _group_links(picks)
    written = np.where(picks == steps, steps, np.where(previous > picks, previous, -1))
    copied = _resolve_chains(written, np.where(written < 0, picks, -1))
    return np.where(last > steps, last, copied)


def randperm(gen: Generator, n: int, np_dtype: npt.DTypeLike = np.int64) -> npt.NDArray[Any]:
    """``torch.randperm(n)``: a random permutation of ``0 .. n-1``.

    For ``n < 2**32 // 20`` PyTorch swaps ``p[i]`` with ``p[i + draw % (n - i)]`` for ``i < n - 1``
    (one 32-bit draw each); from there on it runs the inside-out shuffle with 64-bit draws
    (``p[i] = p[z]; p[z] = i`` with ``z = draw % (i + 1)``).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"randperm: expected an int for n, got {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got {n}")
    dt = _dtype(np_dtype, "randperm", (_FLOATS | _INTEGRALS) - {"bool"})
    if dt.name in _FLOATS:
        digits = _digits(dt)
        if n > (1 << digits) + 1:
            limit = "2049" if digits == 11 else f"2^{digits}+1"
            raise RuntimeError(f"n cannot be greater than {limit} for {_SCALAR_TYPE_NAMES[dt.name]} type.")
    elif n > 0 and n - 1 > int(np.iinfo(dt).max):
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    if n < _RANDPERM_SMALL_LIMIT:
        with gen._lock:
            draws = gen._u32(n - 1)
        offsets = (draws % (np.uint64(n) - np.arange(n - 1, dtype=np.uint64))).astype(np.int64)
        return _shuffle_forward(offsets, n).astype(dt) if n else np.zeros(0, dtype=dt)
    with gen._lock:
        draws = gen._u64(n)
    picks = (draws % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64)
    return _shuffle_inside_out(picks).astype(dt)


# --------------------------------------------------------------------------------------------------
# bernoulli


def bernoulli(
    gen: Generator, n: int, p: float | npt.NDArray[np.floating[Any]], np_dtype: npt.DTypeLike = np.float32
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.bernoulli_(p)`` (and ``torch.bernoulli``) as 0/1 values.

    A scalar ``p`` compares one double (a 64-bit draw) per element with ``p``. An array ``p`` (flat,
    ``n`` values or one value, in the output's element order) compares a double with float64
    probabilities, and a float32 (one 32-bit draw) with float32/float16 probabilities.

    Older PyTorch releases sampled a scalar ``p`` on Intel CPUs with an MKL VSL stream seeded by one
    32-bit draw; the 2.13 CPU kernel has no such branch, so this path holds on every CPU vendor.
    """
    _check_count("bernoulli", n)
    dt = _dtype(np_dtype, "bernoulli_scalar_cpu_", _FLOATS | _INTEGRALS)
    if not isinstance(p, np.ndarray):
        prob = float(p)
        if not 0.0 <= prob <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(prob)}")
        with gen._lock:
            return (_unit_float64(gen, n) < prob).astype(dt)
    _dtype(p.dtype, "bernoulli_tensor_cpu_p_", _FLOATS)
    probs = p.reshape(-1)
    if probs.size not in (1, n):
        raise RuntimeError(f"bernoulli: expected p with 1 or {n} elements, got {probs.size}")
    probs = np.broadcast_to(probs, (n,))
    bad = np.nonzero(~((probs >= 0) & (probs <= 1)))[0]
    count = int(bad[0]) if bad.size else n
    with gen._lock:
        u = _unit_float64(gen, count) if probs.dtype == np.float64 else _unit_float32(gen, count)
    if bad.size:
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    threshold = probs if probs.dtype == np.float64 else probs.astype(np.float32)
    return (u < threshold).astype(dt)


# --------------------------------------------------------------------------------------------------
# exponential, geometric, log-normal, Cauchy


def _continuous(np_dtype: npt.DTypeLike, distribution: str) -> np.dtype[Any]:
    """The checked dtype of a continuous distribution's output (PyTorch's check for Cauchy names the
    C type, the one for exponential the ScalarType)."""
    dt = np.dtype(np_dtype)
    if dt.name not in _FLOATS:
        names = _C_TYPE_NAMES if distribution == "Cauchy" else _SCALAR_TYPE_NAMES
        raise RuntimeError(
            f"{distribution} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {names.get(dt.name, str(dt))}"
        )
    return dt


def exponential(gen: Generator, n: int, np_dtype: npt.DTypeLike, lambd: float = 1.0) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.exponential_(lambd)``: ``(-1 / lambd) log1p(-u)`` of one
    double uniform ``u`` per element, rounded to the dtype."""
    _check_count("exponential", n)
    dt = _continuous(np_dtype, "Exponential")
    lambd = float(lambd)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    with gen._lock:
        u = _unit_float64(gen, n)
    return (-1.0 / lambd * np.log1p(-u)).astype(dt)


def geometric(gen: Generator, n: int, np_dtype: npt.DTypeLike, p: float) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.geometric_(p)``: ``ceil(log(u) / log1p(-p))`` of one double
    uniform per element (the number of Bernoulli trials up to the first success)."""
    _check_count("geometric", n)
    dt = _dtype(np_dtype, "geometric_cpu", _FLOATS | (_INTEGRALS - {"bool"}))
    p = float(p)
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    with gen._lock:
        u = _unit_float64(gen, n)
    trials: npt.NDArray[np.float64] = np.ceil(np.log(u) / np.log1p(-p))
    return trials.astype(dt)


def log_normal(
    gen: Generator, n: int, np_dtype: npt.DTypeLike, mean: float = 1.0, std: float = 2.0
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.log_normal_(mean, std)``: ``exp(mean + std z)`` with ``z``
    from the per-element normal path (which caches every second value in the generator)."""
    _check_count("log_normal", n)
    dt = _dtype(np_dtype, "log_normal_cpu", _FLOATS)
    mean, std = float(mean), float(std)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    with gen._lock:
        z = _normal_scalar_path(gen, n)
    return np.exp(fma64(z, std, mean)).astype(dt)


def cauchy(
    gen: Generator, n: int, np_dtype: npt.DTypeLike, median: float = 0.0, sigma: float = 1.0
) -> npt.NDArray[Any]:
    """``n`` samples of ``torch.Tensor.cauchy_(median, sigma)``: ``median + sigma tan(pi (u - 1/2))``
    of one double uniform per element."""
    _check_count("cauchy", n)
    dt = _continuous(np_dtype, "Cauchy")
    median, sigma = float(median), float(sigma)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    with gen._lock:
        u = _unit_float64(gen, n)
    return (median + sigma * np.tan(math.pi * (u - 0.5))).astype(dt)


# --------------------------------------------------------------------------------------------------
# multinomial


def _check_rows_with_replacement(probs: npt.NDArray[np.floating[Any]]) -> None:
    """PyTorch's row-by-row checks: the first offending entry (< 0 or NaN, then infinite) or row sum."""
    bad = ~(probs >= 0) | ~np.isfinite(probs)
    zero_sum = ~(probs.sum(axis=1, dtype=np.float64) > 0)
    for row in np.nonzero(bad.any(axis=1) | zero_sum)[0][:1]:
        first = np.nonzero(bad[row])[0]
        if first.size and not probs[row, first[0]] >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if first.size:
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
            )
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(
    gen: Generator, probs: npt.NDArray[np.floating[Any]], num_samples: int, replacement: bool
) -> npt.NDArray[np.int64]:
    """``torch.multinomial(probs, num_samples, replacement)`` for a 2-D ``probs`` (one distribution
    per row): category indices, one row of ``num_samples`` per distribution.

    With replacement and more than one sample, each row's cumulative sums (accumulated in the
    input's precision, float for float16) are divided by the total and each sample is the first
    category whose cumulative probability reaches a double uniform. Otherwise the samples are the
    ``num_samples`` largest ``p / q`` with ``q`` from ``exponential`` (the Gumbel-max trick), in
    decreasing order.
    """
    rows, categories = probs.shape
    if replacement and num_samples > 1:
        _check_rows_with_replacement(probs)
        acc = np.float32 if probs.dtype in REDUCED_FLOAT_NUMPY else probs.dtype
        cumulative = np.cumsum(probs, axis=1, dtype=acc)
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1
        with gen._lock:
            u = _unit_float64(gen, rows * num_samples).reshape(rows, num_samples)
        return np.stack([np.searchsorted(cumulative[r], u[r], side="left") for r in range(rows)]).astype(
            np.int64
        )
    if not (probs.max(initial=-np.inf) < np.inf and probs.min(initial=np.inf) >= 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.sum(axis=1, dtype=np.float64) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = exponential(gen, probs.size, probs.dtype).reshape(rows, categories)
    scores = probs / q
    if num_samples == 1:
        best: npt.NDArray[np.int64] = np.argmax(scores, axis=1, keepdims=True)
        return best.astype(np.int64)
    return np.argsort(-scores, axis=1, kind="stable")[:, :num_samples].astype(np.int64)


# --------------------------------------------------------------------------------------------------
# poisson


def _poisson_small(gen: Generator, rates: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Knuth's product of uniforms for rates in (0, 10): count the uniforms multiplied before the
    product falls to exp(-rate) or below."""
    out = np.zeros(rates.size, dtype=np.int64)
    limit = np.exp(-rates)
    product = np.ones(rates.size)
    active = np.arange(rates.size)
    while active.size:
        with gen._lock:
            product[active] *= _unit_float64(gen, active.size)
        going = product[active] > limit[active]
        out[active[going]] += 1
        active = active[going]
    return out


def _poisson_large(gen: Generator, rates: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Hoermann's transformed rejection (PTRS) for rates >= 10: a (U, V) pair per element and round
    until every element accepted a candidate."""
    out = np.zeros(rates.size, dtype=np.int64)
    slam, loglam = np.sqrt(rates), np.log(rates)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    active = np.arange(rates.size)
    while active.size:
        with gen._lock:
            uv = _unit_float64(gen, 2 * active.size).reshape(-1, 2)
        u, v = uv[:, 0] - 0.5, uv[:, 1]
        lam, a_, b_ = rates[active], a[active], b[active]
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a_ / us + b_) * u + lam + 0.43)
        quick = (us >= 0.07) & (v <= vr[active])
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = -lam + k * loglam[active] - _log_factorial(k)
            test = np.log(v) + np.log(invalpha[active]) - np.log(a_ / (us * us) + b_) <= bound
        rejected = (k < 0) | ((us < 0.013) & (v > us))
        accept = quick | (~rejected & test)
        out[active[accept]] = k[accept].astype(np.int64)
        active = active[~accept]
    return out


_LOG_FACTORIALS: Final = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1.0, 16.0)))])


def _log_factorial(k: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``lgamma(k + 1)`` for integer-valued ``k >= 0`` (other values give NaN): a table below 16,
    Stirling's series (error below 1e-11) from there on."""
    x = np.maximum(k, 15.0) + 1
    stirling = (
        (x - 0.5) * np.log(x)
        - x
        + 0.5 * math.log(2 * math.pi)
        + 1 / (12 * x)
        - 1 / (360 * x**3)
        + 1 / (1260 * x**5)
    )
    small = np.clip(k, 0, 15).astype(np.int64)
    return np.where(k < 0, np.nan, np.where(k < 16, _LOG_FACTORIALS[small], stirling))


def poisson(gen: Generator, rates: npt.NDArray[np.floating[Any]]) -> npt.NDArray[Any]:
    """``torch.poisson(rates)``: one Poisson count per rate (flat, in element order), in the rates'
    dtype. The elements draw their uniforms together, round by round (see the module notes)."""
    dt = _dtype(rates.dtype, "poisson_cpu", _FLOATS)
    lam = rates.astype(np.float64).reshape(-1)
    if not (lam >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = np.zeros(lam.size, dtype=np.int64)
    small = np.nonzero((lam > 0) & (lam < 10))[0]
    large = np.nonzero(lam >= 10)[0]
    out[small] = _poisson_small(gen, lam[small])
    out[large] = _poisson_large(gen, lam[large])
    return out.astype(dt)
