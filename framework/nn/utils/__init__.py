"""`framework.nn.utils`: gradient clipping, parameter/vector conversion, sequence padding (`rnn`),
parametrizations (`parametrize`, `parametrizations`) and the legacy hook-based weight and spectral
normalization."""

from framework.nn.utils import parametrizations as parametrizations
from framework.nn.utils import parametrize as parametrize
from framework.nn.utils import rnn as rnn
from framework.nn.utils.clip_grad import (
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from framework.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from framework.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from framework.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "spectral_norm",
    "vector_to_parameters",
    "weight_norm",
]
