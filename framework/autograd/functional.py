"""`framework.autograd.functional`: derivatives of whole functions (PyTorch's
`torch.autograd.functional`): `vjp`, `jvp`, `jacobian`, `hessian`, `vhp`, `hvp`.

Each takes `func` and its `inputs` (a tensor or a tuple of tensors), runs `func` on fresh aliases
of the inputs that require grad, and differentiates with `autograd.grad`. Forward-mode products
(`jvp`, `hvp`) use the double-backward trick: the vector-Jacobian product is linear in the vector
`u`, so differentiating it with respect to `u` gives the Jacobian-vector product. Results are
detached unless `create_graph=True`, when they are differentiable (with respect to the inputs
too). `strict=True` raises where an output does not depend on an input instead of returning
zeros.

Left out, as in this framework there is neither `vmap` nor forward-mode AD: `vectorize=True`
and `strategy="forward-mode"` raise NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import framework
from framework._tensor import Tensor
from framework.autograd.engine import grad as _autograd_grad
from framework.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

Tensors = tuple[Tensor, ...]
TensorOrTensors = Tensor | Tensors
Jacobian = Tensor | Tensors | tuple[Tensors, ...]

_STRATEGIES: Final = ("forward-mode", "reverse-mode")


def _as_tensors(value: Any, what: str, fn: str) -> tuple[bool, Tensors]:
    """`value` (a tensor or a tuple of tensors) as a tuple, and whether it was one."""
    is_tuple = isinstance(value, tuple)
    values: tuple[Any, ...] = value if is_tuple else (value,)
    for i, element in enumerate(values):
        if not isinstance(element, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {what}"
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                f"{where} has type {type(element)}."
            )
    return is_tuple, values


def _prepare(tensors: Tensors, create_graph: bool, need_graph: bool) -> Tensors:
    """New tensor objects for `tensors`: differentiable aliases of those that require grad when
    the result must stay connected to them (`create_graph`), else detached copies of the handle
    that require grad if `need_graph`. New objects tell the inputs `func` receives from the same
    tensors captured from elsewhere."""
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
        for t in tensors
    )


def _prepared_inputs(inputs: Any, fn: str, create_graph: bool) -> tuple[bool, Tensors]:
    """Whether `inputs` (given to `fn`) is a tuple, and its tensors prepared for `func` (see
    `_prepare`)."""
    is_tuple, tensors = _as_tensors(inputs, "inputs", fn)
    return is_tuple, _prepare(tensors, create_graph, need_graph=True)


def _finish(tensors: Tensors, create_graph: bool) -> Tensors:
    """The results handed back: detached unless the caller asked for a graph."""
    return tensors if create_graph else tuple(t.detach() for t in tensors)


def _unpack(tensors: Tensors, is_tuple: bool) -> TensorOrTensors:
    return tensors if is_tuple else tensors[0]


def _check_v(v: Tensors, like: Tensors, like_is_tuple: bool) -> None:
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (vi, li) in enumerate(zip(v, like, strict=True)):
        if vi.shape != li.shape:
            where = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {li.shape} but got {vi.shape}.")


def _vector(
    v: Any, like: Tensors, like_is_tuple: bool, fn: str, create_graph: bool, of: str
) -> Tensors | None:
    """The vector `v` of a product, checked against `like`; None is allowed only when `like` is
    a single one-element tensor (the vector is then 1)."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if {of} a single Tensor with a single element."
            )
        return None
    vs = _prepare(_as_tensors(v, "v", fn)[1], create_graph, need_graph=False)
    _check_v(vs, like, like_is_tuple)
    return vs


_NOT_REQUIRING_GRAD: Final = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs must be "
        "computed in a differentiable manner from the input when running in strict mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the user-provided "
        "function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function with "
        "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
        "should ensure that your function is twice differentiable and that the jacobian depends on "
        "the inputs (this would be violated by a linear function for example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent of the "
        "input. This is not allowed in strict mode. You should ensure that your function is thrice "
        "differentiable and that the hessian depends on the inputs."
    ),
}


def _check_requires_grad(tensors: Sequence[Tensor | None], kind: str, strict: bool) -> None:
    """In strict mode, refuse a missing gradient or a tensor that does not require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_NOT_REQUIRING_GRAD[kind].format(i=i))


def _grad(
    outputs: Sequence[Tensor | None],
    inputs: Tensors,
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    create_graph: bool,
    retain_graph: bool | None = None,
) -> tuple[Tensor | None, ...]:
    """`autograd.grad` over the outputs that require grad (None for inputs none reaches)."""
    given: Sequence[Tensor | None] = [None] * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(o, g) for o, g in zip(outputs, given, strict=True) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _autograd_grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


_INDEPENDENT: Final = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
    "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
    "jacobian": "Output {output} of the user-provided function is independent of input {i}. This is "
    "not allowed in strict mode.",
}


def _zeros_for_missing(
    grads: Sequence[Tensor | None],
    refs: Tensors,
    strict: bool,
    create_graph: bool,
    stage: str,
    output: int | None = None,
) -> Tensors:
    """`grads` with zeros (shaped as `refs`) for the missing ones; in strict mode a missing one,
    or one without a graph when `create_graph`, raises instead (for `jacobian`, `output` is the
    index of the output differentiated, which the errors name as PyTorch's do)."""
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i, output=output))
            g = framework.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            of = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {of} of the user-provided function is independent of input "
                f"{i if output is None else output}. This is not allowed in strict mode when "
                "create_graph=True."
            )
        result.append(g)
    return tuple(result)


def _backward_trick(
    outputs: Sequence[Tensor | None], wrt: Tensors, like: Tensors
) -> tuple[Tensors, tuple[Tensor | None, ...]]:
    """For the forward-mode products (`jvp`, `hvp`): dummy vectors `us` shaped as `like` (the
    shapes of `outputs`) and the vector-Jacobian product of `outputs` with respect to `wrt` along
    them, with its graph. That product is linear in `us`: their values do not matter (zeros keep
    inf and nan out), only the graph from them does."""
    us = tuple(framework.zeros_like(t, requires_grad=True) for t in like)
    return us, _grad(outputs, wrt, us, create_graph=True)


def _product(
    outputs: Sequence[Tensor | None],
    wrt: Tensors,
    vs: Tensors | None,
    strict: bool,
    create_graph: bool,
    stage: str,
    is_tuple: bool,
) -> TensorOrTensors:
    """The product handed back by `vjp`/`jvp`/`vhp`/`hvp`: the gradient of `outputs` with respect to
    `wrt` weighted by `vs`, zeros where none reaches (see `_zeros_for_missing`), with a graph only
    when `create_graph`, unpacked unless `is_tuple`."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, wrt, vs, create_graph=create_graph)
        result = _zeros_for_missing(grads, wrt, strict, create_graph, stage)
    return _unpack(_finish(result, create_graph), is_tuple)


def _run(func: Callable[..., Any], inputs: Tensors, fn: str, strict: bool) -> tuple[bool, Tensors]:
    is_tuple, outputs = _as_tensors(func(*inputs), "outputs of the user-provided function", fn)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def vjp(
    func: Callable[..., TensorOrTensors],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[TensorOrTensors, TensorOrTensors]:
    """`func(*inputs)` and the vector-Jacobian product `v^T J` at `inputs` (shaped as the inputs)."""
    with enable_grad():
        inputs_tuple, ins = _prepared_inputs(inputs, "vjp", create_graph)
        outputs_tuple, outs = _run(func, ins, "vjp", strict)
        vs = _vector(v, outs, outputs_tuple, "vjp", create_graph, "the user-provided function returns")
    return (
        _unpack(_finish(outs, create_graph), outputs_tuple),
        _product(outs, ins, vs, strict, create_graph, "back", inputs_tuple),
    )


def jvp(
    func: Callable[..., TensorOrTensors],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[TensorOrTensors, TensorOrTensors]:
    """`func(*inputs)` and the Jacobian-vector product `J v` at `inputs` (shaped as the outputs),
    by the double-backward trick."""
    with enable_grad():
        inputs_tuple, ins = _prepared_inputs(inputs, "jvp", create_graph)
        vs = _vector(v, ins, inputs_tuple, "jvp", create_graph, "the input to the user-provided function is")
        outputs_tuple, outs = _run(func, ins, "jvp", strict)
        us, grad_inputs = _backward_trick(outs, ins, outs)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    return (
        _unpack(_finish(outs, create_graph), outputs_tuple),
        _product(grad_inputs, us, vs, strict, create_graph, "back_trick", outputs_tuple),
    )


def _check_strategy(strategy: str, vectorize: bool, strict: bool, fn: str) -> None:
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        raise NotImplementedError(
            f"framework.autograd.functional.{fn}: strategy='forward-mode' needs forward-mode AD, "
            "which this framework does not implement; use strategy='reverse-mode'"
        )
    if vectorize:
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        raise NotImplementedError(
            f"framework.autograd.functional.{fn}: vectorize=True needs batched gradients (vmap), "
            "which this framework does not implement; use vectorize=False"
        )


def _nest(rows: tuple[Tensors, ...], outputs_tuple: bool, inputs_tuple: bool) -> Jacobian:
    """The Jacobian blocks (one row per output, one entry per input) unpacked as PyTorch does:
    a tensor when both were single tensors, a tuple when one was, a tuple of tuples otherwise."""
    unpacked: tuple[Any, ...] = rows if inputs_tuple else tuple(row[0] for row in rows)
    result: Jacobian = unpacked if outputs_tuple else unpacked[0]
    return result


def _jacobian_rows(
    func: Callable[..., TensorOrTensors], inputs: Tensors, create_graph: bool, strict: bool
) -> tuple[bool, tuple[Tensors, ...]]:
    """Whether `func` returned a tuple, and its Jacobian blocks at `inputs`: one row per output,
    holding for each input a tensor of shape `output.shape + input.shape`, computed one output
    element at a time."""
    with enable_grad():
        ins = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outs = _run(func, ins, "jacobian", strict)
        rows = []
        for i, out in enumerate(outs):
            columns: list[list[Tensor]] = [[] for _ in ins]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                grads = _grad((flat[k],), ins, retain_graph=True, create_graph=create_graph)
                filled = _zeros_for_missing(grads, ins, strict, create_graph, "jacobian", output=i)
                for column, g in zip(columns, filled, strict=True):
                    column.append(g)
            blocks = tuple(
                framework.stack(column, 0).view(out.shape + inp.shape)
                for column, inp in zip(columns, ins, strict=True)
            )
            rows.append(_finish(blocks, create_graph))
    return outputs_tuple, tuple(rows)


def jacobian(
    func: Callable[..., TensorOrTensors],
    inputs: TensorOrTensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Jacobian:
    """The Jacobian of `func` at `inputs`: for output i and input j a tensor of shape
    `outputs[i].shape + inputs[j].shape` (unpacked where `func` returns, or `inputs` is, a single
    tensor)."""
    _check_strategy(strategy, vectorize, strict, "jacobian")
    inputs_tuple, ins = _as_tensors(inputs, "inputs", "jacobian")
    outputs_tuple, rows = _jacobian_rows(func, ins, create_graph, strict)
    return _nest(rows, outputs_tuple, inputs_tuple)


def _single_output(out: Any, fn: str, strict: bool) -> Tensor:
    is_tuple, outs = _as_tensors(out, "outputs of the user-provided function", fn)
    _check_requires_grad(outs, "outputs", strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )
    return outs[0]


def hessian(
    func: Callable[..., Tensor],
    inputs: TensorOrTensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Jacobian:
    """The Hessian of the scalar function `func` at `inputs`: the Jacobian of its gradient; for
    inputs i and j a tensor of shape `inputs[i].shape + inputs[j].shape`."""
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    _check_strategy(outer_jacobian_strategy, vectorize, strict, "hessian")
    inputs_tuple, ins = _as_tensors(inputs, "inputs", "hessian")

    def scalar(*args: Tensor) -> Tensor:
        return _single_output(func(*args), "hessian", strict).squeeze()

    def gradient(*args: Tensor) -> Tensors:
        grads = _jacobian_rows(scalar, args, create_graph=True, strict=False)[1][0]
        _check_requires_grad(grads, "jacobian", strict)
        return grads

    rows = _jacobian_rows(gradient, ins, create_graph, strict)[1]
    return _nest(rows, inputs_tuple, inputs_tuple)


def _gradient_of_scalar(
    func: Callable[..., Tensor], inputs: TensorOrTensors, v: Any, create_graph: bool, strict: bool, fn: str
) -> tuple[bool, Tensors, Tensors | None, Tensor, tuple[Tensor | None, ...]]:
    """For `vhp`/`hvp`: the prepared inputs, the vector, the scalar output and its gradient (with
    a graph)."""
    inputs_tuple, ins = _prepared_inputs(inputs, fn, create_graph)
    vs = _vector(v, ins, inputs_tuple, fn, create_graph, "the input to the user-provided function is")
    out = _single_output(func(*ins), fn, strict)
    gradient = _grad((out,), ins, create_graph=True)
    _check_requires_grad(gradient, "jacobian", strict)
    return inputs_tuple, ins, vs, out, gradient


def vhp(
    func: Callable[..., Tensor],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Tensor, TensorOrTensors]:
    """`func(*inputs)` (a scalar) and the vector-Hessian product `v^T H` at `inputs`."""
    with enable_grad():
        inputs_tuple, ins, vs, out, gradient = _gradient_of_scalar(
            func, inputs, v, create_graph, strict, "vhp"
        )
    return _finish((out,), create_graph)[0], _product(
        gradient, ins, vs, strict, create_graph, "double_back", inputs_tuple
    )


def hvp(
    func: Callable[..., Tensor],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Tensor, TensorOrTensors]:
    """`func(*inputs)` (a scalar) and the Hessian-vector product `H v` at `inputs`, by the
    double-backward trick."""
    with enable_grad():
        inputs_tuple, ins, vs, out, gradient = _gradient_of_scalar(
            func, inputs, v, create_graph, strict, "hvp"
        )
        us, double_back = _backward_trick(gradient, ins, ins)
        _check_requires_grad(gradient, "hessian", strict)
    return _finish((out,), create_graph)[0], _product(
        double_back, us, vs, strict, create_graph, "double_back_trick", inputs_tuple
    )
