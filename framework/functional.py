"""The operators PyTorch binds in Python (torch/functional.py) rather than from its yaml: their
Python signatures differ from their schemas (tensors as separate arguments, `dims` as an int or a
pair of lists, `compute_mode` as a string).  Each normalizes its arguments and calls the
operator; the code generator leaves these names out of `framework._generated.functions`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from framework._tensor import Tensor
from framework.ops._api_runtime import function

_einsum: Final = function("einsum")
_tensordot: Final = function("tensordot")
_block_diag: Final = function("block_diag")
_cartesian_prod: Final = function("cartesian_prod")
_cdist: Final = function("cdist")
_chain_matmul: Final = function("chain_matmul")
_lu_with_info: Final = function("_lu_with_info")


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


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:
    """Deprecated: the LU factorization and pivots of linalg.lu_factor_ex, and its info when
    get_infos."""
    LU, pivots, infos = _lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


__all__ = ["block_diag", "cartesian_prod", "cdist", "chain_matmul", "einsum", "lu", "tensordot"]
