"""`framework.backends`: the backend flags scripts written for PyTorch set or query.

Everything runs on NumPy on the CPU, so the accelerator backends report that they are not
available, and their flags (`cudnn.deterministic`, `cudnn.benchmark`, ...) are plain module
attributes that can be set, read back, and change nothing.
"""

from framework.backends import cpu as cpu
from framework.backends import cuda as cuda
from framework.backends import cudnn as cudnn
from framework.backends import mps as mps

__all__ = ["cpu", "cuda", "cudnn", "mps"]
