"""CPU and Meta kernels on NumPy, grouped by kind; importing this registers them by name."""

from framework.ops.kernels import activation as activation
from framework.ops.kernels import amp as amp
from framework.ops.kernels import complex as complex
from framework.ops.kernels import composite as composite
from framework.ops.kernels import factories as factories
from framework.ops.kernels import fft as fft
from framework.ops.kernels import indexing as indexing
from framework.ops.kernels import indexing_more as indexing_more
from framework.ops.kernels import linalg as linalg
from framework.ops.kernels import linalg_decomp as linalg_decomp
from framework.ops.kernels import linalg_extra as linalg_extra
from framework.ops.kernels import linalg_ldl as linalg_ldl
from framework.ops.kernels import linalg_more as linalg_more
from framework.ops.kernels import math_more as math_more
from framework.ops.kernels import misc_ops3 as misc_ops3
from framework.ops.kernels import nn as nn
from framework.ops.kernels import nn3d as nn3d
from framework.ops.kernels import nn_misc as nn_misc
from framework.ops.kernels import nn_more as nn_more
from framework.ops.kernels import pointwise as pointwise
from framework.ops.kernels import random as random
from framework.ops.kernels import random_gamma as random_gamma
from framework.ops.kernels import reductions as reductions
from framework.ops.kernels import shapes_more as shapes_more
from framework.ops.kernels import sorting as sorting
from framework.ops.kernels import special_more as special_more
from framework.ops.kernels import tensor_api as tensor_api
from framework.ops.kernels import tensor_misc as tensor_misc
from framework.ops.kernels import views as views
from framework.ops.kernels import vision as vision
from framework.ops.kernels import weight_norm as weight_norm
from framework.ops.kernels._registry import KERNEL_FACTORIES, KERNELS

__all__ = ["KERNELS", "KERNEL_FACTORIES"]
