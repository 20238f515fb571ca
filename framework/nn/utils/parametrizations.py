"""Parametrizations built on `framework.nn.utils.parametrize` (PyTorch's
`torch.nn.utils.parametrizations`): `orthogonal` (orthogonal or unitary matrices from the matrix
exponential, the Cayley map or Householder reflectors), `weight_norm` (magnitude `original0` and
direction `original1`) and `spectral_norm` (the weight divided by its largest singular value,
estimated by power iteration with vectors kept in buffers `_u`, `_v`)."""

from __future__ import annotations

from typing import Any, Final, TypeVar

import framework
from framework._generated.functions import _weight_norm, dot, mv, norm_except_dim
from framework._tensor import Tensor
from framework._type_info import finfo
from framework.autograd import no_grad
from framework.nn.functional import normalize
from framework.nn.modules.conv import _ConvTransposeNd
from framework.nn.modules.module import Module
from framework.nn.utils import parametrize
from framework.nn.utils.spectral_norm import check_power_iterations, random_singular_vectors, weight_matrix

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

T_module = TypeVar("T_module", bound=Module)


_ORTHOGONAL_MAPS: Final = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q: Tensor) -> bool:
    """Q^H Q is the identity, to 10 n eps."""
    n, k = Q.size(-2), Q.size(-1)
    eye = framework.eye(k, dtype=Q.dtype, device=Q.device)
    return framework.allclose(Q.mH @ Q, eye, atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of the QR factorization of the tall `A` whose R has a real non-negative diagonal
    (geqrf's R diagonal holds the signs to undo)."""
    X, tau = framework.geqrf(A)
    Q = framework.linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained (batch of) matrix to an orthogonal (unitary) one of the same shape;
    with the trivialization, the result is `base @ map(X)` for the buffer `base` that
    `right_inverse` sets."""

    base: Tensor

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == "householder":
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            # X's diagonal (ones and minus ones) gives the signs of Q's columns, not differentiated
            Q = framework.linalg.householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(
                -2
            )
        else:
            X = X.tril()
            if n != k:  # embedded in an n x n matrix: n k - k (k - 1) / 2 parameters
                X = framework.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == "matrix_exp":
                Q = framework.matrix_exp(A)
            else:  # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                eye = framework.eye(n, dtype=A.dtype, device=A.device)
                Q = framework.linalg.solve(
                    framework.add(eye, A, alpha=-0.5), framework.add(eye, A, alpha=0.5)
                )
            if n != k:
                Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """Without the trivialization: X with forward(X) = Q for the Householder map (from Q's
        QR factorization); the others cannot be inverted.  With it: `base` becomes Q made
        orthogonal (completed by random columns when not square) and X is minus the identity,
        which the maps send to the identity."""
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                    f"{Q.shape}."
                )
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map != "householder":
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                A, tau = framework.geqrf(Q)
                # diag(R) > 0: the diagonal keeps R's signs, flipped where no reflection was used
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = framework.randn(*Q.size()[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(framework.cat([Q, N], dim=-1))
            self.base = Q
            neg_eye = framework.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(
    module: T_module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> T_module:
    """Parametrize the (batch of) matrix `module.<name>` (m x n) as orthogonal or unitary:
    orthonormal columns when m >= n, rows otherwise.  `orthogonal_map` is "matrix_exp" or
    "cayley" (of a skew-symmetric matrix) or "householder" (a product of reflectors; real
    only), by default "matrix_exp" for square or complex matrices, else "householder".  With
    `use_trivialization` (the default) an extra buffer `base` holds the current orthogonal
    point (PyTorch's dynamic trivialization).  Initially the matrix is the tensor itself if it
    is orthogonal, else the Q of its QR factorization."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Parametrize `module.<name>` as `g * v / ||v||` (norm over every dimension but `dim`, over
    the whole tensor when `dim` is None): `parametrizations.<name>.original0` is the magnitude
    `g`, `original1` the direction `v`.  State dicts of the legacy `nn.utils.weight_norm`
    (`<name>_g`, `<name>_v`) load into it too."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict: dict[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    _u: Tensor
    _v: Tensor

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})"
            )
        check_power_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = weight_matrix(weight, self.dim)
            u, v = random_singular_vectors(weight_mat, self.eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """Advance the singular-vector estimates `_u`, `_v` in place."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = weight_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: T_module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> T_module:
    """Parametrize `module.<name>` as itself divided by its spectral norm, estimated by power
    iteration (`n_power_iterations` steps per training-mode access, 15 at registration) on the
    weight as a matrix with dimension `dim` as rows (1 for transposed convolutions, else 0, by
    default); a 1-d weight is simply normalized."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
