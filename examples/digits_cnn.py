"""The small CNN of the digits demo, built from any `nn` module (framework.nn or torch.nn): the
demo trains it, benchmarks/training.py times it, tests/data/record_training_fixtures.py records
PyTorch's training of it."""

from __future__ import annotations

from types import ModuleType
from typing import Any


def make_cnn(nn: ModuleType) -> Any:
    """conv 1->16, pool, conv 16->32, pool, linear to 10 classes, on (N, 1, 8, 8) inputs."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )
