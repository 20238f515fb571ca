"""The distributions exponential_, geometric_, log_normal_, cauchy_, bernoulli (all overloads), the
normal overloads, multinomial and poisson: PyTorch's numbers for the same seed (recorded in
rng_fixtures.json by tests/data/record_rng_fixtures.py, and live when PyTorch is installed), its
errors, and the distributions' statistics where only those are PyTorch's (poisson of more than one
element)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import load_recorder, needs_torch, torch

import framework

recorder: Any = load_recorder("record_rng_fixtures")

RECORDED = {c["name"]: c for c in json.loads(recorder.FIXTURE_PATH.read_text())["distribution_cases"]}
CASES = recorder.DISTRIBUTION_CASES


def _assert_same_results(actual: list[Any], expected: list[Any], name: str) -> None:
    assert len(actual) == len(expected), name
    for i, (a, b) in enumerate(zip(actual, expected, strict=True)):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), f"{name}: call {i}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_recorded_pytorch_numbers(case: Any) -> None:
    results, state = recorder.run_distribution(framework, case)
    recorded = RECORDED[case[0]]
    _assert_same_results(results, [recorder.decode(r) for r in recorded["results"]], case[0])
    assert recorder.state_digest(state) == recorded["state_sha256"]


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch_live(case: Any) -> None:
    ours, our_state = recorder.run_distribution(framework, case)
    theirs, their_state = recorder.run_distribution(torch, case)
    _assert_same_results(ours, theirs, case[0])
    assert np.array_equal(our_state, their_state)


def test_default_generator_is_used_and_seeded() -> None:
    framework.manual_seed(3)
    first = framework.empty(10).exponential_()
    framework.manual_seed(3)
    assert np.array_equal(first.numpy(), framework.empty(10).exponential_().numpy())
    g = framework.Generator().manual_seed(3)
    assert np.array_equal(first.numpy(), framework.empty(10).exponential_(generator=g).numpy())


ERRORS: list[tuple[str, type[Exception], str]] = [
    (
        "lib.ones(3).exponential_(-1.0)",
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=-1",
    ),
    (
        "lib.ones(3, dtype=lib.int64).exponential_()",
        RuntimeError,
        "Exponential distribution is a continuous probability distribution. dtype must be a floating point "
        "but you specified Long",
    ),
    ("lib.ones(3).geometric_(1.0)", RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
    (
        "lib.ones(3, dtype=lib.bool).geometric_(0.5)",
        NotImplementedError,
        "\"geometric_cpu\" not implemented for 'Bool'",
    ),
    ("lib.ones(3).log_normal_(1.0, 0.0)", RuntimeError, "log_normal_ expects std > 0.0, but found std=0"),
    (
        "lib.ones(3, dtype=lib.int32).log_normal_()",
        NotImplementedError,
        "\"log_normal_cpu\" not implemented for 'Int'",
    ),
    ("lib.ones(3).cauchy_(0.0, -2.0)", RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=-2"),
    (
        "lib.ones(3, dtype=lib.uint8).cauchy_()",
        RuntimeError,
        "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but "
        "you specified unsigned char",
    ),
    ("lib.ones(3).bernoulli_(1.5)", RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (
        "lib.bernoulli(lib.tensor([0.5, 1.5]))",
        RuntimeError,
        "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
        "If so, please report an enhancement request to PyTorch.)",
    ),
    (
        "lib.zeros(3).bernoulli_(lib.full((2,), 0.5))",
        RuntimeError,
        "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
        "Target sizes: [3].  Tensor sizes: [2]",
    ),
    (
        "lib.bernoulli(lib.ones(2, dtype=lib.int64))",
        NotImplementedError,
        "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'",
    ),
    (
        "lib.bernoulli(lib.ones(2, dtype=lib.complex64))",
        NotImplementedError,
        "\"bernoulli_tensor_cpu_self_\" not implemented for 'ComplexFloat'",
    ),
    ("lib.normal(lib.ones(3), -1.0)", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("lib.normal(0.0, lib.tensor([1.0, -1.0]))", RuntimeError, "normal expects all elements of std >= 0.0"),
    (
        "lib.normal(lib.ones(2), lib.ones(2, dtype=lib.complex64))",
        RuntimeError,
        "normal expects standard deviation to be non-complex",
    ),
    (
        "lib.normal(lib.ones(2), lib.ones(3))",
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    ("lib.normal(0.0, -1.0, (2,))", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (
        "lib.normal(lib.ones(2, dtype=lib.int64), 1.0)",
        NotImplementedError,
        "\"normal_kernel_cpu\" not implemented for 'Long'",
    ),
    ("lib.multinomial(lib.tensor(1.0), 1)", RuntimeError, "prob_dist must be 1 or 2 dim"),
    ("lib.multinomial(lib.ones(1, 1, 2), 1)", RuntimeError, "prob_dist must be 1 or 2 dim"),
    (
        "lib.multinomial(lib.ones(3, dtype=lib.int64), 1)",
        RuntimeError,
        "multinomial only supports floating-point dtypes for input, got: Long",
    ),
    ("lib.multinomial(lib.ones(3), 0)", RuntimeError, "cannot sample n_sample <= 0 samples"),
    (
        "lib.multinomial(lib.ones(3), 4)",
        RuntimeError,
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
    ),
    (
        "lib.multinomial(lib.tensor([1.0, -1.0]), 1)",
        RuntimeError,
        "probability tensor contains either `inf`, `nan` or element < 0",
    ),
    (
        "lib.multinomial(lib.tensor([1.0, float('nan')]), 1)",
        RuntimeError,
        "probability tensor contains either `inf`, `nan` or element < 0",
    ),
    (
        "lib.multinomial(lib.tensor([[1.0, 1.0], [0.0, 0.0]]), 1)",
        RuntimeError,
        "invalid multinomial distribution (sum of probabilities <= 0)",
    ),
    (
        "lib.multinomial(lib.tensor([1.0, float('nan')]), 2, True)",
        RuntimeError,
        "invalid multinomial distribution (encountering probability entry < 0)",
    ),
    (
        "lib.multinomial(lib.tensor([[1.0, 1.0], [float('inf'), -1.0]]), 2, True)",
        RuntimeError,
        "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
    ),
    (
        "lib.multinomial(lib.tensor([0.0, 0.0]), 2, True)",
        RuntimeError,
        "invalid multinomial distribution (sum of probabilities <= 0)",
    ),
    (
        "lib.multinomial(lib.ones(3), 1, out=lib.empty(1))",
        RuntimeError,
        "multinomial expects Long tensor out, got: Float",
    ),
    (
        "lib.poisson(lib.tensor([1.0, -1.0]))",
        RuntimeError,
        "invalid Poisson rate, expected rate to be non-negative",
    ),
    (
        "lib.poisson(lib.ones(2, dtype=lib.int64))",
        NotImplementedError,
        "\"poisson_cpu\" not implemented for 'Long'",
    ),
]


def _raised(lib: Any, expression: str) -> BaseException:
    with pytest.raises(Exception) as info:
        eval(expression, {"lib": lib})
    return info.value


@pytest.mark.parametrize(("expression", "error", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(expression: str, error: type[Exception], message: str) -> None:
    raised = _raised(framework, expression)
    assert type(raised) is error and str(raised) == message
    if torch is not None:
        theirs = _raised(torch, expression)
        assert type(theirs) is error and str(theirs).partition("\n")[0] == message


def test_results_dtypes_shapes_and_out() -> None:
    assert framework.normal(0.0, 1.0, (2, 3)).dtype is framework.float32
    assert framework.normal(0.0, 1.0, (2,), dtype=framework.float64).dtype is framework.float64
    assert framework.normal(framework.ones(2, 1), framework.ones(3)).shape == (2, 3)
    assert framework.multinomial(framework.ones(4, 5), 3).shape == (4, 3)
    assert framework.ones(5).multinomial(2, replacement=True).dtype is framework.int64
    out = framework.empty(0, dtype=framework.int64)
    assert framework.multinomial(framework.ones(5), 2, out=out) is out and out.shape == (2,)
    out = framework.empty(3)
    assert framework.normal(framework.zeros(3), framework.ones(3), out=out) is out
    assert framework.poisson(framework.zeros(2, 3), out=framework.empty(2, 3)).eq(0).all()
    half = framework.bernoulli(framework.full((3,), 0.5, dtype=framework.float16))
    assert half.dtype is framework.float16
    assert framework.ones(2, 2).bernoulli(0.0).eq(0).all()
    assert framework.ones(4).bernoulli().eq(1).all()


def test_meta_tensors_get_shapes_and_checks_without_draws() -> None:
    state = framework.get_rng_state()
    meta = framework.empty(2, 3, device="meta")
    assert meta.exponential_().device.type == "meta"
    assert framework.normal(meta, 2.0).shape == (2, 3)
    assert framework.multinomial(meta, 2).shape == (2, 2)
    assert framework.bernoulli(meta).shape == (2, 3)
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in"):
        meta.geometric_(0.0)
    assert np.array_equal(state.numpy(), framework.get_rng_state().numpy())


def test_autograd() -> None:
    x = framework.full((3,), 0.5, requires_grad=True)
    y = framework.normal(x * 1, 2.0)
    assert type(y.grad_fn).__name__ == "NormalBackward1"
    y.sum().backward()
    assert x.grad is not None and x.grad.eq(0).all()
    z = framework.bernoulli(x * 1, 0.3)
    assert z.requires_grad
    with pytest.raises(RuntimeError, match=r"^derivative for aten::bernoulli is not implemented$"):
        z.sum().backward()
    assert not framework.multinomial(x * 1, 2).requires_grad


def test_multinomial_without_replacement_draws_distinct_categories() -> None:
    framework.manual_seed(0)
    probs = framework.tensor([[0.5, 0.0, 0.3, 0.2], [0.1, 0.1, 0.1, 0.7]])
    for _ in range(20):
        rows = framework.multinomial(probs, 3).tolist()
        assert all(len(set(row)) == 3 for row in rows)
        assert 1 not in rows[0]


def test_multinomial_frequencies() -> None:
    framework.manual_seed(1)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    draws = framework.multinomial(framework.tensor(probs), 20000, replacement=True).numpy()
    assert np.abs(np.bincount(draws, minlength=4) / 20000 - probs).max() < 0.015
    firsts = np.array([framework.multinomial(framework.tensor(probs), 1).item() for _ in range(4000)])
    assert np.abs(np.bincount(firsts, minlength=4) / 4000 - probs).max() < 0.03


@pytest.mark.parametrize("rate", [0.3, 4.0, 9.99, 10.0, 55.0, 4000.0])
def test_poisson_statistics(rate: float) -> None:
    framework.manual_seed(2)
    counts = framework.poisson(framework.full((20000,), rate, dtype=framework.float64)).numpy()
    assert np.all(counts == np.round(counts)) and counts.min() >= 0
    assert abs(counts.mean() - rate) < 5 * math.sqrt(rate / 20000)
    assert abs(counts.var() / rate - 1) < 0.05


def test_continuous_distribution_statistics() -> None:
    framework.manual_seed(4)
    n = 50000
    exponential = framework.empty(n, dtype=framework.float64).exponential_(2.0).numpy()
    assert exponential.min() > 0 and abs(exponential.mean() - 0.5) < 0.01
    geometric = framework.empty(n, dtype=framework.float64).geometric_(0.25).numpy()
    assert geometric.min() >= 1 and abs(geometric.mean() - 4) < 0.1
    log_normal = framework.empty(n, dtype=framework.float64).log_normal_(0.0, 0.5).numpy()
    assert abs(np.log(log_normal).mean()) < 0.01 and abs(np.log(log_normal).std() - 0.5) < 0.01
    cauchy = framework.empty(n, dtype=framework.float64).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(cauchy) - 1.0) < 0.05
    assert abs(np.percentile(cauchy, 75) - np.percentile(cauchy, 25) - 4.0) < 0.15
