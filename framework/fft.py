"""`framework.fft`: PyTorch's torch.fft namespace (the `fft_*` operators of native_functions.yaml
under their short names, e.g. `framework.fft.rfft`)."""

from framework._generated.fft import *  # noqa: F403
from framework._generated.fft import __all__ as __all__
