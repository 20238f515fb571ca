"""Record ``rng_fixtures.json``: numbers drawn by PyTorch's CPU generator, for tests without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_rng_fixtures.py``).
Each case seeds a fresh generator, runs a list of operations on it in order and records every
result (exact bytes, base64) and the SHA-256 of the generator state afterwards; a few cases also
keep the whole state. ``tests/c10/test_generator.py`` imports ``CASES``, ``decode`` and
``torch_run`` from here to replay the cases on ``framework.c10.generator`` and, when PyTorch is
importable, on PyTorch itself.

``DISTRIBUTION_CASES`` (recorded under "distribution_cases") are tensor-level calls of the other
distributions (exponential_, geometric_, log_normal_, cauchy_, bernoulli, the normal overloads,
multinomial, one-element poisson), written once as expressions over a library ``lib`` (``torch``
or ``framework``) and a seeded generator ``g``; ``run_distribution`` evaluates them in order
(``tests/ops/test_random_more.py`` replays them on framework).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

FIXTURE_PATH = Path(__file__).with_name("rng_fixtures.json")

Op = dict[str, Any]
Case = dict[str, Any]

SEEDS = (0, 1, 42, 2**32 + 5, 12345678901)
SIZES = (1, 5, 15, 16, 17, 33, 100, 1000)
RANGES = (
    (0, 10),
    (-5, 5),
    (-100, 3),
    (0, 2**28 - 1),
    (0, 2**28),
    (0, 2**32 + 7),
    (-(2**40), 2**40),
    (-(2**63), 2**63 - 1),
)


def encode(array: npt.NDArray[Any]) -> dict[str, str]:
    return {
        "dtype": array.dtype.name,
        "b64": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode(),
    }


def decode(data: dict[str, str]) -> npt.NDArray[Any]:
    return np.frombuffer(base64.b64decode(data["b64"]), dtype=data["dtype"]).copy()


def _case(name: str, seed: int, ops: list[Op], *, keep_state: bool = False) -> Case:
    return {"name": name, "seed": seed, "ops": ops, "keep_state": keep_state}


def _build_cases() -> list[Case]:
    cases: list[Case] = []
    for seed in SEEDS:
        for n in SIZES:
            for dtype in ("float32", "float64"):
                cases.append(
                    _case(f"rand-{dtype}-{n}-seed{seed}", seed, [{"kind": "uniform", "n": n, "dtype": dtype}])
                )
                cases.append(
                    _case(f"randn-{dtype}-{n}-seed{seed}", seed, [{"kind": "normal", "n": n, "dtype": dtype}])
                )
        for low, high in RANGES:
            op = {"kind": "randint", "n": 100, "dtype": "int64", "low": low, "high": high}
            cases.append(_case(f"randint-{low}-{high}-seed{seed}", seed, [op]))
        for n in (1, 5, 20, 100, 1000):
            cases.append(
                _case(f"randperm-{n}-seed{seed}", seed, [{"kind": "randperm", "n": n, "dtype": "int64"}])
            )
        for p in (0.0, 0.3, 0.5, 1.0):
            for dtype in ("float32", "float64"):
                op = {"kind": "bernoulli", "n": 100, "dtype": dtype, "p": p}
                cases.append(_case(f"bernoulli-{p}-{dtype}-seed{seed}", seed, [op]))
    for seed in (0, 42):
        for n in SIZES:
            cases.append(
                _case(f"rand-float16-{n}-seed{seed}", seed, [{"kind": "uniform", "n": n, "dtype": "float16"}])
            )
            cases.append(
                _case(f"randn-float16-{n}-seed{seed}", seed, [{"kind": "normal", "n": n, "dtype": "float16"}])
            )
        for dtype in ("float16", "float32", "float64"):
            for n in (7, 40):
                params: list[Op] = [
                    {"kind": "uniform", "n": n, "dtype": dtype, "low": -3.7, "high": 2.1},
                    {"kind": "normal", "n": n, "dtype": dtype, "mean": 0.5, "std": 3.25},
                    {"kind": "normal", "n": n, "dtype": dtype, "mean": -1.0, "std": 0.1, "contiguous": False},
                ]
                cases.append(_case(f"params-{dtype}-{n}-seed{seed}", seed, params))
        for dtype, low, high in (
            ("int8", -128, 128),
            ("uint8", 0, 256),
            ("int16", -300, 300),
            ("int32", -(2**31), 2**31 - 1),
            ("bool", 0, 2),
            ("float16", -2048, 2048),
            ("float32", -(2**20), 2**30),
            ("float64", -(2**60), 2**60),
        ):
            op = {"kind": "randint", "n": 100, "dtype": dtype, "low": low, "high": high}
            cases.append(_case(f"randint-{dtype}-seed{seed}", seed, [op]))
        for dtype in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
            ops: list[Op] = [{"kind": "random_", "n": 50, "dtype": dtype}]
            if dtype != "bool":
                ops.append({"kind": "randint", "n": 50, "dtype": dtype, "low": 3, "high": None})
            if dtype in ("int64", "float32", "float64"):
                ops.append({"kind": "randint", "n": 50, "dtype": dtype, "low": -(2**63), "high": None})
            cases.append(_case(f"random_-{dtype}-seed{seed}", seed, ops))
        for dtype in ("int32", "int16", "float32", "float64", "float16"):
            cases.append(
                _case(f"randperm-{dtype}-seed{seed}", seed, [{"kind": "randperm", "n": 300, "dtype": dtype}])
            )
        for p_dtype in ("float16", "float32", "float64"):
            probabilities = encode(np.linspace(0.0, 1.0, 200).astype(p_dtype))
            op = {"kind": "bernoulli_tensor", "n": 200, "dtype": p_dtype, "p": probabilities}
            cases.append(_case(f"bernoulli-tensor-{p_dtype}-seed{seed}", seed, [op]))
    interleaved = [
        {"kind": "uniform", "n": 3, "dtype": "float32"},
        {"kind": "normal", "n": 20, "dtype": "float32"},
        {"kind": "randint", "n": 5, "dtype": "int64", "low": 0, "high": 10},
        {"kind": "normal", "n": 5, "dtype": "float32"},
        {"kind": "normal", "n": 3, "dtype": "float64"},
        {"kind": "randperm", "n": 7, "dtype": "int64"},
        {"kind": "bernoulli", "n": 9, "dtype": "float32", "p": 0.5},
        {"kind": "uniform", "n": 4, "dtype": "float64"},
        {"kind": "normal", "n": 1, "dtype": "float32"},
        {"kind": "normal", "n": 17, "dtype": "float64", "mean": 2.0, "std": 0.5},
        {"kind": "randint", "n": 3, "dtype": "int64", "low": -(2**40), "high": 2**40},
    ]
    cases.append(_case("interleaved-seed42", 42, interleaved, keep_state=True))
    cases.append(
        _case("cached-normal-seed7", 7, [{"kind": "normal", "n": 3, "dtype": "float64"}], keep_state=True)
    )
    cases.append(
        _case("wrap-around-624", 3, [{"kind": "random_", "n": 624, "dtype": "int32"}], keep_state=True)
    )
    cases.append(
        _case("negative-seed", -5, [{"kind": "uniform", "n": 10, "dtype": "float32"}], keep_state=True)
    )
    return cases


CASES = _build_cases()

DistributionCase = tuple[str, int, list[str]]
DISTRIBUTION_CASES: list[DistributionCase] = [
    *[
        (
            f"exponential-{dtype}-seed{seed}",
            seed,
            [f"lib.empty({n}, dtype=lib.{dtype}).exponential_(generator=g)" for n in (1, 17, 100)]
            + [
                f"lib.empty(40, dtype=lib.{dtype}).exponential_(3.7, generator=g)",
                f"lib.empty(6, 5, dtype=lib.{dtype}).t().exponential_(0.25, generator=g)",
            ],
        )
        for seed in (0, 42)
        for dtype in ("float16", "float32", "float64")
    ],
    *[
        (
            f"geometric-{dtype}-seed{seed}",
            seed,
            [
                f"lib.empty(50, dtype=lib.{dtype}).geometric_(0.2, generator=g)",
                f"lib.empty(9, dtype=lib.{dtype}).geometric_(0.9, generator=g)",
            ],
        )
        for seed in (0, 7)
        for dtype in ("uint8", "int32", "int64", "float32", "float64")
    ],
    *[
        (
            f"log_normal-{dtype}-seed{seed}",
            seed,
            [
                f"lib.empty(5, dtype=lib.{dtype}).log_normal_(generator=g)",
                f"lib.empty(40, dtype=lib.{dtype}).log_normal_(0.5, 0.25, generator=g)",
                f"lib.empty(1, dtype=lib.{dtype}).log_normal_(-1.0, 3.0, generator=g)",
            ],
        )
        for seed in (0, 3)
        for dtype in ("float16", "float32", "float64")
    ],
    *[
        (
            f"cauchy-{dtype}-seed{seed}",
            seed,
            [
                f"lib.empty(33, dtype=lib.{dtype}).cauchy_(generator=g)",
                f"lib.empty(4, 3, dtype=lib.{dtype}).t().cauchy_(2.0, 0.5, generator=g)",
            ],
        )
        for seed in (0, 5)
        for dtype in ("float16", "float32", "float64")
    ],
    *[
        (
            f"bernoulli-more-seed{seed}",
            seed,
            [
                "lib.bernoulli(lib.linspace(0, 1, 30), generator=g)",
                "lib.bernoulli(lib.linspace(0, 1, 30, dtype=lib.float64).reshape(5, 6), generator=g)",
                "lib.zeros(4, 5).t().bernoulli_(lib.linspace(0.1, 0.9, 4), generator=g)",
                "lib.zeros(3, 4, dtype=lib.int64).bernoulli_(0.3, generator=g)",
                "lib.bernoulli(lib.zeros(2, 7, dtype=lib.float64), 0.6, generator=g)",
            ],
        )
        for seed in (0, 11)
    ],
    *[
        (
            f"normal-overloads-seed{seed}",
            seed,
            [
                "lib.normal(lib.arange(20.0).reshape(4, 5), 2.0, generator=g)",
                "lib.normal(lib.arange(3.0), generator=g)",
                "lib.normal(-1.0, lib.linspace(0, 2, 7, dtype=lib.float64), generator=g)",
                "lib.normal(lib.arange(5.0), lib.linspace(0.5, 1.5, 20).reshape(4, 5), generator=g)",
                "lib.normal(2.0, 3.0, (17,), generator=g)",
                "lib.normal(0.5, 0.1, size=(2, 3), dtype=lib.float64, generator=g)",
            ],
        )
        for seed in (0, 9)
    ],
    *[
        (
            f"multinomial-{dtype}-seed{seed}",
            seed,
            [
                f"lib.multinomial(lib.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 3.0, 2.0]], "
                f"dtype=lib.{dtype}), 25, True, generator=g)",
                f"lib.multinomial(lib.linspace(0.1, 1.0, 10, dtype=lib.{dtype}), 10, generator=g)",
                f"lib.multinomial(lib.linspace(0.1, 1.0, 12, dtype=lib.{dtype}).reshape(3, 4), 2, "
                "generator=g)",
                f"lib.multinomial(lib.tensor([5.0, 1.0, 0.0, 2.0], dtype=lib.{dtype}), 1, True, generator=g)",
            ],
        )
        for seed in (0, 21)
        for dtype in ("float32", "float64")
    ],
    *[
        (
            f"poisson-one-element-seed{seed}",
            seed,
            [
                f"lib.poisson(lib.tensor([{rate}], dtype=lib.{dtype}), g)"
                for rate in (0.5, 3.0, 9.9, 10.0, 35.0, 1000.0)
                for dtype in ("float32", "float64")
            ],
        )
        for seed in (0, 2, 4)
    ],
    (
        "interleaved-distributions-seed13",
        13,
        [
            "lib.empty(3, dtype=lib.float64).normal_(generator=g)",
            "lib.empty(5).log_normal_(generator=g)",
            "lib.empty(4).exponential_(generator=g)",
            "lib.multinomial(lib.ones(6), 3, generator=g)",
            "lib.empty(2, dtype=lib.float64).log_normal_(generator=g)",
        ],
    ),
]


def run_distribution(
    lib: Any, case: DistributionCase
) -> tuple[list[npt.NDArray[Any]], npt.NDArray[np.uint8]]:
    """The flat results of a distribution case's expressions on `lib`, and its generator's final state."""
    _, seed, expressions = case
    g = lib.Generator().manual_seed(seed)
    results = [np.array(eval(e, {"lib": lib, "g": g}).numpy()).reshape(-1) for e in expressions]
    state = g.get_state()
    return results, np.asarray(state.numpy() if hasattr(state, "numpy") else state, dtype=np.uint8)


def state_digest(state: npt.NDArray[np.uint8]) -> str:
    return hashlib.sha256(np.ascontiguousarray(state, dtype=np.uint8).tobytes()).hexdigest()


def torch_op(op: Op, generator: Any) -> npt.NDArray[Any]:
    """Run one operation with PyTorch and return its flat result."""
    import torch

    kind, n = op["kind"], op["n"]
    dtype = getattr(torch, op["dtype"])
    if kind == "uniform":
        low, high = op.get("low", 0.0), op.get("high", 1.0)
        if (low, high) == (0.0, 1.0):
            return torch.rand(n, dtype=dtype, generator=generator).numpy()
        return torch.empty(n, dtype=dtype).uniform_(low, high, generator=generator).numpy()
    if kind == "normal":
        mean, std = op.get("mean", 0.0), op.get("std", 1.0)
        if not op.get("contiguous", True):
            strided = torch.empty(2 * n, dtype=dtype)
            strided[::2].normal_(mean, std, generator=generator)
            return strided[::2].numpy().copy()
        if (mean, std) == (0.0, 1.0):
            return torch.randn(n, dtype=dtype, generator=generator).numpy()
        return torch.empty(n, dtype=dtype).normal_(mean, std, generator=generator).numpy()
    if kind == "randint":
        if op["high"] is None:
            return torch.empty(n, dtype=dtype).random_(op["low"], None, generator=generator).numpy()
        return torch.randint(op["low"], op["high"], (n,), dtype=dtype, generator=generator).numpy()
    if kind == "random_":
        return torch.empty(n, dtype=dtype).random_(generator=generator).numpy()
    if kind == "randperm":
        return torch.randperm(n, dtype=dtype, generator=generator).numpy()
    if kind == "bernoulli":
        return torch.empty(n, dtype=dtype).bernoulli_(op["p"], generator=generator).numpy()
    if kind == "bernoulli_tensor":
        return torch.bernoulli(torch.from_numpy(decode(op["p"])), generator=generator).numpy()
    raise ValueError(f"unknown operation {kind!r}")


def torch_run(case: Case) -> tuple[list[npt.NDArray[Any]], npt.NDArray[np.uint8]]:
    """Every result of the case and the generator state afterwards, from PyTorch."""
    import torch

    generator = torch.Generator().manual_seed(case["seed"])
    results = [torch_op(op, generator) for op in case["ops"]]
    return results, generator.get_state().numpy()


def main() -> None:
    import warnings

    import torch

    warnings.simplefilter("ignore", UserWarning)
    recorded = []
    for case in CASES:
        results, state = torch_run(case)
        entry = {
            **case,
            "results": [encode(result) for result in results],
            "state_sha256": state_digest(state),
        }
        if case["keep_state"]:
            entry["state"] = encode(state)
        recorded.append(entry)
    lines = ",\n".join(json.dumps(entry) for entry in recorded)
    distributions = []
    for case in DISTRIBUTION_CASES:
        results, state = run_distribution(torch, case)
        distributions.append(
            {
                "name": case[0],
                "results": [encode(result) for result in results],
                "state_sha256": state_digest(state),
            }
        )
    distribution_lines = ",\n".join(json.dumps(entry) for entry in distributions)
    FIXTURE_PATH.write_text(
        f'{{"torch_version": {json.dumps(torch.__version__)},\n"cases": [\n{lines}\n],\n'
        f'"distribution_cases": [\n{distribution_lines}\n]}}\n'
    )
    print(f"wrote {len(recorded)} + {len(distributions)} cases to {FIXTURE_PATH}")


if __name__ == "__main__":
    main()
