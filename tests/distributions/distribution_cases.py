"""Distribution cases shared by the distribution tests: each builds the same distribution in
`framework.distributions` or `torch.distributions` (`lib` is the top-level module) from NumPy
parameters, so values, samples and gradients can be compared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Params = dict[str, np.ndarray]

_rng = np.random.default_rng(0)


def _pos(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 2.0, shape)


def _real(*shape: int) -> np.ndarray:
    return _rng.normal(size=shape)


def _prob(*shape: int) -> np.ndarray:
    return _rng.uniform(0.1, 0.9, shape)


def _tril(n: int, *batch: int) -> np.ndarray:
    a = _rng.normal(size=(*batch, n, n)) * 0.3
    return np.tril(a, -1) + np.eye(n) * _rng.uniform(0.8, 1.5, (*batch, n))[..., None, :]


def _spd(n: int, *batch: int) -> np.ndarray:
    L = _tril(n, *batch)
    return L @ np.swapaxes(L, -1, -2)


Case = tuple[Params, Callable[[Any, dict[str, Any]], Any]]


def _loc_scale(name: str) -> Case:
    """A case of the distribution `name` built from a real `loc` and a positive `scale`."""
    params = {"loc": _real(3), "scale": _pos(3)}
    return params, lambda L, p: getattr(L.distributions, name)(p["loc"], p["scale"])


# name -> (parameters, builder(lib, tensors))
CASES: dict[str, Case] = {
    "Normal": _loc_scale("Normal"),
    "LogNormal": _loc_scale("LogNormal"),
    "Uniform": (
        {"low": _real(3), "width": _pos(3)},
        lambda L, p: L.distributions.Uniform(p["low"], p["low"] + p["width"]),
    ),
    "Bernoulli": ({"probs": _prob(3)}, lambda L, p: L.distributions.Bernoulli(probs=p["probs"])),
    "BernoulliLogits": ({"logits": _real(3)}, lambda L, p: L.distributions.Bernoulli(logits=p["logits"])),
    "Categorical": ({"probs": _pos(2, 4)}, lambda L, p: L.distributions.Categorical(probs=p["probs"])),
    "CategoricalLogits": (
        {"logits": _real(2, 4)},
        lambda L, p: L.distributions.Categorical(logits=p["logits"]),
    ),
    "OneHotCategorical": (
        {"logits": _real(2, 4)},
        lambda L, p: L.distributions.OneHotCategorical(logits=p["logits"]),
    ),
    "Exponential": ({"rate": _pos(3)}, lambda L, p: L.distributions.Exponential(p["rate"])),
    "Laplace": _loc_scale("Laplace"),
    "Cauchy": _loc_scale("Cauchy"),
    "Geometric": ({"probs": _prob(3)}, lambda L, p: L.distributions.Geometric(probs=p["probs"])),
    "GeometricLogits": ({"logits": _real(3)}, lambda L, p: L.distributions.Geometric(logits=p["logits"])),
    "Gumbel": _loc_scale("Gumbel"),
    "HalfNormal": ({"scale": _pos(3)}, lambda L, p: L.distributions.HalfNormal(p["scale"])),
    "HalfCauchy": ({"scale": _pos(3)}, lambda L, p: L.distributions.HalfCauchy(p["scale"])),
    "LogisticNormal": (
        {"loc": _real(2, 3), "scale": _pos(2, 3)},
        lambda L, p: L.distributions.LogisticNormal(p["loc"], p["scale"]),
    ),
    "RelaxedBernoulli": (
        {"temperature": _pos(1), "logits": _real(3)},
        lambda L, p: L.distributions.RelaxedBernoulli(p["temperature"], logits=p["logits"]),
    ),
    "RelaxedOneHotCategorical": (
        {"temperature": _pos(1), "probs": _pos(2, 4)},
        lambda L, p: L.distributions.RelaxedOneHotCategorical(p["temperature"], probs=p["probs"]),
    ),
    "MultivariateNormalCov": (
        {"loc": _real(2, 3), "covariance_matrix": _spd(3)},
        lambda L, p: L.distributions.MultivariateNormal(p["loc"], covariance_matrix=p["covariance_matrix"]),
    ),
    "MultivariateNormalPrec": (
        {"loc": _real(3), "precision_matrix": _spd(3, 2)},
        lambda L, p: L.distributions.MultivariateNormal(p["loc"], precision_matrix=p["precision_matrix"]),
    ),
    "MultivariateNormalTril": (
        {"loc": _real(3), "scale_tril": _tril(3, 2)},
        lambda L, p: L.distributions.MultivariateNormal(p["loc"], scale_tril=p["scale_tril"]),
    ),
    "LowRankMultivariateNormal": (
        {"loc": _real(2, 3), "cov_factor": _real(3, 2), "cov_diag": _pos(3)},
        lambda L, p: L.distributions.LowRankMultivariateNormal(p["loc"], p["cov_factor"], p["cov_diag"]),
    ),
    "Pareto": (
        {"scale": _pos(3), "alpha": _pos(3) + 2.0},
        lambda L, p: L.distributions.Pareto(p["scale"], p["alpha"]),
    ),
    "MixtureSameFamily": (
        {"logits": _real(2, 3), "loc": _real(2, 3, 2), "scale": _pos(2, 3, 2)},
        lambda L, p: L.distributions.MixtureSameFamily(
            L.distributions.Categorical(logits=p["logits"]),
            L.distributions.Independent(L.distributions.Normal(p["loc"], p["scale"]), 1),
        ),
    ),
    "IndependentNormal": (
        {"loc": _real(2, 3), "scale": _pos(2, 3)},
        lambda L, p: L.distributions.Independent(L.distributions.Normal(p["loc"], p["scale"]), 1),
    ),
    "TransformedTanhAffine": (
        {"loc": _real(3), "scale": _pos(3)},
        lambda L, p: L.distributions.TransformedDistribution(
            L.distributions.Normal(p["loc"], p["scale"]),
            [
                L.distributions.transforms.TanhTransform(),
                L.distributions.transforms.AffineTransform(1.0, 2.0),
            ],
        ),
    ),
}
