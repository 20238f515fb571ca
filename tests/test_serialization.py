"""`framework.save` / `framework.load` (safetensors): round trips, refusals, malformed files, and
files exchanged with PyTorch's safetensors."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import framework
import framework.nn as nn

torch: Any
try:
    import torch
    from safetensors.torch import load_file as torch_load_file
    from safetensors.torch import save_file as torch_save_file
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")


def _tensors() -> dict[str, framework.Tensor]:
    return {
        "f32": framework.arange(12).reshape(3, 4).float() / 3,
        "f64": framework.tensor([1.5, -2.25], dtype=framework.float64),
        "f16": framework.tensor([0.5, 65504.0], dtype=framework.float16),
        "i64": framework.tensor([[1, -(2**40)]]),
        "i32": framework.tensor([7], dtype=framework.int32),
        "i8": framework.tensor([-3], dtype=framework.int8),
        "u8": framework.tensor([255], dtype=framework.uint8),
        "bool": framework.tensor([True, False]),
        "scalar": framework.tensor(3.0),
        "empty": framework.zeros(0, 5),
        "strided": framework.arange(6).reshape(2, 3).t(),
    }


def _assert_same(loaded: dict[str, framework.Tensor], saved: dict[str, framework.Tensor]) -> None:
    assert set(loaded) == set(saved)
    for key, value in saved.items():
        assert loaded[key].dtype is value.dtype and loaded[key].shape == value.shape, key
        assert loaded[key].tolist() == value.tolist(), key


def test_round_trip_keeps_dtypes_shapes_and_values(tmp_path: Path) -> None:
    tensors = _tensors()
    path = tmp_path / "t.safetensors"
    framework.save(tensors, path)
    _assert_same(framework.load(path), tensors)
    framework.save(tensors, str(path))
    _assert_same(framework.load(str(path)), tensors)


def test_round_trip_through_a_file_object() -> None:
    tensors = _tensors()
    buffer = io.BytesIO()
    framework.save(tensors, buffer, metadata={"format": "pt"})
    buffer.seek(0)
    _assert_same(framework.load(buffer), tensors)


def test_model_state_dict_round_trip(tmp_path: Path) -> None:
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model.train()
    model[0].weight.grad = framework.ones(4, 3)
    path = tmp_path / "model.safetensors"
    framework.save(model.state_dict(keep_vars=True), path)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    assert repr(fresh.load_state_dict(framework.load(path))) == "<All keys matched successfully>"
    for (name, a), (_, b) in zip(model.state_dict().items(), fresh.state_dict().items(), strict=True):
        assert a.tolist() == b.tolist(), name


def test_loaded_tensors_are_writable_and_independent(tmp_path: Path) -> None:
    path = tmp_path / "t.safetensors"
    framework.save({"a": framework.ones(3)}, path)
    loaded = framework.load(path)["a"]
    loaded.add_(1)
    assert loaded.tolist() == [2.0, 2.0, 2.0] and framework.load(path)["a"].tolist() == [1.0, 1.0, 1.0]


def test_refusals() -> None:
    buffer = io.BytesIO()
    with pytest.raises(TypeError, match="the value of 'x' is a int, not a tensor"):
        framework.save({"x": 3}, buffer)  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="saves a dict of tensors"):
        framework.save([framework.ones(1)], buffer)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="keys must be strings"):
        framework.save({1: framework.ones(1)}, buffer)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="only CPU tensors can be saved"):
        framework.save({"m": framework.empty(2, device="meta")}, buffer)


@pytest.mark.parametrize("damage", ["truncated_header", "truncated_data", "garbage", "bad_json", "empty"])
def test_malformed_files_raise_an_error_naming_the_file(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "good.safetensors"
    framework.save({"a": framework.arange(100).float()}, path)
    data = path.read_bytes()
    header_size = int.from_bytes(data[:8], "little")
    damaged = {
        "truncated_header": data[: 8 + header_size // 2],
        "truncated_data": data[:-10],
        "garbage": b"\x00\x01not a safetensors file at all",
        "bad_json": data[:8] + b"{" * header_size + data[8 + header_size :],
        "empty": b"",
    }[damage]
    bad = tmp_path / f"{damage}.safetensors"
    bad.write_bytes(damaged)
    with pytest.raises(ValueError, match=f"{damage}.safetensors is not a valid safetensors file"):
        framework.load(bad)


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        framework.load("/nonexistent/file.safetensors")


@needs_torch
def test_files_from_torch_load(tmp_path: Path) -> None:
    path = tmp_path / "torch.safetensors"
    tensors = {
        "w": torch.randn(3, 4),
        "i": torch.arange(5),
        "b": torch.tensor([True]),
        "d": torch.randn(2, dtype=torch.float64),
    }
    torch_save_file(tensors, str(path))
    loaded = framework.load(path)
    for key, value in tensors.items():
        assert loaded[key].dtype.name == str(value.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())


@needs_torch
def test_our_files_load_in_torch(tmp_path: Path) -> None:
    path = tmp_path / "ours.safetensors"
    tensors = _tensors()
    framework.save(tensors, path)
    loaded = torch_load_file(str(path))
    for key, value in tensors.items():
        assert str(loaded[key].dtype).removeprefix("torch.") == value.dtype.name
        np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())
    model = torch.nn.Linear(3, 2)
    ours = nn.Linear(3, 2)
    framework.save(ours.state_dict(), path)
    model.load_state_dict(torch_load_file(str(path)))
    np.testing.assert_array_equal(model.weight.detach().numpy(), ours.weight.detach().numpy())


def test_bfloat16_and_conjugate_views_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "bf16.safetensors"
    weights = framework.tensor([[1.5, -2.25], [3.0, 1e-3]]).bfloat16()
    signal = framework.tensor([1 + 2j, 3 - 1j])
    framework.save({"w": weights, "z": signal.conj()}, path)
    loaded = framework.load(path)
    assert loaded["w"].dtype is framework.bfloat16
    np.testing.assert_array_equal(loaded["w"].float().numpy(), weights.float().numpy())
    assert not loaded["z"].is_conj()
    np.testing.assert_array_equal(loaded["z"].numpy(), [1 - 2j, 3 + 1j])


@needs_torch
def test_bfloat16_files_interchange_with_torch(tmp_path: Path) -> None:
    path = tmp_path / "bf16.safetensors"
    theirs = torch.randn(3, 4).bfloat16()
    torch_save_file({"w": theirs, "u": torch.zeros(3, dtype=torch.uint16)}, str(path))
    with pytest.raises(ValueError, match="'u' has safetensors dtype U16, which framework does not hold"):
        framework.load(path)
    torch_save_file({"w": theirs}, str(path))
    loaded = framework.load(path)["w"]
    assert loaded.dtype is framework.bfloat16
    np.testing.assert_array_equal(loaded.float().numpy(), theirs.float().numpy())
    framework.save({"w": loaded}, path)
    back = torch_load_file(str(path))["w"]
    assert back.dtype == torch.bfloat16 and torch.equal(back, theirs)
