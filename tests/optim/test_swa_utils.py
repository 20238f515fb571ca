"""`framework.optim.swa_utils`: SWALR's learning rates (recorded from PyTorch), AveragedModel's
SWA/EMA averages against NumPy running means, update_bn, errors; everything live against
PyTorch from the same seed when it is installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from oracle_fixtures import needs_torch, torch

import framework
from framework.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)


def _train(lib: Any) -> dict[str, Any]:
    """Four SGD steps of a small seeded model under SWALR, averaged four ways; then update_bn."""
    su = lib.optim.swa_utils
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 1))
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    averaged = {
        "swa": su.AveragedModel(model),
        "ema": su.AveragedModel(model, multi_avg_fn=su.get_ema_multi_avg_fn(0.9), use_buffers=True),
        "ema1": su.AveragedModel(model, avg_fn=su.get_ema_avg_fn(0.8)),
        "swam": su.AveragedModel(model, multi_avg_fn=su.get_swa_multi_avg_fn()),
    }
    sched = su.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    data = [lib.randn(5, 3) for _ in range(4)]
    history: list[list[np.ndarray]] = []
    lrs = []
    for x in data:
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        history.append([np.array(p.tolist()) for p in model.parameters()])
        for m in averaged.values():
            m.update_parameters(model)
        sched.step()
        lrs.append(sched.get_last_lr())
    out: dict[str, Any] = {"lrs": lrs, "history": history}
    for name, m in averaged.items():
        out[name] = {k: np.array(v.tolist()) for k, v in m.state_dict().items()}
    su.update_bn(data, averaged["swa"])
    out["bn"] = {k: np.array(v.tolist()) for k, v in averaged["swa"].state_dict().items()}
    out["bn_inputs"] = data
    return out


def test_averaged_models_match_numpy_running_means() -> None:
    got = _train(framework)
    history = got["history"]
    names = ["module.0.weight", "module.0.bias", "module.1.weight", "module.1.bias", "module.2.weight"]
    for index, name in enumerate(names):
        steps = [h[index] for h in history]
        np.testing.assert_allclose(got["swa"][name], np.mean(steps, axis=0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got["swam"][name], np.mean(steps, axis=0), rtol=1e-5, atol=1e-6)
        ema = steps[0]
        for step in steps[1:]:
            ema = 0.8 * ema + 0.2 * step
        np.testing.assert_allclose(got["ema1"][name], ema, rtol=1e-5, atol=1e-6)
    assert got["swa"]["n_averaged"] == 4
    assert got["lrs"] == [[0.3875], [0.16250000000000006], [0.05], [0.05]]


def test_update_bn_sets_plain_average_statistics() -> None:
    bn = framework.nn.BatchNorm1d(3, momentum=0.3)
    model = framework.nn.Sequential(bn).eval()
    batches = [framework.randn(4, 3), framework.randn(6, 3)]
    update_bn([(b, 0) for b in batches], model)
    means = [b.numpy().mean(axis=0) for b in batches]
    variances = [b.numpy().var(axis=0, ddof=1) for b in batches]
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean(means, axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean(variances, axis=0), rtol=1e-5, atol=1e-6)
    assert bn.momentum == 0.3 and not model.training


@needs_torch
def test_swa_utils_match_pytorch() -> None:
    got, want = _train(framework), _train(torch)
    assert got["lrs"] == want["lrs"]
    for name in ("swa", "ema", "ema1", "swam", "bn"):
        assert got[name].keys() == want[name].keys()
        for key in got[name]:
            np.testing.assert_allclose(got[name][key], want[name][key], rtol=1e-5, atol=1e-6, err_msg=key)


def _lrs(lib: Any, swa_lr: Any, anneal_epochs: int, strategy: str, steps: int) -> list[list[float]]:
    params = [{"params": [lib.zeros(1, requires_grad=True)], "lr": 1.0}]
    params.append({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.3})
    opt = lib.optim.SGD(params, lr=0.1)
    sched = lib.optim.swa_utils.SWALR(
        opt, swa_lr=swa_lr, anneal_epochs=anneal_epochs, anneal_strategy=strategy
    )
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return out


SWALR_CASES: list[tuple[Any, int, str, list[list[float]]]] = [
    (
        [0.1, 0.2],
        4,
        "linear",
        [
            [1.0, 0.3],
            [0.775, 0.27499999999999997],
            [0.55, 0.25],
            [0.325, 0.22500000000000003],
            [0.1, 0.2],
            [0.1, 0.2],
        ],
    ),
    (0.1, 0, "cos", [[0.1, 0.1], [0.1, 0.1]]),
    (0.5, 2, "cos", [[1.0, 0.3], [0.75, 0.39999999999999997], [0.5, 0.5], [0.5, 0.5]]),
]


@pytest.mark.parametrize(("swa_lr", "anneal_epochs", "strategy", "expected"), SWALR_CASES)
def test_swalr_rates(swa_lr: Any, anneal_epochs: int, strategy: str, expected: list[list[float]]) -> None:
    got = _lrs(framework, swa_lr, anneal_epochs, strategy, len(expected) - 1)
    assert got == expected
    if torch is not None:
        assert got == _lrs(torch, swa_lr, anneal_epochs, strategy, len(expected) - 1)


def test_swalr_state_dict_round_trip() -> None:
    opt = framework.optim.SGD([framework.zeros(1, requires_grad=True)], lr=1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_strategy="linear")
    state = sched.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state
    other = SWALR(opt, swa_lr=0.1)
    other.load_state_dict(state)
    assert other.anneal_func(0.5) == 0.5


def test_errors() -> None:
    opt = framework.optim.SGD([framework.zeros(1, requires_grad=True)], lr=1.0)
    with pytest.raises(
        ValueError, match=r"Invalid decay value 1\.5 provided\. Please provide a value in \[0,1\]"
    ):
        get_ema_avg_fn(1.5)
    with pytest.raises(ValueError, match=r"Invalid decay value -1 provided"):
        get_ema_multi_avg_fn(-1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        SWALR(opt, 0.1, anneal_strategy="exp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        SWALR(opt, 0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match=r"swa_lr must have the same length as optimizer\.param_groups"):
        SWALR(opt, [0.1, 0.2])
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        AveragedModel(framework.nn.Linear(1, 1), avg_fn=get_swa_avg_fn(), multi_avg_fn=get_swa_multi_avg_fn())
