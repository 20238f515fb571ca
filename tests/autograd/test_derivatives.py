"""Every entry of derivatives.yaml, on generated inputs: gradcheck (float64 finite differences),
gradgradcheck where the formulas are differentiable, the in-place variants, the node's name, which
outputs require grad, and (when PyTorch is installed) names and gradients against PyTorch."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import ad_samples_activation
import ad_samples_amp
import ad_samples_api_misc
import ad_samples_complex
import ad_samples_fft
import ad_samples_gamma
import ad_samples_indexing
import ad_samples_linalg
import ad_samples_linalg2
import ad_samples_linalg_more
import ad_samples_math
import ad_samples_misc3
import ad_samples_nn
import ad_samples_nn3d
import ad_samples_nn_misc
import ad_samples_nn_more
import ad_samples_pointwise
import ad_samples_pointwise_more
import ad_samples_random
import ad_samples_shapes
import ad_samples_shapes_more
import ad_samples_sorting
import ad_samples_special
import ad_samples_tensorapi
import ad_samples_utils
import ad_samples_vision
import numpy as np
import pytest
from ad_sample import Sample

import framework
from framework.autograd import gradcheck, gradgradcheck
from framework.autograd.derivatives import DERIVATIVES, DerivativeEntry
from framework.ops._native import NATIVE

HAS_TORCH = importlib.util.find_spec("torch") is not None
MODULES = (
    ad_samples_amp,
    ad_samples_pointwise,
    ad_samples_shapes,
    ad_samples_nn,
    ad_samples_tensorapi,
    ad_samples_random,
    ad_samples_sorting,
    ad_samples_pointwise_more,
    ad_samples_activation,
    ad_samples_linalg,
    ad_samples_linalg_more,
    ad_samples_math,
    ad_samples_nn_more,
    ad_samples_shapes_more,
    ad_samples_indexing,
    ad_samples_nn_misc,
    ad_samples_nn3d,
    ad_samples_utils,
    ad_samples_special,
    ad_samples_gamma,
    ad_samples_api_misc,
    ad_samples_vision,
    ad_samples_linalg2,
    ad_samples_fft,
    ad_samples_complex,
    ad_samples_misc3,
)
SAMPLES: dict[str, Callable[[], list[Sample]]] = {k: v for m in MODULES for k, v in m.SAMPLES.items()}
NO_GRADGRAD: dict[str, str] = {k: v for m in MODULES for k, v in m.NO_GRADGRAD.items()}
ENTRIES = {e.key: e for e in DERIVATIVES}
OWN_DERIVATIVE = {
    key: "framework differentiates the saved statistics (mean, rstd, total_weight) too; PyTorch "
    "refuses inputs that require grad there, so these are checked by gradcheck only"
    for key in ("native_layer_norm_backward", "native_batch_norm_backward", "nll_loss_backward")
}
OWN_DERIVATIVE["log_sigmoid_backward"] = (
    "PyTorch refuses a buffer that requires grad (the samples' floating tensors all do); framework's "
    "kernel recomputes exp(-|x|) from self, so the buffer's gradient is zero: checked by gradcheck only"
)
OWN_DERIVATIVE["as_strided_scatter"] = (
    "PyTorch 2.13's gradient for self is grad inside the written view and zero elsewhere (the "
    "complement of the exact one, which gradcheck checks here)"
)
OWN_DERIVATIVE.update(
    dict.fromkeys(
        ("rrelu_with_noise", "rrelu_with_noise_", "rrelu_with_noise_backward"),
        "PyTorch refuses a noise buffer that requires grad (the samples' floating tensors all do): "
        "checked by gradcheck here, against torch in tests/nn/test_nn_misc.py",
    )
)
OWN_NODE = {
    "matmul": "one CPU kernel here (a single np.matmul); PyTorch decomposes matmul into dot/mv/mm/bmm, "
    "so its node is DotBackward0, MmBackward0, ... by shape; here always MatmulBackward0",
}


def _op(schema_name: str, overload: str) -> Any:
    packet = getattr(framework.ops.aten, schema_name.partition("::")[2])
    return getattr(packet, overload or "default")


def _is_float(value: Any) -> bool:
    return isinstance(value, framework.Tensor) and value.dtype.is_floating_point


def _raises_in_backward(entry: DerivativeEntry) -> bool:
    """Entries PyTorch has no derivative for: the result requires grad, backward raises."""
    return any("not_implemented(" in formula for _, formula in entry.formulas)


def _leaves(value: Any) -> Any:
    """The sample's floating tensors become leaves that require grad (other values unchanged)."""
    if _is_float(value):
        return value.detach().requires_grad_()
    if isinstance(value, (list, tuple)):
        return type(value)(_leaves(v) for v in value)
    return value


def _flat(value: Any) -> list[framework.Tensor]:
    if _is_float(value):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat(v)]
    return []


def _replace(value: Any, new: list[framework.Tensor]) -> Any:
    if _is_float(value):
        return new.pop(0)
    if isinstance(value, (list, tuple)):
        return type(value)(_replace(v, new) for v in value)
    return value


def _outputs(result: Any) -> list[framework.Tensor]:
    return [result] if isinstance(result, framework.Tensor) else list(result)


def _calls(
    entry: DerivativeEntry,
) -> list[tuple[Sample, tuple[Any, ...], dict[str, Any], list[framework.Tensor]]]:
    calls = []
    for sample in SAMPLES[entry.key]():
        args = _leaves(sample.args)
        kwargs = {k: _leaves(v) for k, v in sample.kwargs.items()}
        calls.append((sample, args, kwargs, _flat((args, kwargs))))
    return calls


def _function(
    op: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    inplace: bool,
    prepare: Callable[[Any], Any] | None = None,
) -> Callable[..., Any]:
    """The call as a function of the sample's floating tensors (each mapped by `prepare` first);
    an in-place operator works on a copy of `self` (a leaf that requires grad cannot be modified
    in place)."""

    def call(*tensors: framework.Tensor) -> Any:
        new = [prepare(t) for t in tensors] if prepare is not None else list(tensors)
        a = _replace(args, new)
        if inplace:
            a = (a[0] * 1, *a[1:])
        return op(*a, **_replace(kwargs, new))

    return call


def _mapped(fn: Callable[..., Any], outputs: Callable[[list[Any]], list[Any]]) -> Callable[..., Any]:
    def call(*tensors: framework.Tensor) -> Any:
        return tuple(outputs(_outputs(fn(*tensors))))

    return call


def test_every_entry_has_samples_and_nothing_else() -> None:
    assert sorted(set(ENTRIES) - set(SAMPLES)) == []
    assert sorted(set(SAMPLES) - set(ENTRIES)) == []
    assert sorted(set(NO_GRADGRAD) - set(ENTRIES)) == []


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_entry(key: str) -> None:
    entry = ENTRIES[key]
    op = _op(entry.schema.name, entry.schema.overload_name)
    for sample, args, kwargs, inputs in _calls(entry):
        fn = _function(op, args, kwargs, entry.schema.is_mutable, sample.prepare)
        outputs = _outputs(fn(*inputs))
        differentiable = [
            i
            for i, out in enumerate(outputs)
            if entry.formulas
            and entry.output_differentiability[min(i, len(entry.output_differentiability) - 1)]
            and (out.dtype.is_floating_point or out.dtype.is_complex)
        ]
        for i, out in enumerate(outputs):
            assert out.requires_grad == (i in differentiable and bool(inputs)), (sample.desc, i)
            if out.requires_grad:
                assert out.grad_fn is not None and out.grad_fn.name() == entry.node_name
        if not differentiable or not inputs:
            continue
        if _raises_in_backward(entry):
            with pytest.raises(RuntimeError, match=r"derivative for .* is not implemented"):
                outs = [outputs[i] for i in differentiable]
                framework.autograd.grad(
                    outs, inputs, [framework.ones_like(o) for o in outs], allow_unused=True
                )
            continue
        if sample.outputs is not None:
            fn = _mapped(fn, sample.outputs)
            outputs = _outputs(fn(*inputs))
            differentiable = list(range(len(outputs)))
        if any(outputs[i].dtype.is_complex for i in differentiable):
            continue  # gradcheck compares real Jacobians; the torch comparison covers complex views
        assert gradcheck(fn, tuple(inputs)), sample.desc
        if key not in NO_GRADGRAD:
            assert gradgradcheck(fn, tuple(inputs)), sample.desc


def _inplace_variants(entry: DerivativeEntry) -> list[Any]:
    """The in-place twins an entry serves (those with an entry of their own are tested as such)."""
    base = entry.schema.name.partition("::")[2]
    args = [(a.name, str(a.type)) for a in entry.schema.arguments[1:]]
    own = {str(e.schema) for e in DERIVATIVES}
    return [
        _op(f.schema.name, f.schema.overload_name)
        for f in NATIVE
        if f.schema.name == f"aten::{base}_"
        and [(a.name, str(a.type)) for a in f.schema.arguments[1:]] == args
        and str(f.schema) not in own
    ]


INPLACE = sorted(
    k for k, e in ENTRIES.items() if e.formulas and not _raises_in_backward(e) and _inplace_variants(e)
)


@pytest.mark.parametrize("key", INPLACE)
def test_inplace_variant(key: str) -> None:
    entry = ENTRIES[key]
    op = _op(entry.schema.name, entry.schema.overload_name)
    checked = 0
    for inplace in _inplace_variants(entry):
        for sample, args, kwargs, inputs in _calls(entry):
            self_ = args[0]
            expected = op(*args, **kwargs)
            if not _is_float(self_) or expected.shape != self_.shape or expected.dtype != self_.dtype:
                continue

            def run(
                *tensors: framework.Tensor, _inplace: Any = inplace, _args: Any = args, _kw: Any = kwargs
            ) -> Any:
                new = list(tensors)
                a = _replace(_args, new)
                return _inplace(a[0] * 1, *a[1:], **_replace(_kw, new))

            out = run(*inputs)
            assert out.grad_fn is not None and out.grad_fn.name() == entry.node_name
            np.testing.assert_allclose(
                out.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12
            )
            assert gradcheck(run, tuple(inputs)), sample.desc
            checked += 1
    if not checked:
        pytest.skip(f"no sample of {key} keeps self's shape and dtype")


def _to_torch(value: Any) -> Any:
    import torch

    if isinstance(value, framework.Tensor):
        impl = value._impl
        storage = np.frombuffer(impl.storage.data, dtype=impl.dtype.numpy_dtype).copy()
        t = torch.from_numpy(storage).as_strided(impl.sizes, impl.strides, impl.storage_offset).detach()
        return t.requires_grad_() if value.requires_grad else t
    if isinstance(value, framework.dtype):
        return getattr(torch, value.name)
    if isinstance(value, framework.UntypedStorage):
        return torch.frombuffer(bytearray(value.tolist()), dtype=torch.uint8).untyped_storage()
    if isinstance(value, framework.MemoryFormat):
        return getattr(torch, value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    return value


@pytest.mark.skipif(not HAS_TORCH, reason="live comparison with PyTorch")
@pytest.mark.parametrize(
    "key", sorted(k for k, e in ENTRIES.items() if e.formulas and k not in OWN_DERIVATIVE)
)
def test_against_torch(key: str) -> None:
    import torch

    entry = ENTRIES[key]
    op = _op(entry.schema.name, entry.schema.overload_name)
    name = entry.schema.name.partition("::")[2]
    torch_op = getattr(getattr(torch.ops.aten, name), entry.schema.overload_name or "default")
    for sample, args, kwargs, inputs in _calls(entry):
        t_args, t_kwargs = _to_torch(args), _to_torch(kwargs)
        t_inputs = [t for t in _flat_torch((t_args, t_kwargs))]
        outputs = _outputs(_function(op, args, kwargs, entry.schema.is_mutable, sample.prepare)(*inputs))
        if sample.prepare is not None:
            t_args, t_kwargs = _prepared_torch((t_args, t_kwargs), sample.prepare)
        if entry.schema.is_mutable:
            t_args = (t_args[0] * 1, *t_args[1:])
        t_result = torch_op(*t_args, **t_kwargs)
        t_outputs = [t_result] if isinstance(t_result, torch.Tensor) else list(t_result)
        rng = np.random.default_rng(0)
        pairs = [(o, t) for o, t in zip(outputs, t_outputs, strict=True) if o.requires_grad]
        for o, t in zip(outputs, t_outputs, strict=True):
            assert o.requires_grad == t.requires_grad, sample.desc
            if t.grad_fn is not None and key not in OWN_NODE:
                assert o.grad_fn is not None and o.grad_fn.name() == t.grad_fn.name(), sample.desc
        if sample.outputs is not None and pairs:
            pairs = list(zip(sample.outputs(outputs), sample.outputs(t_outputs), strict=True))
        if not pairs or _raises_in_backward(entry) or any(o.dtype.is_complex for o, _ in pairs):
            continue
        seeds = [rng.standard_normal(o.shape) for o, _ in pairs]
        ours = framework.autograd.grad(
            [o for o, _ in pairs], inputs, [framework.tensor(s) for s in seeds], allow_unused=True
        )
        theirs = torch.autograd.grad(
            [t for _, t in pairs], t_inputs, [torch.from_numpy(s) for s in seeds], allow_unused=True
        )
        for a, b in zip(ours, theirs, strict=True):
            if b is None:
                assert a is None or not np.any(a.numpy()), sample.desc
            else:
                assert a is not None, sample.desc
                np.testing.assert_allclose(
                    a.numpy(), b.numpy(force=True), rtol=1e-7, atol=1e-9, err_msg=sample.desc
                )


def _flat_torch(value: Any) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value] if value.requires_grad else []
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat_torch(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat_torch(v)]
    return []


def _prepared_torch(value: Any, prepare: Callable[[Any], Any]) -> Any:
    """`value` with each torch tensor that requires grad mapped by `prepare`."""
    import torch

    if isinstance(value, torch.Tensor):
        return prepare(value) if value.requires_grad else value
    if isinstance(value, (list, tuple)):
        return type(value)(_prepared_torch(v, prepare) for v in value)
    if isinstance(value, dict):
        return {k: _prepared_torch(v, prepare) for k, v in value.items()}
    return value


def _random_like(t: framework.Tensor, rng: np.random.Generator) -> framework.Tensor:
    values = rng.standard_normal(t.shape)
    if t.dtype.is_complex:
        values = values + 1j * rng.standard_normal(t.shape)
    return framework.tensor(values, dtype=t.dtype)


FORWARD_AD_REFUSED = {
    "_ctc_loss": "_ctc_loss",
    "_ctc_loss.Tensor": "_ctc_loss",
    "_embedding_bag": "_embedding_bag",
    "_pdist_forward": "_pdist_forward",
    "grid_sampler_2d": "grid_sampler_2d",
    "grid_sampler_3d": "grid_sampler_3d",
    "hardsigmoid": "hardsigmoid",
    "multi_margin_loss": "multi_margin_loss",
    "multilabel_margin_loss_forward": "multilabel_margin_loss_forward",
    "segment_reduce": "segment_reduce",
}
"""Entries whose backward formula calls an operator without a derivative, so forward AD (the
transposed formula) raises PyTorch's NotImplementedError.  PyTorch refuses all but hardsigmoid too
(its forward formula is written separately there)."""
FORWARD_AD_UNCHECKED = {
    "linalg_eig": "its backward refuses gradients that depend on the eigenvectors' phases, which the "
    "transposition's all-ones gradient does",
    **{
        key: "the formula for the input differentiates through the saved statistics unless they "
        "require grad, which tangents do not mark"
        for key in ("native_batch_norm_backward", "native_layer_norm_backward")
    },
}


def _moved(p: framework.Tensor, t: framework.Tensor, eps: float) -> framework.Tensor:
    """`p + eps * t` in a copy of `p`'s whole storage, with `p`'s geometry (an operator such as
    as_strided may read storage around the elements `p` views)."""
    impl = p._impl
    storage = np.frombuffer(impl.storage.data, dtype=impl.dtype.numpy_dtype).copy()
    moved = framework.from_numpy(storage).as_strided(impl.sizes, impl.strides, impl.storage_offset)
    return moved.add_(t, alpha=eps)


@pytest.mark.parametrize(
    "key",
    sorted(
        k
        for k, e in ENTRIES.items()
        if e.formulas and not _raises_in_backward(e) and k not in FORWARD_AD_UNCHECKED
    ),
)
def test_forward_ad(key: str) -> None:
    """Forward AD through the entry (tangents of random directions) against central finite
    differences of the same function in float64, or PyTorch's refusal."""
    from framework.autograd import forward_ad as fwAD

    entry = ENTRIES[key]
    op = _op(entry.schema.name, entry.schema.overload_name)
    for sample, args, kwargs, inputs in _calls(entry):
        if not inputs:
            continue
        fn = _function(op, args, kwargs, entry.schema.is_mutable, sample.prepare)
        if sample.outputs is not None:
            fn = _mapped(fn, sample.outputs)
        primals = [t.detach() for t in inputs]
        rng = np.random.default_rng(0)
        tangents = [_random_like(t, rng) for t in primals]
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents, strict=True)]
            if key in FORWARD_AD_REFUSED:
                message = f"Trying to use forward AD with {FORWARD_AD_REFUSED[key]} that does not support it"
                with pytest.raises(NotImplementedError, match=message):
                    fn(*duals)
                continue
            outputs = _outputs(fn(*duals))
            products = [fwAD.unpack_dual(o).tangent for o in outputs]
        eps = 1e-6
        with framework.no_grad():
            plus = _outputs(fn(*[_moved(p, t, eps) for p, t in zip(primals, tangents, strict=True)]))
            minus = _outputs(fn(*[_moved(p, t, -eps) for p, t in zip(primals, tangents, strict=True)]))
        diffs = entry.output_differentiability
        for i, (out, product) in enumerate(zip(outputs, products, strict=True)):
            floating = out.dtype.is_floating_point or out.dtype.is_complex
            if not floating or (sample.outputs is None and not diffs[min(i, len(diffs) - 1)]):
                assert product is None, (sample.desc, i)
                continue
            assert product is not None, (sample.desc, i)
            assert product.shape == out.shape, (sample.desc, i)
            expected = (plus[i].numpy() - minus[i].numpy()) / (2 * eps)
            np.testing.assert_allclose(
                product.detach().numpy(), expected, rtol=1e-4, atol=1e-5, err_msg=f"{sample.desc} output {i}"
            )
