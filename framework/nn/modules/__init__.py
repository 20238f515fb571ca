"""The layers of `framework.nn` (PyTorch's `torch.nn.modules`)."""

from framework.nn.modules.activation import GELU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from framework.nn.modules.attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from framework.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from framework.nn.modules.container import ModuleDict, ModuleList, Sequential
from framework.nn.modules.conv import Conv1d, Conv2d
from framework.nn.modules.dropout import Dropout
from framework.nn.modules.flatten import Flatten, Unflatten
from framework.nn.modules.linear import Identity, Linear
from framework.nn.modules.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from framework.nn.modules.module import Module
from framework.nn.modules.normalization import LayerNorm
from framework.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from framework.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from framework.nn.modules.sparse import Embedding
from framework.nn.modules.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "GELU",
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
]
__all__ += [
    "GRU",
    "LSTM",
    "RNN",
    "GRUCell",
    "LSTMCell",
    "MultiheadAttention",
    "NonDynamicallyQuantizableLinear",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]
