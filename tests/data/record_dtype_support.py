"""Record ``dtype_support.json``: which dtypes PyTorch's operators accept, for tests without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_dtype_support.py``).
For every overload in framework's ``native_functions.yaml`` that takes a tensor, and every dtype
framework supports, ``sample_arguments`` builds small arguments (the tensors of the dtype under
test, index and mask tensors int64 and bool, sensible scalars and dimensions) and ``outcome`` calls
the operator through ``<library>.ops.aten`` and describes what happened: ``["ok", result dtypes]``
or ``[exception type, first line of the message]``.  ``tests/ops/test_dtype_support.py`` imports
this module to rebuild the same calls on framework (and on PyTorch when it is importable).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from framework.c10.dispatch.schema import Argument, BaseTy, BaseType, FunctionSchema, ListType, OptionalType
from framework.ops._native import NativeFunction, load_native_functions

FIXTURE_PATH: Final = Path(__file__).with_name("dtype_support.json")
DTYPES: Final = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "bfloat16",
)


class Tensor:
    """A sample tensor: dtype (None: the dtype under test), shape and values (NumPy, made per dtype)."""

    def __init__(self, shape: tuple[int, ...], dtype: str | None = None, values: list[Any] | None = None):
        self.shape, self.dtype, self.values = shape, dtype, values

    def array(self, dtype: str) -> npt.NDArray[Any]:
        d = self.dtype or dtype
        if self.values is not None:
            return np.array(self.values, dtype=d).reshape(self.shape)
        n = math.prod(self.shape)
        if d == "bool":
            return np.ones(self.shape, dtype=d)
        return (np.arange(n) % 3 + 1).astype(d).reshape(self.shape)

    def describe(self) -> str:
        return f"{self.dtype or 'T'}{list(self.shape)}"


class DType:
    """The dtype under test, as a ScalarType argument."""

    def describe(self) -> str:
        return "T"


class Storage:
    """The untyped storage of a sample tensor (of the dtype under test), as a Storage argument."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    def describe(self) -> str:
        return f"storage({self.tensor.describe()})"


_IMAGE: Final = (1, 2, 4, 4)
_POOLED: Final = (1, 2, 2, 2)
_CONV_WEIGHT: Final = (3, 2, 2, 2)
_VOLUME: Final = (1, 2, 4, 4, 4)
_POOLED3: Final = (1, 2, 2, 2, 2)
_VOLUME_INDICES: Final = Tensor(_POOLED3, "int64", [0, 2, 8, 10, 32, 34, 40, 42] * 2)
_PAD3D_OPS: Final = tuple(
    f"{kind}_pad3d{part}" for kind in ("reflection", "replication") for part in ("", "_backward")
)
_LABELS: Final = Tensor((2,), "int64", [0, 1])
_PROBABILITIES: Final = Tensor((2, 3), None, [0.5] * 6)

# Tensors of operators whose tensors must fit together, by operator and argument name (default:
# the rules of `_tensor`, then a 2x3 tensor of the dtype under test).
_SQUARE: Final = Tensor((2, 2))
_POSITIVE_DEFINITE: Final = Tensor((2, 2), None, [2, 1, 1, 2])
_PIVOTS: Final = Tensor((2,), "int32", [1, 2])
_INVERTIBLE_4X4: Final = Tensor((2, 2, 2, 2), None, [2, 1, 0, 0, 0, 2, 1, 0, 0, 0, 2, 1, 1, 0, 0, 2])
_TENSORS: Final[dict[str, dict[str, Tensor | list[Tensor]]]] = {
    "mm": {"mat2": Tensor((3, 2))},
    "matmul": {"other": Tensor((3, 2))},
    "bmm": {"self": Tensor((2, 2, 3)), "mat2": Tensor((2, 3, 2))},
    "mv": {"vec": Tensor((3,))},
    "dot": {"self": Tensor((3,)), "tensor": Tensor((3,))},
    "outer": {"self": Tensor((3,)), "vec2": Tensor((2,))},
    "ger": {"self": Tensor((3,)), "vec2": Tensor((2,))},
    "addmm": {"self": Tensor((2, 2)), "mat2": Tensor((3, 2))},
    "addmm_": {"self": Tensor((2, 2)), "mat2": Tensor((3, 2))},
    "view_as_complex": {"self": Tensor((3, 2))},
    "index_select": {"index": Tensor((2,), "int64", [0, 1])},
    "index_put": {"values": Tensor((3,))},
    "index_put_": {"values": Tensor((3,))},
    "masked_fill": {"value": Tensor(())},
    "masked_fill_": {"value": Tensor(())},
    "convolution": {"input": Tensor(_IMAGE), "weight": Tensor(_CONV_WEIGHT), "bias": Tensor((3,))},
    "convolution_backward": {
        "grad_output": Tensor((1, 3, 3, 3)),
        "input": Tensor(_IMAGE),
        "weight": Tensor(_CONV_WEIGHT),
    },
    "conv1d": {"input": Tensor((1, 2, 4)), "weight": Tensor((3, 2, 2))},
    "conv2d": {"input": Tensor(_IMAGE), "weight": Tensor(_CONV_WEIGHT)},
    "max_pool2d": {"self": Tensor(_IMAGE)},
    "max_pool2d_with_indices": {"self": Tensor(_IMAGE)},
    "max_pool2d_with_indices_backward": {
        "grad_output": Tensor(_POOLED),
        "self": Tensor(_IMAGE),
        "indices": Tensor(_POOLED, "int64", [0, 2, 8, 10] * 2),
    },
    "avg_pool2d": {"self": Tensor(_IMAGE)},
    "avg_pool2d_backward": {"grad_output": Tensor(_POOLED), "self": Tensor(_IMAGE)},
    "adaptive_avg_pool2d": {"self": Tensor(_IMAGE)},
    "_adaptive_avg_pool2d": {"self": Tensor(_IMAGE)},
    "_adaptive_avg_pool2d_backward": {"grad_output": Tensor(_POOLED), "self": Tensor(_IMAGE)},
    "embedding": {"weight": Tensor((4, 3)), "indices": _LABELS},
    "embedding_dense_backward": {"indices": _LABELS},
    "native_layer_norm": {"weight": Tensor((3,)), "bias": Tensor((3,))},
    "native_layer_norm_backward": {
        "mean": Tensor((2, 1)),
        "rstd": Tensor((2, 1)),
        "weight": Tensor((3,)),
        "bias": Tensor((3,)),
    },
    **{
        op: {name: Tensor((3,)) for name in ("weight", "bias", "running_mean", "running_var")}
        for op in ("batch_norm", "native_batch_norm")
    },
    "native_batch_norm_backward": {
        name: Tensor((3,)) for name in ("weight", "running_mean", "running_var", "save_mean", "save_invstd")
    },
    "nll_loss_forward": {"target": _LABELS, "weight": Tensor((3,))},
    "nll_loss_backward": {
        "grad_output": Tensor(()),
        "target": _LABELS,
        "weight": Tensor((3,)),
        "total_weight": Tensor(()),
    },
    "nll_loss": {"target": _LABELS},
    "nll_loss_nd": {"target": _LABELS},
    "cross_entropy_loss": {"target": _LABELS},
    "mse_loss_backward": {"grad_output": Tensor(())},
    "binary_cross_entropy": {"self": _PROBABILITIES, "target": _PROBABILITIES},
    "binary_cross_entropy_backward": {
        "grad_output": Tensor(()),
        "self": _PROBABILITIES,
        "target": _PROBABILITIES,
    },
    "reflection_pad2d": {"self": Tensor((1, 2, 3, 3))},
    "reflection_pad2d_backward": {"grad_output": Tensor((1, 2, 5, 5)), "self": Tensor((1, 2, 3, 3))},
    "replication_pad2d": {"self": Tensor((1, 2, 3, 3))},
    "replication_pad2d_backward": {"grad_output": Tensor((1, 2, 5, 5)), "self": Tensor((1, 2, 3, 3))},
    "linear": {"weight": Tensor((4, 3))},
    # random distributions: probabilities in [0, 1]
    "bernoulli": {"self": _PROBABILITIES},
    "bernoulli_": {"p": _PROBABILITIES},
    "bucketize": {"boundaries": Tensor((3,))},
    "bincount": {"self": Tensor((3,), "int64", [0, 2, 2])},
    "prelu": {"weight": Tensor((3,))},
    "glu_backward": {"grad_output": Tensor((1, 3))},
    "cosine_embedding_loss": {"target": Tensor((2,))},
    **{
        op: {"self": _SQUARE, "A": _SQUARE}
        for op in (
            "linalg_inv_ex",
            "linalg_inv",
            "inverse",
            "linalg_det",
            "det",
            "linalg_slogdet",
            "slogdet",
            "logdet",
            "_linalg_eigh",
            "linalg_eigh",
            "linalg_eigvalsh",
            "linalg_matrix_power",
        )
    },
    "linalg_solve_ex": {"A": _SQUARE, "B": _SQUARE},
    "linalg_solve": {"A": _SQUARE, "B": _SQUARE},
    "linalg_cholesky_ex": {"self": _POSITIVE_DEFINITE},
    "linalg_cholesky": {"self": _POSITIVE_DEFINITE},
    "linalg_multi_dot": {"tensors": [Tensor((2, 3)), Tensor((3, 2))]},
    "chain_matmul": {"matrices": [Tensor((2, 3)), Tensor((3, 2))]},
    "tensordot": {"other": Tensor((3, 2))},
    "cartesian_prod": {"tensors": [Tensor((2,)), Tensor((3,))]},
    "addmv": {"self": Tensor((2,)), "vec": Tensor((3,))},
    "addmv_": {"self": Tensor((2,)), "vec": Tensor((3,))},
    **{op: {"vec1": Tensor((2,)), "vec2": Tensor((3,))} for op in ("addr", "addr_")},
    **{
        op: {"self": Tensor((2, 2, 2)), "batch1": Tensor((2, 2, 3)), "batch2": Tensor((2, 3, 2))}
        for op in ("baddbmm", "baddbmm_")
    },
    **{
        op: {"self": Tensor((2, 2)), "batch1": Tensor((2, 2, 3)), "batch2": Tensor((2, 3, 2))}
        for op in ("addbmm", "addbmm_")
    },
    # linalg additions
    **{
        op: {"A": _SQUARE, "self": _SQUARE}
        for op in (
            "linalg_lu_factor_ex",
            "linalg_lu_factor",
            "linalg_lu",
            "linalg_matrix_exp",
            "matrix_exp",
            "linalg_eig",
            "linalg_eigvals",
            "linalg_cond",
        )
    },
    "lu_unpack": {"LU_data": _SQUARE, "LU_pivots": _PIVOTS},
    "linalg_lu_solve": {"LU": _SQUARE, "pivots": _PIVOTS, "B": _SQUARE},
    "lu_solve": {"self": _SQUARE, "LU_data": _SQUARE, "LU_pivots": _PIVOTS},
    "linalg_solve_triangular": {"self": _SQUARE, "B": _SQUARE},
    "triangular_solve": {"self": _SQUARE, "A": _SQUARE},
    "cholesky_solve": {"self": _SQUARE, "input2": _POSITIVE_DEFINITE},
    "cholesky_inverse": {"self": _POSITIVE_DEFINITE},
    "linalg_tensorinv": {"self": _INVERTIBLE_4X4},
    "linalg_tensorsolve": {"self": _SQUARE, "other": Tensor((2,))},
    "linalg_matmul": {"other": Tensor((3, 2))},
    "vdot": {"self": Tensor((3,)), "other": Tensor((3,))},
    "linalg_householder_product": {"input": Tensor((3, 2)), "tau": Tensor((2,))},
    "orgqr": {"self": Tensor((3, 2)), "input2": Tensor((2,))},
    # nn layers (more)
    "native_group_norm": {"input": Tensor((2, 4, 3)), "weight": Tensor((4,)), "bias": Tensor((4,))},
    "native_group_norm_backward": {
        "grad_out": Tensor((2, 4, 3)),
        "input": Tensor((2, 4, 3)),
        "mean": Tensor((2, 2)),
        "rstd": Tensor((2, 2)),
        "weight": Tensor((4,)),
    },
    "group_norm": {"input": Tensor((2, 4, 3))},
    "instance_norm": {
        "input": Tensor((2, 3, 4)),
        **{name: Tensor((3,)) for name in ("weight", "bias", "running_mean", "running_var")},
    },
    "adaptive_max_pool2d": {"self": Tensor(_IMAGE)},
    "adaptive_max_pool2d_backward": {
        "grad_output": Tensor(_POOLED),
        "self": Tensor(_IMAGE),
        "indices": Tensor(_POOLED, "int64", [0, 2, 8, 10] * 2),
    },
    **{
        op: {"self": Tensor((1, 2, 4))}
        for op in (
            "max_pool1d",
            "max_pool1d_with_indices",
            "avg_pool1d",
            "adaptive_avg_pool1d",
            "adaptive_max_pool1d",
        )
    },
    "conv_transpose1d": {"input": Tensor((1, 2, 4)), "weight": Tensor((2, 3, 2))},
    "conv_transpose2d": {"input": Tensor(_IMAGE), "weight": Tensor((2, 3, 2, 2))},
    **{
        op: {"self": Tensor((1, 2, 4)), "input": Tensor((1, 2, 4))}
        for op in ("upsample_nearest1d", "upsample_linear1d")
    },
    **{
        op: {"self": Tensor(_IMAGE), "input": Tensor(_IMAGE)}
        for op in ("upsample_nearest2d", "upsample_bilinear2d")
    },
    **{
        op: {"grad_output": Tensor((1, 2, 8))}
        for op in ("upsample_nearest1d_backward", "upsample_linear1d_backward")
    },
    **{
        op: {"grad_output": Tensor(_POOLED)}
        for op in ("upsample_nearest2d_backward", "upsample_bilinear2d_backward")
    },
    "pixel_shuffle": {"self": Tensor((1, 4, 2, 2))},
    "pixel_unshuffle": {"self": Tensor(_IMAGE)},
    "reflection_pad1d": {"self": Tensor((1, 2, 3))},
    "reflection_pad1d_backward": {"grad_output": Tensor((1, 2, 5)), "self": Tensor((1, 2, 3))},
    "replication_pad1d": {"self": Tensor((1, 2, 3))},
    "replication_pad1d_backward": {"grad_output": Tensor((1, 2, 5)), "self": Tensor((1, 2, 3))},
    "max_unpool2d": {"self": Tensor(_POOLED), "indices": Tensor(_POOLED, "int64", [0, 2, 8, 10] * 2)},
    # shapes area
    "repeat_interleave": {"repeats": Tensor((2,), "int64", [1, 2])},
    "meshgrid": {"tensors": [Tensor((2,)), Tensor((3,))]},
    "tensor_split": {"tensor_indices_or_sections": Tensor((1,), "int64", [1])},
    "combinations": {"self": Tensor((3,))},
    "vander": {"x": Tensor((3,))},
    "unfold_backward": {"grad_in": Tensor((2, 2, 2))},
    "dsplit": {"self": Tensor((2, 3, 2))},
    # indexing (more)
    **{
        op: {"index": Tensor((2,), "int64", [0, 1]), "value": Tensor(())}
        for base in ("index_add", "index_copy", "index_reduce", "index_fill")
        for op in (base, f"{base}_")
    },
    "take_along_dim": {"indices": Tensor((2, 3), "int64", [0, 1, 0, 1, 0, 1])},
    "select_scatter": {"src": Tensor((3,))},
    "diagonal_scatter": {"src": Tensor((2,))},
    # nn misc
    "channel_shuffle": {"self": Tensor((2, 4, 3))},
    "_pdist_backward": {"grad": Tensor((1,)), "pdist": Tensor((1,))},
    "multi_margin_loss": {"target": Tensor((2,), "int64", [0, 2])},
    "multi_margin_loss_backward": {"grad_output": Tensor(()), "target": Tensor((2,), "int64", [0, 2])},
    "multilabel_margin_loss_forward": {"target": Tensor((2, 3), "int64", [0, -1, 0, 1, 2, -1])},
    "multilabel_margin_loss_backward": {
        "grad_output": Tensor(()),
        "target": Tensor((2, 3), "int64", [0, -1, 0, 1, 2, -1]),
    },
    "_trilinear": {"i2": Tensor((3, 4)), "i3": Tensor((2, 4))},
    **{
        op: {
            "weight": Tensor((4, 3)),
            "indices": Tensor((3,), "int64", [0, 1, 3]),
            "offsets": Tensor((2,), "int64", [0, 2]),
            "per_sample_weights": Tensor((3,)),
        }
        for op in ("embedding_bag", "_embedding_bag")
    },
    "bilinear": {"input2": Tensor((2, 4)), "weight": Tensor((2, 3, 4))},
    "_embedding_bag_backward": {
        "indices": Tensor((3,), "int64", [0, 1, 3]),
        "offsets": Tensor((2,), "int64", [0, 2]),
        "offset2bag": Tensor((3,), "int64", [0, 0, 1]),
        "bag_size": Tensor((2,), "int64", [2, 1]),
        "maximum_indices": Tensor((2,), "int64", [2, 1]),
        "per_sample_weights": Tensor((3,)),
    },
    "_embedding_bag_per_sample_weights_backward": {
        "weight": Tensor((4, 3)),
        "indices": Tensor((3,), "int64", [0, 1, 3]),
        "offsets": Tensor((2,), "int64", [0, 2]),
        "offset2bag": Tensor((3,), "int64", [0, 0, 1]),
    },
    # nn 3-d layers and sliding blocks
    "conv3d": {"input": Tensor((1, 2, 3, 3, 3)), "weight": Tensor((2, 2, 2, 2, 2))},
    "conv_transpose3d": {"input": Tensor((1, 2, 3, 3, 3)), "weight": Tensor((2, 3, 2, 2, 2))},
    **{
        op: {"self": Tensor(_VOLUME), "grad_output": Tensor(_POOLED3), "indices": _VOLUME_INDICES}
        for op in (
            "max_pool3d",
            "max_pool3d_with_indices",
            "max_pool3d_with_indices_backward",
            "avg_pool3d",
            "avg_pool3d_backward",
            "adaptive_avg_pool3d",
            "_adaptive_avg_pool3d",
            "_adaptive_avg_pool3d_backward",
            "adaptive_max_pool3d",
            "adaptive_max_pool3d_backward",
        )
    },
    **{
        op: {"self": Tensor((1, 2, 3, 3, 3)), "grad_output": Tensor((1, 2, 5, 5, 5))}
        for op in _PAD3D_OPS
    },
    "max_unpool3d": {"self": Tensor(_POOLED3), "indices": _VOLUME_INDICES},
    "im2col": {"self": Tensor(_IMAGE)},
    "col2im": {"self": Tensor((1, 8, 9))},
    # quantiles, histograms
    "quantile": {"q": Tensor((2,), None, [0.25, 0.75])},
    "nanquantile": {"q": Tensor((2,), None, [0.25, 0.75])},
    "histogram": {"bins": Tensor((3,), None, [0, 1, 2])},
    "_histogramdd_from_bin_tensors": {"bins": [Tensor((2,), None, [0, 1])] * 3},
    "histogramdd": {"bins": [Tensor((2,), None, [0, 1])] * 3},
    # vision and sequence
    **{
        op: {"input": Tensor(_IMAGE), "grid": Tensor((1, 2, 2, 2)), "grad_output": Tensor(_POOLED)}
        for op in ("grid_sampler", "grid_sampler_2d", "grid_sampler_2d_backward")
    },
    **{
        op: {"input": Tensor(_VOLUME), "grid": Tensor((1, 2, 2, 2, 3)), "grad_output": Tensor(_POOLED3)}
        for op in ("grid_sampler_3d", "grid_sampler_3d_backward")
    },
    "affine_grid_generator": {"theta": Tensor((1, 2, 3))},
    "affine_grid_generator_backward": {"grad": Tensor((1, 2, 2, 2))},
    **{
        op: {
            "log_probs": Tensor((3, 1, 3)),
            "targets": Tensor((1, 2), "int64", [1, 2]),
            "input_lengths": Tensor((1,), "int64", [3]),
            "target_lengths": Tensor((1,), "int64", [2]),
            "grad": Tensor((1,)),
            "neg_log_likelihood": Tensor((1,)),
            "log_alpha": Tensor((1, 3, 5)),
        }
        for op in ("ctc_loss", "_ctc_loss", "_ctc_loss_backward")
    },
    **{
        op: {
            "self": Tensor(_IMAGE),
            "random_samples": Tensor((1, 2, 2), None, [0.5] * 4),
            "grad_output": Tensor(_POOLED),
            "indices": Tensor(_POOLED, "int64", [0, 2, 8, 10] * 2),
        }
        for op in ("fractional_max_pool2d", "fractional_max_pool2d_backward")
    },
    **{
        op: {
            "self": Tensor(_VOLUME),
            "random_samples": Tensor((1, 2, 3), None, [0.5] * 6),
            "grad_output": Tensor(_POOLED3),
            "indices": _VOLUME_INDICES,
        }
        for op in ("fractional_max_pool3d", "fractional_max_pool3d_backward")
    },
    "native_channel_shuffle": {"self": Tensor((2, 4, 3))},
    # linalg2: LDL, deprecated cholesky, matrix_power
    **{op: {"self": _POSITIVE_DEFINITE} for op in ("linalg_ldl_factor_ex", "linalg_ldl_factor", "cholesky")},
    "linalg_ldl_solve": {"LD": _POSITIVE_DEFINITE, "pivots": _PIVOTS, "B": _SQUARE},
    "matrix_power": {"self": _SQUARE},
    # gradient scaling
    "_amp_foreach_non_finite_check_and_unscale_": {
        "self": [Tensor((2, 3))],
        "found_inf": Tensor((), "float32", [0.0]),
        "inv_scale": Tensor((), "float32", [0.5]),
    },
    "_amp_update_scale_": {
        "self": Tensor((), None, [8.0]),
        "growth_tracker": Tensor((), "int32", [0]),
        "found_inf": Tensor((), "float32", [0.0]),
    },
    # misc3: ormqr, conv_tbc, embedding_renorm_, segment_reduce (lengths given though optional)
    "ormqr": {"self": Tensor((3, 2)), "input2": Tensor((2,)), "input3": Tensor((3, 2))},
    "conv_tbc": {"self": Tensor((3, 2, 2)), "weight": Tensor((2, 2, 2)), "bias": Tensor((2,))},
    "embedding_renorm_": {"indices": Tensor((2,), "int64", [0, 1])},
    "segment_reduce": {"data": Tensor((3,)), "lengths": Tensor((2,), "int64", [1, 2])},
    "_segment_reduce_backward": {
        "grad": Tensor((2,)),
        "output": Tensor((2,)),
        "data": Tensor((3,)),
        "lengths": Tensor((2,), "int64", [1, 2]),
    },
}
_MASK: Final = [True, False, True, False, True, False]
_INDEX_2D: Final = [0, 1, 0, 1, 0, 1]

# Values of non-tensor arguments without a usable default, by argument name (then by operator).
_VALUES: Final[dict[str, Any]] = {
    "dim": 0,
    "dim0": 0,
    "dim1": 1,
    "axis0": 0,
    "axis1": 1,
    "source": 0,
    "destination": 1,
    "index": 0,
    "start": 0,
    "end": 5,
    "length": 1,
    "chunks": 2,
    "split_size": [1, 1],
    "split_sizes": [1, 1],
    "size": [2, 3],
    "shape": [3, 2],
    "stride": [1, 1],
    "sizes": [2, 1],
    "repeats": [1, 2],
    "shifts": [1],
    "dims": [1, 0],
    "steps": 4,
    "n": 3,
    "m": 3,
    "low": 0,
    "high": 5,
    "from": 0,
    "to": 5,
    "other": 2,
    "exponent": 2,
    "fill_value": 1,
    "value": 1,
    "weight": 0.5,
    "min": 1,
    "max": 2,
    "p": 2,
    "keepdim": False,
    "rounding_mode": "trunc",
    "decimals": 1,
    "reduce": "add",
    "device": "cpu",
    "generator": None,
    "half_to_float": False,
    "padding": [0, 0],
    "dilation": [1, 1],
    "transposed": False,
    "output_padding": [0, 0],
    "groups": 1,
    "bias_sizes": [3],
    "output_mask": [True, True, True],
    "kernel_size": [2, 2],
    "ceil_mode": False,
    "count_include_pad": True,
    "divisor_override": None,
    "output_size": [2, 2],
    "num_weights": 4,
    "padding_idx": -1,
    "scale_grad_by_freq": False,
    "normalized_shape": [3],
    "eps": 1e-5,
    "training": True,
    "train": True,
    "momentum": 0.1,
    "cudnn_enabled": False,
    "reduction": 1,
    "ignore_index": -100,
    "pad": [1, 1],
    "scale": 2.0,
    "k": 1,
    "stable": True,
    "negative_slope": 0.01,
    "self_is_result": False,
    "alpha": 1,
    "input_scale": 1,
    "is_result": False,
    "beta": 1,
    "threshold": 1,
    "min_val": -1,
    "max_val": 1,
    "lambd": 0.5,
    "delta": 1.0,
    "log_input": True,
    "full": False,
    "C": 4,
    "HxW": 3,
    "group": 2,
    "num_groups": 2,
    "use_input_stats": True,
    "align_corners": False,
    "scale_factors": None,
    "upscale_factor": 2,
    "downscale_factor": 2,
}
_OP_VALUES: Final[dict[tuple[str, str], Any]] = {
    ("where", "self"): 2,
    ("pow", "self"): 2,
    ("remainder", "self"): 2,
    ("xlogy", "self"): 2,
    ("float_power", "self"): 2,
    ("unflatten", "dim"): 0,
    ("squeeze", "dim"): [0],
    ("squeeze_", "dim"): [0],
    ("flip", "dims"): [0],
    ("movedim", "source"): [0],
    ("movedim", "destination"): [1],
    ("moveaxis", "source"): [0],
    ("moveaxis", "destination"): [1],
    ("_reshape_alias", "stride"): [2, 1],
    ("as_strided", "stride"): [1, 3],
    ("as_strided_", "stride"): [1, 3],
    ("as_strided", "size"): [3, 2],
    ("as_strided_", "size"): [3, 2],
    ("view", "size"): [3, 2],
    ("_unsafe_view", "size"): [3, 2],
    ("_reshape_alias", "size"): [3, 2],
    ("_reshape_copy", "size"): [3, 2],
    ("expand", "size"): [2, 2, 3],
    ("max_pool2d_with_indices_backward", "stride"): [2, 2],
    ("avg_pool2d_backward", "stride"): [2, 2],
    ("reflection_pad2d", "padding"): [1, 1, 1, 1],
    ("reflection_pad2d_backward", "padding"): [1, 1, 1, 1],
    ("replication_pad2d", "padding"): [1, 1, 1, 1],
    ("replication_pad2d_backward", "padding"): [1, 1, 1, 1],
    ("native_dropout", "p"): 0.5,
    ("dropout", "p"): 0.5,
    ("threshold_backward", "threshold"): 0,
    ("geometric_", "p"): 0.5,
    ("bernoulli", "p"): 0.5,
    ("normal", "mean"): 0.0,
    ("normal", "std"): 1.0,
    ("multinomial", "num_samples"): 2,
    ("searchsorted", "self"): 2,
    ("bucketize", "self"): 2,
    ("linalg_matrix_norm", "ord"): 1,
    ("linalg_norm", "ord"): "fro",
    ("linalg_pinv", "rcond"): 1e-15,
    ("tensordot", "dims_self"): [1],
    ("tensordot", "dims_other"): [0],
    ("einsum", "equation"): "ij,ij->i",
    ("_cdist_forward", "compute_mode"): None,
    ("linalg_solve_triangular", "upper"): True,
    ("nuclear_norm", "dim"): [0, 1],
    ("linalg_cond", "p"): "fro",
    # nn layers (more)
    **{(op, "output_size"): [8] for op in ("upsample_nearest1d", "upsample_linear1d")},
    **{(f"{op}_backward", "output_size"): [8] for op in ("upsample_nearest1d", "upsample_linear1d")},
    **{(f"{op}_backward", "input_size"): [1, 2, 4] for op in ("upsample_nearest1d", "upsample_linear1d")},
    **{
        (f"{op}_backward", "input_size"): [1, 2, 4, 4] for op in ("upsample_nearest2d", "upsample_bilinear2d")
    },
    **{(op, "kernel_size"): [2] for op in ("max_pool1d", "max_pool1d_with_indices", "avg_pool1d")},
    **{(op, "output_size"): [2] for op in ("adaptive_avg_pool1d", "adaptive_max_pool1d")},
    ("native_group_norm", "N"): 2,
    ("max_unpool2d", "output_size"): [4, 4],
    ("native_group_norm_backward", "N"): 2,
    ("feature_dropout", "p"): 0.5,
    ("feature_dropout_", "p"): 0.5,
    ("alpha_dropout", "p"): 0.5,
    ("alpha_dropout_", "p"): 0.5,
    ("feature_alpha_dropout", "p"): 0.5,
    ("feature_alpha_dropout_", "p"): 0.5,
    # shapes area
    ("meshgrid", "indexing"): "ij",
    ("repeat_interleave", "repeats"): 2,
    ("tensor_split", "sections"): 2,
    ("tensor_split", "indices"): [1],
    **{(op, "sections"): 1 for op in ("hsplit", "vsplit", "dsplit")},
    **{(op, "indices"): [1] for op in ("hsplit", "vsplit", "dsplit")},
    ("unfold", "dimension"): 1,
    ("unfold", "size"): 2,
    ("unfold", "step"): 1,
    ("unfold_backward", "input_sizes"): [2, 3],
    ("unfold_backward", "dim"): 1,
    ("unfold_backward", "size"): 2,
    ("unfold_backward", "step"): 1,
    ("sum_to_size", "size"): [1, 3],
    ("unsafe_split", "split_size"): 1,
    ("unsafe_chunk", "chunks"): 2,
    ("new_empty_strided", "stride"): [3, 1],
    **{(op, "reduce"): "sum" for op in ("scatter_reduce", "scatter_reduce_")},
    **{(op, "reduce"): "prod" for op in ("index_reduce", "index_reduce_")},
    ("masked_scatter_backward", "sizes"): [3],
    # nn misc
    ("rrelu_with_noise_backward", "lower"): 0.1,
    ("rrelu_with_noise_backward", "upper"): 0.3,
    ("rrelu_with_noise_backward", "training"): False,
    ("rrelu_with_noise_backward", "self_is_result"): False,
    ("channel_shuffle", "groups"): 2,
    ("_pdist_backward", "p"): 2.0,
    ("multi_margin_loss_backward", "p"): 1,
    ("multi_margin_loss_backward", "margin"): 1.0,
    ("_trilinear", "expand1"): [2],
    ("_trilinear", "expand2"): [0],
    ("_trilinear", "expand3"): [1],
    ("_trilinear", "sumdim"): [1],
    ("_embedding_bag_backward", "num_weights"): 4,
    ("_embedding_bag_backward", "scale_grad_by_freq"): False,
    ("_embedding_bag_backward", "mode"): 0,
    ("_embedding_bag_backward", "sparse"): False,
    ("_embedding_bag_per_sample_weights_backward", "mode"): 0,
    ("embedding_bag", "scale_grad_by_freq"): False,
    ("embedding_bag", "mode"): 0,
    ("embedding_bag", "sparse"): False,
    ("embedding_bag", "include_last_offset"): False,
    ("embedding_bag", "padding_idx"): None,
    ("rms_norm", "normalized_shape"): [3],
    # nn 3-d layers and sliding blocks
    **{
        (op, name): value
        for op in (
            "max_pool3d",
            "max_pool3d_with_indices",
            "max_pool3d_with_indices_backward",
            "avg_pool3d",
            "avg_pool3d_backward",
            "adaptive_avg_pool3d",
            "_adaptive_avg_pool3d",
            "adaptive_max_pool3d",
            "max_unpool3d",
        )
        for name, value in (
            ("kernel_size", [2, 2, 2]),
            ("stride", [2, 2, 2]),
            ("padding", [0, 0, 0]),
            ("dilation", [1, 1, 1]),
            ("output_size", [4, 4, 4] if op == "max_unpool3d" else [2, 2, 2]),
        )
    },
    **{
        (op, "padding"): [1] * 6
        for op in _PAD3D_OPS
    },
    ("col2im", "output_size"): [4, 4],
    # math, special functions, statistics
    ("bitwise_left_shift", "self"): 2,
    ("bitwise_right_shift", "self"): 2,
    ("mvlgamma", "p"): 1,
    ("mvlgamma_", "p"): 1,
    **{(op, "p"): 2 for op in ("renorm", "renorm_")},
    **{(op, "maxnorm"): 1.0 for op in ("renorm", "renorm_")},
    ("isin", "element"): 2,
    ("isin", "test_element"): 2,
    **{
        (op, name): value
        for op in ("hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window")
        for name, value in (("window_length", 4), ("periodic", True), ("alpha", 0.5), ("beta", 0.4))
    },
    # quantiles, histograms, torch.special
    **{(op, "self"): 2 for op in ("special_xlogy", "special_xlog1py", "special_zeta")},
    ("quantile", "q"): 0.5,
    ("nanquantile", "q"): 0.5,
    **{
        (op, "bins"): [2, 2, 2]
        for op in ("histogramdd", "_histogramdd_bin_edges", "_histogramdd_from_bin_cts")
    },
    # misc top-level and Tensor API
    ("unfold_copy", "dimension"): 1,
    ("unfold_copy", "size"): 2,
    ("unfold_copy", "step"): 1,
    ("empty_permuted", "physical_layout"): [1, 0],
    ("set_", "storage_offset"): 1,
    ("set_", "size"): [2, 2],
    ("set_", "source"): Storage(Tensor((2, 3))),
    # vision and sequence
    **{
        (op, name): 0
        for op in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d")
        for name in ("interpolation_mode", "padding_mode")
    },
    **{
        (f"{op}_backward", name): 0
        for op in ("grid_sampler_2d", "grid_sampler_3d")
        for name in ("interpolation_mode", "padding_mode")
    },
    **{(f"grid_sampler_{n}d_backward", "output_mask"): [True, True] for n in (2, 3)},
    ("affine_grid_generator", "size"): [1, 1, 2, 2],
    ("affine_grid_generator_backward", "size"): [1, 1, 2, 2],
    **{(op, "input_lengths"): [3] for op in ("ctc_loss", "_ctc_loss", "_ctc_loss_backward")},
    **{(op, "target_lengths"): [2] for op in ("ctc_loss", "_ctc_loss", "_ctc_loss_backward")},
    ("_ctc_loss_backward", "blank"): 0,
    **{(op, "kernel_size"): [2, 2, 2] for op in ("fractional_max_pool3d", "fractional_max_pool3d_backward")},
    **{(op, "output_size"): [2, 2, 2] for op in ("fractional_max_pool3d", "fractional_max_pool3d_backward")},
    ("native_channel_shuffle", "groups"): 2,
    # torch.fft primitives (dim 0 of the (2, 3) sample: 2 // 2 + 1 = 2 onesided points)
    **{(op, "normalization"): 1 for op in ("_fft_r2c", "_fft_c2r", "_fft_c2c")},
    ("_fft_r2c", "onesided"): True,
    ("_fft_c2r", "last_dim_size"): 2,
    ("_fft_c2c", "forward"): True,
    **{(op, "n_fft"): 2 for op in ("stft", "istft")},
    ("_amp_update_scale_", "scale_growth_factor"): 2.0,
    ("_amp_update_scale_", "scale_backoff_factor"): 0.5,
    ("_amp_update_scale_", "growth_interval"): 2000,
    ("embedding_renorm_", "max_norm"): 1.0,
    ("embedding_renorm_", "norm_type"): 2.0,
    **{(op, "reduce"): "sum" for op in ("segment_reduce", "_segment_reduce_backward")},
}


def _base_type(a: Argument) -> BaseTy | None:
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    return t.ty if isinstance(t, BaseType) else None


def _is_list(a: Argument) -> bool:
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    return isinstance(t, ListType)


def is_tensor(a: Argument) -> bool:
    return str(a.type).startswith("Tensor")


def _is_out(a: Argument) -> bool:
    return a.kwarg_only and a.alias_info is not None and a.alias_info.is_write


def _tensor(op: str, schema: FunctionSchema, a: Argument) -> Any:
    given = _TENSORS.get(op, {}).get(a.name)
    if given is not None:
        return given
    if a.name in ("mask", "condition"):
        return Tensor((2, 3), "bool", _MASK)
    if a.name == "index":
        return Tensor((2, 3), "int64", _INDEX_2D)
    if a.name == "indices":
        return [Tensor((2,), "int64", [0, 1])]
    if a.name == "tensors":
        return [Tensor((2, 3)), Tensor((2, 3))]
    if a.name == "start":  # narrow.Tensor
        return Tensor((), "int64", [0])
    if _is_out(a):  # an out= tensor; its return says what it holds
        outs = [x.name for x in schema.arguments if _is_out(x)]
        returned = schema.returns[outs.index(a.name)].name
        return Tensor((0,), "int64" if returned == "indices" else None)
    return Tensor((2, 3))


def sample_arguments(f: NativeFunction) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for one call of `f` (tensors as `Tensor` placeholders)."""
    schema = f.schema
    op = schema.name.partition("::")[2]
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for a in schema.arguments:
        if is_tensor(a):
            required = (
                not a.has_default
                or (op.startswith(("clamp", "clip")) and a.name == "min")
                or (a.kwarg_only and a.name in _TENSORS.get(op, {}))
            )
            if not required:
                continue
            value = _tensor(op, schema, a)
        elif a.has_default and not (op.startswith(("clamp", "clip")) and a.name == "min"):
            continue
        elif _base_type(a) is BaseTy.ScalarType:
            value = DType()
        elif (op, a.name) in _OP_VALUES:
            value = _OP_VALUES[op, a.name]
        elif a.name in _VALUES:
            value = _VALUES[a.name]
        else:
            raise KeyError(f"{schema}: no sample value for argument {a.name!r}")
        if _is_list(a) and isinstance(value, int):
            value = [value]
        elif not _is_list(a) and isinstance(value, list):
            value = value[0]
        if a.kwarg_only:
            kwargs[a.name] = value
        else:
            args.append(value)
    return args, kwargs


def describe(args: list[Any], kwargs: dict[str, Any]) -> str:
    """The sample arguments as text (the dtype under test shows as "T")."""

    def one(v: Any) -> str:
        if isinstance(v, (Tensor, DType, Storage)):
            return v.describe()
        if isinstance(v, list):
            return f"[{', '.join(one(x) for x in v)}]"
        return repr(v)

    return ", ".join([one(v) for v in args] + [f"{k}={one(v)}" for k, v in kwargs.items()])


def cases() -> list[NativeFunction]:
    """The overloads the matrix covers: every yaml entry with a tensor argument (each has a CPU or
    composite kernel)."""
    return [f for f in load_native_functions() if any(is_tensor(a) for a in f.schema.arguments)]


def case_name(f: NativeFunction) -> str:
    return f"{f.schema.name}.{f.schema.overload_name}" if f.schema.overload_name else f.schema.name


def _materialize(value: Any, lib: ModuleType, dtype: str) -> Any:
    if isinstance(value, Tensor):
        if (value.dtype or dtype) == "bfloat16":  # neither library takes NumPy's (ml_dtypes') bfloat16
            return lib.tensor(value.array("float32")).to(lib.bfloat16)
        return lib.tensor(value.array(dtype))
    if isinstance(value, DType):
        return getattr(lib, dtype)
    if isinstance(value, Storage):
        return lib.tensor(value.tensor.array(dtype)).untyped_storage()
    if isinstance(value, list):
        return [_materialize(v, lib, dtype) for v in value]
    if isinstance(value, dict):
        return {k: _materialize(v, lib, dtype) for k, v in value.items()}
    return value


def _dtypes(result: Any) -> Any:
    if isinstance(result, (list, tuple)):
        return [_dtypes(r) for r in result]
    if isinstance(result, bool):  # allclose, equal
        return "bool"
    if result is None:  # operators returning nothing (`-> ()`)
        return "none"
    return str(result.dtype).rpartition(".")[2]


def outcome(lib: ModuleType, f: NativeFunction, dtype: str) -> list[Any]:
    """Call `f` on `lib` (framework or torch) with tensors of `dtype`: ["ok", result dtypes] or
    [exception type name, first line of its message]."""
    args, kwargs = sample_arguments(f)
    name, overload = f.schema.name.partition("::")[2], f.schema.overload_name or "default"
    op = getattr(getattr(lib.ops.aten, name), overload)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = op(*_materialize(args, lib, dtype), **_materialize(kwargs, lib, dtype))
        except Exception as e:  # the behaviour under test: which exception, and its text
            return [type(e).__name__, str(e).partition("\n")[0]]
    return ["ok", _dtypes(result)]


def main() -> None:
    import torch

    recorded = {}
    for f in cases():
        args, kwargs = sample_arguments(f)
        recorded[case_name(f)] = {
            "args": describe(args, kwargs),
            "outcomes": {d: outcome(torch, f, d) for d in DTYPES},
        }
    lines = ",\n".join(f"{json.dumps(name)}: {json.dumps(entry)}" for name, entry in recorded.items())
    FIXTURE_PATH.write_text(
        f'{{"torch_version": {json.dumps(torch.__version__)},\n"dtypes": {json.dumps(DTYPES)},\n'
        f'"cases": {{\n{lines}\n}}}}\n'
    )
    print(f"wrote {len(recorded)} overloads x {len(DTYPES)} dtypes to {FIXTURE_PATH}")


if __name__ == "__main__":
    main()
