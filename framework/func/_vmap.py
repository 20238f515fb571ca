"""`vmap`: map a function over a dimension of its inputs.

This is a semantics-preserving loop, not PyTorch's batching rules: the function runs once per
batch element on the inputs' slices (`select` along each input's `in_dim`) and the results are
stacked along each output's `out_dim`. Values, shapes, autograd and composition with the other
transforms are those of the mapped function; the differences from PyTorch are speed, and that the
function sees unbatched tensors (so it can do things PyTorch's vmap refuses, such as `.item()` or
data-dependent control flow).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import framework
from framework._tensor import Tensor
from framework.func._autodiff import check_randomness
from framework.func._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]

InDims = int | tuple[Any, ...]
OutDims = int | None | tuple[Any, ...]


def _name(func: Callable[..., Any]) -> str:
    """How PyTorch's vmap errors name `func`."""
    if hasattr(func, "__name__"):
        return str(func.__name__)
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _flat_in_dims(
    func: Callable[..., Any], in_dims: Any, args: tuple[Any, ...]
) -> tuple[list[Any], list[Any]]:
    """The leaves of `args` and the in_dim of each (None, or a dim wrapped to >= 0), checked as
    PyTorch checks them."""
    prefix = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"{prefix}: expected `in_dims` to be int or a (potentially nested) tuple matching the structure "
            f"of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(
            f"{prefix}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
            f"{tree_flatten(in_dims)[1]} but inputs has structure {args_spec}."
        )
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims, strict=True)):
        if in_dim is None:
            continue
        if not isinstance(in_dim, int):
            raise ValueError(
                f"{prefix}: Got in_dim={in_dim} for an input but in_dim must be either an integer dimension "
                "or None."
            )
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"{prefix}: Got in_dim={in_dim} for an input but the input is of type {type(arg)}. We cannot "
                "vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        if not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(
                f"{prefix}: Got in_dim={in_dim} for some input, but that input is a Tensor of dimensionality "
                f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}."
            )
        flat_in_dims[i] = in_dim % arg.dim()
    return flat_args, flat_in_dims


def _batch_size(flat_args: list[Any], flat_in_dims: list[Any]) -> int:
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_in_dims, strict=True) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    return int(sizes[0])


def _check_out_dims(func: Callable[..., Any], out_dims: Any) -> None:
    for leaf in tree_flatten(out_dims)[0]:
        if leaf is not None and not isinstance(leaf, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                "collection of ints representing where in the outputs the vmapped dimension should appear."
            )


_RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


def _run_each(
    func: Callable[..., Any],
    flat_args: list[Any],
    flat_in_dims: list[Any],
    args_spec: Any,
    kwargs: dict[str, Any],
    batch_size: int,
    randomness: str,
) -> list[Any]:
    """`func`'s result for each batch element. The default generator: its use refused
    ("error"), restored before each element ("same": every element draws the same numbers), or
    left alone ("different")."""
    results = []
    for index in range(batch_size):
        state = framework.get_rng_state() if randomness != "different" else None
        sliced = [
            a if d is None else a.select(d, index) for a, d in zip(flat_args, flat_in_dims, strict=True)
        ]
        results.append(func(*tree_unflatten(sliced, args_spec), **kwargs))
        if (
            state is not None
            and randomness == "error"
            and not framework.equal(state, framework.get_rng_state())
        ):
            raise RuntimeError(_RANDOM_IN_ERROR_MODE)
        if state is not None and randomness == "same" and index + 1 < batch_size:
            framework.set_rng_state(state)
    return results


def _stack_outputs(func: Callable[..., Any], out_dims: Any, results: list[Any]) -> Any:
    """The per-element results joined: each output leaf stacked along its out_dim, or (out_dim
    None) taken from the first element, which must then not vary over the batch."""
    name = _name(func)
    output_spec = tree_flatten(results[0])[1]

    flat_out_dims: list[Any] | None
    if not isinstance(results[0], Tensor):
        flat_out_dims = broadcast_to_and_flatten(out_dims, output_spec)
    elif isinstance(out_dims, tuple):
        flat_out_dims = list(out_dims) if len(out_dims) == 1 else None
    else:
        flat_out_dims = [out_dims]
    if flat_out_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
            f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
            f"structure {output_spec}."
        )
    per_element = [tree_flatten(result)[0] for result in results]
    outputs = []
    for j, out_dim in enumerate(flat_out_dims):
        values = [flat[j] for flat in per_element]
        if out_dim is None:
            first = values[0]
            if isinstance(first, Tensor) and any(
                not (v.shape == first.shape and framework.equal(v, first)) for v in values[1:]
            ):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
                )
            outputs.append(first)
            continue
        for v in values:
            if not isinstance(v, Tensor):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(v)}. Did you mean "
                    "to set out_dims= to None for output?"
                )
        outputs.append(framework.stack(values, out_dim))
    return tree_unflatten(outputs, output_spec)


def vmap(
    func: Callable[..., Any],
    in_dims: InDims = 0,
    out_dims: OutDims = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """`func` mapped over dimension `in_dims` of its positional inputs (an int for all, or a
    pytree prefix of the arguments with an int or None per input; keyword arguments are not
    mapped), its outputs stacked along `out_dims` (likewise, None for an output that does not
    depend on the batch). All mapped inputs must have the same size there.

    Implemented as a loop, not as PyTorch's batching rules: `func` runs once per batch element
    on the inputs' slices and the results are stacked (same values and autograd; slower, and `func`
    sees unbatched tensors). `randomness`: "error" refuses a use of the default generator inside
    `func`, "same" gives every element the same random numbers, "different" draws them one element
    after the other (so the values differ from PyTorch's, which draws the batch at once).
    `chunk_size` is checked as PyTorch's and does not change the results. A batch of size 0 is
    not supported (there is no element to run `func` on)."""
    check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(func, out_dims)
        flat_args, flat_in_dims = _flat_in_dims(func, in_dims, args)
        batch_size = _batch_size(flat_args, flat_in_dims)
        if batch_size == 0:
            raise NotImplementedError(
                f"vmap({_name(func)}): a batch of size 0 is not supported (framework.func.vmap runs the "
                "function once per batch element)"
            )
        args_spec = tree_flatten(args)[1]
        results = _run_each(func, flat_args, flat_in_dims, args_spec, kwargs, batch_size, randomness)
        return _stack_outputs(func, out_dims, results)

    return wrapped
