"""Device types, ``Device``, the PrivateUse1 backend name, ``Layout`` and ``MemoryFormat``.

Follows c10's ``DeviceType``/``Device`` and ``torch.device`` for the device types this framework
has: ``cpu``, ``meta`` and one out-of-tree backend slot, PrivateUse1 (spelled ``privateuseone``
until renamed once with :func:`rename_privateuse1_backend`).
"""

from __future__ import annotations

import enum
import functools
import re
import threading
from typing import Final

import attrs

__all__ = [
    "Device",
    "DeviceType",
    "Layout",
    "MemoryFormat",
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "get_privateuse1_backend_name",
    "preserve_format",
    "rename_privateuse1_backend",
    "strided",
]

_PRIVATEUSE1_DEFAULT_NAME: Final = "privateuseone"
_privateuse1_lock = threading.Lock()
_privateuse1_name: str = _PRIVATEUSE1_DEFAULT_NAME
_privateuse1_renamed: bool = False


class DeviceType(enum.Enum):
    """c10's DeviceType codes for the device types this framework supports."""

    CPU = 0
    Meta = 14
    PrivateUse1 = 20

    def __str__(self) -> str:
        """The lowercase device string: ``cpu``, ``meta`` or the PrivateUse1 backend's current name."""
        if self is DeviceType.PrivateUse1:
            return _privateuse1_name
        return _IN_TREE_NAMES[self]


_IN_TREE_NAMES: Final[dict[DeviceType, str]] = {DeviceType.CPU: "cpu", DeviceType.Meta: "meta"}
_TYPES_BY_NAME: Final[dict[str, DeviceType]] = {
    "cpu": DeviceType.CPU,
    "meta": DeviceType.Meta,
    _PRIVATEUSE1_DEFAULT_NAME: DeviceType.PrivateUse1,
}
_MAX_STRING_INDEX: Final = 2**31 - 1
_DEVICE_STRING: Final = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")


def get_privateuse1_backend_name() -> str:
    """The PrivateUse1 backend's device string (``"privateuseone"`` unless renamed)."""
    return _privateuse1_name


def rename_privateuse1_backend(name: str) -> None:
    """Give the PrivateUse1 backend a device string, as ``torch.utils.rename_privateuse1_backend``.

    Allowed once per process; calling again with the same name is a no-op, with another name a
    ``RuntimeError``. In-tree device names (``cpu``, ``meta``) are rejected. The original
    ``privateuseone`` spelling keeps parsing to PrivateUse1 after a rename.
    """
    global _privateuse1_name, _privateuse1_renamed
    with _privateuse1_lock:
        if _privateuse1_renamed and name != _privateuse1_name:
            raise RuntimeError(
                "torch.register_privateuse1_backend() has already been set! "
                f"Current backend: {_privateuse1_name}"
            )
        if name in _IN_TREE_NAMES.values():
            raise RuntimeError(f"Cannot register privateuse1 backend with in-tree device name: {name}")
        _privateuse1_name = name
        _privateuse1_renamed = True


def _reset_privateuse1_backend_name_for_tests() -> None:
    """Undo :func:`rename_privateuse1_backend`. Tests only: PyTorch has no way to do this."""
    global _privateuse1_name, _privateuse1_renamed
    with _privateuse1_lock:
        _privateuse1_name = _PRIVATEUSE1_DEFAULT_NAME
        _privateuse1_renamed = False
        _parse_device_string.cache_clear()


def _parse_device_type(name: str) -> DeviceType:
    if name == _privateuse1_name:
        return DeviceType.PrivateUse1
    device_type = _TYPES_BY_NAME.get(name)
    if device_type is None:
        raise RuntimeError(
            f"Expected one of {', '.join(_TYPES_BY_NAME)} device type at start of device string: {name}"
        )
    return device_type


@functools.lru_cache(maxsize=256)
def _parse_device_string(text: str) -> tuple[DeviceType, int | None]:
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    name, index_text = match.groups()
    index: int | None = None
    if index_text is not None:
        index = int(index_text)
        if index > _MAX_STRING_INDEX:
            raise RuntimeError(f"Could not parse device index '{index_text}' in device string '{text}'")
    return _parse_device_type(name), index


@attrs.frozen(init=False, repr=False)
class Device:
    """A device type plus an optional index, as ``torch.device``.

    ``Device("cpu")``, ``Device("cpu:0")``, ``Device("cpu", 0)``, ``Device(DeviceType.Meta)`` and
    ``Device(other_device)`` are accepted. Equality and hashing use ``(device_type, index)``, so
    ``Device("cpu") != Device("cpu", 0)`` as in PyTorch.
    """

    device_type: DeviceType
    index: int | None

    def __init__(self, type: str | DeviceType | Device, index: int | None = None) -> None:
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {index.__class__.__name__}"
            )
        if isinstance(type, str):
            device_type, parsed_index = _parse_device_string(type)
            if parsed_index is not None:
                if index is not None:
                    raise RuntimeError(
                        f"type (string) must not include an index because index was passed explicitly: {type}"
                    )
                index = parsed_index
        elif isinstance(type, DeviceType):
            device_type = type
        elif isinstance(type, Device) and index is None:
            device_type, index = type.device_type, type.index
        else:
            raise TypeError(
                f"device(): argument 'type' (position 1) must be str, not {type.__class__.__name__}"
            )
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.__attrs_init__(device_type, index)

    @property
    def type(self) -> str:
        """The device type's string (``"cpu"``, ``"meta"`` or the PrivateUse1 backend name)."""
        return str(self.device_type)

    def __str__(self) -> str:
        if self.index is None:
            return str(self.device_type)
        return f"{self.device_type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.device_type}')"
        return f"device(type='{self.device_type}', index={self.index})"


class Layout(enum.Enum):
    """Tensor memory layouts; only dense strided tensors exist here."""

    strided = 0

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __str__(self) -> str:
        return self.__repr__()


class MemoryFormat(enum.Enum):
    """Dimension orderings for dense tensors (c10's MemoryFormat)."""

    contiguous_format = 0
    preserve_format = 1
    channels_last = 2
    channels_last_3d = 3

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __str__(self) -> str:
        return self.__repr__()


strided: Final = Layout.strided
contiguous_format: Final = MemoryFormat.contiguous_format
preserve_format: Final = MemoryFormat.preserve_format
channels_last: Final = MemoryFormat.channels_last
channels_last_3d: Final = MemoryFormat.channels_last_3d
