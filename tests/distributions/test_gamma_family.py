"""The gamma-family samplers (`_standard_gamma`, `_sample_dirichlet`, `binomial`), the reparameterized
gradients (`_standard_gamma_grad`, `_dirichlet_grad`) and the distributions built on them (Gamma,
Chi2, Beta, Dirichlet, StudentT, FisherSnedecor, Poisson, Binomial, NegativeBinomial, Kumaraswamy,
InverseGamma).

Without torch: samples against analytic distribution functions (Kolmogorov-Smirnov statistics and
moments, fixed seeds), gradients against finite differences of the CDF, log_prob/entropy/moments
against closed forms. With torch: the same seed draws the same numbers, and every property, KL
divergence and rsample gradient agrees."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import pytest

import framework
import framework.distributions as D


def _ks(sample: np.ndarray, cdf: Any) -> float:
    """The Kolmogorov-Smirnov statistic of `sample` against the vectorized `cdf`."""
    x = np.sort(sample)
    f = cdf(x)
    n = x.size
    return float(max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max()))


_ERF = np.vectorize(math.erf)
_KS_LIMIT = 1.63 / math.sqrt(4000)  # the 1% critical value for 4000 draws


@pytest.mark.parametrize(
    ("alpha", "cdf"),
    [
        (0.5, lambda x: _ERF(np.sqrt(x))),  # the boosted path (alpha < 1): chi-squared, one dof
        (3.0, lambda x: 1 - np.exp(-x) * (1 + x + x * x / 2)),
    ],
)
@pytest.mark.parametrize("dtype", [framework.float32, framework.float64])
def test_standard_gamma_distribution(alpha: float, cdf: Any, dtype: framework.dtype) -> None:
    framework.manual_seed(0)
    draws = framework._standard_gamma(framework.full((4000,), alpha, dtype=dtype))
    assert draws.dtype == dtype and draws.shape == (4000,)
    assert _ks(draws.numpy().astype(np.float64), cdf) < _KS_LIMIT


def test_standard_gamma_edges_and_generator() -> None:
    tiny = np.finfo(np.float32).tiny
    out = framework._standard_gamma(framework.tensor([0.0, math.inf, math.nan]))
    np.testing.assert_array_equal(out.numpy(), [tiny, math.inf, tiny])
    g1, g2 = framework.Generator().manual_seed(5), framework.Generator().manual_seed(5)
    alpha = framework.tensor([[0.3, 2.0], [7.0, 1.0]], dtype=framework.float64)
    first = framework._standard_gamma(alpha, g1)
    np.testing.assert_array_equal(first.numpy(), framework._standard_gamma(alpha, g2).numpy())
    # the generators stay in step afterwards (the exact number of draws was consumed)
    np.testing.assert_array_equal(
        framework.rand(3, generator=g1).numpy(), framework.rand(3, generator=g2).numpy()
    )
    meta = framework._standard_gamma(framework.ones(2, 3, device="meta"))
    assert meta.device.type == "meta" and meta.shape == (2, 3)


def test_sample_dirichlet_distribution() -> None:
    framework.manual_seed(1)
    x = framework._sample_dirichlet(framework.ones(4000, 3, dtype=framework.float64)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    # each coordinate of Dirichlet(1, 1, 1) is Beta(1, 2)
    assert _ks(x[:, 0], lambda v: 1 - (1 - v) ** 2) < _KS_LIMIT
    edge = framework._sample_dirichlet(framework.tensor([[1e-3, 1e-3], [5.0, 5.0]])).numpy()
    assert (edge > 0).all() and (edge < 1).all()


@pytest.mark.parametrize(("count", "prob"), [(8.0, 0.3), (6.0, 0.85), (200.0, 0.35), (300.0, 0.9)])
def test_binomial_moments(count: float, prob: float) -> None:
    """Inversion (count * min(p, 1 - p) < 10) and BTRS (otherwise), for p on either side of 1/2."""
    framework.manual_seed(2)
    n = 4000
    draws = framework.binomial(framework.full((n,), count), framework.full((n,), prob)).numpy()
    assert draws.dtype == np.float32 and (draws == np.round(draws)).all()
    assert draws.min() >= 0 and draws.max() <= count
    mean, var = count * prob, count * prob * (1 - prob)
    assert abs(draws.mean() - mean) < 4 * math.sqrt(var / n)
    assert abs(draws.var() / var - 1) < 0.1


def test_binomial_edges_and_errors() -> None:
    out = framework.binomial(
        framework.tensor([0.0, 5.0, 5.0, 4.0]), framework.tensor([0.5, 0.0, 1.0, math.nan])
    )
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 5.0, math.nan])
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count, got: Long"):
        framework.binomial(framework.ones(2, dtype=framework.int64), framework.ones(2))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        framework.binomial(framework.ones(2), framework.ones(2, dtype=framework.float64))
    with pytest.raises(NotImplementedError, match="\"binomial_cpu\" not implemented for 'Half'"):
        framework.binomial(
            framework.ones(2, dtype=framework.float16), framework.ones(2, dtype=framework.float16)
        )
    with pytest.warns(UserWarning, match="was resized since it had shape \\[2, 1\\]"):
        wide = framework.binomial(framework.ones(2, 1), framework.full((3,), 0.5))
    assert wide.shape == (2, 3)


def test_sampler_errors() -> None:
    with pytest.raises(NotImplementedError, match="\"gamma_cpu\" not implemented for 'Long'"):
        framework._standard_gamma(framework.ones(2, dtype=framework.int64))
    with pytest.raises(NotImplementedError, match="\"dirichlet\" not implemented for 'Half'"):
        framework._sample_dirichlet(framework.ones(2, dtype=framework.float16))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        framework.ops.aten._standard_gamma.out(
            framework.ones(2), out=framework.zeros(2, dtype=framework.float64)
        )
    with pytest.raises(
        RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"
    ):
        framework._standard_gamma_grad(framework.ones(2), framework.ones(3))


def _gamma_cdf_alpha_derivative(alpha: np.ndarray, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    def cdf(a: np.ndarray) -> np.ndarray:
        return framework.special.gammainc(framework.tensor(a), framework.tensor(x)).numpy()

    return (cdf(alpha + h) - cdf(alpha - h)) / (2 * h)


def test_standard_gamma_grad_is_the_implicit_gradient() -> None:
    """-(dF/dalpha) / pdf at (alpha, x), F the regularized incomplete gamma function, in each of the
    three regimes (x < 0.8, alpha > 8, the rational approximation)."""
    alpha = np.array([0.3, 2.5, 1.5, 12.0, 20.0, 4.0])
    x = np.array([0.1, 0.5, 2.0, 12.5, 15.0, 6.0])
    pdf = np.exp((alpha - 1) * np.log(x) - x - np.vectorize(math.lgamma)(alpha))
    expected = -_gamma_cdf_alpha_derivative(alpha, x) / pdf
    ours = framework._standard_gamma_grad(framework.tensor(alpha), framework.tensor(x)).numpy()
    np.testing.assert_allclose(ours, expected, rtol=2e-3)


def _moments(name: str) -> list[tuple[Any, float, float]]:
    """(distribution, mean, variance) with closed forms."""
    return {
        "Gamma": [(D.Gamma(3.0, 2.0), 1.5, 0.75)],
        "Chi2": [(D.Chi2(4.0), 4.0, 8.0)],
        "Beta": [(D.Beta(2.0, 3.0), 0.4, 0.04)],
        "StudentT": [(D.StudentT(5.0, 1.0, 2.0), 1.0, 4 * 5 / 3)],
        "FisherSnedecor": [(D.FisherSnedecor(6.0, 10.0), 10 / 8, 2 * 100 * 14 / (6 * 64 * 6))],
        "Poisson": [(D.Poisson(3.5), 3.5, 3.5)],
        "Binomial": [(D.Binomial(10, probs=0.3), 3.0, 2.1)],
        "NegativeBinomial": [(D.NegativeBinomial(4.0, probs=0.4), 4 * 0.4 / 0.6, 4 * 0.4 / 0.36)],
        "InverseGamma": [(D.InverseGamma(5.0, 2.0), 0.5, 4 / (16 * 3))],
        "Kumaraswamy": [
            (D.Kumaraswamy(2.0, 3.0), 3 * math.gamma(1.5) * math.gamma(3) / math.gamma(4.5), math.nan)
        ],
    }[name]


@pytest.mark.parametrize(
    "name",
    [
        "Gamma",
        "Chi2",
        "Beta",
        "StudentT",
        "FisherSnedecor",
        "Poisson",
        "Binomial",
        "NegativeBinomial",
        "InverseGamma",
        "Kumaraswamy",
    ],
)
def test_moments_and_sample_statistics(name: str) -> None:
    for dist, mean, var in _moments(name):
        assert float(dist.mean) == pytest.approx(mean, rel=1e-6)
        if not math.isnan(var):
            assert float(dist.variance) == pytest.approx(var, rel=1e-6)
        framework.manual_seed(3)
        draws = dist.sample((4000,)).numpy().astype(np.float64)
        sd = math.sqrt(float(dist.variance))
        assert abs(draws.mean() - mean) < 5 * sd / math.sqrt(4000)


def test_dirichlet_moments_and_simplex() -> None:
    conc = framework.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]], dtype=framework.float64)
    d = D.Dirichlet(conc)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    c = conc.numpy()
    np.testing.assert_allclose(d.mean.numpy(), c / c.sum(-1, keepdims=True))
    a0 = c.sum(-1, keepdims=True)
    np.testing.assert_allclose(d.variance.numpy(), c * (a0 - c) / (a0**2 * (a0 + 1)))
    np.testing.assert_allclose(d.mode.numpy()[0], [0.0, 1 / 3, 2 / 3])
    framework.manual_seed(4)
    draws = d.sample((3000,)).numpy()
    np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(draws.mean(0), d.mean.numpy(), atol=0.02)
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        D.Dirichlet(framework.tensor(1.0))


def test_log_prob_and_entropy_closed_forms() -> None:
    lg = math.lgamma
    g = D.Gamma(
        framework.tensor(3.0, dtype=framework.float64), framework.tensor(2.0, dtype=framework.float64)
    )
    assert float(g.log_prob(framework.tensor(1.5, dtype=framework.float64))) == pytest.approx(
        3 * math.log(2) + 2 * math.log(1.5) - 3.0 - lg(3), rel=1e-12
    )
    assert float(g.cdf(framework.tensor(1.0, dtype=framework.float64))) == pytest.approx(
        1 - math.exp(-2) * (1 + 2 + 2), rel=1e-10
    )
    b = D.Beta(2.0, 3.0)
    assert float(b.log_prob(framework.tensor(0.25))) == pytest.approx(
        math.log(0.25) + 2 * math.log(0.75) + lg(5) - lg(2) - lg(3), rel=1e-6
    )
    p = D.Poisson(framework.tensor([2.0]))
    assert float(p.log_prob(framework.tensor([3.0]))) == pytest.approx(3 * math.log(2) - 2 - lg(4), rel=1e-6)
    bi = D.Binomial(4, probs=framework.tensor([0.25]))
    pmf = [math.comb(4, k) * 0.25**k * 0.75 ** (4 - k) for k in range(5)]
    np.testing.assert_allclose(
        bi.log_prob(framework.arange(5.0).unsqueeze(-1)).numpy()[:, 0], np.log(pmf), rtol=1e-5
    )
    assert float(bi.entropy()) == pytest.approx(-sum(q * math.log(q) for q in pmf), rel=1e-5)
    assert bi.enumerate_support().shape == (5, 1)
    e = D.Exponential(2.0)
    assert float(D.Gamma(1.0, 2.0).entropy()) == pytest.approx(float(e.entropy()), rel=1e-6)
    assert float(D.kl_divergence(D.Gamma(1.0, 2.0), D.Gamma(1.0, 3.0))) == pytest.approx(
        float(D.kl_divergence(e, D.Exponential(3.0))), rel=1e-6
    )
    nb = D.NegativeBinomial(framework.tensor(0.0), probs=framework.tensor(0.5))
    assert float(nb.log_prob(framework.tensor(0.0))) == 0.0


def test_expand_and_validation() -> None:
    for d in (
        D.Gamma(framework.ones(3), 2.0),
        D.Beta(framework.ones(3), 2.0),
        D.StudentT(framework.ones(3)),
        D.FisherSnedecor(framework.ones(3), 3.0),
        D.Binomial(5, logits=framework.zeros(3)),
        D.NegativeBinomial(2.0, logits=framework.zeros(3)),
        D.InverseGamma(framework.ones(3), 1.0),
        D.Kumaraswamy(framework.ones(3), 1.0),
        D.Chi2(framework.ones(3)),
        D.Poisson(framework.ones(3)),
    ):
        e = d.expand((2, 3))
        assert type(e) is type(d) and e.batch_shape == (2, 3) and e.sample().shape == (2, 3)
    dirichlet = D.Dirichlet(framework.ones(3)).expand((4,))
    assert dirichlet.batch_shape == (4,) and dirichlet.sample().shape == (4, 3)
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        D.Gamma(framework.tensor([-1.0]), 1.0)
    with pytest.raises(
        ValueError, match=re.escape("Either `probs` or `logits` must be specified, but not both.")
    ):
        D.Binomial(3, probs=0.5, logits=0.0)
    with pytest.raises(
        NotImplementedError, match=re.escape("Inhomogeneous total count not supported by `entropy`.")
    ):
        D.Binomial(framework.tensor([2.0, 3.0]), probs=0.5).entropy()


# ---- live comparisons with PyTorch ---------------------------------------------------------------

CASES: dict[str, tuple[tuple[list[Any], ...], list[Any]]] = {
    "Gamma": (([0.5, 1.5, 4.0], [2.0, 0.7, 1.0]), [0.3, 1.0, 2.5]),
    "Chi2": (([0.5, 1.5, 4.0],), [0.3, 1.0, 2.5]),
    "Beta": (([0.5, 1.5, 4.0], [2.0, 0.7, 1.0]), [0.3, 0.5, 0.9]),
    "Dirichlet": (([[0.5, 1.5, 4.0], [1.0, 2.0, 3.0]],), [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
    "StudentT": (([0.8, 2.5, 5.0], [0.0, 1.0, -1.0], [1.0, 2.0, 0.5]), [0.3, -1.0, 2.5]),
    "FisherSnedecor": (([1.5, 3.0, 6.0], [1.5, 3.0, 7.0]), [0.3, 1.0, 2.5]),
    "Poisson": (([0.5, 3.0, 12.0],), [0.0, 2.0, 11.0]),
    "Binomial": (([5.0, 5.0, 5.0], [0.2, 0.5, 0.9]), [0.0, 3.0, 5.0]),
    "NegativeBinomial": (([5.0, 2.0, 0.5], [0.2, 0.5, 0.9]), [0.0, 3.0, 5.0]),
    "Kumaraswamy": (([0.5, 1.5, 4.0], [2.0, 0.7, 1.0]), [0.3, 0.5, 0.9]),
    "InverseGamma": (([0.5, 1.5, 4.0], [2.0, 0.7, 1.0]), [0.3, 1.0, 2.5]),
}
# Multi-element Poisson and binomial draws agree with PyTorch's in distribution only.
EXACT_SAMPLES = set(CASES) - {"Poisson", "Binomial", "NegativeBinomial"}


def _pair(name: str, dtype: str, grad: bool = False) -> tuple[Any, Any, list[Any], list[Any]]:
    torch = pytest.importorskip("torch")
    params, _ = CASES[name]
    tp = [torch.tensor(p, dtype=getattr(torch, dtype), requires_grad=grad) for p in params]
    fp = [framework.tensor(p, dtype=getattr(framework, dtype), requires_grad=grad) for p in params]
    return getattr(torch.distributions, name)(*tp), getattr(D, name)(*fp), tp, fp


def _result(get: Any, dist: Any, value: Any) -> Any:
    """`get(dist, value)` as an array, or NotImplementedError when the distribution lacks it."""
    try:
        result = get(dist, value)
    except NotImplementedError:
        return NotImplementedError
    return result.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    td, fd, _, _ = _pair(name, dtype)
    assert (fd.batch_shape, fd.event_shape, fd.has_rsample) == (
        td.batch_shape,
        td.event_shape,
        td.has_rsample,
    )
    tol = {"rtol": 2e-6, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-12}
    value = CASES[name][1]
    tv, fv = (
        torch.tensor(value, dtype=getattr(torch, dtype)),
        framework.tensor(value, dtype=getattr(framework, dtype)),
    )
    checks = {
        "mean": lambda d, v: d.mean,
        "mode": lambda d, v: d.mode,
        "variance": lambda d, v: d.variance,
        "log_prob": lambda d, v: d.log_prob(v),
        "entropy": lambda d, v: d.entropy(),
        "cdf": lambda d, v: d.cdf(v),
    }
    for attr, get in checks.items():
        expected, ours = _result(get, td, tv), _result(get, fd, fv)
        if expected is NotImplementedError:
            assert ours is NotImplementedError, attr
        else:
            np.testing.assert_allclose(ours, expected, equal_nan=True, err_msg=attr, **tol)
    torch.manual_seed(3)
    framework.manual_seed(3)
    t_sample, f_sample = td.sample((4,)).numpy(), fd.sample((4,)).numpy()
    assert f_sample.dtype == t_sample.dtype and f_sample.shape == t_sample.shape
    if name in EXACT_SAMPLES:
        np.testing.assert_array_equal(f_sample, t_sample)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(n for n in CASES if n in EXACT_SAMPLES))
def test_rsample_gradients_match_torch(name: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    td, fd, tp, fp = _pair(name, dtype, grad=True)
    torch.manual_seed(4)
    framework.manual_seed(4)
    t_sample, f_sample = td.rsample((3,)), fd.rsample((3,))
    assert f_sample.grad_fn.name() == t_sample.grad_fn.name()
    np.testing.assert_array_equal(f_sample.detach().numpy(), t_sample.detach().numpy())
    t_grads = torch.autograd.grad(t_sample.sum(), tp)
    f_grads = framework.autograd.grad(f_sample.sum(), fp)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for tg, fg in zip(t_grads, f_grads, strict=True):
        np.testing.assert_allclose(fg.numpy(), tg.numpy(), rtol=rtol, atol=1e-7)


def test_samplers_draw_torchs_numbers() -> None:
    torch = pytest.importorskip("torch")
    alpha = np.linspace(0.02, 6.0, 400)
    for dtype in ("float32", "float64"):
        torch.manual_seed(7)
        framework.manual_seed(7)
        t = torch._standard_gamma(torch.tensor(alpha, dtype=getattr(torch, dtype))).numpy()
        f = framework._standard_gamma(framework.tensor(alpha, dtype=getattr(framework, dtype))).numpy()
        np.testing.assert_array_equal(f, t)
        d = torch._sample_dirichlet(torch.tensor(alpha.reshape(100, 4), dtype=getattr(torch, dtype))).numpy()
        e = framework._sample_dirichlet(
            framework.tensor(alpha.reshape(100, 4), dtype=getattr(framework, dtype))
        )
        np.testing.assert_array_equal(e.numpy(), d)
        for count, prob in [(7.0, 0.3), (500.0, 0.6), (40.0, 0.97)]:
            b = torch.binomial(torch.tensor([count]), torch.tensor([prob]))
            np.testing.assert_array_equal(
                framework.binomial(framework.tensor([count]), framework.tensor([prob])).numpy(), b
            )
        np.testing.assert_array_equal(framework.randn(5).numpy(), torch.randn(5).numpy())


def test_gradient_kernels_match_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.01, 20, 600)
    beta = rng.uniform(0.01, 20, 600)
    x = rng.gamma(alpha)
    b = rng.beta(alpha, beta)
    for dtype in ("float32", "float64"):
        a_, x_, b_, t_ = (v.astype(dtype) for v in (alpha, x, b, alpha + beta))
        expected = torch._standard_gamma_grad(torch.tensor(a_), torch.tensor(x_)).numpy()
        np.testing.assert_array_equal(
            framework._standard_gamma_grad(framework.tensor(a_), framework.tensor(x_)).numpy(), expected
        )
        expected = torch._dirichlet_grad(torch.tensor(b_), torch.tensor(a_), torch.tensor(t_)).numpy()
        ours = framework.ops.aten._dirichlet_grad(
            framework.tensor(b_), framework.tensor(a_), framework.tensor(t_)
        )
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-5 if dtype == "float32" else 0, atol=0)


KL_PAIRS = [
    ("Beta", (2.0, 3.0), "Beta", (1.0, 4.0)),
    ("Gamma", (2.0, 3.0), "Gamma", (1.0, 4.0)),
    ("Poisson", (2.0,), "Poisson", (3.0,)),
    ("Binomial", (5.0, 0.3), "Binomial", (5.0, 0.6)),
    ("Binomial", (6.0, 0.3), "Binomial", (5.0, 0.6)),
    ("Bernoulli", (0.3,), "Poisson", (2.0,)),
    ("Beta", (2.0, 3.0), "Exponential", (1.5,)),
    ("Beta", (2.0, 3.0), "Gamma", (1.5, 2.0)),
    ("Beta", (2.0, 3.0), "Normal", (0.5, 2.0)),
    ("Beta", (2.0, 3.0), "Uniform", (-0.5, 2.0)),
    ("Beta", (2.0, 3.0), "Uniform", (0.5, 2.0)),
    ("Exponential", (2.0,), "Gamma", (1.5, 2.0)),
    ("Gamma", (2.0, 3.0), "Exponential", (1.5,)),
    ("Gamma", (2.0, 3.0), "Gumbel", (1.5, 2.0)),
    ("Gamma", (2.0, 3.0), "Normal", (1.5, 2.0)),
    ("Pareto", (2.0, 3.0), "Gamma", (1.5, 2.0)),
    ("Uniform", (0.2, 0.7), "Beta", (1.5, 2.0)),
    ("Uniform", (0.2, 0.7), "Gamma", (1.5, 2.0)),
    ("Gamma", (2.0, 3.0), "Beta", (1.5, 2.0)),
    ("Normal", (2.0, 3.0), "Gamma", (1.5, 2.0)),
    ("Poisson", (2.0,), "Binomial", (5.0, 0.5)),
    ("Pareto", (2.0, 3.0), "Beta", (1.5, 2.0)),
    ("Chi2", (2.0,), "Chi2", (3.0,)),
    ("InverseGamma", (2.0, 1.0), "InverseGamma", (3.0, 1.0)),
]


@pytest.mark.parametrize(("p_name", "p_args", "q_name", "q_args"), KL_PAIRS)
def test_kl_divergence_matches_torch(
    p_name: str, p_args: tuple[float, ...], q_name: str, q_args: tuple[float, ...]
) -> None:
    torch = pytest.importorskip("torch")

    def make(lib: Any, name: str, args: tuple[float, ...], grad: bool) -> tuple[Any, list[Any]]:
        params = [lib.tensor([a], dtype=lib.float64, requires_grad=grad) for a in args]
        return getattr(lib.distributions, name)(*params), params

    tp, tpp = make(torch, p_name, p_args, True)
    tq, tqp = make(torch, q_name, q_args, True)
    fp, fpp = make(framework, p_name, p_args, True)
    fq, fqp = make(framework, q_name, q_args, True)
    t_kl, f_kl = torch.distributions.kl_divergence(tp, tq), D.kl_divergence(fp, fq)
    np.testing.assert_allclose(f_kl.detach().numpy(), t_kl.detach().numpy(), rtol=1e-12)
    if t_kl.requires_grad and np.isfinite(t_kl.detach().numpy()).all():
        t_grads = torch.autograd.grad(t_kl.sum(), tpp + tqp, allow_unused=True)
        f_grads = framework.autograd.grad(f_kl.sum(), fpp + fqp, allow_unused=True)
        for tg, fg in zip(t_grads, f_grads, strict=True):
            assert (tg is None) == (fg is None)
            if tg is not None:
                np.testing.assert_allclose(fg.numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


def test_binomial_kl_refuses_larger_q_count() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, q = D.Binomial(3, probs=0.5), D.Binomial(5, probs=0.5)
    with pytest.raises(NotImplementedError, match=r"q\.total_count > p\.total_count is not implemented"):
        D.kl_divergence(p, q)


def test_lkj_cholesky() -> None:
    d = D.LKJCholesky(2, framework.tensor([1.0, 3.0], dtype=framework.float64))
    assert d.batch_shape == (2,) and d.event_shape == (2, 2)
    framework.manual_seed(5)
    draws = d.sample((4000,))
    assert bool(D.constraints.corr_cholesky.check(draws).all())
    r = draws.numpy()[..., 1, 0]
    # the correlation of LKJ(2, eta) has density proportional to (1 - r^2)^(eta - 1): E[r^2] = 1 / (2 eta + 1)
    np.testing.assert_allclose((r**2).mean(0), [1 / 3, 1 / 7], rtol=0.05)
    assert d.expand((3, 2)).sample().shape == (3, 2, 2, 2)
    with pytest.raises(
        ValueError, match=re.escape("Expected dim to be an integer greater than or equal to 2. Found dim=1.")
    ):
        D.LKJCholesky(1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lkj_cholesky_matches_torch(dtype: str) -> None:
    torch = pytest.importorskip("torch")
    conc = [0.5, 2.0]
    td = torch.distributions.LKJCholesky(4, torch.tensor(conc, dtype=getattr(torch, dtype)))
    fd = D.LKJCholesky(4, framework.tensor(conc, dtype=getattr(framework, dtype)))
    torch.manual_seed(6)
    framework.manual_seed(6)
    t_sample, f_sample = td.sample((3,)), fd.sample((3,))
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-14}
    np.testing.assert_allclose(f_sample.numpy(), t_sample.numpy(), **tol)
    np.testing.assert_allclose(fd.log_prob(f_sample).numpy(), td.log_prob(t_sample).numpy(), **tol)
