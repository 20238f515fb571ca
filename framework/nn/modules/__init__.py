"""The layers of `framework.nn` (PyTorch's `torch.nn.modules`)."""

from framework.nn.modules.activation import GELU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from framework.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from framework.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from framework.nn.modules.conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from framework.nn.modules.dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from framework.nn.modules.flatten import Flatten, Unflatten
from framework.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from framework.nn.modules.linear import Identity, Linear
from framework.nn.modules.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from framework.nn.modules.module import Module
from framework.nn.modules.normalization import GroupNorm, LayerNorm, LocalResponseNorm
from framework.nn.modules.padding import (
    CircularPad1d,
    CircularPad2d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from framework.nn.modules.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
    MaxUnpool2d,
)
from framework.nn.modules.sparse import Embedding
from framework.nn.modules.upsampling import (
    PixelShuffle,
    PixelUnshuffle,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = [
    "GELU",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AlphaDropout",
    "AvgPool1d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "CircularPad1d",
    "CircularPad2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "Conv1d",
    "Conv2d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "CrossEntropyLoss",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "Embedding",
    "FeatureAlphaDropout",
    "Flatten",
    "GroupNorm",
    "Identity",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "L1Loss",
    "LayerNorm",
    "Linear",
    "LocalResponseNorm",
    "LogSoftmax",
    "MSELoss",
    "MaxPool1d",
    "MaxPool2d",
    "MaxUnpool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ParameterDict",
    "ParameterList",
    "PixelShuffle",
    "PixelUnshuffle",
    "ReLU",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]
