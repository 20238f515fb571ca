"""`torch.nn`: modules, parameters, initialisation, utilities, and the functional interface
(`framework.nn.functional`)."""

from framework.nn import functional as functional
from framework.nn import init as init
from framework.nn import modules as modules
from framework.nn import utils as utils
from framework.nn.modules import *  # noqa: F403  (every layer, as torch.nn)
from framework.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "functional",
    "init",
    "utils",
]
__all__ += modules.__all__
