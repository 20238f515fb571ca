"""Quantiles, histograms and torch.special (session 11): values against NumPy and reference
values (computed with mpmath at high precision), PyTorch's error messages, and live against
PyTorch (values, gradients, grad_fn chains) when it is installed."""

from __future__ import annotations

import importlib.util
import math
import warnings
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")

INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


def _t(values: Any, dtype: framework.dtype = framework.float64) -> Tensor:
    return framework.tensor(values, dtype=dtype)


def _data(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((3, 4, 5))


def _chain(t: Any) -> list[str]:
    """The grad_fn names reachable from `t`, depth first."""
    names, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(node.name().rpartition("::")[2])
        stack.extend(n for n, _ in node.next_functions)
    return names


# ---- quantile, nanquantile -----------------------------------------------------------------------


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize(("dim", "keepdim"), [(None, False), (None, True), (0, False), (-1, True)])
def test_quantile_matches_numpy(interpolation: str, dim: int | None, keepdim: bool) -> None:
    a = _data()
    q = [0.0, 0.1, 0.5, 0.75, 1.0]
    result = framework.quantile(_t(a), _t(q), dim, keepdim, interpolation=interpolation)
    expected = np.quantile(a, q, axis=dim, keepdims=keepdim, method=interpolation)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-14, atol=1e-15)
    scalar = framework.quantile(_t(a), 0.3, dim, keepdim, interpolation=interpolation)
    expected = np.quantile(a, 0.3, axis=dim, keepdims=keepdim, method=interpolation)
    np.testing.assert_allclose(scalar.numpy(), expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("interpolation", ["linear", "nearest"])
def test_nanquantile_and_nan_propagation(interpolation: str) -> None:
    a = _data()
    a[0, 1, 2] = np.nan
    a[1, 2, :] = np.nan
    q = [0.2, 0.9]
    result = framework.nanquantile(_t(a), _t(q), 2, interpolation=interpolation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns about the all-NaN slice
        expected = np.nanquantile(a, q, axis=2, method=interpolation)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-14)
    plain = framework.quantile(_t(a), _t(q), 2).numpy()
    assert np.isnan(plain[:, 0, 1]).all() and np.isnan(plain[:, 1, 2]).all()
    assert not np.isnan(plain[:, 0, 0]).any()


def test_quantile_shapes_methods_and_out() -> None:
    x = _t(_data()).float()
    assert x.quantile(0.5).shape == ()
    assert framework.quantile(_t(3.0), 0.5, dim=0, keepdim=True).shape == ()
    assert x.nanquantile(_t([0.1, 0.2], framework.float32), 1, True).shape == (2, 3, 1, 5)
    assert x.quantile(0.5).dtype is framework.float32
    out = framework.empty(0)
    returned = framework.quantile(x, 0.25, dim=0, out=out)
    assert returned is out and out.shape == (4, 5)
    np.testing.assert_allclose(out.numpy(), np.quantile(x.numpy(), 0.25, axis=0), rtol=1e-6)
    nan_out = framework.empty(0)
    framework.nanquantile(x, _t([0.5], framework.float32), out=nan_out)
    assert nan_out.shape == (1,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: framework.quantile(_t([1.0]), 1.5), r"q must be in the range \[0, 1\] but got 1.5"),
        (lambda: framework.quantile(_t([1.0]), _t([0.1, 1.5])), r"q values must be in the range \[0, 1\]"),
        (lambda: framework.quantile(_t([1.0]), _t([[0.1]])), "q must be a scalar or 1D tensor"),
        (lambda: framework.quantile(_t([]), 0.5), "input tensor must be non-empty"),
        (lambda: framework.quantile(framework.arange(4), 0.5), "must be either float or double dtype"),
        (lambda: framework.quantile(_t([1.0]), _t([0.5], framework.float32)), "q tensor must be same dtype"),
        (
            lambda: framework.quantile(_t([1.0]), 0.5, interpolation="cubic"),
            "interpolation must be one of linear, lower, higher, midpoint or nearest, but got cubic",
        ),
        (
            lambda: framework.quantile(_t([1.0]), 0.5, out=framework.empty(0)),
            "out tensor must be same dtype as the input tensor",
        ),
    ],
)
def test_quantile_errors(call: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        call()


def test_quantile_dim_out_of_range() -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        framework.quantile(_t([[1.0]]), 0.5, dim=2)


@needs_torch
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize(("fn", "dim", "q"), [("quantile", None, [0.2, 0.7]), ("nanquantile", 0, 0.4)])
def test_quantile_gradients_against_torch(interpolation: str, fn: str, dim: int | None, q: Any) -> None:
    import torch

    a = _data(1)
    a[2, 1, 3] = np.nan
    results = []
    for lib in (torch, framework):
        x = lib.tensor(a, requires_grad=True)
        qt = q if isinstance(q, float) else lib.tensor(q, dtype=lib.float64)
        r = getattr(lib, fn)(x, qt, dim, interpolation=interpolation)
        r.backward(lib.ones_like(r))
        results.append((r.detach().numpy(), x.grad.numpy(), _chain(r)))
    (tv, tg, tc), (fv, fg, fc) = results
    np.testing.assert_allclose(fv, tv, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(fg, tg, rtol=1e-14)
    assert fc == tc


# ---- torch.special ---------------------------------------------------------------------------------

XS = [-30.0, -3.5, -0.5, 0.25, 1.0, 4.0, 40.0]
REFERENCE = {
    "i0e": [0.0731459464822373, 0.22280243801077917, 0.6450352704491501, 0.7910171621397194,
            0.46575960759364043, 0.2070019212239867, 0.06327827987523534],
    "i1e": [-0.07191633059864755, -0.18739997660305, -0.1564208031848717, 0.09811262869736824,
            0.20791041534970844, 0.17875083950243534, 0.062482229074442064],
    "log_ndtr": [-454.3212439563432, -8.366065308344092, -1.1759117615936185, -0.5129840754094305,
                 -0.17275377902344988, -3.167174337748927e-05, 0.0],
    "bessel_j0": [-0.08636798358104021, -0.3801277399872634, 0.9384698072408129, 0.9844359292958527,
                  0.7651976865579666, -0.39714980986384735, 0.00736689058423729],
    "bessel_j1": [0.11875106261662294, -0.1373775273623272, -0.2422684576748739, 0.12402597732272692,
                  0.4400505857449335, -0.06604332802354913, 0.126038318037585],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_special_unary_reference_values(name: str) -> None:
    result = getattr(framework.special, name)(_t(XS)).numpy()
    np.testing.assert_allclose(result, REFERENCE[name], rtol=1e-13, atol=1e-300)


def test_erfcx_entr_ndtr_ndtri() -> None:
    erfcx = framework.special.erfcx(_t([-30.0, -3.5, -0.5, 0.25, 1.0, 4.0, 40.0, math.inf])).numpy()
    expected = [math.inf, 417962.4224457703, 1.952360489182557, 0.7703465477309968, 0.427583576155807,
                0.13699945762506138, 0.014100335983377814, 0.0]  # fmt: skip
    np.testing.assert_allclose(erfcx, expected, rtol=1e-13)
    entr = framework.special.entr(_t([-1.0, 0.0, 0.5, math.nan])).numpy()
    np.testing.assert_array_equal(entr, [-math.inf, 0.0, -0.5 * math.log(0.5), math.nan])
    p = [0.0, 1e-300, 1e-20, 0.01, 0.3, 0.5, 0.9, 1 - 1e-12, 1.0, 1.5]
    expected = [-math.inf, -37.0470962993612, -9.262340089798407, -2.326347874040841, -0.5244005127080408,
                0.0, 1.2815515655446006, 7.0344869100478356, math.inf, math.nan]  # fmt: skip
    np.testing.assert_allclose(framework.special.ndtri(_t(p)).numpy(), expected, rtol=1e-13)
    x = _t([-3.0, 0.0, 1.5])
    ndtr = framework.special.ndtr(x)
    np.testing.assert_allclose(ndtr.numpy(), [0.0013498980316301, 0.5, 0.9331927987311419], rtol=1e-13)
    assert framework.special.ndtr(framework.tensor([1, 2])).dtype is framework.float32
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        framework.special.ndtr(framework.tensor([1.0]), out=framework.empty(1, dtype=framework.int64))


def test_binary_special_functions() -> None:
    zeta = framework.special.zeta(_t([2.0, 3.0, 1.5, 7.5, 1.0, 0.5]), _t([1.0, 0.5, 10.0, 2.25, 2.0, 2.0]))
    expected = [
        1.6449340668482264,
        8.41439832211716,
        0.6486616319415704,
        0.0024535049763858945,
        math.inf,
        math.nan,
    ]
    np.testing.assert_allclose(zeta.numpy(), expected, rtol=1e-13)
    assert framework.special.zeta(2.0, _t([1.0])).item() == pytest.approx(math.pi**2 / 6, rel=1e-14)
    x, y = _t([0.0, 0.0, 2.0, 3.0]), _t([-1.0, math.nan, 0.5, -1.0])
    xlog1py = framework.special.xlog1py(x, y).numpy()
    np.testing.assert_array_equal(xlog1py[:2], [0.0, math.nan])
    np.testing.assert_allclose(xlog1py[2:], [2.0 * math.log1p(0.5), -math.inf])
    assert framework.special.xlog1py(2, framework.tensor([1, 2])).dtype is framework.float32
    pairs = [(0.5, 0.1), (3.0, 2.0), (1e-3, 0.7), (50.0, 45.0), (100.0, 130.0), (2.5, 40.0)]
    a, z = _t([p[0] for p in pairs]), _t([p[1] for p in pairs])
    lower = [0.345279153981423, 0.32332358381693654, 0.9996259466340252, 0.24680203440017026,
             0.9972495916326934, 0.9999999999999991]  # fmt: skip
    upper = [0.654720846018577, 0.6766764161830635, 0.0003740533659748942, 0.7531979655998298,
             0.002750408367306526, 8.391825114831611e-16]  # fmt: skip
    np.testing.assert_allclose(framework.special.gammainc(a, z).numpy(), lower, rtol=1e-13)
    np.testing.assert_allclose(framework.special.gammaincc(a, z).numpy(), upper, rtol=1e-12)
    edge = framework.igamma(_t([-1.0, 0.0, 0.0, 1.0, math.inf, 2.0]), _t([1.0, 1.0, 0.0, 0.0, 1.0, math.inf]))
    np.testing.assert_array_equal(edge.numpy(), [math.nan, 1.0, math.nan, 0.0, 0.0, 1.0])
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        framework.igamma(framework.tensor([1]), framework.tensor([1]))


@pytest.mark.parametrize(
    ("alias", "real", "args", "kwargs"),
    [
        ("expit", "sigmoid", ([0.5, -2.0],), {}),
        ("logit", "logit", ([0.25, 0.5],), {"eps": 1e-6}),
        ("gammaln", "lgamma", ([0.5, 3.0],), {}),
        ("psi", "digamma", ([0.5, 3.0],), {}),
        ("multigammaln", "mvlgamma", ([2.5, 3.0], 2), {}),
        ("polygamma", "polygamma", (2, [0.5, 3.0]), {}),
        ("xlogy", "xlogy", ([0.0, 2.0], [3.0, 0.5]), {}),
        ("logsumexp", "logsumexp", ([0.5, 3.0], 0), {}),
        ("softmax", "softmax", ([0.5, 3.0], 0), {}),
        ("log_softmax", "log_softmax", ([0.5, 3.0], 0), {}),
        ("round", "round", ([0.123, 3.456],), {"decimals": 1}),
        ("gammainc", "igamma", ([0.5, 3.0], [1.0, 2.0]), {}),
    ],
)
def test_special_aliases_call_the_real_operator(alias: str, real: str, args: Any, kwargs: Any) -> None:
    def inputs() -> list[Any]:
        return [_t(a).requires_grad_() if isinstance(a, list) else a for a in args]

    result = getattr(framework.special, alias)(*inputs(), **kwargs)
    expected = getattr(framework, real)(*inputs(), **kwargs)
    np.testing.assert_array_equal(result.detach().numpy(), expected.detach().numpy())
    assert result.grad_fn.name() == expected.grad_fn.name()
    out = framework.empty(0, dtype=framework.float64)
    if alias not in ("softmax", "log_softmax"):
        getattr(framework.special, alias)(
            *[a.detach() if isinstance(a, Tensor) else a for a in inputs()], out=out, **kwargs
        )
        np.testing.assert_array_equal(out.numpy(), expected.detach().numpy())


@needs_torch
@pytest.mark.parametrize(
    "name",
    ["erfcx", "i0e", "i1e", "ndtr", "ndtri", "log_ndtr", "entr", "expit", "erf", "erfc", "erfinv", "gammaln",
     "digamma", "i0", "i1", "sinc", "exp2", "expm1", "log1p", "bessel_j0", "bessel_j1"],
)  # fmt: skip
def test_special_unary_against_torch(name: str) -> None:
    import torch

    rng = np.random.default_rng(2)
    if name == "ndtri":
        grid = np.concatenate(
            [rng.uniform(0.0, 1.0, 200), 10.0 ** rng.uniform(-300, -1, 50), [0.0, 1.0, 0.5]]
        )
    else:
        grid = np.concatenate(
            [rng.uniform(-4.0, 4.0, 200), rng.uniform(-40.0, 40.0, 50), [0.0, -0.0, math.nan]]
        )
    expected = getattr(torch.special, name)(torch.tensor(grid)).numpy()
    result = getattr(framework.special, name)(_t(grid)).numpy()
    if name.startswith("bessel"):  # PyTorch's own j0/j1 are off by up to ~1e-7 (the reference test checks)
        np.testing.assert_allclose(result, expected, atol=1e-6)
    else:
        np.testing.assert_allclose(result, expected, rtol=1e-11)


@needs_torch
def test_special_gradients_against_torch() -> None:
    import torch

    rng = np.random.default_rng(3)
    x, y = rng.uniform(0.2, 2.0, 6), rng.uniform(0.2, 2.0, 6)
    for name in ("erfcx", "i0e", "i1e", "log_ndtr", "entr", "ndtr"):
        grads = []
        for lib in (torch, framework):
            t = lib.tensor(x, requires_grad=True)
            r = getattr(lib.special, name)(t)
            r.sum().backward()
            grads.append((t.grad.numpy(), r.grad_fn.name()))
        np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
        assert grads[1][1] == grads[0][1]
    for name in ("xlog1py", "zeta", "gammainc", "gammaincc"):
        grads = []
        for lib in (torch, framework):
            s = lib.tensor(x + 1.0)
            t = lib.tensor(y, requires_grad=True)
            r = getattr(lib.special, name)(s, t)
            r.sum().backward()
            grads.append((t.grad.numpy(), r.grad_fn.name()))
        np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-9)
        assert grads[1][1] == grads[0][1]


# ---- histogram, histogramdd --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bins", "range_", "weighted", "density"),
    [
        (10, None, False, False),
        (7, (-1.0, 1.5), True, False),
        (5, None, True, True),
        (1, (0.0, 0.0), False, False),
    ],
)
def test_histogram_matches_numpy(bins: int, range_: Any, weighted: bool, density: bool) -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal(200)
    a[:3] = [0.0, 1.5, -1.0]  # values on the edges
    w = rng.uniform(0.0, 1.0, 200) if weighted else None
    hist, edges = framework.histogram(
        _t(a), bins, range=range_, weight=None if w is None else _t(w), density=density
    )
    expected_hist, expected_edges = np.histogram(a, bins, range=range_, weights=w, density=density)
    np.testing.assert_allclose(edges.numpy(), expected_edges, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(hist.numpy(), expected_hist, rtol=1e-12)


def test_histogram_bin_edges_and_out() -> None:
    x = framework.tensor([1.0, 2.0, 1.0, 4.0, 2.5, math.nan])
    hist, edges = x.histogram(framework.tensor([0.0, 1.0, 2.0, 5.0]))
    np.testing.assert_array_equal(hist.numpy(), [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(edges.numpy(), [0.0, 1.0, 2.0, 5.0])
    result = framework.histogram(framework.ones(3), 2)
    np.testing.assert_array_equal(result.bin_edges.numpy(), [0.5, 1.0, 1.5])
    np.testing.assert_array_equal(
        framework.histogram(framework.empty(0), 2).bin_edges.numpy(), [0.0, 0.5, 1.0]
    )
    hist_out, edges_out = framework.empty(0), framework.empty(0)
    returned = framework.histogram(x, 3, range=(0.0, 3.0), out=(hist_out, edges_out))
    assert returned.hist is hist_out and returned.bin_edges is edges_out
    np.testing.assert_array_equal(hist_out.numpy(), [0.0, 2.0, 2.0])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: framework.histogram(_t([1.0]), 0), r"torch.histogram\(\): bins must be > 0, but got 0"),
        (
            lambda: framework.histogram(_t([1.0]), 3, range=(2.0, 1.0)),
            "min should not exceed max, but got min 2 max 1",
        ),
        (
            lambda: framework.histogram(_t([1.0, math.nan]), 3),
            r"dimension 0's range \[nan, nan\] is not finite",
        ),
        (
            lambda: framework.histogram(_t([1.0]), 3, range=(1.0, 2.0, 3.0)),
            "range should have 2 elements, but got 3",
        ),
        (
            lambda: framework.histogram(_t([1.0]), framework.tensor([0.0, 1.0])),
            "the same dtype, but got input with dtype double and bins for dimension 0 with dtype float",
        ),
        (lambda: framework.histogram(_t([1.0]), _t([[0.0, 1.0]])), "bins tensor should have one dimension"),
        (lambda: framework.histogram(_t([1.0, 2.0]), 2, weight=_t([1.0])), "weight with shape \\[1\\]"),
    ],
)
def test_histogram_errors(call: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        call()


def test_histogram_dtypes() -> None:
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        framework.histogram(framework.tensor([1, 2]), 3)
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        framework.histogram(framework.tensor([1, 2]), framework.tensor([1, 2]))
    half = framework.histogram(framework.tensor([1.0, 2.0]).half(), framework.tensor([0.0, 1.5, 3.0]).half())
    assert half.hist.dtype is framework.float16


def test_histogramdd_matches_numpy() -> None:
    rng = np.random.default_rng(5)
    points = rng.uniform(0.0, 1.0, (4, 6, 2))
    w = rng.uniform(0.0, 1.0, (4, 6))
    hist, edges = framework.histogramdd(_t(points), [2, 3], weight=_t(w), density=True)
    expected, expected_edges = np.histogramdd(
        points.reshape(-1, 2), [2, 3], weights=w.reshape(-1), density=True
    )
    np.testing.assert_allclose(hist.numpy(), expected, rtol=1e-12)
    for e, x in zip(edges, expected_edges, strict=True):
        np.testing.assert_allclose(e.numpy(), x, rtol=1e-14)
    hist, _ = framework.histogramdd(_t(points), 3, range=[0.0, 1.0, 0.2, 0.8])
    expected, _ = np.histogramdd(points.reshape(-1, 2), 3, range=[(0.0, 1.0), (0.2, 0.8)])
    np.testing.assert_array_equal(hist.numpy(), expected)
    given = [_t([0.0, 0.5, 1.0]), _t([0.0, 0.2, 1.0])]
    hist, edges = framework.histogramdd(_t(points), given)
    expected, _ = np.histogramdd(points.reshape(-1, 2), [[0.0, 0.5, 1.0], [0.0, 0.2, 1.0]])
    np.testing.assert_array_equal(hist.numpy(), expected)
    with pytest.raises(RuntimeError, match="The size of bins must be equal to the innermost dimension"):
        framework.histogramdd(_t(points), [2, 3, 4])
    with pytest.raises(RuntimeError, match="input tensor should have at least 2 dimensions"):
        framework.histogramdd(_t([1.0, 2.0]), [2])
