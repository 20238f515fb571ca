"""The Conjugate and Negative fallbacks: lazy conjugation and negation, as PyTorch's
MathBitsFallback does them.

`x.conj()` of a complex tensor is a view whose key set holds the Conjugate key; `x.conj().imag`
is one holding the Negative key.  The bit costs nothing to tensors without it: its key is in no
other tensor's key set, so the dispatcher never reaches these fallbacks for them.  For a call
with a tensor that has the bit, the fallback at the bit's key

- lets view operators through (their outputs inherit the key set, hence the bit), and the
  operators PyTorch lists as fallthrough (copy_, clone, conj_physical_, the factories `*_like`,
  reshape, the in-place views transpose_, t_, ...), whose kernels read the bits themselves or
  never read elements;
- otherwise replaces every input with the bit by a clone (clone materializes the bits), runs the
  operator below its key and, for an in-place or out= argument with the bit, copies the result
  back into it (copy_ writes through the bit).
"""

from __future__ import annotations

from typing import Any, Final

from framework._tensor import Tensor
from framework.c10.dispatch.dispatcher import OperatorHandle
from framework.c10.dispatch.kernel_function import BoxedKernel, Stack
from framework.c10.dispatch_key import DispatchKey, DispatchKeySet
from framework.library import Library, fallthrough_kernel
from framework.ops.kernels._registry import aten_op, resize_output

_FALLTHROUGH_BOTH: Final = (
    "copy_",
    "clone",
    "conj",
    "_conj",
    "empty_like",
    "empty.memory_format",
    "empty.out",
    "empty_strided",
    "full_like",
    "view_as_real",
    "imag",
    "real",
    "view",
    "_unsafe_view",
    "reshape",
    "as_strided_",
    "squeeze_",
    "transpose_",
    "t_",
    "unsqueeze_",
)
"""PyTorch's fallthrough operators of both keys that this framework has (the in-place views last:
they change the geometry of the tensor with the bit, which keeps it)."""

_FALLTHROUGH: Final[dict[DispatchKey, tuple[str, ...]]] = {
    DispatchKey.Conjugate: (
        *_FALLTHROUGH_BOTH,
        "_conj_physical",
        "conj_physical",
        "conj_physical_",
        "resolve_conj",
    ),
    DispatchKey.Negative: (*_FALLTHROUGH_BOTH, "neg_", "resolve_neg"),
}


def _write_kind(op: OperatorHandle, name: str) -> bool | None:
    """True for an operator writing to an argument (in-place, out=), False for a view, None for a
    functional one; an operator with both kinds of aliasing arguments is refused."""
    kind: bool | None = None
    for argument in op.schema.arguments:
        alias = argument.alias_info
        if alias is None:
            continue
        if kind is not None and kind != alias.is_write:
            raise RuntimeError(
                f"Unsupported operator for {name} fallback: {op.schema.name}{name} fallback doesn't "
                "work for operators with a mix mutable and non-mutable inputs that alias with "
                "outputs, this must be implemented manually.  If you got this error on a core op, "
                "please report a bug to PyTorch."
            )
        kind = alias.is_write
    return kind


def _math_bit_fallback(key: DispatchKey, name: str) -> BoxedKernel:
    bit = DispatchKeySet(key).repr
    below = DispatchKeySet.full_after(key)
    clone = aten_op("clone.default")

    def has_bit(value: Any) -> bool:
        return isinstance(value, Tensor) and bool(value._impl.key_set.repr & bit)

    def fallback(op: OperatorHandle, keyset: DispatchKeySet, stack: Stack) -> None:
        if _write_kind(op, name) is False:
            op.redispatch_boxed(keyset & below, stack)
            return
        arguments = op.schema.arguments
        start = len(stack) - len(arguments)
        mutable: Tensor | None = None
        for i, argument in enumerate(arguments):
            value = stack[start + i]
            if has_bit(value):
                resolved = clone(value)
                if argument.alias_info is not None:
                    if mutable is not None:
                        raise RuntimeError(
                            f"{name} fallback does not support operators with more than one mutable "
                            f"tensors with {name}bit set to true."
                        )
                    mutable = value
                stack[start + i] = resolved
            elif isinstance(value, (list, tuple)) and any(has_bit(v) for v in value):
                if argument.alias_info is not None:
                    raise RuntimeError(
                        f" fallback doesn't currently support mutable TensorLists with {name} inputs. "
                        f"Please materialize all the {name} input tensor(s) in the mutable TensorList "
                        f"inputs before calling {op.schema.name}"
                    )
                stack[start + i] = [clone(v) if has_bit(v) else v for v in value]
        op.redispatch_boxed(keyset & below, stack)
        if mutable is not None:
            returned: Tensor = stack[start]
            resize_output(mutable, returned._impl.sizes)
            mutable.copy_(returned)
            stack[start] = mutable

    return fallback


_library: Final = Library("_", "IMPL")
_aten: Final = Library("aten", "IMPL")
for _key, _name in ((DispatchKey.Conjugate, "conjugate"), (DispatchKey.Negative, "negation")):
    _library.fallback(_math_bit_fallback(_key, _name), _key)
    for _op in _FALLTHROUGH[_key]:
        _aten.impl(_op, fallthrough_kernel, _key)
