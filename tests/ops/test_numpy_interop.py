"""NumPy values where PyTorch's Python API takes them: NumPy scalars as Scalars, ints and sizes;
NumPy arrays and scalars as indices; NumPy arrays as operands (the operator gives way to NumPy,
whose result comes back as a tensor through `Tensor.__array_wrap__`); and the errors PyTorch gives
for the NumPy values it refuses (with NumPy's type names: `numpy.ndarray`, `numpy.float32`).
Expected values and dtypes are PyTorch 2.13's."""

from __future__ import annotations

import operator
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework


def _run(expression: str, lib: Any = framework) -> Any:
    """`expression` evaluated with `lib` as the tensor library (framework, or torch for the live
    comparison)."""
    return eval(expression, {"np": np, "lib": lib})


# (expression, expected values, expected dtype name)
SCALAR_CASES: list[tuple[str, Any, str]] = [
    ("lib.ones(2, dtype=lib.float16) * np.float32(2)", [2.0, 2.0], "float16"),
    ("lib.ones(2, dtype=lib.int32) + np.int64(1)", [2, 2], "int32"),
    ("lib.ones(2, dtype=lib.int32) * np.float64(1.5)", [1.5, 1.5], "float32"),
    ("lib.ones(2) + np.bool_(True)", [2.0, 2.0], "float32"),
    ("lib.ones(2) + np.float16(1)", [2.0, 2.0], "float32"),
    ("lib.tensor([1, 2]) // np.int8(2)", [0, 1], "int64"),
    ("lib.tensor([1, 2]) * np.float32(2)", [2.0, 4.0], "float32"),
    ("np.float32(2) * lib.ones(2)", [2.0, 2.0], "float32"),
    ("np.float32(2) ** lib.ones(2)", [2.0, 2.0], "float32"),
    ("np.float32(3) - lib.ones(2)", [2.0, 2.0], "float32"),
    ("np.float32(2) < lib.ones(2)", [False, False], "bool"),
    ("lib.ones(2) == np.float32(1)", [True, True], "bool"),
    ("lib.ones(2).add(np.int32(3))", [4.0, 4.0], "float32"),
    ("lib.ones(2).clamp(np.float32(0.5), np.float32(0.75))", [0.75, 0.75], "float32"),
    ("lib.tensor([3.0]).pow(np.float32(2))", [9.0], "float32"),
    ("lib.ones(2).mul_(np.float16(2))", [2.0, 2.0], "float32"),
    ("lib.full((2,), np.float32(3))", [3.0, 3.0], "float32"),
    ("lib.full((2,), np.int64(3))", [3, 3], "int64"),
    ("lib.arange(np.int64(3))", [0, 1, 2], "int64"),
    ("lib.arange(np.float32(1.5))", [0.0, 1.0], "float32"),
    ("lib.ones(2).sum(dim=np.int64(0))", 2.0, "float32"),
]


@pytest.mark.parametrize(("expression", "values", "dtype"), SCALAR_CASES)
def test_numpy_scalars_are_numbers(expression: str, values: Any, dtype: str) -> None:
    result = _run(expression)
    assert type(result) is framework.Tensor
    assert result.dtype is getattr(framework, dtype)
    assert result.tolist() == values


@pytest.mark.parametrize(
    "make",
    [
        lambda: framework.zeros(np.int64(2), np.int32(3)),
        lambda: framework.zeros((np.int64(2), 3)),
        lambda: framework.ones(6).view(np.int64(2), np.int64(3)),
        lambda: framework.ones(6).reshape((np.int32(2), 3)),
        lambda: framework.ones(2, 1, 3).expand(np.int64(2), -1, 3).reshape(2, 3),
        lambda: framework.ones(3, 2).transpose(np.int64(0), 1),
        lambda: framework.randint(0, np.int64(10), (np.int64(2), 3)),
    ],
)
def test_numpy_integers_as_sizes_and_dims_become_python_ints(make: Callable[[], framework.Tensor]) -> None:
    result = make()
    assert result.shape == (2, 3)
    assert [type(s) for s in result.shape] == [int, int]


def test_numpy_scalar_argument_reaches_the_kernel_as_a_python_number() -> None:
    # A float32 scalar promotes as a Python float (the "number" category): float16 stays float16,
    # and the value is the float32's exactly.
    result = framework.zeros(1, dtype=framework.float64) + np.float32(0.1)
    assert result.item() == float(np.float32(0.1))


def test_numpy_index_items() -> None:
    t = framework.arange(6.0).reshape(2, 3)
    assert t[np.int64(1)].tolist() == [3.0, 4.0, 5.0]
    assert t[np.int32(1), np.int64(2)].item() == 5.0
    assert t[np.array(1)].tolist() == [3.0, 4.0, 5.0]
    assert t[:, np.array([0, 2])].tolist() == [[0.0, 2.0], [3.0, 5.0]]
    assert t[np.array([True, False])].tolist() == [[0.0, 1.0, 2.0]]
    assert t[[np.int64(1), 0], 0].tolist() == [3.0, 0.0]
    t[np.int64(0), np.int64(0)] = 7
    assert t[0, 0].item() == 7.0


@pytest.mark.parametrize(("item", "name"), [(np.float64(1), "numpy.float64"), (np.bool_(True), "numpy.bool")])
def test_numpy_index_refused(item: Any, name: str) -> None:
    with pytest.raises(IndexError, match=rf"valid indices \(got {name}\)"):
        framework.zeros(3)[item]


@pytest.mark.parametrize(
    ("value", "name"),
    [(np.array([1.0, 2.0]), "numpy.ndarray"), (np.float32(3), "numpy.float32"), ([1.0], "list")],
)
def test_assigning_what_pytorch_refuses(value: Any, name: str) -> None:
    t = framework.zeros(3)
    with pytest.raises(TypeError, match=f"^can't assign a {name} to a framework.FloatTensor$"):
        t[0:2] = value
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_assigning_numpy_float64_which_is_a_float() -> None:
    t = framework.zeros(3)
    t[t == 0] = np.float64(2.5)
    assert t.tolist() == [2.5, 2.5, 2.5]


def test_tensor_parameter_refuses_arrays_with_numpys_type_name() -> None:
    with pytest.raises(TypeError, match=r"argument 'index' \(position 2\) must be Tensor, not numpy.ndarray"):
        framework.ones(2).index_select(0, np.array([0]))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"argument 'other' must be Tensor, not numpy.ndarray"):
        framework.ones(2).add(other=np.ones(1))  # type: ignore[arg-type]


# NumPy computes these (the operator gives way); the result comes back as a tensor.
ARRAY_OPERANDS: list[tuple[str, Any, str]] = [
    ("lib.ones(2) + np.ones(2)", [2.0, 2.0], "float64"),
    ("lib.ones(2) + np.array(2.0)", [3.0, 3.0], "float64"),
    ("lib.ones(2, dtype=lib.int64) + np.ones(2, np.int32)", [2, 2], "int64"),
    ("lib.ones(2) @ np.ones(2)", 2.0, "float64"),
    ("np.sin(lib.zeros(2))", [0.0, 0.0], "float32"),
    ("np.add(lib.ones(2), 1)", [2.0, 2.0], "float32"),
    ("np.greater(lib.ones(2), 0)", [1, 1], "uint8"),
]


@pytest.mark.parametrize(("expression", "values", "dtype"), ARRAY_OPERANDS)
def test_numpy_computes_with_arrays_and_gives_tensors(expression: str, values: Any, dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy 2's __array_wrap__ signature: no DeprecationWarning
        result = _run(expression)
    assert type(result) is framework.Tensor
    assert result.dtype is getattr(framework, dtype)
    assert result.tolist() == values


def test_array_wrap_shares_the_result_memory() -> None:
    result = np.multiply(framework.ones(3), 2.0)
    result.numpy()[0] = 5.0
    assert result.tolist() == [5.0, 2.0, 2.0]


@pytest.mark.parametrize(
    ("op", "symbol"),
    [
        (operator.add, "+"), (operator.sub, "-"), (operator.truediv, "/"), (operator.floordiv, "//"),
        (operator.mod, "%"), (operator.pow, "** or pow()"), (operator.matmul, "@"), (operator.and_, "&"),
        (operator.or_, "|"), (operator.xor, "^"), (operator.iadd, "+="), (operator.imul, "*="),
        (operator.ipow, "**="), (operator.ior, "|="),
    ],
)  # fmt: skip
def test_operator_with_an_operand_it_does_not_take_is_pythons_type_error(
    op: Callable[[Any, Any], Any], symbol: str
) -> None:
    expected = f"unsupported operand type(s) for {symbol}: 'Tensor' and 'str'"
    with pytest.raises(TypeError, match=f"^{re.escape(expected)}$"):
        op(framework.ones(2), "a")


def test_comparisons_with_other_objects_are_pythons() -> None:
    t = framework.ones(2)
    assert (t == "a") is False
    assert (t != "a") is True
    with pytest.raises(TypeError, match=r"^'<' not supported between instances of 'Tensor' and 'str'$"):
        t < "a"  # noqa: B015
    with pytest.raises(
        TypeError, match=r"^unsupported operand type\(s\) for \*: 'numpy.ndarray' and 'Tensor'$"
    ):
        np.ones(2) * t
    # A list goes to list.__rmul__, which asks the tensor for an index, as in PyTorch.
    with pytest.raises(
        TypeError, match=r"^only integer tensors of a single element can be converted to an index$"
    ):
        t * [1, 2]


@pytest.mark.parametrize(("expression", "values", "dtype"), SCALAR_CASES + ARRAY_OPERANDS)
def test_live_against_pytorch(expression: str, values: Any, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's __array_wrap__ has NumPy 1's signature
        theirs = _run(expression, torch)
    assert theirs.tolist() == values
    assert theirs.dtype is getattr(torch, dtype)
