"""The Library API, framework.ops, the dispatcher's calling conventions and its errors."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor
from framework.c10.dispatch import RegistrationError, dispatcher
from framework.c10.dispatch_key import AFTER_AUTOGRAD_KEYS, DispatchKey, DispatchKeySet
from framework.c10.local_dispatch_key_set import (
    AutoDispatchBelowAutograd,
    ExcludeDispatchKeyGuard,
    IncludeDispatchKeyGuard,
)
from framework.c10.tensor_impl import TensorImpl
from framework.library import Library, dispatch_table, dump_dispatch_table, fallthrough_kernel

_count = iter(range(10**9))


@pytest.fixture
def ns() -> str:
    return f"libtest{next(_count)}"


@pytest.fixture
def lib(ns: str) -> Iterator[Library]:
    library = Library(ns, "DEF")
    yield library
    library._destroy()


def cpu(*values: float) -> Tensor:
    return framework.from_numpy(np.array(values, dtype=np.float32))


def meta(n: int) -> Tensor:
    return Tensor(TensorImpl.empty((n,), framework.float32, framework.device("meta")))


def double(self: Tensor) -> Tensor:
    return framework.from_numpy(self.numpy() * 2)


# ---- def_ / impl / calls -------------------------------------------------------------------


def test_define_impl_and_call_through_ops(lib: Library, ns: str) -> None:
    assert lib.def_("scale(Tensor self, float factor=2.0, *, bool negate=False) -> Tensor") == f"{ns}::scale"

    @lib.impl("scale", dispatch_key="CPU")
    def scale_cpu(self: Tensor, factor: float = 2.0, *, negate: bool = False) -> Tensor:
        out = self.numpy() * factor
        return framework.from_numpy(-out if negate else out)

    x = cpu(1, 2, 3)
    packet = getattr(framework.ops, ns).scale
    np.testing.assert_array_equal(packet(x).numpy(), [2, 4, 6])
    np.testing.assert_array_equal(packet(x, 3.0).numpy(), [3, 6, 9])
    np.testing.assert_array_equal(packet(x, factor=0.5, negate=True).numpy(), [-0.5, -1, -1.5])
    np.testing.assert_array_equal(packet.default(self=x).numpy(), [2, 4, 6])
    assert packet.overloads() == ["default"]
    assert packet.default.name == f"{ns}::scale.default"
    assert repr(packet.default) == f"<OpOverload(op='{ns}.scale', overload='default')>"


def test_overload_packet_picks_the_overload_that_fits(lib: Library, ns: str) -> None:
    lib.def_("combine.Tensor(Tensor self, Tensor other) -> Tensor")
    lib.def_("combine.Scalar(Tensor self, Scalar other) -> Tensor")
    lib.def_("combine.list(Tensor self, int[2] sizes) -> Tensor")
    lib.impl("combine.Tensor", lambda self, other: framework.from_numpy(self.numpy() + other.numpy()), "CPU")
    lib.impl("combine.Scalar", lambda self, other: framework.from_numpy(self.numpy() * other), "CPU")
    lib.impl("combine.list", lambda self, sizes: framework.from_numpy(np.array(sizes, np.int64)), "CPU")
    op = getattr(framework.ops, ns).combine
    assert op.overloads() == ["Tensor", "Scalar", "list"]
    x = cpu(1, 2)
    np.testing.assert_array_equal(op(x, cpu(10, 20)).numpy(), [11, 22])
    np.testing.assert_array_equal(op(x, 3).numpy(), [3, 6])
    np.testing.assert_array_equal(op(x, [4, 5]).numpy(), [4, 5])
    np.testing.assert_array_equal(op(x, sizes=7).numpy(), 7)  # an int where int[2] is expected
    with pytest.raises(TypeError) as info:
        op(x, "nope")
    message = str(info.value)
    assert message.startswith(
        f"{ns}::combine() received an invalid combination of arguments - got (Tensor, str)"
    )
    for overload in ("Tensor", "Scalar", "list"):
        assert f" * {ns}::combine.{overload}(" in message
    with pytest.raises(AttributeError, match="has no overload name 'Float'"):
        _ = op.Float


def test_unknown_operator_in_namespace(ns: str) -> None:
    with pytest.raises(AttributeError, match=f"'{ns}' object has no attribute 'missing'"):
        _ = getattr(framework.ops, ns).missing


def test_kernel_for_undefined_operator_is_refused(lib: Library, ns: str) -> None:
    with pytest.raises(
        RegistrationError, match=f"cannot register a kernel for {ns}::nothing: the operator was never defined"
    ):
        lib.impl("nothing", double, "CPU")


def test_kernel_whose_signature_cannot_take_the_arguments_is_refused(lib: Library, ns: str) -> None:
    lib.def_("two(Tensor self, Tensor other, *, int k=1) -> Tensor")

    def one_arg(self: Tensor) -> Tensor:
        return self

    def no_k(self: Tensor, other: Tensor) -> Tensor:
        return self

    with pytest.raises(TypeError, match=r"cannot take the arguments of .*::two"):
        lib.impl("two", one_arg, "CPU")
    with pytest.raises(TypeError, match="keyword-only"):
        lib.impl("two", no_k, "CPU")
    lib.impl("two", lambda a, b, **kw: a, "CPU")  # anything that can bind is accepted
    lib.impl("two", lambda ks, a, b, *, k=1: a, "AutogradCPU", with_keyset=True)


def test_two_def_libraries_for_one_namespace_are_refused(lib: Library, ns: str) -> None:
    with pytest.raises(
        RegistrationError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}"
    ):
        Library(ns, "DEF")
    fragment = Library(ns, "FRAGMENT")
    fragment.def_("extra(Tensor self) -> Tensor")
    fragment._destroy()


def test_defining_an_operator_twice_is_refused(lib: Library, ns: str) -> None:
    lib.def_("dup(Tensor self) -> Tensor")
    with pytest.raises(RegistrationError, match="with the same name and overload name multiple times"):
        lib.def_("dup(Tensor self) -> Tensor")
    with Library(ns, "FRAGMENT") as fragment, pytest.raises(RegistrationError, match="multiple times"):
        fragment.def_("dup(Tensor self) -> Tensor")


def test_library_kind_and_namespace_checks(lib: Library, ns: str) -> None:
    with pytest.raises(ValueError, match="kind must be one of DEF, IMPL, FRAGMENT, got 'IMPLEMENT'"):
        Library(ns, "IMPLEMENT")  # type: ignore[arg-type]
    with pytest.raises(RegistrationError, match="an IMPL library cannot define operators"):
        Library(ns, "IMPL").def_("x(Tensor self) -> Tensor")
    with pytest.raises(RegistrationError, match=r"namespace \(other\) in schema string does not match"):
        lib.def_("other::x(Tensor self) -> Tensor")
    with pytest.raises(RegistrationError, match="fallback can only be registered using a Library"):
        lib.fallback(fallthrough_kernel, "CPU")


def test_composite_implicit_and_explicit_together_are_refused(lib: Library) -> None:
    lib.def_("both(Tensor self) -> Tensor")
    lib.impl("both", double, "CompositeExplicitAutograd")
    with pytest.raises(RegistrationError) as info:
        lib.impl("both", double, "CompositeImplicitAutograd")
    assert str(info.value) == (
        "Registration to both CompositeImplicitAutograd and CompositeExplicitAutograd is not allowed."
    )


def test_destroying_a_library_removes_its_registrations(ns: str) -> None:
    with Library(ns, "DEF") as lib:
        lib.def_("gone(Tensor self) -> Tensor")
        lib.impl("gone", double, "CPU")
        np.testing.assert_array_equal(getattr(framework.ops, ns).gone(cpu(1)).numpy(), [2])
    assert dispatcher().find_schema(f"{ns}::gone") is None
    with pytest.raises(AttributeError):
        _ = getattr(framework.ops, ns).gone
    with pytest.raises(RuntimeError, match="the library was destroyed"):
        lib.def_("again(Tensor self) -> Tensor")
    # the namespace is free again
    Library(ns, "DEF")._destroy()


def test_impl_library_registrations_go_with_it(lib: Library, ns: str) -> None:
    lib.def_("f(Tensor self) -> Tensor")
    impl = Library(ns, "IMPL", "CPU")
    impl.impl("f", double)  # the library's dispatch key
    assert dispatch_table(f"{ns}::f")["CPU"] == "CPU"
    impl._destroy()
    assert "CPU" not in dispatch_table(f"{ns}::f")


def test_unknown_or_undefined_dispatch_key_is_refused(lib: Library) -> None:
    lib.def_("z(Tensor self) -> Tensor")
    with pytest.raises(ValueError, match=r"Unknown dispatch key 'CUDA'\. Expected one of: CPU, PrivateUse1"):
        lib.impl("z", double, "CUDA")
    with pytest.raises(RegistrationError, match="Cannot register a kernel at dispatch key Undefined"):
        lib.impl("z", double, DispatchKey.Undefined)


def test_impl_defaults_to_composite_implicit(lib: Library, ns: str) -> None:
    lib.def_("g(Tensor self) -> Tensor")
    lib.impl("g", double)
    table = dispatch_table(f"{ns}::g")
    assert table["CPU"] == "CompositeImplicitAutograd"
    assert table["AutogradCPU"] == "CompositeImplicitAutograd"


# ---- kernel stacks and warnings ------------------------------------------------------------


def test_override_warns_and_deregistration_restores(lib: Library, ns: str) -> None:
    lib.def_("h(Tensor self) -> Tensor")
    lib.impl("h", lambda self: cpu(1), "CPU")
    second = Library(ns, "IMPL")
    with pytest.warns(UserWarning, match="Overriding a previously registered kernel") as record:
        second.impl("h", lambda self: cpu(2), "CPU")
    assert "dispatch key: CPU" in str(record[0].message)
    op = getattr(framework.ops, ns).h
    assert op(cpu(0)).tolist() == [2]
    second._destroy()
    assert op(cpu(0)).tolist() == [1]


def test_deregistering_the_older_kernel_keeps_the_newer(lib: Library, ns: str) -> None:
    lib.def_("k(Tensor self) -> Tensor")
    first = Library(ns, "IMPL")
    first.impl("k", lambda self: cpu(1), "CPU")
    second = Library(ns, "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second.impl("k", lambda self: cpu(2), "CPU")
    first._destroy()
    assert getattr(framework.ops, ns).k(cpu(0)).tolist() == [2]
    second._destroy()
    assert "CPU" not in dispatch_table(f"{ns}::k")


# ---- dispatch rules at call time -----------------------------------------------------------


def test_call_goes_to_the_backend_of_the_tensor(lib: Library, ns: str) -> None:
    lib.def_("where(Tensor self) -> str")
    lib.impl("where", lambda self: "cpu", "CPU")
    lib.impl("where", lambda self: "meta", "Meta")
    op = getattr(framework.ops, ns).where
    assert op(cpu(1)) == "cpu"
    assert op(meta(3)) == "meta"


def test_autograd_kernel_runs_first_and_redispatches(lib: Library, ns: str) -> None:
    lib.def_("trace(Tensor self) -> str[]")
    seen: list[DispatchKeySet] = []

    def autograd(keyset: DispatchKeySet, self: Tensor) -> list[str]:
        seen.append(keyset)
        below: list[str] = handle.redispatch(keyset & AFTER_AUTOGRAD_KEYS, self)
        return ["autograd", *below]

    lib.impl("trace", autograd, "Autograd", with_keyset=True)
    lib.impl("trace", lambda self: ["cpu"], "CPU")
    handle = dispatcher().find_schema_or_throw(f"{ns}::trace")
    assert handle.call(cpu(1)) == ["autograd", "cpu"]
    assert seen[0].highest_priority_key() is DispatchKey.AutogradCPU
    assert seen[0].has(DispatchKey.CPU)
    with AutoDispatchBelowAutograd():
        assert handle.call(cpu(1)) == ["cpu"]


def test_fallthrough_kernel_skips_to_the_next_key(lib: Library, ns: str) -> None:
    lib.def_("ft(Tensor self) -> str")
    lib.impl("ft", lambda self: "cpu", "CPU")
    lib.impl("ft", fallthrough_kernel, "AutogradCPU")
    lib.impl("ft", lambda self: "python", "Python")
    assert "Python" in dispatch_table(f"{ns}::ft")
    op = getattr(framework.ops, ns).ft
    assert op(cpu(1)) == "cpu"
    with IncludeDispatchKeyGuard(DispatchKey.Python):
        assert op(cpu(1)) == "python"
        with ExcludeDispatchKeyGuard(DispatchKey.Python):
            assert op(cpu(1)) == "cpu"


def test_tensor_lists_and_optional_tensors_contribute_keys(lib: Library, ns: str) -> None:
    lib.def_("lst(Tensor[] xs, Tensor? maybe=None) -> str")
    lib.impl("lst", lambda xs, maybe=None: "cpu", "CPU")
    lib.impl("lst", lambda xs, maybe=None: "meta", "Meta")
    op = getattr(framework.ops, ns).lst
    assert op([cpu(1), cpu(2)]) == "cpu"
    assert op([cpu(1), meta(2)]) == "meta"  # Meta is the backend of highest priority
    assert op([cpu(1)], meta(1)) == "meta"
    assert op([cpu(1)], None) == "cpu"


def test_missing_kernel_error_names_operator_key_and_available_keys(lib: Library, ns: str) -> None:
    lib.def_("onlycpu(Tensor self) -> Tensor")
    lib.impl("onlycpu", double, "CPU")
    with pytest.raises(NotImplementedError) as info:
        getattr(framework.ops, ns).onlycpu(meta(2))
    message = str(info.value)
    assert message.startswith(
        f"Could not run '{ns}::onlycpu' with arguments from the 'Meta' backend. This could be because "
        "the operator doesn't exist for this backend."
    )
    assert f"'{ns}::onlycpu' is only available for these backends: [CPU, BackendSelect," in message
    assert f"CPU: {double.__module__}.double [kernel]" in message


def test_no_tensor_arguments_and_no_kernel(lib: Library, ns: str) -> None:
    lib.def_("nothing(int n) -> int")
    lib.impl("nothing", lambda n: n, "CPU")
    excluded = DispatchKeySet((DispatchKey.BackendSelect, DispatchKey.ADInplaceOrView))
    with (
        ExcludeDispatchKeyGuard(excluded),
        pytest.raises(NotImplementedError, match="There were no tensor arguments to this function"),
    ):
        getattr(framework.ops, ns).nothing(3)


def test_no_tensor_arguments_runs_the_composite_kernel(lib: Library, ns: str) -> None:
    lib.def_("count(int n, *, int step=1) -> int[]")
    lib.impl("count", lambda n, *, step=1: list(range(0, n, step)), "CompositeExplicitAutograd")
    assert getattr(framework.ops, ns).count(5, step=2) == [0, 2, 4]


def test_python_keywords_and_varargs_in_schemas(lib: Library, ns: str) -> None:
    lib.def_("span(Tensor self, float from=0., float to=1.) -> float[]")
    lib.impl("span", lambda self, lo=0.0, hi=1.0: [lo, hi], "CPU")
    lib.def_("fmt(str self, ...) -> str")
    lib.impl("fmt", lambda self, *args: self.format(*args), "CompositeImplicitAutograd")
    ops = getattr(framework.ops, ns)
    assert ops.span(cpu(1)) == [0.0, 1.0]
    assert ops.span(cpu(1), 2.0, 3.0) == [2.0, 3.0]
    assert ops.span(cpu(1), from_=0.5) == [0.5, 1.0]  # a Python keyword gets a trailing "_"
    assert ops.fmt("{}-{}", 1, "a") == "1-a"


def test_backend_select_kernel_routes_factories(lib: Library, ns: str) -> None:
    lib.def_("make(int n, *, Device? device=None) -> str")

    def backend_select(keyset: DispatchKeySet, n: int, *, device: Any = None) -> str:
        key = DispatchKey.Meta if str(device) == "meta" else DispatchKey.CPU
        result: str = handle.redispatch(DispatchKeySet(key), n, device=device)
        return result

    lib.impl("make", backend_select, "BackendSelect", with_keyset=True)
    lib.impl("make", lambda n, *, device=None: f"cpu{n}", "CPU")
    lib.impl("make", lambda n, *, device=None: f"meta{n}", "Meta")
    handle = dispatcher().find_schema_or_throw(f"{ns}::make")
    assert getattr(framework.ops, ns).make(2) == "cpu2"
    assert getattr(framework.ops, ns).make(3, device="meta") == "meta3"


def test_ambiguous_autograd_other_raises_on_call(lib: Library, ns: str) -> None:
    lib.def_("amb(Tensor self) -> Tensor")
    lib.impl("amb", double, "CompositeImplicitAutograd")
    lib.impl("amb", double, "FPGA")
    assert dispatch_table(f"{ns}::amb")["AutogradOther"] == "ambiguous"
    fpga = Tensor(TensorImpl.empty((1,), framework.float32, framework.device("meta")))
    fpga._impl.key_set = DispatchKeySet((DispatchKey.FPGA, DispatchKey.AutogradOther))
    with pytest.raises(
        NotImplementedError, match="CompositeImplicitAutograd and a backend mapped to AutogradOther"
    ):
        getattr(framework.ops, ns).amb(fpga)


def test_bad_tensor_argument_error(lib: Library, ns: str) -> None:
    lib.def_("t(Tensor self, Tensor? other=None) -> Tensor")
    lib.impl("t", lambda self, other=None: self, "CPU")
    handle = dispatcher().find_schema_or_throw(f"{ns}::t")
    with pytest.raises(
        TypeError, match=rf"{ns}::t\(\): argument 'self' \(position 0\) must be Tensor, not int"
    ):
        handle.call(3)
    with pytest.raises(TypeError, match=r"argument 'other' \(position 1\) must be Tensor\?, not str"):
        handle.call(cpu(1), "x")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'self'"):
        handle.call()
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        handle.call(cpu(1), bogus=1)


# ---- boxed kernels and fallbacks -----------------------------------------------------------


def test_boxed_kernel_and_call_boxed(lib: Library, ns: str) -> None:
    lib.def_("addk(Tensor self, *, int k=1) -> (Tensor, int)")
    calls: list[tuple[str, int]] = []

    def boxed(op: Any, keyset: DispatchKeySet, stack: list[Any]) -> None:
        k = stack.pop()
        self = stack.pop()
        calls.append((op.qualified_name, k))
        stack.extend([framework.from_numpy(self.numpy() + k), k])

    handle = dispatcher().find_schema_or_throw(f"{ns}::addk")
    dispatcher().register_impl(handle, DispatchKey.CPU, framework.c10.KernelFunction.boxed(boxed), "test")
    out, k = handle.call(cpu(1, 2), k=5)
    assert (out.tolist(), k) == ([6, 7], 5)
    stack: list[Any] = [cpu(1), 2]
    handle.call_boxed(stack)
    assert stack[0].tolist() == [3] and stack[1] == 2 and len(stack) == 2
    assert calls == [(f"{ns}::addk", 5), (f"{ns}::addk", 2)]


def test_unboxed_kernel_called_boxed(lib: Library, ns: str) -> None:
    lib.def_("pair(Tensor self, *, int k=1) -> (Tensor, int)")
    lib.impl("pair", lambda self, *, k=1: (self, k + 1), "CPU")
    handle = dispatcher().find_schema_or_throw(f"{ns}::pair")
    x = cpu(1)
    stack: list[Any] = ["below", x, 4]
    handle.call_boxed(stack)
    assert stack == ["below", x, 5]


def test_backend_fallback_serves_every_operator(lib: Library, ns: str) -> None:
    lib.def_("a(Tensor self) -> Tensor")
    lib.def_("b(Tensor self, int n) -> Tensor")
    lib.impl("a", double, "CPU")
    lib.impl("b", lambda self, n: self, "CPU")
    seen: list[str] = []

    def logging_fallback(op: Any, keyset: DispatchKeySet, stack: list[Any]) -> None:
        seen.append(op.qualified_name)
        op.redispatch_boxed(keyset - DispatchKeySet(DispatchKey.Python), stack)

    fallbacks = Library("_", "IMPL")
    fallbacks.fallback(logging_fallback, "Python")
    try:
        assert dispatch_table(f"{ns}::a")["Python"] == "fallback"
        with IncludeDispatchKeyGuard(DispatchKey.Python):
            assert getattr(framework.ops, ns).a(cpu(2)).tolist() == [4]
            assert getattr(framework.ops, ns).b(cpu(2), 3).tolist() == [2]
        assert seen == [f"{ns}::a", f"{ns}::b"]
        with pytest.raises(
            RegistrationError, match="multiple backend fallbacks for the same dispatch key Python"
        ):
            Library("_", "IMPL").fallback(logging_fallback, "Python")
    finally:
        fallbacks._destroy()
    assert "Python" not in dispatch_table(f"{ns}::a")


def test_fallback_with_unboxed_form_skips_boxing(lib: Library, ns: str) -> None:
    lib.def_("u(Tensor self, int n=1) -> Tensor")
    lib.impl("u", lambda self, n=1: self, "CPU")
    used: list[str] = []

    def boxed(op: Any, keyset: DispatchKeySet, stack: list[Any]) -> None:
        used.append("boxed")
        op.redispatch_boxed(keyset - DispatchKeySet(DispatchKey.Python), stack)

    def unboxed(op: Any, keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        used.append("unboxed")
        return op.redispatch(keyset - DispatchKeySet(DispatchKey.Python), *args, **kwargs)

    fallbacks = Library("_", "IMPL")
    fallbacks.fallback(boxed, "Python", unboxed=unboxed)
    try:
        handle = dispatcher().find_schema_or_throw(f"{ns}::u")
        with IncludeDispatchKeyGuard(DispatchKey.Python):
            x = cpu(1)
            assert handle.call(x, 2) is x
            stack: list[Any] = [x, 2]
            handle.call_boxed(stack)
            assert stack == [x]
    finally:
        fallbacks._destroy()
    assert used == ["unboxed", "boxed"]


def test_builtin_fallbacks_fall_through() -> None:
    d = dispatcher()
    for key in (
        DispatchKey.BackendSelect,
        DispatchKey.ADInplaceOrView,
        DispatchKey.AutogradCPU,
        DispatchKey.AutocastCPU,
    ):
        kernel = d.fallback_kernel(key)
        assert kernel is not None and kernel.is_fallthrough


# ---- introspection -------------------------------------------------------------------------


def test_dispatch_table_and_dump(lib: Library, ns: str) -> None:
    lib.def_("tbl(Tensor self) -> Tensor")
    lib.impl("tbl", double, "CPU")
    lib.impl("tbl", double, "CompositeImplicitAutograd")
    table = dispatch_table(f"{ns}::tbl")
    assert table == {
        "CPU": "CPU",
        "PrivateUse1": "CompositeImplicitAutograd",
        "Meta": "CompositeImplicitAutograd",
        "FPGA": "CompositeImplicitAutograd",
        "BackendSelect": "fallback",
        "Conjugate": "fallback",
        "Negative": "fallback",
        "ADInplaceOrView": "fallback",
        "AutogradOther": "CompositeImplicitAutograd",
        "AutogradCPU": "fallback",
        "AutogradPrivateUse1": "CompositeImplicitAutograd",
        "AutogradMeta": "CompositeImplicitAutograd",
        "AutocastCPU": "fallback",
    }
    dump = dump_dispatch_table(f"{ns}::tbl").splitlines()
    assert dump[0] == f"CPU: {double.__module__}.double [kernel]"
    assert f"Meta: {double.__module__}.double [math kernel]" in dump
    assert "AutogradCPU: fallthrough kernel [backend fallback]" in dump
    state = dispatcher().find_schema_or_throw(f"{ns}::tbl").dump_state()
    assert f"schema: {ns}::tbl(Tensor self) -> Tensor" in state
    with pytest.raises(RuntimeError, match=f"Could not find schema for {ns}::nope"):
        dispatch_table(f"{ns}::nope")


# ---- thread safety -------------------------------------------------------------------------


def test_concurrent_registration_and_calls(lib: Library, ns: str) -> None:
    lib.def_("c(Tensor self) -> Tensor")
    lib.impl("c", double, "CPU")
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def define(i: int) -> None:
        barrier.wait()
        try:
            with Library(ns, "FRAGMENT") as frag:
                for j in range(25):
                    frag.def_(f"t{i}_{j}(Tensor self) -> Tensor")
                    frag.impl(f"t{i}_{j}", double, "CPU")
                    assert getattr(framework.ops, ns).c(cpu(1)).tolist() == [2]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=define, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [n for n in dispatcher().all_operator_names() if n.startswith(f"{ns}::t")] == []


def test_register_autograd_gives_a_custom_operator_a_derivative() -> None:
    import framework
    from framework.autograd import gradcheck
    from framework.library import register_autograd

    with Library("gradlib", "DEF") as lib:
        lib.def_("cube(Tensor self, *, float scale=1.0) -> Tensor")

        @lib.impl("cube", dispatch_key="CPU")
        def cube_cpu(self: framework.Tensor, *, scale: float = 1.0) -> framework.Tensor:
            return framework.from_numpy(self.detach().numpy() ** 3 * scale)

        def setup_context(
            ctx: Any, inputs: tuple[Any, ...], keyword_only_inputs: dict[str, Any], output: Any
        ) -> None:
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.scale = keyword_only_inputs["scale"]

        def backward(ctx: Any, grad: framework.Tensor) -> framework.Tensor:
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True,)
            return grad * 3 * x * x * ctx.scale

        register_autograd("gradlib::cube", backward, setup_context=setup_context, lib=lib)
        x = framework.tensor([1.0, 2.0, -0.5], dtype=framework.float64, requires_grad=True)
        y = framework.ops.gradlib.cube(x, scale=2.0)
        assert (
            y.grad_fn is not None and y.grad_fn.name() == "GeneratedBackwardFor_gradlib_cube_defaultBackward"
        )
        y.sum().backward()
        assert x.grad is not None and x.grad.tolist() == [6.0, 24.0, 1.5]
        assert gradcheck(lambda t: framework.ops.gradlib.cube(t, scale=0.5), (x,))
