"""c10: the core types (dtypes, devices, dispatch keys, storage, TensorImpl) and the dispatcher."""

from framework.c10.device import (
    Device,
    DeviceType,
    Layout,
    MemoryFormat,
    get_privateuse1_backend_name,
    rename_privateuse1_backend,
)
from framework.c10.dispatch import (
    Dispatcher,
    FunctionSchema,
    KernelFunction,
    OperatorHandle,
    SchemaParseError,
    dispatcher,
    parse_schema,
)
from framework.c10.dispatch_key import DispatchKey, DispatchKeySet
from framework.c10.dtypes import ScalarType, dtype, get_default_dtype, promote_types, set_default_dtype
from framework.c10.local_dispatch_key_set import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
    ExcludeDispatchKeyGuard,
    IncludeDispatchKeyGuard,
    tls_excluded,
    tls_included,
)
from framework.c10.storage import Allocator, CPUAllocator, StorageImpl, get_cpu_allocator, memory_stats
from framework.c10.tensor_impl import TensorImpl, VersionCounter

__all__ = [
    "Allocator",
    "AutoDispatchBelowADInplaceOrView",
    "AutoDispatchBelowAutograd",
    "CPUAllocator",
    "Device",
    "DeviceType",
    "DispatchKey",
    "DispatchKeySet",
    "Dispatcher",
    "ExcludeDispatchKeyGuard",
    "FunctionSchema",
    "IncludeDispatchKeyGuard",
    "KernelFunction",
    "Layout",
    "MemoryFormat",
    "OperatorHandle",
    "ScalarType",
    "SchemaParseError",
    "StorageImpl",
    "TensorImpl",
    "VersionCounter",
    "dispatcher",
    "dtype",
    "get_cpu_allocator",
    "get_default_dtype",
    "get_privateuse1_backend_name",
    "memory_stats",
    "parse_schema",
    "promote_types",
    "rename_privateuse1_backend",
    "set_default_dtype",
    "tls_excluded",
    "tls_included",
]
