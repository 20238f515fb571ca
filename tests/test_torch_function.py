"""The `__torch_function__` protocol (framework.overrides): Tensor subclasses, duck types, modes.

Each scenario runs the same code on `framework` and, when installed, on torch: the recorded calls
(the `__name__` of `func` and the names of `types`), result types and error texts must agree. The
expected logs written here are the ones torch 2.13 gives, so the tests run without torch too."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework

Log = list[tuple[str, list[str]]]


def _logging_subclass(lib: Any, log: Log) -> type:
    class Logged(lib.Tensor):  # type: ignore[misc, name-defined]
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            log.append((func.__name__, [t.__name__ for t in types]))
            return super().__torch_function__(func, types, args, kwargs)

    return Logged


def _libraries() -> list[Any]:
    try:
        import torch
    except ImportError:
        return [framework]
    return [framework, torch]


def _other(lib: Any) -> Any:
    return lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])


# (name, call on (lib, F, x: Logged leaf, plain tensor), expected log, expected result type name)
CALLS: list[tuple[str, Callable[[Any, Any, Any, Any], Any], list[str], str]] = [
    ("function", lambda lib, F, x, p: lib.add(x, 1), ["add"], "Logged"),
    ("method", lambda lib, F, x, p: x.mul(2), ["mul"], "Logged"),
    ("operator", lambda lib, F, x, p: x + p, ["add"], "Logged"),
    ("plain + subclass", lambda lib, F, x, p: p + x, ["add"], "Logged"),
    ("reflected", lambda lib, F, x, p: 2 - x, ["__rsub__"], "Logged"),
    ("rpow", lambda lib, F, x, p: 2**x, ["__rpow__"], "Logged"),
    ("rtruediv", lambda lib, F, x, p: 2 / x, ["__rdiv__"], "Logged"),
    ("eq", lambda lib, F, x, p: x == 1, ["__eq__"], "Logged"),
    ("floordiv", lambda lib, F, x, p: x // 2, ["__floordiv__"], "Logged"),
    ("neg", lambda lib, F, x, p: -x, ["neg"], "Logged"),
    ("getitem", lambda lib, F, x, p: x[0], ["__getitem__"], "Logged"),
    ("view", lambda lib, F, x, p: x.view(3, 2), ["view"], "Logged"),
    ("shape", lambda lib, F, x, p: x.shape, ["__get__"], "Size"),
    ("dtype", lambda lib, F, x, p: x.dtype, ["__get__"], "dtype"),
    ("cat list", lambda lib, F, x, p: lib.cat([p, x]), ["cat"], "Logged"),
    ("max named tuple", lambda lib, F, x, p: x.max(0), ["max"], "max"),
    ("item", lambda lib, F, x, p: x.sum().item(), ["sum", "item"], "float"),
    ("relu", lambda lib, F, x, p: F.relu(x), ["relu"], "Logged"),
    ("mse_loss", lambda lib, F, x, p: F.mse_loss(x, p), ["mse_loss"], "Logged"),
]


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
@pytest.mark.parametrize(("name", "call", "expected", "result"), CALLS, ids=[c[0] for c in CALLS])
def test_logging_subclass(
    lib: Any, name: str, call: Callable[..., Any], expected: list[str], result: str
) -> None:
    log: Log = []
    logged = _logging_subclass(lib, log)
    x = _other(lib).as_subclass(logged)
    out = call(lib, lib.nn.functional, x, _other(lib))
    assert [f for f, _ in log] == expected
    assert all(names[0] == "Logged" for _, names in log)
    assert type(out).__name__ == result
    if name == "mse_loss":
        assert log[0][1] == ["Logged", "Tensor"]  # Python-level dispatch counts plain tensors
    if name == "max named tuple":
        assert type(out.values).__name__ == "Logged"


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_in_place_and_setitem_keep_the_object(lib: Any) -> None:
    log: Log = []
    x = _other(lib).as_subclass(_logging_subclass(lib, log))
    y = x
    y += 1
    x[0] = 0.5
    assert [f for f, _ in log] == ["add_", "__setitem__"]
    assert y is x
    np.testing.assert_allclose(np.asarray(x.tolist()), [[0.5, 0.5, 0.5], [5.0, 6.0, -5.0]])


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_autograd_through_a_subclass(lib: Any) -> None:
    log: Log = []
    logged = _logging_subclass(lib, log)
    x = _other(lib).as_subclass(logged).requires_grad_()
    assert x.is_leaf
    loss = (x * x).sum()
    assert type(loss).__name__ == "Logged"
    assert type(loss.grad_fn).__name__ == "AliasBackward0"  # as_subclass of the sum
    log.clear()
    loss.backward()
    assert [f for f, _ in log] == ["backward"]
    grad = x.grad
    assert type(grad) is lib.Tensor  # .grad is not converted (PyTorch's nowrap functions)
    np.testing.assert_allclose(grad.numpy(), 2 * _other(lib).numpy())


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_parameter_and_disabled_impl(lib: Any) -> None:
    impl = (
        lib.overrides._disabled_torch_function_impl
        if lib is framework
        else lib._C._disabled_torch_function_impl
    )

    class Plainish(lib.Tensor):  # type: ignore[misc, name-defined]
        __torch_function__ = impl

    p = lib.nn.Parameter(lib.ones(2))
    assert type(p * 2) is lib.Tensor
    assert type(lib.ones(2).as_subclass(Plainish) + 1) is lib.Tensor
    assert not lib.overrides.has_torch_function((p,))
    assert lib.overrides.has_torch_function((lib.ones(1).as_subclass(_logging_subclass(lib, [])),))
    assert not lib.overrides.has_torch_function_unary(lib.ones(1))


class _Diagonal:
    """PyTorch's documentation example: a diagonal matrix that is not a tensor."""

    def __init__(self, n: int, value: float) -> None:
        self.n, self.value = n, value

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func.__name__ not in ("mean", "add"):
            return NotImplemented
        d = args[0]
        if func.__name__ == "mean":
            return float(d.value) / d.n
        return "added"


def _disabled_subclass_impl(lib: Any) -> Any:
    return (
        lib.overrides.DisableTorchFunctionSubclass
        if lib is framework
        else lib._C.DisableTorchFunctionSubclass
    )


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_duck_type(lib: Any) -> None:
    d = _Diagonal(5, 2.0)
    assert lib.mean(d) == 0.4
    assert lib.add(d, 1) == "added"
    assert lib.overrides.is_tensor_like(d) and lib.overrides.is_tensor_like(lib.ones(1))
    assert not lib.overrides.is_tensor_like(3)
    with pytest.raises(TypeError) as error:
        lib.cat([lib.ones(1), d])
    assert str(error.value) == (
        "Multiple dispatch failed for 'torch.cat'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n  - tensor subclass {_Diagonal!r}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented"
    )
    with pytest.raises(TypeError, match=r"^Multiple dispatch failed for 'torch.Tensor.mul'"):
        lib.ones(1).mul(d)
    with pytest.raises(TypeError) as error:
        lib.nn.functional.relu(d)
    assert str(error.value) == (
        "no implementation found for 'torch.nn.functional.relu' on types that implement "
        f"__torch_function__: [{_Diagonal!r}]"
    )
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'Tensor' and '_Diagonal'"):
        lib.ones(1) * d
    with _disabled_subclass_impl(lib)(), pytest.raises(TypeError, match="must be Tensor, not _Diagonal"):
        lib.neg(d)


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_dispatch_order(lib: Any) -> None:
    order: list[str] = []

    class A:
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            order.append(cls.__name__)
            return NotImplemented

    class B(A):
        pass

    class C(A):
        pass

    with pytest.raises(TypeError) as error:
        lib.stack([A(), C(), B(), lib.ones(1)])
    assert order == ["C", "B", "A"]  # subclasses before superclasses, else left to right
    assert "  - tensor subclass" in str(error.value)


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_mode_counts_every_call(lib: Any) -> None:
    seen: list[tuple[str, tuple[str, ...]]] = []

    class Counting(lib.overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            seen.append((func.__name__, tuple(t.__name__ for t in types)))
            return func(*args, **(kwargs or {}))

    a = lib.ones(2, requires_grad=True)
    with Counting():
        b = a * 2 + 1
        _ = b.shape
        lib.nn.functional.relu(b).sum().backward()
        z = lib.zeros(2)
        logged = _logging_subclass(lib, [])  # defined while the mode is pushed
    assert seen == [
        ("mul", ()),
        ("add", ()),
        ("__get__", ("Tensor",)),
        ("relu", ("Tensor",)),
        ("sum", ()),
        ("backward", ("Tensor",)),
        ("zeros", ()),
    ]
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])
    assert type(lib.ones(1).as_subclass(logged)[0]).__name__ == "Logged"
    seen.clear()
    _ = (a + z).dim()
    assert seen == []  # popped: plain tensors take the fast paths again


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_mode_not_implemented(lib: Any) -> None:
    class Refusing(lib.overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    one = lib.ones(1)
    with Refusing() as mode, pytest.raises(TypeError) as error:
        lib.add(one, 1)
    assert str(error.value) == (
        "Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n  - mode object {mode!r}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented"
    )


@pytest.mark.parametrize("lib", _libraries(), ids=lambda lib: lib.__name__)
def test_disable_torch_function(lib: Any) -> None:
    log: Log = []
    x = lib.ones(2).as_subclass(_logging_subclass(lib, log))
    disable = lib.overrides.DisableTorchFunction if lib is framework else lib._C.DisableTorchFunction
    enabled = (
        lib.overrides._is_torch_function_enabled if lib is framework else lib._C._is_torch_function_enabled
    )
    with _disabled_subclass_impl(lib)():
        assert not enabled()
        assert type(x + 1) is lib.Tensor
    with disable():
        assert not enabled()
        assert type(x.neg()) is lib.Tensor
    assert enabled()
    assert log == []
    assert type(x + 1).__name__ == "Logged"


def test_handle_torch_function_in_python() -> None:
    """`has_torch_function`/`handle_torch_function` as a Python function uses them (also exported by
    framework.nn.functional)."""
    F = framework.nn.functional

    def scale(x: Any, k: float = 2.0) -> Any:
        if F.has_torch_function_unary(x):
            return F.handle_torch_function(scale, (x,), x, k=k)
        return x * k

    log: Log = []
    x = framework.ones(2).as_subclass(_logging_subclass(framework, log))
    out = scale(x)
    assert [f for f, _ in log] == ["scale"] and type(out).__name__ == "Logged"
    np.testing.assert_allclose(out.numpy(), [2.0, 2.0])
    assert F.has_torch_function_variadic(framework.ones(1), x)
    assert isinstance(framework.overrides.wrap_torch_function(lambda x: (x,))(scale), types.FunctionType)
