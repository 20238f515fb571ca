"""`framework.optim`: optimizers and learning-rate schedulers (PyTorch's `torch.optim`)."""

from framework.optim import lr_scheduler as lr_scheduler
from framework.optim.adagrad import Adagrad
from framework.optim.adam import Adam, AdamW
from framework.optim.optimizer import Optimizer
from framework.optim.rmsprop import RMSprop
from framework.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
