"""framework.distributions against torch.distributions (skipped without torch): the same seed
draws the same samples; log_prob, entropy, moments, cdf/icdf and KL divergences agree to 1e-6
(float32) / 1e-12 (float64); gradients through rsample and log_prob and grad_fn names agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from distribution_cases import CASES

import framework

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]

# TanhTransform inverts with atanh near |y| = 1, where a last-bit difference of float32 atanh
# (framework computes it in float64 and rounds) grows to ~3e-5 relative in the gradient.
GRAD_RTOL_FLOAT32 = {"TransformedTanhAffine": 1e-4}


def _tol(dtype: str) -> dict[str, float]:
    return {"rtol": 2e-6, "atol": 2e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-12}


def _build(name: str, dtype: str) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    params, build = CASES[name]
    tp = {k: torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for k, v in params.items()}
    fp = {
        k: framework.tensor(v, dtype=getattr(framework, dtype), requires_grad=True) for k, v in params.items()
    }
    return build(torch, tp), build(framework, fp), tp, fp


def _as_torch_text(text: str) -> str:
    return text.replace("framework.", "torch.")


def _close(ours: Any, theirs: Any, dtype: str) -> None:
    a = ours.detach().numpy()
    b = theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, equal_nan=True, **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str, dtype: str) -> None:
    td, fd, tp, fp = _build(name, dtype)
    assert (fd.batch_shape, fd.event_shape) == (td.batch_shape, td.event_shape)
    assert fd.has_rsample == td.has_rsample
    assert _as_torch_text(repr(fd.support)) == repr(td.support)
    assert _as_torch_text(repr(fd)) == repr(td)

    torch.manual_seed(3)
    framework.manual_seed(3)
    t_sample, f_sample = td.sample((2,)), fd.sample((2,))
    _close(f_sample, t_sample, dtype)
    assert not f_sample.requires_grad

    t_total, f_total = 0, 0
    if td.has_rsample:
        torch.manual_seed(4)
        framework.manual_seed(4)
        t_sample, f_sample = td.rsample((2,)), fd.rsample((2,))
        _close(f_sample, t_sample, dtype)
        t_total, f_total = t_sample.sum(), f_sample.sum()
    t_lp, f_lp = td.log_prob(t_sample), fd.log_prob(f_sample)
    _close(f_lp, t_lp, dtype)
    assert type(f_lp.grad_fn).__name__ == type(t_lp.grad_fn).__name__

    for attr in ["mean", "mode", "variance", "stddev", "entropy", "cdf", "icdf"]:
        try:
            expected = getattr(td, attr)
            if callable(expected):
                arg = {"cdf": t_sample, "icdf": torch.full_like(t_sample, 0.3)}.get(attr)
                expected = expected() if arg is None else expected(arg)
        except NotImplementedError:
            continue
        ours = getattr(fd, attr)
        if callable(ours):
            arg = {"cdf": f_sample, "icdf": framework.full_like(f_sample, 0.3)}.get(attr)
            ours = ours() if arg is None else ours(arg)
        _close(ours, expected, dtype)

    t_grads = torch.autograd.grad(t_lp.sum() + t_total, list(tp.values()), allow_unused=True)
    f_grads = framework.autograd.grad(f_lp.sum() + f_total, list(fp.values()), allow_unused=True)
    for tg, fg in zip(t_grads, f_grads, strict=True):
        assert (tg is None) == (fg is None)
        if tg is not None:
            rtol = GRAD_RTOL_FLOAT32.get(name, 1e-5) if dtype == "float32" else 1e-10
            np.testing.assert_allclose(fg.numpy(), tg.numpy(), rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical"])
def test_enumerate_support_and_expand(name: str) -> None:
    td, fd, _, _ = _build(name, "float64")
    for expand in (True, False):
        np.testing.assert_array_equal(
            fd.enumerate_support(expand).numpy(), td.enumerate_support(expand).numpy()
        )
    te, fe = td.expand((5, *td.batch_shape)), fd.expand((5, *fd.batch_shape))
    assert (fe.batch_shape, fe.event_shape) == (te.batch_shape, te.event_shape)
    torch.manual_seed(0)
    framework.manual_seed(0)
    np.testing.assert_array_equal(fe.sample().numpy(), te.sample().numpy())


def _kl_pairs() -> list[tuple[str, str]]:
    names = {
        "Normal": "Normal",
        "Exponential": "Exponential",
        "Uniform": "Uniform",
        "Laplace": "Laplace",
        "Bernoulli": "Bernoulli",
        "Categorical": "Categorical",
        "OneHotCategorical": "OneHotCategorical",
        "Geometric": "Geometric",
        "HalfNormal": "HalfNormal",
        "Cauchy": "Cauchy",
        "MultivariateNormalTril": "MultivariateNormalCov",
        "LowRankMultivariateNormal": "LowRankMultivariateNormal",
        "IndependentNormal": "IndependentNormal",
        "LogNormal": "LogNormal",
        "Pareto": "Pareto",
    }
    same = list(names.items())
    cross = [
        ("Exponential", "Normal"),
        ("Exponential", "Gumbel"),
        ("Exponential", "Uniform"),
        ("Gumbel", "Normal"),
        ("Gumbel", "Uniform"),
        ("Laplace", "Normal"),
        ("Normal", "Gumbel"),
        ("Normal", "Laplace"),
        ("Normal", "Exponential"),
        ("Uniform", "Normal"),
        ("Uniform", "Gumbel"),
        ("Uniform", "Exponential"),
        ("Pareto", "Exponential"),
        ("Pareto", "Normal"),
        ("Pareto", "Uniform"),
        ("Uniform", "Pareto"),
        ("Normal", "Pareto"),
        ("MultivariateNormalTril", "LowRankMultivariateNormal"),
        ("LowRankMultivariateNormal", "MultivariateNormalCov"),
    ]
    return same + cross


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("p_name", "q_name"), _kl_pairs())
def test_kl_divergence_matches_torch(p_name: str, q_name: str, dtype: str) -> None:
    tp_d, fp_d, tp, fp = _build(p_name, dtype)
    tq_d, fq_d, tq, fq = _build(q_name, dtype)
    if p_name == q_name:  # distinct parameters for p, so that KL(p || q) is not zero
        tp_d, fp_d = _shifted(p_name, tp, fp)
    t_kl = torch.distributions.kl_divergence(tp_d, tq_d)
    f_kl = framework.distributions.kl_divergence(fp_d, fq_d)
    _close(f_kl, t_kl, dtype)
    if t_kl.requires_grad:
        t_inputs = [*tp.values(), *tq.values()]
        f_inputs = [*fp.values(), *fq.values()]
        t_grads = torch.autograd.grad(t_kl.sum(), t_inputs, allow_unused=True)
        f_grads = framework.autograd.grad(f_kl.sum(), f_inputs, allow_unused=True)
        for tg, fg in zip(t_grads, f_grads, strict=True):
            assert (tg is None) == (fg is None)
            if tg is not None:
                np.testing.assert_allclose(
                    fg.numpy(),
                    tg.numpy(),
                    rtol=1e-4 if dtype == "float32" else 1e-9,
                    atol=1e-6 if dtype == "float32" else 1e-12,
                )


def _shifted(name: str, tp: dict[str, Any], fp: dict[str, Any]) -> tuple[Any, Any]:
    """The case's distribution built from parameters moved away from the originals (but kept
    valid), so KL(p || q) is not zero."""
    _, build = CASES[name]
    with torch.no_grad():
        t_new = {
            k: (v * 0.7 if k not in ("low", "loc") else v + 0.25).requires_grad_() for k, v in tp.items()
        }
    f_new = {k: framework.tensor(v.detach().numpy(), requires_grad=True) for k, v in t_new.items()}
    tp.update(t_new)
    fp.update(f_new)
    return build(torch, tp), build(framework, fp)


def test_transforms_match_torch() -> None:
    x = np.random.default_rng(1).normal(size=(2, 3))
    tx = torch.tensor(x, requires_grad=True)
    fx = framework.tensor(x, requires_grad=True)

    def make(lib: Any) -> list[Any]:
        T = lib.distributions.transforms
        return [
            T.ExpTransform(),
            T.SigmoidTransform(),
            T.TanhTransform(),
            T.SoftplusTransform(),
            T.AffineTransform(0.5, -2.0),
            T.AffineTransform(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), 3.0, event_dim=1),
            T.ComposeTransform([T.ExpTransform(), T.PowerTransform(lib.tensor(1.5, dtype=lib.float64))]),
            T.StickBreakingTransform(),
            T.SoftmaxTransform(),
            T.AbsTransform(),
            T.ExpTransform().inv,
            T.IndependentTransform(T.SigmoidTransform(), 1),
            T.CatTransform([T.ExpTransform(), T.identity_transform], dim=-1, lengths=[1, 2]),
            T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0),
            T.CumulativeDistributionTransform(lib.distributions.Normal(0.0, 1.0)),
        ]

    for tt, ft in zip(make(torch), make(framework), strict=True):
        ty, fy = tt(tx), ft(fx)
        _close(fy, ty, "float64")
        _close(ft.inv(fy), tt.inv(ty), "float64")
        assert repr(ft) == repr(tt)
        assert (ft.domain.event_dim, ft.codomain.event_dim, ft.bijective) == (
            tt.domain.event_dim,
            tt.codomain.event_dim,
            tt.bijective,
        )
        assert ft.forward_shape((4, 2, 3)) == tt.forward_shape((4, 2, 3))
        try:
            t_ladj = tt.log_abs_det_jacobian(tx, ty)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                ft.log_abs_det_jacobian(fx, fy)
            continue
        f_ladj = ft.log_abs_det_jacobian(fx, fy)
        _close(f_ladj, t_ladj, "float64")
        (tg,) = torch.autograd.grad(t_ladj.sum() + ty.sum(), tx)
        (fg,) = framework.autograd.grad(f_ladj.sum() + fy.sum(), fx)
        np.testing.assert_allclose(fg.numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.distributions.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, -1.0])),
        lambda L: L.distributions.Bernoulli(probs=L.tensor([0.5, 1.5])),
        lambda L: L.distributions.Categorical(probs=L.tensor([0.5, -0.5])),
        lambda L: L.distributions.Uniform(L.tensor([2.0]), L.tensor([1.0])),
        lambda L: L.distributions.Exponential(L.tensor(0.0)),
        lambda L: L.distributions.Geometric(probs=L.tensor([0.0, 0.5])),
        lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda L: L.distributions.Normal(L.zeros(2), 1.0).log_prob(L.zeros(3)),
        lambda L: L.distributions.Exponential(L.ones(2)).log_prob(L.tensor([-1.0, 1.0])),
        lambda L: L.distributions.Categorical(logits=L.zeros(3)).log_prob(L.tensor(3)),
        lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.eye(2)).log_prob(L.zeros(3)),
        lambda L: L.distributions.Bernoulli(probs=0.5, logits=0.0),
        lambda L: L.distributions.Independent(L.distributions.Normal(0.0, 1.0), 1),
    ],
)
def test_validation_errors_match_torch(make: Any) -> None:
    with pytest.raises(ValueError) as expected:
        make(torch)
    with pytest.raises(ValueError) as ours:
        make(framework)
    assert _as_torch_text(str(ours.value)) == str(expected.value)


def _registry_cases(lib: Any) -> list[tuple[Any, Any]]:
    C = lib.distributions.constraints
    reg = lib.distributions
    return [
        (reg.biject_to, C.real),
        (reg.biject_to, C.positive),
        (reg.biject_to, C.greater_than(1.0)),
        (reg.biject_to, C.less_than(2.0)),
        (reg.biject_to, C.interval(-1.0, 3.0)),
        (reg.biject_to, C.unit_interval),
        (reg.biject_to, C.simplex),
        (reg.biject_to, C.independent(C.positive, 1)),
        (reg.biject_to, C.cat([C.positive, C.real], -1, [1, 2])),
        (reg.biject_to, C.stack([C.positive, C.real, C.unit_interval], -1)),
        (reg.transform_to, C.simplex),
        (reg.transform_to, C.lower_cholesky),
        (reg.transform_to, C.positive_definite),
    ]


def test_constraint_registry_matches_torch() -> None:
    x = np.random.default_rng(2).normal(size=(2, 3, 3))
    tx = torch.tensor(x)
    fx = framework.tensor(x)
    for (t_reg, t_con), (f_reg, f_con) in zip(
        _registry_cases(torch), _registry_cases(framework), strict=True
    ):
        tt, ft = t_reg(t_con), f_reg(f_con)
        assert _as_torch_text(repr(ft)) == repr(tt)
        ty, fy = tt(tx), ft(fx)
        _close(fy, ty, "float64")
        assert ft.codomain.check(fy).all()
        if tt.bijective:
            _close(ft.inv(fy), tt.inv(ty), "float64")
            _close(ft.log_abs_det_jacobian(fx, fy), tt.log_abs_det_jacobian(tx, ty), "float64")
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        framework.distributions.biject_to(framework.distributions.constraints.boolean)
