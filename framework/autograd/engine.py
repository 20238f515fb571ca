"""The engine: runs the backward graph from its roots, and `backward`/`grad` on top of it.

Nodes run when every edge into them has delivered its gradient (dependency counting), the ready
one created last first, on the calling thread (no hand-off to a worker thread).  Gradients for
one input of a node add up in that node's input buffer.  After a node ran, and unless the graph
is retained, what it saved for backward is released.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final

from framework.autograd import anomaly_mode
from framework.autograd.anomaly_mode import is_anomaly_enabled
from framework.autograd.graph import Edge, Grads, GraphRoot, InputMetadata, Node
from framework.autograd.variable import AccumulateGrad, gradient_edge, requires_grad
from framework.c10 import autograd_state

if TYPE_CHECKING:
    from framework._tensor import Tensor


_checkpoint_valid: Final[ContextVar[bool]] = ContextVar("framework_checkpoint_valid", default=True)


def is_checkpoint_valid() -> bool:
    """False while the running backward computes gradients for given `inputs` only (`grad()`, or
    `backward(inputs=...)`): there a reentrant checkpoint cannot run its own backward
    (`torch.autograd._is_checkpoint_valid`)."""
    return _checkpoint_valid.get()


def is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> bool:
    """Whether a tensor of `shape` broadcasts to `desired`."""
    if len(shape) > len(desired):
        return False
    return all(s in (1, d) for s, d in zip(reversed(shape), reversed(desired), strict=False))


def sum_to(tensor: Tensor, shape: Sequence[int]) -> Tensor:
    """`tensor` summed down to `shape`, a shape it broadcasts from (the reverse of broadcasting, as
    at::sum_to): over its leading dimensions and where `shape` has 1 (keeping dimensions), then
    viewed as `shape`; an empty `shape` sums everything, and nothing to sum returns `tensor`."""
    shape = tuple(shape)
    if not shape:
        return tensor.sum()
    sizes = tensor.shape
    lead = len(sizes) - len(shape)
    dims = [*range(lead), *(i for i in range(lead, len(sizes)) if shape[i - lead] == 1 and sizes[i] != 1)]
    result = tensor.sum(dims, keepdim=True) if dims else tensor
    return result.view(shape) if lead else result


def _validate(node: Node, outputs: Sequence[Tensor | None]) -> list[Tensor | None]:
    """The gradients a node returned, checked against its edges: one per edge, None where the
    edge is None, each summed to and cast to what its target expects."""
    edges = node.next_edges
    if len(outputs) != len(edges):
        raise RuntimeError(
            f"Function {node.name()} returned an incorrect number of gradients (expected "
            f"{len(edges)}, got {len(outputs)})"
        )
    result = list(outputs)
    for i, grad in enumerate(result):
        if grad is None:
            continue
        edge = edges[i]
        if edge is None:
            result[i] = None
            continue
        target, nr = edge
        metadata = target.input_metadata
        expected = metadata[nr] if nr < len(metadata) else None
        if expected is not None:
            impl = grad._impl
            if impl.sizes != expected.shape or impl.dtype is not expected.dtype:
                result[i] = _conform(node, i, grad, expected)
    return result


def _conform(node: Node, index: int, grad: Tensor, metadata: InputMetadata) -> Tensor:
    if grad.shape != metadata.shape:
        if not is_expandable_to(metadata.shape, grad.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad.shape)} but expected shape compatible with {list(metadata.shape)}"
            )
        grad = sum_to(grad, metadata.shape)
    if grad.dtype is not metadata.dtype:
        grad = grad.to(metadata.dtype)
    return grad


def _check_nan(node: Node, outputs: Sequence[Tensor | None]) -> None:
    for i, grad in enumerate(outputs):
        if grad is not None and bool(grad.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _run_node_with_anomaly(node: Node, grads: Grads) -> list[Tensor | None]:
    """Run a node in anomaly mode: check its gradients for NaN, and say which forward call made
    the node when it fails."""
    try:
        outputs = _validate(node, node.apply(grads))
        if anomaly_mode.is_anomaly_check_nan_enabled():
            _check_nan(node, outputs)
    except Exception:
        trace = node.metadata.get("traceback_")
        if trace is None:
            warnings.warn(
                f"Error detected in {node.name()}. No forward pass information available. Enable "
                "detect anomaly during forward pass for more information.",
                stacklevel=4,
            )
        else:
            warnings.warn(
                f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
                stacklevel=4,
            )
        raise
    return outputs


def _check_hook_result(hook: object, old: Tensor, new: Tensor) -> None:
    """A tensor hook may replace a gradient, but not change its size, dtype or device."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if new.dtype is not old.dtype:
        from framework.autograd.graph import type_string

        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {type_string(old._impl)} got "
            f"{type_string(new._impl)})"
        )
    if new.device != old.device:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.device} got {new.device})")


def _call_hooks(node: Node, grads: Grads) -> Grads:
    tensor_hooks = node._tensor_pre_hooks
    if tensor_hooks:
        for nr, hooks in tensor_hooks.items():
            for hook in tuple(hooks.values()):
                grad = grads[nr] if nr < len(grads) else None
                if grad is not None:
                    new = hook(grad)
                    if new is not None:
                        _check_hook_result(hook, grad, new)
                        grads[nr] = new
    retains = node._retains_grad_hooks
    if retains:
        for nr, retain in retains.items():
            grad = grads[nr] if nr < len(grads) else None
            if grad is not None:
                retain(grad)
    return grads


def _needed(root: Node, targets: set[Node]) -> set[Node]:
    """The nodes from which some target is reachable (targets included)."""
    needed: set[Node] = set()
    done: set[Node] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if node in targets or any(e is not None and e[0] in needed for e in node.next_edges):
                needed.add(node)
            continue
        if node in done:
            continue
        done.add(node)
        stack.append((node, True))
        stack.extend((e[0], False) for e in node.next_edges if e is not None and e[0] not in done)
    return needed


def execute(
    roots: Sequence[Edge | None],
    root_grads: Grads,
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Edge] | None = None,
    accumulate_grad: bool = True,
) -> list[Tensor | None]:
    """Run backward from `roots` (edges) seeded with `root_grads`.  With `inputs`, only what
    leads to them runs; their gradients are returned (and, with `accumulate_grad`, leaves'
    AccumulateGrad nodes among them run)."""
    graph_root = GraphRoot(tuple(roots), root_grads)
    dependencies: dict[Node, int] = {}
    stack: list[Node] = [graph_root]
    while stack:
        for edge in stack.pop().next_edges:
            if edge is not None:
                nxt = edge[0]
                count = dependencies.get(nxt)
                if count is None:
                    dependencies[nxt] = 1
                    stack.append(nxt)
                else:
                    dependencies[nxt] = count + 1
    captures: dict[Node, list[tuple[int, int]]] = {}
    needed: set[Node] | None = None
    if inputs is not None:
        for index, (target, nr) in enumerate(inputs):
            captures.setdefault(target, []).append((nr, index))
        needed = _needed(graph_root, set(captures))
    captured: list[Tensor | None] = [None] * (0 if inputs is None else len(inputs))
    buffers: dict[Node, Grads] = {}
    ready: list[tuple[int, int, Node]] = []
    node: Node | None = graph_root
    tie = 0
    token = autograd_state.grad_mode.set(create_graph)
    valid_token = _checkpoint_valid.set(inputs is None)
    try:
        while node is not None:
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * (len(node.input_metadata) or 1)
            if node._tensor_pre_hooks or node._retains_grad_hooks:
                grads = _call_hooks(node, grads)
            if captures:
                capture = captures.get(node)
                if capture is not None:
                    assert needed is not None
                    for nr, index in capture:
                        captured[index] = grads[nr] if nr < len(grads) else None
                    if not (accumulate_grad and type(node) is AccumulateGrad) and not any(
                        e is not None and e[0] in needed for e in node.next_edges
                    ):
                        node = heapq.heappop(ready)[2] if ready else None
                        continue
            if node._pre_hooks:
                for hook in tuple(node._pre_hooks.values()):
                    new = hook(tuple(grads))
                    if new is not None:
                        grads = list(new)
            post_hooks = node._post_hooks
            given = tuple(grads) if post_hooks else ()
            outputs = (
                _run_node_with_anomaly(node, grads)
                if is_anomaly_enabled()
                else _validate(node, node.apply(grads))
            )
            if post_hooks:
                for hook in tuple(post_hooks.values()):
                    new = hook(tuple(outputs), given)
                    if new is not None:
                        outputs = list(new)
            if not keep_graph:
                node.release_variables()
            # Hold no gradient past its node: AccumulateGrad may then adopt it without a copy.
            grads = given = None  # type: ignore[assignment]
            following: Node | None = None
            # zip's default (strict=False: a post hook may return fewer gradients) spelled without
            # the keyword, whose parsing would cost more than the rest of a node's bookkeeping.
            for edge, grad in zip(node.next_edges, outputs):  # noqa: B905
                if edge is None:
                    continue
                nxt, nr = edge
                if needed is not None and nxt not in needed:
                    continue
                buffer = buffers.get(nxt)
                if buffer is None:
                    size = len(nxt.input_metadata)
                    buffer = buffers[nxt] = [None] * (size if size > nr else nr + 1)
                if grad is not None:
                    old = buffer[nr]
                    buffer[nr] = grad if old is None else old + grad
                remaining = dependencies[nxt] - 1
                dependencies[nxt] = remaining
                if remaining == 0:
                    if following is not None:
                        heapq.heappush(ready, (-following.sequence_nr, tie, following))
                        tie += 1
                    following = nxt
            outputs = grad = None  # type: ignore[assignment]
            if following is None:
                node = heapq.heappop(ready)[2] if ready else None
            elif ready and ready[0][0] <= -following.sequence_nr:
                node = heapq.heappushpop(ready, (-following.sequence_nr, tie, following))[2]
                tie += 1
            else:
                node = following
    finally:
        _checkpoint_valid.reset(valid_token)
        autograd_state.grad_mode.reset(token)
    return captured


def _make_grads(outputs: Sequence[Tensor], grad_outputs: Sequence[Tensor | None]) -> Grads:
    import framework

    grads: Grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs, strict=True)):
        if grad is None:
            if requires_grad(out):
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {out.dtype}"
                    )
                grads.append(framework.ones_like(out, memory_format=framework.preserve_format))
            else:
                grads.append(None)
            continue
        if grad.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {_size(grad)} and output[{i}] has a "
                f"shape of {_size(out)}."
            )
        if grad.dtype.is_complex != out.dtype.is_complex:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the same "
                f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {grad.dtype} and output[{i}] "
                f"has a dtype of {out.dtype}."
            )
        grads.append(grad)
    return grads


def _size(t: Tensor) -> str:
    return f"torch.Size({list(t.shape)})"


def _as_sequence(value: Tensor | Sequence[Tensor] | None) -> list[Tensor] | None:
    from framework._tensor import Tensor

    if value is None:
        return None
    return [value] if isinstance(value, Tensor) else list(value)


def _root_edges(outputs: Sequence[Tensor]) -> list[Edge | None]:
    edges: list[Edge | None] = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge)
    return edges


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate into the leaves' `.grad` the gradient of `tensors` (weighted by
    `grad_tensors`), as `torch.autograd.backward`."""
    outputs = _as_sequence(tensors) or []
    given = _as_sequence(grad_tensors)  # type: ignore[arg-type]
    grads = _make_grads(outputs, given if given is not None else [None] * len(outputs))
    keep_graph = create_graph if retain_graph is None else retain_graph
    input_list = _as_sequence(inputs)
    if input_list is not None and not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if input_list is not None:
        for tensor in input_list:
            tensor.retain_grad()
    input_edges = None if input_list is None else _input_edges(input_list)
    execute(_root_edges(outputs), grads, keep_graph, create_graph, input_edges, True)


def _input_edges(inputs: Sequence[Tensor]) -> list[Edge]:
    edges = []
    for tensor in inputs:
        edge = gradient_edge(tensor)
        if edge is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(edge)
    return edges


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs` (`torch.autograd.grad`); nothing is
    accumulated into `.grad`."""
    import framework

    out_list = _as_sequence(outputs) or []
    in_list = _as_sequence(inputs) or []
    if not in_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    given = _as_sequence(grad_outputs)  # type: ignore[arg-type]
    grads = _make_grads(out_list, given if given is not None else [None] * len(out_list))
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
            "allow_unused=False."
        )
    keep_graph = create_graph if retain_graph is None else retain_graph
    captured = execute(_root_edges(out_list), grads, keep_graph, create_graph, _input_edges(in_list), False)
    result: list[Tensor | None] = []
    for i, (tensor, g) in enumerate(zip(in_list, captured, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = framework.zeros_like(tensor)
        result.append(g)
    return tuple(result)
