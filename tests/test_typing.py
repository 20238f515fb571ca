"""Programs that embed framework type-check under mypy --strict through the shipped stubs."""

from __future__ import annotations

from pathlib import Path

from mypy import api

HERE = Path(__file__).resolve().parent / "typing"


def _mypy(path: Path) -> tuple[str, int]:
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "--no-error-summary", str(path)])
    return stdout + stderr, status


def test_a_correct_program_passes_strict_checking() -> None:
    output, status = _mypy(HERE / "good_program.py")
    assert status == 0, output


def test_misuse_is_reported() -> None:
    output, status = _mypy(HERE / "bad_program.py")
    assert status == 1
    lines = [line for line in output.splitlines() if "error:" in line]
    assert any("bad_program.py:8:" in line and "exp" in line for line in lines), output
    assert any("bad_program.py:9:" in line and "Tensor" in line for line in lines), output
    assert any("bad_program.py:10:" in line for line in lines), output


def test_the_correct_program_runs() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("good_program", HERE / "good_program.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main() > 0
