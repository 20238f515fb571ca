"""The computed dispatch table reproduces PyTorch's PythonDispatcher on all 1,036 oracle cases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import framework
from framework.c10.dispatch.dispatcher import RegistrationError
from framework.library import Library, dispatch_table, dump_dispatch_table

ORACLE = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "dispatch_oracle_public.json").read_text()
)
# The oracle's XLA and Lazy are backends with their own autograd keys: PrivateUse1 and Meta here.
KEY_MAP = {
    "CPU": "CPU",
    "AutogradCPU": "AutogradCPU",
    "FPGA": "FPGA",
    "AutogradOther": "AutogradOther",
    "XLA": "PrivateUse1",
    "AutogradXLA": "AutogradPrivateUse1",
    "Lazy": "Meta",
    "AutogradLazy": "AutogradMeta",
    "CompositeExplicitAutograd": "CompositeExplicitAutograd",
    "Autograd": "Autograd",
    "CompositeImplicitAutograd": "CompositeImplicitAutograd",
}
ALIASES = ("CompositeExplicitAutograd", "Autograd", "CompositeImplicitAutograd")
RUNTIME = [k for k in ORACLE["keys"] if k not in ALIASES]


def _expected_source(value: str) -> str:
    """Oracle value -> this project's `dispatch_table` source."""
    if value == "[backend fallback]":
        return "fallback"
    if value.startswith("ambiguous_autogradother"):
        return "ambiguous"
    registered = value.split(" ")[0].removeprefix("fn_")
    return KEY_MAP[registered]


_counter = iter(range(10**9))


def _kernel(self: Any) -> Any:
    return self


@pytest.fixture
def lib() -> Iterator[Library]:
    library = Library("oracle_test", "DEF")
    yield library
    library._destroy()


def test_oracle_has_all_cases() -> None:
    assert len(ORACLE["cases"]) == 1036
    assert sum("error" in c for c in ORACLE["cases"]) == 262


@pytest.mark.parametrize("case", ORACLE["cases"], ids=lambda c: "+".join(c["register"]))
def test_oracle_case(case: dict[str, Any], lib: Library) -> None:
    name = f"op{next(_counter)}"
    lib.def_(f"{name}(Tensor self) -> Tensor")
    if "error" in case:
        with pytest.raises(RegistrationError) as info:
            for key in case["register"]:
                lib.impl(name, _kernel, KEY_MAP[key])
        assert str(info.value) == case["error"]
        return
    for key in case["register"]:
        lib.impl(name, _kernel, KEY_MAP[key])
    table = dispatch_table(f"oracle_test::{name}")
    got = {KEY_MAP[k]: table[KEY_MAP[k]] for k in RUNTIME if KEY_MAP[k] in table}
    expected = {KEY_MAP[k]: _expected_source(v) for k, v in case["table"].items()}
    assert got == expected, dump_dispatch_table(f"oracle_test::{name}")


def test_schema_arguments_may_use_any_name() -> None:
    """The generated dispatch function's own locals never shadow an argument (`mode`, `bits`...)."""
    with Library("namelib", "DEF") as lib:
        lib.def_("op(Tensor self, str mode, int bits, int kernel, int included) -> Tensor")

        @lib.impl("op", dispatch_key="CPU")
        def op_cpu(self: Any, mode: str, bits: int, kernel: int, included: int) -> Any:
            assert (mode, bits, kernel, included) == ("reflect", 3, 4, 5)
            return self

        x = framework.ones(2)
        assert framework.ops.namelib.op(x, "reflect", 3, 4, 5) is x
