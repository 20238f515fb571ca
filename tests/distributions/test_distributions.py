"""framework.distributions against closed forms computed with NumPy: densities, moments,
entropies, KL divergences, transforms, shapes, validation and gradients through rsample."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import framework
from framework import distributions as D
from framework.distributions import constraints, kl, transforms

RNG = np.random.default_rng(7)


def t(x: object) -> framework.Tensor:
    return framework.tensor(np.asarray(x, dtype=np.float64))


def test_normal_closed_forms() -> None:
    loc, scale, x = RNG.normal(size=3), RNG.uniform(0.5, 2, 3), RNG.normal(size=(2, 3))
    d = D.Normal(t(loc), t(scale))
    expected = -((x - loc) ** 2) / (2 * scale**2) - np.log(scale) - 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), expected, rtol=1e-12)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(
        d.cdf(t(x)).numpy(), 0.5 * (1 + erf((x - loc) / (scale * np.sqrt(2)))), rtol=1e-12
    )
    np.testing.assert_allclose(d.icdf(d.cdf(t(x))).numpy(), np.broadcast_to(x, (2, 3)), rtol=1e-9)
    np.testing.assert_allclose(d.entropy().numpy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log(scale), rtol=1e-12)
    # ExponentialFamily's Bregman-divergence entropy gives the same value.
    np.testing.assert_allclose(
        D.ExponentialFamily.entropy(d).detach().numpy(), d.entropy().numpy(), rtol=1e-12
    )
    assert d.sample((4, 5)).shape == (4, 5, 3)
    assert D.Normal(0.0, 1.0).sample().shape == ()
    assert D.Normal(0.0, 1.0).batch_shape == framework.Size([])


def test_rsample_gradients_flow() -> None:
    loc = framework.tensor([0.5, -1.0], requires_grad=True)
    scale = framework.tensor([1.0, 2.0], requires_grad=True)
    framework.manual_seed(0)
    sample = D.Normal(loc, scale).rsample((3,))
    framework.manual_seed(0)
    eps = framework.randn(3, 2)
    np.testing.assert_allclose(sample.detach().numpy(), (loc + eps * scale).detach().numpy())
    sample.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0).numpy(), rtol=1e-6)
    assert not D.Normal(loc, scale).sample().requires_grad


def test_categorical_and_one_hot() -> None:
    probs = RNG.uniform(0.1, 1, (2, 4))
    d = D.Categorical(probs=t(probs))
    p = probs / probs.sum(-1, keepdims=True)
    np.testing.assert_allclose(d.probs.numpy(), p)
    np.testing.assert_allclose(d.logits.numpy(), np.log(p), rtol=1e-12)
    value = np.array([[0, 3], [2, 1], [1, 1]])
    np.testing.assert_allclose(
        d.log_prob(framework.tensor(value)).numpy(), np.log(p[[0, 1], value]), rtol=1e-12
    )
    np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(p)).sum(-1), rtol=1e-12)
    samples = d.sample((1000,))
    assert samples.shape == (1000, 2) and samples.dtype == framework.int64
    np.testing.assert_allclose(np.bincount(samples[:, 0].numpy(), minlength=4) / 1000, p[0], atol=0.06)
    oh = D.OneHotCategorical(logits=t(np.log(probs)))
    assert oh.sample((5,)).shape == (5, 2, 4) and oh.event_shape == (4,)
    np.testing.assert_allclose(
        oh.log_prob(t(np.eye(4)[[3, 0]])).numpy(), np.log(p[[0, 1], [3, 0]]), rtol=1e-12
    )
    assert d.enumerate_support().shape == (4, 2)
    assert d.enumerate_support(expand=False).shape == (4, 1)


@pytest.mark.parametrize(
    ("dist", "mean", "variance"),
    [
        (lambda: D.Exponential(t([2.0])), [0.5], [0.25]),
        (lambda: D.Laplace(t([1.0]), t([2.0])), [1.0], [8.0]),
        (lambda: D.Uniform(t([1.0]), t([4.0])), [2.5], [0.75]),
        (lambda: D.Bernoulli(probs=t([0.25])), [0.25], [0.1875]),
        (lambda: D.Geometric(probs=t([0.25])), [3.0], [12.0]),
        (lambda: D.Gumbel(t([1.0]), t([2.0])), [1 + 2 * np.euler_gamma], [np.pi**2 / 6 * 4]),
        (lambda: D.HalfNormal(t([2.0])), [2 * np.sqrt(2 / np.pi)], [4 * (1 - 2 / np.pi)]),
        (lambda: D.LogNormal(t([0.5]), t([0.5])), [np.exp(0.625)], [(np.exp(0.25) - 1) * np.exp(1.25)]),
    ],
)
def test_moments(dist: object, mean: list[float], variance: list[float]) -> None:
    d = dist()  # type: ignore[operator]
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), variance, rtol=1e-12)
    np.testing.assert_allclose(d.stddev.numpy(), np.sqrt(variance), rtol=1e-12)
    framework.manual_seed(0)
    samples = d.sample((20000,)).numpy()
    np.testing.assert_allclose(samples.mean(0), mean, rtol=0.06, atol=0.02)


def test_multivariate_normal_parameterizations_agree() -> None:
    a = RNG.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    loc, x = RNG.normal(size=3), RNG.normal(size=(4, 3))
    diff = x - loc
    expected = -0.5 * (3 * np.log(2 * np.pi) + np.log(np.linalg.det(cov))) - 0.5 * np.einsum(
        "ni,ij,nj->n", diff, np.linalg.inv(cov), diff
    )
    dists = [
        D.MultivariateNormal(t(loc), covariance_matrix=t(cov)),
        D.MultivariateNormal(t(loc), precision_matrix=t(np.linalg.inv(cov))),
        D.MultivariateNormal(t(loc), scale_tril=t(np.linalg.cholesky(cov))),
    ]
    for d in dists:
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), expected, rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10)
        np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(
            d.entropy().numpy(), 1.5 * (1 + np.log(2 * np.pi)) + 0.5 * np.log(np.linalg.det(cov))
        )
    lowrank = D.LowRankMultivariateNormal(t(loc), t(a), t(np.full(3, 3.0)))
    np.testing.assert_allclose(lowrank.log_prob(t(x)).numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(lowrank.scale_tril.numpy(), np.linalg.cholesky(cov), rtol=1e-10)
    batched = D.MultivariateNormal(t(np.zeros((2, 1, 3))), covariance_matrix=t(np.stack([cov, 2 * cov])))
    assert (batched.batch_shape, batched.event_shape) == ((2, 2), (3,))
    assert batched.rsample((5,)).shape == (5, 2, 2, 3)


def test_kl_divergence_closed_forms() -> None:
    p, q = D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), D.Normal(t([1.0, 1.0]), t([2.0, 0.5]))
    ratio = np.array([0.5, 4.0]) ** 2
    expected = 0.5 * (ratio + np.array([0.25, 0.0]) - 1 - np.log(ratio))
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), expected, rtol=1e-12)
    mp = D.MultivariateNormal(t([0.0, 0.0]), t(np.eye(2)))
    mq = D.MultivariateNormal(t([1.0, 0.0]), t(2 * np.eye(2)))
    np.testing.assert_allclose(
        D.kl_divergence(mp, mq).numpy(), 0.5 * (1 + 0.5 - 2 + 2 * np.log(2)), rtol=1e-12
    )
    np.testing.assert_allclose(
        D.kl_divergence(D.Independent(p, 1), D.Independent(q, 1)).numpy(), expected.sum(), rtol=1e-12
    )
    assert D.kl_divergence(D.Uniform(t([0.0]), t([2.0])), D.Uniform(t([0.5]), t([1.0]))).item() == math.inf
    assert D.kl_divergence(p, D.Exponential(t([1.0, 1.0]))).tolist() == [math.inf, math.inf]
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Cauchy"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Laplace(0.0, 1.0))


def test_register_kl_picks_most_specific() -> None:
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p: D.Distribution, q: D.Distribution) -> framework.Tensor:
        return framework.tensor(42.0)

    try:
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
        assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0
    finally:
        del kl._KL_REGISTRY[MyNormal, D.Normal]
        kl._KL_MEMOIZE.clear()


@pytest.mark.parametrize(
    "transform",
    [
        transforms.ExpTransform(),
        transforms.SigmoidTransform(),
        transforms.TanhTransform(),
        transforms.SoftplusTransform(),
        transforms.AffineTransform(1.0, -3.0),
        transforms.PowerTransform(framework.tensor(2.5, dtype=framework.float64)),
        transforms.ComposeTransform([transforms.AffineTransform(0.5, 2.0), transforms.SigmoidTransform()]),
    ],
)
def test_transform_inverse_and_jacobian(transform: transforms.Transform) -> None:
    x = RNG.uniform(0.2, 1.5, 5)
    y = transform(t(x))
    np.testing.assert_allclose(transform.inv(y).numpy(), x, rtol=1e-9)
    h = 1e-6  # central differences of the forward map
    slope = (transform(t(x + h)).numpy() - transform(t(x - h)).numpy()) / (2 * h)
    np.testing.assert_allclose(
        transform.log_abs_det_jacobian(t(x), y).numpy(), np.log(np.abs(slope)), rtol=1e-6
    )
    np.testing.assert_allclose(
        transform.inv.log_abs_det_jacobian(y, t(x)).numpy(), -np.log(np.abs(slope)), rtol=1e-6
    )


def test_transforms_structure() -> None:
    exp = transforms.ExpTransform()
    assert (
        exp.inv.inv is exp and exp == transforms.ExpTransform() and exp.inv == transforms.ExpTransform().inv
    )
    cached = transforms.ExpTransform(cache_size=1)
    x = t([0.5])
    y = cached(x)
    assert cached(x) is y and cached.inv(y) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        transforms.ExpTransform(cache_size=2)
    simplex = transforms.StickBreakingTransform()(t(RNG.normal(size=(2, 3))))
    assert simplex.shape == (2, 4)
    np.testing.assert_allclose(simplex.sum(-1).numpy(), [1.0, 1.0])
    softmax = transforms.SoftmaxTransform()(t([[0.0, np.log(3.0)]]))
    np.testing.assert_allclose(softmax.numpy(), [[0.25, 0.75]])
    assert transforms.identity_transform(x) is x
    assert transforms.ComposeTransform([exp, transforms.SoftmaxTransform()]).domain.event_dim == 1
    with pytest.raises(TypeError, match="unhashable"):
        hash(exp)


def test_transformed_distribution_matches_change_of_variables() -> None:
    base = D.Normal(t([0.0, 1.0]), t([1.0, 0.5]))
    d = D.TransformedDistribution(base, [transforms.AffineTransform(2.0, 3.0), transforms.ExpTransform()])
    y = t([1.5, 20.0])
    x = (np.log(y.numpy()) - 2.0) / 3.0
    expected = base.log_prob(t(x)).numpy() - np.log(3.0) - np.log(y.numpy())
    np.testing.assert_allclose(d.log_prob(y).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(d.cdf(y).numpy(), base.cdf(t(x)).numpy(), rtol=1e-12)
    decreasing = D.TransformedDistribution(base, transforms.AffineTransform(0.0, -1.0))
    np.testing.assert_allclose(decreasing.cdf(t([0.0, 0.0])).numpy(), 1 - base.cdf(t([0.0, 0.0])).numpy())
    assert isinstance(d.support, constraints.Constraint) and repr(d.support) == "GreaterThan(lower_bound=0.0)"
    assert D.LogNormal(0.0, 1.0).expand((3,)).sample().shape == (3,)


def test_constraints() -> None:
    v = t([-1.0, 0.0, 0.5, 1.0, 2.0])
    assert constraints.positive.check(v).tolist() == [False, False, True, True, True]
    assert constraints.nonnegative_integer.check(v).tolist() == [False, True, False, True, True]
    assert constraints.unit_interval.check(v).tolist() == [False, True, True, True, False]
    assert constraints.integer_interval(0, 1).check(v).tolist() == [False, True, False, True, False]
    assert constraints.half_open_interval(0, 1).check(v).tolist() == [False, True, True, False, False]
    assert constraints.simplex.check(t([[0.5, 0.5], [0.5, 0.6]])).tolist() == [True, False]
    assert constraints.lower_cholesky.check(t([[[1, 0], [2, 1]], [[1, 1], [0, 1]]])).tolist() == [True, False]
    assert constraints.positive_definite.check(t([[[2, 1], [1, 2]], [[1, 2], [2, 1]]])).tolist() == [
        True,
        False,
    ]
    assert constraints.independent(constraints.real, 1).check(t([[1.0, math.nan]])).tolist() == [False]
    assert repr(constraints.interval(0, 1)) == "Interval(lower_bound=0, upper_bound=1)"
    assert constraints.is_dependent(D.Uniform.support) and not constraints.is_dependent(constraints.real)
    assert D.Categorical.support.is_discrete and D.Uniform.support.event_dim == 0
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        constraints.dependent.check(v)


def test_validation() -> None:
    with pytest.raises(
        ValueError, match=r"Expected parameter scale \(Tensor of shape \(1,\)\) of distribution"
    ):
        D.Normal(t([0.0]), t([-1.0]))
    D.Normal(t([0.0]), t([-1.0]), validate_args=False)
    with pytest.raises(ValueError, match="Expected value argument"):
        D.Exponential(t([1.0])).log_prob(t([-1.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both"):
        D.Categorical()
    with pytest.raises(
        ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"
    ):
        D.MultivariateNormal(t([0.0]))
    try:
        D.Distribution.set_default_validate_args(False)
        assert D.Exponential(t([-1.0])).log_prob(t([-1.0])).isnan().all()
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FutureWarning, match="sample_n"):
            D.Normal(0.0, 1.0).sample_n(2)


def test_expand_and_independent_shapes() -> None:
    d = D.Normal(t([0.0, 1.0, 2.0]), 1.0)
    e = d.expand((4, 3))
    assert e.batch_shape == (4, 3) and e.sample().shape == (4, 3) and e.loc.shape == (4, 3)
    ind = D.Independent(e, 2)
    assert (ind.batch_shape, ind.event_shape) == ((), (4, 3)) and ind.log_prob(e.sample()).shape == ()
    with pytest.raises(NotImplementedError, match=r"must also define a custom \.expand"):

        class Custom(D.Normal):
            def __init__(self) -> None:
                super().__init__(0.0, 1.0)

        Custom().expand((2,))
