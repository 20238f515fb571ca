"""The session-10 pointwise operators (erf family, exp2, frac, sgn, signbit, deg2rad/rad2deg,
logit, nan_to_num, copysign, hypot, heaviside, logaddexp/logaddexp2, xlogy, pow with a Scalar
base, clip, square, float_power): values against NumPy and Python's math module (always) and
PyTorch (live, when installed), result dtypes, PyTorch's errors, out= and in-place variants."""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")

X = np.array([-7.5, -2.25, -1.0, -0.3, -0.0, 0.0, 1e-8, 0.4, 1.0, 2.6, 5.5, 30.0])
U = np.array([-1.0, -0.999999, -0.9, -0.5, -1e-9, 0.0, 0.3, 0.5, 0.75, 0.99, 0.9999999, 1.0])


def _t(values: Any, dtype: framework.dtype = framework.float64) -> framework.Tensor:
    return framework.tensor(np.asarray(values).tolist(), dtype=dtype)


@pytest.mark.parametrize(
    ("name", "reference"),
    [("erf", math.erf), ("erfc", math.erfc)],
)
def test_erf_erfc_match_math_to_a_few_ulp(name: str, reference: Callable[[float], float]) -> None:
    xs = np.concatenate([X, np.linspace(-27, 27, 2001)])
    got = getattr(framework, name)(_t(xs)).numpy()
    expected = np.array([reference(v) for v in xs])
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-300)


def test_erfinv_inverts_erf() -> None:
    got = framework.erfinv(_t(U)).numpy()
    assert got[0] == -np.inf and got[-1] == np.inf
    assert math.copysign(1.0, got[5]) == 1.0 and got[4] < 0
    inside = np.abs(U) < 1
    np.testing.assert_allclose([math.erf(v) for v in got[inside]], U[inside], rtol=2e-15, atol=1e-16)
    assert np.isnan(framework.erfinv(_t([1.5, -2.0, math.nan])).numpy()).all()


def test_erf_family_dtypes() -> None:
    ints = framework.tensor([0, 1, 2])
    for name in ("erf", "erfc", "erfinv", "exp2", "deg2rad", "rad2deg", "logit"):
        fn = getattr(framework, name)
        assert fn(ints).dtype == framework.float32, name
        assert fn(ints.to(framework.float16)).dtype == framework.float16, name
        assert fn(framework.tensor([True])).dtype == framework.float32, name
    for name in ("erf", "erfc", "erfinv"):
        with pytest.raises(
            NotImplementedError, match=f"\"{name}_vml_cpu\" not implemented for 'ComplexFloat'"
        ):
            getattr(framework, name)(framework.zeros(2, dtype=framework.complex64))


def test_exp2_frac_deg2rad() -> None:
    np.testing.assert_array_equal(framework.exp2(_t(X)).numpy(), np.exp2(X))
    np.testing.assert_array_equal(framework.frac(_t(X)).numpy(), X - np.trunc(X))
    np.testing.assert_allclose(framework.deg2rad(_t(X)).numpy(), np.deg2rad(X), rtol=1e-15)
    np.testing.assert_allclose(framework.rad2deg(_t(X)).numpy(), np.rad2deg(X), rtol=1e-15)
    with pytest.raises(NotImplementedError, match=re.escape("\"frac_cpu\" not implemented for 'Long'")):
        framework.frac(framework.tensor([1]))
    with pytest.raises(RuntimeError, match=re.escape("deg2rad is not supported for complex tensors.")):
        framework.deg2rad(framework.zeros(1, dtype=framework.complex64))
    with pytest.raises(
        RuntimeError, match=re.escape("result type Float can't be cast to the desired output type Long")
    ):
        framework.tensor([180]).deg2rad_()


def test_sgn_and_signbit() -> None:
    z = framework.tensor([3 + 4j, 0j, -2j])
    np.testing.assert_allclose(framework.sgn(z).numpy(), [0.6 + 0.8j, 0, -1j])
    np.testing.assert_array_equal(framework.sgn(_t(X)).numpy(), np.sign(X))
    assert framework.sgn(framework.tensor([True, False])).dtype == framework.bool
    bits = framework.signbit(_t([-0.0, 0.0, -1.0, math.nan, -math.inf]))
    assert bits.dtype == framework.bool and bits.tolist() == [True, False, True, False, True]
    assert framework.signbit(framework.tensor([-3, 0, 2])).tolist() == [True, False, False]
    with pytest.raises(
        NotImplementedError, match=re.escape("signbit is not implemented for complex tensors.")
    ):
        framework.signbit(z)


def test_logit() -> None:
    x = np.array([-0.5, 0.0, 0.3, 1.0, 2.0])
    with np.errstate(all="ignore"):
        plain = np.log(x / (1 - x))
        clamped = np.clip(x, 0.2, 0.8)
        eps = np.log(clamped / (1 - clamped))
    np.testing.assert_array_equal(framework.logit(_t(x)).numpy(), plain)
    np.testing.assert_allclose(framework.logit(_t(x), 0.2).numpy(), eps, rtol=1e-15)
    y = _t(x)
    assert y.logit_(eps=0.2) is y
    np.testing.assert_allclose(y.numpy(), eps, rtol=1e-15)


def test_nan_to_num() -> None:
    x = framework.tensor([math.nan, math.inf, -math.inf, 1.5], dtype=framework.float16)
    assert framework.nan_to_num(x).tolist() == [0.0, 65504.0, -65504.0, 1.5]
    assert x.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0).tolist() == [1.0, 2.0, -3.0, 1.5]
    big = np.finfo(np.float32).max
    z = framework.nan_to_num(framework.tensor([complex(math.nan, math.inf)], dtype=framework.complex64))
    assert z.tolist() == [complex(0.0, float(big))]
    ints = framework.tensor([1, 2])
    assert (
        framework.nan_to_num(ints).tolist() == [1, 2] and framework.nan_to_num(ints).dtype == framework.int64
    )
    x.nan_to_num_()
    assert x.tolist() == [0.0, 65504.0, -65504.0, 1.5]


def test_copysign_hypot_logaddexp() -> None:
    a, b = X, X[::-1].copy()
    np.testing.assert_array_equal(framework.copysign(_t(a), _t(b)).numpy(), np.copysign(a, b))
    assert framework.copysign(framework.tensor([1, 2]), -1).tolist() == [-1.0, -2.0]
    assert framework.copysign(framework.tensor([1, 2]), -1).dtype == framework.float32
    np.testing.assert_array_equal(framework.hypot(_t(a), _t(b)).numpy(), np.hypot(a, b))
    np.testing.assert_array_equal(framework.logaddexp(_t(a), _t(b)).numpy(), np.logaddexp(a, b))
    np.testing.assert_array_equal(framework.logaddexp2(_t(a), _t(b)).numpy(), np.logaddexp2(a, b))
    with pytest.raises(NotImplementedError, match=re.escape("\"hypot_cpu\" not implemented for 'Long'")):
        framework.hypot(framework.tensor([3]), framework.tensor([4]))
    with pytest.raises(NotImplementedError, match=re.escape("\"logaddexp_cpu\" not implemented for 'Int'")):
        framework.logaddexp(
            framework.tensor([3], dtype=framework.int32), framework.tensor([4], dtype=framework.int32)
        )
    with pytest.raises(
        NotImplementedError, match=re.escape("\"copysign_cpu\" not implemented for 'ComplexFloat'")
    ):
        framework.copysign(framework.zeros(1, dtype=framework.complex64), 1.0)
    inf = _t([math.inf, -math.inf])
    assert framework.logaddexp(inf, inf).tolist() == [math.inf, -math.inf]


def test_heaviside() -> None:
    x = framework.tensor([-1.5, 0.0, 2.0])
    assert framework.heaviside(x, framework.tensor([0.5])).tolist() == [0.0, 0.5, 1.0]
    assert framework.heaviside(framework.tensor([-2, 0, 3]), framework.tensor(7)).tolist() == [0, 7, 1]
    with pytest.raises(
        RuntimeError, match=re.escape("heaviside is not yet implemented for tensors with different dtypes.")
    ):
        framework.heaviside(framework.tensor([1, 0]), framework.tensor([0.5, 0.5]))
    with pytest.raises(
        RuntimeError, match=re.escape("heaviside is not yet implemented for complex tensors.")
    ):
        z = framework.zeros(1, dtype=framework.complex64)
        framework.heaviside(z, z)


def test_xlogy() -> None:
    x = _t([0.0, 0.0, 2.0, 1.0, 3.0])
    y = _t([math.nan, 0.0, 0.0, 5.0, 0.5])
    got = framework.xlogy(x, y).numpy()
    np.testing.assert_array_equal(got, [math.nan, 0.0, -math.inf, math.log(5.0), 3.0 * math.log(0.5)])
    r = framework.xlogy(2, framework.tensor([1, 2]))
    assert r.dtype == framework.float32
    np.testing.assert_allclose(r.numpy(), [0.0, 2 * math.log(2)], rtol=1e-6)
    assert framework.xlogy(framework.tensor([0, 2]), 3).dtype == framework.float32
    out = framework.empty(0, dtype=framework.float64)
    framework.xlogy(3.0, _t([1.0, math.e]), out=out)
    np.testing.assert_allclose(out.numpy(), [0.0, 3.0])
    x.xlogy_(2.0)
    np.testing.assert_allclose(x.numpy(), [0.0, 0.0, 2 * math.log(2), math.log(2), 3 * math.log(2)])


def test_pow_scalar_base_square_clip() -> None:
    assert framework.pow(2, framework.tensor([1, 2])).tolist() == [2, 4]
    assert framework.pow(2, framework.tensor([1, 2])).dtype == framework.int64
    assert framework.pow(2.5, framework.tensor([1, 2])).dtype == framework.float32
    assert framework.square(framework.tensor([True, False])).dtype == framework.int64
    assert framework.square(framework.tensor([-3, 2])).tolist() == [9, 4]
    with pytest.raises(
        RuntimeError, match=re.escape("result type Long can't be cast to the desired output type Bool")
    ):
        framework.tensor([True]).square_()
    x = framework.tensor([1, 5])
    assert framework.clip(x, 2.5).tolist() == [2.5, 5.0]
    assert x.clip(max=framework.tensor([3, 4])).tolist() == [1, 4]
    x.clip_(2, 3)
    assert x.tolist() == [2, 3]


def test_float_power() -> None:
    r = framework.float_power(framework.tensor([1.0, 2.0]), 2)
    assert r.dtype == framework.float64 and r.tolist() == [1.0, 4.0]
    assert framework.float_power(framework.tensor([2]), 0.5j).dtype == framework.complex128
    assert framework.float_power(2, framework.tensor([3])).tolist() == [8.0]
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"
        ),
    ):
        framework.tensor([1.0, 2.0]).float_power_(2)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "the output given to float_power has dtype Float but the operation's result requires dtype Double"
        ),
    ):
        framework.float_power(framework.tensor([1.0]), 2, out=framework.empty(1))


def test_grad_fn_names() -> None:
    x = framework.tensor([0.3, 0.6], requires_grad=True)
    assert framework.square(x).grad_fn.name() == "PowBackward0"
    assert framework.clip(x, 0.4).grad_fn.name() == "ClampBackward1"
    assert framework.float_power(2, x.double()).grad_fn.name() == "PowBackward2"
    assert framework.xlogy(2.0, x).grad_fn.name() == "XlogyBackward1"
    assert framework.signbit(x).grad_fn is None


CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("erf", lambda m, x: m.erf(x)),
    ("erfc", lambda m, x: m.erfc(x)),
    ("erfinv", lambda m, x: m.erfinv(x / 40)),
    ("exp2", lambda m, x: m.exp2(x)),
    ("frac", lambda m, x: m.frac(x)),
    ("sgn", lambda m, x: m.sgn(x)),
    ("signbit", lambda m, x: m.signbit(x)),
    ("deg2rad", lambda m, x: m.deg2rad(x)),
    ("rad2deg", lambda m, x: m.rad2deg(x)),
    ("logit", lambda m, x: m.logit(x / 40 + 0.5, 0.05)),
    ("nan_to_num", lambda m, x: m.nan_to_num(m.log(x))),
    ("copysign", lambda m, x: m.copysign(x, -x)),
    ("hypot", lambda m, x: m.hypot(x, x * 0.5)),
    ("logaddexp", lambda m, x: m.logaddexp(x, -x)),
    ("logaddexp2", lambda m, x: m.logaddexp2(x, x * 0.3)),
    ("xlogy", lambda m, x: m.xlogy(x, x * x)),
    ("float_power", lambda m, x: m.float_power(x, 3)),
    ("square", lambda m, x: m.square(x)),
]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "call"), CASES, ids=[c[0] for c in CASES])
def test_against_torch(name: str, call: Callable[[Any, Any], Any], dtype: str) -> None:
    import torch

    ours = call(framework, _t(X, getattr(framework, dtype)))
    theirs = call(torch, torch.tensor(X, dtype=getattr(torch, dtype)))
    assert str(ours.dtype).rpartition(".")[2] == str(theirs.dtype).rpartition(".")[2]
    rtol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=1e-30)


def test_isclose() -> None:
    a = _t([1.0, math.inf, math.nan, 1.0, -math.inf, 100.0])
    b = _t([1.0 + 1e-6, math.inf, math.nan, 1.1, math.inf, 100.001])
    assert framework.isclose(a, b).tolist() == [True, True, False, False, False, True]
    assert a.isclose(b, equal_nan=True).tolist() == [True, True, True, False, False, True]
    assert framework.isclose(a, b, rtol=0, atol=0).tolist() == [False, True, False, False, False, False]
    np.testing.assert_array_equal(
        framework.isclose(a, b, rtol=1e-3, atol=0.05).numpy(), np.isclose(a.numpy(), b.numpy(), 1e-3, 0.05)
    )
    ints = framework.isclose(framework.tensor([1, 2]), framework.tensor([2, 2]), atol=1)
    assert ints.tolist() == [True, True]
    assert framework.isclose(framework.tensor([True, False]), framework.tensor([True, True])).tolist() == [
        True,
        False,
    ]
    assert framework.isclose(_t([1.0, 2.0]), _t(2.0)).tolist() == [False, True]
    with pytest.raises(RuntimeError, match=re.escape("Long did not match Float")):
        framework.isclose(framework.tensor([1]), framework.tensor([1.0]))
    with pytest.raises(
        RuntimeError, match=re.escape("rtol must be greater than or equal to zero, but got -1")
    ):
        framework.isclose(a, b, rtol=-1)
    with pytest.raises(
        RuntimeError, match=re.escape("atol must be greater than or equal to zero, but got -0.5")
    ):
        framework.isclose(a, b, atol=-0.5)


def test_allclose_and_equal_return_python_bools() -> None:
    a = framework.tensor([1.0, 2.0], requires_grad=True)
    close = framework.allclose(a, framework.tensor([1.0, 2.00001]))
    assert close is True
    assert a.allclose(framework.tensor([1.0, 2.1])) is False
    assert framework.allclose(_t([math.nan]), _t([math.nan]), equal_nan=True) is True
    with pytest.raises(RuntimeError, match=re.escape("Float did not match Double")):
        framework.allclose(a, a.double())
    assert framework.equal(a, a) is True
    assert framework.equal(framework.tensor([1, 2]), framework.tensor([1.0, 2.0])) is True
    assert framework.tensor([1, 2]).equal(framework.tensor([1, 2, 3])) is False
    assert framework.equal(framework.tensor([1, 2]), framework.tensor([[1, 2]])) is False
    assert framework.equal(_t([math.nan]), _t([math.nan])) is False
