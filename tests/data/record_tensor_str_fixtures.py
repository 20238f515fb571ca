"""Record ``tensor_str_fixtures.json``: tensor reprs printed by PyTorch, for tests without it.

Run with PyTorch installed (``.venv/bin/python tests/data/record_tensor_str_fixtures.py``).
Each case names a dtype, a shape, the elements (exact bytes in hex, or an arithmetic sequence
for large tensors), the device, autograd state, print options and default dtype, and the
``repr`` PyTorch gives it (with ``dtype=torch.`` written ``dtype=framework.``).
``tests/test_tensor_str.py`` imports ``decode_array`` and ``torch_repr`` from here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

FIXTURE_PATH = Path(__file__).with_name("tensor_str_fixtures.json")

Case = dict[str, Any]

FLOATS = ("float16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
COMPLEX = ("complex64", "complex128")
ALL_DTYPES = ("bool", *INTS, *FLOATS, *COMPLEX)


def sequence_array(dtype: str, count: int, scale: float, offset: float) -> npt.NDArray[Any]:
    """``offset + scale * i`` for i < count (imaginary part ``-scale * i / 2``), cast to ``dtype``."""
    values = np.arange(count, dtype=np.float64) * scale + offset
    if dtype in COMPLEX:
        return (values - 0.5j * scale * np.arange(count, dtype=np.float64)).astype(dtype)
    return values.astype(dtype)


def decode_array(case: Case) -> npt.NDArray[Any] | None:
    """The elements a case describes, shaped; ``None`` for meta tensors."""
    data = case["data"]
    if data is None:
        return None
    shape = tuple(case["shape"])
    if "hex" in data:
        flat = np.frombuffer(bytes.fromhex(data["hex"]), dtype=case["dtype"])
    else:
        flat = sequence_array(case["dtype"], math.prod(shape), data["scale"], data["offset"])
    return flat.reshape(shape).copy()


def torch_repr(case: Case) -> str:
    """PyTorch's repr of the case, with its options and default dtype applied only meanwhile."""
    import torch

    dtype = getattr(torch, case["dtype"])
    shape = tuple(case["shape"])
    array = decode_array(case)
    saved = torch._tensor_str.get_printoptions()
    torch._tensor_str.set_printoptions(**case["options"])
    torch.set_default_dtype(getattr(torch, case["default_dtype"]))
    try:
        if array is None:
            tensor = torch.empty(shape, dtype=dtype, device="meta")
        else:
            tensor = torch.from_numpy(array.copy())
        if case["requires_grad"]:
            tensor.requires_grad_()
        if case["grad_fn"] is not None:
            tensor = tensor.clone()
        text = repr(tensor)
    finally:
        torch.set_default_dtype(torch.float32)
        torch._tensor_str.set_printoptions(**saved)
    return text.replace("dtype=torch.", "dtype=framework.")


def make_case(
    name: str,
    array: npt.NDArray[Any] | None = None,
    *,
    dtype: str | None = None,
    shape: tuple[int, ...] | None = None,
    sequence: tuple[float, float] | None = None,
    requires_grad: bool = False,
    grad_fn: bool = False,
    options: dict[str, Any] | None = None,
    default_dtype: str = "float32",
) -> Case:
    """A case from an array (stored exactly), a sequence (``scale, offset``) or neither (meta)."""
    if array is not None:
        dtype, shape = str(array.dtype), array.shape
        data: dict[str, Any] | None = {"hex": np.ascontiguousarray(array).tobytes().hex()}
    elif sequence is not None:
        data = {"scale": sequence[0], "offset": sequence[1]}
    else:
        data = None
    return {
        "name": name,
        "dtype": dtype,
        "shape": list(shape or ()),
        "data": data,
        "device": "meta" if data is None else "cpu",
        "requires_grad": requires_grad or grad_fn,
        "grad_fn": "CloneBackward0" if grad_fn else None,
        "options": options or {},
        "default_dtype": default_dtype,
    }


def _special_cases() -> list[Case]:
    nan, inf = math.nan, math.inf
    f4, f8 = np.float32, np.float64
    cases = [
        make_case("scalar float", np.array(3.0, f4)),
        make_case("scalar negative zero", np.array(-0.0, f4)),
        make_case("scalar nan", np.array(nan, f4)),
        make_case("scalar -inf", np.array(-inf, f8)),
        make_case("scalar tiny", np.array(1e-5, f4)),
        make_case("scalar huge", np.array(1e10, f8)),
        make_case("scalar fraction", np.array(0.5, np.float16)),
        make_case("scalar bool", np.array(True)),
        make_case("scalar int32", np.array(-7, np.int32)),
        make_case("scalar uint8", np.array(200, np.uint8)),
        make_case("scalar complex", np.array(1 + 2j, np.complex64)),
        make_case("scalar complex negative imag", np.array(-1.5 - 0.25j, np.complex128)),
        make_case("scalar complex zero", np.array(complex(-0.0, -0.0), np.complex64)),
        make_case("nonfinite", np.array([nan, inf, -inf, 0.0], f4)),
        make_case("nonfinite and fraction", np.array([nan, 1.5, -inf], f4)),
        make_case("all zero", np.zeros(5, f4)),
        make_case("signed zeros", np.array([-0.0, 0.0, -0.0], f8)),
        make_case("tiny and one", np.array([1e-5, 1.0], f4)),
        make_case("negative tiny", np.array([-1e-5, 1.0], f4)),
        make_case("huge and one", np.array([1e10, 1.0], f8)),
        make_case("ratio exactly 1000", np.array([1.0, 1000.0], f4)),
        make_case("ratio above 1000", np.array([1.0, 1000.5], f4)),
        make_case("max exactly 1e8", np.array([1e8], f8)),
        make_case("max above 1e8", np.array([1e8 + 1], f8)),
        make_case("min exactly 1e-4", np.array([1e-4], f8)),
        make_case("min below 1e-4", np.array([9.9e-5], f8)),
        make_case("rounds up to ten", np.array([9.99996, 1.0], f8)),
        make_case("negative rounds up", np.array([-9.99996, 2.5], f8)),
        make_case("rounds to negative zero", np.array([-0.00004, 0.5], f8)),
        make_case("three digit exponents", np.array([1e-300, 1e300, -5.0], f8)),
        make_case("exponent rounds to 100", np.array([9.99999e99, 1.0], f8)),
        make_case("float64 subnormal", np.array([5e-324, 1.0], f8)),
        make_case("float16 values", np.array([0.1, 65504.0, 6e-8, -2.0], np.float16)),
        make_case("float16 integers", np.array([1.0, -3.0, 2048.0], np.float16)),
        make_case("float32 precision", np.array([0.1, 0.2, 0.3], f4)),
        make_case("float64 precision", np.array([0.1, 0.2, 0.3], f8)),
        make_case("integers as floats", np.array([1.0, -3.0, 10.0, 0.0], f4)),
        make_case("large integers as floats", np.array([123456.0, -7.0], f4)),
        make_case("integer floats sci", np.array([1.0, 1e9], f8)),
        make_case("int8 extremes", np.array([-128, 0, 127], np.int8)),
        make_case("uint8 extremes", np.array([0, 255], np.uint8)),
        make_case("int16 extremes", np.array([-32768, 32767], np.int16)),
        make_case("int32 extremes", np.array([-(2**31), 2**31 - 1], np.int32)),
        make_case("int64 extremes", np.array([-(2**63), 0, 2**63 - 1], np.int64)),
        make_case("bool mixed", np.array([True, False, True])),
        make_case("bool all true", np.array([[True, True], [True, True]])),
        make_case("bool all false", np.array([False, False])),
        make_case("complex unit", np.array([0j, 1j, -1j, 1 + 0j], np.complex64)),
        make_case("complex signed zeros", np.array([complex(0.0, -0.0), complex(-0.0, 0.0)], np.complex128)),
        make_case(
            "complex nonfinite", np.array([complex(nan, nan), complex(inf, -inf), 1 + 1j], np.complex64)
        ),
        make_case("complex mixed scales", np.array([1e-5 + 1e5j, 2 - 3j], np.complex64)),
        make_case("complex fractions", np.array([[0.5 - 1.25j, 3 + 0.125j], [-2.5 + 0j, 1j]], np.complex128)),
        make_case("wide row wraps", np.linspace(-1000, 1000, 30, dtype=f8)),
        make_case("int row wraps", np.arange(-40, 40, dtype=np.int64)),
        make_case("bool row wraps", np.arange(40) % 3 == 0),
        make_case("complex row wraps", (np.arange(24) * (1.5 - 2.25j)).astype(np.complex64)),
        make_case("column of one", np.arange(6, dtype=f4).reshape(6, 1)),
        make_case("four dims", np.arange(24, dtype=f4).reshape(1, 2, 3, 4) / 7),
        make_case("singleton dims", np.array([[[[2.5]]]], f4)),
    ]
    cases += [
        make_case(f"empty {dtype} {shape}", np.zeros(shape, dtype))
        for dtype in ("float32", "float64", "int64", "int32", "bool", "complex64", "complex128", "float16")
        for shape in ((0,), (0, 3), (2, 0, 4))
    ]
    cases += [
        make_case(f"meta {dtype} {shape}", dtype=dtype, shape=shape)
        for dtype in ("float32", "float64", "int64", "bool", "complex64", "uint8")
        for shape in ((2, 3), (), (0,))
    ]
    cases += [
        make_case("meta requires grad", dtype="float32", shape=(2, 3), requires_grad=True),
        make_case("meta grad_fn", dtype="float64", shape=(4,), grad_fn=True),
        make_case("requires grad", np.array([1.0, 2.0], f4), requires_grad=True),
        make_case("grad_fn", np.array([1.0, 2.0], f4), grad_fn=True),
        make_case("grad_fn dtype", np.array([[1.5, 2.0]], f8), grad_fn=True),
        make_case("grad_fn complex", np.array([1 + 1j], np.complex128), grad_fn=True),
        make_case("requires grad empty", np.zeros((0, 2), f8), requires_grad=True),
        make_case("suffixes wrap", np.linspace(0, 1, 11, dtype=f8), requires_grad=True),
        make_case("suffixes wrap after rows", np.linspace(0, 1, 24, dtype=f8).reshape(2, 12), grad_fn=True),
        make_case("second suffix wraps", np.linspace(0, 1, 9, dtype=f8), grad_fn=True),
        make_case("scalar grad_fn", np.array(2.0, f8), grad_fn=True),
    ]
    return cases


def random_values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> npt.NDArray[Any]:
    if dtype == "bool":
        return rng.random(shape) < rng.random()
    if dtype in INTS:
        info = np.iinfo(dtype)
        high = min(int(rng.choice([10, 1000, int(info.max)])), int(info.max))
        low = max(int(info.min), -high)
        return rng.integers(low, high, shape, dtype=dtype, endpoint=True)
    family = rng.integers(5)
    if family == 0:
        values = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 10)
    elif family == 1:
        values = rng.integers(-1000, 1000, shape).astype(np.float64)
    elif family == 2:
        values = rng.random(shape)
    elif family == 3:
        values = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    else:
        values = rng.standard_normal(shape)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
        mask = rng.random(shape) < 0.2
        values[mask] = rng.choice(specials, int(mask.sum()))
    if dtype in COMPLEX:
        values = values + 1j * rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def _random_cases() -> list[Case]:
    rng = np.random.default_rng(20240613)
    cases = []
    for index in range(80):
        dtype = ALL_DTYPES[index % len(ALL_DTYPES)]
        while True:
            ndim = int(rng.integers(0, 5))
            shape = tuple(int(rng.integers(1, limit, endpoint=True)) for limit in (40, 40, 8, 6)[:ndim])
            if math.prod(shape) <= 3000:
                break
        cases.append(make_case(f"random {index} {dtype}", random_values(rng, dtype, shape)))
    return cases


def _summarized_cases() -> list[Case]:
    shapes = ((2000,), (1001,), (50, 50), (7, 200), (200, 7), (10, 10, 11), (3, 4, 5, 20), (1000, 1000))
    cases = [
        make_case(f"summarized {dtype} {shape}", dtype=dtype, shape=shape, sequence=(scale, offset))
        for shape in shapes
        for dtype, scale, offset in (("float32", 0.25, -100.0), ("int32", 3.0, -5000.0))
    ]
    cases += [
        make_case("summarized float64 sci", dtype="float64", shape=(30, 40), sequence=(1e-7, 0.0)),
        make_case("summarized float16", dtype="float16", shape=(1200,), sequence=(0.5, 0.0)),
        make_case("summarized complex", dtype="complex64", shape=(40, 30), sequence=(0.5, 1.0)),
        make_case(
            "summarized float64 grad_fn", dtype="float64", shape=(1500,), sequence=(1.0, 0.0), grad_fn=True
        ),
        make_case("summarized uint8", dtype="uint8", shape=(4, 300), sequence=(1.0, 0.0)),
        make_case(
            "summarized tails set width",
            np.concatenate([np.ones(3, np.float32), np.full(1000, 1e9, np.float32), np.ones(3, np.float32)]),
        ),
    ]
    return cases


def _option_cases() -> list[Case]:
    fractions = np.array([[1.123456789, -22.5, 0.001953125], [4.0, 1e-3, 3.14159265]], np.float64)
    integer_floats = np.array([1.0, 20.0, -300.0], np.float32)
    rows = np.arange(60, dtype=np.float32).reshape(3, 4, 5) * 1.5
    options: list[tuple[str, npt.NDArray[Any], dict[str, Any]]] = [
        (f"precision {precision}", fractions, {"precision": precision}) for precision in (0, 1, 2, 6, 10)
    ]
    options += [
        ("precision 0 half", np.array([0.5, 1.5, 2.5, 0.25], np.float64), {"precision": 0}),
        ("sci on", fractions, {"sci_mode": True}),
        ("sci off", np.array([1e-8, 1e8, 1.0], np.float64), {"sci_mode": False}),
        ("sci on integers", integer_floats, {"sci_mode": True}),
        ("sci off integers", np.array([1.0, 1e12], np.float64), {"sci_mode": False}),
        ("sci on zeros", np.zeros(3, np.float32), {"sci_mode": True}),
        ("sci on ints", np.arange(4, dtype=np.int32), {"sci_mode": True}),
        ("sci on complex", np.array([1 + 2j, 0.5j], np.complex64), {"sci_mode": True}),
        ("sci on precision 2", fractions, {"sci_mode": True, "precision": 2}),
        ("threshold 5", np.arange(10, dtype=np.int64), {"threshold": 5}),
        ("threshold 10 rows", rows, {"threshold": 10}),
        ("threshold inf", np.arange(1200, dtype=np.int16), {"threshold": math.inf}),
        ("threshold 0 scalar", np.array(2.5, np.float32), {"threshold": 0}),
        ("edgeitems 0", rows, {"edgeitems": 0}),
        ("edgeitems 0 vector", np.arange(10, dtype=np.float32), {"edgeitems": 0, "threshold": 5}),
        ("edgeitems 0 small", np.arange(4, dtype=np.int64), {"edgeitems": 0}),
        ("edgeitems 0 scalar", np.array(1.0, np.float32), {"edgeitems": 0}),
        ("edgeitems 0 rows summarized", rows, {"edgeitems": 0, "threshold": 10}),
        ("edgeitems 1", rows, {"edgeitems": 1, "threshold": 10}),
        ("edgeitems 2 = half", np.arange(4, dtype=np.int64), {"edgeitems": 2, "threshold": 1}),
        ("linewidth 20", np.linspace(-5, 5, 12, dtype=np.float32), {"linewidth": 20}),
        ("linewidth 10", rows, {"linewidth": 10}),
        ("linewidth 200", np.linspace(-5, 5, 60, dtype=np.float32), {"linewidth": 200}),
        ("linewidth suffix", np.linspace(-5, 5, 10, dtype=np.float64), {"linewidth": 50}),
        ("profile short", fractions, {"profile": "short"}),
        ("profile full", np.arange(1100, dtype=np.int32).reshape(11, 100), {"profile": "full"}),
        ("profile default", fractions, {"profile": "default"}),
        ("profile short precision 5", fractions, {"profile": "short", "precision": 5}),
    ]
    cases = [make_case(name, array, options=opts) for name, array, opts in options]
    cases += [
        make_case(
            "edgeitems 5", dtype="float64", shape=(40, 50), sequence=(1.0, 0.0), options={"edgeitems": 5}
        ),
        make_case(
            "profile short summarized",
            dtype="int64",
            shape=(20, 100),
            sequence=(1.0, 0.0),
            options={"profile": "short"},
        ),
    ]
    return cases


def _default_dtype_cases() -> list[Case]:
    arrays = (
        np.array([1.5, 2.0], np.float64),
        np.array([1.5, 2.0], np.float32),
        np.array([1 + 1j], np.complex128),
        np.array([1 + 1j], np.complex64),
        np.array([3, 4], np.int64),
        np.array([True]),
        np.zeros((0,), np.float64),
        np.zeros((0,), np.complex128),
    )
    cases = [
        make_case(f"default float64 {array.dtype} {array.shape}", array, default_dtype="float64")
        for array in arrays
    ]
    cases += [
        make_case(f"default float64 meta {dtype}", dtype=dtype, shape=(2,), default_dtype="float64")
        for dtype in ("float64", "float32", "complex128")
    ]
    return cases


def build_cases() -> list[Case]:
    """The whole corpus, in a fixed order, with unique names."""
    cases = (
        _special_cases() + _random_cases() + _summarized_cases() + _option_cases() + _default_dtype_cases()
    )
    names = [case["name"] for case in cases]
    if len(set(names)) != len(names):
        raise ValueError("case names must be unique")
    return cases


def main() -> None:
    cases = build_cases()
    for case in cases:
        case["expected"] = torch_repr(case)
    FIXTURE_PATH.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {FIXTURE_PATH}")


if __name__ == "__main__":
    main()
