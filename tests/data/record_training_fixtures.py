"""Record ``training_fixtures.json``: PyTorch's loss at every step of a small training, for tests
that run without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_training_fixtures.py``). Each run
trains a model (a small MLP or a small CNN, float32) with an optimizer (SGD with momentum or Adam)
for ``STEPS`` steps on synthetic batches made with NumPy from ``DATA_SEED``, starting from
PyTorch's initialisation under ``manual_seed(INIT_SEED)``. The fixture holds those initial weights
(exactly, base64 of their bytes), the SHA-256 of the batches and the losses. ``run`` is written
once against a library namespace (``torch`` or ``framework``): ``tests/test_training_parity.py``
replays the runs on framework from the recorded weights and compares its losses with the recorded
ones and, when PyTorch is importable, with PyTorch's live.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[2] / "examples")]
from digits_cnn import make_cnn  # noqa: E402  (the demo's CNN)
from record_nn_fixtures import decode as decode  # noqa: E402  (the test reads the fixture with it)
from record_nn_fixtures import encode  # noqa: E402

FIXTURE_PATH = Path(__file__).with_name("training_fixtures.json")

STEPS = 50
BATCH_SIZE = 32
DATA_SEED = 0
INIT_SEED = 0
MODELS = ("mlp", "cnn")
# name -> (class in optim, keyword arguments)
OPTIMIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd_momentum": ("SGD", {"lr": 0.02, "momentum": 0.9}),
    "adam": ("Adam", {"lr": 3e-3}),
}
RUNS = [(model, optimizer) for model in MODELS for optimizer in OPTIMIZERS]

Batch = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]


def build(lib: ModuleType, model: str) -> Any:
    """The model `model` of `lib.nn` (torch.nn or framework.nn), on (N, 1, 8, 8) inputs."""
    nn = lib.nn
    if model == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    if model == "cnn":
        return make_cnn(nn)
    raise ValueError(f"unknown model {model!r}")


def batches() -> list[Batch]:
    """STEPS batches of 8x8 images: one fixed random pattern per class plus Gaussian noise (a
    problem both models learn within the run, so the weights and the losses move a lot)."""
    rng = np.random.default_rng(DATA_SEED)
    patterns = rng.standard_normal((10, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 10, (STEPS, BATCH_SIZE))
    noise = rng.standard_normal((STEPS, BATCH_SIZE, 1, 8, 8)).astype(np.float32)
    images = patterns[labels] + noise
    return list(zip(images, labels, strict=True))


def batches_sha256() -> str:
    digest = hashlib.sha256()
    for images, labels in batches():
        digest.update(images.tobytes())
        digest.update(labels.tobytes())
    return digest.hexdigest()


def initial_state(lib: ModuleType, model: str) -> dict[str, npt.NDArray[np.float32]]:
    """The state_dict of `model` as `lib` initialises it under manual_seed(INIT_SEED), as arrays."""
    lib.manual_seed(INIT_SEED)
    return {key: np.array(value.detach().numpy()) for key, value in build(lib, model).state_dict().items()}


def run(
    lib: ModuleType, model: str, optimizer: str, state: dict[str, npt.NDArray[np.float32]]
) -> list[float]:
    """The loss of each of the STEPS steps (forward, cross-entropy, backward, step) of `model`
    trained with `optimizer` from the weights `state`."""
    network = build(lib, model)
    network.load_state_dict({key: lib.from_numpy(value.copy()) for key, value in state.items()})
    name, kwargs = OPTIMIZERS[optimizer]
    opt = getattr(lib.optim, name)(network.parameters(), **kwargs)
    losses = []
    for images, labels in batches():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(network(lib.from_numpy(images)), lib.from_numpy(labels))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def record() -> dict[str, Any]:
    import torch

    states = {model: initial_state(torch, model) for model in MODELS}
    return {
        "steps": STEPS,
        "batches_sha256": batches_sha256(),
        "initial_state": {
            model: {key: encode(value) for key, value in state.items()} for model, state in states.items()
        },
        "runs": [
            {"model": model, "optimizer": optimizer, "losses": run(torch, model, optimizer, states[model])}
            for model, optimizer in RUNS
        ],
    }


if __name__ == "__main__":
    FIXTURE_PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {FIXTURE_PATH}")
