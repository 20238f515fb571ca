"""Misc top-level and Tensor API: the `*_copy` operators, fill, nonzero_static, empty_permuted,
adjoint, dropout_, gradient, resize_/set_/storages, shared memory, dim_order, DLPack, asarray,
frombuffer, range and the process settings. NumPy is the oracle for values; PyTorch, when
importable, for what NumPy cannot say (RNG streams, layouts)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework
from framework import Tensor


def _rand(*shape: int, seed: int = 0) -> Tensor:
    return framework.from_numpy(np.random.default_rng(seed).standard_normal(shape))


A = np.random.default_rng(0).standard_normal((2, 3, 4))
M = np.random.default_rng(1).standard_normal((3, 4))

COPIES: list[tuple[str, Callable[[Tensor], Any], Callable[[], Any]]] = [
    (
        "view_copy",
        lambda t: framework.view_copy(t.transpose(0, 2), [24]),
        lambda: A.transpose(2, 1, 0).reshape(24),
    ),
    ("permute_copy", lambda t: framework.permute_copy(t, [2, 0, 1]), lambda: A.transpose(2, 0, 1)),
    ("transpose_copy", lambda t: framework.transpose_copy(t, 0, 2), lambda: A.swapaxes(0, 2)),
    ("t_copy", lambda t: framework.t_copy(t[0]), lambda: A[0].T),
    (
        "expand_copy",
        lambda t: framework.expand_copy(t[:, :1], [2, 3, 4]),
        lambda: np.broadcast_to(A[:, :1], (2, 3, 4)),
    ),
    ("squeeze_copy", lambda t: framework.squeeze_copy(t[:, :1], 1), lambda: A[:, 0]),
    ("unsqueeze_copy", lambda t: framework.unsqueeze_copy(t, -1), lambda: A[..., None]),
    ("select_copy", lambda t: framework.select_copy(t, 1, -1), lambda: A[:, -1]),
    ("slice_copy", lambda t: framework.slice_copy(t, 2, 1, 4, 2), lambda: A[:, :, 1:4:2]),
    ("diagonal_copy", lambda t: framework.diagonal_copy(t, 1, 1, 2), lambda: np.diagonal(A, 1, 1, 2)),
    (
        "unfold_copy",
        lambda t: framework.unfold_copy(t, 2, 2, 1),
        lambda: np.lib.stride_tricks.sliding_window_view(A, 2, 2),
    ),
    ("alias_copy", lambda t: framework.alias_copy(t), lambda: A),
    ("detach_copy", lambda t: framework.detach_copy(t), lambda: A),
    (
        "as_strided_copy",
        lambda t: framework.as_strided_copy(t, [2, 2], [1, 4], 1),
        lambda: A.reshape(-1)[[[1, 5], [2, 6]]],
    ),
    ("narrow_copy", lambda t: t.narrow_copy(1, 1, 2), lambda: A[:, 1:3]),
]


@pytest.mark.parametrize(("name", "call", "expected"), COPIES, ids=[c[0] for c in COPIES])
def test_copy_operators(name: str, call: Callable[[Tensor], Any], expected: Callable[[], Any]) -> None:
    t = framework.from_numpy(A.copy())
    result = call(t)
    np.testing.assert_array_equal(result.numpy(), expected())
    assert result.is_contiguous()
    assert result.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


def test_copy_operators_out_and_lists() -> None:
    t = framework.from_numpy(A.copy())
    out = framework.empty(0, dtype=framework.float64)
    assert framework.t_copy(t[0], out=out) is out
    np.testing.assert_array_equal(out.numpy(), A[0].T)
    for parts, expected in (
        (framework.split_copy(t, 2, 2), np.split(A, 2, 2)),
        (framework.split_with_sizes_copy(t, [1, 3], 2), np.split(A, [1], 2)),
        (framework.unbind_copy(t, 1), [A[:, i] for i in range(3)]),
    ):
        assert len(parts) == len(expected)
        for p, e in zip(parts, expected, strict=True):
            np.testing.assert_array_equal(p.numpy(), e)
            assert p.is_contiguous() and p.data_ptr() != t.data_ptr()
    c = framework.from_numpy(A[0] + 1j * A[1])
    np.testing.assert_array_equal(framework.view_as_real_copy(c).numpy(), np.stack([A[0], A[1]], -1))
    x = _rand(2, 3).requires_grad_()
    assert framework.transpose_copy(x, 0, 1).grad_fn.name() == "TransposeBackward0_copy"
    assert framework.narrow_copy(x, 0, 0, 1).grad_fn.name() == "NarrowCopyBackward0"
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        framework.narrow_copy(x, 0, 1, 3)


def test_fill() -> None:
    x = _rand(2, 3).requires_grad_()
    filled = framework.fill(x, 2.5)
    np.testing.assert_array_equal(filled.numpy(force=True), np.full((2, 3), 2.5))
    assert filled.grad_fn.name() == "FillBackward0"
    value = framework.tensor(1.5, dtype=framework.float64, requires_grad=True)
    (framework.fill(x, value) * 2).sum().backward()
    assert value.grad is not None and value.grad.item() == 12.0
    assert framework.fill(framework.zeros(2, dtype=framework.int64), 2.7).tolist() == [2, 2]
    z = framework.zeros(3)
    assert z.fill_(framework.tensor(4.0)) is z and z.tolist() == [4.0] * 3
    with pytest.raises(
        RuntimeError, match=r"fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions\."
    ):
        framework.fill(z, framework.ones(2))


def test_nonzero_static() -> None:
    a = np.array([[0, 1, 0], [2, 0, 3]])
    x = framework.from_numpy(a)
    found = np.argwhere(a)
    np.testing.assert_array_equal(
        framework.nonzero_static(x, size=5).numpy(), np.vstack([found, [[-1, -1]] * 2])
    )
    np.testing.assert_array_equal(x.nonzero_static(size=2, fill_value=9).numpy(), found[:2])
    assert framework.nonzero_static(framework.tensor(3.0), size=2).shape == (2, 0)
    with pytest.raises(RuntimeError, match="nonzero_static: 'size' must be an non-negative integer"):
        framework.nonzero_static(x, size=-1)
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have scalar type Long but got scalar typeInt"
    ):
        framework.nonzero_static(x, size=1, out=framework.zeros(1, dtype=framework.int32))


def test_empty_permuted() -> None:
    e = framework.empty_permuted((2, 3, 4), (0, 2, 1))
    assert e.shape == (2, 3, 4) and e.stride() == (12, 1, 3)
    for layout, message in (
        ((0, 0), "Duplicate dim not allowed"),
        ((0,), "len\\(size\\) = 2 is not equal to len\\(physical_layout\\) = 1"),
        ((0, 2), "Dimension out of range \\(expected to be between 0 and 1, but got 2 at index 1\\)"),
    ):
        with pytest.raises(RuntimeError, match=message):
            framework.empty_permuted((2, 3), layout)


def test_adjoint_and_dropout_() -> None:
    x = _rand(2, 3, 4)
    np.testing.assert_array_equal(framework.adjoint(x).numpy(), x.numpy().swapaxes(-1, -2))
    assert x.adjoint().data_ptr() == x.data_ptr()
    with pytest.raises(
        RuntimeError, match=r"only supported on matrices or batches of matrices\. Got 1-D tensor\."
    ):
        framework.adjoint(framework.ones(3))
    z = framework.tensor([[1 + 2j, 3j], [4 + 0j, 5 - 1j]], requires_grad=True)
    conjugated = z.adjoint()  # as PyTorch: a conjugate view of the transpose
    assert conjugated.is_conj() and conjugated.data_ptr() == z.data_ptr()
    assert conjugated.grad_fn is not None and conjugated.grad_fn.name() == "ConjBackward0"
    assert conjugated.grad_fn.next_functions[0][0].name() == "TransposeBackward0"
    np.testing.assert_array_equal(conjugated.resolve_conj().detach().numpy(), z.detach().numpy().conj().T)
    y = framework.ones(1000)
    assert framework.dropout_(y, 0.5, True) is y
    values = set(y.tolist())
    assert values == {0.0, 2.0} and 350 < y.count_nonzero().item() < 650
    z = framework.ones(4)
    assert framework.dropout_(z, 0.5, False).tolist() == [1.0] * 4


def test_dropout_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    framework.manual_seed(3)
    torch.manual_seed(3)
    ours = framework.dropout_(framework.ones(64), 0.3, True)
    theirs = torch.dropout_(torch.ones(64), 0.3, True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


GRADIENT_CASES = [
    ({}, {}),
    ({"spacing": 2.0, "dim": 1}, {"varargs": (2.0,), "axis": 1}),
    ({"spacing": [2.0, 0.5]}, {"varargs": (2.0, 0.5)}),
    ({"dim": [1], "edge_order": 2}, {"axis": 1, "edge_order": 2}),
    (
        {"spacing": [framework.tensor([0.0, 1.0, 3.0], dtype=framework.float64)], "dim": 0, "edge_order": 2},
        {"varargs": (np.array([0.0, 1.0, 3.0]),), "axis": 0, "edge_order": 2},
    ),
    (
        {"spacing": (framework.tensor([0.0, 1.0, 1.5, 3.5], dtype=framework.float64),), "dim": -1},
        {"varargs": (np.array([0.0, 1.0, 1.5, 3.5]),), "axis": -1},
    ),
]


@pytest.mark.parametrize(("ours", "numpy_kwargs"), GRADIENT_CASES)
def test_gradient_against_numpy(ours: dict[str, Any], numpy_kwargs: dict[str, Any]) -> None:
    a = np.random.default_rng(2).standard_normal((3, 4))
    result = framework.gradient(framework.from_numpy(a), **ours)
    varargs = numpy_kwargs.pop("varargs", ())
    expected = np.gradient(a, *varargs, **numpy_kwargs)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected, strict=True):
        np.testing.assert_allclose(r.numpy(), e, rtol=1e-12, atol=1e-12)


def test_gradient_autograd_and_errors() -> None:
    x = _rand(3, 4).requires_grad_()
    assert framework.gradient(x)[0].grad_fn.name() == "CatBackward0"
    assert framework.autograd.gradcheck(lambda t: framework.gradient(t, edge_order=2), (x,))
    assert framework.gradient(framework.tensor([1, 2, 4]))[0].tolist() == [1.0, 1.5, 2.0]
    for kwargs, message in (
        ({"edge_order": 3}, "only supports edge_order=1 and edge_order=2."),
        (
            {"spacing": [1.0]},
            "a list of length equal to 'self.dim\\(\\) = 2', since dim argument was not given",
        ),
        ({"spacing": [1.0, 2.0], "dim": 1}, "spacing argument of length 2 and a dim argument of length 1."),
        ({"dim": [0, 0]}, "dim 0 appears multiple times in the list of dims"),
        ({"spacing": [framework.ones(1, 3)], "dim": 0}, "got an element with 2 dimensions!"),
    ):
        with pytest.raises(RuntimeError, match=message):
            framework.gradient(x, **kwargs)
    with pytest.raises(RuntimeError, match="each dimension size to be at least edge_order\\+1"):
        framework.gradient(framework.ones(2), edge_order=2)


def test_resize_() -> None:
    x = framework.arange(6.0).reshape(2, 3).t()
    assert x.resize_(3, 2).stride() == (1, 3)
    assert x.resize_(2, 2).stride() == (2, 1)
    z = framework.zeros(2, 3)
    z.resize_(10)
    assert z.shape == (10,) and z.untyped_storage().nbytes() == 40 and z._version == 1
    cl = framework.zeros(2, 2, 3, 3).resize_(2, 3, 3, 2, memory_format=framework.channels_last)
    assert cl.stride() == (18, 1, 6, 3)
    assert framework.resize_as_(framework.zeros(3), framework.zeros(2, 2)).shape == (2, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        framework.zeros(2, requires_grad=True).resize_(4)
    shared = framework.from_numpy(np.zeros(4, dtype=np.float32))
    assert shared.resize_(2).shape == (2,)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        shared.resize_(5)


def test_set_and_is_set_to() -> None:
    a = framework.arange(6.0)
    b = framework.zeros(2)
    assert b.set_(a) is b and b.tolist() == a.tolist() and b.is_set_to(a) and a.is_set_to(b)
    c = framework.zeros(1).set_(a, 2, (2, 2))
    assert c.tolist() == [[2.0, 3.0], [4.0, 5.0]] and not c.is_set_to(a)
    assert c.set_(a, 1, (2,), (2,)).tolist() == [1.0, 3.0]
    assert c.set_(a.untyped_storage(), 1, (2, 2)).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert c.set_(a.untyped_storage()).shape == (6,)
    c[0] = 7.0
    assert a[0].item() == 7.0
    assert c.set_().shape == (0,) and c.untyped_storage().nbytes() == 0
    framework.zeros(1).set_(a, 0, (7,))
    assert a.untyped_storage().nbytes() == 28
    for call, message in (
        (
            lambda: framework.zeros(2, dtype=framework.int64).set_(a),
            "Could not set tensor of type float to a tensor of type long int",
        ),
        (lambda: framework.zeros(2, requires_grad=True).set_(a), "a leaf Variable that requires grad"),
        (
            lambda: framework.zeros(2).set_(a, 0, (2,), (1, 1)),
            "unequal size length \\(1\\) and stride length \\(2\\)",
        ),
        (lambda: framework.zeros(2).set_(a, -1, (2,)), "Tensor: invalid storage offset -1"),
        (lambda: framework.zeros(2).set_(framework.zeros(3, device="meta")), "the devices must match"),
    ):
        with pytest.raises(RuntimeError, match=message):
            call()
    h = framework.ones(2, requires_grad=True) * 1
    assert h.set_(a).grad_fn.name() == "torch::autograd::NotImplemented"


def test_typed_storage() -> None:
    t = framework.arange(4.0)
    framework.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
            s = t.storage()
    finally:
        framework.set_warn_always(False)
    assert (s.size(), len(s), s.dtype, s.element_size(), s.nbytes()) == (4, 4, framework.float32, 4, 16)
    assert (
        s[1] == 1.0 and s[-1] == 3.0 and s.tolist() == [0.0, 1.0, 2.0, 3.0] and s.data_ptr() == t.data_ptr()
    )
    s[0] = 7.0
    assert t[0].item() == 7.0
    with pytest.raises(IndexError, match="index 4 out of range for storage of size 4"):
        s[4]
    with pytest.raises(RuntimeError, match=r"slices are only supported in UntypedStorage\.__getitem__"):
        s[1:2]
    assert repr(framework.arange(2).storage()).splitlines() == [
        " 0",
        " 1",
        "[framework.storage.TypedStorage(dtype=framework.int64, device=cpu) of size 2]",
    ]
    assert t.storage_type() is framework.FloatStorage and isinstance(s, framework.FloatStorage)
    assert not isinstance(s, framework.LongStorage) and framework.is_storage(s)
    assert framework.DoubleStorage([1, 2]).tolist() == [1.0, 2.0]
    with pytest.raises(
        RuntimeError, match="Expected a Storage of type float or an UntypedStorage, but got type Long"
    ):
        framework.zeros(2).set_(framework.arange(3).storage())
    assert framework.zeros(1).set_(s, 1, (2,)).tolist() == [1.0, 2.0]


def test_share_memory_() -> None:
    z = framework.zeros(4)
    view = z[1:]
    old = z.data_ptr()
    assert not z.is_shared()
    assert z.share_memory_() is z and z.is_shared() and view.is_shared() and z.data_ptr() != old
    z[1] = 5.0
    assert view.tolist() == [5.0, 0.0, 0.0]
    pid = os.fork()
    if pid == 0:
        z[0] = 42.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert z.tolist() == [42.0, 5.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="not resizable"):
        z.resize_(10)


def test_dim_order() -> None:
    assert framework.zeros(2, 3, 4).dim_order() == (0, 1, 2)
    assert framework.zeros(2, 3, 4).permute(2, 0, 1).dim_order() == (1, 2, 0)
    cl = framework.empty(2, 3, 4, 5).to(memory_format=framework.channels_last)
    assert cl.dim_order() == (0, 2, 3, 1)
    assert framework.zeros(2, 1, 3).dim_order(ambiguity_check=[framework.contiguous_format]) == (0, 1, 2)
    with pytest.raises(RuntimeError, match="The tensor does not have unique dim order"):
        framework.zeros(2, 1, 3).dim_order(ambiguity_check=True)
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        framework.zeros(2).dim_order(ambiguity_check=[1])  # type: ignore[list-item]


def test_dim_order_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    for shape, strides in (
        ((2, 2, 3), (1, 0, 2)),
        ((3, 1, 2), (2, 6, 1)),
        ((2, 3), (1, 1)),
        ((4, 1, 1), (1, 1, 1)),
    ):
        ours = framework.empty_strided(shape, strides).dim_order()
        assert ours == torch.empty_strided(shape, strides).dim_order(), (shape, strides)


def test_tensor_odds_and_ends() -> None:
    class Sub(Tensor):
        pass

    y = framework.ones(2, requires_grad=True) * 2
    s = y.as_subclass(Sub)
    assert type(s) is Sub and s.grad_fn.name() == "AliasBackward0" and s.data_ptr() == y.data_ptr()
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        y.as_subclass(int)  # type: ignore[type-var]
    t = framework.zeros(2)
    assert t.const_data_ptr() == t.data_ptr()
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert t.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        t.volatile = True
    a = framework.ones(3)
    assert a.map2_(framework.arange(3.0), framework.full((3,), 2.0), lambda u, v, w: u + v * w).tolist() == [
        1.0,
        3.0,
        5.0,
    ]
    with pytest.raises(
        TypeError, match=r"map2_: expected torch\.FloatTensor for argument 'x' \(got torch\.LongTensor\)"
    ):
        a.map2_(framework.ones(3, dtype=framework.int64), a, lambda u, v, w: u)
    x = framework.ones(2, requires_grad=True)
    assert not framework.detach(x).requires_grad and not framework.is_inference(x)
    assert framework.get_device(x) == -1
    assert framework.detach_(x * 1).requires_grad is False


def test_typename_and_range() -> None:
    assert framework.typename(framework.zeros(2, dtype=framework.int64)) == "framework.LongTensor"
    assert framework.typename(3) == "int"
    assert framework.typename(framework.nn.Linear(1, 1)) == "framework.nn.modules.linear.Linear"
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = framework.range(1, 4)
    assert r.dtype == framework.float32 and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.warns(UserWarning):
        assert framework.range(0, 5, 2, dtype=framework.int64).tolist() == [0, 2, 4]
        assert framework.range(5, 1, -2).tolist() == [5.0, 3.0, 1.0]
        np.testing.assert_allclose(
            framework.range(0, 1, 0.1, dtype=framework.float64).numpy(), np.arange(11) * 0.1
        )
        out = framework.empty(0)
        assert framework.range(0, 2, out=out) is out and out.tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(RuntimeError, match="step must be nonzero"):
            framework.range(0, 1, 0)
        with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
            framework.range(0, 1, -1)


def test_asarray() -> None:
    t = framework.arange(4.0)
    assert framework.asarray(t) is t and framework.asarray(t, dtype=framework.float32) is t
    copied = framework.asarray(t, copy=True)
    assert copied is not t and copied.data_ptr() != t.data_ptr()
    assert framework.asarray(t, dtype=framework.int64).dtype == framework.int64
    n = np.arange(3.0)
    shared = framework.asarray(n)
    n[0] = 9.0
    assert shared.tolist() == [9.0, 1.0, 2.0] and shared.dtype == framework.float64
    assert (
        framework.asarray([1, 2]).dtype == framework.int64
        and framework.asarray([1.0]).dtype == framework.float32
    )
    buffer = bytearray(np.float32([1.0, 2.0]).tobytes())
    viewed = framework.asarray(buffer)
    buffer[:4] = np.float32([5.0]).tobytes()
    assert viewed.tolist() == [5.0, 2.0]
    for call, message in (
        (
            lambda: framework.asarray(t, dtype=framework.int64, copy=False),
            "can't alias tensor with dtype 'Float' into dtype 'Long'.",
        ),
        (lambda: framework.asarray([1, 2], copy=False), "can't alias arbitrary sequence into a tensor."),
    ):
        with pytest.raises(ValueError, match=message):
            call()
    g = framework.ones(2, requires_grad=True)
    framework.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="unspecified requires_grad now defaults to obj.requires_grad"):
            assert framework.asarray(g, dtype=framework.float64).grad_fn.name() == "ToCopyBackward0"
    finally:
        framework.set_warn_always(False)
    plain = framework.zeros(2)
    assert framework.asarray(plain, requires_grad=True) is plain and plain.requires_grad


def test_frombuffer_and_dlpack() -> None:
    buffer = bytearray(8)
    t = framework.frombuffer(buffer, dtype=framework.int16, count=2, offset=2)
    t[0] = 258
    assert bytes(buffer[2:4]) == np.int16(258).tobytes() and t.shape == (2,)
    for kwargs, message in (
        (
            {"buffer": b"", "dtype": framework.int8},
            "both buffer length \\(0\\) and count \\(-1\\) must not be 0",
        ),
        (
            {"buffer": bytearray(4), "dtype": framework.int8, "offset": 4},
            "offset \\(4 bytes\\) must be non-negative",
        ),
        (
            {"buffer": bytearray(6), "dtype": framework.float32},
            r"buffer length \(6 bytes\) after offset \(0 bytes\) must be a multiple of element size",
        ),
        (
            {"buffer": bytearray(8), "dtype": framework.float32, "count": 3},
            "requested buffer length \\(3 \\* 4 bytes\\)",
        ),
        ({"buffer": [1, 2], "dtype": framework.float32}, "object does not implement Python buffer protocol."),
    ):
        with pytest.raises(ValueError, match=message):
            framework.frombuffer(**kwargs)
    n = np.arange(3.0)
    from_numpy = framework.from_dlpack(n)
    n[1] = 8.0
    assert from_numpy.tolist() == [0.0, 8.0, 2.0]
    source = framework.arange(3.0)
    exported = np.from_dlpack(source)
    exported[0] = 4.0
    assert source[0].item() == 4.0 and source.__dlpack_device__() == (1, 0)
    back = framework.utils.dlpack.from_dlpack(framework.utils.dlpack.to_dlpack(source))
    back[2] = 6.0
    assert source.tolist() == [4.0, 1.0, 6.0]
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        framework.ones(2, requires_grad=True).__dlpack__()


def test_settings() -> None:
    framework.set_warn_always(True)  # the deprecation warning is given once, or every time
    try:
        assert framework.is_warn_always_enabled()
        for legacy, expected in (
            (framework.DoubleTensor, framework.float64),
            ("torch.FloatTensor", framework.float32),
        ):
            with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
                framework.set_default_tensor_type(legacy)
            assert framework.get_default_dtype() == expected
        with (
            pytest.warns(UserWarning, match="is deprecated"),
            pytest.raises(TypeError, match="only floating-point types are supported as the default type"),
        ):
            framework.set_default_tensor_type(framework.LongTensor)
    finally:
        framework.set_warn_always(False)
        framework.set_default_dtype(framework.float32)
    assert not framework.is_warn_always_enabled()
    assert framework.get_float32_matmul_precision() == "highest"
    framework.set_float32_matmul_precision("medium")
    assert framework.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning, match="bad is not one of 'highest', 'high', or 'medium'"):
        framework.set_float32_matmul_precision("bad")
    framework.set_float32_matmul_precision("highest")
    framework.set_anomaly_enabled(True, False)
    assert framework.is_anomaly_enabled() and not framework.is_anomaly_check_nan_enabled()
    framework.set_anomaly_enabled(False)
    assert not framework.is_anomaly_enabled() and framework.is_anomaly_check_nan_enabled()
    assert framework.get_num_interop_threads() >= 1
    assert framework.set_flush_denormal(True) is False and framework.compiled_with_cxx11_abi() is True


def test_set_num_interop_threads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framework._api_misc._State, "interop_threads", None)
    framework.set_num_interop_threads(3)
    assert framework.get_num_interop_threads() == 3
    with pytest.raises(
        RuntimeError, match="cannot set number of interop threads after parallel work has started"
    ):
        framework.set_num_interop_threads(2)
