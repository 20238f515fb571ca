"""Record ``nn_fixtures.json``: what PyTorch gives for nn modules, initialisation, optimizers,
learning-rate schedulers and data loading, for tests that run without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_nn_fixtures.py``). Every case is
an expression or a runner written once here against a library namespace (``torch`` or
``framework``), so the tests replay the very same cases on ``framework`` (compared with the
recorded values) and, when PyTorch is importable, on PyTorch itself. Float arrays are recorded
exactly (base64 of their bytes).
"""

from __future__ import annotations

import base64
import json
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

FIXTURE_PATH = Path(__file__).with_name("nn_fixtures.json")

# Module reprs (``nn`` is torch.nn or framework.nn).
REPR_CASES = [
    "nn.Linear(4, 3)",
    "nn.Linear(4, 3, bias=False)",
    "nn.Conv1d(2, 4, 3, padding=2, padding_mode='reflect', bias=False)",
    "nn.Conv2d(3, 8, 3)",
    "nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, dilation=2, groups=1)",
    "nn.Conv2d(4, 8, 3, padding='same', groups=2)",
    "nn.MaxPool2d(2)",
    "nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)",
    "nn.AvgPool2d(3, 1)",
    "nn.AdaptiveAvgPool2d((1, None))",
    "nn.AdaptiveAvgPool2d(1)",
    "nn.BatchNorm1d(5)",
    "nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False)",
    "nn.LayerNorm([4, 5])",
    "nn.LayerNorm(4, elementwise_affine=False)",
    "nn.LayerNorm(4, bias=False)",
    "nn.Dropout()",
    "nn.Dropout(0.2, inplace=True)",
    "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, scale_grad_by_freq=True)",
    "nn.Flatten()",
    "nn.Flatten(0, 2)",
    "nn.Unflatten(1, (2, 3))",
    "nn.Identity()",
    "nn.ReLU()",
    "nn.ReLU(inplace=True)",
    "nn.GELU()",
    "nn.GELU(approximate='tanh')",
    "nn.SiLU()",
    "nn.Sigmoid()",
    "nn.Tanh()",
    "nn.Softmax(dim=1)",
    "nn.Softmax()",
    "nn.LogSoftmax(-1)",
    "nn.CrossEntropyLoss()",
    "nn.NLLLoss()",
    "nn.MSELoss(reduction='sum')",
    "nn.L1Loss()",
    "nn.BCELoss()",
    "nn.BCEWithLogitsLoss()",
    "nn.Sequential()",
    "nn.ModuleList()",
    "nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))",
    "nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Linear(2, 2)])",
    "nn.ModuleDict({'act': nn.ReLU(), 'blocks': nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])})",
    "nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), "
    "nn.Linear(2, 2))",
    "nn.Sequential(OrderedDict(conv=nn.Conv2d(1, 2, 3), act=nn.ReLU()))",
]

# Modules whose default initialisation is recorded: (seed, expression).
INIT_MODULE_CASES = [
    (0, "nn.Linear(4, 3)"),
    (1, "nn.Linear(20, 7)"),
    (0, "nn.Linear(5, 2, bias=False)"),
    (0, "nn.Conv2d(2, 3, 3)"),
    (3, "nn.Conv2d(4, 6, (3, 2), groups=2)"),
    (0, "nn.Conv1d(3, 5, 4)"),
    (0, "nn.Embedding(6, 4)"),
    (2, "nn.Embedding(6, 4, padding_idx=2)"),
    (0, "nn.BatchNorm1d(4)"),
    (0, "nn.BatchNorm2d(3)"),
    (0, "nn.LayerNorm(5)"),
    (0, "nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))"),
]

# nn.init calls on fresh tensors: (seed, expression).
INIT_FN_CASES = [
    (0, "init.uniform_(torch.empty(3, 5), -2.0, 3.0)"),
    (0, "init.normal_(torch.empty(40), 1.0, 0.5)"),
    (1, "init.xavier_uniform_(torch.empty(4, 6))"),
    (1, "init.xavier_normal_(torch.empty(4, 6, 3), gain=2.0)"),
    (2, "init.kaiming_uniform_(torch.empty(5, 3))"),
    (2, "init.kaiming_uniform_(torch.empty(5, 3, 2, 2), mode='fan_out', nonlinearity='relu')"),
    (2, "init.kaiming_normal_(torch.empty(50, 3))"),
    (3, "init.trunc_normal_(torch.empty(200), std=0.02)"),
    (3, "init.trunc_normal_(torch.empty(100), mean=1.0, std=2.0, a=-1.0, b=3.0)"),
    (4, "init.trunc_normal_(torch.empty(500), mean=0.5, std=1.0, a=-0.2, b=0.3)"),
    (0, "init.constant_(torch.empty(3), 0.25)"),
    (0, "init.ones_(torch.empty(2, 2))"),
    (0, "init.zeros_(torch.empty(2, 2))"),
]

GAIN_CASES = [
    ("linear", None),
    ("conv2d", None),
    ("sigmoid", None),
    ("tanh", None),
    ("relu", None),
    ("leaky_relu", None),
    ("leaky_relu", 0.2),
    ("selu", None),
]

# Layers run forward and backward on fixed inputs: (seed, module expression, input specs); a spec
# is ("float", shape), ("long", shape, high), ("prob", shape) or ("binary", shape).
LAYER_CASES: list[tuple[int, str, list[tuple[Any, ...]]]] = [
    (0, "nn.Linear(4, 3)", [("float", (2, 4))]),
    (1, "nn.Linear(4, 3, bias=False)", [("float", (2, 5, 4))]),
    (0, "nn.Conv1d(2, 4, 3, padding=1)", [("float", (2, 2, 7))]),
    (0, "nn.Conv1d(2, 4, 3, padding=2, padding_mode='circular')", [("float", (1, 2, 6))]),
    (0, "nn.Conv2d(3, 4, 3, stride=2, padding=1)", [("float", (2, 3, 7, 7))]),
    (0, "nn.Conv2d(4, 4, 3, padding='same', dilation=2, groups=2, bias=False)", [("float", (1, 4, 6, 5))]),
    (0, "nn.Conv2d(2, 3, 3, padding=1, padding_mode='reflect')", [("float", (1, 2, 5, 5))]),
    (0, "nn.MaxPool2d(2)", [("float", (2, 3, 6, 6))]),
    (0, "nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", [("float", (1, 2, 7, 7))]),
    (0, "nn.AvgPool2d(3, 2, 1)", [("float", (2, 2, 6, 6))]),
    (0, "nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False)", [("float", (1, 2, 5, 5))]),
    (0, "nn.AdaptiveAvgPool2d((2, 3))", [("float", (2, 3, 7, 8))]),
    (0, "nn.AdaptiveAvgPool2d(1)", [("float", (2, 3, 4, 4))]),
    (0, "nn.BatchNorm1d(4)", [("float", (5, 4))]),
    (0, "nn.BatchNorm1d(3, affine=False)", [("float", (4, 3, 5))]),
    (0, "nn.BatchNorm2d(3)", [("float", (4, 3, 2, 2))]),
    (0, "nn.BatchNorm2d(3, momentum=None)", [("float", (4, 3, 2, 2))]),
    (0, "nn.BatchNorm2d(3).eval()", [("float", (4, 3, 2, 2))]),
    (0, "nn.BatchNorm2d(3, track_running_stats=False)", [("float", (4, 3, 2, 2))]),
    (0, "nn.LayerNorm(5)", [("float", (2, 3, 5))]),
    (0, "nn.LayerNorm([3, 5], elementwise_affine=False)", [("float", (2, 3, 5))]),
    (0, "nn.Embedding(10, 3, padding_idx=0)", [("long", (2, 4), 10)]),
    (0, "nn.Dropout(0.3)", [("float", (4, 50))]),
    (0, "nn.Dropout(0.3).eval()", [("float", (4, 5))]),
    (0, "nn.Flatten()", [("float", (2, 3, 4))]),
    (0, "nn.Unflatten(1, (2, 3))", [("float", (2, 6))]),
    (0, "nn.Identity()", [("float", (3,))]),
    (0, "nn.ReLU()", [("float", (3, 4))]),
    (0, "nn.GELU()", [("float", (3, 4))]),
    (0, "nn.GELU(approximate='tanh')", [("float", (3, 4))]),
    (0, "nn.SiLU()", [("float", (3, 4))]),
    (0, "nn.Sigmoid()", [("float", (3, 4))]),
    (0, "nn.Tanh()", [("float", (3, 4))]),
    (0, "nn.Softmax(dim=1)", [("float", (3, 4))]),
    (0, "nn.LogSoftmax(dim=-1)", [("float", (2, 3, 4))]),
    (0, "nn.CrossEntropyLoss()", [("float", (4, 5)), ("long", (4,), 5)]),
    (
        0,
        "nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), ignore_index=1, label_smoothing=0.1)",
        [("float", (6, 3)), ("long", (6,), 3)],
    ),
    (0, "nn.CrossEntropyLoss(reduction='sum')", [("float", (2, 3, 4)), ("long", (2, 4), 3)]),
    (0, "nn.NLLLoss(reduction='none')", [("float", (4, 5)), ("long", (4,), 5)]),
    (0, "nn.MSELoss()", [("float", (3, 4)), ("float", (3, 4))]),
    (0, "nn.L1Loss(reduction='sum')", [("float", (3, 4)), ("float", (3, 4))]),
    (0, "nn.BCELoss()", [("prob", (3, 4)), ("binary", (3, 4))]),
    (0, "nn.BCELoss(weight=torch.tensor([1.0, 2.0, 3.0, 4.0]))", [("prob", (3, 4)), ("binary", (3, 4))]),
    (
        0,
        "nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 3.0, 0.5]))",
        [("float", (3, 4)), ("binary", (3, 4))],
    ),
    (
        0,
        "nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2), "
        "nn.Flatten(), nn.Linear(8, 3), nn.LogSoftmax(dim=1))",
        [("float", (2, 1, 4, 4))],
    ),
]

# clip_grad_norm_ on fixed gradients: (max_norm, norm_type).
CLIP_CASES: list[tuple[float, float]] = [
    (1.0, 2.0),
    (100.0, 2.0),
    (0.5, 1.0),
    (0.3, float("inf")),
    (2.0, 3.0),
]

# Optimizers: (class name, keyword arguments), each run OPTIM_STEPS steps on a fixed problem.
OPTIM_CASES: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.5, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.1, "eps": 1e-8},
    ),
]
OPTIM_STEPS = 10
OPTIM_MODES = ("grads", "loss")

# Learning-rate schedulers on SGD(lr=0.1) over SCHEDULER_EPOCHS epochs: (class, keyword arguments).
SCHEDULER_CASES: list[tuple[str, dict[str, Any]]] = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 2, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.5}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 4}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": "lambda epoch: 1 / (epoch + 1)"}),
]
SCHEDULER_EPOCHS = 12
PLATEAU_CASES: list[dict[str, Any]] = [
    {"patience": 2},
    {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2},
    {"threshold_mode": "abs", "threshold": 0.1, "patience": 0, "min_lr": 0.02},
]
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.5, 0.6, 0.7, 0.8, 0.8, 0.8, 0.3, 0.9, 0.9]

# DataLoader over TensorDataset(arange(n)), two epochs: the batches of indices.
LOADER_CASES: list[dict[str, Any]] = [
    {"n": 10, "batch_size": 3, "shuffle": False},
    {"n": 10, "batch_size": 3, "shuffle": True, "seed": 0, "generator": True},
    {"n": 10, "batch_size": 4, "shuffle": True, "seed": 7, "generator": True, "drop_last": True},
    {"n": 25, "batch_size": 5, "shuffle": True, "seed": 3, "generator": False},
    {"n": 7, "batch_size": 2, "shuffle": True, "seed": 11, "generator": False, "drop_last": True},
    {"n": 40, "batch_size": 8, "replacement": True, "num_samples": 50, "seed": 5},
]
SPLIT_CASES: list[dict[str, Any]] = [
    {"n": 10, "lengths": [3, 7], "seed": 0, "generator": True},
    {"n": 10, "lengths": [0.5, 0.3, 0.2], "seed": 1, "generator": True},
    {"n": 11, "lengths": [0.25, 0.25, 0.5], "seed": 2, "generator": False},
]

# load_state_dict outcomes: (module expression, state-dict expression, strict).
LOAD_CASES: list[tuple[str, str, bool]] = [
    ("nn.Linear(4, 3)", "{'weight': torch.zeros(3, 3)}", True),
    (
        "nn.Linear(4, 3)",
        "{'weight': torch.zeros(3, 4), 'bias': torch.zeros(3), 'extra': torch.zeros(1)}",
        True,
    ),
    (
        "nn.Linear(4, 3)",
        "{'weight': torch.zeros(3, 4), 'bias': torch.zeros(3), 'extra': torch.zeros(1)}",
        False,
    ),
    ("nn.Linear(4, 3)", "{'weight': torch.zeros(3, 4), 'bias': torch.zeros(3)}", True),
    (
        "nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))",
        "{'0.weight': torch.zeros(3, 2), '0.bias': torch.zeros(4), '2.weight': torch.zeros(1, 3), "
        "'3.weight': torch.ones(1), '1.x': torch.ones(1)}",
        True,
    ),
    (
        "nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))",
        "{'0.weight': torch.zeros(3, 2), '2.weight': torch.zeros(1, 3), '3.weight': torch.ones(1)}",
        False,
    ),
    ("nn.Linear(2, 2)", "{'weight': [[1.0, 2.0], [3.0, 4.0]], 'bias': torch.zeros(2)}", True),
    (
        "nn.BatchNorm1d(3)",
        "{'weight': torch.ones(3), 'bias': torch.zeros(3), 'running_mean': torch.ones(3), 'running_var': "
        "torch.ones(3)}",
        True,
    ),
]

# Structure of a model with shared and nested modules: names as PyTorch lists them.
STRUCTURE_MODEL = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
        self.head = nn.Linear(2, 2)
        self.tied = self.head
        self.register_buffer('scale', torch.ones(1))
        self.register_buffer('cache', torch.zeros(2), persistent=False)
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Identity()])

    def forward(self, x):
        return self.head(self.features(x))
"""


def encode(array: npt.NDArray[Any]) -> dict[str, Any]:
    array = np.asarray(array, order="C")
    return {
        "dtype": array.dtype.name,
        "shape": list(array.shape),
        "b64": base64.b64encode(array.tobytes()).decode(),
    }


def decode(data: dict[str, Any]) -> npt.NDArray[Any]:
    return np.frombuffer(base64.b64decode(data["b64"]), dtype=data["dtype"]).reshape(data["shape"]).copy()


def namespace(lib: ModuleType) -> dict[str, Any]:
    """The names the case expressions use, bound to `lib` (torch or framework)."""
    from collections import OrderedDict

    return {"torch": lib, "nn": lib.nn, "init": lib.nn.init, "OrderedDict": OrderedDict}


def evaluate(lib: ModuleType, expr: str) -> Any:
    return eval(expr, namespace(lib))


def arrays_of(state: dict[str, Any]) -> dict[str, npt.NDArray[Any]]:
    return {key: np.array(value.detach().numpy()) for key, value in state.items()}


def seeded_state(lib: ModuleType, seed: int, expr: str) -> dict[str, npt.NDArray[Any]]:
    lib.manual_seed(seed)
    return arrays_of(evaluate(lib, expr).state_dict())


def seeded_tensor(lib: ModuleType, seed: int, expr: str) -> npt.NDArray[Any]:
    lib.manual_seed(seed)
    return np.array(evaluate(lib, expr).numpy())


def make_input(lib: ModuleType, spec: tuple[Any, ...], rng: np.random.RandomState) -> Any:
    kind, shape = spec[0], spec[1]
    if kind == "long":
        return lib.tensor(rng.randint(0, spec[2], size=shape).astype(np.int64))
    if kind == "binary":
        return lib.tensor(rng.randint(0, 2, size=shape).astype(np.float32))
    values = rng.rand(*shape) * 0.9 + 0.05 if kind == "prob" else rng.randn(*shape)
    return lib.tensor(values.astype(np.float32), requires_grad=True)


def run_layer(
    lib: ModuleType, seed: int, expr: str, specs: list[tuple[Any, ...]]
) -> dict[str, npt.NDArray[Any]]:
    """A layer's output, the gradients of a fixed weighting of it, and its buffers afterwards."""
    lib.manual_seed(seed)
    module = evaluate(lib, expr)
    rng = np.random.RandomState(seed + 100)
    inputs = [make_input(lib, spec, rng) for spec in specs]
    output = module(*inputs)
    weights = lib.tensor(np.asarray(rng.randn(*tuple(output.shape)), dtype=np.float32))
    (output * weights).sum().backward()
    result = {"output": np.array(output.detach().numpy())}
    if inputs[0].requires_grad:
        result["grad_input"] = np.array(inputs[0].grad.numpy())
    for name, param in module.named_parameters():
        if param.grad is not None:
            result[f"grad.{name}"] = np.array(param.grad.numpy())
    for name, buffer in module.named_buffers():
        result[f"buffer.{name}"] = np.array(buffer.numpy())
    return result


def run_clip(lib: ModuleType, max_norm: float, norm_type: float) -> list[npt.NDArray[Any]]:
    """The total norm clip_grad_norm_ returns, then the clipped gradients."""
    rng = np.random.RandomState(7)
    params = [lib.zeros(*shape, requires_grad=True) for shape in ((3, 4), (5,), (2, 2, 2))]
    for param in params:
        param.grad = lib.tensor(rng.randn(*param.shape).astype(np.float32))
    total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
    return [np.array(total.numpy()), *(np.array(p.grad.numpy()) for p in params)]


def run_training(lib: ModuleType) -> list[float]:
    """The losses of three epochs of a small convolutional classifier (shuffled DataLoader, AdamW,
    StepLR, label smoothing, gradient clipping, dropout): the pieces working together."""
    nn = lib.nn
    lib.manual_seed(0)
    x, y = lib.randn(48, 1, 8, 8), lib.randint(0, 3, (48,))
    loader = lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(x, y),
        batch_size=16,
        shuffle=True,
        generator=lib.Generator().manual_seed(1),
    )
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64, 16),
        nn.GELU(),
        nn.Dropout(0.1),
        nn.Linear(16, 3),
    )
    optimizer = lib.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 2, 0.5)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    losses = []
    for _ in range(3):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    model.eval()
    with lib.no_grad():
        losses.append(criterion(model(x), y).item())
    return losses


def _problem() -> tuple[
    list[npt.NDArray[np.float32]], npt.NDArray[np.float32], npt.NDArray[np.float32], list[Any]
]:
    rng = np.random.RandomState(1234)
    params = [rng.randn(3, 4).astype(np.float32), rng.randn(3).astype(np.float32)]
    x = rng.randn(8, 4).astype(np.float32)
    y = rng.randn(8, 3).astype(np.float32)
    grads = [[rng.randn(*p.shape).astype(np.float32) for p in params] for _ in range(OPTIM_STEPS)]
    return params, x, y, grads


def run_optimizer(lib: ModuleType, name: str, kwargs: dict[str, Any], mode: str) -> list[npt.NDArray[Any]]:
    """Parameters after OPTIM_STEPS steps of `name`: with fixed gradients ("grads") or with the
    gradients of a least-squares loss computed by autograd ("loss")."""
    start, x_np, y_np, grads = _problem()
    params = [lib.tensor(p, requires_grad=True) for p in start]
    optimizer = getattr(lib.optim, name)(params, **kwargs)
    x, y = lib.tensor(x_np), lib.tensor(y_np)
    for step in range(OPTIM_STEPS):
        optimizer.zero_grad()
        if mode == "grads":
            for param, grad in zip(params, grads[step], strict=True):
                param.grad = lib.tensor(grad)
        else:
            loss = ((x @ params[0].t() + params[1] - y) ** 2).mean()
            loss.backward()
        optimizer.step()
    return [np.array(p.detach().numpy()) for p in params]


def run_scheduler(lib: ModuleType, name: str, kwargs: dict[str, Any]) -> list[float]:
    """The learning rate after each of SCHEDULER_EPOCHS epochs (optimizer.step, then scheduler.step)."""
    param = lib.zeros(2, requires_grad=True)
    optimizer = lib.optim.SGD([param], lr=0.1)
    args = {k: (eval(v) if k == "lr_lambda" else v) for k, v in kwargs.items()}
    scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, **args)
    lrs = [scheduler.get_last_lr()[0]]
    for _ in range(SCHEDULER_EPOCHS):
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return lrs


def run_plateau(lib: ModuleType, kwargs: dict[str, Any]) -> list[float]:
    param = lib.zeros(2, requires_grad=True)
    optimizer = lib.optim.SGD([param], lr=0.1)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **kwargs)
    lrs = []
    for metric in PLATEAU_METRICS:
        optimizer.step()
        scheduler.step(metric)
        lrs.append(scheduler.get_last_lr()[0])
    return lrs


def loader_epochs(lib: ModuleType, case: dict[str, Any]) -> list[list[list[int]]]:
    """The batches of two passes over a DataLoader of TensorDataset(arange(n))."""
    data = lib.utils.data
    dataset = data.TensorDataset(lib.arange(case["n"]))
    kwargs: dict[str, Any] = {"batch_size": case["batch_size"], "drop_last": case.get("drop_last", False)}
    lib.manual_seed(case.get("seed", 0))
    if "replacement" in case:
        kwargs["sampler"] = data.RandomSampler(dataset, replacement=True, num_samples=case["num_samples"])
    else:
        kwargs["shuffle"] = case["shuffle"]
        if case.get("generator"):
            kwargs["generator"] = lib.Generator().manual_seed(case["seed"])
    loader = data.DataLoader(dataset, **kwargs)
    return [[batch[0].tolist() for batch in loader] for _ in range(2)]


def split_indices(lib: ModuleType, case: dict[str, Any]) -> list[list[int]]:
    data = lib.utils.data
    dataset = data.TensorDataset(lib.arange(case["n"]))
    lib.manual_seed(case["seed"])
    generator = lib.Generator().manual_seed(case["seed"]) if case["generator"] else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        splits = data.random_split(dataset, case["lengths"], generator=generator)
    return [list(s.indices) for s in splits]


def load_outcome(lib: ModuleType, module_expr: str, state_expr: str, strict: bool) -> str:
    """What load_state_dict says: its result's repr, or the error's type and text."""
    module = evaluate(lib, module_expr)
    try:
        return repr(module.load_state_dict(evaluate(lib, state_expr), strict=strict))
    except (RuntimeError, TypeError, ValueError) as error:
        return f"{type(error).__name__}: {error}"


def structure(lib: ModuleType) -> dict[str, Any]:
    """Names of a model's parameters, buffers, modules, children and state_dict, as listed."""
    scope = namespace(lib)
    exec(STRUCTURE_MODEL, scope)
    net = scope["Net"]()
    return {
        "parameters": [name for name, _ in net.named_parameters()],
        "parameters_all": [name for name, _ in net.named_parameters(remove_duplicate=False)],
        "parameters_prefixed": [name for name, _ in net.named_parameters(prefix="net", recurse=True)],
        "parameters_local": [name for name, _ in net.named_parameters(recurse=False)],
        "buffers": [name for name, _ in net.named_buffers()],
        "modules": [name for name, _ in net.named_modules()],
        "modules_all": [name for name, _ in net.named_modules(remove_duplicate=False)],
        "children": [name for name, _ in net.named_children()],
        "state_dict": list(net.state_dict()),
        "repr": repr(net),
        "dir_has": [name in dir(net) for name in ("head", "scale", "features", "training", "nothing")],
    }


def record() -> dict[str, Any]:
    import torch

    torch.set_printoptions(profile="default")
    return {
        "torch_version": torch.__version__,
        "reprs": {expr: repr(evaluate(torch, expr)) for expr in REPR_CASES},
        "parameter_repr": repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]))),
        "init_modules": [
            {
                "seed": seed,
                "expr": expr,
                "state": {k: encode(v) for k, v in seeded_state(torch, seed, expr).items()},
            }
            for seed, expr in INIT_MODULE_CASES
        ],
        "init_fns": [
            {"seed": seed, "expr": expr, "value": encode(seeded_tensor(torch, seed, expr))}
            for seed, expr in INIT_FN_CASES
        ],
        "layers": [
            {k: encode(v) for k, v in run_layer(torch, seed, expr, specs).items()}
            for seed, expr, specs in LAYER_CASES
        ],
        "clips": [[encode(a) for a in run_clip(torch, *case)] for case in CLIP_CASES],
        "gains": [torch.nn.init.calculate_gain(name, param) for name, param in GAIN_CASES],
        "optim": [
            {
                "name": name,
                "kwargs": kwargs,
                "mode": mode,
                "params": [encode(p) for p in run_optimizer(torch, name, kwargs, mode)],
            }
            for name, kwargs in OPTIM_CASES
            for mode in OPTIM_MODES
        ],
        "training": run_training(torch),
        "schedulers": [run_scheduler(torch, name, kwargs) for name, kwargs in SCHEDULER_CASES],
        "plateau": [run_plateau(torch, kwargs) for kwargs in PLATEAU_CASES],
        "loaders": [loader_epochs(torch, case) for case in LOADER_CASES],
        "splits": [split_indices(torch, case) for case in SPLIT_CASES],
        "loads": [load_outcome(torch, *case) for case in LOAD_CASES],
        "structure": structure(torch),
    }


if __name__ == "__main__":
    FIXTURE_PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {FIXTURE_PATH}")
