"""Autograd speed and memory against PyTorch (where installed) and a hand-written NumPy network.

    python benchmarks/autograd.py

- `a + b` on 4-element float32 tensors that require grad (recording one node).
  Target: at most 3x PyTorch.
- forward + backward of `(x * x + x).sum()` on a 4-element tensor: the engine's fixed cost.
  Target: at most 0.5x PyTorch (whose engine hands the work to a device thread).
- one forward + backward of a 784-256-10 MLP with cross-entropy written with framework ops, batch
  128, float32. Target: at most 1.05x the same network's forward + backward in NumPy by hand.
- memory: the allocator's live bytes after a backward, against what the parameters and their
  gradients need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy_mlp import loss_and_grads
from timing import best_us, interleaved_best_us, torch_single_threaded

import framework
from framework.c10.storage import get_cpu_allocator


class Mlp:
    """784-256-10 with ReLU; weights as PyTorch's Linear lays them out (out_features, in_features)."""

    def __init__(self, rng: np.random.Generator, batch: int = 128) -> None:
        self.w1 = (rng.standard_normal((256, 784)) * 0.03).astype(np.float32)
        self.b1 = np.zeros(256, np.float32)
        self.w2 = (rng.standard_normal((10, 256)) * 0.06).astype(np.float32)
        self.b2 = np.zeros(10, np.float32)
        self.x = rng.standard_normal((batch, 784)).astype(np.float32)
        self.y = rng.integers(0, 10, batch)

    def numpy_step(self) -> float:
        """Forward and backward by hand (the floor for any NumPy-backed framework)."""
        loss, self.gw1, self.gb1, self.gw2, self.gb2 = loss_and_grads(
            self.x, self.y, self.w1, self.b1, self.w2, self.b2
        )
        return loss


def mlp_step(lib: Any, mlp: Mlp) -> tuple[Callable[[], float], list[Any]]:
    """One forward + backward of the MLP written with `lib` (framework or torch), and its
    parameters; cross-entropy from logsumexp and gather."""
    params = [lib.tensor(p, requires_grad=True) for p in (mlp.w1, mlp.b1, mlp.w2, mlp.b2)]
    w1, b1, w2, b2 = params
    x = lib.tensor(mlp.x)
    index = lib.tensor(mlp.y).unsqueeze(1)

    def step() -> float:
        for p in params:
            p.grad = None
        h = (x.matmul(w1.t()) + b1).relu()
        logits = h.matmul(w2.t()) + b2
        loss = (logits.logsumexp(1) - logits.gather(1, index).squeeze(1)).mean()
        loss.backward()
        return float(loss.detach())

    return step, params


def main() -> None:
    torch = torch_single_threaded()
    rows: list[tuple[str, float, float | None, str]] = []

    a = framework.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = framework.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    x = framework.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

    def tiny() -> None:
        (x * x + x).sum().backward()

    fw_add = best_us(lambda: a + b, 20_000)
    fw_tiny = best_us(tiny, 2_000)
    torch_add = torch_tiny = None
    if torch is not None:
        ta = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        tb = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        tx = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

        def torch_tiny_step() -> None:
            (tx * tx + tx).sum().backward()

        torch_add = best_us(lambda: ta + tb, 20_000)
        torch_tiny = best_us(torch_tiny_step, 2_000)
    rows.append(("a + b with grad, 4 x float32", fw_add, torch_add, "<= 3x torch"))
    rows.append(("fwd+bwd (x*x + x).sum(), 4 elements", fw_tiny, torch_tiny, "<= 0.5x torch"))

    mlp = Mlp(np.random.default_rng(0))
    step, params = mlp_step(framework, mlp)
    fns: list[Callable[[], Any]] = [step, mlp.numpy_step]
    if torch is not None:
        fns.append(mlp_step(torch, mlp)[0])
    times = interleaved_best_us(fns, number=3)
    fw_loss, np_loss = step(), mlp.numpy_step()

    print(f"{'case':40} {'framework us':>13} {'torch us':>10} {'ratio':>7}  target")
    for name, ours, theirs, target in rows:
        ratio = f"{ours / theirs:6.2f}x" if theirs else "   n/a"
        theirs_text = f"{theirs:10.2f}" if theirs else "       n/a"
        print(f"{name:40} {ours:13.2f} {theirs_text} {ratio}  {target}")
    print()
    print(f"MLP 784-256-10, batch 128, fwd+bwd (losses: framework {fw_loss:.6f}, numpy {np_loss:.6f})")
    print(
        f"  framework {times[0]:9.1f} us   numpy by hand {times[1]:9.1f} us   "
        f"ratio {times[0] / times[1]:.3f}x (target <= 1.05x)"
    )
    if torch is not None:
        print(f"  torch     {times[2]:9.1f} us   framework / torch {times[0] / times[2]:.3f}x")
    grads_ok = all(
        np.allclose(p.grad.numpy(), g, rtol=1e-4, atol=1e-6)
        for p, g in zip(params, (mlp.gw1, mlp.gb1, mlp.gw2, mlp.gb2), strict=True)
        if p.grad is not None
    )
    print(f"  gradients equal to the hand-written ones: {grads_ok}")

    allocator = get_cpu_allocator()
    step()
    live = allocator.live_bytes
    needed = 2 * sum(p.numel() * p.element_size() for p in params)
    print()
    print(
        f"live bytes after backward: {live} (parameters + grads: {needed}; the rest is the inputs "
        f"x, y and other tensors of this script: {live - needed})"
    )


if __name__ == "__main__":
    main()
