from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from framework.c10 import device as device_module
from framework.c10.device import (
    Device,
    DeviceType,
    Layout,
    MemoryFormat,
    channels_last,
    channels_last_3d,
    contiguous_format,
    get_privateuse1_backend_name,
    preserve_format,
    rename_privateuse1_backend,
    strided,
)

torch: Any
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch oracle not installed")

EXPECTED_TYPES = "cpu, meta, privateuseone"


def _exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


@pytest.fixture
def fresh_privateuse1() -> Iterator[None]:
    device_module._reset_privateuse1_backend_name_for_tests()
    yield
    device_module._reset_privateuse1_backend_name_for_tests()


@pytest.mark.parametrize(
    ("text", "device_type", "index"),
    [
        ("cpu", DeviceType.CPU, None),
        ("cpu:0", DeviceType.CPU, 0),
        ("cpu:12", DeviceType.CPU, 12),
        ("meta", DeviceType.Meta, None),
        ("meta:3", DeviceType.Meta, 3),
        ("privateuseone", DeviceType.PrivateUse1, None),
        ("privateuseone:1", DeviceType.PrivateUse1, 1),
        ("cpu:2147483647", DeviceType.CPU, 2147483647),
    ],
)
def test_parse_strings(text: str, device_type: DeviceType, index: int | None) -> None:
    d = Device(text)
    assert d.device_type is device_type
    assert d.index == index
    assert str(d) == text


def test_other_constructors() -> None:
    assert Device("cpu", 0) == Device("cpu:0")
    assert Device("cpu", index=2) == Device("cpu:2")
    assert Device(DeviceType.Meta) == Device("meta")
    assert Device(DeviceType.CPU, 1) == Device("cpu:1")
    original = Device("cpu:4")
    assert Device(original) == original


def test_str_repr_and_type() -> None:
    assert str(Device("cpu")) == "cpu"
    assert str(Device("cpu", 0)) == "cpu:0"
    assert repr(Device("cpu")) == "device(type='cpu')"
    assert repr(Device("cpu", 0)) == "device(type='cpu', index=0)"
    assert repr(Device("meta:1")) == "device(type='meta', index=1)"
    assert Device("meta").type == "meta"
    assert Device("privateuseone:2").type == "privateuseone"
    assert [str(t) for t in DeviceType] == ["cpu", "meta", "privateuseone"]


@needs_torch
@pytest.mark.parametrize("text", ["cpu", "cpu:0", "cpu:7", "meta", "meta:2", "privateuseone:1"])
def test_str_repr_match_torch(text: str) -> None:
    ours, theirs = Device(text), torch.device(text)
    assert (str(ours), repr(ours), ours.type, ours.index) == (
        str(theirs),
        repr(theirs),
        theirs.type,
        theirs.index,
    )


def test_equality_and_hashing() -> None:
    assert Device("cpu") == Device(DeviceType.CPU)
    assert Device("cpu") != Device("cpu", 0)
    assert Device("cpu", 0) != Device("meta", 0)
    not_a_device: object = "cpu"
    assert Device("cpu") != not_a_device
    assert hash(Device("cpu:1")) == hash(Device("cpu", 1))
    assert len({Device("cpu"), Device("cpu:0"), Device("cpu", 0), Device("meta")}) == 3


def test_frozen_and_picklable() -> None:
    d = Device("cpu:3")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        d.index = 4  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(d)) == d
    assert copy.deepcopy(d) == d


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo", f"Expected one of {EXPECTED_TYPES} device type at start of device string: foo"),
        ("CPU", f"Expected one of {EXPECTED_TYPES} device type at start of device string: CPU"),
        ("cuda:0", f"Expected one of {EXPECTED_TYPES} device type at start of device string: cuda"),
        ("", "Device string must not be empty"),
        ("cpu:-1", "Invalid device string: 'cpu:-1'"),
        ("cpu:01", "Invalid device string: 'cpu:01'"),
        ("cpu:", "Invalid device string: 'cpu:'"),
        ("cpu:x", "Invalid device string: 'cpu:x'"),
        ("cpu: 1", "Invalid device string: 'cpu: 1'"),
        (" cpu", "Invalid device string: ' cpu'"),
        ("cpu:1:2", "Invalid device string: 'cpu:1:2'"),
        (":1", "Invalid device string: ':1'"),
        ("cpu:+1", "Invalid device string: 'cpu:+1'"),
        ("cpu\n", "Invalid device string: 'cpu\n'"),
        ("cpu:2147483648", "Could not parse device index '2147483648' in device string 'cpu:2147483648'"),
    ],
)
def test_bad_strings(text: str, message: str) -> None:
    with pytest.raises(RuntimeError, match=_exactly(message)):
        Device(text)


@needs_torch
@pytest.mark.parametrize(
    "text", ["", "cpu:-1", "cpu:01", "cpu:", "cpu:x", " cpu", "cpu:1:2", ":1", "cpu:2147483648"]
)
def test_bad_string_messages_match_torch(text: str) -> None:
    with pytest.raises(RuntimeError) as theirs:
        torch.device(text)
    with pytest.raises(RuntimeError) as ours:
        Device(text)
    assert str(ours.value) == str(theirs.value)


@needs_torch
def test_unknown_type_message_has_torch_form() -> None:
    with pytest.raises(RuntimeError) as theirs:
        torch.device("foo")
    with pytest.raises(RuntimeError) as ours:
        Device("foo")
    type_list = re.compile(r"Expected one of .* device type")
    placeholder = "Expected one of <types> device type"
    assert type_list.sub(placeholder, str(ours.value)) == type_list.sub(placeholder, str(theirs.value))


def test_index_errors() -> None:
    with pytest.raises(RuntimeError, match=_exactly("Device index must not be negative")):
        Device("cpu", -1)
    with pytest.raises(
        RuntimeError,
        match=_exactly("type (string) must not include an index because index was passed explicitly: cpu:0"),
    ):
        Device("cpu:0", 1)
    message = "device(): argument 'index' (position 2) must be int, not bool"
    with pytest.raises(TypeError, match=_exactly(message)):
        Device("cpu", True)
    with pytest.raises(TypeError, match="must be int, not float"):
        Device("cpu", 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"argument 'type' .* must be str, not int"):
        Device(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be str, not Device"):
        Device(Device("cpu"), 1)


@needs_torch
def test_index_error_messages_match_torch() -> None:
    for args in (("cpu", -1), ("cpu:0", 1)):
        with pytest.raises(RuntimeError) as theirs:
            torch.device(*args)
        with pytest.raises(RuntimeError) as ours:
            Device(*args)
        assert str(ours.value) == str(theirs.value)


def test_rename_privateuse1_backend(fresh_privateuse1: None) -> None:
    assert get_privateuse1_backend_name() == "privateuseone"
    with pytest.raises(RuntimeError, match="device string: foo"):
        Device("foo:1")
    rename_privateuse1_backend("foo")
    assert get_privateuse1_backend_name() == "foo"
    d = Device("foo:1")
    assert d.device_type is DeviceType.PrivateUse1
    assert (d.type, str(d), repr(d)) == ("foo", "foo:1", "device(type='foo', index=1)")
    assert str(DeviceType.PrivateUse1) == "foo"
    assert Device("privateuseone:1") == d
    rename_privateuse1_backend("foo")
    message = "torch.register_privateuse1_backend() has already been set! Current backend: foo"
    with pytest.raises(RuntimeError, match=_exactly(message)):
        rename_privateuse1_backend("bar")
    assert get_privateuse1_backend_name() == "foo"


def test_rename_privateuse1_default_name_counts_as_set(fresh_privateuse1: None) -> None:
    rename_privateuse1_backend("privateuseone")
    with pytest.raises(RuntimeError, match=r"Current backend: privateuseone$"):
        rename_privateuse1_backend("foo")


@pytest.mark.parametrize("name", ["cpu", "meta"])
def test_rename_privateuse1_rejects_in_tree_names(name: str, fresh_privateuse1: None) -> None:
    with pytest.raises(
        RuntimeError, match=_exactly(f"Cannot register privateuse1 backend with in-tree device name: {name}")
    ):
        rename_privateuse1_backend(name)
    assert get_privateuse1_backend_name() == "privateuseone"
    rename_privateuse1_backend("foo")
    assert get_privateuse1_backend_name() == "foo"


def test_reset_forgets_renamed_name(fresh_privateuse1: None) -> None:
    rename_privateuse1_backend("foo")
    assert Device("foo").device_type is DeviceType.PrivateUse1
    device_module._reset_privateuse1_backend_name_for_tests()
    with pytest.raises(RuntimeError, match="device string: foo"):
        Device("foo")
    assert str(Device("privateuseone")) == "privateuseone"


def test_layout_and_memory_format() -> None:
    assert list(Layout) == [strided]
    assert repr(strided) == str(strided) == "framework.strided"
    assert list(MemoryFormat) == [contiguous_format, preserve_format, channels_last, channels_last_3d]
    for fmt in MemoryFormat:
        assert repr(fmt) == str(fmt) == f"framework.{fmt.name}"


@needs_torch
def test_layout_and_memory_format_reprs_match_torch() -> None:
    for obj in (strided, contiguous_format, preserve_format, channels_last, channels_last_3d):
        assert repr(obj).removeprefix("framework.") == repr(getattr(torch, obj.name)).removeprefix("torch.")
