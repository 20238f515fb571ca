"""torch.library's high-level API: custom_op / CustomOpDef, infer_schema, the module-level
registration functions, get_ctx and opcheck.

Each behaviour is checked on framework against recorded values; when torch is importable the same
user functions run through torch.library too and must give the same schemas, results, node names,
gradients and error texts.  (This file evaluates annotations eagerly: the user functions are made
by factories taking the module, `framework` or `torch`, so their annotations name its types.)"""

import importlib
import itertools
import typing
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import framework
from framework.library import CustomOpDef, custom_op, infer_schema

_count = itertools.count()


def _modules() -> list[ModuleType]:
    try:
        return [framework, importlib.import_module("torch")]
    except ImportError:
        return [framework]


MODULES = _modules()
ids = [m.__name__ for m in MODULES]


@pytest.fixture(params=MODULES, ids=ids)
def T(request: pytest.FixtureRequest) -> ModuleType:
    """The module under test: framework, then torch (the oracle) when installed."""
    module: ModuleType = request.param
    return module


def qualname(base: str) -> str:
    return f"cotest{next(_count)}::{base}"


def error_text(fn: Callable[[], object]) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def same_error(make: Callable[[ModuleType], Callable[[], object]], expected: str) -> None:
    """`make(module)()` raises with a message starting `expected` for every module, the same type."""
    results = [error_text(make(m)) for m in MODULES]
    for kind, message in results:
        assert kind is results[0][0]
        assert message.startswith(expected), message


# ---- infer_schema ----------------------------------------------------------------------------


def _many(T: ModuleType) -> Callable[..., Any]:
    def f(
        x: T.Tensor,
        y: typing.Optional[T.Tensor],  # noqa: UP045
        z: list[T.Tensor],
        a: int,
        b: float = 1.0,
        c: bool = True,
        d: str = "hi",
        e: Sequence[int] = None,  # type: ignore[assignment]  # noqa: RUF013 (PyTorch writes SymInt[] e=None)
        *,
        g: int | None = None,
        h: T.dtype = T.float32,
        i: T.device = T.device("cpu"),  # noqa: B008
    ) -> tuple[T.Tensor, T.Tensor]:
        raise NotImplementedError

    return f


def _lists(T: ModuleType) -> Callable[..., Any]:
    def f(
        x: T.Tensor,
        l: list[T.Tensor | None],  # noqa: E741
        m: typing.Optional[list[float]],  # noqa: UP045
        k: float = -1.5,
    ) -> list[T.Tensor]:
        raise NotImplementedError

    return f


def _one(T: ModuleType) -> Callable[..., Any]:
    def f(x: T.Tensor) -> tuple[T.Tensor]:
        raise NotImplementedError

    return f


def _none(T: ModuleType) -> Callable[..., Any]:
    def f(x: T.Tensor, n: typing.List[int]) -> None:  # noqa: UP006
        raise NotImplementedError

    return f


ALL = '(Tensor x, Tensor? y, Tensor[] z, SymInt a, float b=1.0, bool c=True, str d="hi", SymInt[] e=None, '
TAIL = '*, SymInt? g=None, ScalarType h=float32, Device i="cpu") -> (Tensor, Tensor)'


@pytest.mark.parametrize(
    ("factory", "mutates_args", "op_name", "expected"),
    [
        (_many, (), None, ALL + TAIL),
        (
            _many,
            "unknown",
            "ff",
            "ff(Tensor(a0!) x, Tensor(a1!)? y, Tensor(a2!)[] z, SymInt a, float b=1.0, bool c=True, "
            'str d="hi", SymInt[] e=None, ' + TAIL,
        ),
        (
            _many,
            ["x", "z"],
            None,
            ALL.replace("Tensor x", "Tensor(a0!) x").replace("Tensor[] z", "Tensor(a2!)[] z") + TAIL,
        ),
        (_lists, (), None, "(Tensor x, Tensor?[] l, float[]? m, float k=-1.5) -> Tensor[]"),
        (_one, (), None, "(Tensor x) -> ((Tensor))"),
        (_none, {}, "g", "g(Tensor x, SymInt[] n) -> ()"),
    ],
)
def test_infer_schema(
    factory: Callable[[ModuleType], Callable[..., Any]], mutates_args: Any, op_name: str | None, expected: str
) -> None:
    for m in MODULES:
        assert m.library.infer_schema(factory(m), mutates_args=mutates_args, op_name=op_name) == expected


def test_infer_schema_reads_string_annotations_in_the_functions_globals() -> None:
    namespace: dict[str, Any] = {"Tensor": framework.Tensor}
    exec("def f(x: 'Tensor', n: 'int') -> 'Tensor': ...", namespace)
    assert infer_schema(namespace["f"], mutates_args=()) == "(Tensor x, SymInt n) -> Tensor"


def _bad(kind: str) -> Callable[[ModuleType], Callable[[], object]]:
    def make(T: ModuleType) -> Callable[[], object]:
        def unannotated(x):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        def varargs(x: T.Tensor, *args: T.Tensor) -> T.Tensor:
            raise NotImplementedError

        def scalar(x: T.Tensor, y: int) -> T.Tensor:
            raise NotImplementedError

        def tuple_arg(x: T.Tensor, y: tuple[int, ...]) -> T.Tensor:
            raise NotImplementedError

        def list_default(x: T.Tensor, y: int = [1]) -> T.Tensor:  # type: ignore[assignment]
            raise NotImplementedError

        def no_return(x: T.Tensor):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        def dict_return(x: T.Tensor) -> dict[str, int]:
            raise NotImplementedError

        def undefined(x: "Undefined") -> T.Tensor:  # type: ignore[name-defined]  # noqa: F821
            raise NotImplementedError

        cases: dict[str, tuple[Callable[..., Any], Any]] = {
            "unannotated": (unannotated, ()),
            "varargs": (varargs, ()),
            "mutated_scalar": (scalar, ("y",)),
            "unknown_name": (scalar, ("q",)),
            "bad_mutates": (scalar, "bogus"),
            "tuple_arg": (tuple_arg, ()),
            "list_default": (list_default, ()),
            "no_return": (no_return, ()),
            "dict_return": (dict_return, ()),
            "undefined": (undefined, ()),
        }
        fn, mutates = cases[kind]
        return lambda: T.library.infer_schema(fn, mutates_args=mutates)

    return make


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (
            "unannotated",
            "infer_schema(func): Parameter x must have a type annotation. Got func with signature (x))",
        ),
        ("varargs", "infer_schema(func): We do not support positional-only args, varargs, or varkwargs."),
        (
            "mutated_scalar",
            "infer_schema(func): Parameter y is in mutable_args but only Tensors or collections of "
            "Tensors can be mutated",
        ),
        (
            "unknown_name",
            "infer_schema(func): {'q'} in mutates_args were not found in the custom op's signature.",
        ),
        (
            "bad_mutates",
            "mutates_args must either be a sequence of the names of the arguments that are mutated",
        ),
        (
            "tuple_arg",
            "infer_schema(func): Parameter y has unsupported type tuple[int, ...]. We do not support Tuple "
            "inputs in schema. As a workaround, please try to use List instead. For example, list[int].",
        ),
        (
            "list_default",
            "infer_schema(func): Parameter y has an unsupported default value type <class 'list'>.",
        ),
        ("no_return", "infer_schema(func): No return type annotation was provided. Please add one."),
        (
            "dict_return",
            "infer_schema(func): Return has unsupported type dict[str, int]. The valid types are: ",
        ),
        ("undefined", "infer_schema(func): Unsupported type annotation Undefined. It is not a type."),
    ],
)
def test_infer_schema_errors(kind: str, expected: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(_bad(kind), expected)


# ---- custom_op -------------------------------------------------------------------------------


def scale_op(T: ModuleType, name: str) -> Any:
    @T.library.custom_op(name, mutates_args=())
    def scale(x: T.Tensor, factor: float) -> T.Tensor:
        return T.from_numpy(x.detach().numpy() * factor)

    return scale


def test_custom_op_is_a_dispatcher_operator(T: ModuleType) -> None:
    name = qualname("scale")
    op = scale_op(T, name)
    ns, base = name.split("::")
    assert repr(op) == f"<CustomOpDef({name})>"
    assert (op._namespace, op._name, op._qualname, op._schema) == (
        ns,
        base,
        name,
        "(Tensor x, float factor) -> Tensor",
    )
    x = T.tensor([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(op(x, 2.0).numpy(), [2.0, -4.0, 6.0])
    np.testing.assert_array_equal(getattr(getattr(T.ops, ns), base)(x, 0.5).numpy(), [0.5, -1.0, 1.5])
    np.testing.assert_array_equal(op._opoverload(x, factor=3.0).numpy(), [3.0, -6.0, 9.0])
    if T is framework:
        table = framework.library.dispatch_table(name)
        assert table["CPU"] == "CompositeExplicitAutograd"
        assert (table["Meta"], table["AutogradCPU"]) == ("Meta", "Autograd")
        assert table["ADInplaceOrView"] == "fallback"


def test_backward_without_a_formula_and_meta_without_a_fake(T: ModuleType) -> None:
    name = qualname("scale")
    op = scale_op(T, name)
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = op(x, 2.0)
    node = f"GeneratedBackwardFor_{name.replace('::', '_')}_defaultBackward"
    assert type(y.grad_fn).__name__ == node
    dotted = name.replace("::", ".")
    with pytest.raises(
        RuntimeError, match=rf"^Trying to backward through {dotted}\.default but no autograd formula"
    ):
        y.sum().backward()
    with pytest.raises(RuntimeError) as info:
        op(T.empty(2, device="meta"), 2.0)
    assert str(info.value) == (
        f"There was no fake impl registered for <CustomOpDef({name})>. This is necessary for "
        f"torch.compile/export/fx tracing to work. Please use `scale.register_fake` to add an fake impl."
    )


def test_register_autograd_and_fake(T: ModuleType) -> None:
    op = scale_op(T, qualname("scale"))

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.factor = inputs[1]

    def backward(ctx: Any, grad: Any) -> tuple[Any, None]:
        assert ctx.needs_input_grad == (True, False)
        return grad * ctx.factor, None

    op.register_autograd(backward, setup_context=setup_context)

    @op.register_fake
    def _(x: Any, factor: float) -> Any:
        return T.empty_like(x)

    x = T.tensor([1.0, 2.0, 4.0], dtype=T.float64, requires_grad=True)
    op(x, 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    assert T.autograd.gradcheck(lambda t: op(t, -0.5), (x,))
    meta = op(T.empty(2, 3, device="meta", dtype=T.float16), 2.0)
    assert (meta.device.type, tuple(meta.shape), meta.dtype) == ("meta", (2, 3), T.float16)
    with T.no_grad():
        assert op(x, 2.0).grad_fn is None


def test_keyword_only_arguments_reach_setup_context(T: ModuleType) -> None:
    @T.library.custom_op(qualname("cube"), mutates_args=())
    def cube(x: T.Tensor, *, scale: float = 1.0) -> T.Tensor:
        return x.detach() ** 3 * scale

    def setup_context(
        ctx: Any, inputs: tuple[Any, ...], keyword_only_inputs: dict[str, Any], output: Any
    ) -> None:
        ctx.save_for_backward(inputs[0])
        ctx.scale = keyword_only_inputs["scale"]

    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale

    cube.register_autograd(backward, setup_context=setup_context)
    x = T.tensor([1.0, 2.0, -0.5], requires_grad=True)
    cube(x, scale=2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0, 1.5])


def test_tensor_list_arguments_get_gradients(T: ModuleType) -> None:
    @T.library.custom_op(qualname("weighted_sum"), mutates_args=())
    def weighted_sum(tensors: list[T.Tensor], weights: list[float]) -> T.Tensor:
        return sum(t.detach() * w for t, w in zip(tensors, weights, strict=True))

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.weights = inputs[1]

    def backward(ctx: Any, grad: Any) -> tuple[list[Any], None]:
        assert ctx.needs_input_grad == ([True, False], False)
        return [grad * w for w in ctx.weights], None

    weighted_sum.register_autograd(backward, setup_context=setup_context)
    a = T.ones(2, requires_grad=True)
    b = T.ones(2)
    weighted_sum([a, b], [0.5, 2.0]).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.5, 0.5])


def test_tuple_returns(T: ModuleType) -> None:
    @T.library.custom_op(qualname("pair"), mutates_args=())
    def pair(x: T.Tensor) -> tuple[T.Tensor, T.Tensor]:
        return x + 1, x * 2

    @T.library.custom_op(qualname("single"), mutates_args=())
    def single(x: T.Tensor) -> tuple[T.Tensor]:
        return (x + 1,)

    _, second = pair(T.ones(2))
    np.testing.assert_array_equal(second.numpy(), [2.0, 2.0])
    (only,) = single(T.ones(1))
    assert str(single._opoverload._schema if T is not framework else single._opoverload.schema).endswith(
        "-> ((Tensor))"
    )
    np.testing.assert_array_equal(only.numpy(), [2.0])


def test_mutating_op_bumps_versions_and_runs_on_meta_without_a_fake(T: ModuleType) -> None:
    @T.library.custom_op(qualname("add_one_"), mutates_args=["x"])
    def add_one_(x: T.Tensor) -> None:
        x.add_(1)

    t = T.ones(2)
    before = t._version
    assert add_one_(t) is None
    np.testing.assert_array_equal(t.numpy(), [2.0, 2.0])
    assert t._version - before == 2
    assert add_one_(T.empty(2, device="meta")) is None
    with pytest.raises(RuntimeError, match=r"^Cannot register autograd formula for non-functional operator"):
        add_one_.register_autograd(lambda ctx, g: g)


def test_device_kernels_and_set_kernel_enabled(T: ModuleType) -> None:
    @T.library.custom_op(qualname("shift"), mutates_args=(), device_types="cpu")
    def shift(x: T.Tensor) -> T.Tensor:
        return x + 1

    @shift.register_kernel("cpu")
    def _(x: Any) -> Any:
        return x + 100

    assert shift(T.zeros(1)).item() == 100
    with shift.set_kernel_enabled("cpu", enabled=False):
        assert shift(T.zeros(1)).item() == 1
    assert shift(T.zeros(1)).item() == 100

    @T.library.custom_op(qualname("gpu_only"), mutates_args=(), device_types="cuda")
    def gpu_only(x: T.Tensor) -> T.Tensor:
        return x + 1

    with pytest.raises(NotImplementedError, match="with arguments from the 'CPU' backend"):
        gpu_only(T.zeros(1))


def test_factory_ops_pick_the_kernel_of_their_device_argument(T: ModuleType) -> None:
    @T.library.custom_op(qualname("ones"), mutates_args=(), device_types="cpu")
    def ones(n: int, device: T.device) -> T.Tensor:
        return T.ones(n)

    np.testing.assert_array_equal(ones(2, T.device("cpu")).numpy(), [1.0, 1.0])
    with pytest.raises(
        RuntimeError, match=r"^ones does not have a kernel registered for meta\. Please use register_kernel"
    ):
        ones(2, "meta")

    def no_device(T: ModuleType) -> Callable[[], object]:
        def f(n: int) -> T.Tensor:
            return T.ones(n)

        return lambda: T.library.custom_op(qualname("f"), f, mutates_args=(), device_types="cpu")

    same_error(
        no_device, "Functions without tensor inputs are required to have a `device: torch.device` argument"
    )


def test_register_autocast(T: ModuleType) -> None:
    @T.library.custom_op(qualname("mm"), mutates_args=())
    def mm(a: T.Tensor, b: T.Tensor) -> T.Tensor:
        return a @ b

    mm.register_autocast("cpu", T.float16)
    a, b = T.ones(2, 2), T.ones(2, 2, dtype=T.float64)
    with T.autocast("cpu"):
        assert mm(a, a).dtype == T.float16
        assert mm(a.double(), b).dtype == T.float64
    assert mm(a, a).dtype == T.float32
    with pytest.raises(ValueError, match=r"^Expected `device_type` of type `str`, got: `<class 'int'>`"):
        mm.register_autocast(1, T.float16)


def test_custom_op_errors() -> None:
    def output_is_input(T: ModuleType) -> Callable[[], object]:
        @T.library.custom_op(qualname("same"), mutates_args=())
        def same(x: T.Tensor) -> T.Tensor:
            return x

        return lambda: same(T.ones(1))

    same_error(output_is_input, "same (with implementation in <module ")

    def kwarg_only_tensor(T: ModuleType) -> Callable[[], object]:
        def f(x: T.Tensor, *, y: T.Tensor) -> T.Tensor:
            return x * y

        return lambda: T.library.custom_op(qualname("kw"), f, mutates_args=())

    same_error(
        kwarg_only_tensor,
        "custom_op with kwarg-only Tensor args. Please make your tensors not kwarg-only. "
        "Got: kw(Tensor x, *, Tensor y) -> Tensor",
    )

    def schema_mismatch(T: ModuleType) -> Callable[[], object]:
        def f(x: T.Tensor) -> None:
            return None

        return lambda: T.library.custom_op(qualname("s"), f, mutates_args=(), schema="(Tensor(a!) x) -> ()")

    same_error(
        schema_mismatch,
        "Attempted to create a custom op with `mutates_args=()` and `schema=(Tensor(a!) x) -> (). The schema "
        "suggests that the op mutates {'x'}which is different",
    )


def test_redefining_a_custom_op_replaces_it() -> None:
    name = qualname("twice")
    first = scale_op(framework, name)
    second = custom_op(name, lambda x: x * 2, mutates_args=(), schema="(Tensor x) -> Tensor")
    assert isinstance(first, CustomOpDef) and second._qualname == first._qualname
    np.testing.assert_array_equal(second(framework.ones(1)).numpy(), [2.0])


# ---- module-level functions ------------------------------------------------------------------


def test_define_impl_register_fake_and_get_ctx(T: ModuleType) -> None:
    name = qualname("triple")
    ns, base = name.split("::")
    T.library.define(name, "(Tensor x) -> Tensor")
    T.library.impl(name, "cpu", lambda x: x * 3)
    packet = getattr(getattr(T.ops, ns), base)
    np.testing.assert_array_equal(packet(T.ones(1)).numpy(), [3.0])
    with pytest.warns(
        FutureWarning, match="^`torch.library.impl_abstract` was renamed to `torch.library.register_fake`"
    ):
        T.library.impl_abstract(name, lambda x: T.empty_like(x))
    assert tuple(packet(T.ones(4, device="meta")).shape) == (4,)

    @T.library.register_fake(name)
    def _(x: Any) -> Any:
        T.library.get_ctx()
        return T.empty_like(x)

    with pytest.raises(
        RuntimeError, match=rf"^{name} \(.*\): You're trying to run this operator with meta Tensors"
    ):
        packet(T.ones(1, device="meta"))
    assert T.library.get_ctx() is None
    T.library.register_kernel(name, "cpu", lambda x: x * 4)
    T.library.register_autograd(packet.default, lambda ctx, g: g * 4)
    x = T.ones(2, requires_grad=True)
    y = packet(x)
    y.sum().backward()
    assert y.grad_fn.name() == f"GeneratedBackwardFor_{ns}_{base}_defaultBackward"
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])
    T.library.register_autocast(name, "cpu", T.bfloat16)
    with T.autocast("cpu"):
        assert packet(T.ones(1)).dtype == T.bfloat16


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "schema",
            'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" but got',
        ),
        ("qualname", 'Expected `qualname` to be of the form "namespace::name", but got bad.'),
        ("op_type", "register_autograd(3): got unexpected type for op: <class 'int'>"),
        ("mutable", "Cannot register autograd formula for non-functional operator "),
        ("kwarg_tensor", "register_autograd with kwarg-only Tensor args."),
        ("opcheck_tol", "opcheck(op, ...): if you specify one of rtol/atol, you must specify both"),
        (
            "opcheck_op",
            "opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. torch.ops.aten.sin",
        ),
        ("opcheck_utils", "opcheck(op, ..., test_utils=('foo',)), expected test_utils to be subset of ("),
    ],
)
def test_module_level_errors(case: str, expected: str) -> None:
    def make(T: ModuleType) -> Callable[[], object]:
        name = qualname("op")
        lib = T.library
        if case == "mutable":
            lib.define(name, "(Tensor(a!) x) -> ()")
        elif case == "kwarg_tensor":
            lib.define(name, "(Tensor x, *, Tensor y) -> Tensor")
        else:
            lib.define(name, "(Tensor x) -> Tensor")
        op = getattr(T.ops, name.split("::")[0]).op.default
        calls: dict[str, Callable[[], object]] = {
            "schema": lambda: lib.define(qualname("x"), "x(Tensor x) -> Tensor"),
            "qualname": lambda: lib.define("bad", "(Tensor x) -> Tensor"),
            "op_type": lambda: lib.register_autograd(3, lambda ctx, g: g),
            "mutable": lambda: lib.register_autograd(name, lambda ctx, g: g),
            "kwarg_tensor": lambda: lib.register_autograd(name, lambda ctx, g: g),
            "opcheck_tol": lambda: lib.opcheck(op, (T.ones(1),), rtol=1e-3),
            "opcheck_op": lambda: lib.opcheck(lambda x: x, (T.ones(1),)),
            "opcheck_utils": lambda: lib.opcheck(op, (T.ones(1),), test_utils="foo"),
        }
        return calls[case]

    same_error(make, expected)


# ---- opcheck ---------------------------------------------------------------------------------

CHECKS = ("test_schema", "test_autograd_registration", "test_faketensor")


def test_opcheck_passes_a_correct_op(T: ModuleType) -> None:
    op = scale_op(T, qualname("scale"))
    op.register_fake(lambda x, factor: T.empty_like(x))
    x = T.randn(3, requires_grad=True)
    assert T.library.opcheck(op, (x, 2.0), test_utils=CHECKS) == dict.fromkeys(CHECKS, "SUCCESS")


def test_opcheck_catches_undeclared_mutation_and_wrong_fakes(T: ModuleType) -> None:
    @T.library.custom_op(qualname("sneaky"), mutates_args=())
    def sneaky(x: T.Tensor) -> T.Tensor:
        x.mul_(2)
        return x.clone()

    @sneaky.register_fake
    def _(x: Any) -> Any:
        return x.new_empty(x.shape[0] + 1)

    results = T.library.opcheck(sneaky, (T.randn(3),), test_utils=CHECKS, raise_exception=False)
    assert str(results["test_schema"]) == "Argument x is not defined as mutable but was mutated"
    assert results["test_autograd_registration"] == "SUCCESS"
    name = sneaky._qualname.replace("::", ".") + ".default"
    assert str(results["test_faketensor"]) == (
        f"When comparing the output of {name} on FakeTensor and concrete Tensors, found mismatched tensor "
        f"metadata: Shapes {T.Size([3])} and {T.Size([4])} are not equal!"
    )
    with pytest.raises(
        Exception, match=r"^opcheck\(op, ...\): test_schema failed with Argument x is not defined"
    ):
        T.library.opcheck(sneaky, (T.randn(3),), test_utils="test_schema")


def test_opcheck_fake_checks(T: ModuleType) -> None:
    @T.library.custom_op(qualname("widen"), mutates_args=())
    def widen(x: T.Tensor) -> T.Tensor:
        return x * 2

    widen.register_fake(lambda x: x.new_empty(x.shape, dtype=T.float64))
    (result,) = T.library.opcheck(
        widen, (T.randn(2),), test_utils="test_faketensor", raise_exception=False
    ).values()
    assert str(result).endswith(
        f"mismatched tensor metadata: Dtypes {T.float32} and {T.float64} are not equal!"
    )
    widen.register_fake(lambda x: x)
    (result,) = T.library.opcheck(
        widen, (T.randn(2),), test_utils="test_faketensor", raise_exception=False
    ).values()
    assert str(result).endswith("found mismatch in outputs_alias_inputs check True != False")


def test_opcheck_autograd_registration(T: ModuleType) -> None:
    name = qualname("detached")
    T.library.define(name, "(Tensor x) -> Tensor")
    T.library.impl(name, "cpu", lambda x: (x * 2).detach().requires_grad_())
    op = getattr(T.ops, name.split("::")[0]).detached.default
    (result,) = T.library.opcheck(
        op, (T.ones(1, requires_grad=True),), test_utils="test_autograd_registration", raise_exception=False
    ).values()
    assert str(result).startswith(
        f"{name}: at least one output of this operator has requires_grad=True but the operator does not "
        "have an autograd kernel defined at an autograd key"
    )


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        ("fake", "already has a fake impl registered at "),
        ("Meta", "already has a DispatchKey::Meta implementation via a pre-existing torch.library"),
        (
            "CompositeImplicitAutograd",
            "already has an implementation for this device type via a pre-existing",
        ),
    ],
)
def test_register_fake_without_override(existing: str, expected: str) -> None:
    def make(T: ModuleType) -> Callable[[], object]:
        name = qualname("op")
        T.library.define(name, "(Tensor x) -> Tensor")
        if existing == "fake":
            T.library.register_fake(name, lambda x: x)
        else:
            T.library.impl(name, existing, lambda x: x)
        return lambda: T.library.register_fake(name, lambda x: x, allow_override=False)

    same_error(make, "register_fake(...): the operator cotest")
    for m in MODULES:
        assert expected in error_text(make(m))[1]
