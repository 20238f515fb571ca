"""The legacy hook-based spectral normalization (PyTorch's `torch.nn.utils.spectral_norm`): the
parameter moves to `<name>_orig`, buffers `<name>_u`/`<name>_v` hold the power iteration's
singular vectors, and a forward pre-hook sets `<name> = <name>_orig / sigma` before every call
(advancing the power iteration in training mode)."""

from __future__ import annotations

from typing import TypeVar

from framework._generated.functions import dot, mv
from framework._tensor import Tensor
from framework.autograd import no_grad
from framework.nn.functional import normalize
from framework.nn.modules.conv import _ConvTransposeNd
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]

T_module = TypeVar("T_module", bound=Module)


def check_power_iterations(n_power_iterations: int) -> None:
    if n_power_iterations <= 0:
        raise ValueError(
            f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
        )


def weight_matrix(weight: Tensor, dim: int) -> Tensor:
    """`weight` as a matrix: dimension `dim` first, the others flattened into columns."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.reshape(weight.size(0), -1)


def random_singular_vectors(weight_mat: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """The power iteration's starting `u` and `v`: normal draws (u's first) of the sizes of
    `weight_mat`'s rows and columns, normalized."""
    h, w = weight_mat.shape
    u = normalize(weight_mat.new_empty(h).normal_(0, 1), dim=0, eps=eps)
    v = normalize(weight_mat.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    return u, v


class SpectralNorm:
    """The forward pre-hook dividing `<name>_orig` by its largest singular value (estimated by
    power iteration from the vectors in `<name>_u`, `<name>_v`)."""

    _version: int = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        check_power_iterations(n_power_iterations)
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """`weight` as a matrix: dimension `dim` first, the others flattened into columns."""
        return weight_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight: Tensor = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                u = u.clone()
                v = v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Put back `<name>` as one parameter holding the current normalized weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: object) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            u, v = random_singular_vectors(fn.reshape_weight_to_matrix(weight), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: T_module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> T_module:
    """Normalize `module.<name>` by its spectral norm (largest singular value of the weight as a
    matrix with dimension `dim` as rows: 1 for transposed convolutions, else 0 by default),
    estimated with `n_power_iterations` power-iteration steps per training forward."""
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo `spectral_norm` on `module.<name>`."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
