"""`framework.distributions`: parameterizable probability distributions and sampling functions,
as `torch.distributions`. Distributions are Python on top of framework operators, so gradients
flow through `rsample` (reparameterized samples) and `log_prob`; samplers draw the same random
numbers as PyTorch's for the same seed."""

from framework.distributions import constraints as constraints
from framework.distributions import transforms as transforms
from framework.distributions.bernoulli import Bernoulli
from framework.distributions.beta import Beta
from framework.distributions.binomial import Binomial
from framework.distributions.categorical import Categorical
from framework.distributions.cauchy import Cauchy
from framework.distributions.chi2 import Chi2
from framework.distributions.constraint_registry import biject_to, transform_to
from framework.distributions.dirichlet import Dirichlet
from framework.distributions.distribution import Distribution
from framework.distributions.exp_family import ExponentialFamily
from framework.distributions.exponential import Exponential
from framework.distributions.fisher_snedecor import FisherSnedecor
from framework.distributions.gamma import Gamma
from framework.distributions.geometric import Geometric
from framework.distributions.gumbel import Gumbel
from framework.distributions.half_cauchy import HalfCauchy
from framework.distributions.half_normal import HalfNormal
from framework.distributions.independent import Independent
from framework.distributions.inverse_gamma import InverseGamma
from framework.distributions.kl import kl_divergence, register_kl
from framework.distributions.kumaraswamy import Kumaraswamy
from framework.distributions.laplace import Laplace
from framework.distributions.lkj_cholesky import LKJCholesky
from framework.distributions.log_normal import LogNormal
from framework.distributions.logistic_normal import LogisticNormal
from framework.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from framework.distributions.mixture_same_family import MixtureSameFamily
from framework.distributions.multivariate_normal import MultivariateNormal
from framework.distributions.negative_binomial import NegativeBinomial
from framework.distributions.normal import Normal
from framework.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from framework.distributions.pareto import Pareto
from framework.distributions.poisson import Poisson
from framework.distributions.relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from framework.distributions.relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from framework.distributions.student_t import StudentT
from framework.distributions.transformed_distribution import TransformedDistribution
from framework.distributions.transforms import *  # noqa: F403  (every transform, as torch.distributions)
from framework.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "Dirichlet",
    "Distribution",
    "ExpRelaxedCategorical",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LogitRelaxedBernoulli",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)
