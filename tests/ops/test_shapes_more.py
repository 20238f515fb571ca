"""The shapes area (framework/ops/kernels/shapes_more.py, framework/functional.py): values against
NumPy, views sharing storage and version counter, and (with PyTorch installed) values, dtypes and
error texts against PyTorch."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import framework

A = np.arange(24.0).reshape(2, 3, 4)


def _t(values: Any = A) -> framework.Tensor:
    return framework.tensor(values)


def _np(t: framework.Tensor) -> np.ndarray:
    return np.asarray(t.tolist())


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("framework.repeat_interleave(x, 2, dim=1)", np.repeat(A, 2, axis=1)),
        ("x.repeat_interleave(framework.tensor([1, 0, 2]), dim=1)", np.repeat(A, [1, 0, 2], axis=1)),
        ("framework.repeat_interleave(framework.tensor([2, 1]))", np.array([0, 0, 1])),
        ("framework.tile(x, (2, 1))", np.tile(A, (2, 1))),
        ("framework.hstack([x, x])", np.hstack([A, A])),
        ("framework.vstack([x[0, 0], x[1, 1]])", np.vstack([A[0, 0], A[1, 1]])),
        ("framework.dstack([x[0], x[1]])", np.dstack([A[0], A[1]])),
        ("framework.column_stack([x[0, 0], x[0].t()])", np.column_stack([A[0, 0], A[0].T])),
        ("framework.concatenate([x, x], 2)", np.concatenate([A, A], 2)),
        ("framework.rot90(x, 1, [1, 2])", np.rot90(A, 1, (1, 2))),
        ("x.rot90(-1)", np.rot90(A, -1)),
        ("framework.fliplr(x)", np.fliplr(A)),
        ("framework.flipud(x)", np.flipud(A)),
        ("framework.ravel(x.transpose(0, 2))", A.transpose(2, 1, 0).ravel()),
        ("framework.diff(x, n=2, dim=1)", np.diff(A, 2, axis=1)),
        (
            "framework.diff(x, prepend=x[..., :1], append=x[..., :2])",
            np.diff(A, prepend=A[..., :1], append=A[..., :2]),
        ),
        ("framework.trapezoid(x, dx=0.5)", np.trapezoid(A, dx=0.5)),
        (
            "framework.trapezoid(x, framework.tensor([0.0, 1.0, 3.0]), dim=1)",
            np.trapezoid(A, [0, 1, 3], axis=1),
        ),
        ("framework.vander(framework.tensor([1, 2, 3]), 4)", np.vander([1, 2, 3], 4)),
        (
            "framework.vander(framework.tensor([1.0, 2.0]), increasing=True)",
            np.vander([1.0, 2.0], increasing=True),
        ),
        ("x.sum_to_size(3, 1)", A.sum(0).sum(1, keepdims=True)),
        ("x.unfold(2, 2, 1)", np.lib.stride_tricks.sliding_window_view(A, 2, axis=2)),
        ("x.unfold(1, 2, 2)", np.lib.stride_tricks.sliding_window_view(A, 2, axis=1)[:, ::2]),
        ("framework.combinations(framework.tensor([1, 2, 3]))", np.array([[1, 2], [1, 3], [2, 3]])),
        ("framework.broadcast_to(x[0, 0], (2, 4))", np.broadcast_to(A[0, 0], (2, 4))),
    ],
)
def test_values_match_numpy(expr: str, expected: np.ndarray) -> None:
    result = eval(expr, {"framework": framework, "x": _t()})
    np.testing.assert_allclose(_np(result), expected)


def test_cumulative_trapezoid_matches_running_trapezoid() -> None:
    y = _t()
    running = _np(framework.cumulative_trapezoid(y, dx=2.0, dim=1))
    np.testing.assert_allclose(running[:, -1], np.trapezoid(A, dx=2.0, axis=1))
    np.testing.assert_allclose(running[:, 0], (A[:, 0] + A[:, 1]))


def test_splits() -> None:
    x = _t()
    assert [p.shape[1] for p in framework.tensor_split(x, 2, dim=1)] == [2, 1]
    assert [p.shape[1] for p in x.tensor_split([1, 5, 0], dim=1)] == [1, 2, 0, 3]
    assert [p.shape[1] for p in x.tensor_split(framework.tensor([1, 2]), 1)] == [1, 1, 1]
    assert [p.shape[2] for p in framework.dsplit(x, 2)] == [2, 2]
    assert [p.shape[0] for p in framework.vsplit(x, [1])] == [1, 1]
    assert [p.shape[1] for p in x.hsplit(3)] == [1, 1, 1]


def test_views_share_storage_and_version() -> None:
    x = _t()
    for view in (x.unfold(1, 2, 1), framework.broadcast_to(x, (2, 2, 3, 4)), x.ravel(), x.tensor_split(2)[0]):
        assert view._is_view() and view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        version = view._version
        x.add_(1)
        assert view._version == version + 1


def test_unsafe_split_shares_storage_but_not_version() -> None:
    x = _t()
    pieces = framework.unsafe_split(x, 2, 1) + x.unsafe_chunk(2, 2) + x.unsafe_split_with_sizes([1, 2], 1)
    for piece in pieces:
        assert not piece._is_view() and piece.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        x.add_(1)
        assert piece._version == 0


def test_python_functions() -> None:
    v = framework.tensor([1.0, 2.0])
    assert framework.broadcast_shapes((2, 1), 3, [1, 1, 1]) == framework.Size([1, 2, 3])
    assert framework.broadcast_shapes() == framework.Size([])
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 3 at -1!"):
        framework.broadcast_shapes((2,), (3,))
    a, b = framework.broadcast_tensors(v, framework.ones(3, 1))
    assert a.shape == b.shape == (3, 2)
    assert framework.atleast_1d(v) is v
    assert [t.shape for t in framework.atleast_3d(v, framework.tensor(1.0))] == [(1, 2, 1), (1, 1, 1)]
    assert framework.atleast_2d([v])[0].shape == (1, 2)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grid = framework.meshgrid(v, framework.arange(3.0))
    assert [g.shape for g in grid] == [(2, 3), (2, 3)]
    assert [g.shape for g in framework.meshgrid([v, framework.arange(3.0)], indexing="xy")] == [
        (3, 2),
        (3, 2),
    ]


def test_meta_and_out() -> None:
    m = framework.empty(2, 3, 4, device="meta")
    assert m.unfold(1, 2, 1).shape == (2, 2, 4, 2)
    assert framework.rot90(m).shape == (3, 2, 4)
    assert framework.repeat_interleave(framework.tensor([1, 2], device="meta"), output_size=3).shape == (3,)
    out = framework.empty(0)
    framework.hstack([framework.ones(2), framework.zeros(1)], out=out)
    assert out.tolist() == [1.0, 1.0, 0.0]
    differences = framework.empty(0)
    framework.diff(framework.tensor([1.0, 4.0, 9.0]), out=differences)
    assert differences.tolist() == [3.0, 5.0]


_TORCH_CASES = [
    "torch.repeat_interleave(torch.tensor([1, -2]))",
    "torch.repeat_interleave(torch.tensor([1.0, 2]))",
    "torch.repeat_interleave(v, torch.tensor([1, 2]))",
    "torch.repeat_interleave(v, 2, output_size=7)",
    "torch.repeat_interleave(torch.tensor([1, 2], dtype=torch.int32))",
    "torch.tile(x, (2, 1, 1, 2))",
    "torch.meshgrid(v, torch.arange(3), indexing='xy')",
    "torch.meshgrid(v, v, indexing='ab')",
    "torch.tensor_split(x, 0, dim=1)",
    "torch.tensor_split(x, torch.tensor([1.0]), dim=1)",
    "torch.hsplit(v, 3)",
    "torch.vsplit(v, 2)",
    "torch.hstack([])",
    "torch.column_stack([torch.tensor(1.0), v[:1], x[0, :1]])",
    "torch.broadcast_tensors(v, torch.ones(3))",
    "torch.broadcast_shapes((-1,), (3,))",
    "torch.rot90(x, 1, [0, 0])",
    "torch.rot90(v)",
    "torch.fliplr(v)",
    "x.unfold(1, 4, 1)",
    "x.unfold(1, 2, 0)",
    "torch.tensor(5.0).unfold(0, 1, 1)",
    "torch.combinations(v, 3, with_replacement=True)",
    "torch.combinations(v, 0)",
    "torch.combinations(x)",
    "torch.diff(torch.tensor([True, False, False]))",
    "torch.diff(torch.tensor([1, 5, 2], dtype=torch.uint8))",
    "torch.diff(v, 5)",
    "torch.diff(v, prepend=torch.tensor(1.0))",
    "torch.diff(x, dim=1, append=torch.ones(2, 1, 3))",
    "torch.trapezoid(torch.tensor([1, 2, 3]))",
    "torch.trapezoid(torch.tensor([True, False]))",
    "torch.trapezoid(v, torch.tensor([0.0, 1]))",
    "torch.trapezoid(torch.ones(2, 0), dim=1)",
    "torch.trapz(v, dx=2)",
    "torch.cumulative_trapezoid(torch.tensor([1, 2, 3]))",
    "torch.cumulative_trapezoid(v, torch.tensor([0, 1, 3, 4]))",
    "torch.vander(torch.tensor([True, False]))",
    "torch.vander(torch.tensor([1, 2, 3]), -1)",
    "x.sum_to_size(1, 3, 4)",
    "x.sum_to_size(1, 1)",
    "x.new_empty_strided((2, 3), (1, 2), dtype=torch.int32).stride()",
]


def _outcome(module: Any, expr: str) -> Any:
    env = {"torch": module, "x": module.arange(24.0).reshape(2, 3, 4), "v": module.arange(4.0)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(expr, env)
    except Exception as e:
        return type(e).__name__, str(e)
    if isinstance(result, tuple):
        return result
    return result.tolist(), str(result.dtype).split(".")[1]


@pytest.mark.parametrize("expr", _TORCH_CASES)
def test_against_torch(expr: str) -> None:
    torch = pytest.importorskip("torch")
    assert _outcome(framework, expr) == _outcome(torch, expr)
