"""Tensor API odds and ends against PyTorch's behaviour: `framework.Size`, `T`/`mT`/`mH`/`H`,
`type()` and the legacy types, dtype predicates, `untyped_storage()`, pickling and deepcopy,
`round(decimals=)`, and the top-level settings (`backends`, threads, determinism, default
device, `is_nonzero`, `result_type`). Values are checked against NumPy or literal expectations
(PyTorch's, recorded); with PyTorch installed, a few are compared live."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import framework
from framework import Size, nn

# ---- Size ---------------------------------------------------------------------------------------


def test_shape_and_size_are_sizes() -> None:
    x = framework.zeros(2, 3, 4)
    assert type(x.shape) is Size and type(x.size()) is Size
    assert x.shape == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert repr(x.shape) == str(x.shape) == "framework.Size([2, 3, 4])"
    assert repr(Size()) == "framework.Size([])"
    assert x.shape.numel() == 24 and Size().numel() == 1


def test_size_slicing_concatenation_and_repetition_give_sizes() -> None:
    s = Size([2, 3, 4])
    for value, expected in (
        (s[1:], (3, 4)),
        (s[::-1], (4, 3, 2)),
        (s + (5,), (2, 3, 4, 5)),  # noqa: RUF005
        ((1,) + s, (1, 2, 3, 4)),  # noqa: RUF005
        (s * 2, (2, 3, 4) * 2),
        (2 * s, (2, 3, 4) * 2),
    ):
        assert type(value) is Size and value == expected
    assert type(s[0]) is int and s[-1] == 4
    assert hash(s) == hash((2, 3, 4)) and s.index(3) == 1 and s.count(2) == 1


def test_size_takes_anything_with_index() -> None:
    assert Size([np.int64(3), framework.tensor(2), True]) == (3, 2, 1)
    assert Size(i for i in range(2)) == (0, 1)
    assert all(type(v) is int for v in Size([np.int64(3), framework.tensor(2)]))


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: Size([1.5]), TypeError, "framework.Size() takes an iterable of 'int' (item 0 is 'float')"),
        (lambda: Size("ab"), TypeError, "framework.Size() takes an iterable of 'int' (item 0 is 'str')"),
        (lambda: Size([2]) + (1.5,), TypeError, "(item 1 is 'float')"),  # noqa: RUF005
        (lambda: Size([2]) + [1], TypeError, 'can only concatenate tuple (not "list") to framework.Size'),  # noqa: RUF005
        (lambda: Size([2]) * 1.5, TypeError, "can't multiply sequence by non-int of type 'float'"),
    ],
)
def test_size_errors(make: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        make()  # type: ignore[operator]
    assert message in str(info.value)


def test_size_pickles_and_copies_as_a_size() -> None:
    s = Size([2, 3])
    for copied in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert type(copied) is Size and copied == s


def test_sizes_are_shared_and_the_cache_is_bounded() -> None:
    from framework import _size

    assert framework.zeros(5, 7).shape is framework.ones(5, 7).shape
    for n in range(_size._MAX_SIZES + 10):
        framework.empty(0, n).shape  # noqa: B018
    assert len(_size.SIZES) <= _size._MAX_SIZES


# ---- T, mT, mH, H --------------------------------------------------------------------------------


def _warnings_of(make: object) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = make()  # type: ignore[operator]
    return value, [str(w.message) for w in caught]


def test_transposes_of_a_matrix() -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = framework.tensor(a, requires_grad=True)
    for name, node in (
        ("T", "PermuteBackward0"),
        ("mT", "TransposeBackward0"),
        ("H", "TransposeBackward0"),
        ("mH", "TransposeBackward0"),
    ):
        value, caught = _warnings_of(lambda name=name: getattr(x, name))
        assert caught == []
        np.testing.assert_array_equal(value.detach().numpy(), a.T)  # type: ignore[attr-defined]
        assert type(value.grad_fn).__name__ == node  # type: ignore[attr-defined]


def test_batched_transposes() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    x = framework.tensor(a)
    np.testing.assert_array_equal(x.mT.numpy(), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(x.mH.numpy(), a.transpose(0, 2, 1))
    with pytest.raises(
        RuntimeError,
        match=r"^tensor\.H is only supported on matrices \(2-D tensors\)\. Got 3-D tensor\. For batches of "
        r"matrices, consider using tensor\.mH$",
    ):
        x.H  # noqa: B018
    for name in ("mT", "mH"):
        with pytest.raises(
            RuntimeError,
            match=rf"^tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.$",
        ):
            getattr(framework.zeros(3), name)


def test_t_of_other_dims_warns_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("framework._tensor._WARNED", set())
    x = framework.zeros(2, 3, 4)
    value, caught = _warnings_of(lambda: x.T)
    assert value.shape == (4, 3, 2)  # type: ignore[attr-defined]
    assert len(caught) == 1 and caught[0].startswith("The use of `x.T` on tensors of dimension other than 2")
    assert _warnings_of(lambda: framework.zeros(3).T)[1] == []


def test_0dim_transposes_are_the_identity_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("framework._tensor._WARNED", set())
    x = framework.tensor(1.5)
    for name, message in (
        ("T", "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."),
        ("mT", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."),
        ("H", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."),
        ("mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."),
    ):
        value, caught = _warnings_of(lambda name=name: getattr(x, name))
        assert caught == [message] and value.tolist() == 1.5  # type: ignore[attr-defined]
        assert (value is x) is (name != "T")  # T is permute([]), the others x itself, as PyTorch
        assert _warnings_of(lambda name=name: getattr(x, name))[1] == []


def test_conjugate_transposes_of_complex_tensors_are_conjugate_views() -> None:
    x = framework.tensor([[1 + 2j, 3j], [4, 5 - 1j]])
    for name in ("H", "mH"):
        view = getattr(x, name)
        assert view.is_conj() and view._base is x
        assert view.tolist() == [[1 - 2j, 4], [-3j, 5 + 1j]]
    assert not x.mT.is_conj()


# ---- type() and legacy types ---------------------------------------------------------------------

LEGACY_NAMES = {
    framework.uint8: "ByteTensor",
    framework.int8: "CharTensor",
    framework.int16: "ShortTensor",
    framework.int32: "IntTensor",
    framework.int64: "LongTensor",
    framework.float16: "HalfTensor",
    framework.float32: "FloatTensor",
    framework.float64: "DoubleTensor",
    framework.complex64: "ComplexFloatTensor",
    framework.complex128: "ComplexDoubleTensor",
    framework.bool: "BoolTensor",
}


@pytest.mark.parametrize("dtype", list(LEGACY_NAMES), ids=str)
def test_type_names_and_legacy_types(dtype: framework.dtype) -> None:
    name = LEGACY_NAMES[dtype]
    x = framework.zeros(2, dtype=dtype)
    assert x.type() == f"framework.{name}"
    legacy = getattr(framework, name)
    assert repr(legacy) == f"<class 'framework.{name}'>" and legacy.dtype is dtype
    assert isinstance(x, legacy) and not issubclass(legacy, framework.Tensor)
    assert (
        framework.ones(1, dtype=framework.float64 if dtype is not framework.float64 else framework.int64)
        .type(legacy)
        .dtype
        is dtype
    )


def test_type_converts() -> None:
    x = framework.tensor([1.7, -2.5])
    assert x.type(framework.float32) is x
    for target in (framework.int64, framework.LongTensor, "framework.LongTensor", "torch.LongTensor"):
        converted = x.type(target)  # type: ignore[arg-type]
        assert converted.dtype is framework.int64 and converted.tolist() == [1, -2]
    with pytest.raises(ValueError, match=r"^invalid type: 'float'$"):
        x.type("float")
    with pytest.raises(TypeError, match=r"^dtype must be a type, str, or dtype object$"):
        x.type(5)  # type: ignore[call-overload]
    y = framework.ones(2, requires_grad=True).type(framework.float64)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"


def test_legacy_constructors() -> None:
    assert framework.FloatTensor().shape == (0,)
    assert (
        framework.FloatTensor(2, 3).shape == (2, 3) and framework.FloatTensor(2, 3).dtype is framework.float32
    )
    assert framework.DoubleTensor(Size([2])).shape == (2,)
    assert framework.FloatTensor((2, 3)).tolist() == [2.0, 3.0]
    assert framework.LongTensor([1.5, 2]).tolist() == [1, 2]
    assert framework.FloatTensor(np.array([1, 2])).tolist() == [1.0, 2.0]
    assert framework.BoolTensor([1, 0]).tolist() == [True, False]
    assert framework.ByteTensor([1, 0]).dtype is framework.uint8
    assert framework.HalfTensor([1]).dtype is framework.float16
    assert framework.FloatTensor(3, device="cpu").shape == (3,)
    made = framework.FloatTensor([1.0])
    assert type(made) is framework.Tensor and not made.requires_grad


def test_legacy_constructor_of_a_tensor_is_an_alias() -> None:
    t = framework.ones(2, requires_grad=True)
    u = framework.FloatTensor(t)
    assert u is not t and u.data_ptr() == t.data_ptr() and u.requires_grad
    assert type(u.grad_fn).__name__ == "AliasBackward0"
    u.sum().backward()
    assert t.grad is not None and t.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (
            lambda: framework.FloatTensor(2, 3.0),
            TypeError,
            "new(): argument 'size' failed to unpack the object at pos 2 with error "
            '"type must be tuple of ints,but got float"',
        ),
        (lambda: framework.FloatTensor(2, [3]), TypeError, "but got list"),
        (lambda: framework.FloatTensor("a"), TypeError, "new(): invalid data type 'str'"),
        (lambda: framework.FloatTensor(None), TypeError, "new(): data must be a sequence (got NoneType)"),
        (lambda: framework.FloatTensor(2.5), TypeError, "new(): data must be a sequence (got float)"),
        (
            lambda: framework.FloatTensor([1.0], dtype=framework.float32),
            TypeError,
            "new() received an invalid combination of arguments - got (list, dtype=dtype)",
        ),
        (
            lambda: framework.FloatTensor([1, 2], device="meta"),
            RuntimeError,
            "legacy constructor expects device type: cpu but device type: meta was passed",
        ),
        (
            lambda: framework.FloatTensor(framework.tensor([1, 2])),
            TypeError,
            "expected TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt)) (got "
            "TensorOptions(dtype=long int,",
        ),
        (
            lambda: framework.IntTensor(-1),
            RuntimeError,
            "Trying to create tensor with negative dimension -1: [-1]",
        ),
    ],
)
def test_legacy_constructor_errors(make: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        make()  # type: ignore[operator]
    assert message in str(info.value)


# ---- predicates and storage ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(LEGACY_NAMES), ids=str)
def test_dtype_predicates(dtype: framework.dtype) -> None:
    kind = np.dtype(dtype.numpy_dtype).kind
    x = framework.zeros(2, 3, dtype=dtype)
    assert x.is_floating_point() is framework.is_floating_point(x) is (kind == "f")
    assert x.is_complex() is framework.is_complex(x) is (kind == "c")
    assert x.is_signed() is (kind in "ifc")
    assert x.nelement() == 6 and x.element_size() == dtype.itemsize


def test_untyped_storage() -> None:
    x = framework.arange(4, dtype=framework.int32)
    storage = x[1:3].untyped_storage()
    assert storage.nbytes() == storage.size() == len(storage) == 16 and storage.element_size() == 1
    assert storage.data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr()
    assert storage.tolist() == np.arange(4, dtype=np.int32).view(np.uint8).tolist()
    assert storage[4] == 1 and storage.device == framework.device("cpu")
    assert framework.is_storage(storage) and not framework.is_storage(x)
    assert repr(framework.UntypedStorage(2)) == " 0\n 0\n[framework.UntypedStorage(device=cpu) of size 2]"
    assert framework.empty(3, device="meta").untyped_storage().nbytes() == 12


def test_is_nonzero() -> None:
    assert framework.is_nonzero(framework.tensor([[1.5]])) and not framework.is_nonzero(framework.tensor(0.0))
    with pytest.raises(
        RuntimeError, match=r"^Boolean value of Tensor with more than one value is ambiguous$"
    ):
        framework.is_nonzero(framework.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"^Boolean value of Tensor with no values is ambiguous$"):
        framework.is_nonzero(framework.tensor([]))
    with pytest.raises(
        TypeError, match=r"^is_nonzero\(\): argument 'input' \(position 1\) must be Tensor, not int$"
    ):
        framework.is_nonzero(1)  # type: ignore[arg-type]


def test_result_type() -> None:
    assert framework.result_type(framework.ones(1), 1.0) is framework.float32
    assert framework.result_type(1, 1.0) is framework.float32
    assert framework.result_type(True, 2) is framework.int64
    assert framework.result_type(framework.ones(1, dtype=framework.uint8), -1) is framework.uint8
    assert (
        framework.result_type(framework.ones(1, dtype=framework.int32), framework.tensor(1.0))
        is framework.float32
    )
    with pytest.raises(TypeError, match="result_type"):
        framework.result_type("a", 1)  # type: ignore[arg-type]


# ---- pickling and deepcopy -----------------------------------------------------------------------


def test_pickle_round_trip_keeps_values_geometry_and_requires_grad() -> None:
    x = framework.arange(12.0).reshape(3, 4)
    for t in (x, x.t(), x[1:, ::2], framework.tensor(2.5), framework.zeros(0, 3)):
        back = pickle.loads(pickle.dumps(t))
        assert type(back) is framework.Tensor and back.dtype is t.dtype
        assert (
            back.shape == t.shape
            and back.stride() == t.stride()
            and back.storage_offset() == t.storage_offset()
        )
        np.testing.assert_array_equal(back.numpy(), t.numpy())
    y = framework.ones(2, requires_grad=True) * 2
    back = pickle.loads(pickle.dumps(y))
    assert back.requires_grad and back.is_leaf and back.grad_fn is None


def test_pickles_each_tensors_storage_apart_as_pytorch() -> None:
    x = framework.arange(4.0)
    a, b = pickle.loads(pickle.dumps((x, x[1:3])))
    a[1] = 100.0
    assert b.tolist() == [1.0, 2.0] and b.storage_offset() == 1 and b.untyped_storage().nbytes() == 16


def test_pickle_of_parameters_modules_and_optimizer_state() -> None:
    p = nn.Parameter(framework.randn(2))
    p.grad = framework.ones(2)
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is nn.Parameter and back.requires_grad and back.grad is None
    assert not pickle.loads(pickle.dumps(nn.Parameter(framework.randn(2), requires_grad=False))).requires_grad
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    copied = pickle.loads(pickle.dumps(model))
    x = framework.randn(4, 3)
    model.eval(), copied.eval()
    np.testing.assert_array_equal(copied(x).detach().numpy(), model(x).detach().numpy())
    optimizer = framework.optim.Adam(model.parameters())
    model(x).sum().backward()
    optimizer.step()
    state = pickle.loads(pickle.dumps(optimizer.state_dict()))
    exp_avg = state["state"][0]["exp_avg"]
    np.testing.assert_array_equal(exp_avg.numpy(), optimizer.state_dict()["state"][0]["exp_avg"].numpy())


def test_pickles_meta_tensors_and_subclass_attributes() -> None:
    m = pickle.loads(pickle.dumps(framework.empty(2, 3, device="meta")))
    assert m.device == framework.device("meta") and m.shape == (2, 3)
    buffer = nn.Buffer(framework.ones(2), persistent=False)
    back = pickle.loads(pickle.dumps(buffer))
    assert type(back) is nn.Buffer and back.persistent is False and back.tolist() == [1.0, 1.0]


def test_deepcopy_keeps_grad_and_shares_storage_among_views() -> None:
    t = framework.randn(4, requires_grad=True)
    t.grad = framework.ones(4)
    c = copy.deepcopy(t)
    assert c.requires_grad and c.grad is not None and c.grad.tolist() == [1.0] * 4
    assert c.data_ptr() != t.data_ptr()
    x = framework.arange(4.0)
    a, b = copy.deepcopy((x, x[1:3]))
    a[1] = 100.0
    assert b.tolist() == [100.0, 2.0]
    p = nn.Parameter(framework.randn(2))
    p.grad = framework.ones(2)
    assert copy.deepcopy(p).grad is None  # as PyTorch's Parameter.__deepcopy__


# ---- round(decimals=) ----------------------------------------------------------------------------


@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("dtype", [framework.float16, framework.float32, framework.float64], ids=str)
def test_round_decimals_values(decimals: int, dtype: framework.dtype) -> None:
    a = np.random.default_rng(decimals + 5).uniform(-500, 500, 50).astype(dtype.numpy_dtype)
    compute = np.float32 if dtype is framework.float16 else a.dtype.type
    scale = compute(10.0 ** abs(decimals))
    b = a.astype(compute)
    expected = (np.rint(b * scale) / scale if decimals >= 0 else np.rint(b / scale) * scale).astype(a.dtype)
    x = framework.from_numpy(a)
    np.testing.assert_array_equal(x.round(decimals=decimals).numpy(), expected)
    np.testing.assert_array_equal(framework.round(x, decimals=decimals).numpy(), expected)
    out = framework.empty(0, dtype=dtype)
    framework.round(x, decimals=decimals, out=out)
    np.testing.assert_array_equal(out.numpy(), expected)
    x.round_(decimals=decimals)
    np.testing.assert_array_equal(x.numpy(), expected)


def test_round_decimals_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).uniform(-500, 500, 200)
    for dtype in (np.float16, np.float32, np.float64):
        for decimals in (-3, -1, 0, 2, 4):
            ours = framework.from_numpy(a.astype(dtype)).round(decimals=decimals).numpy()
            theirs = torch.from_numpy(a.astype(dtype)).round(decimals=decimals).numpy()
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [framework.int64, framework.bool, framework.complex64], ids=str)
def test_round_decimals_refuses_other_dtypes(dtype: framework.dtype) -> None:
    name = {framework.int64: "Long", framework.bool: "Bool", framework.complex64: "ComplexFloat"}[dtype]
    with pytest.raises(NotImplementedError, match=f"^\"round_cpu\" not implemented for '{name}'$"):
        framework.zeros(2, dtype=dtype).round(decimals=1)


# ---- top-level settings --------------------------------------------------------------------------


def test_backends() -> None:
    from framework import backends

    assert backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert backends.mps.is_available() is False and backends.mps.is_built() is False
    assert backends.cudnn.is_available() is False and backends.cudnn.version() is None
    assert (backends.cudnn.enabled, backends.cudnn.benchmark, backends.cudnn.deterministic) == (
        True,
        False,
        False,
    )
    assert backends.cuda.is_built() is False and backends.cuda.matmul.allow_tf32 is False


def test_cudnn_flags_are_settable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framework.backends.cudnn, "deterministic", False)
    monkeypatch.setattr(framework.backends.cudnn, "benchmark", False)
    framework.backends.cudnn.deterministic = True
    framework.backends.cudnn.benchmark = True
    assert framework.backends.cudnn.deterministic and framework.backends.cudnn.benchmark


def test_num_threads() -> None:
    before = framework.get_num_threads()
    assert before >= 1
    try:
        framework.set_num_threads(1)
        assert framework.get_num_threads() == 1
    finally:
        framework.set_num_threads(before)
    for bad, message in (
        (0, "expects a positive integer"),
        (-1, "expects a positive integer"),
        (1.5, "expects an int, but got float"),
    ):
        with pytest.raises(RuntimeError, match=f"^set_num_threads {message}$"):
            framework.set_num_threads(bad)  # type: ignore[arg-type]


def test_deterministic_algorithms() -> None:
    assert not framework.are_deterministic_algorithms_enabled()
    try:
        framework.use_deterministic_algorithms(True, warn_only=True)
        assert framework.are_deterministic_algorithms_enabled()
        assert framework.is_deterministic_algorithms_warn_only_enabled()
    finally:
        framework.use_deterministic_algorithms(False)
    assert not framework.is_deterministic_algorithms_warn_only_enabled()
    with pytest.raises(TypeError, match=r"argument 'mode' \(position 1\) must be bool, not int"):
        framework.use_deterministic_algorithms(1)  # type: ignore[arg-type]


def test_default_device_is_the_cpu() -> None:
    assert framework.get_default_device() == framework.device("cpu")
    framework.set_default_device("cpu")
    framework.set_default_device(None)
    with pytest.raises(RuntimeError, match="only the cpu device is supported"):
        framework.set_default_device("meta")


def test_numpy_floats_on_the_left_give_tensors() -> None:
    x = framework.ones(2)
    value = np.float64(2.0) * x
    assert isinstance(value, framework.Tensor) and value.tolist() == [2.0, 2.0]


def test_copy_shares_memory_in_a_new_leaf() -> None:
    x = framework.zeros(3, requires_grad=True)
    x.grad = framework.ones(3)
    y = copy.copy(x)
    assert y is not x and y.data_ptr() == x.data_ptr() and y.requires_grad and y.is_leaf and y.grad is None
    z = copy.copy(framework.ones(2, requires_grad=True) * 2)
    assert z.requires_grad and z.grad_fn is None
    p = nn.Parameter(framework.zeros(2))
    q = copy.copy(p)
    assert type(q) is nn.Parameter and q.data_ptr() == p.data_ptr()
    b = copy.copy(nn.Buffer(framework.ones(2), persistent=False))
    assert type(b) is nn.Buffer and b.persistent is False
