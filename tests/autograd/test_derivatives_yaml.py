"""derivatives.yaml is checked when it is loaded: every error names the file and line."""

from __future__ import annotations

import pytest

import framework
from framework.autograd.derivatives import (
    DERIVATIVES,
    DERIVATIVES_YAML,
    DerivativesError,
    formula_namespace,
    match_entries,
    parse_derivatives,
)
from framework.ops._native import NATIVE

NAMESPACE = formula_namespace()


def parse(text: str) -> None:
    parse_derivatives(text, "d.yaml", NAMESPACE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor\n  self: grad\n",
            "d.yaml:1: no operator in native_functions.yaml has the schema",
        ),
        (
            "- name: neg(Tensor self) -> Tensor\n  self: grad * undefined_thing\n",
            "d.yaml:1: aten::neg: the formula for 'self' names 'undefined_thing', which is not in its schema",
        ),
        (
            "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  self: grad\n",
            "d.yaml:1: aten::add.Tensor: the differentiable input 'other' has no formula",
        ),
        (
            "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
            "  self: grad\n  other: grad\n  alpha: grad\n",
            "d.yaml:1: aten::add.Tensor: 'alpha' is not a tensor input, so it has no gradient",
        ),
        (
            "- name: neg(Tensor self) -> Tensor\n  input: grad\n",
            "d.yaml:1: aten::neg: 'input' is not an argument of its schema",
        ),
        (
            "- name: neg(Tensor self) -> Tensor\n  self: grad +\n",
            "d.yaml:1: aten::neg: the formula for 'self' is not a Python expression",
        ),
        (
            "- name: neg(Tensor self) -> Tensor\n  self: -grad\n"
            "- name: neg(Tensor self) -> Tensor\n  self: -grad\n",
            "d.yaml:3: aten::neg already has an entry (line 1)",
        ),
        (
            "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n"
            "  self: grad\n  output_differentiability: [True]\n",
            "d.yaml:1: aten::max.dim: output_differentiability needs one True/False per output (2)",
        ),
        ("name: neg\n", "d.yaml: expected a list of entries"),
    ],
)
def test_malformed_entries_name_their_line(text: str, message: str) -> None:
    with pytest.raises(DerivativesError) as info:
        parse(text)
    assert str(info.value).startswith(message)


def test_comprehension_and_lambda_names_are_bound() -> None:
    parse(
        "- name: neg(Tensor self) -> Tensor\n  self: 'sum([g for g in [grad]], (lambda t: -t)(grad) * 0)'\n"
    )


def test_a_missing_entry_is_an_error_naming_the_schema() -> None:
    entries = [e for e in DERIVATIVES if e.key != "neg"]
    with pytest.raises(
        DerivativesError,
        match=r"no entry for 1 differentiable operator\(s\): aten::neg\(Tensor self\) -> Tensor",
    ):
        match_entries(entries, NATIVE, "d.yaml")


def test_composite_implicit_and_out_schemas_take_no_entry() -> None:
    composite = next(f for f in NATIVE if f.schema.qualified_overload == "aten::reshape")
    text = f"- name: {str(composite.schema).partition('::')[2]}\n  self: grad\n"
    with pytest.raises(DerivativesError, match="served by a CompositeImplicitAutograd kernel"):
        match_entries(parse_derivatives(text, "d.yaml", NAMESPACE), NATIVE, "d.yaml")
    out = next(f for f in NATIVE if f.schema.qualified_overload == "aten::neg.out")
    text = f"- name: {str(out.schema).partition('::')[2]}\n  self: -grad\n"
    with pytest.raises(DerivativesError, match="is an out= variant"):
        match_entries(parse_derivatives(text, "d.yaml", NAMESPACE), NATIVE, "d.yaml")


def test_the_shipped_file_is_loaded_and_node_names_follow_the_yaml_order() -> None:
    assert DERIVATIVES_YAML.exists()
    names = {e.key: e.node_name for e in DERIVATIVES}
    assert names["add.Tensor"] == "AddBackward0"
    assert names["sum"] == "SumBackward0"
    assert names["sum.dim_IntList"] == "SumBackward1"
    x = framework.ones(2, requires_grad=True)
    assert (x + x).grad_fn.name() == "AddBackward0"  # type: ignore[union-attr]


def test_only_what_formulas_read_is_saved() -> None:
    x = framework.ones(3, requires_grad=True)
    y = framework.ones(3, requires_grad=True)
    node = (x * y).grad_fn
    saved = node.saved  # type: ignore[union-attr]
    assert len(saved) == 2  # self and other (mul reads both)
    node = x.sum(0).grad_fn  # sum.dim_IntList reads only self's shape
    assert all(type(s).__name__ != "SavedVariable" for s in node.saved)  # type: ignore[union-attr]
