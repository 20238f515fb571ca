"""The operators PyTorch binds in Python (torch/functional.py) rather than from its yaml: their
Python signatures differ from their schemas (tensors as separate arguments, `dims` as an int or a
pair of lists, `compute_mode` as a string, stft's centering padding done before the operator).
Each normalizes its arguments and calls the operator; the code generator leaves these names out
of `framework._generated.functions`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import framework.ops
from framework._size import Size
from framework._tensor import Tensor
from framework._tensor_new import tensor
from framework.c10.dtypes import bool_, int64
from framework.ops._api_runtime import function
from framework.ops.kernels.fft import center_pad

_einsum: Final = function("einsum")
_tensordot: Final = function("tensordot")
_block_diag: Final = function("block_diag")
_cartesian_prod: Final = function("cartesian_prod")
_cdist: Final = function("cdist")
_chain_matmul: Final = function("chain_matmul")
_meshgrid: Final = function("meshgrid")
_broadcast_tensors: Final = function("broadcast_tensors")
_atleast_1d: Final = function("atleast_1d")
_atleast_2d: Final = function("atleast_2d")
_atleast_3d: Final = function("atleast_3d")
_lu_with_info: Final = function("_lu_with_info")
_aten_ops: Final[Any] = framework.ops.aten


def _subscript(n: Any) -> str:
    if n is Ellipsis:
        return "..."
    if isinstance(n, int) and 0 <= n < 26:
        return chr(ord("A") + n)
    if isinstance(n, int) and 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args: Any) -> Tensor:
    """einsum(equation, *operands), einsum(equation, [operands]), or the sublist format
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand "
            "and its subscripts list"
        )
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        operands = list(args[0::2][: len(args) // 2])
        sublists = args[1::2]
        equation = ",".join("".join(_subscript(n) for n in sub) for sub in sublists)
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(n) for n in args[-1])
    result: Tensor = _einsum(equation, operands)
    return result


def tensordot(
    a: Tensor, b: Tensor, dims: int | Sequence[int] | Sequence[Sequence[int]] | Tensor = 2
) -> Tensor:
    """Contract the last `dims` dimensions of a with the first `dims` of b, or the dimensions
    `dims = (dims_a, dims_b)` names."""
    spec: Any = dims.tolist() if isinstance(dims, Tensor) else dims
    if isinstance(spec, int):
        if spec < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={spec}")
        dims_a: list[int] = list(range(-spec, 0))
        dims_b: list[int] = list(range(spec))
    else:
        if len(spec) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dimensions (or an int)")
        first, second = spec
        dims_a = [first] if isinstance(first, int) else list(first)
        dims_b = [second] if isinstance(second, int) else list(second)
    result: Tensor = _tensordot(a, b, dims_a, dims_b)
    return result


def block_diag(*tensors: Tensor) -> Tensor:
    """A block diagonal matrix of the tensors (0-D: 1x1 blocks, 1-D: rows)."""
    result: Tensor = _block_diag(list(tensors))
    return result


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of the 1-D tensors' elements, one per row."""
    result: Tensor = _cartesian_prod(list(tensors))
    return result


_COMPUTE_MODES: Final = {
    "use_mm_for_euclid_dist_if_necessary": None,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def cdist(
    x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Tensor:
    """The p-norm distances between each row of x1 and each row of x2 (batch dimensions
    broadcast); Euclidean distances through a matrix product for more than 25 rows, or always
    ("use_mm_for_euclid_dist"), or never ("donot_use_mm_for_euclid_dist")."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    result: Tensor = _cdist(x1, x2, p, _COMPUTE_MODES[compute_mode])
    return result


def chain_matmul(*matrices: Tensor) -> Tensor:
    """Deprecated: linalg.multi_dot of the 2-D tensors."""
    result: Tensor = _chain_matmul(list(matrices))
    return result


def meshgrid(*tensors: Tensor | Sequence[Tensor], indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of the 0-D/1-D tensors (given separately or as one list): "ij"
    (matrix) or "xy" (Cartesian) indexing; without `indexing`, "ij" and PyTorch's warning."""
    operands = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    if indexing is None:
        return tuple(_meshgrid(list(operands)))
    return tuple(_meshgrid(list(operands), indexing=indexing))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded (as views) to their common broadcast shape."""
    return tuple(_broadcast_tensors(list(tensors)))


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The shape tensors of `shapes` broadcast to (an int is a 1-D shape), without making them."""
    given = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}"
            )
    common = [1] * max((len(s) for s in given), default=0)
    for index, shape in enumerate(given):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            elif shape[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching argument "
                    f"at index {index} had {shape}; but expected shape should be broadcastable to {common}"
                )
    return Size(common)


def _atleast(op: Any, tensors: tuple[Tensor | Sequence[Tensor], ...]) -> Tensor | tuple[Tensor, ...]:
    """One tensor in, one out; several (or one sequence) in, a tuple out."""
    operands = tensors[0] if len(tensors) == 1 else tensors
    if isinstance(operands, (list, tuple)):
        return tuple(op(list(operands)))
    result: Tensor = op(operands)
    return result


def atleast_1d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """The tensors with at least one dimension (0-D ones reshaped to [1])."""
    return _atleast(_atleast_1d, tensors)


def atleast_2d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """The tensors with at least two dimensions (leading size-1 dimensions added)."""
    return _atleast(_atleast_2d, tensors)


def atleast_3d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """The tensors with at least three dimensions (1-D [n] becomes [1, n, 1], 2-D [m, n] becomes
    [m, n, 1], as NumPy's atleast_3d)."""
    return _atleast(_atleast_3d, tensors)


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of `shape` of each flat (row-major) index: one int64 tensor per
    dimension, shaped like `indices`.  As in PyTorch, indices are not checked: each coordinate is
    the index floor-divided by the size of the dimensions after it, modulo its own size."""
    d = indices.dtype
    if d.is_floating_point or d.is_complex or d is bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {d}")
    if isinstance(shape, int):
        sizes = [shape]
    elif isinstance(shape, Sequence):
        for n in shape:
            if not isinstance(n, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(n)}")
        sizes = list(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(n < 0 for n in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(sizes)}")
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    coordinates = indices.unsqueeze(-1).floor_divide(tensor(strides, dtype=int64, device=indices.device))
    return tuple((coordinates % tensor(sizes, dtype=int64, device=indices.device)).unbind(-1))


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:
    """Deprecated: the LU factorization and pivots of linalg.lu_factor_ex, and its info when
    get_infos."""
    LU, pivots, infos = _lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """The short-time Fourier transform of a 1-D signal or a batch of them: frames of n_fft
    points every hop_length (default n_fft // 4), each times `window` (win_length points, default
    n_fft, zero-padded to n_fft; rectangular when not given) and transformed. With `center`, the
    signal is padded by n_fft // 2 on both sides (`pad_mode`) first. The result is
    (batch?, n_fft // 2 + 1 or n_fft, frames), complex unless return_complex=False (required for
    real input)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        input = center_pad(input, n_fft, pad_mode)
    result: Tensor = _aten_ops.stft.default(
        input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, align_to_window
    )
    return result


__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "einsum",
    "lu",
    "meshgrid",
    "stft",
    "tensordot",
    "unravel_index",
]
