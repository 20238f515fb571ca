"""`framework.optim`: optimizers and learning-rate schedulers (PyTorch's `torch.optim`)."""

from framework.optim import lr_scheduler as lr_scheduler
from framework.optim import swa_utils as swa_utils
from framework.optim.adadelta import Adadelta
from framework.optim.adagrad import Adagrad
from framework.optim.adam import Adam, AdamW
from framework.optim.adamax import Adamax
from framework.optim.asgd import ASGD
from framework.optim.nadam import NAdam
from framework.optim.optimizer import Optimizer
from framework.optim.radam import RAdam
from framework.optim.rmsprop import RMSprop
from framework.optim.sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "lr_scheduler",
    "swa_utils",
]
