"""framework.autocast: the AutocastCPU dispatch key, PyTorch's CPU op lists, thread-local state, the
weight cache and the Python API's warnings and errors (compared with PyTorch where installed)."""

from __future__ import annotations

import importlib.util
import threading
import warnings
from typing import Any

import numpy as np
import pytest

import framework
from framework import bfloat16, float16, float32, float64
from framework.amp import _policies
from framework.c10.dispatch_key import DispatchKey
from framework.c10.local_dispatch_key_set import tls_is_dispatch_key_excluded

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch (oracle) not installed")


def test_defaults_and_the_dispatch_key() -> None:
    assert not framework.is_autocast_enabled("cpu") and not framework.is_autocast_enabled()
    assert framework.get_autocast_dtype("cpu") is bfloat16
    assert framework.get_autocast_dtype("cuda") is float16
    assert framework.is_autocast_cache_enabled()
    assert tls_is_dispatch_key_excluded(DispatchKey.AutocastCPU)
    assert DispatchKey.AutocastCPU in framework.ones(1)._impl.key_set
    assert DispatchKey.AutocastCPU not in framework.ones(1, device="meta")._impl.key_set
    with framework.autocast("cpu"):
        assert framework.is_autocast_enabled("cpu")
        assert not tls_is_dispatch_key_excluded(DispatchKey.AutocastCPU)
    assert tls_is_dispatch_key_excluded(DispatchKey.AutocastCPU)


def test_policies() -> None:
    framework.manual_seed(0)
    a = framework.randn(3, 4, requires_grad=True)
    b = framework.randn(4, 5)
    with framework.autocast("cpu"):
        c = framework.mm(a, b)
        assert c.dtype is bfloat16 and c.grad_fn is not None
        assert [n and n.name() for n, _ in c.grad_fn.next_functions] == ["ToCopyBackward0", None]
        np.testing.assert_array_equal(
            c.float().detach().numpy(), (a.detach().bfloat16() @ b.bfloat16()).float().numpy()
        )
        assert framework.cat([c, framework.randn(3, 5)]).dtype is float32  # promote
        assert framework.cat([c, c]).dtype is bfloat16
        assert framework.nn.functional.mse_loss(c, framework.randn(3, 5)).dtype is float32  # fp32
        assert c.sum().dtype is bfloat16  # not on a list: runs as given
        assert framework.mm(a.double(), b.double()).dtype is float64  # float64 is never cast
        assert framework.mm(framework.randn(3, 4).half(), b).dtype is bfloat16
        with framework.autocast("cpu", enabled=False):
            assert framework.mm(a, b).dtype is float32
        with framework.autocast("cpu", dtype=float16):
            assert framework.mm(a.detach(), b).dtype is float16
            # `a`'s cached bfloat16 cast is reused whatever the dtype (as in PyTorch, whose cache is
            # keyed by the source tensor alone), so mm then sees bfloat16 and float16 operands.
            with pytest.raises(RuntimeError, match="but got: c10::BFloat16 != c10::Half"):
                framework.mm(a, b)
        assert framework.mm(a, b).dtype is bfloat16
    assert framework.mm(a, b).dtype is float32
    c.float().sum().backward()
    assert a.grad is not None and a.grad.dtype is float32


def test_linear_layers_train_through_autocast() -> None:
    framework.manual_seed(0)
    model = framework.nn.Sequential(framework.nn.Linear(4, 8), framework.nn.ReLU(), framework.nn.Linear(8, 2))
    x, y = framework.randn(5, 4), framework.randint(0, 2, (5,))
    with framework.autocast("cpu"):
        logits = model(x)
        loss = framework.nn.functional.cross_entropy(logits, y)
    assert logits.dtype is bfloat16 and loss.dtype is float32
    loss.backward()
    assert all(p.grad is not None and p.grad.dtype is float32 for p in model.parameters())


def test_weight_cache_lives_until_the_outermost_region_ends() -> None:
    weight = framework.randn(4, 4, requires_grad=True)
    x = framework.randn(2, 4)
    with framework.autocast("cpu"):
        first = framework.mm(x, weight).grad_fn
        with framework.autocast("cpu"):
            second = framework.mm(x, weight).grad_fn
        third = framework.mm(x, weight).grad_fn
        assert first is not None and second is not None and third is not None
        casts = {id(g.next_functions[1][0]) for g in (first, second, third)}
        assert len(casts) == 1  # one cast of the leaf, reused
        assert len(_policies_cache()) == 1
        with framework.autocast("cpu", cache_enabled=False):
            other = framework.mm(x, weight).grad_fn
            assert other is not None and id(other.next_functions[1][0]) not in casts
    assert _policies_cache() == {}


def _policies_cache() -> dict[int, object]:
    from framework.amp import autocast_mode

    return autocast_mode._CACHE


def test_decorator_and_threads() -> None:
    @framework.autocast("cpu")
    def product(a: framework.Tensor, b: framework.Tensor) -> framework.Tensor:
        return a @ b

    a = framework.randn(2, 2)
    assert product(a, a).dtype is bfloat16
    seen: list[bool] = []
    with framework.autocast("cpu"):
        thread = threading.Thread(target=lambda: seen.append(framework.is_autocast_enabled("cpu")))
        thread.start()
        thread.join()
    assert seen == [False]  # per thread, as PyTorch's


def test_api_warnings_and_errors() -> None:
    no_cuda = "CUDA is not available or torch_xla is imported. Disabling autocast."
    with pytest.warns(UserWarning, match=no_cuda):
        context = framework.autocast("cuda")
    with context:
        assert not framework.is_autocast_enabled("cuda")
    message = (
        "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
        "CPU Autocast only supports dtypes of framework.bfloat16, framework.float16 currently."
    )
    with pytest.warns(UserWarning) as record:
        context = framework.autocast("cpu", dtype=float32)
    assert str(record[0].message) == message
    with context:
        assert not framework.is_autocast_enabled("cpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        framework.autocast(framework.device("cpu"))  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="User specified an unsupported autocast device_type 'meta'"):
        framework.autocast("meta")
    assert framework.amp.is_autocast_available("cpu") and not framework.amp.is_autocast_available("meta")
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        legacy = framework.cpu.amp.autocast()
    with legacy:
        assert framework.is_autocast_enabled("cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert framework.get_autocast_cpu_dtype() is bfloat16
        assert not framework.is_autocast_cpu_enabled()
    assert [str(w.message) for w in caught] == [
        "torch.get_autocast_cpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cpu') instead.",
        "torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
    ]


def test_registered_operators_are_pytorchs_lists_that_framework_defines() -> None:
    lists = (*_policies.LOWER_PRECISION_FP, *_policies.FP32, *_policies.PROMOTE)
    assert set(_policies.REGISTERED) <= set(lists)
    for name in ("mm", "addmm", "linear", "matmul", "conv2d", "mse_loss", "cross_entropy_loss", "cat"):
        assert name in _policies.REGISTERED
    table = framework.library.dump_dispatch_table("aten::mm")
    assert "AutocastCPU" in table


def _linear_pair(n_in: int, n_out: int) -> tuple[Any, framework.nn.Linear]:
    """A torch Linear layer (seed 0) and a framework one holding the same weights."""
    import torch

    torch.manual_seed(0)
    theirs = torch.nn.Linear(n_in, n_out)
    ours = framework.nn.Linear(n_in, n_out)
    ours.weight.data = framework.tensor(theirs.weight.detach().numpy())
    ours.bias.data = framework.tensor(theirs.bias.detach().numpy())
    return theirs, ours


@needs_torch
def test_against_torch() -> None:
    import torch

    layer, ours = _linear_pair(16, 32)
    x = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
    with torch.autocast("cpu"):
        theirs_out = torch.relu(layer(torch.tensor(x)))
        theirs_loss = torch.nn.functional.mse_loss(theirs_out, torch.zeros(8, 32))
    with framework.autocast("cpu"):
        ours_out = framework.relu(ours(framework.tensor(x)))
        ours_loss = framework.nn.functional.mse_loss(ours_out, framework.zeros(8, 32))
    np.testing.assert_array_equal(ours_out.float().detach().numpy(), theirs_out.float().detach().numpy())
    assert ours_loss.dtype is float32 and theirs_loss.dtype == torch.float32
    assert ours_out.grad_fn is not None and theirs_out.grad_fn is not None
    assert ours_out.grad_fn.name() == theirs_out.grad_fn.name()
    np.testing.assert_allclose(ours_loss.item(), theirs_loss.item(), rtol=1e-6)


# ---- GradScaler ----------------------------------------------------------------------------------


def _model_and_optimizer() -> tuple[framework.nn.Module, framework.optim.Optimizer]:
    framework.manual_seed(0)
    model = framework.nn.Linear(3, 2)
    return model, framework.optim.SGD(model.parameters(), lr=0.1)


def test_grad_scaler_scales_unscales_and_steps() -> None:
    model, optimizer = _model_and_optimizer()
    scaler = framework.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    assert scaler.get_scale() == 8.0 and scaler.is_enabled()
    x = framework.randn(4, 3)
    before = model.weight.detach().clone()
    loss = model(x).sum()
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.item(), 8.0 * loss.item(), rtol=1e-6)
    scaled.backward()
    assert model.weight.grad is not None
    reference = model.weight.grad.detach().clone() / 8.0
    scaler.unscale_(optimizer)
    np.testing.assert_allclose(model.weight.grad.numpy(), reference.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    np.testing.assert_allclose(model.weight.detach().numpy(), (before - 0.1 * reference).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        scaler.step(optimizer)
    scaler.update()
    assert scaler.get_scale() == 8.0 and scaler._get_growth_tracker() == 1
    for _ in range(1):  # the second clean step reaches growth_interval: the scale doubles
        optimizer.zero_grad()
        scaler.scale(model(x).sum()).backward()
        scaler.step(optimizer)
        scaler.update()
    assert scaler.get_scale() == 16.0 and scaler._get_growth_tracker() == 0
    assert scaler.state_dict() == {
        "scale": 16.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 2,
        "_growth_tracker": 0,
    }


def test_grad_scaler_skips_steps_with_inf_gradients_and_backs_off() -> None:
    model, optimizer = _model_and_optimizer()
    scaler = framework.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale(model(framework.randn(2, 3)).sum()).backward()
    assert model.weight.grad is not None
    model.weight.grad[0, 0] = float("inf")
    before = model.weight.detach().clone()
    result, found_inf = scaler.step(optimizer, return_found_inf=True)
    assert result is None and found_inf
    np.testing.assert_array_equal(model.weight.detach().numpy(), before.numpy())
    scaler.update()
    assert scaler.get_scale() == 2.0 and scaler._get_growth_tracker() == 0
    scaler.update(new_scale=1024.0)
    assert scaler.get_scale() == 1024.0


def test_grad_scaler_errors_and_disabled_forms() -> None:
    model, optimizer = _model_and_optimizer()
    scaler = framework.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(optimizer)
    scaler.scale(model(framework.randn(2, 3)).sum()).backward()
    with pytest.raises(RuntimeError, match=r"Closure use is not currently supported if GradScaler"):
        scaler.step(optimizer, closure=lambda: 0.0)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale([1.0])  # type: ignore[list-item]
    with pytest.raises(AssertionError, match=r"The growth factor must be > 1\.0\."):
        framework.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.warns(UserWarning, match="torch.cuda.amp.GradScaler is enabled, but CUDA is not available"):
        disabled = framework.amp.GradScaler()
    loss = model(framework.randn(2, 3)).sum()
    assert disabled.scale(loss) is loss and disabled.get_scale() == 1.0 and disabled.state_dict() == {}
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        scaler.load_state_dict({})
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.GradScaler\(args...\)` is deprecated"):
        assert framework.cpu.amp.GradScaler().is_enabled()


@needs_torch
def test_grad_scaler_training_matches_torch() -> None:
    import torch

    theirs, ours = _linear_pair(6, 3)
    t_opt = torch.optim.SGD(theirs.parameters(), lr=0.05, momentum=0.9)
    f_opt = framework.optim.SGD(ours.parameters(), lr=0.05, momentum=0.9)
    t_scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)
    f_scaler = framework.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)
    rng = np.random.default_rng(1)
    for _ in range(6):
        x = rng.standard_normal((8, 6)).astype(np.float32)
        y = rng.integers(0, 3, 8)
        losses = []
        for model, opt, scaler, lib in ((theirs, t_opt, t_scaler, torch), (ours, f_opt, f_scaler, framework)):
            opt.zero_grad()
            with lib.autocast("cpu"):
                loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(loss.item())
        # float32 sums may round differently in the last bit (PyTorch vectorises its reductions)
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-6)
        assert t_scaler.get_scale() == f_scaler.get_scale()
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-5)


def test_unscale_operator_keeps_each_dtype_precision_and_reports_infs() -> None:
    exact = np.array([1.0 + 1e-12, 3.0])
    grads = [framework.tensor(exact), framework.tensor([1.5, float("nan")]).bfloat16()]
    found_inf = framework.zeros(())
    framework._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, framework.full((), 0.5))
    np.testing.assert_array_equal(grads[0].numpy(), exact * 0.5)  # float64 computes in float64
    assert grads[1].float().tolist()[0] == 0.75 and found_inf.item() == 1.0
    with pytest.raises(RuntimeError, match=r"found_inf must be a 1-element tensor\."):
        framework._amp_foreach_non_finite_check_and_unscale_(grads, framework.zeros(2), framework.ones(()))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        integers = [framework.ones(2, dtype=framework.int64)]
        framework._amp_foreach_non_finite_check_and_unscale_(integers, found_inf, framework.ones(()))
