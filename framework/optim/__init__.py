"""`framework.optim`: optimizers and learning-rate schedulers (PyTorch's `torch.optim`)."""

from framework.optim import lr_scheduler as lr_scheduler
from framework.optim import swa_utils as swa_utils
from framework.optim.adadelta import Adadelta
from framework.optim.adafactor import Adafactor
from framework.optim.adagrad import Adagrad
from framework.optim.adam import Adam, AdamW
from framework.optim.adamax import Adamax
from framework.optim.asgd import ASGD
from framework.optim.lbfgs import LBFGS
from framework.optim.nadam import NAdam
from framework.optim.optimizer import Optimizer
from framework.optim.radam import RAdam
from framework.optim.rmsprop import RMSprop
from framework.optim.rprop import Rprop
from framework.optim.sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
]
