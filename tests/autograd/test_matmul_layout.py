"""The layout of matrix-product gradients: PyTorch's mm_mat1_backward/mm_mat2_backward return the
gradient of a column-major matrix (a transposed weight, as `linear` passes it) column by column,
so the weight's own gradient is contiguous and needs no copy, and they skip multiplying by an
alpha or beta of 1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor

Product = Callable[[Tensor, Tensor], Tensor]

PRODUCTS: dict[str, Product] = {
    "mm": lambda a, b: a.mm(b),
    "matmul": lambda a, b: a.matmul(b),
    "addmm": lambda a, b: framework.addmm(framework.zeros(b.shape[1], dtype=a.dtype), a, b),
    "addmm_alpha_beta": lambda a, b: framework.addmm(
        framework.ones(b.shape[1], dtype=a.dtype), a, b, beta=0.5, alpha=3.0
    ),
}


def _leaves(rng: np.random.Generator, column_major: tuple[bool, bool]) -> tuple[Tensor, Tensor]:
    """A (3, 4) and a (4, 5) leaf, each stored transposed (column by column) where asked."""
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((4, 5))
    stored = [
        framework.tensor(m.T.copy(), requires_grad=True).t()
        if cm
        else framework.tensor(m, requires_grad=True)
        for m, cm in zip((a, b), column_major, strict=True)
    ]
    return stored[0], stored[1]


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("column_major", [(False, False), (True, False), (False, True), (True, True)])
def test_gradient_strides_follow_the_inputs(name: str, column_major: tuple[bool, bool]) -> None:
    a, b = _leaves(np.random.default_rng(0), column_major)
    out = PRODUCTS[name](a, b)
    grad_out = framework.tensor(np.random.default_rng(1).standard_normal(out.shape))
    ga, gb = framework.autograd.grad(out, (a, b), grad_out)
    alpha = 3.0 if name == "addmm_alpha_beta" else 1.0
    if alpha == 1:  # else `* alpha` makes a contiguous copy (PyTorch's would keep the layout)
        for g, cm, rows in ((ga, column_major[0], 3), (gb, column_major[1], 4)):
            assert g.stride() == ((1, rows) if cm else (g.shape[1], 1))
    g = grad_out.numpy()
    np.testing.assert_allclose(ga.numpy(), alpha * g @ b.detach().numpy().T, rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), alpha * a.detach().numpy().T @ g, rtol=1e-12)


def test_linear_weight_gradient_is_contiguous_and_bias_gradient_is_summed() -> None:
    rng = np.random.default_rng(2)
    x = framework.tensor(rng.standard_normal((6, 4)))
    layer = framework.nn.Linear(4, 3).double()
    layer(x).pow(2).sum().backward()
    weight, bias = layer.weight, layer.bias
    assert weight.grad is not None and bias.grad is not None
    assert weight.grad.is_contiguous()
    y = x.numpy() @ weight.detach().numpy().T + bias.detach().numpy()
    np.testing.assert_allclose(weight.grad.numpy(), (2 * y).T @ x.numpy(), rtol=1e-12)
    np.testing.assert_allclose(bias.grad.numpy(), (2 * y).sum(0), rtol=1e-12)


def test_strides_match_pytorch() -> None:
    torch: Any = pytest.importorskip("torch")
    for name, product in PRODUCTS.items():
        if name == "addmm_alpha_beta":
            continue
        for column_major in [(False, False), (True, True), (True, False), (False, True)]:
            ours = _leaves(np.random.default_rng(3), column_major)
            theirs = [
                torch.tensor(t.detach().numpy().T.copy(), requires_grad=True).t()
                if cm
                else torch.tensor(t.detach().numpy(), requires_grad=True)
                for t, cm in zip(ours, column_major, strict=True)
            ]
            g_ours = framework.autograd.grad(product(*ours).sum(), ours)
            t_product = {
                "mm": lambda a, b: a.mm(b),
                "matmul": lambda a, b: a.matmul(b),
                "addmm": lambda a, b: torch.addmm(torch.zeros(b.shape[1], dtype=a.dtype), a, b),
                "addmm_alpha_beta": lambda a, b: torch.addmm(
                    torch.ones(b.shape[1], dtype=a.dtype), a, b, beta=0.5, alpha=3.0
                ),
            }[name]
            g_theirs = torch.autograd.grad(t_product(*theirs).sum(), theirs)
            assert [g.stride() for g in g_ours] == [g.stride() for g in g_theirs], (name, column_major)
