"""The differentiation transforms of `framework.func`: `grad`, `grad_and_value`, `vjp`, `jvp`,
`jacrev`, `jacfwd` and `hessian`, built on `framework.autograd.grad`.

Each call of a transformed function is a `_Level`: the inputs it differentiates with respect to are
handed to the function as new tensors that require grad (a differentiable alias of an input that
already requires grad while grad mode is on, so the result stays connected to it; else a detached
copy), and the gradients are taken with `create_graph` when the function's outputs reach anything
outside the level. Results keep their graph only where it reaches outside (an enclosing transform's
inputs, or tensors of the caller that require grad), as PyTorch's levels unwrap them; that is what
makes the transforms compose (`grad(grad(f))`, `jacrev(jacrev(f))`, `vmap(grad(f))`, ...).

There is no forward-mode AD here: `jvp` uses the double-vjp trick (the vector-Jacobian product
u ↦ uᵀJ is linear in u, so differentiating it with respect to u along the tangent gives J·v, as
`torch.autograd.functional.jvp` does) and `jacfwd` computes the same Jacobian row by row in
reverse mode, as `jacrev`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import framework
from framework._tensor import Tensor
from framework.autograd.functional import _grad, _zeros_for_missing
from framework.autograd.grad_mode import enable_grad, is_grad_enabled
from framework.autograd.variable import AccumulateGrad
from framework.func._pytree import TreeSpec, tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]

Argnums = int | tuple[int, ...]

_RANDOMNESS: Final = ("error", "different", "same")
_JVP: Final = "jvp(f, primals, tangents)"


def check_randomness(randomness: str) -> None:
    """PyTorch's check of a `randomness` argument."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )


class _Level:
    """One call of a transformed function: the new input tensors it made (by id, kept alive), and
    whether grad mode was on outside, without which no result keeps a graph."""

    def __init__(self) -> None:
        self.outer_grad = is_grad_enabled()
        self._made: dict[int, Tensor] = {}

    def made(self, tensor: Tensor) -> Tensor:
        """Record `tensor` as one of the level's own leaves."""
        self._made[id(tensor)] = tensor
        return tensor

    def differentiable(self, value: Any) -> Tensor:
        """`value` as the function sees it: a new tensor that requires grad."""
        if not isinstance(value, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
        if self.outer_grad and value.requires_grad:
            return value.view_as(value)
        return self.made(value.detach().requires_grad_())

    def reaches_outside(self, tensors: Sequence[Any]) -> bool:
        """Whether the graph of any of `tensors` reaches a leaf that requires grad other than the
        level's own (always False when grad mode was off outside)."""
        if not self.outer_grad:
            return False
        nodes = []
        for t in tensors:
            if isinstance(t, Tensor) and t.requires_grad:
                if t.grad_fn is None:
                    if id(t) not in self._made:
                        return True
                else:
                    nodes.append(t.grad_fn)
        seen: set[int] = set()
        while nodes:
            node = nodes.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in self._made:
                    return True
                continue
            nodes.extend(n for n, _ in node.next_functions if n is not None)
        return False

    def release(self, tree: Any, keep_graph: bool | None = None) -> Any:
        """`tree` as handed back: each tensor detached unless its graph reaches outside the level
        (and `keep_graph`, by default whether grad mode was on outside)."""
        keep = self.outer_grad if keep_graph is None else keep_graph

        def unwrap(value: Any) -> Any:
            if not isinstance(value, Tensor) or not value.requires_grad:
                return value
            return value if keep and self.reaches_outside([value]) else value.detach()

        return tree_map(unwrap, tree)


def _grads_or_zeros(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    create_graph: bool,
    retain_graph: bool | None = None,
) -> tuple[Tensor, ...]:
    """The gradients of `outputs` (those that require grad) with respect to `inputs`, zeros where
    none reaches."""
    grads = _grad(outputs, tuple(inputs), grad_outputs, create_graph=create_graph, retain_graph=retain_graph)
    return _zeros_for_missing(grads, tuple(inputs), False, create_graph, "back")


def _validate_argnum(argnum: Any, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _validate_argnums(argnums: Any, num_args: int) -> Argnums:
    """`argnums` checked against the number of positional arguments (negative ones wrapped)."""
    if isinstance(argnums, int):
        return _validate_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    wrapped = tuple(_validate_argnum(argnum, num_args) for argnum in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped


class _Call:
    """A call of the function a transform differentiates: its positional arguments with those
    named by `argnums` (all of them when None) replaced by the level's differentiable tensors."""

    def __init__(self, level: _Level, args: tuple[Any, ...], argnums: Argnums | None) -> None:
        self.argnums = None if argnums is None else _validate_argnums(argnums, len(args))
        if self.argnums is None:
            diff: Any = args
        elif isinstance(self.argnums, int):
            diff = args[self.argnums]
        else:
            diff = tuple(args[i] for i in self.argnums)
        flat, self.spec = tree_flatten(diff)
        self.inputs = [level.differentiable(x) for x in flat]
        new = tree_unflatten(self.inputs, self.spec)
        if self.argnums is None:
            self.args: tuple[Any, ...] = new
        elif isinstance(self.argnums, int):
            self.args = tuple(new if i == self.argnums else a for i, a in enumerate(args))
        else:
            positions = {index: k for k, index in enumerate(self.argnums)}
            self.args = tuple(new[positions[i]] if i in positions else a for i, a in enumerate(args))


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    """(output, aux) of a function that returns both when `has_aux`."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output[0], output[1]


def _tensor_outputs(output: Any, api: str) -> tuple[list[Tensor], TreeSpec]:
    """The leaves of `output` (which must all be tensors, at least one) and its structure."""
    flat, spec = tree_flatten(output)
    if not flat:
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {flat})"
        )
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}"
            )
    return flat, spec


def _check_differentiable_outputs(outputs: Sequence[Tensor]) -> None:
    for o in outputs:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                f"with dtype {o.dtype}"
            )


def _error_if_complex(api: str, tree: Any, is_input: bool) -> None:
    for idx, leaf in enumerate(tree_flatten(tree)[0]):
        if isinstance(leaf, Tensor) and leaf.dtype.is_complex:
            which = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{api}: Expected all {which} to be real but received complex tensor at flattened input "
                f"idx: {idx}"
            )


def grad_and_value(
    func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """`func` (returning a 0-dim tensor, or (that, aux) when `has_aux`) made into a function
    returning (gradient, value), or (gradient, (value, aux)): the gradient with respect to the
    positional argument(s) `argnums` (each a tensor or a pytree of them), shaped as they are."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        level = _Level()
        with enable_grad():
            call = _Call(level, args, argnums)
            output, aux = _split_aux(func(*call.args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                    f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            grads = _grads_or_zeros((output,), call.inputs, create_graph=level.reaches_outside([output]))
        gradient = level.release(tree_unflatten(list(grads), call.spec))
        value = level.release(output)
        return (gradient, (value, level.release(aux))) if has_aux else (gradient, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """`func` (returning a 0-dim tensor, or (that, aux) when `has_aux`) made into a function
    returning its gradient with respect to the positional argument(s) `argnums` (or (gradient, aux))."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), vjp_fn) or, when `has_aux`, (output, vjp_fn, aux): `vjp_fn(cotangents,
    retain_graph=True, create_graph=None)` gives, for cotangents shaped as the output, the
    vector-Jacobian products with respect to each primal (a tuple shaped as `primals`).
    `create_graph` None is whether grad mode is on when `vjp_fn` is called."""
    level = _Level()
    with enable_grad():
        call = _Call(level, primals, None)
        output, aux = _split_aux(func(*call.args), has_aux, "vjp(f, *primals)")
        flat_outputs, output_spec = _tensor_outputs(output, "vjp(f, *primals)")
        _check_differentiable_outputs(flat_outputs)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> Any:
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_cotangents, cotangents_spec = tree_flatten(cotangents)
        if cotangents_spec != output_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                f"to the function. cotangents: {cotangents_spec.pprint()}, primal output: "
                f"{output_spec.pprint()}"
            )
        grads = _grads_or_zeros(
            flat_outputs, call.inputs, flat_cotangents, retain_graph=retain_graph, create_graph=create_graph
        )
        return level.release(tree_unflatten(list(grads), call.spec), keep_graph=create_graph)

    result = level.release(output)
    return (result, vjp_fn, level.release(aux)) if has_aux else (result, vjp_fn)


def _check_tensors(values: Sequence[Any], what: str) -> None:
    if not values:
        raise RuntimeError(f"{_JVP}: Expected {what} to contain at least one Tensor.")
    for value in values:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {what} to only contain Tensors, got {type(value)}")


def jvp(
    func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> tuple[Any, ...]:
    """(func(*primals), J·tangents) or, when `has_aux`, (output, jvp_out, aux): the Jacobian of
    `func` at `primals` (a tuple) applied to `tangents` (structured as `primals`), shaped as the
    output. Computed by the double-vjp trick (no forward-mode AD here): the vector-Jacobian product
    uᵀJ is linear in u, and its derivative with respect to u along `tangents` is J·tangents.
    `strict=True` refuses an output independent of the inputs."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For example, if "
            "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{primals_spec} and tangents with structure {tangents_spec}"
        )
    _check_tensors(flat_primals, "primals")
    _check_tensors(flat_tangents, "tangents")
    for primal, tangent in zip(flat_primals, flat_tangents, strict=True):
        if primal.shape != tangent.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original "
                f"Tensor, this is not supported. Tensor is of size {list(primal.shape)} while the given "
                f"forward gradient is of size {list(tangent.shape)}."
            )
    level = _Level()
    with enable_grad():
        call = _Call(level, primals, None)
        output, aux = _split_aux(func(*call.args), has_aux, _JVP)
        flat_outputs, output_spec = _tensor_outputs(output, _JVP)
        differentiable = [o for o in flat_outputs if o.requires_grad]
        us = [level.made(framework.zeros_like(o, requires_grad=True)) for o in differentiable]
        vjps = _grad(differentiable, tuple(call.inputs), us, create_graph=True)
        pairs = [(v, t) for v, t in zip(vjps, flat_tangents, strict=True) if v is not None]
        keep = level.reaches_outside(flat_outputs) or any(t.requires_grad for t in flat_tangents)
        products = (
            _grad([v for v, _ in pairs], tuple(us), [t for _, t in pairs], create_graph=keep)
            if pairs
            else (None,) * len(us)
        )
        by_output = dict(zip((id(o) for o in differentiable), products, strict=True))
        tangents_out = []
        for o in flat_outputs:
            product = by_output.get(id(o))
            if product is None:
                if strict:
                    raise RuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                        "inputs. This is not allowed with strict=True."
                    )
                product = framework.zeros_like(o)
            tangents_out.append(product)
    result = level.release(output)
    jvp_out = level.release(tree_unflatten(tangents_out, output_spec))
    return (result, jvp_out, level.release(aux)) if has_aux else (result, jvp_out)


def _jacobian(func: Callable[..., Any], argnums: Argnums, has_aux: bool, api: str) -> Callable[..., Any]:
    """`jacrev`/`jacfwd`: the Jacobian of every output leaf with respect to every input leaf (shaped
    `output.shape + input.shape`), one output element at a time by reverse mode, structured as
    the output of the structure of the differentiated argument(s)."""
    check_api = "vjp(f, *primals)" if api == "jacrev" else _JVP

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        _error_if_complex(api, args, is_input=True)
        level = _Level()
        with enable_grad():
            call = _Call(level, args, argnums)
            output, aux = _split_aux(func(*call.args), has_aux, check_api)
            flat_outputs, output_spec = _tensor_outputs(output, check_api)
            if api == "jacrev":
                _check_differentiable_outputs(flat_outputs)
            _error_if_complex(api, flat_outputs, is_input=False)
            keep = level.reaches_outside(flat_outputs)
            blocks = []
            for out in flat_outputs:
                rows: list[list[Tensor]] = [[] for _ in call.inputs]
                for k in range(out.numel()):
                    basis = framework.zeros(out.numel(), dtype=out.dtype)
                    basis[k] = 1
                    grads = _grads_or_zeros(
                        (out,), call.inputs, (basis.view(out.shape),), retain_graph=True, create_graph=keep
                    )
                    for row, g in zip(rows, grads, strict=True):
                        row.append(g)
                per_input = [
                    framework.stack(row).view(out.shape + x.shape)
                    if row
                    else x.new_zeros(out.shape + x.shape)
                    for row, x in zip(rows, call.inputs, strict=True)
                ]
                blocks.append(tree_unflatten(per_input, call.spec))
        jacobian = level.release(tree_unflatten(blocks, output_spec))
        return (jacobian, level.release(aux)) if has_aux else jacobian

    return wrapper


def jacrev(
    func: Callable[..., Any], argnums: Argnums = 0, *, has_aux: bool = False, chunk_size: int | None = None
) -> Callable[..., Any]:
    """`func` made into a function returning its Jacobian with respect to the positional
    argument(s) `argnums` (or (jacobian, aux) when `has_aux`): for each output leaf and input leaf
    a tensor of shape `output.shape + input.shape`, computed by reverse mode one output element at
    a time (`chunk_size`, checked as PyTorch's, does not change the result)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(
    func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable[..., Any]:
    """The Jacobian as `jacrev` gives it, under PyTorch's `jacfwd` name and checks: without
    forward-mode AD here it is computed in reverse mode too (`randomness` is checked, when the
    function is called, and otherwise unused)."""
    jacobian = _jacobian(func, argnums, has_aux, "jacfwd")

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        check_randomness(randomness)
        return jacobian(*args)

    return wrapper


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The Hessian of `func` with respect to the argument(s) `argnums`: `jacfwd(jacrev(func,
    argnums), argnums)`, as PyTorch defines it."""
    return jacfwd(jacrev(func, argnums), argnums)
