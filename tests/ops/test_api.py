"""The generated Python API: argument parsing, Tensor operators, type promotion, out= and in-place
rules, and the code generator's freshness."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor
from framework.ops import codegen
from framework.ops._api_runtime import FUNCTION_PARSERS
from framework.ops._native import NativeFunctionsError, parse_native_functions

HAS_TORCH = importlib.util.find_spec("torch") is not None


def t(values: Any, dtype: Any = np.float32) -> Tensor:
    return framework.from_numpy(np.array(values, dtype=dtype))


def test_generated_files_are_fresh() -> None:
    assert codegen.stale_files() == [], "run: python -m framework.ops.codegen"


def test_codegen_check_command_reports_stale_files(tmp_path: Any, capsys: Any) -> None:
    assert codegen.stale_files(tmp_path) == [
        "__init__.py",
        "functions.py",
        "functions.pyi",
        "fft.py",
        "fft.pyi",
        "linalg.py",
        "linalg.pyi",
        "special.py",
        "special.pyi",
        "tensor_methods.py",
        "tensor_methods.pyi",
        "return_types.py",
    ]
    assert codegen.main(["--check"]) == 0


def test_generated_stub_signatures() -> None:
    files = codegen.generate(
        parse_native_functions((codegen.OUTPUT_DIR.parents[0] / "ops" / "native_functions.yaml").read_text())
    )
    stub = files["functions.pyi"]
    expected = (
        "def add(input: Tensor | Number, other: Tensor | Number, *, alpha: Number = ..., "
        "out: Tensor | None = None)"
    )
    assert f"{expected} -> Tensor: ..." in stub
    assert "def empty(*size: int | Sequence[int], dtype: dtype | None = ...," in stub
    methods = files["tensor_methods.pyi"]
    assert "    def add_(self, other: Tensor | Number, *, alpha: Number = ...) -> Tensor: ..." in methods
    assert "    def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]" in methods
    assert (
        "def max(input: Tensor, dim: int, keepdim: bool = ..., *, "
        "out: tuple[Tensor, Tensor] | list[Tensor] | None = None) -> return_types.max: ..."
    ) in stub
    assert "class max_out(NamedTuple):\n    values: Tensor\n    indices: Tensor\n" in files["return_types.py"]
    assert "class max(NamedTuple):\n    values: Tensor\n    indices: Tensor\n" in files["return_types.py"]


def test_yaml_errors_name_the_line() -> None:
    with pytest.raises(NativeFunctionsError, match=r"x.yaml:2: aten::foo: no kernel named 'nope'"):
        parse_native_functions("\n- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: nope\n", "x.yaml")
    with pytest.raises(NativeFunctionsError, match=r"x.yaml:1: bad or missing 'func'"):
        parse_native_functions("- func: foo(Tensor self -> Tensor\n", "x.yaml")
    with pytest.raises(NativeFunctionsError, match=r"x.yaml:1: unknown variants \['methd'\]"):
        parse_native_functions("- func: foo(Tensor self) -> Tensor\n  variants: methd\n", "x.yaml")
    with pytest.raises(NativeFunctionsError, match=r"x.yaml:1: unknown field\(s\) \['dispatc'\]"):
        parse_native_functions("- func: foo(Tensor self) -> Tensor\n  dispatc: {}\n", "x.yaml")


# ---- argument parsing ------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([2, 3],)])
def test_sizes_as_varargs_or_sequence(args: tuple[Any, ...]) -> None:
    x = framework.empty(*args, dtype=framework.float64)
    assert x.shape == (2, 3) and x.dtype is framework.float64


def test_factory_options() -> None:
    m = framework.empty(4, device="meta")
    assert m.device == framework.device("meta") and m.shape == (4,)
    assert framework.empty(2, device=framework.device("cpu")).device.type == "cpu"
    assert framework.arange(0, 4).dtype is framework.int64
    assert framework.arange(0, 1, 0.25).dtype is framework.float32
    np.testing.assert_array_equal(framework.arange(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75])
    with pytest.raises(
        RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"
    ):
        framework.empty(2, dtype=framework.int64, requires_grad=True)


def test_invalid_arguments_list_every_signature() -> None:
    with pytest.raises(TypeError) as info:
        framework.pow(t([1.0]), "x")
    assert str(info.value) == (
        "pow() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + "\n".join(f" * {sig.describe()}" for sig in FUNCTION_PARSERS["pow"].signatures)
    )
    assert len(FUNCTION_PARSERS["pow"].signatures) > 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: framework.add(t([1.0])),
            "add() received an invalid combination of arguments - got (Tensor), "
            "but expected (Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
        ),
        (lambda: framework.add(t([1.0]), 1, 2, 3), "add() takes 2 positional arguments but 4 were given"),
        (lambda: framework.add(t([1.0]), other="a"), "add(): argument 'other' must be Tensor, not str"),
        (lambda: framework.add(t([1.0]), 1, foo=2), "add() got an unexpected keyword argument 'foo'"),
        (lambda: t([1.0]).add("a"), "add(): argument 'other' (position 1) must be Tensor, not str"),
        (lambda: framework.add(t([1.0]), 1, alpha="a"), "add(): argument 'alpha' must be Number, not str"),
        (
            lambda: framework.add(t([1.0]), "a"),
            "add(): argument 'other' (position 2) must be Tensor, not str",
        ),
    ],
)
def test_one_signature_names_the_argument_that_does_not_fit(call: Any, message: str) -> None:
    """PyTorch's texts for a name with a single signature (checked against torch 2.13)."""
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_binding_accepts_every_form_of_an_argument() -> None:
    """Keywords for positional parameters, `*size` with keywords, an int where `int[2]` is
    expected, `out=None`, Python numbers for the input of `mul`."""
    a = t([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(framework.sum(input=a, dim=0).numpy(), [4, 6])
    np.testing.assert_array_equal(a.sum(dim=[1], keepdim=True).numpy(), [[3], [7]])
    assert a.view(size=(4,)).shape == (4,) and a.view([1, 4]).shape == (1, 4) and a.view(4, 1).shape == (4, 1)
    z = framework.zeros(2, 3, dtype=framework.float64, requires_grad=True)
    assert z.shape == (2, 3) and z.dtype is framework.float64 and z.requires_grad
    assert framework.avg_pool2d(framework.ones(1, 1, 4, 4), 2).shape == (1, 1, 2, 2)
    np.testing.assert_array_equal(framework.add(a, a, out=None).numpy(), [[2, 4], [6, 8]])
    np.testing.assert_array_equal(framework.mul(2, a).numpy(), [[2, 4], [6, 8]])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a: framework.add(a, a, other=a), "add() received an invalid combination of arguments - got "
         "(Tensor, Tensor, other=Tensor), but expected (Tensor input, Tensor other, *, Number alpha = 1, "
         "Tensor out = None)"),
        (lambda a: framework.zeros(2, 3, size=(2,)), "zeros() takes 1 positional arguments but 2 were given"),
        (lambda a: framework.zeros(2, requires_grad=1), "zeros() received an invalid combination of arguments"
         " - got (int, requires_grad=int), but expected (tuple of ints size, *, dtype dtype = None, Layout "
         "layout = None, Device device = None, bool pin_memory = None, Tensor out = None, bool requires_grad "
         "= False)"),
        (lambda a: a.add(a, out=a), "add() received an invalid combination of arguments - got (Tensor, "
         "out=Tensor), but expected (Tensor other, *, Number alpha = 1)"),
        (lambda a: a.add(a, requires_grad=True), "add() got an unexpected keyword argument 'requires_grad'"),
        (lambda a: a.sum(0, 1), "sum() received an invalid combination of arguments - got (int, int), but "
         "expected one of:\n * (*, dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, "
         "dtype dtype = None)"),
        (lambda a: a.view(2, 1.0), "view() takes 1 positional arguments but 2 were given"),
    ],
)  # fmt: skip
def test_binding_refusals(call: Any, message: str) -> None:
    """An argument given twice, a non-bool `requires_grad`, `out=` or `requires_grad=` where the
    signature has none, an int for a bool, a float among `*size`."""
    with pytest.raises(TypeError) as info:
        call(t([1.0, 2.0]))
    assert str(info.value) == message


def test_numbers_are_wrapped_tensors_for_add_sub_mul_div() -> None:
    x = framework.ones(3, requires_grad=True)
    assert (x * 2).grad_fn.name() == "MulBackward0"  # type: ignore[union-attr]
    assert framework.add(x, 2).grad_fn.name() == "AddBackward0"  # type: ignore[union-attr]
    assert framework.div(x, 2, rounding_mode="floor").grad_fn.name() == "DivBackward2"  # type: ignore[union-attr]
    i = framework.ones(3, dtype=framework.int32)
    assert (i * 2).dtype is framework.int32 and (i / 2).dtype is framework.float32


def test_keyword_and_positional_forms() -> None:
    a, b = t([1.0, 2.0]), t([10.0, 20.0])
    np.testing.assert_array_equal(framework.add(a, b, alpha=2).numpy(), [21, 42])
    np.testing.assert_array_equal(framework.add(input=a, other=b).numpy(), [11, 22])
    np.testing.assert_array_equal(a.add(b, alpha=3).numpy(), [31, 62])
    np.testing.assert_array_equal(framework.add(a, 2, alpha=3).numpy(), [7, 8])
    np.testing.assert_array_equal(framework.div(a, b, rounding_mode="floor").numpy(), [0, 0])


# ---- out= and in-place -----------------------------------------------------------------------


def test_out_argument() -> None:
    a, b = t([1.0, 2.0]), t([3.0, 4.0])
    out = framework.empty(2)
    result = framework.add(a, b, out=out)
    assert result is out
    np.testing.assert_array_equal(out.numpy(), [4, 6])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        framework.add(a, b, out=framework.empty(2, dtype=framework.int64))
    resized = framework.empty(0)
    framework.mul(a, b, out=resized)
    assert resized.shape == (2,)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        framework.mul(a, b, out=framework.empty(5))


def test_in_place_operators() -> None:
    a = t([1.0, 2.0])
    same = a
    a += 1
    assert a is same
    np.testing.assert_array_equal(a.numpy(), [2, 3])
    a *= t([2.0, 2.0])
    np.testing.assert_array_equal(a.numpy(), [4, 6])
    i = t([1, 2], np.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i += 1.5
    with pytest.raises(
        RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"
    ):
        a.add_(t([[1.0, 2.0], [3.0, 4.0]]))


# ---- operators, broadcasting and promotion ---------------------------------------------------


def test_tensor_operators_against_numpy() -> None:
    x = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    y = np.array([2.0, -3.0, 0.5], np.float32)
    a, b = framework.from_numpy(x), framework.from_numpy(y)
    cases = {
        "add": (a + b, x + y),
        "radd": (1 + a, 1 + x),
        "sub": (a - b, x - y),
        "rsub": (2 - a, 2 - x),
        "mul": (a * b, x * y),
        "div": (a / b, x / y),
        "rdiv": (3 / b, (3 / y).astype(np.float32)),
        "pow": (a**2, x**2),
        "neg": (-a, -x),
        "abs": (abs(a), abs(x)),
        "lt": (a < b, x < y),
        "eq": (a == 1.5, x == 1.5),
        "mod": (a % 2, np.mod(x, np.float32(2))),
    }
    for name, (got, expected) in cases.items():
        assert got.dtype.numpy_dtype == expected.dtype, name
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, err_msg=name)


def test_broadcast_error_text() -> None:
    with pytest.raises(RuntimeError) as info:
        t(np.ones((2, 3))) + t(np.ones((2, 4)))
    assert (
        str(info.value)
        == "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    )


PROMOTION_CASES = [
    # (lhs, rhs, expected dtype name): dimensioned > zero-dim > Python numbers.
    (("int32", (2,)), 2.5, "float32"),
    (("int32", (2,)), ("float64", ()), "float64"),
    (("int8", (2,)), ("int64", ()), "int8"),
    (("uint8", (2,)), ("int8", (2,)), "int16"),
    (("float16", (2,)), ("float64", ()), "float16"),
    (("int64", ()), 2.5, "float32"),
    (("float32", ()), ("float64", ()), "float64"),
    (("bool", (2,)), 1, "int64"),
    (("bool", (2,)), ("int8", ()), "int8"),
    (("float32", (2,)), 1j, "complex64"),
    (("float64", (2,)), 1j, "complex128"),
    (("int64", (2,)), ("complex64", ()), "complex64"),
    (("float32", ()), 2, "float32"),
]


def _operand(spec: Any) -> Any:
    if isinstance(spec, tuple):
        name, shape = spec
        return framework.from_numpy(np.ones(shape, dtype=getattr(framework, name).numpy_dtype))
    return spec


@pytest.mark.parametrize(("lhs", "rhs", "expected"), PROMOTION_CASES)
def test_type_promotion_categories(lhs: Any, rhs: Any, expected: str) -> None:
    result = framework.add(_operand(lhs), _operand(rhs))
    assert result.dtype is getattr(framework, expected)
    if not isinstance(rhs, tuple) and lhs[0] != "bool":  # PyTorch refuses subtracting a bool tensor
        assert (_operand(rhs) - _operand(lhs)).dtype is getattr(framework, expected)


@pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")
@pytest.mark.parametrize(("lhs", "rhs", "expected"), PROMOTION_CASES)
def test_type_promotion_matches_torch(lhs: Any, rhs: Any, expected: str) -> None:
    import torch

    def torch_operand(spec: Any) -> Any:
        if isinstance(spec, tuple):
            name, shape = spec
            return torch.ones(shape, dtype=getattr(torch, name))
        return spec

    assert str(torch.add(torch_operand(lhs), torch_operand(rhs)).dtype) == f"torch.{expected}"


def test_meta_tensors_flow_through_pointwise_ops() -> None:
    m = framework.empty(2, 3, device="meta")
    r = (m + framework.empty(3, device="meta")) * 2
    assert r.device.type == "meta" and r.shape == (2, 3) and r.dtype is framework.float32
    assert (m == 1).dtype is framework.bool
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        m + t([1.0, 2.0, 3.0])


def test_unsupported_dtype_error() -> None:
    with pytest.raises(NotImplementedError, match=r"^\"bitwise_and_cpu\" not implemented for 'Float'$"):
        t([1.0]) & t([1.0])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not"):
        1 - t([True], np.bool_)
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -t([True], np.bool_)


def test_named_returns_are_named_tuples() -> None:
    x = t([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    result = x.max(1)
    assert type(result).__name__ == "max" and result._fields == ("values", "indices")
    np.testing.assert_array_equal(result.values.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(result.indices.numpy(), [1, 0])
    values, indices = framework.min(x, dim=0)
    np.testing.assert_array_equal(values.numpy(), [1.0, 0.0, 2.0])
    np.testing.assert_array_equal(indices.numpy(), [0, 1, 0])


def test_element_size_itemsize_nbytes() -> None:
    t = framework.ones(2, 3, dtype=framework.float64)
    assert (t.element_size(), t.itemsize, t.nbytes) == (8, 8, 48)
    assert framework.ones(5, dtype=framework.int16).nbytes == 10
