"""Train an MLP and a small CNN on scikit-learn's digits (8x8 images, 10 classes) with framework,
written as one writes it for PyTorch: only the import differs.

    .venv/bin/pip install -e '.[demo]' && .venv/bin/python examples/train_digits.py [--out DIR]

A fixed split (1437 training, 360 test images, from a seeded permutation), a shuffled DataLoader
with a seeded generator, Adam, a tqdm bar per epoch. For each model: its test accuracy, a
checkpoint written with `save(model.state_dict(), path)` and read back into a fresh model with
`load` + `load_state_dict` (the test accuracy must not change), and at the end one PNG with the
loss and accuracy curves in the output directory (default `examples/out/`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import digits_cnn
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from sklearn.datasets import load_digits  # type: ignore[import-untyped]
from tqdm import tqdm  # type: ignore[import-untyped]

import framework as torch
from framework import nn
from framework.utils.data import DataLoader, TensorDataset

TRAIN_SIZE = 1437
BATCH_SIZE = 32
EPOCHS = 12
LEARNING_RATE = 2e-3


def make_mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def make_cnn() -> nn.Module:
    model: nn.Module = digits_cnn.make_cnn(nn)
    return model


@dataclass
class History:
    loss: list[float] = field(default_factory=list)  # mean training loss of each epoch
    accuracy: list[float] = field(default_factory=list)  # test accuracy after each epoch


def digits(seed: int = 0) -> tuple[TensorDataset, torch.Tensor, torch.Tensor]:
    """The training set, and the test images and labels: pixels scaled to [0, 1], shape (N, 1, 8, 8)."""
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[:, None]
    labels = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(labels))
    train, test = order[:TRAIN_SIZE], order[TRAIN_SIZE:]
    train_set = TensorDataset(torch.from_numpy(images[train]), torch.from_numpy(labels[train]))
    return train_set, torch.from_numpy(images[test]), torch.from_numpy(labels[test])


def accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(images).argmax(1) == labels).float().mean().item())


def train(
    name: str, model: nn.Module, train_set: TensorDataset, test_x: torch.Tensor, test_y: torch.Tensor
) -> History:
    loader = DataLoader(
        train_set, batch_size=BATCH_SIZE, shuffle=True, generator=torch.Generator().manual_seed(0)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    criterion = nn.CrossEntropyLoss()
    history = History()
    for epoch in range(1, EPOCHS + 1):
        model.train()
        total = 0.0
        with tqdm(total=len(loader), desc=f"{name} epoch {epoch:2d}/{EPOCHS}", unit="batch") as bar:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                value = loss.item()
                total += value * len(y)
                bar.set_postfix(loss=f"{value:.4f}", refresh=False)
                bar.update()
            history.loss.append(total / len(train_set))
            history.accuracy.append(accuracy(model, test_x, test_y))
            bar.set_postfix(loss=f"{history.loss[-1]:.4f}", test_acc=f"{history.accuracy[-1]:.2%}")
    return history


def check_checkpoint(
    name: str,
    model: nn.Module,
    make: Callable[[], nn.Module],
    path: Path,
    test_x: torch.Tensor,
    test_y: torch.Tensor,
) -> None:
    """Save `model`'s state_dict to `path`, load it into a fresh model, and require the same test
    accuracy (and the same logits) from it."""
    torch.save(model.state_dict(), path)
    fresh = make()
    fresh.load_state_dict(torch.load(path))
    before, after = accuracy(model, test_x, test_y), accuracy(fresh, test_x, test_y)
    with torch.no_grad():
        same_logits = bool((model(test_x) == fresh(test_x)).all())
    if after != before or not same_logits:
        raise SystemExit(f"{name}: reloaded from {path}, test accuracy {after:.2%} != {before:.2%}")
    print(f"{name}: reloaded from {path}: test accuracy {after:.2%}, identical (logits equal)")


def plot(histories: dict[str, History], path: Path) -> None:
    figure = Figure(figsize=(10, 4), layout="constrained")
    FigureCanvasAgg(figure)
    loss_axes, accuracy_axes = figure.subplots(1, 2)
    for name, history in histories.items():
        epochs = range(1, len(history.loss) + 1)
        loss_axes.plot(epochs, history.loss, marker="o", label=name)
        accuracy_axes.plot(epochs, [100 * a for a in history.accuracy], marker="o", label=name)
    loss_axes.set(xlabel="epoch", ylabel="training loss", yscale="log", title="Training loss")
    accuracy_axes.set(xlabel="epoch", ylabel="test accuracy (%)", title="Test accuracy")
    for axes in (loss_axes, accuracy_axes):
        axes.grid(alpha=0.3)
        axes.legend()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("out"), help="output directory")
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    train_set, test_x, test_y = digits()
    print(f"digits: {len(train_set)} training images, {len(test_y)} test images")
    histories = {}
    for name, make in (("MLP", make_mlp), ("CNN", make_cnn)):
        torch.manual_seed(0)
        model = make()
        histories[name] = train(name, model, train_set, test_x, test_y)
        print(f"{name}: test accuracy {histories[name].accuracy[-1]:.2%}")
        check_checkpoint(name, model, make, out / f"digits_{name.lower()}.safetensors", test_x, test_y)
    plot(histories, out / "digits_curves.png")
    print(f"curves: {out / 'digits_curves.png'}")
    elapsed = time.perf_counter() - start
    print(f"elapsed (data, training, checkpoints, plot): {elapsed:.1f} s (target: < 60 s)")


if __name__ == "__main__":
    main()
