"""Linear-algebra functions PyTorch removed in 1.9 but still exposes (torch._linalg_utils):
`solve`, `lstsq`, `eig`, `symeig` and `matrix_rank` keep their old signatures and raise
PyTorch's RuntimeError naming the torch.linalg replacement; Tensor.solve, lstsq, eig and symeig
call them."""

from __future__ import annotations

from typing import NoReturn

from framework._tensor import Tensor

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(
    input: Tensor, tol: float | None = None, symmetric: bool = False, *, out: Tensor | None = None
) -> NoReturn:
    """Removed: use framework.linalg.matrix_rank (whose `hermitian` was `symmetric`)."""
    raise RuntimeError(
        _REMOVED + "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' "
        "was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


def solve(input: Tensor, A: Tensor, *, out: Tensor | None = None) -> NoReturn:
    """Removed: use framework.linalg.solve(A, input)."""
    raise RuntimeError(
        _REMOVED
        + " `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
        "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, "
        "A).solution should be replaced with:\nX = torch.linalg.solve(A, B)"
    )


def lstsq(input: Tensor, A: Tensor, *, out: Tensor | None = None) -> NoReturn:
    """Removed: use framework.linalg.lstsq(A, input)."""
    raise RuntimeError(
        _REMOVED + " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
        "reversed arguments and does not return the QR decomposition in the returned tuple (although it "
        "returns other information about the problem).\n\nTo get the QR decomposition consider using "
        "`torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution "
        "in the last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the "
        "residuals are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
        "torch.linalg.lstsq(A, B).solution"
    )


def symeig(
    input: Tensor, eigenvectors: bool = False, upper: bool = True, *, out: Tensor | None = None
) -> NoReturn:
    """Removed: use framework.linalg.eigvalsh / eigh."""
    raise RuntimeError(
        _REMOVED
        + " The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be "
        "replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
        "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' "
        "if upper else 'L')"
    )


def eig(
    self: Tensor, eigenvectors: bool = False, *, e: Tensor | None = None, v: Tensor | None = None
) -> NoReturn:
    """Removed: use framework.linalg.eigvals / eig (complex results)."""
    raise RuntimeError(
        _REMOVED
        + " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced "
        "with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )
