"""Record ``optim_more_fixtures.json``: PyTorch's parameters after steps of the optimizers Adamax,
NAdam, RAdam, Adadelta, ASGD, Rprop and Adafactor, its LBFGS runs (``run_lbfgs``), and its
learning rates (and momenta) under the schedulers
ConstantLR, LinearLR, SequentialLR, ChainedScheduler, CosineAnnealingWarmRestarts, OneCycleLR,
CyclicLR, PolynomialLR and MultiplicativeLR, for tests that run without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_optim_fixtures.py``). The
optimizer runs reuse ``record_nn_fixtures.run_optimizer`` (10 steps on a fixed problem, with fixed
gradients or autograd's). A scheduler case is an expression building the scheduler from ``opt`` (an
optimizer made by the case's optimizer expression over two parameter groups) and ``ls`` (the library's
``optim.lr_scheduler``); ``run_scheduler`` records, after construction and after each of
``SCHEDULER_EPOCHS`` optimizer/scheduler steps, every group's learning rate and momentum (SGD's
"momentum" or Adam's beta1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_nn_fixtures import OPTIM_MODES, encode, run_optimizer

FIXTURE_PATH = Path(__file__).with_name("optim_more_fixtures.json")

OPTIM_CASES: list[tuple[str, dict[str, Any]]] = [
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.02), "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5, "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.2, "eps": (None, 0.5), "maximize": True}),
]

# LBFGS runs: (problem, keyword arguments), LBFGS_STEPS steps of step(closure) in float64 (in
# float32 the last-bit differences of this framework's sums and dot products from PyTorch's grow
# over the line searches and the curvature history).
LBFGS_CASES: list[tuple[str, dict[str, Any]]] = [
    ("least_squares", {}),
    ("least_squares", {"lr": 0.1, "max_iter": 5}),
    ("least_squares", {"lr": 0.01, "history_size": 2, "tolerance_change": 0.0, "max_iter": 8}),
    ("least_squares", {"line_search_fn": "strong_wolfe"}),
    ("rosenbrock", {"line_search_fn": "strong_wolfe", "max_iter": 6}),
    ("rosenbrock", {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 7, "lr": 0.5}),
    ("rosenbrock", {"lr": 0.1, "max_iter": 5, "max_eval": 3}),
]
LBFGS_STEPS = 4

SGD = "lib.optim.SGD(groups, lr=0.1, momentum=0.9)"
ADAM = "lib.optim.Adam(groups, lr=0.1)"
SCHEDULER_CASES: list[tuple[str, str]] = [
    (SGD, "ls.ConstantLR(opt)"),
    (SGD, "ls.ConstantLR(opt, factor=0.5, total_iters=7)"),
    (SGD, "ls.LinearLR(opt)"),
    (SGD, "ls.LinearLR(opt, start_factor=0.25, end_factor=0.75, total_iters=10)"),
    (SGD, "ls.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=20)"),
    (
        SGD,
        "ls.SequentialLR(opt, [ls.LinearLR(opt, start_factor=0.1, total_iters=5), "
        "ls.ExponentialLR(opt, gamma=0.9)], milestones=[5])",
    ),
    (
        SGD,
        "ls.SequentialLR(opt, [ls.ConstantLR(opt, factor=0.5, total_iters=3), "
        "ls.CosineAnnealingLR(opt, T_max=8), ls.StepLR(opt, step_size=4)], milestones=[4, 12])",
    ),
    (
        SGD,
        "ls.ChainedScheduler([ls.ConstantLR(opt, factor=0.2, total_iters=6), "
        "ls.ExponentialLR(opt, gamma=0.95)])",
    ),
    (
        SGD,
        "ls.ChainedScheduler([ls.LinearLR(opt, start_factor=0.5, total_iters=8), "
        "ls.StepLR(opt, step_size=5, gamma=0.5), ls.MultiplicativeLR(opt, lambda e: 0.97)])",
    ),
    (SGD, "ls.CosineAnnealingWarmRestarts(opt, T_0=5)"),
    (SGD, "ls.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)"),
    (SGD, "ls.OneCycleLR(opt, max_lr=1.0, total_steps=40)"),
    (SGD, "ls.OneCycleLR(opt, max_lr=[1.0, 0.5], epochs=4, steps_per_epoch=10, anneal_strategy='linear')"),
    (
        SGD,
        "ls.OneCycleLR(opt, max_lr=0.8, total_steps=41, pct_start=0.4, div_factor=10.0, "
        "final_div_factor=100.0, three_phase=True, base_momentum=0.8, max_momentum=0.9)",
    ),
    (ADAM, "ls.OneCycleLR(opt, max_lr=0.3, total_steps=40)"),
    (SGD, "ls.OneCycleLR(opt, max_lr=0.3, total_steps=40, cycle_momentum=False)"),
    (SGD, "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)"),
    (
        SGD,
        "ls.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=0.2, step_size_up=3, step_size_down=5, "
        "mode='triangular2')",
    ),
    (SGD, "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4, mode='exp_range', gamma=0.95)"),
    (
        SGD,
        "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn=lambda x: 0.5**x, "
        "scale_mode='iterations')",
    ),
    (ADAM, "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)"),
    (SGD, "ls.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False)"),
    (SGD, "ls.PolynomialLR(opt)"),
    (SGD, "ls.PolynomialLR(opt, total_iters=12, power=2.0)"),
    (SGD, "ls.PolynomialLR(opt, total_iters=30, power=0.5)"),
    (SGD, "ls.MultiplicativeLR(opt, lambda epoch: 0.95)"),
    (SGD, "ls.MultiplicativeLR(opt, [lambda epoch: 0.9, lambda epoch: 1.0 - 0.01 * epoch])"),
]
SCHEDULER_EPOCHS = 36


def _momentum(group: dict[str, Any]) -> float:
    return float(group["betas"][0] if "betas" in group else group["momentum"])


def run_scheduler(lib: ModuleType, optimizer_expr: str, scheduler_expr: str) -> list[list[float]]:
    """Per epoch (construction included): the groups' learning rates, then their momenta."""
    groups = [
        {"params": [lib.zeros(2, requires_grad=True)]},
        {"params": [lib.zeros(1, requires_grad=True)], "lr": 0.05},
    ]
    opt = eval(optimizer_expr, {"lib": lib, "groups": groups})
    scheduler = eval(scheduler_expr, {"opt": opt, "ls": lib.optim.lr_scheduler})

    def snapshot() -> list[float]:
        return list(scheduler.get_last_lr()) + [_momentum(g) for g in opt.param_groups]

    values = [snapshot()]
    for _ in range(SCHEDULER_EPOCHS):
        opt.step()
        scheduler.step()
        values.append(snapshot())
    return values


def run_lbfgs(lib: ModuleType, problem: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The parameters and each step's returned loss over LBFGS_STEPS steps of LBFGS on `problem`
    (a least-squares fit or a Rosenbrock function of the rows of a matrix), and the state's
    `func_evals` and `n_iter` counters."""
    rng = np.random.RandomState(0)
    w = lib.tensor(rng.randn(3, 4), requires_grad=True)
    b = lib.tensor(rng.randn(3), requires_grad=True)
    x, y = lib.tensor(rng.randn(8, 4)), lib.tensor(rng.randn(8, 3))
    optimizer = lib.optim.LBFGS([w, b], **kwargs)

    def closure() -> Any:
        optimizer.zero_grad()
        if problem == "least_squares":
            loss = ((x @ w.t() + b - y) ** 2).mean()
        else:
            loss = ((1 - w[:, :-1]) ** 2 + 100 * (w[:, 1:] - w[:, :-1] ** 2) ** 2).sum() + (b * b).sum()
        loss.backward()
        return loss

    losses = [optimizer.step(closure).item() for _ in range(LBFGS_STEPS)]
    state = optimizer.state[w]
    return {
        "params": [encode(w.detach().numpy()), encode(b.detach().numpy())],
        "losses": losses,
        "func_evals": state["func_evals"],
        "n_iter": state["n_iter"],
    }


def record() -> dict[str, Any]:
    import torch

    return {
        "optim": [
            {
                "name": name,
                "mode": mode,
                "params": [encode(p) for p in run_optimizer(torch, name, kwargs, mode)],
            }
            for name, kwargs in OPTIM_CASES
            for mode in OPTIM_MODES
        ],
        "schedulers": [run_scheduler(torch, o, s) for o, s in SCHEDULER_CASES],
        "lbfgs": [run_lbfgs(torch, problem, kwargs) for problem, kwargs in LBFGS_CASES],
    }


if __name__ == "__main__":
    FIXTURE_PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {FIXTURE_PATH}")
