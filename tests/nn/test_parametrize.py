"""`framework.nn.utils.parametrize`, `parametrizations` and the legacy weight/spectral norm hooks:
the module structure (class swap, originals, state-dict keys), values against NumPy, messages,
and everything live against PyTorch from the same seeds when it is installed."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import needs_torch, torch

import framework
from framework.nn.utils import parametrize as P


def _close(x: Any, y: Any) -> bool:
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_close(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, float) or isinstance(y, float):
        return bool(np.isclose(x, y, rtol=1e-5, atol=1e-6))
    if isinstance(x, str) and isinstance(y, str):
        return x.replace("framework.", "torch.") == y.replace("framework.", "torch.")
    return bool(x == y)


def _run(torch: Any) -> dict[str, Any]:
    """The scenario, run with `torch` being PyTorch or framework."""
    nn = torch.nn
    P = nn.utils.parametrize
    out = {}

    class Sym(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    torch.manual_seed(0)
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Sym())
    out["cls"] = type(m).__name__
    out["repr"] = repr(m)
    out["sd"] = sorted(m.state_dict())
    out["params"] = [n for n, _ in m.named_parameters()]
    out["w"] = m.weight.tolist()
    out["grad_fn"] = type(m.weight.grad_fn).__name__
    out["isp"] = (P.is_parametrized(m), P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias"))
    P.register_parametrization(m, "weight", Scale())
    out["w2"] = m.weight.tolist()
    m.weight = torch.eye(3) * 4
    out["orig_after_set"] = m.parametrizations.weight.original.tolist()
    with P.cached():
        a = m.weight
        b = m.weight
        out["cached_same"] = a is b
    out["uncached_same"] = m.weight is m.weight
    y = m(torch.ones(1, 3)).sum()
    y.backward()
    out["orig_grad"] = m.parametrizations.weight.original.grad.tolist()
    P.remove_parametrizations(m, "weight")
    out["after_remove"] = (
        type(m).__name__,
        sorted(m.state_dict()),
        m.weight.tolist(),
        type(m.weight).__name__,
    )
    # leave_parametrized=False
    m2 = nn.Linear(2, 2)
    w0 = m2.weight.detach().clone()
    P.register_parametrization(m2, "weight", Scale())
    P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    out["leave_false"] = m2.weight.tolist() == w0.tolist()
    # buffer parametrization
    bn = nn.BatchNorm1d(2)
    P.register_parametrization(bn, "running_var", Scale(), unsafe=True)
    out["buf"] = (sorted(bn.state_dict()), bn.running_var.tolist())
    errs = []

    def e(fn):
        try:
            fn()
            errs.append(None)
        except Exception as ex:
            errs.append((type(ex).__name__, str(ex)))

    class Bad(nn.Module):
        def forward(self, X):
            return X[0]

    class Dt(nn.Module):
        def forward(self, X):
            return X.double()

    e(lambda: P.register_parametrization(nn.Linear(2, 2), "weight", Bad()))
    e(lambda: P.register_parametrization(nn.Linear(2, 2), "weight", Dt()))
    e(lambda: P.register_parametrization(nn.Linear(2, 2), "foo", Scale()))
    e(lambda: P.remove_parametrizations(nn.Linear(2, 2), "weight"))
    mm = nn.Linear(2, 2)
    P.register_parametrization(mm, "weight", Scale())
    e(lambda: P.register_parametrization(mm, "weight", Bad()))
    e(lambda: setattr(mm, "weight", torch.ones(2, 2)))
    out["errs"] = [x if x is None else (x[0], x[1].split("Module '")[0]) for x in errs]
    # weight_norm (parametrizations)
    torch.manual_seed(1)
    lin = nn.Linear(4, 3)
    nn.utils.parametrizations.weight_norm(lin)
    out["wn_fn"] = type(lin.weight.grad_fn).__name__
    out["wn"] = (
        sorted(lin.state_dict()),
        lin.parametrizations.weight.original0.tolist(),
        lin.weight.tolist(),
    )
    x = torch.randn(2, 4)
    lin(x).pow(2).sum().backward()
    out["wn_grads"] = (
        lin.parametrizations.weight.original0.grad.tolist(),
        lin.parametrizations.weight.original1.grad.tolist(),
    )
    conv = nn.Conv2d(2, 3, 2)
    nn.utils.parametrizations.weight_norm(conv, dim=1)
    out["wn_conv"] = conv.parametrizations.weight.original0.shape == (1, 2, 1, 1)
    lin2 = nn.Linear(3, 2)
    nn.utils.parametrizations.weight_norm(lin2, dim=None)
    out["wn_none"] = lin2.parametrizations.weight.original0.tolist()
    # spectral_norm (parametrizations)
    torch.manual_seed(2)
    lin = nn.Linear(5, 4)
    nn.utils.parametrizations.spectral_norm(lin)
    out["sn_init"] = (
        lin.parametrizations.weight[0]._u.tolist(),
        lin.parametrizations.weight[0]._v.tolist(),
        sorted(lin.state_dict()),
    )
    x = torch.randn(3, 5)
    lin(x).sum().backward()
    out["sn"] = (lin.weight.tolist(), lin.parametrizations.weight.original.grad.tolist())
    lin.eval()
    out["sn_eval"] = lin.weight.tolist()
    ct = nn.ConvTranspose2d(2, 3, 2)
    nn.utils.parametrizations.spectral_norm(ct)
    out["sn_ct"] = ct.parametrizations.weight[0].dim
    # legacy
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.manual_seed(3)
        lin = nn.utils.weight_norm(nn.Linear(4, 3))
        out["lwn_warn"] = [(c.category.__name__, str(c.message)) for c in w]
    out["lwn"] = ([n for n, _ in lin.named_parameters()], lin.weight_g.tolist(), type(lin.weight).__name__)
    x = torch.randn(2, 4)
    lin(x).sum().backward()
    out["lwn_grad"] = (lin.weight_g.grad.tolist(), lin.weight_v.grad.tolist())
    e2 = []
    try:
        nn.utils.weight_norm(lin)
    except Exception as ex:
        e2.append(str(ex))
    nn.utils.remove_weight_norm(lin)
    out["lwn_removed"] = ([n for n, _ in lin.named_parameters()], type(lin.weight).__name__)
    try:
        nn.utils.remove_weight_norm(lin)
    except Exception as ex:
        e2.append(str(ex).split(" in ")[0])
    torch.manual_seed(4)
    lin = nn.utils.spectral_norm(nn.Linear(4, 3))
    out["lsn"] = (
        [n for n, _ in lin.named_parameters()],
        [n for n, _ in lin.named_buffers()],
        lin.weight_u.tolist(),
        type(lin.weight).__name__,
    )
    x = torch.randn(2, 4)
    lin(x).sum().backward()
    out["lsn_grad"] = (lin.weight.tolist(), lin.weight_orig.grad.tolist())
    try:
        nn.utils.spectral_norm(lin)
    except Exception as ex:
        e2.append(str(ex))
    nn.utils.remove_spectral_norm(lin)
    out["lsn_removed"] = ([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
    try:
        nn.utils.remove_spectral_norm(lin)
    except Exception as ex:
        e2.append(str(ex).split(" in ")[0])
    out["e2"] = e2
    return out


@needs_torch
def test_parametrizations_match_pytorch() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got, want = _run(framework), _run(torch)
    assert got.keys() == want.keys()
    for key in want:
        assert _close(got[key], want[key]), key


class _Symmetric(framework.nn.Module):
    def forward(self, x: framework.Tensor) -> framework.Tensor:
        return x.triu() + x.triu(1).transpose(-1, -2)

    def right_inverse(self, a: framework.Tensor) -> framework.Tensor:
        return a.triu()


def test_register_parametrization_structure_and_values() -> None:
    m = framework.nn.Linear(3, 3)
    w = m.weight.detach().numpy().copy()
    P.register_parametrization(m, "weight", _Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(m) is framework.nn.Linear
    assert isinstance(m, framework.nn.Linear)
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    np.testing.assert_allclose(m.weight.detach().numpy(), np.triu(w) + np.triu(w, 1).T)
    assert type(m.weight.grad_fn).__name__ == "AddBackward0"
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    replica = copy.deepcopy(m)
    assert type(replica).__name__ == "ParametrizedLinear"
    np.testing.assert_allclose(replica.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through"):
        pickle.dumps(m)
    P.remove_parametrizations(m, "weight")
    assert type(m) is framework.nn.Linear
    assert isinstance(m.weight, framework.nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), np.triu(w) + np.triu(w, 1).T)


def test_weight_norm_values() -> None:
    lin = framework.nn.utils.parametrizations.weight_norm(framework.nn.Linear(4, 3))
    g = lin.parametrizations.weight.original0.detach().numpy()
    v = lin.parametrizations.weight.original1.detach().numpy()
    np.testing.assert_allclose(g, np.linalg.norm(v, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(lin.weight.detach().numpy(), v, rtol=1e-6)
    assert type(lin.weight.grad_fn).__name__ == "WeightNormInterfaceBackward0"
    x = np.random.default_rng(0).normal(size=(2, 3, 4))
    for dim, axes in ((1, (0, 2)), (2, (0, 1)), (-1, (0, 1, 2))):
        got = framework.norm_except_dim(framework.from_numpy(x), 2, dim).numpy()
        np.testing.assert_allclose(got, np.sqrt((x * x).sum(axis=axes, keepdims=dim != -1)), rtol=1e-12)
    conv = framework.nn.utils.parametrizations.weight_norm(framework.nn.Conv1d(2, 3, 2), dim=1)
    assert type(conv.weight.grad_fn).__name__ == "MulBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with pytest.raises(FutureWarning, match="is deprecated in favor of"):
            framework.nn.utils.weight_norm(framework.nn.Linear(2, 2))


def test_spectral_norm_reaches_largest_singular_value() -> None:
    lin = framework.nn.utils.parametrizations.spectral_norm(framework.nn.Linear(5, 4), n_power_iterations=30)
    weight = lin.parametrizations.weight.original.detach().numpy()
    sigma = np.linalg.svd(weight, compute_uv=False)[0]
    np.testing.assert_allclose(lin.weight.detach().numpy(), weight / sigma, rtol=1e-4)
    legacy = framework.nn.utils.spectral_norm(framework.nn.Linear(5, 4), n_power_iterations=50)
    legacy(framework.randn(1, 5))
    original = legacy.weight_orig.detach().numpy()
    np.testing.assert_allclose(
        legacy.weight.detach().numpy(), original / np.linalg.svd(original, compute_uv=False)[0], rtol=1e-4
    )


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: framework.nn.utils.parametrizations.spectral_norm(framework.nn.Linear(2, 2), dim=2),
            IndexError,
            r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)",
        ),
        (
            lambda: framework.nn.utils.parametrizations.spectral_norm(framework.nn.Linear(2, 2), "foo"),
            ValueError,
            "has no parameter or buffer with name 'foo'",
        ),
        (
            lambda: framework.nn.utils.spectral_norm(framework.nn.Linear(2, 2), n_power_iterations=0),
            ValueError,
            "Expected n_power_iterations to be positive, but got n_power_iterations=0",
        ),
        (
            lambda: framework.nn.utils.remove_spectral_norm(framework.nn.Linear(2, 2)),
            ValueError,
            "spectral_norm of 'weight' not found in",
        ),
    ],
)
def test_errors(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()
