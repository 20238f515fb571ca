"""The AutocastCPU kernels: PyTorch's CPU autocast lists, registered through the Library API.

Every operator falls through AutocastCPU (a backend fallback, as PyTorch registers it), except the
ones on the lists, whose kernel casts the floating-point tensor arguments (in argument lists too)
and calls the operator again with AutocastCPU excluded:

- `lower_precision_fp`: to the autocast dtype (matmuls, convolutions, linear layers);
- `fp32`: to float32 (losses, linear algebra, FFTs, numerically sensitive reductions);
- `promote`: to the widest floating type among the arguments and the autocast dtype (cat, stack).

An argument is cast only if it is a CPU floating-point tensor other than float64.  Operators on the
lists that framework does not define are skipped.  Lower-precision casts of float32 leaves that
require grad are cached until the outermost autocast region ends (PyTorch's weight cache).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from framework._tensor import Tensor
from framework.amp.autocast_mode import cached_cast, get_autocast_dtype, is_autocast_cache_enabled
from framework.c10.device import DeviceType
from framework.c10.dispatch import OperatorHandle, dispatcher
from framework.c10.dispatch_key import DispatchKey
from framework.c10.dtypes import dtype, float32, float64, promote_types
from framework.c10.local_dispatch_key_set import ExcludeDispatchKeyGuard
from framework.library import Library, fallthrough_kernel

LOWER_PRECISION_FP: Final = (
    "conv1d", "conv1d.padding", "conv2d", "conv2d.padding", "conv3d", "conv3d.padding", "bmm", "mm",
    "linalg_vecdot", "baddbmm", "addmm", "_addmm_activation", "addbmm", "linear", "_convolution.deprecated",
    "matmul", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d.input",
    "conv_transpose3d.input", "prelu", "scaled_dot_product_attention", "_native_multi_head_attention",
)
FP32: Final = (
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "prod.dim_int",
    "prod.dim_Dimname", "quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar", "stft",
    "stft.center", "cdist", "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback", "grid_sampler_3d", "trace",
    "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr",
    "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d",
    "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
    "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "ctc_loss.IntList", "ctc_loss.Tensor", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn",
    "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft",
    "fft_ihfft", "linalg_cond", "linalg_cond.p_str", "linalg_matrix_rank", "linalg_matrix_rank.tol_tensor",
    "linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float", "linalg_solve",
    "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
    "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve",
    "fake_quantize_per_tensor_affine", "geqrf", "_lu_with_info", "qr", "svd", "triangular_solve",
    "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
    "multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
)
PROMOTE: Final = (
    "stack", "cat", "index_copy", "index_copy.dimname",
)
"""PyTorch 2.13's AutocastCPU lists (aten/src/ATen/autocast_mode.cpp), as `name[.overload]`."""

_CPU: Final = DeviceType.CPU


def _eligible(t: Tensor) -> bool:
    impl = t._impl
    d = impl.dtype
    return impl.device.device_type is _CPU and d.is_floating_point and d is not float64


def _cast_tensor(t: Tensor, to: dtype) -> Tensor:
    if not _eligible(t) or t.dtype is to:
        return t
    if (
        to is get_autocast_dtype("cpu")
        and t.dtype is float32
        and t.requires_grad
        and t.is_leaf
        and not t._is_view()
        and is_autocast_cache_enabled()
    ):
        cast: Tensor = cached_cast(t._impl, lambda: t.to(to))
        return cast
    return t.to(to)


def _cast(value: Any, to: dtype) -> Any:
    """`value` with its eligible tensors (a tensor, or the tensors of a list) cast to `to`."""
    if isinstance(value, Tensor):
        return _cast_tensor(value, to)
    if isinstance(value, list | tuple) and any(isinstance(v, Tensor) for v in value):
        return type(value)(_cast(v, to) for v in value)
    return value


def _tensors(values: tuple[Any, ...]) -> list[Tensor]:
    found: list[Tensor] = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif isinstance(v, list | tuple):
            found.extend(x for x in v if isinstance(x, Tensor))
    return found


def _lower_precision(args: tuple[Any, ...]) -> dtype:
    return get_autocast_dtype("cpu")


def _fp32(args: tuple[Any, ...]) -> dtype:
    return float32


def _promote(args: tuple[Any, ...]) -> dtype:
    """The widest type among the autocast dtype and the eligible tensors' dtypes."""
    to = get_autocast_dtype("cpu")
    for t in _tensors(args):
        if _eligible(t):
            to = promote_types(to, t.dtype)
    return to


def _autocast_kernel(op: OperatorHandle, target: Callable[[tuple[Any, ...]], dtype]) -> Callable[..., Any]:
    call = op.call

    def kernel(*args: Any, **kwargs: Any) -> Any:
        with ExcludeDispatchKeyGuard(DispatchKey.AutocastCPU):
            to = target((*args, *kwargs.values()))
            return call(*[_cast(a, to) for a in args], **{k: _cast(v, to) for k, v in kwargs.items()})

    return kernel


def _register() -> tuple[Library, list[str]]:
    lib = Library("aten", "IMPL")
    registered = []
    for names, target in ((LOWER_PRECISION_FP, _lower_precision), (FP32, _fp32), (PROMOTE, _promote)):
        for name in names:
            base, _, overload = name.partition(".")
            op = dispatcher().find_schema(f"aten::{base}", overload)
            if op is not None:
                lib.impl(op, _autocast_kernel(op, target), DispatchKey.AutocastCPU)
                registered.append(name)
    return lib, registered


_FALLBACK: Final = Library("_", "IMPL")
_FALLBACK.fallback(fallthrough_kernel, DispatchKey.AutocastCPU)
_LIBRARY, REGISTERED = _register()
"""The library holding the kernels, and the operators (`name[.overload]`) given one."""
