"""Math, special functions and statistics (session 11): aliases, the gamma family, i0/i1, sinc,
fmax/fmin, gcd/lcm, ldexp/frexp, nextafter, shifts, predicates; values against closed forms,
the standard library and NumPy, and live against PyTorch when it is installed."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework

EULER_GAMMA = 0.5772156649015329
ZETA3 = 1.2020569031595942


def _t(values: Any, dtype: framework.dtype = framework.float64) -> framework.Tensor:
    return framework.tensor(values, dtype=dtype)


def _grid() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate(
        [rng.uniform(-20, 20, 300), rng.uniform(0, 3, 300), [0.5, 1.0, 1.5, 2.0, 2.5, 13.0]]
    )


# ---- aliases -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "real", "args"),
    [
        ("absolute", "abs", ([-1.5, 2.0],)),
        ("arccos", "acos", ([0.5, -0.25],)),
        ("arcsinh", "asinh", ([0.5, -3.0],)),
        ("arctan2", "atan2", ([1.0, -2.0], [2.0, 0.5])),
        ("negative", "neg", ([1.0, -2.0],)),
        ("multiply", "mul", ([1.0, -2.0], [3.0, 4.0])),
        ("subtract", "sub", ([1.0, -2.0], [3.0, 4.0])),
        ("true_divide", "div", ([1.0, -2.0], [3.0, 4.0])),
        ("greater_equal", "ge", ([1.0, 4.0], [3.0, 4.0])),
        ("not_equal", "ne", ([1.0, 4.0], [3.0, 4.0])),
        ("fix", "trunc", ([1.5, -2.5],)),
    ],
)
def test_alias_records_the_real_operator(alias: str, real: str, args: tuple[Any, ...]) -> None:
    x = _t(args[0]).requires_grad_()
    rest = [_t(a) for a in args[1:]]
    got = getattr(framework, alias)(x, *rest)
    want = getattr(framework, real)(x, *rest)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert got.grad_fn is None or got.grad_fn.name() == want.grad_fn.name()
    assert getattr(x, alias)(*rest).dtype == want.dtype


def test_alias_overloads_and_in_place() -> None:
    x = _t([7.0, -7.0]).requires_grad_()
    assert framework.multiply(x, 2).grad_fn.name() == "MulBackward0"
    assert framework.divide(x, 2, rounding_mode="floor").grad_fn.name() == "DivBackward2"
    np.testing.assert_array_equal(
        framework.divide(_t([7, -7], framework.int64), 2, rounding_mode="trunc"), [3, -3]
    )
    np.testing.assert_array_equal(framework.subtract(_t([1.0]), 2, alpha=3).numpy(), [-5.0])
    y = _t([0.5, 0.25])
    assert y.arccos_() is y
    np.testing.assert_allclose(y.numpy(), np.arccos([0.5, 0.25]))
    out = framework.empty(2)
    framework.absolute(_t([-1.0, 2.0], framework.float32), out=out)
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])


def test_positive() -> None:
    x = _t([1.0, -2.0])
    assert framework.positive(x) is x
    with pytest.raises(RuntimeError, match=r"The `\+` operator, on a bool tensor is not supported."):
        framework.positive(framework.tensor([True]))


# ---- special functions ------------------------------------------------------------------------------


def test_gamma_family_closed_forms() -> None:
    x = _t([0.5, 1.0, 2.0, 10.0])
    np.testing.assert_allclose(
        framework.digamma(x).numpy(),
        [
            -EULER_GAMMA - 2 * math.log(2),
            -EULER_GAMMA,
            1 - EULER_GAMMA,
            sum(1 / k for k in range(1, 10)) - EULER_GAMMA,
        ],
        rtol=1e-14,
    )
    np.testing.assert_allclose(framework.polygamma(1, _t([1.0])).numpy(), [math.pi**2 / 6], rtol=1e-9)
    np.testing.assert_allclose(framework.polygamma(2, _t([1.0])).numpy(), [-2 * ZETA3], rtol=1e-14)
    np.testing.assert_allclose(framework.polygamma(3, _t([0.5])).numpy(), [math.pi**4], rtol=1e-13)
    grid = _grid()
    expected = [math.lgamma(v) if v > 0 or v != math.floor(v) else math.inf for v in grid]
    np.testing.assert_allclose(framework.lgamma(_t(grid)).numpy(), expected, rtol=1e-13, atol=1e-15)


def test_gamma_family_special_values() -> None:
    x = _t([0.0, -0.0, -1.0, math.inf, -math.inf, math.nan])
    np.testing.assert_array_equal(
        framework.digamma(x).numpy(), [-math.inf, math.inf, math.nan, math.inf, math.nan, math.nan]
    )
    np.testing.assert_array_equal(
        framework.lgamma(x).numpy(), [math.inf, math.inf, math.inf, math.inf, math.inf, math.nan]
    )
    assert framework.lgamma(framework.tensor([1, 2])).dtype == framework.float32
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n."):
        framework.polygamma(-1, x)
    with pytest.raises(NotImplementedError, match="\"trigamma\" not implemented for 'ComplexFloat'"):
        framework.polygamma(1, framework.ones(2, dtype=framework.complex64))
    with pytest.raises(NotImplementedError, match="\"lgamma_vml_cpu\" not implemented for 'ComplexFloat'"):
        framework.lgamma(framework.ones(2, dtype=framework.complex64))


def test_mvlgamma() -> None:
    x = np.array([2.5, 3.0, 7.25])
    want = [3 / 2 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(3)) for v in x]
    np.testing.assert_allclose(framework.mvlgamma(_t(x), 3).numpy(), want, rtol=1e-14)
    y = _t(x)
    assert y.mvlgamma_(3) is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        framework.mvlgamma(_t(x), 0)
    with pytest.raises(RuntimeError, match=r"The input tensor may not be a boolean tensor\."):
        framework.mvlgamma(framework.tensor([True]), 1)
    with pytest.raises(
        RuntimeError, match="mvlgamma: result type Long can't be cast to the desired output type Float"
    ):
        framework.tensor([3, 4]).mvlgamma_(1)


def _bessel_series(x: float, order: int) -> float:
    """I_order(x) by its power series, terms formed in logarithms (no overflow)."""
    if x == 0:
        return 1.0 if order == 0 else 0.0
    log_half = math.log(abs(x) / 2)
    total = math.fsum(
        math.exp((2 * k + order) * log_half - math.lgamma(k + 1) - math.lgamma(k + order + 1))
        for k in range(400)
    )
    return math.copysign(total, x) if order == 1 else total


def test_i0_i1_and_sinc() -> None:
    x = [0.0, 0.5, -3.0, 12.5, 29.0, 31.0, -45.0, 80.0]
    np.testing.assert_allclose(framework.i0(_t(x)).numpy(), [_bessel_series(v, 0) for v in x], rtol=1e-13)
    np.testing.assert_allclose(
        framework.special.i1(_t(x)).numpy(), [_bessel_series(v, 1) for v in x], rtol=1e-13
    )
    assert math.isinf(framework.i0(_t([710.0])).item())
    s = np.array([0.0, 0.5, -1.25, 3.0])
    want = np.where(s == 0, 1.0, np.sin(np.pi * s) / (np.pi * np.where(s == 0, 1, s)))
    np.testing.assert_allclose(framework.sinc(_t(s)).numpy(), want, rtol=1e-15, atol=1e-16)
    assert framework.sinc(framework.tensor([1, 0])).dtype == framework.float32
    assert framework.sinc(framework.tensor([1j])).dtype == framework.complex64


# ---- binary -----------------------------------------------------------------------------------------


def test_fmax_fmin_gcd_lcm_nextafter() -> None:
    a, b = _t([1.0, math.nan, 3.0, math.nan]), _t([math.nan, 2.0, 4.0, math.nan])
    np.testing.assert_array_equal(framework.fmax(a, b).numpy(), np.fmax(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(framework.fmin(a, b).numpy(), np.fmin(a.numpy(), b.numpy()))
    with pytest.raises(RuntimeError, match=r"fmax not implemented for complex tensors\."):
        framework.fmax(framework.tensor([1j]), framework.tensor([1j]))
    i, j = framework.tensor([12, -18, 0, 5]), framework.tensor([8, 12, 0, -7])
    np.testing.assert_array_equal(framework.gcd(i, j).numpy(), np.gcd(i.numpy(), j.numpy()))
    np.testing.assert_array_equal(framework.lcm(i, j).numpy(), np.lcm(i.numpy(), j.numpy()))
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        framework.gcd(framework.ones(1), framework.ones(1))
    x, y = _t([1.0, 0.0, -2.0]), _t([2.0, -1.0, -2.0])
    np.testing.assert_array_equal(framework.nextafter(x, y).numpy(), np.nextafter(x.numpy(), y.numpy()))
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        framework.nextafter(i, j)


def test_shifts() -> None:
    x, s = framework.tensor([1, -8, 3, 5]), framework.tensor([1, 70, -1, 63])
    np.testing.assert_array_equal((x << s).numpy(), [2, 0, 0, np.iinfo(np.int64).min])
    np.testing.assert_array_equal((x >> s).numpy(), [0, -1, 0, 0])
    np.testing.assert_array_equal((framework.tensor([3], dtype=framework.int8) << 7).numpy(), [-128])
    np.testing.assert_array_equal((framework.tensor([200], dtype=framework.uint8) >> 9).numpy(), [0])
    np.testing.assert_array_equal((2 << framework.tensor([1, 2])).numpy(), [4, 8])
    np.testing.assert_array_equal((64 >> framework.tensor([1, 2])).numpy(), [32, 16])
    np.testing.assert_array_equal(
        framework.bitwise_right_shift(framework.tensor([64, -64]), 3).numpy(), [8, -8]
    )
    y = framework.tensor([1, 2])
    y <<= 2
    np.testing.assert_array_equal(y.numpy(), [4, 8])
    assert (framework.tensor([True]) << 1).dtype == framework.int64
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        framework.tensor([1.5]) << 1


def test_ldexp_frexp() -> None:
    x = _t([1.0, -3.0, 0.0, 1e-310, math.inf])
    mantissa, exponent = framework.frexp(x)
    want_m, want_e = np.frexp(x.numpy())
    np.testing.assert_array_equal(mantissa.numpy(), want_m)
    np.testing.assert_array_equal(exponent.numpy(), want_e)
    assert exponent.dtype == framework.int32 and type(framework.frexp(x)).__name__ == "frexp"
    np.testing.assert_array_equal(framework.ldexp(mantissa, exponent).numpy(), x.numpy())
    with pytest.raises(RuntimeError, match=r"torch.frexp\(\) only supports floating-point dtypes"):
        framework.frexp(framework.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="expects mantissa to have dtype float but got double"):
        framework.frexp(framework.ones(2), out=(framework.empty(2, dtype=framework.float64), exponent))
    assert framework.ldexp(framework.tensor([1, 2]), framework.tensor([2, 3])).dtype == framework.float32
    assert (
        framework.ldexp(framework.ones(1, dtype=framework.float16), framework.tensor([2])).dtype
        == framework.float16
    )
    np.testing.assert_allclose(
        framework.ldexp(framework.ones(1), framework.tensor([1.5])).numpy(), [2**1.5], rtol=1e-7
    )
    with pytest.raises(RuntimeError, match="ldexp can't be cast to the desired output type Long"):
        framework.tensor([3]).ldexp_(framework.tensor([1]))


def test_predicates() -> None:
    x = _t([1.0, -math.inf, math.inf, math.nan])
    np.testing.assert_array_equal(framework.isneginf(x).numpy(), [False, True, False, False])
    np.testing.assert_array_equal(framework.isposinf(x).numpy(), [False, False, True, False])
    np.testing.assert_array_equal(framework.isposinf(framework.tensor([1, 2])).numpy(), [False, False])
    with pytest.raises(RuntimeError, match=r"isneginf does not support complex inputs\."):
        framework.isneginf(framework.tensor([1j]))
    np.testing.assert_array_equal(framework.isreal(framework.tensor([1 + 0j, 1j])).numpy(), [True, False])
    np.testing.assert_array_equal(framework.isreal(framework.tensor([1, 2])).numpy(), [True, True])
    assert not framework.is_signed(framework.tensor([1], dtype=framework.uint8))
    assert framework.is_signed(framework.tensor([1]))
    assert framework.is_same_size(framework.ones(2, 3), framework.zeros(2, 3, dtype=framework.int64))
    assert not framework.is_same_size(framework.ones(2, 3), framework.ones(3, 2))
    assert framework.tensor([2.0]).is_nonzero() and not framework.tensor([0]).is_nonzero()


# ---- live comparison with PyTorch ---------------------------------------------------------------------

UNARY_LIVE: list[tuple[str, Callable[[Any], Any]]] = [
    ("digamma", lambda m: m.digamma),
    ("lgamma", lambda m: m.lgamma),
    ("trigamma", lambda m: lambda t: m.polygamma(1, t)),
    ("polygamma4", lambda m: lambda t: m.polygamma(4, t)),
    ("i0", lambda m: m.i0),
    ("i1", lambda m: m.special.i1),
    ("sinc", lambda m: m.sinc),
    ("acosh", lambda m: m.acosh),
    ("atanh", lambda m: m.atanh),
]


@pytest.mark.parametrize(("name", "get"), UNARY_LIVE, ids=[n for n, _ in UNARY_LIVE])
def test_unary_against_torch(name: str, get: Callable[[Any], Any]) -> None:
    torch = pytest.importorskip("torch")
    grid = np.concatenate([_grid(), [-0.0, -1.0, -2.5, math.inf, -math.inf, math.nan, 1e-300, 1e300, 700.0]])
    ours = get(framework)(framework.from_numpy(grid)).numpy()
    theirs = get(torch)(torch.from_numpy(grid)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14, equal_nan=True)
    if name.startswith(("trigamma", "polygamma")):
        return  # PyTorch sums these series in float32 for float32 (a few ulp off, more near poles)
    single = grid[~(np.abs(grid) > 1e30)].astype(np.float32)
    ours32 = get(framework)(framework.from_numpy(single)).numpy()
    theirs32 = get(torch)(torch.from_numpy(single)).numpy()
    assert ours32.dtype == theirs32.dtype
    np.testing.assert_allclose(ours32, theirs32, rtol=2e-6, atol=1e-6, equal_nan=True)


# ---- logcumsumexp, renorm, logspace, windows, histc, bincount, isin ---------------------------------


def test_logcumsumexp() -> None:
    x = np.array([[1.0, 2.0, -1000.0], [3.0, -np.inf, 700.0]])
    np.testing.assert_allclose(framework.logcumsumexp(_t(x), 1).numpy(), np.logaddexp.accumulate(x, axis=1))
    z = np.array([1 + 1j, 2 - 1j])
    np.testing.assert_allclose(
        framework.logcumsumexp(framework.tensor(z), 0).numpy(), np.log(np.cumsum(np.exp(z)))
    )
    assert framework.logcumsumexp(_t(2.0), 0).item() == 2.0
    with pytest.raises(NotImplementedError, match="\"logcumsumexp_out_cpu\" not implemented for 'Long'"):
        framework.logcumsumexp(framework.tensor([1, 2]), 0)
    big = _t([[1000.0, 1000.0]]).requires_grad_()
    framework.logcumsumexp(big, 1).sum().backward()
    np.testing.assert_allclose(big.grad.numpy(), [[1.5, 0.5]])


def test_renorm() -> None:
    x = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    factor = np.where(np.linalg.norm(x, axis=1) > 1.0, 1.0 / (np.linalg.norm(x, axis=1) + 1e-7), 1.0)
    np.testing.assert_allclose(framework.renorm(_t(x), 2, 0, 1.0).numpy(), x * factor[:, None], rtol=1e-15)
    y = _t(x)
    assert y.renorm_(2, 0, 1.0) is y
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        framework.renorm(_t([1.0]), 2, 0, 1)
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        framework.renorm(_t(x), -1, 0, 1)
    with pytest.raises(RuntimeError, match="renorm: expected maxnorm to be >= 0 but got -1"):
        framework.renorm(_t(x), 2, 0, -1)


def test_logspace_and_windows() -> None:
    np.testing.assert_allclose(
        framework.logspace(-1, 2, 4, dtype=framework.float64).numpy(), np.logspace(-1, 2, 4)
    )
    np.testing.assert_array_equal(
        framework.logspace(0, 2, 3, base=2, dtype=framework.int64).numpy(), [1, 2, 4]
    )
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        framework.logspace(0, 2, -1)
    d = framework.float64
    np.testing.assert_allclose(framework.hann_window(5, False, dtype=d).numpy(), np.hanning(5), atol=1e-15)
    np.testing.assert_allclose(framework.hann_window(4, dtype=d).numpy(), np.hanning(5)[:4], atol=1e-15)
    np.testing.assert_allclose(framework.hamming_window(6, False, dtype=d).numpy(), np.hamming(6), atol=1e-15)
    np.testing.assert_allclose(
        framework.blackman_window(7, False, dtype=d).numpy(), np.blackman(7), atol=1e-15
    )
    np.testing.assert_allclose(
        framework.bartlett_window(6, False, dtype=d).numpy(), np.bartlett(6), atol=1e-15
    )
    np.testing.assert_allclose(
        framework.kaiser_window(6, False, 5.0, dtype=d).numpy(), np.kaiser(6, 5.0), rtol=1e-13
    )
    assert framework.hann_window(0).shape == (0,) and framework.hann_window(1).tolist() == [1.0]
    with pytest.raises(
        RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"
    ):
        framework.hann_window(-1)
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes"):
        framework.hann_window(4, dtype=framework.int64)


def test_histc_bincount_isin() -> None:
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 2.5])
    np.testing.assert_array_equal(framework.histc(_t(x), 3, 1, 4).numpy(), np.histogram(x, 3, (1, 4))[0])
    np.testing.assert_array_equal(framework.histc(_t(x), 4).numpy(), np.histogram(x, 4)[0])
    np.testing.assert_array_equal(framework.histc(_t([2.0, 2.0]), 2).numpy(), [0.0, 2.0])
    with pytest.raises(RuntimeError, match=r"torch\.histc: max must be larger than min"):
        framework.histc(_t(x), 4, min=3, max=1)
    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[nan, nan\] is not finite"):
        framework.histc(_t([math.nan]), 2)
    i = framework.tensor([1, 2, 2, 5])
    np.testing.assert_array_equal(framework.bincount(i).numpy(), np.bincount(i.numpy()))
    np.testing.assert_array_equal(
        framework.bincount(i, minlength=8).numpy(), np.bincount(i.numpy(), minlength=8)
    )
    weighted = framework.bincount(i, weights=framework.tensor([0.5, 1.0, 2.0, 3.0]))
    assert weighted.dtype == framework.float32 and weighted.tolist() == [0.0, 0.5, 3.0, 0.0, 0.0, 3.0]
    assert framework.bincount(i, weights=i).dtype == framework.float64
    with pytest.raises(RuntimeError, match=r"bincount only supports 1-d non-negative integral inputs\."):
        framework.bincount(-i)
    with pytest.raises(RuntimeError, match="minlength should be >= 0"):
        framework.bincount(i, minlength=-1)
    e, t = framework.tensor([[1, 2], [3, 4]]), framework.tensor([2.0, 4.0, 9.0])
    np.testing.assert_array_equal(framework.isin(e, t).numpy(), [[False, True], [False, True]])
    np.testing.assert_array_equal(framework.isin(e, t, invert=True).numpy(), [[True, False], [True, False]])
    np.testing.assert_array_equal(framework.isin(e, 3).numpy(), [[False, False], [True, False]])
    assert framework.isin(4, e).item() is True
    with pytest.raises(RuntimeError, match="Unsupported input type encountered for isin\\(\\): Bool"):
        framework.isin(framework.tensor([True]), framework.tensor([True]))


def test_cov_corrcoef() -> None:
    x = np.array([[1.0, 2.0, 3.0, 7.0], [2.0, 1.0, 0.5, -1.0], [0.0, 4.0, 1.0, 2.0]])
    f, a = np.array([1, 2, 3, 1]), np.array([0.5, 1.0, 2.0, 1.0])
    np.testing.assert_allclose(framework.cov(_t(x)).numpy(), np.cov(x), rtol=1e-14)
    np.testing.assert_allclose(
        framework.cov(_t(x), correction=0, fweights=framework.tensor(f), aweights=_t(a)).numpy(),
        np.cov(x, ddof=0, fweights=f, aweights=a),
        rtol=1e-14,
    )
    np.testing.assert_allclose(
        framework.cov(_t(x), correction=2, aweights=_t(a)).numpy(), np.cov(x, ddof=2, aweights=a), rtol=1e-14
    )
    np.testing.assert_allclose(framework.corrcoef(_t(x)).numpy(), np.corrcoef(x), rtol=1e-14)
    assert framework.corrcoef(_t([1.0, 2.0, 3.0])).item() == 1.0
    x_grad = _t(x).requires_grad_()
    assert framework.cov(x_grad).grad_fn.name() == "SqueezeBackward0"
    assert framework.corrcoef(x_grad).grad_fn.name() == "ClampBackward1"
    with pytest.raises(RuntimeError, match="cov\\(\\): fweights cannot be negative"):
        framework.cov(_t(x), fweights=framework.tensor([-1, 2, 3, 1]))
    with pytest.raises(
        RuntimeError, match="expected aweights to have floating point dtype but got aweights with Long"
    ):
        framework.cov(_t(x), aweights=framework.tensor(f))
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert np.isinf(framework.cov(_t(x), correction=5).numpy()).all()


def test_cov_corrcoef_gradients_against_torch() -> None:
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).uniform(-1, 1, (3, 5))
    a = np.random.default_rng(1).uniform(0.5, 2, 5)
    for name, kwargs in (("cov", {"aweights": a}), ("corrcoef", {})):
        ours = framework.from_numpy(x.copy()).requires_grad_()
        theirs = torch.from_numpy(x.copy()).requires_grad_()
        extra_ours = {k: framework.from_numpy(v) for k, v in kwargs.items()}
        extra_theirs = {k: torch.from_numpy(v) for k, v in kwargs.items()}
        getattr(framework, name)(ours, **extra_ours).sum().backward()
        getattr(torch, name)(theirs, **extra_theirs).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-14)
