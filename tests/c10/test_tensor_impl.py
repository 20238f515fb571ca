"""TensorImpl (keys, strides, contiguity, version counter, storage), from_numpy and the Tensor handle."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from framework._tensor import Tensor, from_numpy
from framework.c10.device import Device
from framework.c10.dispatch_key import DispatchKey, DispatchKeySet
from framework.c10.dtypes import float32, float64, int16, int64
from framework.c10.storage import StorageImpl, get_cpu_allocator, memory_stats
from framework.c10.tensor_impl import (
    TensorImpl,
    VersionCounter,
    backend_key_for_device,
    contiguous_strides,
    key_set_for_device,
)

torch: Any
try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

K = DispatchKey
CPU = Device("cpu")
META = Device("meta")
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are "
    "not currently supported. (You can probably work around this by making a copy of your array  with "
    "array.copy().) "
)


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Collect garbage now and keep the collector off, so live-byte deltas are exact."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def view(impl: TensorImpl, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int) -> TensorImpl:
    return TensorImpl(impl.storage, impl.dtype, sizes, strides, offset, version_counter=impl.version_counter)


# ---- keys -------------------------------------------------------------------------------------


def test_cpu_key_set() -> None:
    impl = TensorImpl.empty([2, 3], float32, CPU)
    assert impl.key_set == DispatchKeySet((K.CPU, K.ADInplaceOrView, K.AutogradCPU, K.AutocastCPU))
    assert list(impl.key_set) == [K.AutocastCPU, K.AutogradCPU, K.ADInplaceOrView, K.CPU]
    assert impl.device == CPU


def test_meta_key_set() -> None:
    impl = TensorImpl.empty([2, 3], float32, META)
    assert impl.key_set == DispatchKeySet((K.Meta, K.ADInplaceOrView, K.AutogradMeta))
    assert impl.device == META


def test_key_set_for_device() -> None:
    assert key_set_for_device(Device("privateuseone")) == DispatchKeySet(
        (K.PrivateUse1, K.ADInplaceOrView, K.AutogradPrivateUse1)
    )
    cpu_keys = DispatchKeySet((K.CPU, K.ADInplaceOrView, K.AutogradCPU, K.AutocastCPU))
    assert key_set_for_device(Device("cpu", 0)) == cpu_keys
    assert backend_key_for_device(META) is K.Meta


def test_explicit_key_set_is_kept() -> None:
    keys = DispatchKeySet((K.CPU, K.AutogradCPU, K.Python))
    impl = TensorImpl(StorageImpl(8, get_cpu_allocator()), float32, [2], key_set=keys)
    assert impl.key_set is keys


def test_empty_has_no_private_use1_allocator() -> None:
    with pytest.raises(RuntimeError, match=r"^TensorImpl\.empty: no allocator for device 'privateuseone'$"):
        TensorImpl.empty([1], float32, Device("privateuseone"))


@pytest.mark.skipif(torch is None, reason="torch (oracle) not installed")
def test_torch_tensor_keys_contain_ours() -> None:
    """PyTorch's tensors carry extra keys (ADInplaceOrView, Autocast...), but include ours."""
    for device in ("cpu", "meta"):
        text = str(torch._C._dispatch_keys(torch.empty(2, device=device)))
        ours = key_set_for_device(Device(device))
        for k in ours:
            assert k.name in text, (device, k.name)


# ---- sizes, strides, contiguity --------------------------------------------------------------


@pytest.mark.parametrize(
    ("sizes", "strides"),
    [
        ((), ()),
        ((5,), (1,)),
        ((2, 3, 4), (12, 4, 1)),
        ((2, 0, 3), (3, 3, 1)),
        ((0,), (1,)),
        ((4, 1, 2), (2, 2, 1)),
    ],
)
def test_contiguous_strides(sizes: tuple[int, ...], strides: tuple[int, ...]) -> None:
    assert contiguous_strides(sizes) == strides
    if torch is not None:
        assert torch.empty(sizes).stride() == strides


def test_default_strides_numel_dim() -> None:
    impl = TensorImpl.empty([2, 3, 4], float64, CPU)
    assert impl.sizes == (2, 3, 4) and impl.strides == (12, 4, 1)
    assert impl.storage_offset == 0
    assert impl.numel() == 24 and impl.dim() == 3
    assert impl.storage.nbytes == 24 * 8
    scalar = TensorImpl.empty([], float32, CPU)
    assert (scalar.numel(), scalar.dim(), scalar.strides) == (1, 0, ())
    assert scalar.storage.nbytes == 4
    zero = TensorImpl.empty([3, 0], float32, CPU)
    assert (zero.numel(), zero.dim(), zero.storage.nbytes) == (0, 2, 0)


def test_sizes_strides_length_mismatch() -> None:
    with pytest.raises(ValueError, match=r"sizes \[2, 3\] and strides \[1\] must have the same length"):
        TensorImpl(StorageImpl(24, get_cpu_allocator()), float32, [2, 3], [1])


CONTIGUITY_CASES = [
    ((2, 3), (3, 1), True),
    ((2, 3), (1, 2), False),  # transposed
    ((3, 2), (1, 3), False),  # transposed
    ((2, 3), (6, 2), False),  # every other column
    ((1, 3), (100, 1), True),  # stride of a size-1 dim is ignored
    ((3, 1), (1, 7), True),
    ((1, 1), (5, 9), True),
    ((2, 1, 3), (3, 99, 1), True),
    ((2, 1, 3), (1, 99, 2), False),
    ((0, 3), (1, 5), True),  # zero elements: always contiguous
    ((3, 0), (0, 5), True),
    ((2, 0, 4), (1, 1, 9), True),
    ((), (), True),
    ((4,), (2,), False),
    ((4,), (1,), True),
    ((1,), (0,), True),
    ((2,), (0,), False),  # broadcast (expanded) dim
]


@pytest.mark.parametrize(("sizes", "strides", "expected"), CONTIGUITY_CASES)
def test_is_contiguous(sizes: tuple[int, ...], strides: tuple[int, ...], expected: bool) -> None:
    impl = TensorImpl(StorageImpl(0, get_cpu_allocator()), float32, sizes, strides)
    assert impl.is_contiguous() is expected
    assert Tensor(impl).is_contiguous() is expected
    if torch is not None:
        assert torch.empty_strided(sizes, strides).is_contiguous() is expected


# ---- version counter -------------------------------------------------------------------------


def test_version_counter_shared_and_bumped() -> None:
    base = TensorImpl.empty([4], float32, CPU)
    assert base.version_counter.version == 0
    v = view(base, (2,), (2,), 1)
    assert v.version_counter is base.version_counter
    v.version_counter.bump()
    v.version_counter.bump()
    assert base.version_counter.version == 2
    other = TensorImpl.empty([4], float32, CPU)
    assert other.version_counter is not base.version_counter
    assert other.version_counter.version == 0
    assert VersionCounter(7).version == 7


def test_autograd_meta_slot_starts_empty() -> None:
    impl = TensorImpl.empty([1], float32, CPU)
    assert impl.autograd_meta is None
    with pytest.raises(AttributeError):
        impl.something_else = 1  # type: ignore[attr-defined]


# ---- empty / allocation ----------------------------------------------------------------------


def test_empty_negative_size() -> None:
    with pytest.raises(RuntimeError) as info:
        TensorImpl.empty([2, -3], float32, CPU)
    assert str(info.value) == "Trying to create tensor with negative dimension -3: [2, -3]"
    if torch is not None:
        with pytest.raises(RuntimeError) as torch_info:
            torch.empty(2, -3)
        assert str(torch_info.value) == str(info.value)


def test_live_bytes_rise_and_fall(no_gc: None) -> None:
    before = memory_stats()["live_bytes"]
    a = TensorImpl.empty([100, 10], float64, CPU)
    b = TensorImpl.empty([3], int16, CPU)
    assert memory_stats()["live_bytes"] == before + 8000 + 6
    del a
    gc.collect()
    assert memory_stats()["live_bytes"] == before + 6
    del b
    gc.collect()
    assert memory_stats()["live_bytes"] == before


def test_view_keeps_storage_alive(no_gc: None) -> None:
    before = memory_stats()["live_bytes"]
    base = TensorImpl.empty([64], float32, CPU)
    v = view(base, (8,), (1,), 8)
    del base
    gc.collect()
    assert memory_stats()["live_bytes"] == before + 256
    del v
    gc.collect()
    assert memory_stats()["live_bytes"] == before


def test_meta_tensor_has_no_data(no_gc: None) -> None:
    before = memory_stats()["live_bytes"]
    impl = TensorImpl.empty([1000, 1000], float32, META)
    assert memory_stats()["live_bytes"] == before
    assert impl.storage.data is None
    assert impl.storage.nbytes == 4_000_000
    assert impl.storage.data_ptr() == 0
    with pytest.raises(RuntimeError, match=r"^Cannot access data of a tensor on device 'meta': it has no"):
        impl.numpy_view()
    t = Tensor(impl)
    assert t.data_ptr() == 0
    assert repr(t) == "tensor(..., device='meta', size=(1000, 1000))"
    with pytest.raises(RuntimeError, match="Cannot access data"):
        np.asarray(t)


# ---- from_numpy -----------------------------------------------------------------------------


def test_from_numpy_shares_memory_both_ways() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = from_numpy(a)
    assert t.dtype is float32 and t.shape == (2, 3) and t.stride() == (3, 1)
    assert t.data_ptr() == a.ctypes.data
    a[1, 2] = 42.0
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 42.0]]
    t.numpy()[0, 0] = -1.0
    assert a[0, 0] == -1.0
    assert np.shares_memory(t.numpy(), a)
    assert t.key_set == DispatchKeySet((K.CPU, K.ADInplaceOrView, K.AutogradCPU, K.AutocastCPU))
    assert t.device == CPU


def test_from_numpy_storage_is_not_counted_as_allocated(no_gc: None) -> None:
    a = np.zeros(1000)
    before = memory_stats()["live_bytes"]
    t = from_numpy(a)
    assert memory_stats()["live_bytes"] == before
    assert t._impl.storage.allocator is None
    assert t._impl.storage.nbytes == 8000


def test_from_numpy_keeps_array_memory_alive() -> None:
    t = from_numpy(np.arange(5, dtype=np.int64) * 3)
    gc.collect()
    assert t.tolist() == [0, 3, 6, 9, 12]
    assert t.dtype is int64


@pytest.mark.parametrize(
    ("make", "strides"),
    [
        (lambda a: a[:, ::2], (6, 2)),
        (lambda a: a.T, (1, 6)),
        (lambda a: a[1:, 2:], (6, 1)),
        (lambda a: a[::2, 1::3], (12, 3)),
        (lambda a: a[:, 3], (6,)),
        (lambda a: np.asfortranarray(a), (1, 4)),
    ],
    ids=["every-other-column", "transposed", "sliced-block", "stepped", "column", "fortran"],
)
def test_from_numpy_non_contiguous(make: Any, strides: tuple[int, ...]) -> None:
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    arr = make(base)
    t = from_numpy(arr)
    assert t.stride() == strides
    assert t.shape == arr.shape
    # the storage starts at the array's first element, as in torch.from_numpy
    assert t.storage_offset() == 0
    assert t.data_ptr() == arr.ctypes.data
    assert t.tolist() == arr.tolist()
    assert t.is_contiguous() is bool(arr.flags.c_contiguous or arr.size <= 1)
    if torch is not None:
        tt = torch.from_numpy(arr)
        assert tt.stride() == strides
        assert tt.storage_offset() == t.storage_offset()
        assert tt.is_contiguous() is t.is_contiguous()
    if not arr.flags.f_contiguous or arr.flags.c_contiguous:
        # writes go to the original array's memory and back
        arr_first = tuple(0 for _ in arr.shape)
        t.numpy()[arr_first] = 1000.0
        assert arr[arr_first] == 1000.0
        base[...] = -base
        assert t.tolist() == arr.tolist()


def test_from_numpy_sliced_view_storage_extent() -> None:
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    arr = base[1:3, 2:5]
    impl = from_numpy(arr)._impl
    # from the element at [1, 2] to the element at [2, 4]: 1 + 1*6 + 2*1 elements
    assert impl.storage.nbytes == 9 * 4
    assert impl.storage.data_ptr() == arr.ctypes.data


def test_from_numpy_zero_size_and_scalar() -> None:
    t = from_numpy(np.zeros((0, 3), dtype=np.float32))
    assert t.shape == (0, 3) and t.numel() == 0 and t.tolist() == []
    s = from_numpy(np.array(2.5))
    assert s.shape == () and s.dim() == 0 and s.item() == 2.5


@pytest.mark.parametrize("make", [lambda a: a[::-1], lambda a: a[:, ::-2]])
def test_from_numpy_rejects_negative_strides(make: Any) -> None:
    arr = make(np.arange(12.0).reshape(3, 4))
    with pytest.raises(ValueError) as info:
        from_numpy(arr)
    assert str(info.value) == NEGATIVE_STRIDES
    if torch is not None:
        with pytest.raises(ValueError) as torch_info:
            torch.from_numpy(arr)
        assert str(torch_info.value) == NEGATIVE_STRIDES


def test_from_numpy_rejects_non_arrays() -> None:
    with pytest.raises(TypeError, match=r"^expected np.ndarray \(got list\)$"):
        from_numpy([1, 2])  # type: ignore[arg-type]


# ---- Tensor handle --------------------------------------------------------------------------


def test_tensor_shape_size_stride() -> None:
    t = Tensor(TensorImpl.empty([2, 3, 4], float32, CPU))
    assert t.shape == (2, 3, 4)
    assert t.size() == (2, 3, 4)
    assert (t.size(0), t.size(1), t.size(-1), t.size(-3)) == (2, 3, 4, 2)
    assert t.stride() == (12, 4, 1)
    assert (t.stride(0), t.stride(-1)) == (12, 1)
    assert t.dim() == 3 and t.ndim == 3
    assert t.numel() == 24
    assert t.dtype is float32
    assert t.device == CPU


@pytest.mark.parametrize("dim", [3, -4, 10])
def test_tensor_size_dim_out_of_range(dim: int) -> None:
    t = Tensor(TensorImpl.empty([2, 3, 4], float32, CPU))
    expected = f"Dimension out of range (expected to be in range of [-3, 2], but got {dim})"
    for method in (t.size, t.stride):
        with pytest.raises(IndexError) as info:
            method(dim)
        assert str(info.value) == expected
    if torch is not None:
        with pytest.raises(IndexError) as torch_info:
            torch.empty(2, 3, 4).size(dim)
        assert str(torch_info.value) == expected


@pytest.mark.parametrize("dim", [0, -1, 1])
def test_tensor_size_dim_of_scalar(dim: int) -> None:
    t = Tensor(TensorImpl.empty([], float32, CPU))
    assert t.size() == () and t.stride() == ()
    expected = f"Dimension specified as {dim} but tensor has no dimensions"
    for method in (t.size, t.stride):
        with pytest.raises(IndexError) as info:
            method(dim)
        assert str(info.value) == expected
    if torch is not None:
        with pytest.raises(IndexError) as torch_info:
            torch.tensor(1.0).size(dim)
        assert str(torch_info.value) == expected


def test_data_ptr_moves_by_offset_times_itemsize() -> None:
    base = TensorImpl.empty([10], float64, CPU)
    t = Tensor(base)
    v = Tensor(view(base, (3,), (2,), 3))
    assert t.data_ptr() == base.storage.data_ptr() != 0
    assert t.data_ptr() % 64 == 0
    assert v.data_ptr() == t.data_ptr() + 3 * 8
    assert v.storage_offset() == 3
    assert np.asarray(v).ctypes.data == v.data_ptr()
    t.numpy()[:] = np.arange(10.0)
    assert v.tolist() == [3.0, 5.0, 7.0]
    assert not v.is_contiguous()


def test_item() -> None:
    assert from_numpy(np.array([7], dtype=np.int64)).item() == 7
    assert type(from_numpy(np.array([7], dtype=np.int64)).item()) is int
    assert from_numpy(np.array([[1.5]])).item() == 1.5
    assert from_numpy(np.array(True)).item() is True
    assert from_numpy(np.array([1 + 2j])).item() == 1 + 2j
    with pytest.raises(RuntimeError) as info:
        from_numpy(np.zeros((2, 3))).item()
    assert str(info.value) == "a Tensor with 6 elements cannot be converted to Scalar"
    with pytest.raises(RuntimeError, match=r"^a Tensor with 0 elements cannot be converted to Scalar$"):
        from_numpy(np.zeros(0)).item()
    if torch is not None:
        with pytest.raises(RuntimeError) as torch_info:
            torch.zeros(2, 3).item()
        assert str(torch_info.value) == str(info.value)


def test_tolist() -> None:
    t = from_numpy(np.arange(6, dtype=np.int64).reshape(2, 3))
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert from_numpy(np.array(3.0)).tolist() == 3.0


def test_array_protocol_shares_memory() -> None:
    a = np.arange(4, dtype=np.float32)
    t = from_numpy(a)
    arr = np.asarray(t)
    assert np.shares_memory(arr, a)
    arr[2] = 99.0
    assert a[2] == 99.0 and t.tolist() == [0.0, 1.0, 99.0, 3.0]
    copied = np.array(t, copy=True)
    assert not np.shares_memory(copied, a)
    converted = np.asarray(t, dtype=np.float64)
    assert converted.dtype == np.float64 and converted.tolist() == [0.0, 1.0, 99.0, 3.0]
    assert not np.shares_memory(converted, a)


def test_repr() -> None:
    # the dtype is shown unless it is the default float dtype (float32 here), int64 or bool
    assert repr(from_numpy(np.array([1.0, 2.5], dtype=np.float32))) == "tensor([1.0000, 2.5000])"
    assert repr(from_numpy(np.array([1, 2], dtype=np.int64))) == "tensor([1, 2])"
    assert repr(from_numpy(np.array([1, 2], dtype=np.int16))) == f"tensor([1, 2], dtype={int16})"
    assert repr(from_numpy(np.array([0.5]))) == f"tensor([0.5000], dtype={float64})"
