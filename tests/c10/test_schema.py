"""Tests for the schema parser and printer (framework.c10.dispatch.schema)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.c10.dispatch.schema import (
    AliasInfo,
    Argument,
    BaseTy,
    BaseType,
    CustomClassType,
    FunctionSchema,
    ListType,
    OptionalType,
    SchemaParseError,
    SchemaType,
    TensorKind,
    parse_schema,
    parse_type,
    tensor_kind,
)

CORPUS = Path(__file__).resolve().parents[1] / "data" / "schemas_public.txt"

TENSOR = BaseType(BaseTy.Tensor)
INT = BaseType(BaseTy.int)


# --- the corpus ---------------------------------------------------------------------------------


def test_corpus_round_trips_exactly() -> None:
    assert CORPUS.is_file(), f"schema corpus not found at {CORPUS}"
    lines = CORPUS.read_text().splitlines()
    assert len(lines) == 1799
    failures: list[str] = []
    for line in lines:
        try:
            printed = str(parse_schema(line))
        except SchemaParseError as error:
            failures.append(f"{line}\n  raised: {error}")
            continue
        if printed != line:
            failures.append(f"{line}\n  printed: {printed}")
    assert not failures, f"{len(failures)} of {len(lines)} schemas fail:\n" + "\n".join(failures)


def test_corpus_reparses_to_equal_schemas() -> None:
    for line in CORPUS.read_text().splitlines():
        schema = parse_schema(line)
        assert parse_schema(str(schema)) == schema


# --- structure ----------------------------------------------------------------------------------


def test_add_tensor() -> None:
    s = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert s.name == "aten::add"
    assert s.overload_name == "Tensor"
    assert s.namespace == "aten"
    assert s.qualified_overload == "aten::add.Tensor"
    assert [a.name for a in s.arguments] == ["self", "other", "alpha"]
    self_, other, alpha = s.arguments
    assert self_ == Argument("self", TENSOR)
    assert other.type == TENSOR and not other.kwarg_only and not other.has_default
    assert alpha.type == BaseType(BaseTy.Scalar)
    assert alpha.kwarg_only and alpha.has_default
    assert alpha.default == 1 and type(alpha.default) is int
    assert s.positional_arguments == (self_, other)
    assert s.kwarg_only_arguments == (alpha,)
    assert s.returns == (Argument("", TENSOR),)
    assert not s.is_mutable and not s.is_vararg and not s.is_varret


def test_no_namespace_and_no_overload() -> None:
    s = parse_schema("add.Tensor(Tensor self) -> Tensor")
    assert (s.name, s.namespace, s.qualified_overload) == ("add", "", "add.Tensor")
    r = parse_schema("aten::relu(Tensor self) -> Tensor")
    assert (r.overload_name, r.qualified_overload) == ("", "aten::relu")


def test_named_tuple_returns() -> None:
    s = parse_schema(
        "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
    )
    assert s.returns == (Argument("values", TENSOR), Argument("indices", TENSOR))
    keepdim = s.arguments[2]
    assert keepdim.default is False and keepdim.has_default


def test_empty_and_vararg_returns() -> None:
    assert parse_schema("aten::foo(Tensor(a!) x) -> ()").returns == ()
    s = parse_schema("static_runtime::dict_unpack(...) -> ...")
    assert s.arguments == () and s.returns == ()
    assert s.is_vararg and s.is_varret
    t = parse_schema("f(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), ...)")
    assert t.is_varret and len(t.returns) == 1


def test_alias_annotations() -> None:
    s = parse_schema("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    assert s.arguments[0].alias_info == AliasInfo(("a",), ("a",), is_write=True)
    assert s.returns[0].alias_info == AliasInfo(("a",), ("a",), is_write=True)
    assert s.is_mutable

    chunk = parse_schema("aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]")
    assert chunk.arguments[0].alias_info == AliasInfo(("a",), ("*",), is_write=False)
    ret = chunk.returns[0]
    assert ret.type == ListType(TENSOR)
    assert ret.alias_info == AliasInfo(("a",), ("a",)) and ret.alias_position == 0
    assert not chunk.is_mutable

    element = parse_schema("f(Tensor(a!)[] out) -> ()").arguments[0]
    whole = parse_schema("f(Tensor[](a!) out) -> ()").arguments[0]
    assert element.type == whole.type == ListType(TENSOR)
    assert element.alias_info == whole.alias_info == AliasInfo(("a",), ("a",), True)
    assert (element.alias_position, whole.alias_position) == (0, 1)
    assert (element.type_text(), whole.type_text()) == ("Tensor(a!)[]", "Tensor[](a!)")

    optional = parse_schema("f(Tensor(b!)? x, Tensor(a|b -> *) y) -> ()").arguments
    assert optional[0].type == OptionalType(TENSOR) and optional[0].alias_position == 0
    assert optional[1].alias_info == AliasInfo(("a", "b"), ("*",))
    assert str(optional[1].alias_info) == "(a|b -> *)"


def test_types() -> None:
    args = parse_schema(
        "f(int[2] a, Tensor?[] b, SymInt[]? c, Dimname[]? d, __torch__.torch.classes.x.Y e, "
        "__torch__.torch.classes.rnn.CellParamsBase[] g, str[][] h) -> ()"
    ).arguments
    assert args[0].type == ListType(INT, 2)
    assert args[1].type == ListType(OptionalType(TENSOR))
    assert args[2].type == OptionalType(ListType(BaseType(BaseTy.SymInt)))
    assert args[3].type == OptionalType(ListType(BaseType(BaseTy.Dimname)))
    assert args[4].type == CustomClassType("__torch__.torch.classes.x.Y")
    assert args[5].type == ListType(CustomClassType("__torch__.torch.classes.rnn.CellParamsBase"))
    assert args[6].type == ListType(ListType(BaseType(BaseTy.str)))


@pytest.mark.parametrize(
    "text",
    [
        "Tensor",
        "Tensor?",
        "Tensor[]",
        "Tensor?[]",
        "int[2]",
        "SymInt[]?",
        "ScalarType?",
        "Layout?",
        "Device?",
        "MemoryFormat?",
        "Generator?",
        "Dimname[]?",
        "str",
        "float",
        "bool",
        "Any",
        "complex",
        "Storage",
        "Stream",
        "QScheme",
        "DeviceIndex",
        "SymBool",
        "bool[3]",
        "int[][2]",
        "Tensor[][]",
        "__torch__.torch.classes.c10d.ProcessGroup",
    ],
)
def test_parse_type_round_trips(text: str) -> None:
    assert str(parse_type(text)) == text


def test_type_str() -> None:
    assert str(OptionalType(TENSOR)) == "Tensor?"
    assert str(ListType(INT, 2)) == "int[2]"
    assert str(ListType(OptionalType(TENSOR))) == "Tensor?[]"
    assert str(OptionalType(ListType(BaseType(BaseTy.SymInt)))) == "SymInt[]?"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Tensor", TensorKind.TENSOR),
        ("Tensor?", TensorKind.OPTIONAL_TENSOR),
        ("Tensor[]", TensorKind.TENSOR_LIST),
        ("Tensor?[]", TensorKind.OPTIONAL_TENSOR_LIST),
        ("Tensor[]?", TensorKind.NONE),
        ("Tensor[][]", TensorKind.NONE),
        ("int", TensorKind.NONE),
        ("Scalar", TensorKind.NONE),
        ("int[]", TensorKind.NONE),
        ("__torch__.torch.classes.c10d.Work", TensorKind.NONE),
    ],
)
def test_tensor_kind(text: str, kind: TensorKind) -> None:
    assert tensor_kind(parse_type(text)) is kind


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("float x=1.", 1.0),
        ("float x=0.", 0.0),
        ("float x=0.33333333333333331", 0.33333333333333331),
        ("float x=1e-08", 1e-08),
        ("float x=1.0000000000000001e-05", 1e-05),
        ("float x=1", 1.0),
        ("float? x=-2.5", -2.5),
        ("Scalar x=1", 1),
        ("Scalar x=0.5", 0.5),
        ("int x=-100", -100),
        ("int[] x=[0,1]", (0, 1)),
        ("int[1] x=[-2, -1]", (-2, -1)),
        ("int[] x=[]", ()),
        ("int[2] x=1", (1, 1)),
        ("SymInt[3] x=[1, 1, 1]", (1, 1, 1)),
        ("bool[3] x=[True, False, True]", (True, False, True)),
        ("float[] x=[1, 2.5]", (1.0, 2.5)),
        ("int[]? x=None", None),
        ("Tensor? x=None", None),
        ("bool x=True", True),
        ("bool x=False", False),
        ('str x="mean"', "mean"),
        ("str x='mean'", "mean"),
        (r'str x="a\"b\n\101"', 'a"b\nA'),
        ("ScalarType x=long", 4),
        ("ScalarType? x=float32", 6),
        ("int reduction=Mean", 1),
        ("MemoryFormat x=contiguous_format", 0),
        ("Layout x=strided", 0),
    ],
)
def test_default_values(argument: str, value: object) -> None:
    arg = parse_schema(f"f({argument}) -> ()").arguments[0]
    assert arg.has_default
    assert arg.default == value
    assert type(arg.default) is type(value)
    if isinstance(value, tuple):
        assert isinstance(arg.default, tuple)
        assert [type(v) for v in arg.default] == [type(v) for v in value]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("f(float x=1.0) -> ()", "f(float x=1.) -> ()"),
        ("f(float x=1) -> ()", "f(float x=1.) -> ()"),
        ("f(float x=1e-5) -> ()", "f(float x=1.0000000000000001e-05) -> ()"),
        ("f(float x=.5) -> ()", "f(float x=0.5) -> ()"),
        ("f(int x=1e3) -> ()", "f(int x=1000.) -> ()"),
        ("f(Scalar x=10000000000.) -> ()", "f(Scalar x=10000000000.) -> ()"),
        ("f(str x='a') -> ()", 'f(str x="a") -> ()'),
        ("f(str x='a\"b') -> ()", r'f(str x="a\"b") -> ()'),
        (r'f(str x="a\'b") -> ()', r'f(str x="a\'b") -> ()'),
        ('f(str x="a\x01b") -> ()', r'f(str x="a\001b") -> ()'),
        ("f(int[2] padding=[0,0]) -> ()", "f(int[2] padding=0) -> ()"),
        ("f(int[2] padding=[ 0 , 1 ]) -> ()", "f(int[2] padding=[0, 1]) -> ()"),
        ("f(SymInt[2] x=1) -> ()", "f(SymInt[2] x=[1, 1]) -> ()"),
        ("f(float[2] x=1) -> ()", "f(float[2] x=[1., 1.]) -> ()"),
        ("f(int[] x=[0, 0]) -> ()", "f(int[] x=[0, 0]) -> ()"),
        ("f(int[2]? x=[0, 0]) -> ()", "f(int[2]? x=[0, 0]) -> ()"),
        ("f(int[2] x=[None, None]) -> ()", "f(int[2] x=[None, None]) -> ()"),
        ("f(Tensor x) -> (Tensor)", "f(Tensor x) -> Tensor"),
        ("f(Tensor x) -> (...)", "f(Tensor x) -> ..."),
        ("f(Tensor x, *) -> ()", "f(Tensor x) -> ()"),
        ("f(*, *, Tensor x) -> ()", "f(*, Tensor x) -> ()"),
        ("f(Tensor(a -> a) x) -> ()", "f(Tensor(a) x) -> ()"),
        ("f(Tensor(a->b) x) -> ()", "f(Tensor(a -> b) x) -> ()"),
        (" aten :: f . o ( Tensor [ ] x , int ? y ) ->( )", "aten::f.o(Tensor[] x, int? y) -> ()"),
        ("f(MemoryFormat? x=contiguous_format) -> ()", "f(MemoryFormat? x=0) -> ()"),
        ("f(Tensor x, Tensor x) -> ()", "f(Tensor x, Tensor x) -> ()"),
        ("f(int?? x=None) -> int??", "f(int? x=None) -> int?"),
        ("f(int x=1, *, int y, int z=2) -> ()", "f(int x=1, *, int y, int z=2) -> ()"),
    ],
)
def test_canonical_printing(text: str, canonical: str) -> None:
    schema = parse_schema(text)
    assert str(schema) == canonical
    assert parse_schema(canonical) == schema


def test_argument_str_and_validation() -> None:
    arg = Argument("out", ListType(TENSOR), alias_info=AliasInfo(("a",), ("a",), True), alias_position=1)
    assert str(arg) == "Tensor[](a!) out"
    assert str(Argument("x", ListType(INT, 2), (3, 3), has_default=True)) == "int[2] x=3"
    with pytest.raises(ValueError, match="alias_position"):
        Argument("x", OptionalType(TENSOR), alias_info=AliasInfo(("a",), ("a",)), alias_position=1)
    with pytest.raises(ValueError, match="alias_position"):
        Argument("x", TENSOR, alias_position=1)
    with pytest.raises(TypeError, match="cannot write default value"):
        str(Argument("x", INT, object(), has_default=True))


def test_schema_str_from_parts() -> None:
    schema = FunctionSchema(
        "mylib::op",
        "",
        (Argument("x", TENSOR), Argument("k", INT, 2, has_default=True, kwarg_only=True)),
        (Argument("a", TENSOR), Argument("b", TENSOR)),
    )
    assert str(schema) == "mylib::op(Tensor x, *, int k=2) -> (Tensor a, Tensor b)"


# --- errors -------------------------------------------------------------------------------------


def test_error_message_format() -> None:
    with pytest.raises(SchemaParseError) as info:
        parse_schema("aten::foo(Tensor x y) -> Tensor")
    error = info.value
    assert isinstance(error, ValueError)
    assert error.text == "aten::foo(Tensor x y) -> Tensor"
    assert error.column == 19
    assert str(error) == (
        "expected ',' or ')' but found 'y' at column 19:\n"
        "  aten::foo(Tensor x y) -> Tensor\n"
        "                     ^"
    )


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        # unclosed parenthesis
        ("aten::foo(Tensor x -> Tensor", 19, "expected ',' or ')' but found '->'"),
        ("aten::foo(Tensor x", 18, "expected ',' or ')' but found end of input"),
        # missing arrow
        ("aten::foo(Tensor x)", 19, "expected '->' and the returns but found end of input"),
        ("aten::foo(Tensor x) Tensor", 20, "expected '->' and the returns but found 'Tensor'"),
        # unknown type
        ("aten::foo(Tensr x) -> Tensor", 10, "unknown type 'Tensr'"),
        ("aten::foo(Tensor x) -> (Tensor a, Tensr b)", 34, "unknown type 'Tensr'"),
        # bad defaults
        ("aten::foo(Tensor x=1) -> Tensor", 19, "expected None (the only default for Tensor) but found '1'"),
        ("aten::foo(int[] x=1) -> Tensor", 18, "expected '[' or None (the default of int[]) but found '1'"),
        ("aten::foo(int x=foo) -> Tensor", 16, "invalid default value 'foo'"),
        ("aten::foo(int x=-a) -> Tensor", 17, "expected a number after '-' but found 'a'"),
        ("aten::foo(int x=) -> Tensor", 16, "expected a default value but found ')'"),
        ("aten::foo(int[] x=[1,]) -> Tensor", 21, "expected a default value but found ']'"),
        ("aten::foo(int[] x=[1 2]) -> Tensor", 21, "expected ',' or ']' but found '2'"),
        # stray tokens
        ("aten::foo(Tensor x y) -> Tensor", 19, "expected ',' or ')' but found 'y'"),
        ("aten::foo(Tensor x) -> Tensor y z", 32, "expected end of input but found 'z'"),
        ("aten::foo(Tensor x) -> Tensor x=None", 31, "expected end of input but found '='"),
        ("aten::foo(Tensor x) -> Tensor $", 30, "unexpected character '$'"),
        ("aten:foo(Tensor x) -> Tensor", 4, "unexpected character ':'"),
        # empty argument / missing pieces
        ("aten::foo(Tensor x, , int y) -> Tensor", 20, "expected a type but found ','"),
        ("aten::foo(Tensor x,) -> Tensor", 19, "expected a type but found ')'"),
        ("aten::foo(Tensor) -> Tensor", 16, "expected an argument name but found ')'"),
        ("aten::foo(Tensor x) -> (Tensor,)", 31, "expected a type but found ')'"),
        ("", 0, "expected an operator name but found end of input"),
        ("aten::(Tensor x) -> Tensor", 6, "expected an operator name after '::' but found '('"),
        ("aten::foo.(Tensor x) -> Tensor", 10, "expected an overload name after '.' but found '('"),
        # strings
        ('aten::foo(str s="mean) -> Tensor', 16, "unterminated string literal"),
        ("aten::foo(str s='mean\\", 16, "unterminated string literal"),
        (r'aten::foo(str s="a\qb") -> Tensor', 18, "invalid escape sequence '\\q' in string literal"),
        # alias annotations
        ("aten::foo(Tensor(a!!) x) -> Tensor", 19, "expected '|', '->' or ')' but found '!'"),
        ("aten::foo(Tensor() x) -> Tensor", 17, "expected an alias set name or '*' but found ')'"),
        ("aten::foo(Tensor(1) x) -> Tensor", 17, "expected an alias set name or '*' but found '1'"),
        ("aten::foo(Tensor(a x) -> Tensor", 19, "expected '|', '!', '->' or ')' but found 'x'"),
        ("aten::foo(Tensor(a -> ) x) -> Tensor", 22, "expected an alias set name or '*' but found ')'"),
        ("aten::foo(Tensor(a!->b c) x) -> Tensor", 23, "expected '|' or ')' but found 'c'"),
        ("aten::foo(Tensor?(a) x) -> Tensor", 17, "expected an argument name but found '('"),
        ("aten::foo(Tensor(a)[](b) x) -> Tensor", 21, "a type takes at most one alias annotation"),
        # varargs
        ("f(..., Tensor x) -> Tensor", 5, "expected ')' ('...' must be the last argument) but found ','"),
        ("f(Tensor x) -> (..., Tensor)", 19, "expected ')' ('...' must be the last return) but found ','"),
        ("f(int a=1, *, int b, ...) -> ()", 21, "schemas with vararg (...) can't have default value args"),
        # PyTorch's rule for positional defaults
        ("f(int a=1, int b) -> ()", 11, "non-default positional argument 'b' follows default argument"),
        # reserved overload names (``torch.ops.ns.op.default`` names the empty overload)
        ("aten::f.default(Tensor x) -> ()", 8, "'default' is not a legal overload name"),
        ("aten::f.__x(Tensor x) -> ()", 8, "'__x' is not a legal overload name"),
        # list sizes
        ("aten::foo(int[x] y) -> Tensor", 14, "expected a list size or ']' but found 'x'"),
        ("aten::foo(int[-1] y) -> Tensor", 14, "expected a list size or ']' but found '-'"),
        ("aten::foo(int[1.5] y) -> Tensor", 14, "expected a list size or ']' but found '1.5'"),
    ],
)
def test_parse_errors(text: str, column: int, message: str) -> None:
    with pytest.raises(SchemaParseError) as info:
        parse_schema(text)
    assert info.value.column == column
    assert str(info.value).startswith(f"{message} at column {column}:\n")
    assert str(info.value).endswith("\n  " + " " * column + "^")


@pytest.mark.parametrize(
    ("text", "column"),
    [("Tensor(a)", 6), ("Foo", 0), ("Tensor x", 7), ("", 0), ("__torch__", 9), ("int[", 4)],
)
def test_parse_type_errors(text: str, column: int) -> None:
    with pytest.raises(SchemaParseError) as info:
        parse_type(text)
    assert info.value.column == column


def test_first_error_in_text_order_wins() -> None:
    with pytest.raises(SchemaParseError, match="unknown type 'Tensr'"):
        parse_schema('aten::foo(Tensr x, str s="oops) -> Tensor')


# --- property: generated schemas round-trip -----------------------------------------------------

FIRST_CHARS = "abcxyzABCXYZ_"
IDENTIFIERS = st.builds(
    str.__add__, st.sampled_from(FIRST_CHARS), st.text(alphabet=FIRST_CHARS + "0123456789", max_size=7)
)
CUSTOM_CLASSES = st.builds(
    lambda ns, name: CustomClassType(f"__torch__.torch.classes.{ns}.{name}"), IDENTIFIERS, IDENTIFIERS
)
TYPES: st.SearchStrategy[SchemaType] = st.recursive(
    st.builds(BaseType, st.sampled_from(BaseTy)) | CUSTOM_CLASSES,
    lambda inner: (
        inner.map(lambda t: t if isinstance(t, OptionalType) else OptionalType(t))
        | st.builds(ListType, inner, st.none() | st.integers(0, 6))
    ),
    max_leaves=4,
)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
ANY_CONSTANT = st.none() | st.booleans() | st.integers() | FLOATS | st.text(max_size=6)
ALIAS_SET = st.lists(st.sampled_from(["a", "b", "c", "*"]), min_size=1, max_size=3).map(tuple)
ALIASES = st.builds(AliasInfo, ALIAS_SET, ALIAS_SET, st.booleans()) | ALIAS_SET.flatmap(
    lambda names: st.builds(AliasInfo, st.just(names), st.just(names), st.booleans())
)


def constants_for(t: SchemaType) -> st.SearchStrategy[object]:
    """Single default values that print and re-parse to themselves for an element of type ``t``."""
    if t == BaseType(BaseTy.float):
        return FLOATS
    if t in (INT, BaseType(BaseTy.SymInt)):
        return st.integers()
    if t == BaseType(BaseTy.bool):
        return st.booleans()
    if t == BaseType(BaseTy.str):
        return st.text(max_size=8)
    if t == BaseType(BaseTy.Scalar):
        return st.integers() | FLOATS
    return ANY_CONSTANT


def defaults_for(t: SchemaType) -> st.SearchStrategy[object]:
    core = t.elem if isinstance(t, OptionalType) else t
    if core in (TENSOR, BaseType(BaseTy.Generator)):
        return st.none()
    if isinstance(core, ListType):
        return st.none() | st.lists(constants_for(core.elem), max_size=4).map(tuple)
    return st.none() | constants_for(core)


def alias_positions(t: SchemaType) -> list[int]:
    """Where an annotation may sit: after the base type, or after any ``[]`` suffix."""
    wrappers: list[SchemaType] = []
    while isinstance(t, OptionalType | ListType):
        wrappers.append(t)
        t = t.elem
    wrappers.reverse()
    return [0] + [i + 1 for i, w in enumerate(wrappers) if isinstance(w, ListType)]


NEVER, ALWAYS, MAYBE = st.just(False), st.just(True), st.booleans()


@st.composite
def arguments(
    draw: st.DrawFn,
    has_default: st.SearchStrategy[bool],
    *,
    kwarg_only: bool = False,
    is_return: bool = False,
) -> Argument:
    ty = draw(TYPES)
    alias = draw(st.none() | ALIASES)
    position = draw(st.sampled_from(alias_positions(ty))) if alias is not None else 0
    name = draw(st.just("") | IDENTIFIERS) if is_return else draw(IDENTIFIERS)
    with_default = draw(has_default)
    default = draw(defaults_for(ty)) if with_default else None
    return Argument(name, ty, default, with_default, kwarg_only, alias, position)


@st.composite
def schemas(draw: st.DrawFn) -> FunctionSchema:
    """Well-formed schemas: defaulted positionals come last, and varargs exclude defaults."""
    name = draw(IDENTIFIERS)
    if draw(st.booleans()):
        name = f"{draw(IDENTIFIERS)}::{name}"
    is_vararg = draw(st.booleans())
    required = draw(st.lists(arguments(NEVER), max_size=3))
    optional = [] if is_vararg else draw(st.lists(arguments(ALWAYS), max_size=3))
    kwarg_only = draw(st.lists(arguments(NEVER if is_vararg else MAYBE, kwarg_only=True), max_size=3))
    returns = draw(st.lists(arguments(NEVER, is_return=True), max_size=4))
    overload = draw(st.just("") | IDENTIFIERS.filter(lambda n: n != "default" and not n.startswith("__")))
    return FunctionSchema(
        name,
        overload,
        tuple(required + optional + kwarg_only),
        tuple(returns),
        is_vararg,
        draw(st.booleans()),
    )


@settings(max_examples=300, deadline=None)
@given(schemas())
def test_generated_schemas_round_trip(schema: FunctionSchema) -> None:
    text = str(schema)
    parsed = parse_schema(text)
    assert str(parsed) == text
    assert parsed == schema


@settings(max_examples=200, deadline=None)
@given(TYPES)
def test_generated_types_round_trip(t: SchemaType) -> None:
    assert parse_type(str(t)) == t
