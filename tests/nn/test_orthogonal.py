"""nn.utils.parametrizations.orthogonal: orthonormal columns (rows for wide matrices) for each
map, PyTorch's initialization (the tensor's QR with a non-negative R diagonal), assignment,
errors; and the same numbers and gradients as PyTorch for one seed (when torch is importable)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import framework as torch
from framework import nn
from framework.nn.utils.parametrizations import orthogonal

_CASES = [((3, 3), "matrix_exp"), ((5, 3), "cayley"), ((5, 3), "householder"), ((3, 5), None)]


def _positive_qr(a: Any) -> Any:
    q, r = np.linalg.qr(a)
    return q * np.sign(np.diagonal(r))


@pytest.mark.parametrize(("shape", "orthogonal_map"), _CASES)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthonormal_and_initial_value(shape: Any, orthogonal_map: Any, use_trivialization: bool) -> None:
    torch.manual_seed(0)
    layer = nn.Linear(shape[1], shape[0], dtype=torch.float64)
    weight = layer.weight.detach().numpy().copy()
    orthogonal(layer, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    W = layer.weight.detach().numpy()
    tall = W if shape[0] >= shape[1] else W.T
    np.testing.assert_allclose(tall.T @ tall, np.eye(min(shape)), atol=1e-12)
    if use_trivialization or orthogonal_map == "householder":
        start = weight if shape[0] >= shape[1] else weight.T
        if shape[0] == shape[1] or orthogonal_map == "householder":
            np.testing.assert_allclose(tall, _positive_qr(start), atol=1e-12)
        assert hasattr(layer.parametrizations.weight[0], "base") == use_trivialization
    assert type(layer).__name__ == "ParametrizedLinear"


def test_gradient_step_keeps_orthogonality_and_assignment() -> None:
    torch.manual_seed(1)
    layer = orthogonal(
        nn.Linear(4, 6, dtype=torch.float64), orthogonal_map="householder", use_trivialization=False
    )
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.randn(2, 4, dtype=torch.float64)).pow(2).sum().backward()
    optimizer.step()
    W = layer.weight.detach().numpy()
    np.testing.assert_allclose(W.T @ W, np.eye(4), atol=1e-12)
    target = _positive_qr(np.random.default_rng(2).standard_normal((6, 4)))
    layer.weight = torch.tensor(target)
    np.testing.assert_allclose(layer.weight.detach().numpy(), target, atol=1e-12)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (
            lambda: orthogonal(nn.Linear(2, 2), name="nope"),
            ValueError,
            "has no parameter or buffer with name 'nope'",
        ),
        (lambda: orthogonal(nn.Linear(2, 2), name="bias"), ValueError, "Got a tensor of 1 dimensions."),
        (
            lambda: orthogonal(nn.Linear(2, 2), orthogonal_map="qr"),
            ValueError,
            "orthogonal_map has to be one of",
        ),
        (
            lambda: orthogonal(nn.Linear(2, 2, dtype=torch.complex64), orthogonal_map="householder"),
            ValueError,
            "The householder parametrization does not support complex tensors.",
        ),
    ],
)
def test_errors(make: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        make()


def test_assignment_errors() -> None:
    layer = orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix exponential"):
        layer.weight = torch.eye(3)
    with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices of shape"):
        orthogonal(nn.Linear(3, 3)).weight = torch.eye(2)


def test_same_as_torch() -> None:
    real_torch = pytest.importorskip("torch")
    for shape, orthogonal_map in _CASES:
        results = []
        for lib in (real_torch, torch):
            lib.manual_seed(4)
            layer = lib.nn.Linear(shape[1], shape[0], dtype=lib.float64)
            lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)
            layer.weight.sum().backward()
            results.append(
                (layer.weight.detach().numpy(), layer.parametrizations.weight.original.grad.numpy())
            )
        (w1, g1), (w2, g2) = results
        np.testing.assert_allclose(w2, w1, atol=1e-12)
        np.testing.assert_allclose(g2, g1, atol=1e-12)
