from oracle_fixtures import needs_torch

def test_x() -> None:
    assert needs_torch
