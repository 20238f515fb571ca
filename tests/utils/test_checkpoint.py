"""`framework.utils.checkpoint`: both variants give the values and gradients of the plain
computation (dropout redraws the same mask in the recomputation), with PyTorch's grad_fn names,
warnings and errors; live comparison with PyTorch when it is installed."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import needs_torch, torch

import framework
from framework.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

F = framework.nn.functional


def _run(lib: Any, reentrant: bool | None, checkpointed: bool = True) -> dict[str, Any]:
    """Seeded Linear -> tanh -> dropout (checkpointed or not), its output, gradients and the
    draw that follows backward."""
    ck = __import__(f"{lib.__name__}.utils.checkpoint", fromlist=["checkpoint"])
    lib.manual_seed(0)
    lin = lib.nn.Linear(4, 3)
    x = lib.randn(2, 4, requires_grad=True)

    def f(a: Any) -> Any:
        return lib.nn.functional.dropout(lin(a).tanh(), 0.5, training=True) * 2

    y = ck.checkpoint(f, x, use_reentrant=reentrant) if checkpointed else f(x)
    y.sum().backward()
    return {
        "grad_fn": type(y.grad_fn).__name__,
        "y": np.array(y.tolist()),
        "x.grad": np.array(x.grad.tolist()),
        "weight.grad": np.array(lin.weight.grad.tolist()),
        "next draw": np.array(lib.rand(2).tolist()),
    }


@pytest.mark.parametrize(
    ("reentrant", "grad_fn"), [(True, "CheckpointFunctionBackward"), (False, "MulBackward0")]
)
def test_checkpoint_matches_plain_computation(reentrant: bool, grad_fn: str) -> None:
    plain = _run(framework, None, checkpointed=False)
    got = _run(framework, reentrant)
    assert got["grad_fn"] == grad_fn
    for key in ("y", "x.grad", "weight.grad", "next draw"):
        np.testing.assert_allclose(got[key], plain[key], rtol=1e-6, atol=1e-7, err_msg=key)


@needs_torch
@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_matches_pytorch(reentrant: bool) -> None:
    got, want = _run(framework, reentrant), _run(torch, reentrant)
    assert got["grad_fn"] == want["grad_fn"]
    for key in ("y", "x.grad", "weight.grad", "next draw"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_checkpoint_sequential_and_retained_graph() -> None:
    framework.manual_seed(1)
    seq = framework.nn.Sequential(
        framework.nn.Linear(3, 3), framework.nn.ReLU(), framework.nn.Linear(3, 2), framework.nn.Tanh()
    )
    x = framework.randn(4, 3, requires_grad=True)
    y = checkpoint_sequential(seq, 2, x, use_reentrant=False)
    assert type(y.grad_fn).__name__ == "TanhBackward0"
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    (expected,) = framework.autograd.grad(seq(x).sum(), x)
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected.numpy(), rtol=1e-6)


def test_non_reentrant_checkpoint_under_grad_and_kwargs() -> None:
    x = framework.randn(3, requires_grad=True)
    (grad,) = framework.autograd.grad(
        checkpoint(lambda a, k: (a * k).exp().sum(), x, k=2.0, use_reentrant=False), x
    )
    np.testing.assert_allclose(grad.numpy(), 2 * np.exp(2 * x.detach().numpy()), rtol=1e-6)


def _warnings_of(fn: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_warnings() -> None:
    x = framework.randn(3, requires_grad=True)
    assert _warnings_of(lambda: checkpoint(framework.sin, x)) == [
        "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
        "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
        "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
        "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
        "two variants."
    ]
    assert _warnings_of(lambda: checkpoint_sequential([framework.sin], 1, x))[0].startswith(
        "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
        "explicitly."
    )
    assert _warnings_of(lambda: checkpoint(framework.sin, framework.randn(3), use_reentrant=True)) == [
        "None of the inputs have requires_grad=True. Gradients will be None"
    ]


def test_errors() -> None:
    x = framework.randn(3, requires_grad=True)
    with pytest.raises(ValueError, match=r"^Unexpected keyword arguments: foo$"):
        checkpoint(framework.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match=r"^Unexpected keyword arguments: foo$"):
        checkpoint_sequential([framework.sin], 1, x, use_reentrant=False, foo=1)
    with pytest.raises(
        ValueError, match=r"determinism_check should be one of \['default', 'none'\], but got x"
    ):
        checkpoint(framework.sin, x, use_reentrant=False, determinism_check="x")
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(framework.sin, x, use_reentrant=True, context_fn=lambda: None)
    with pytest.raises(RuntimeError, match=r"When use_reentrant=True, .* is incompatible"):
        framework.autograd.grad(checkpoint(framework.sin, x, use_reentrant=True).sum(), x)
    calls = [0]

    def shrinking(a: Any) -> Any:
        calls[0] += 1
        return a[: 4 - calls[0]].exp().sum()

    with pytest.raises(CheckpointError, match=r"tensor at position 0:\nsaved metadata: .*Size\(\[3\]\)"):
        checkpoint(shrinking, x, use_reentrant=False).backward()


def test_saved_tensors_hooks() -> None:
    packed: list[tuple[int, ...]] = []
    x = framework.randn(3, requires_grad=True)
    with framework.autograd.graph.saved_tensors_hooks(
        lambda t: (packed.append(tuple(t.shape)), t)[1], lambda t: t
    ):
        y = (x * x).sum()
    y.backward()
    assert packed == [(3,), (3,)]
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())
    with framework.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 1):
        z = x.exp()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        z.sum().backward()
