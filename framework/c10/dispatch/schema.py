"""Operator schemas: the language of ``native_functions.yaml`` and ``torch._C.FunctionSchema``.

``parse_schema`` reads text such as
``aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`` into a frozen
``FunctionSchema``; ``str()`` prints PyTorch's canonical form of it, so canonical text (what
``str(torch._C.parse_schema(s))`` produces) round-trips exactly.
"""

from __future__ import annotations

import enum
import math
import re
from typing import NamedTuple, TypeAlias

import attrs

__all__ = [
    "AliasInfo",
    "Argument",
    "BaseTy",
    "BaseType",
    "CustomClassType",
    "FunctionSchema",
    "ListType",
    "OptionalType",
    "SchemaParseError",
    "SchemaType",
    "TensorKind",
    "parse_schema",
    "parse_type",
    "tensor_kind",
]


class SchemaParseError(ValueError):
    """Malformed schema text; ``column`` is the 0-based offset of the problem in ``text``."""

    def __init__(self, message: str, text: str, column: int) -> None:
        line_start = text.rfind("\n", 0, column) + 1
        line_end = text.find("\n", column)
        line = text[line_start : len(text) if line_end == -1 else line_end]
        caret = " " * (column - line_start) + "^"
        super().__init__(f"{message} at column {column}:\n  {line}\n  {caret}")
        self.text = text
        self.column = column


class BaseTy(enum.Enum):
    """Names of the built-in schema types."""

    Tensor = "Tensor"
    int = "int"
    SymInt = "SymInt"
    SymBool = "SymBool"
    float = "float"
    bool = "bool"
    str = "str"
    complex = "complex"
    Scalar = "Scalar"
    ScalarType = "ScalarType"
    Layout = "Layout"
    Device = "Device"
    DeviceIndex = "DeviceIndex"
    MemoryFormat = "MemoryFormat"
    Generator = "Generator"
    Dimname = "Dimname"
    QScheme = "QScheme"
    Storage = "Storage"
    Stream = "Stream"
    Any = "Any"


@attrs.frozen
class BaseType:
    """A built-in type such as ``Tensor`` or ``int``."""

    ty: BaseTy

    def __str__(self) -> str:
        return self.ty.value


@attrs.frozen
class CustomClassType:
    """A TorchScript class such as ``__torch__.torch.classes.quantized.Conv2dPackedParamsBase``."""

    name: str

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class OptionalType:
    """``T?``."""

    elem: SchemaType

    def __str__(self) -> str:
        return f"{self.elem}?"


@attrs.frozen
class ListType:
    """``T[]``, or ``T[N]`` when ``size`` is given."""

    elem: SchemaType
    size: int | None = None

    def __str__(self) -> str:
        return f"{self.elem}{_suffix_text(self)}"


SchemaType: TypeAlias = BaseType | OptionalType | ListType | CustomClassType


def _suffixes(t: SchemaType) -> tuple[SchemaType, list[OptionalType | ListType]]:
    """Split ``t`` into its innermost type and its ``?``/``[]`` wrappers, innermost first."""
    wrappers: list[OptionalType | ListType] = []
    while isinstance(t, OptionalType | ListType):
        wrappers.append(t)
        t = t.elem
    wrappers.reverse()
    return t, wrappers


def _suffix_text(wrapper: OptionalType | ListType) -> str:
    if isinstance(wrapper, OptionalType):
        return "?"
    return f"[{'' if wrapper.size is None else wrapper.size}]"


@attrs.frozen
class AliasInfo:
    """An alias annotation: ``(a)``, ``(a!)``, ``(a -> *)``, ``(a|b)``; ``*`` is the wildcard set."""

    before_set: tuple[str, ...]
    after_set: tuple[str, ...]
    is_write: bool = False

    def __str__(self) -> str:
        text = "|".join(self.before_set) + ("!" if self.is_write else "")
        if self.after_set != self.before_set:
            text += " -> " + "|".join(self.after_set)
        return f"({text})"


def _check_alias_position(arg: Argument, _attribute: object, position: int) -> None:
    if position == 0:
        return
    _, wrappers = _suffixes(arg.type)
    if arg.alias_info is None or position > len(wrappers) or not isinstance(wrappers[position - 1], ListType):
        raise ValueError(
            f"alias_position {position} of argument {arg.name!r} must be 0 or follow a '[]' of {arg.type}"
        )


@attrs.frozen
class Argument:
    """One argument or return of a schema.

    ``alias_position`` counts the ``?``/``[]`` suffixes written before the alias annotation:
    ``Tensor(a!)[]`` has 0, ``Tensor[](a!)`` has 1.
    """

    name: str
    type: SchemaType
    default: object = None
    has_default: bool = False
    kwarg_only: bool = False
    alias_info: AliasInfo | None = None
    alias_position: int = attrs.field(default=0, validator=_check_alias_position)

    def type_text(self) -> str:
        """The type as written in the schema, alias annotation included."""
        inner, wrappers = _suffixes(self.type)
        parts = [str(inner)] + [_suffix_text(wrapper) for wrapper in wrappers]
        if self.alias_info is not None:
            parts.insert(self.alias_position + 1, str(self.alias_info))
        return "".join(parts)

    def default_text(self) -> str:
        """The default value as PyTorch prints it (``1.``, ``[0, 1]``, ``"mean"``, ``None``).

        Like PyTorch, an ``int[N]`` default of N equal ints prints as one int (``int[2] padding=0``).
        """
        ty, value = self.type, self.default
        if (
            isinstance(ty, ListType)
            and ty.elem == BaseType(BaseTy.int)
            and ty.size is not None
            and ty.size > 1
            and isinstance(value, tuple)
            and len(value) == ty.size
            and isinstance(value[0], int)
            and value.count(value[0]) == ty.size
        ):
            return _format_value(value[0])
        return _format_value(value)

    def __str__(self) -> str:
        text = self.type_text()
        if self.name:
            text += " " + self.name
        if self.has_default:
            text += "=" + self.default_text()
        return text


@attrs.frozen
class FunctionSchema:
    """A parsed operator schema; ``name`` is qualified (``aten::add``) or bare (``add``)."""

    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False
    returns_tuple_of_one: bool = False
    """Written ``-> ((Tensor))``: the one return comes as a 1-tuple (custom operators inferred
    from a ``tuple[Tensor]`` annotation)."""

    @property
    def namespace(self) -> str:
        """``"aten"`` for ``aten::add``; ``""`` without a namespace."""
        namespace, sep, _ = self.name.partition("::")
        return namespace if sep else ""

    @property
    def qualified_overload(self) -> str:
        """``aten::add.Tensor``, or ``aten::relu`` when the overload name is empty."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def is_mutable(self) -> bool:
        """Whether any argument is written to (``Tensor(a!)``)."""
        return any(a.alias_info is not None and a.alias_info.is_write for a in self.arguments)

    @property
    def positional_arguments(self) -> tuple[Argument, ...]:
        """Arguments before the ``*`` marker."""
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only_arguments(self) -> tuple[Argument, ...]:
        """Arguments after the ``*`` marker."""
        return tuple(a for a in self.arguments if a.kwarg_only)

    def __str__(self) -> str:
        args: list[str] = []
        seen_kwarg_only = False
        for arg in self.arguments:
            if arg.kwarg_only and not seen_kwarg_only:
                args.append("*")
                seen_kwarg_only = True
            args.append(str(arg))
        if self.is_vararg:
            args.append("...")
        rets = [str(r) for r in self.returns] + (["..."] if self.is_varret else [])
        if self.returns_tuple_of_one:
            returns = f"(({rets[0]}))"
        else:
            returns = rets[0] if len(rets) == 1 else f"({', '.join(rets)})"
        return f"{self.qualified_overload}({', '.join(args)}) -> {returns}"


class TensorKind(enum.IntEnum):
    """How an argument type holds tensors, for computing dispatch keys."""

    NONE = 0
    TENSOR = 1
    OPTIONAL_TENSOR = 2
    TENSOR_LIST = 3
    OPTIONAL_TENSOR_LIST = 4


def tensor_kind(t: SchemaType) -> TensorKind:
    """Classify ``Tensor``, ``Tensor?``, ``Tensor[]`` and ``Tensor?[]``.

    Anything else is ``NONE``, ``Tensor[]?`` included: PyTorch's dispatch key extraction skips it too.
    """
    match t:
        case BaseType(BaseTy.Tensor):
            return TensorKind.TENSOR
        case OptionalType(BaseType(BaseTy.Tensor)):
            return TensorKind.OPTIONAL_TENSOR
        case ListType(BaseType(BaseTy.Tensor)):
            return TensorKind.TENSOR_LIST
        case ListType(OptionalType(BaseType(BaseTy.Tensor))):
            return TensorKind.OPTIONAL_TENSOR_LIST
        case _:
            return TensorKind.NONE


_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "t": "\t",
    "v": "\v",
}
_QUOTED = {char: "\\" + letter for letter, char in _ESCAPES.items()}


def _quote(text: str) -> str:
    out = []
    for char in text:
        if char in _QUOTED:
            out.append(_QUOTED[char])
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _format_float(x: float) -> str:
    if math.isfinite(x) and x.is_integer() and abs(x) < 1e10:
        return f"{int(x)}."
    text = f"{x:.17g}"
    return text + "." if text.lstrip("-").isdigit() else text


def _format_value(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _format_float(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_format_value(v) for v in value) + "]"
    raise TypeError(f"cannot write default value {value!r} in a schema")


_KEYWORDS = {"None": None, "True": True, "False": False}
# Identifier defaults PyTorch accepts for any type (their enum values), and dtype names for ScalarType.
_NAMED_CONSTANTS = {"float": 6, "complex": 9, "long": 4, "strided": 0, "Mean": 1, "contiguous_format": 0}
_DTYPE_NAMES = {
    "uint8": 0,
    "int8": 1,
    "int16": 2,
    "short": 2,
    "int32": 3,
    "int": 3,
    "int64": 4,
    "long": 4,
    "float16": 5,
    "half": 5,
    "float32": 6,
    "float": 6,
    "float64": 7,
    "double": 7,
    "complex32": 8,
    "chalf": 8,
    "complex64": 9,
    "cfloat": 9,
    "complex128": 10,
    "cdouble": 10,
    "bool": 11,
    "bfloat16": 15,
}


class _Kind(enum.Enum):
    NAME = enum.auto()
    NUMBER = enum.auto()
    STRING = enum.auto()
    PUNCT = enum.auto()
    END = enum.auto()


_KINDS = {kind.name: kind for kind in _Kind}


class _Token(NamedTuple):
    kind: _Kind
    text: str
    start: int
    value: str = ""

    def describe(self) -> str:
        return "end of input" if self.kind is _Kind.END else f"'{self.text}'"


# Every alternative after the whitespace can match, so ``_TOKEN.match`` never fails.
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<NAME>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<NUMBER>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
    | (?P<PUNCT>\.\.\.|->|::|[()\[\],?!|*=.-])
    | (?P<STRING>["'])
    | (?P<END>\Z)
    | (?P<ERROR>.)
    )""",
    re.VERBOSE | re.DOTALL,
)


class _Lexer:
    """Produces tokens on demand, so the first error in the text is the one reported."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.current = self._scan()

    def error(self, message: str, column: int) -> SchemaParseError:
        return SchemaParseError(message, self.text, column)

    def advance(self) -> _Token:
        token = self.current
        self.current = self._scan()
        return token

    def _scan(self) -> _Token:
        match = _TOKEN.match(self.text, self.pos)
        assert match is not None and match.lastgroup is not None
        group = match.lastgroup
        start = match.start(group)
        if group == "STRING":
            return self._string(start)
        if group == "ERROR":
            raise self.error(f"unexpected character {match.group(group)!r}", start)
        self.pos = match.end()
        return _Token(_KINDS[group], match.group(group), start)

    def _string(self, start: int) -> _Token:
        text, quote = self.text, self.text[start]
        chars: list[str] = []
        pos = start + 1
        while True:
            if pos >= len(text):
                raise self.error("unterminated string literal", start)
            char = text[pos]
            if char == quote:
                break
            if char != "\\":
                chars.append(char)
                pos += 1
                continue
            escape = text[pos + 1 : pos + 2]
            if escape in _ESCAPES:
                chars.append(_ESCAPES[escape])
                pos += 2
            elif escape and escape in "01234567":
                end = pos + 1
                while end < min(pos + 4, len(text)) and text[end] in "01234567":
                    end += 1
                chars.append(chr(int(text[pos + 1 : end], 8)))
                pos = end
            elif escape:
                raise self.error(f"invalid escape sequence '\\{escape}' in string literal", pos)
            else:
                pos += 1  # a backslash ends the text: reported as unterminated above
        self.pos = pos + 1
        return _Token(_Kind.STRING, text[start : pos + 1], start, "".join(chars))


class _Parser:
    """Recursive descent over the schema grammar, one token of lookahead."""

    def __init__(self, text: str) -> None:
        self.lexer = _Lexer(text)

    @property
    def tok(self) -> _Token:
        return self.lexer.current

    def at(self, punct: str) -> bool:
        # Only punctuation tokens have punctuation as their text (string tokens keep their quotes).
        return self.lexer.current.text == punct

    def accept(self, punct: str) -> bool:
        if self.at(punct):
            self.lexer.advance()
            return True
        return False

    def fail(self, expected: str) -> SchemaParseError:
        token = self.tok
        return self.lexer.error(f"expected {expected} but found {token.describe()}", token.start)

    def expect(self, punct: str, expected: str | None = None) -> None:
        if not self.accept(punct):
            raise self.fail(expected or f"'{punct}'")

    def name(self, expected: str) -> str:
        if self.tok.kind is not _Kind.NAME:
            raise self.fail(expected)
        return self.lexer.advance().text

    def end(self) -> None:
        if self.tok.kind is not _Kind.END:
            raise self.fail("end of input")

    def schema(self) -> FunctionSchema:
        name = self.name("an operator name")
        if self.accept("::"):
            name += "::" + self.name("an operator name after '::'")
        overload = ""
        if self.accept("."):
            token = self.tok
            overload = self.name("an overload name after '.'")
            # Reserved as in PyTorch: ``torch.ops.ns.op.default`` names the empty overload.
            if overload == "default" or overload.startswith("__"):
                raise self.lexer.error(f"'{overload}' is not a legal overload name", token.start)
        arguments, is_vararg = self.arguments()
        self.expect("->", "'->' and the returns")
        returns, is_varret, tuple_of_one = self.returns()
        self.end()
        return FunctionSchema(name, overload, arguments, returns, is_vararg, is_varret, tuple_of_one)

    def arguments(self) -> tuple[tuple[Argument, ...], bool]:
        self.expect("(")
        arguments: list[Argument] = []
        kwarg_only = is_vararg = seen_default = False
        if self.accept(")"):
            return (), False
        while True:
            token = self.tok
            if self.accept("*"):
                kwarg_only = True
            elif self.accept("..."):
                if seen_default:
                    raise self.lexer.error(
                        "schemas with vararg (...) can't have default value args", token.start
                    )
                is_vararg = True
                self.expect(")", "')' ('...' must be the last argument)")
                break
            else:
                argument = self.argument(kwarg_only)
                if seen_default and not argument.has_default and not kwarg_only:
                    raise self.lexer.error(
                        f"non-default positional argument '{argument.name}' follows default argument",
                        token.start,
                    )
                seen_default = seen_default or argument.has_default
                arguments.append(argument)
            if self.accept(")"):
                break
            self.expect(",", "',' or ')'")
        return tuple(arguments), is_vararg

    def returns(self) -> tuple[tuple[Argument, ...], bool, bool]:
        """The returns, whether they end with ``...``, whether they are a tuple of one."""
        if self.accept("..."):
            return (), True, False
        if not self.accept("("):
            return (self.result(),), False, False
        if self.accept("("):
            single = self.result()
            self.expect(")")
            self.expect(")")
            return (single,), False, True
        returns: list[Argument] = []
        if self.accept(")"):
            return (), False, False
        while True:
            if self.accept("..."):
                self.expect(")", "')' ('...' must be the last return)")
                return tuple(returns), True, False
            returns.append(self.result())
            if self.accept(")"):
                return tuple(returns), False, False
            self.expect(",", "',' or ')'")

    def argument(self, kwarg_only: bool) -> Argument:
        ty, alias, position = self.type(allow_alias=True)
        name = self.name("an argument name")
        if not self.accept("="):
            return Argument(name, ty, None, False, kwarg_only, alias, position)
        return Argument(name, ty, self.default(ty), True, kwarg_only, alias, position)

    def result(self) -> Argument:
        ty, alias, position = self.type(allow_alias=True)
        name = self.lexer.advance().text if self.tok.kind is _Kind.NAME else ""
        return Argument(name, ty, None, False, False, alias, position)

    def type(self, allow_alias: bool) -> tuple[SchemaType, AliasInfo | None, int]:
        token = self.tok
        base = self.name("a type")
        ty: SchemaType
        if base == "__torch__":
            self.expect(".", "'.' in a custom class name")
            base += "." + self.name("a custom class name")
            while self.accept("."):
                base += "." + self.name("a custom class name")
            ty = CustomClassType(base)
        elif base in BaseTy.__members__:
            ty = BaseType(BaseTy(base))
        else:
            raise self.lexer.error(f"unknown type '{base}'", token.start)
        alias: AliasInfo | None = None
        position = depth = 0
        while True:
            if allow_alias and self.at("(") and not isinstance(ty, OptionalType):
                if alias is not None:
                    raise self.lexer.error("a type takes at most one alias annotation", self.tok.start)
                alias, position = self.alias(), depth
            if self.accept("["):
                ty = ListType(ty, self.list_size())
            elif self.accept("?"):
                if isinstance(ty, OptionalType):
                    continue  # as in PyTorch, T?? is T?
                ty = OptionalType(ty)
            else:
                return ty, alias, position
            depth += 1

    def list_size(self) -> int | None:
        if self.accept("]"):
            return None
        token = self.tok
        if token.kind is not _Kind.NUMBER or not token.text.isdigit():
            raise self.fail("a list size or ']'")
        self.lexer.advance()
        self.expect("]")
        return int(token.text)

    def alias(self) -> AliasInfo:
        self.expect("(")
        before = self.alias_set()
        is_write = self.accept("!")
        if self.accept("->"):
            after = self.alias_set()
            self.expect(")", "'|' or ')'")
        else:
            after = before
            self.expect(")", "'|', '->' or ')'" if is_write else "'|', '!', '->' or ')'")
        return AliasInfo(before, after, is_write)

    def alias_set(self) -> tuple[str, ...]:
        names: list[str] = []
        while True:
            if self.accept("*"):
                names.append("*")
            else:
                names.append(self.name("an alias set name or '*'"))
            if not self.accept("|"):
                return tuple(names)

    def default(self, ty: SchemaType) -> object:
        if self.tok.kind is _Kind.NAME and self.tok.text == "None":
            self.lexer.advance()
            return None
        core = ty.elem if isinstance(ty, OptionalType) else ty
        if isinstance(core, BaseType) and core.ty in (BaseTy.Tensor, BaseTy.Generator):
            raise self.fail(f"None (the only default for {ty})")
        if isinstance(core, ListType):
            if self.at("["):
                return self.constant_list(core.elem)
            if core.size is None:
                raise self.fail(f"'[' or None (the default of {ty})")
            return (self.constant(core.elem),) * core.size
        return self.constant(core)

    def constant_list(self, elem: SchemaType) -> tuple[object, ...]:
        self.expect("[")
        values: list[object] = []
        if self.accept("]"):
            return ()
        while True:
            values.append(self.constant(elem))
            if self.accept("]"):
                return tuple(values)
            self.expect(",", "',' or ']'")

    def constant(self, ty: SchemaType) -> object:
        token = self.tok
        if token.kind is _Kind.STRING:
            self.lexer.advance()
            return token.value
        if token.kind is _Kind.NAME:
            self.lexer.advance()
            if token.text in _KEYWORDS:
                return _KEYWORDS[token.text]
            if ty == BaseType(BaseTy.ScalarType) and token.text in _DTYPE_NAMES:
                return _DTYPE_NAMES[token.text]
            if token.text in _NAMED_CONSTANTS:
                return _NAMED_CONSTANTS[token.text]
            raise self.lexer.error(f"invalid default value '{token.text}'", token.start)
        negative = self.accept("-")
        number = self.tok
        if number.kind is not _Kind.NUMBER:
            raise self.fail("a number after '-'" if negative else "a default value")
        self.lexer.advance()
        text = ("-" if negative else "") + number.text
        if ty == BaseType(BaseTy.float) or any(c in number.text for c in ".eE"):
            return float(text)
        return int(text)


def parse_schema(text: str) -> FunctionSchema:
    """Parse ``ns::name.overload(args) -> returns``; raises ``SchemaParseError``."""
    return _Parser(text).schema()


def parse_type(text: str) -> SchemaType:
    """Parse a type without alias annotation, such as ``Tensor?[]`` or ``int[2]``."""
    parser = _Parser(text)
    ty, _, _ = parser.type(allow_alias=False)
    parser.end()
    return ty
