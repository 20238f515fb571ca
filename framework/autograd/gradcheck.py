"""`gradcheck` and `gradgradcheck`: compare the gradients autograd computes with central finite
differences, PyTorch's slow mode (whole Jacobians) or fast mode (one random projection of each
Jacobian), with PyTorch's default tolerances and failure report."""

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
    fast_mode: bool = False,
) -> bool:
    """Check the gradients of `func` at `inputs` (the tensors among them that require grad)
    against finite differences; float64 inputs are expected.

    `fast_mode=True` is PyTorch's fast gradcheck: instead of whole Jacobians J it compares the
    scalars v^T J u for random unit vectors u (per input) and v (per output), one backward pass
    and two evaluations of `func` per pair instead of one per element, with `atol` scaled by
    sum(u) * sum(v) as PyTorch does. When that check fails, the Jacobians are recomputed in slow
    mode for the report. Complex inputs or outputs are checked in slow mode."""
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

    complex_values = any(t.dtype.is_complex for t in (*diff, *outputs))
    if fast_mode and not complex_values:
        failure = _fast_check(differentiable_outputs, args, diff, outputs, eps, atol, rtol, nondet_tol)
    else:
        failure = _slow_check(differentiable_outputs, args, diff, outputs, eps, atol, rtol, nondet_tol)
    return True if not failure else _fail(failure, raise_exception)


_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
    "gives different values, although analytical gradient matches numerical gradient.The tolerance for "
    "nondeterminism was {nondet_tol}.\n\n"
    "NOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n"
)
_FAST_MODE_NOTE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
)
_FAST_FAIL_SLOW_OK = (
    "Fast gradcheck failed but element-wise differences are small. This means that the\n"
    "test might've passed in slow_mode!\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:\n\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `fast_mode=False` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_fast_mode=False`\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_fast_mode=False`"
)


def _slow_check(
    fn: Callable[..., tuple[Tensor, ...]],
    args: tuple[Any, ...],
    diff: list[Tensor],
    outputs: Sequence[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> str:
    """PyTorch's slow mode: "" when every Jacobian matches its finite differences and a second
    backward pass gives the same Jacobians, else PyTorch's message for the first failure."""
    import framework

    numerical = _numerical(fn, args, diff, [o.numel() for o in outputs], eps)
    analytical = _analytical(outputs, diff)
    for i in range(len(diff)):
        for o in range(len(outputs)):
            a, n = analytical[i][o], numerical[i][o]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                return (
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{framework.tensor(n, dtype=framework.float64)}\n"
                    f"analytical:{framework.tensor(a, dtype=framework.float64)}\n"
                )
    again = _analytical(fn(*args), diff)
    for i in range(len(diff)):
        for o in range(len(outputs)):
            if np.max(np.abs(again[i][o] - analytical[i][o]), initial=0.0) > nondet_tol:
                return _NOT_REENTRANT.format(nondet_tol=nondet_tol)
    return ""


def _unit_vector(t: Tensor, generator: Any) -> npt.NDArray[np.float64]:
    """PyTorch's fast-mode vector for `t`: `t.numel()` uniform float32 draws from `generator`,
    in float64, scaled to norm 1, in `t`'s shape."""
    import framework

    vector = framework.rand(t.numel(), generator=generator)._impl.numpy_view().astype(np.float64)
    return (vector / np.linalg.norm(vector)).reshape(t.shape)


def _fast_check(
    fn: Callable[..., tuple[Tensor, ...]],
    args: tuple[Any, ...],
    diff: list[Tensor],
    outputs: Sequence[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> str:
    """PyTorch's fast mode: for input i and output o, v_o^T J u_i from finite differences along
    u_i against v_o^T J u_i from a backward pass seeded with v_o (run twice: the reentrancy
    check); "" when all agree, else PyTorch's message, with the slow-mode Jacobians of the pair."""
    import framework

    generator = framework.Generator()  # its own, at the default seed: the user's RNG is untouched
    us = [_unit_vector(t, generator) for t in diff]
    vs = [_unit_vector(o, generator) for o in outputs]
    analytical = [[0.0] * len(diff) for _ in outputs]
    for o, (out, v) in enumerate(zip(outputs, vs, strict=True)):
        seed = framework.tensor(v, dtype=out.dtype)
        first, second = (
            autograd_grad(out, diff, seed, retain_graph=True, allow_unused=True) for _ in range(2)
        )
        for i, u in enumerate(us):
            a, b = (0.0 if g is None else float(np.sum(_values((g,))[0] * u)) for g in (first[i], second[i]))
            if abs(a - b) > nondet_tol:
                return _NOT_REENTRANT.format(nondet_tol=nondet_tol)
            analytical[o][i] = a
    for i, (t, u) in enumerate(zip(diff, us, strict=True)):
        array = t._impl.numpy_view()
        original = array.copy()
        array[...] = original - eps * u
        minus = _values(fn(*args))
        array[...] = original + eps * u
        plus = _values(fn(*args))
        array[...] = original
        for o, v in enumerate(vs):
            numerical = float(np.sum((plus[o] - minus[o]) / (2 * eps) * v))
            a = analytical[o][i]
            if not abs(a - numerical) <= atol * float(u.sum()) * float(v.sum()) + rtol * abs(numerical):
                mismatch = f"Jacobian mismatch for output {o} with respect to input {i},\n"
                slow = _slow_pair_report(fn, args, diff, i, o, eps, atol, rtol)
                return f"{mismatch}numerical:{numerical}\nanalytical:{a}\n{slow}"
    return ""


def _slow_pair_report(
    fn: Callable[..., tuple[Tensor, ...]],
    args: tuple[Any, ...],
    diff: list[Tensor],
    i: int,
    o: int,
    eps: float,
    atol: float,
    rtol: float,
) -> str:
    """The slow-mode Jacobians of input `i` and output `o` after a fast-mode failure, as PyTorch
    reports them (and its hint when they would have passed)."""
    import framework

    outputs = fn(*args)
    numerical = _numerical(fn, args, diff, [t.numel() for t in outputs], eps)[i][o]
    analytical = _analytical(outputs, diff)[i][o]
    difference = float(np.max(np.abs(numerical - analytical), initial=0.0))
    report = (
        f"{_FAST_MODE_NOTE}Numerical:\n {framework.tensor(numerical, dtype=framework.float64)}\n"
        f"Analytical:\n{framework.tensor(analytical, dtype=framework.float64)}\n\n"
        f"The max per-element difference (slow mode) is: {difference}.\n"
    )
    if np.all(np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical)):
        report += _FAST_FAIL_SLOW_OK
    return report


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
    fast_mode: bool = False,
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
        fast_mode=fast_mode,
    )
