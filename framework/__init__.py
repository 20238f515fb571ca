"""framework: a typed Python reimplementation of PyTorch's core on NumPy."""

from importlib.metadata import version as _version

import framework.ops._api_runtime
import framework.ops._native
from framework import _builtin_fallbacks as _builtin_fallbacks
from framework import ops as ops
from framework._api_misc import (
    asarray,
    compiled_with_cxx11_abi,
    detach,
    detach_,
    from_dlpack,
    frombuffer,
    get_device,
    get_float32_matmul_precision,
    get_num_interop_threads,
    gradient,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_inference,
    is_warn_always_enabled,
    range,
    set_anomaly_enabled,
    set_default_tensor_type,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_warn_always,
    typename,
)
from framework._generated.functions import *  # noqa: F403
from framework._global_state import (
    are_deterministic_algorithms_enabled,
    get_default_device,
    get_num_threads,
    is_complex,
    is_deterministic_algorithms_warn_only_enabled,
    is_floating_point,
    is_nonzero,
    is_storage,
    result_type,
    set_default_device,
    set_num_threads,
    use_deterministic_algorithms,
)
from framework._linalg_utils import eig, lstsq, matrix_rank, solve, symeig
from framework._lobpcg import lobpcg
from framework._lowrank import pca_lowrank, svd_lowrank
from framework._size import Size
from framework._tensor import Tensor, from_numpy, is_tensor, numel
from framework._tensor_new import as_tensor, tensor
from framework._tensor_str import get_printoptions, printoptions, set_printoptions
from framework._type_info import finfo, iinfo
from framework._typed_storage import LEGACY_STORAGES as _LEGACY_STORAGES
from framework._typed_storage import TypedStorage
from framework._unique_api import unique, unique_consecutive
from framework.autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from framework.c10.device import Device as device
from framework.c10.device import (
    Layout,
    MemoryFormat,
    channels_last,
    contiguous_format,
    preserve_format,
    strided,
)
from framework.c10.dtypes import (
    bfloat16,
    can_cast,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from framework.c10.dtypes import (
    bool_ as bool,
)
from framework.c10.storage import UntypedStorage
from framework.functional import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    einsum,
    lu,
    meshgrid,
    stft,
    tensordot,
    unravel_index,
)
from framework.library import Library
from framework.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from framework.serialization import load, save

framework.ops._api_runtime.build(framework.ops._native.NATIVE)

import framework.autograd.derivatives  # noqa: E402  (its kernels use the API built above)
import framework.autograd.functional  # noqa: E402  (imports the API above, as autograd.functional)
import framework.ops.math_bits  # noqa: E402  (the Conjugate and Negative fallbacks)
from framework import amp as amp  # noqa: E402  (autocast kernels wrap the operators above)
from framework import autograd as autograd  # noqa: E402
from framework import backends as backends  # noqa: E402
from framework import cpu as cpu  # noqa: E402
from framework import cuda as cuda  # noqa: E402
from framework import distributions as distributions  # noqa: E402
from framework import fft as fft  # noqa: E402
from framework import func as func  # noqa: E402  (transforms over autograd and nn)
from framework import linalg as linalg  # noqa: E402
from framework import nn as nn  # noqa: E402  (modules use the operators registered above)
from framework import optim as optim  # noqa: E402
from framework import overrides as overrides  # noqa: E402  (the __torch_function__ protocol)
from framework import return_types as return_types  # noqa: E402
from framework import special as special  # noqa: E402
from framework import testing as testing  # noqa: E402
from framework import utils as utils  # noqa: E402
from framework._tensor_type import LEGACY_TYPES as _LEGACY_TYPES  # noqa: E402
from framework.amp.autocast_mode import (  # noqa: E402
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from framework.func import vmap as vmap  # noqa: E402

__version__: str = _version("framework")

BoolTensor = _LEGACY_TYPES["BoolTensor"]
ByteTensor = _LEGACY_TYPES["ByteTensor"]
CharTensor = _LEGACY_TYPES["CharTensor"]
ShortTensor = _LEGACY_TYPES["ShortTensor"]
IntTensor = _LEGACY_TYPES["IntTensor"]
LongTensor = _LEGACY_TYPES["LongTensor"]
HalfTensor = _LEGACY_TYPES["HalfTensor"]
BFloat16Tensor = _LEGACY_TYPES["BFloat16Tensor"]
FloatTensor = _LEGACY_TYPES["FloatTensor"]
DoubleTensor = _LEGACY_TYPES["DoubleTensor"]
ComplexFloatTensor = _LEGACY_TYPES["ComplexFloatTensor"]
ComplexDoubleTensor = _LEGACY_TYPES["ComplexDoubleTensor"]

BoolStorage = _LEGACY_STORAGES["BoolStorage"]
ByteStorage = _LEGACY_STORAGES["ByteStorage"]
CharStorage = _LEGACY_STORAGES["CharStorage"]
ShortStorage = _LEGACY_STORAGES["ShortStorage"]
IntStorage = _LEGACY_STORAGES["IntStorage"]
LongStorage = _LEGACY_STORAGES["LongStorage"]
HalfStorage = _LEGACY_STORAGES["HalfStorage"]
FloatStorage = _LEGACY_STORAGES["FloatStorage"]
DoubleStorage = _LEGACY_STORAGES["DoubleStorage"]
ComplexFloatStorage = _LEGACY_STORAGES["ComplexFloatStorage"]
ComplexDoubleStorage = _LEGACY_STORAGES["ComplexDoubleStorage"]

cfloat = complex64
cdouble = complex128
half = float16
float = float32
double = float64
short = int16
int = int32
long = int64

__all__ = [
    "BFloat16Tensor",
    "BoolStorage",
    "BoolTensor",
    "ByteStorage",
    "ByteTensor",
    "CharStorage",
    "CharTensor",
    "ComplexDoubleStorage",
    "ComplexDoubleTensor",
    "ComplexFloatStorage",
    "ComplexFloatTensor",
    "DoubleStorage",
    "DoubleTensor",
    "FloatStorage",
    "FloatTensor",
    "Generator",
    "HalfStorage",
    "HalfTensor",
    "IntStorage",
    "IntTensor",
    "Layout",
    "Library",
    "LongStorage",
    "LongTensor",
    "MemoryFormat",
    "ShortStorage",
    "ShortTensor",
    "Size",
    "Tensor",
    "TypedStorage",
    "UntypedStorage",
    "__version__",
    "amp",
    "are_deterministic_algorithms_enabled",
    "as_tensor",
    "asarray",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "autograd",
    "backends",
    "bfloat16",
    "block_diag",
    "bool",
    "broadcast_shapes",
    "broadcast_tensors",
    "can_cast",
    "cartesian_prod",
    "cdist",
    "cdouble",
    "cfloat",
    "chain_matmul",
    "channels_last",
    "clear_autocast_cache",
    "compiled_with_cxx11_abi",
    "complex64",
    "complex128",
    "contiguous_format",
    "cpu",
    "cuda",
    "default_generator",
    "detach",
    "detach_",
    "device",
    "distributions",
    "double",
    "dtype",
    "eig",
    "einsum",
    "enable_grad",
    "fft",
    "finfo",
    "float",
    "float16",
    "float32",
    "float64",
    "from_dlpack",
    "from_numpy",
    "frombuffer",
    "func",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "get_default_device",
    "get_default_dtype",
    "get_device",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "get_printoptions",
    "get_rng_state",
    "gradient",
    "half",
    "iinfo",
    "inference_mode",
    "initial_seed",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "is_complex",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_floating_point",
    "is_grad_enabled",
    "is_inference",
    "is_inference_mode_enabled",
    "is_nonzero",
    "is_storage",
    "is_tensor",
    "is_warn_always_enabled",
    "linalg",
    "load",
    "lobpcg",
    "long",
    "lstsq",
    "lu",
    "manual_seed",
    "matrix_rank",
    "meshgrid",
    "nn",
    "no_grad",
    "numel",
    "ops",
    "optim",
    "pca_lowrank",
    "preserve_format",
    "printoptions",
    "promote_types",
    "range",
    "result_type",
    "save",
    "seed",
    "set_anomaly_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_default_device",
    "set_default_dtype",
    "set_default_tensor_type",
    "set_float32_matmul_precision",
    "set_flush_denormal",
    "set_grad_enabled",
    "set_num_interop_threads",
    "set_num_threads",
    "set_printoptions",
    "set_rng_state",
    "set_warn_always",
    "short",
    "solve",
    "special",
    "stft",
    "strided",
    "svd_lowrank",
    "symeig",
    "tensor",
    "tensordot",
    "testing",
    "typename",
    "uint8",
    "unique",
    "unique_consecutive",
    "unravel_index",
    "use_deterministic_algorithms",
    "utils",
    "vmap",
]
