"""A dispatched call, step by step: define an operator, register kernels per dispatch key, call it
on CPU and meta tensors, and print the computed dispatch table.

    python examples/dispatch_demo.py
"""

from __future__ import annotations

import numpy as np

import framework
from framework import Tensor
from framework.c10.dispatch_key import AFTER_AUTOGRAD_KEYS, DispatchKeySet
from framework.library import Library, dump_dispatch_table


def main() -> None:
    lib = Library("demo", "DEF")
    lib.def_("demo::scale(Tensor self, float factor=2.0) -> Tensor")

    @lib.impl("scale", dispatch_key="CPU")
    def scale_cpu(self: Tensor, factor: float = 2.0) -> Tensor:
        print(f"  CPU kernel: multiplying {self.numel()} elements by {factor}")
        return framework.from_numpy(self.numpy() * np.float32(factor))  # NumPy, as a backend does

    @lib.impl("scale", dispatch_key="Meta")
    def scale_meta(self: Tensor, factor: float = 2.0) -> Tensor:
        print("  Meta kernel: shape and dtype only, no data")
        return framework.empty_like(self)

    @lib.impl("scale", dispatch_key="Autograd", with_keyset=True)
    def scale_autograd(keyset: DispatchKeySet, self: Tensor, factor: float = 2.0) -> Tensor:
        print(f"  Autograd kernel at {keyset.highest_priority_key().name}: redispatching below autograd")
        below = keyset & AFTER_AUTOGRAD_KEYS
        result: Tensor = framework.ops.demo.scale.default.redispatch(below, self, factor)
        return result

    framework.manual_seed(0)
    x = framework.rand(2, 3)  # the same numbers as torch.rand after torch.manual_seed(0)
    print(f"x.key_set = {x.key_set}")
    print("framework.ops.demo.scale(x, 3.0):")
    print(f"  -> {framework.ops.demo.scale(x, 3.0)}")

    m = framework.empty(2, 3, device="meta")
    print(f"\nm.key_set = {m.key_set}")
    print("framework.ops.demo.scale(m):")
    print(f"  -> {framework.ops.demo.scale(m)}")

    print("\nComputed dispatch table of demo::scale:")
    print(dump_dispatch_table("demo::scale"))
    print("\nBuilt-in operators go the same way; a factory has a BackendSelect kernel:")
    print(dump_dispatch_table("aten::empty.memory_format"))
    print(f"\nx + 1 = {x + 1}\nx.sum(dim=1) = {x.sum(dim=1)}")


if __name__ == "__main__":
    main()
