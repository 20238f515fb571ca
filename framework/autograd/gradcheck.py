"""`gradcheck` and `gradgradcheck`: compare the gradients autograd computes with central finite
differences (PyTorch's slow mode, with its default tolerances and failure report)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from framework.autograd.engine import grad as autograd_grad

if TYPE_CHECKING:
    from framework._tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a check fails."""


def _tensors(value: Any) -> tuple[Tensor, ...]:
    from framework._tensor import Tensor

    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(v for v in value if isinstance(v, Tensor))
    return ()


def _as_tuple(inputs: Any) -> tuple[Any, ...]:
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def _values(outputs: Sequence[Tensor]) -> list[npt.NDArray[Any]]:
    return [
        np.array(o._impl.numpy_view(), dtype=np.float64 if not o.dtype.is_complex else np.complex128)
        for o in outputs
    ]


def _has_overlap(t: Tensor) -> bool:
    from framework.ops.kernels._registry import has_internal_overlap

    if t.numel() == 0:
        return False
    return any(
        st == 0 and n > 1 for n, st in zip(t.shape, t._impl.strides, strict=True)
    ) or has_internal_overlap(t._impl)


def _numerical(
    fn: Callable[..., Any], inputs: tuple[Any, ...], diff: list[Tensor], sizes: list[int], eps: float
) -> list[list[npt.NDArray[Any]]]:
    """jacobians[i][o]: d output o / d input i, shape (numel of input i, numel of output o)."""
    n_outputs = len(sizes)
    jacobians: list[list[npt.NDArray[Any]]] = []
    for t in diff:
        array = t._impl.numpy_view()
        columns: list[list[npt.NDArray[Any]]] = [[] for _ in range(n_outputs)]
        for index in np.ndindex(*t.shape):
            original = array[index].copy()
            array[index] = original - eps
            minus = _values(_tensors(fn(*inputs)))
            array[index] = original + eps
            plus = _values(_tensors(fn(*inputs)))
            array[index] = original
            for o in range(n_outputs):
                columns[o].append(((plus[o] - minus[o]) / (2 * eps)).reshape(-1))
        jacobians.append(
            [np.stack(c) if c else np.zeros((0, size)) for c, size in zip(columns, sizes, strict=True)]
        )
    return jacobians


def _analytical(outputs: Sequence[Tensor], diff: list[Tensor]) -> list[list[npt.NDArray[Any]]]:
    import framework

    jacobians = [[np.zeros((t.numel(), o.numel())) for o in outputs] for t in diff]
    for o, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for k in range(out.numel()):
            seed = framework.zeros(out.shape, dtype=out.dtype, device=out.device)
            seed.view(-1)[k] = 1
            grads = autograd_grad(out, diff, seed, retain_graph=True, allow_unused=True)
            for i, g in enumerate(grads):
                if g is not None:
                    if g.shape != diff[i].shape:
                        raise GradcheckError(
                            f"Gradient has shape mismatch: {list(g.shape)} vs {list(diff[i].shape)}"
                        )
                    jacobians[i][o][:, k] = np.asarray(g._impl.numpy_view(), dtype=np.float64).reshape(-1)
    return jacobians


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
) -> bool:
    """Check the gradients of `func` at `inputs` (the tensors among them that require grad)
    against finite differences; float64 inputs are expected."""
    import framework

    args = _as_tuple(inputs)
    diff = [t for t in _flatten(args) if t.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for index, t in enumerate(diff):
        if t.dtype is not framework.float64:
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double precision "
                "floating point or complex. ",
                stacklevel=2,
            )
        if _has_overlap(t):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only supports inputs that "
                "are non-overlapping to be able to compute the numerical gradients correctly. You should "
                "call .contiguous on the input before passing it to gradcheck."
            )
    outputs = _tensors(func(*args))
    differentiable = [i for i, o in enumerate(outputs) if o.requires_grad]
    outputs = tuple(outputs[i] for i in differentiable)

    def differentiable_outputs(*values: Any) -> tuple[Tensor, ...]:
        produced = _tensors(func(*values))
        return tuple(produced[i] for i in differentiable)

    numerical = _numerical(differentiable_outputs, args, diff, [o.numel() for o in outputs], eps)
    analytical = _analytical(outputs, diff)
    for i in range(len(diff)):
        for o in range(len(outputs)):
            a, n = analytical[i][o], numerical[i][o]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                return _fail(
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{framework.tensor(n, dtype=framework.float64)}\n"
                    f"analytical:{framework.tensor(a, dtype=framework.float64)}\n",
                    raise_exception,
                )
    again = _analytical(differentiable_outputs(*args), diff)
    for i in range(len(diff)):
        for o in range(len(outputs)):
            if np.max(np.abs(again[i][o] - analytical[i][o]), initial=0.0) > nondet_tol:
                return _fail(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output "
                    "multiple times gives different values, although analytical gradient matches "
                    f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.",
                    raise_exception,
                )
    return True


def _flatten(args: tuple[Any, ...]) -> list[Tensor]:
    from framework._tensor import Tensor

    out: list[Tensor] = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(_flatten(tuple(a)))
    return out


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
) -> bool:
    """gradcheck of the gradients of `func` (computed with create_graph=True) with respect to the
    inputs and the output gradients (random when not given)."""
    import framework

    args = _as_tuple(inputs)
    outputs = [o for o in _tensors(func(*args)) if o.requires_grad]
    if grad_outputs is None:
        generator = framework.Generator().manual_seed(0)
        grad_outputs = tuple(
            framework.randn(o.shape, dtype=o.dtype, generator=generator).requires_grad_() for o in outputs
        )
    seeds = _as_tuple(grad_outputs)
    n_args = len(args)

    def first_derivatives(*values: Any) -> tuple[Tensor, ...]:
        inner = values[:n_args]
        outs = [o for o in _tensors(func(*inner)) if o.requires_grad]
        grads = autograd_grad(
            outs,
            [t for t in _flatten(inner) if t.requires_grad],
            list(values[n_args:]),
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        (*args, *seeds),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
    )
