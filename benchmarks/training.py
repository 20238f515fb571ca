"""Training-step speed against a hand-written NumPy step and (where installed) PyTorch, in one run.

    python benchmarks/training.py

One SGD step (forward, cross-entropy, backward, optimizer.step, zero_grad), float32, batch 128:

- a 784-256-10 MLP with ReLU (nn.Linear, nn.ReLU, F.cross_entropy, optim.SGD). Target: at most
  1.05x the same step written by hand in NumPy (the floor for a NumPy-backed framework).
- the CNN of examples/train_digits.py on 8x8 inputs (conv 1->16 3x3 pad 1, ReLU, max_pool 2,
  conv 16->32 3x3 pad 1, ReLU, max_pool 2, flatten, linear 128->10). Target: at most 2x PyTorch
  single-threaded (torch.set_num_threads(1); NumPy's BLAS keeps its own default threads).

The implementations start from the same weights and batch; one step of each is compared before
timing. Rounds alternate between the implementations so that drift in the machine's speed affects
all alike; each round takes the median of a few timings, and the best round's median is reported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

import framework

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from digits_cnn import make_cnn
from numpy_mlp import loss_and_grads
from timing import interleaved_best_median_us, torch_single_threaded

Array = npt.NDArray[np.float32]
BATCH = 128
LR = 0.01


def mlp(lib: ModuleType) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def cnn(lib: ModuleType) -> Any:
    return make_cnn(lib.nn)


class Step:
    """One SGD step of `model` (built by `make` in `lib`: torch or framework) on a fixed batch,
    from the weights `state` (arrays)."""

    def __init__(
        self,
        lib: ModuleType,
        make: Callable[[ModuleType], Any],
        state: dict[str, Array],
        x: Array,
        y: npt.NDArray[np.int64],
    ) -> None:
        self.lib = lib
        self.model = make(lib)
        self.model.load_state_dict({key: lib.from_numpy(value.copy()) for key, value in state.items()})
        self.optimizer = lib.optim.SGD(self.model.parameters(), lr=LR)
        self.x, self.y = lib.from_numpy(x), lib.from_numpy(y)

    def __call__(self) -> float:
        loss = self.lib.nn.functional.cross_entropy(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return float(loss.item())

    def weights(self) -> list[Array]:
        return [np.array(p.detach().numpy()) for p in self.model.parameters()]


class NumpyMlp:
    """The MLP's SGD step by hand: forward, softmax cross-entropy, backward, in-place update."""

    def __init__(self, state: dict[str, Array], x: Array, y: npt.NDArray[np.int64]) -> None:
        self.w1, self.b1 = state["0.weight"].copy(), state["0.bias"].copy()
        self.w2, self.b2 = state["2.weight"].copy(), state["2.bias"].copy()
        self.x, self.y = x, y

    def __call__(self) -> float:
        loss, g_w1, g_b1, g_w2, g_b2 = loss_and_grads(self.x, self.y, self.w1, self.b1, self.w2, self.b2)
        self.w2 -= LR * g_w2
        self.b2 -= LR * g_b2
        self.w1 -= LR * g_w1
        self.b1 -= LR * g_b1
        return loss

    def weights(self) -> list[Array]:
        return [self.w1, self.b1, self.w2, self.b2]


def same_weights(a: list[Array], b: list[Array]) -> bool:
    return all(np.allclose(p, q, rtol=1e-4, atol=1e-6) for p, q in zip(a, b, strict=True))


def report(name: str, times: dict[str, float], losses: dict[str, float], target: tuple[str, float]) -> None:
    print(f"{name}: one SGD step (forward, backward, step, zero_grad), batch {BATCH}, float32")
    print("  first-step losses: " + ", ".join(f"{k} {v:.6f}" for k, v in losses.items()))
    for key, value in times.items():
        versus = f"   framework / {key} {times['framework'] / value:6.2f}x" if key != "framework" else ""
        print(f"  {key:10} {value:10.1f} us{versus}")
    peer, limit = target
    if peer in times:
        ratio = times["framework"] / times[peer]
        verdict = "met" if ratio <= limit else "NOT met"
        print(f"  target framework <= {limit}x {peer}: {ratio:.2f}x -> {verdict}")
    else:
        print(f"  target framework <= {limit}x {peer}: n/a ({peer} not installed)")
    print()


def compare(
    name: str,
    make: Callable[[ModuleType], Any],
    inputs: Array,
    labels: npt.NDArray[np.int64],
    torch: Any,
    target: tuple[str, float],
    number: int,
    numpy_floor: bool = False,
) -> None:
    """Time one step of the model `make` builds, in framework, (for the MLP) NumPy by hand and
    torch, all from framework's initial weights, and print the figures."""
    framework.manual_seed(0)
    state = {k: np.array(v.detach().numpy()) for k, v in make(framework).state_dict().items()}
    steps: dict[str, Any] = {"framework": Step(framework, make, state, inputs, labels)}
    if numpy_floor:
        steps["numpy"] = NumpyMlp(state, inputs, labels)
    if torch is not None:
        steps["torch"] = Step(torch, make, state, inputs, labels)
    losses = {key: step() for key, step in steps.items()}
    weights = {key: step.weights() for key, step in steps.items()}
    agree = all(same_weights(weights["framework"], w) for w in weights.values())
    times = dict(zip(steps, interleaved_best_median_us(list(steps.values()), number=number), strict=True))
    report(name, times, losses, target)
    print(f"  updated weights equal after the first step: {agree}\n")


def main() -> None:
    torch = torch_single_threaded()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 784)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    compare("MLP 784-256-10", mlp, x, y, torch, ("numpy", 1.05), number=5, numpy_floor=True)
    images = rng.standard_normal((BATCH, 1, 8, 8)).astype(np.float32)
    compare("CNN of examples/train_digits.py, 8x8 inputs", cnn, images, y, torch, ("torch", 2.0), number=2)


if __name__ == "__main__":
    main()
