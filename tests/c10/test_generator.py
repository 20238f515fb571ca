from __future__ import annotations

import importlib.util
import json
import re
import struct
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from framework.c10 import generator as G
from framework.c10.device import Device
from framework.c10.generator import Generator

torch: Any
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")

# Fixtures draw integer floats beyond 2**digits on purpose; PyTorch (and framework) warn about it.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of bounds \\[-\\(2\\^:UserWarning")

_RECORDER_PATH = Path(__file__).parent.parent / "data" / "record_rng_fixtures.py"
_spec = importlib.util.spec_from_file_location("record_rng_fixtures", _RECORDER_PATH)
assert _spec is not None and _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)

FIXTURES: list[dict[str, Any]] = json.loads(recorder.FIXTURE_PATH.read_text())["cases"]
FIXTURES_BY_NAME = {case["name"]: case for case in FIXTURES}

FLOAT_DTYPES = ("float16", "float32", "float64")


def run_op(op: dict[str, Any], gen: Generator) -> npt.NDArray[Any]:
    """One fixture operation, on framework's generator."""
    kind, n, dtype = op["kind"], op["n"], np.dtype(op["dtype"])
    if kind == "uniform":
        return G.uniform(gen, n, dtype, op.get("low", 0.0), op.get("high", 1.0))
    if kind == "normal":
        mean, std = op.get("mean", 0.0), op.get("std", 1.0)
        return G.normal(gen, n, dtype, mean, std, contiguous=op.get("contiguous", True))
    if kind == "randint":
        return G.random_integers(gen, n, dtype, op["low"], op["high"])
    if kind == "random_":
        return G.random_default(gen, n, dtype)
    if kind == "randperm":
        return G.randperm(gen, n, dtype)
    if kind == "bernoulli":
        return G.bernoulli(gen, n, op["p"], dtype)
    if kind == "bernoulli_tensor":
        return G.bernoulli(gen, n, recorder.decode(op["p"]), dtype)
    raise ValueError(kind)


def run_case(case: dict[str, Any]) -> tuple[list[npt.NDArray[Any]], npt.NDArray[np.uint8]]:
    gen = Generator().manual_seed(case["seed"])
    return [run_op(op, gen) for op in case["ops"]], gen.get_state()


def assert_same(actual: npt.NDArray[Any], expected: npt.NDArray[Any], label: str = "") -> None:
    """Bit-exact equality (same dtype, shape and values)."""
    assert actual.dtype == expected.dtype, (label, actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (label, actual.shape, expected.shape)
    if not np.array_equal(actual, expected):
        bad = np.nonzero(actual != expected)[0]
        first = bad[:5]
        raise AssertionError(f"{label}: {bad.size} differ, at {first}: {actual[first]} != {expected[first]}")


def raw_u32(gen: Generator, n: int) -> npt.NDArray[np.uint64]:
    with gen._lock:
        return gen._u32(n)


def state_fields(state: npt.NDArray[np.uint8]) -> dict[str, Any]:
    seed, left, seeded, nxt = struct.unpack_from("<QiiQ", state.tobytes())
    return {"seed": seed, "left": left, "seeded": seeded, "next": nxt}


def with_fields(state: npt.NDArray[np.uint8], **fields: int) -> npt.NDArray[np.uint8]:
    data = bytearray(state.tobytes())
    offsets = {"seed": (0, "<Q"), "left": (8, "<i"), "seeded": (12, "<i"), "next": (16, "<Q")}
    for name, value in fields.items():
        offset, fmt = offsets[name]
        struct.pack_into(fmt, data, offset, value)
    return np.frombuffer(bytes(data), dtype=np.uint8).copy()


# --------------------------------------------------------------------------------------------------
# Recorded PyTorch streams


@pytest.mark.parametrize("case", FIXTURES, ids=[case["name"] for case in FIXTURES])
def test_matches_recorded_pytorch_stream(case: dict[str, Any]) -> None:
    results, state = run_case(case)
    for index, (actual, expected) in enumerate(zip(results, case["results"], strict=True)):
        assert_same(actual, recorder.decode(expected), f"{case['name']} op {index}")
    assert recorder.state_digest(state) == case["state_sha256"]
    if "state" in case:
        assert_same(state, recorder.decode(case["state"]), "state")


def test_fixtures_cover_the_requested_grid() -> None:
    names = set(FIXTURES_BY_NAME)
    for seed in (0, 1, 42, 2**32 + 5, 12345678901):
        for n in (1, 5, 15, 16, 17, 33, 100, 1000):
            for kind in ("rand", "randn"):
                for dtype in ("float32", "float64"):
                    assert f"{kind}-{dtype}-{n}-seed{seed}" in names
        for n in (1, 5, 20, 100, 1000):
            assert f"randperm-{n}-seed{seed}" in names
        assert f"randint-{-(2**40)}-{2**40}-seed{seed}" in names


def test_recorded_state_continues_the_stream() -> None:
    # A state recorded from PyTorch mid-stream, restored here, continues exactly as PyTorch did.
    case = FIXTURES_BY_NAME["interleaved-seed42"]
    prefix = Generator().manual_seed(42)
    for op in case["ops"][:5]:
        run_op(op, prefix)
    resumed = Generator().set_state(prefix.get_state())
    for index, op in enumerate(case["ops"][5:], start=5):
        assert_same(run_op(op, resumed), recorder.decode(case["results"][index]), f"op {index}")
    full = Generator().set_state(recorder.decode(case["state"]))
    assert_same(full.get_state(), recorder.decode(case["state"]))


def test_cached_normal_is_part_of_the_state() -> None:
    case = FIXTURES_BY_NAME["cached-normal-seed7"]
    state = recorder.decode(case["state"])
    cached = struct.unpack_from("<d", state.tobytes(), 5024)[0]
    assert struct.unpack_from("<i", state.tobytes(), 5040)[0] == 1
    gen = Generator().set_state(state)
    assert G.normal(gen, 1, np.float64)[0] == cached
    assert struct.unpack_from("<i", gen.get_state().tobytes(), 5040)[0] == 0


# --------------------------------------------------------------------------------------------------
# The engine and its state


def test_mt19937_reference_outputs() -> None:
    # Reference values of mt19937 seeded with init_genrand(5489): the first output, and the
    # 10000th, which the C++ standard requires of std::mt19937.
    gen = Generator().manual_seed(5489)
    draws = raw_u32(gen, 10000)
    assert int(draws[0]) == 3499211612
    assert int(draws[-1]) == 4123659995


def test_fresh_generator_state_layout() -> None:
    gen = Generator()
    assert gen.initial_seed() == G.DEFAULT_RNG_SEED == 67280421310721
    state = gen.get_state()
    assert state.dtype == np.uint8 and state.shape == (G.STATE_SIZE,) == (5056,)
    assert state_fields(state) == {"seed": G.DEFAULT_RNG_SEED, "left": 1, "seeded": 1, "next": 0}
    assert struct.unpack_from("<Q", state.tobytes(), 24)[0] == G.DEFAULT_RNG_SEED & 0xFFFFFFFF
    raw_u32(gen, 10)
    assert state_fields(gen.get_state())["left"] == 615 and state_fields(gen.get_state())["next"] == 10
    raw_u32(gen, 614)
    assert state_fields(gen.get_state())["left"] == 1 and state_fields(gen.get_state())["next"] == 624


@pytest.mark.parametrize("seed", [-1, -5, -(2**63), 2**63, 2**64 - 1, 2**32 + 5])
def test_seeds_wrap_to_uint64_and_use_the_low_32_bits(seed: int) -> None:
    gen = Generator().manual_seed(seed)
    assert gen.initial_seed() == seed % 2**64
    low = Generator().manual_seed(seed % 2**32)
    assert_same(raw_u32(gen, 700), raw_u32(low, 700))


def test_manual_seed_rejects_non_integers_and_overflow() -> None:
    gen = Generator()
    with pytest.raises(RuntimeError, match=re.escape("manual_seed expected a long, but got float")):
        gen.manual_seed(1.5)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=re.escape("manual_seed expected a long, but got bool")):
        gen.manual_seed(True)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        gen.manual_seed(2**64)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        gen.manual_seed(-(2**63) - 1)
    assert gen.manual_seed(np.int64(7)).initial_seed() == 7


def test_seed_is_random_and_reproducible() -> None:
    gen = Generator()
    first = gen.seed()
    assert gen.initial_seed() == first
    values = G.uniform(gen, 10, np.float32)
    assert_same(values, G.uniform(Generator().manual_seed(first), 10, np.float32))
    assert len({Generator().seed() for _ in range(8)}) == 8


def test_save_restore_reproduces_the_stream() -> None:
    gen = Generator().manual_seed(123)
    G.normal(gen, 3, np.float32)  # leaves a cached normal
    G.uniform(gen, 700, np.float64)
    saved = gen.get_state()
    first = [G.normal(gen, 5, np.float64), G.random_integers(gen, 9, np.int64, -3, 3), G.randperm(gen, 50)]
    gen.set_state(saved)
    second = [G.normal(gen, 5, np.float64), G.random_integers(gen, 9, np.int64, -3, 3), G.randperm(gen, 50)]
    for a, b in zip(first, second, strict=True):
        assert_same(a, b)
    assert_same(Generator().set_state(saved).get_state(), saved)


def test_generators_are_independent() -> None:
    a, b = Generator().manual_seed(1), Generator().manual_seed(2)
    mixed_a, mixed_b = [], []
    for n in (3, 17, 40):
        mixed_a.append(G.normal(a, n, np.float32))
        mixed_b.append(G.uniform(b, n, np.float64))
    alone_a, alone_b = Generator().manual_seed(1), Generator().manual_seed(2)
    for i, n in enumerate((3, 17, 40)):
        assert_same(mixed_a[i], G.normal(alone_a, n, np.float32))
        assert_same(mixed_b[i], G.uniform(alone_b, n, np.float64))


def test_set_state_validation() -> None:
    gen = Generator().manual_seed(3)
    good = gen.get_state()
    with pytest.raises(TypeError, match="RNG state must be a uint8 numpy array"):
        gen.set_state(good.astype(np.float32))
    with pytest.raises(TypeError, match="RNG state must be a uint8 numpy array"):
        gen.set_state([1, 2, 3])  # type: ignore[arg-type]
    message = "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10"
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        gen.set_state(np.zeros(10, dtype=np.uint8))
    for fields in ({"seeded": 0}, {"left": 0}, {"left": 625}, {"left": -3}, {"next": 625}):
        with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
            gen.set_state(with_fields(good, **fields))
    with pytest.raises(RuntimeError, match="would read past the 624-word state"):
        gen.set_state(with_fields(good, left=300, next=500))
    assert_same(gen.get_state(), good)  # failed restores leave the generator alone


def test_hand_made_states_follow_left_and_next() -> None:
    # mt19937 regenerates its 624 words when `left` runs out; a state whose `left` and `next` do not
    # add up to 625 emits words next .. next + left - 2 first, then regenerates.
    seeded = Generator().manual_seed(9)
    raw_u32(seeded, 100)
    base = seeded.get_state()
    words = np.frombuffer(base.tobytes()[24:5016], dtype="<u8").astype(np.uint64)
    gen = Generator().set_state(with_fields(base, left=5, next=0))
    assert_same(raw_u32(gen, 4), G._temper(words[:4]))
    assert state_fields(gen.get_state())["left"] == 1 and state_fields(gen.get_state())["next"] == 4
    regenerated = Generator().set_state(with_fields(base, left=1, next=77))
    assert state_fields(regenerated.get_state())["next"] == 77
    assert_same(raw_u32(gen, 10), raw_u32(regenerated, 10))


def test_module_level_default_generator() -> None:
    saved = G.get_rng_state()
    try:
        assert G.default_generator() is G.default_generator()
        assert G.manual_seed(2.7) is G.default_generator()  # type: ignore[arg-type]
        assert G.initial_seed() == 2
        first = G.uniform(G.default_generator(), 5, np.float32)
        G.manual_seed(2)
        assert_same(first, G.uniform(G.default_generator(), 5, np.float32))
        state = G.get_rng_state()
        later = G.normal(G.default_generator(), 20, np.float32)
        G.set_rng_state(state)
        assert_same(later, G.normal(G.default_generator(), 20, np.float32))
        assert G.seed() == G.initial_seed()
    finally:
        G.set_rng_state(saved)


def test_device() -> None:
    assert Generator().device == Device("cpu")
    assert Generator(Device("cpu")).device.type == "cpu"
    with pytest.raises(RuntimeError, match="only 'cpu' generators are supported"):
        Generator("meta")


def test_threads_draw_whole_contiguous_chunks() -> None:
    shared = Generator().manual_seed(77)
    chunks: list[npt.NDArray[Any]] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(25):
            values = G.uniform(shared, 500, np.float64)
            with lock:
                chunks.append(values)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = G.uniform(Generator().manual_seed(77), 500 * 100, np.float64).reshape(100, 500)
    rows = {row.tobytes(): i for i, row in enumerate(expected)}
    assert sorted(rows[chunk.tobytes()] for chunk in chunks) == list(range(100))


# --------------------------------------------------------------------------------------------------
# Samplers: behaviour that needs no oracle


def test_zero_elements_draw_nothing() -> None:
    gen = Generator().manual_seed(5)
    before = gen.get_state()
    assert G.uniform(gen, 0, np.float32).shape == (0,)
    assert G.normal(gen, 0, np.float64).shape == (0,)
    assert G.random_integers(gen, 0, np.int64, 0, 10).shape == (0,)
    assert G.randperm(gen, 0).shape == (0,)
    assert G.randperm(gen, 1).tolist() == [0]
    assert G.bernoulli(gen, 0, 0.5).shape == (0,)
    assert_same(gen.get_state(), before)


def test_draw_counts() -> None:
    def consumed(fn: Any) -> int:
        gen = Generator().manual_seed(0)
        fn(gen)
        return int(state_fields(gen.get_state())["next"])

    assert consumed(lambda g: G.uniform(g, 10, np.float32)) == 10
    assert consumed(lambda g: G.uniform(g, 10, np.float64)) == 20
    assert consumed(lambda g: G.normal(g, 32, np.float32)) == 32
    assert consumed(lambda g: G.normal(g, 33, np.float32)) == 33 + 16
    assert consumed(lambda g: G.normal(g, 33, np.float16)) == 32 + 16
    assert consumed(lambda g: G.normal(g, 33, np.float64)) == 2 * (33 + 16)
    assert consumed(lambda g: G.normal(g, 5, np.float32)) == 3 * 4
    assert consumed(lambda g: G.normal(g, 40, np.float32, contiguous=False)) == 20 * 4
    assert consumed(lambda g: G.random_integers(g, 10, np.int64, 0, 2**28 - 1)) == 10
    assert consumed(lambda g: G.random_integers(g, 10, np.int64, 0, 2**28)) == 20
    assert consumed(lambda g: G.randperm(g, 100)) == 99
    assert consumed(lambda g: G.bernoulli(g, 10, 0.5)) == 20
    assert consumed(lambda g: G.bernoulli(g, 10, np.full(10, 0.5, dtype=np.float32))) == 10


def test_uniform_stays_below_high() -> None:
    gen = Generator().manual_seed(0)
    low = np.float32(1.5)
    high = np.nextafter(low, np.float32(2))
    values = G.uniform(gen, 10000, np.float32, float(low), float(high))
    assert set(values.tolist()) == {1.5}
    values = G.uniform(gen, 10000, np.float16, 0.0, 1.0)
    assert values.max() < 1.0 and values.dtype == np.float16


def test_randperm_is_a_permutation_for_every_dtype() -> None:
    gen = Generator().manual_seed(1)
    for dtype in (np.int64, np.int32, np.int16, np.uint8, np.float16, np.float32, np.float64):
        perm = G.randperm(gen, 200, dtype)
        assert perm.dtype == dtype
        assert sorted(perm.astype(np.int64).tolist()) == list(range(200))


def test_fill_order_follows_strides() -> None:
    assert G.fill_order((2, 3), (3, 1)).tolist() == [0, 1, 2, 3, 4, 5]
    assert G.fill_order((3, 2), (1, 3)).tolist() == [0, 2, 4, 1, 3, 5]  # a transposed (2, 3) output
    assert G.fill_order((2, 1, 3), (3, 99, 1)).tolist() == [0, 1, 2, 3, 4, 5]
    channels_last = G.fill_order((1, 2, 2, 2), (8, 1, 4, 2))
    assert channels_last.tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert G.fill_order((), ()).tolist() == [0]
    with pytest.raises(ValueError, match="got 2 sizes but 1 strides"):
        G.fill_order((2, 3), (1,))


def _forward_shuffle_loop(offsets: list[int]) -> list[int]:
    perm = list(range(len(offsets) + 1))
    for i, offset in enumerate(offsets):
        perm[i], perm[i + offset] = perm[i + offset], perm[i]
    return perm


def _inside_out_loop(picks: list[int]) -> list[int]:
    perm = [0] * len(picks)
    for i, pick in enumerate(picks):
        perm[i] = perm[pick]
        perm[pick] = i
    return perm


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 31, 200, 3000])
def test_vectorised_shuffles_match_their_loops(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        offsets = (rng.integers(0, 2**32, n - 1) % (n - np.arange(n - 1))).astype(np.int64)
        assert G._shuffle_forward(offsets, n).tolist() == _forward_shuffle_loop(offsets.tolist())
        picks = (rng.integers(0, 2**62, n) % np.arange(1, n + 1)).astype(np.int64)
        assert G._shuffle_inside_out(picks).tolist() == _inside_out_loop(picks.tolist())
    # Degenerate streams: every step swaps with itself, or always with the last position.
    assert G._shuffle_forward(np.zeros(n - 1, dtype=np.int64), n).tolist() == list(range(n))
    last = n - 1 - np.arange(n - 1, dtype=np.int64)
    assert G._shuffle_forward(last, n).tolist() == _forward_shuffle_loop(last.tolist())
    assert G._shuffle_inside_out(np.zeros(n, dtype=np.int64)).tolist() == _inside_out_loop([0] * n)


def test_large_randperm_uses_the_inside_out_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(G, "_RANDPERM_SMALL_LIMIT", 10)
    gen = Generator().manual_seed(4)
    draws = Generator().manual_seed(4)
    with draws._lock:
        picks = (draws._u64(50) % np.arange(1, 51, dtype=np.uint64)).astype(np.int64)
    assert G.randperm(gen, 50).tolist() == _inside_out_loop(picks.tolist())
    assert_same(gen.get_state(), draws.get_state())


def test_bernoulli_tensor_stops_at_the_first_bad_probability() -> None:
    gen = Generator().manual_seed(8)
    p = np.array([0.1, 0.9, 1.5, 0.2], dtype=np.float32)
    with pytest.raises(RuntimeError, match=re.escape("Expected p_in >= 0 && p_in <= 1 to be true")):
        G.bernoulli(gen, 4, p)
    reference = Generator().manual_seed(8)
    G.uniform(reference, 2, np.float32)
    assert_same(gen.get_state(), reference.get_state())


def _exact_fma(a: float, b: float, c: float) -> Fraction:
    return Fraction(a) * Fraction(b) + Fraction(c)


def _nearest_f32(exact: Fraction) -> np.float32:
    """``exact`` rounded once to float32 (ties to even)."""
    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    best: np.float32 = min(
        candidates, key=lambda v: (abs(Fraction(float(v)) - exact), int(v.view(np.int32)) & 1)
    )
    return best


def test_fused_multiply_add_emulation_is_correctly_rounded() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(500) * 10.0 ** rng.integers(-6, 6, 500)
    b = float(rng.standard_normal())
    # The first addend nearly cancels the first product: the low half of products matters there.
    for c in (float(-(a[0] * b) * (1 + 1e-15)), 0.3, -7.0e-9):
        got = G.fma64(a, b, c)
        assert got.tolist() == [float(_exact_fma(float(x), b, c)) for x in a]
    a32 = (rng.standard_normal(20000) * 3).astype(np.float32)
    b32 = rng.standard_normal(20000).astype(np.float32)
    c32 = (-(a32.astype(np.float64) * b32) * (1 + rng.standard_normal(20000) * 1e-7)).astype(np.float32)
    triples = zip(a32.tolist(), b32.tolist(), c32.tolist(), strict=True)
    expected32 = np.array([_nearest_f32(_exact_fma(x, y, z)) for x, y, z in triples], dtype=np.float32)
    assert_same(G.fma32(a32, b32, c32), expected32)
    # Subnormal float32 results are rounded once as well.
    tiny = np.array([1.5e-39, -2.3e-40, 7e-45], dtype=np.float32)
    expected_tiny = [_nearest_f32(_exact_fma(x, 0.75, float(np.float32(1e-45)))) for x in tiny.tolist()]
    assert_same(
        G.fma32(tiny, np.float32(0.75), np.float32(1e-45)), np.array(expected_tiny, dtype=np.float32)
    )


# --------------------------------------------------------------------------------------------------
# Errors (PyTorch's messages)


def test_uniform_errors() -> None:
    gen = Generator()
    cases = [
        ((np.float32, 2.0, 1.0), "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
        ((np.float32, 0.0, float("inf")), "to is out of bounds for float"),
        ((np.float32, float("nan"), 1.0), "from is out of bounds for float"),
        ((np.float16, 0.0, 70000.0), "to is out of bounds for c10::Half"),
        (
            (np.float32, -3e38, 3e38),
            "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and "
            "from=-3e+38 which result in to-from to exceed the limit",
        ),
    ]
    for (dtype, low, high), message in cases:
        with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
            G.uniform(gen, 3, dtype, low, high)
    with pytest.raises(
        NotImplementedError, match=re.escape("\"check_uniform_bounds\" not implemented for 'Long'")
    ):
        G.uniform(gen, 3, np.int64)


def test_normal_errors() -> None:
    gen = Generator()
    for std, shown in ((-1.0, "-1"), (float("nan"), "nan")):
        with pytest.raises(
            RuntimeError, match=f"^{re.escape(f'normal expects std >= 0.0, but found std {shown}')}$"
        ):
            G.normal(gen, 3, np.float32, 0.0, std)
    with pytest.raises(
        NotImplementedError, match=re.escape("\"normal_kernel_cpu\" not implemented for 'Int'")
    ):
        G.normal(gen, 3, np.int32)


def test_random_integers_errors_and_warnings() -> None:
    gen = Generator()
    message = "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        G.random_integers(gen, 3, np.int64, 5, 3)
    with pytest.raises(RuntimeError, match=f"^{re.escape('to - 1 is out of bounds for signed char')}$"):
        G.random_integers(gen, 3, np.int8, 0, 1000)
    with pytest.raises(RuntimeError, match=f"^{re.escape('from is out of bounds for unsigned char')}$"):
        G.random_integers(gen, 3, np.uint8, -1, 5)
    with pytest.raises(RuntimeError, match=f"^{re.escape('to - 1 is out of bounds for bool')}$"):
        G.random_integers(gen, 3, np.bool_, 0, 3)
    with pytest.warns(UserWarning, match=re.escape("to - 1 is out of bounds [-(2^24), 2^24]")):
        G.random_integers(gen, 3, np.float32, 0, 2**25)
    message = "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        G.random_integers(gen, 3, np.float32, 2**24, None)
    with pytest.raises(RuntimeError, match="handles only int64, double, float and bfloat16"):
        G.random_integers(gen, 3, np.int32, -(2**63), None)
    with pytest.raises(RuntimeError, match="'high' must fit in int64"):
        G.random_integers(gen, 3, np.int64, 0, 2**64)


def test_randperm_and_bernoulli_errors() -> None:
    gen = Generator()
    with pytest.raises(RuntimeError, match=f"^{re.escape('n must be non-negative, got -1')}$"):
        G.randperm(gen, -1)
    with pytest.raises(RuntimeError, match=re.escape("n cannot be greater than 2049 for Half type.")):
        G.randperm(gen, 5000, np.float16)
    with pytest.raises(RuntimeError, match=re.escape("n cannot be greater than 2^24+1 for Float type.")):
        G.randperm(gen, 2**24 + 2, np.float32)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        G.randperm(gen, 300, np.int8)
    with pytest.raises(RuntimeError, match=re.escape("bernoulli_ expects p to be in [0, 1], but got p=1.5")):
        G.bernoulli(gen, 3, 1.5)
    with pytest.raises(RuntimeError, match=re.escape("bernoulli_ expects p to be in [0, 1], but got p=nan")):
        G.bernoulli(gen, 3, float("nan"))
    with pytest.raises(ValueError, match="non-negative element count"):
        G.uniform(gen, -2, np.float32)


# --------------------------------------------------------------------------------------------------
# Live comparison with PyTorch


@needs_torch
def test_live_pytorch_still_records_the_fixtures() -> None:
    assert torch.__version__.split("+")[0] == "2.13.0"
    for case in FIXTURES[::7]:
        results, state = recorder.torch_run(case)
        for actual, expected in zip(results, case["results"], strict=True):
            assert_same(actual, recorder.decode(expected), case["name"])
        assert recorder.state_digest(state) == case["state_sha256"]


def _live_ops(n: int) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    for dtype in FLOAT_DTYPES:
        ops += [
            {"kind": "uniform", "n": n, "dtype": dtype},
            {"kind": "normal", "n": n, "dtype": dtype},
            {"kind": "uniform", "n": n, "dtype": dtype, "low": -2.5, "high": 7.125},
            {"kind": "normal", "n": n, "dtype": dtype, "mean": 0.3, "std": 1.7},
            {"kind": "normal", "n": n, "dtype": dtype, "mean": -1.0, "std": 0.1, "contiguous": False},
        ]
    for dtype, low, high in (("int64", -7, 1000), ("int32", 0, 2**30), ("float64", -(2**50), 2**50)):
        ops.append({"kind": "randint", "n": n, "dtype": dtype, "low": low, "high": high})
    ops += [
        {"kind": "randperm", "n": n, "dtype": "int64"},
        {"kind": "bernoulli", "n": n, "dtype": "float32", "p": 0.25},
        {"kind": "random_", "n": n, "dtype": "int16"},
    ]
    return ops


@needs_torch
@pytest.mark.parametrize("seed", [-7, 3, 2**63, 2**64 - 1])
@pytest.mark.parametrize("n", [0, 2, 31, 32, 48, 63, 4097])
def test_live_sweep(seed: int, n: int) -> None:
    case: dict[str, Any] = {"seed": seed, "ops": _live_ops(n)}
    expected, expected_state = recorder.torch_run(case)
    actual, actual_state = run_case(case)
    for op, a, b in zip(case["ops"], actual, expected, strict=True):
        assert_same(a, b, str(op))
    assert_same(actual_state, expected_state, "state")


@needs_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_live_large_samples(dtype: str) -> None:
    n = 400_003 if dtype != "float64" else 100_003
    params = [(0.0, 1.0), (0.5, 2.0), (-3.0, 0.1), (1e-30, 1e-20)]
    for seed in (5, 6):
        case: dict[str, Any] = {
            "seed": seed,
            "ops": [{"kind": "normal", "n": n, "dtype": dtype, "mean": m, "std": s} for m, s in params]
            + [
                {"kind": "uniform", "n": n, "dtype": dtype, "low": lo, "high": hi}
                for lo, hi in ((-3.7, 2.1), (1.5, 1.5000001), (0.0, 1e-40 if dtype != "float16" else 1e-3))
            ],
        }
        for op, a, b in zip(case["ops"], run_case(case)[0], recorder.torch_run(case)[0], strict=True):
            assert_same(a, b, str(op))


@needs_torch
def test_live_state_round_trips_both_ways() -> None:
    for consumed in (0, 1, 623, 624, 625, 1300):
        ours, theirs = Generator().manual_seed(11), torch.Generator().manual_seed(11)
        G.random_default(ours, consumed, np.int32)
        torch.empty(consumed, dtype=torch.int32).random_(generator=theirs)
        G.normal(ours, 3, np.float32)
        torch.randn(3, generator=theirs)
        assert_same(ours.get_state(), theirs.get_state().numpy())
        into_torch = torch.Generator()
        into_torch.set_state(torch.from_numpy(ours.get_state()))
        into_ours = Generator().set_state(theirs.get_state().numpy())
        assert_same(
            G.normal(into_ours, 5, np.float64),
            torch.randn(5, dtype=torch.float64, generator=into_torch).numpy(),
        )
        assert_same(into_ours.get_state(), into_torch.get_state().numpy())


@needs_torch
def test_live_hand_made_states() -> None:
    base = torch.Generator().manual_seed(12)
    torch.rand(100, generator=base)
    for left, nxt in ((5, 0), (1, 300), (624, 1), (300, 10), (2, 623), (10, 615)):
        state = with_fields(base.get_state().numpy(), left=left, next=nxt)
        theirs = torch.Generator()
        theirs.set_state(torch.from_numpy(state))
        ours = Generator().set_state(state)
        for k in (1, 3, 700):
            expected = torch.empty(k, dtype=torch.int32).random_(generator=theirs).numpy()
            assert_same(G.random_default(ours, k, np.int32), expected, f"{left}, {nxt}, {k}")
            assert_same(ours.get_state(), theirs.get_state().numpy())


@needs_torch
def test_live_error_messages() -> None:
    def torch_message(fn: Any) -> str:
        with pytest.raises(Exception) as info:
            fn()
        return str(info.value).splitlines()[0]

    pairs = [
        (lambda: torch.empty(3).uniform_(2, 1), lambda: G.uniform(Generator(), 3, np.float32, 2, 1)),
        (lambda: torch.empty(3).normal_(0, -1), lambda: G.normal(Generator(), 3, np.float32, 0, -1)),
        (lambda: torch.randint(5, 3, (3,)), lambda: G.random_integers(Generator(), 3, np.int64, 5, 3)),
        (
            lambda: torch.randint(0, 1000, (3,), dtype=torch.int8),
            lambda: G.random_integers(Generator(), 3, np.int8, 0, 1000),
        ),
        (lambda: torch.empty(3).bernoulli_(1.5), lambda: G.bernoulli(Generator(), 3, 1.5)),
        (
            lambda: torch.randperm(5000, dtype=torch.float16),
            lambda: G.randperm(Generator(), 5000, np.float16),
        ),
        (
            lambda: torch.Generator().set_state(torch.zeros(10, dtype=torch.uint8)),
            lambda: Generator().set_state(np.zeros(10, dtype=np.uint8)),
        ),
        (lambda: torch.Generator().manual_seed(2**64), lambda: Generator().manual_seed(2**64)),
    ]
    for theirs, ours in pairs:
        assert torch_message(ours) == torch_message(theirs)


@needs_torch
def test_live_fill_order_of_strided_outputs() -> None:
    rng = np.random.default_rng(0)
    for _ in range(100):
        shape = tuple(int(x) for x in rng.integers(1, 5, int(rng.integers(1, 5))))
        out = torch.empty(shape).permute(*rng.permutation(len(shape)).tolist())
        if out.dim() > 1 and rng.random() < 0.5:
            out = out.narrow(0, 0, max(1, out.shape[0] // 2))
        out.uniform_(generator=torch.Generator().manual_seed(1))
        samples = G.uniform(Generator().manual_seed(1), out.numel(), np.float32)
        placed = np.empty(out.numel(), dtype=np.float32)
        placed[G.fill_order(tuple(out.shape), tuple(out.stride()))] = samples
        assert_same(placed.reshape(out.shape), out.numpy(), str((out.shape, out.stride())))
