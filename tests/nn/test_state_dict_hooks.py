"""Module state-dict hooks with PyTorch's semantics: state_dict pre/post hooks (the private post
hook may replace the dict), load_state_dict pre hooks (with and without the module) and post
hooks (incompatible keys editable in place), removable handles, and the legacy weight_norm
state dict loading into parametrizations.weight_norm."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import framework as torch
from framework import nn


def _model() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))


def test_state_dict_pre_and_post_hooks() -> None:
    model = _model()
    calls: list[Any] = []
    inner = model[1]
    inner.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

    def post(module: nn.Module, state: dict[str, Any], prefix: str, local_metadata: dict[str, Any]) -> None:
        calls.append(("post", prefix, sorted(state), local_metadata["version"]))
        state[prefix + "extra"] = torch.zeros(1)

    handle = inner.register_state_dict_post_hook(post)
    state = model.state_dict(keep_vars=True)
    assert calls == [("pre", "1.", True), ("post", "1.", ["0.bias", "0.weight", "1.0.bias", "1.0.weight"], 1)]
    assert list(state) == ["0.weight", "0.bias", "1.0.weight", "1.0.bias", "1.extra"]
    handle.remove()
    assert "1.extra" not in model.state_dict()


def test_public_post_hook_must_return_none() -> None:
    model = _model()

    def returns(module: nn.Module, state: dict[str, Any], prefix: str, meta: dict[str, Any]) -> Any:
        return {}

    model.register_state_dict_post_hook(returns)
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        model.state_dict()
    with pytest.raises(RuntimeError, match="Cannot register the same function as the state dict post hook"):
        model._register_state_dict_hook(returns)


def test_private_post_hook_replaces_on_the_root_only() -> None:
    model = _model()
    model._register_state_dict_hook(lambda m, state, prefix, meta: {"only": 1})
    assert model.state_dict() == {"only": 1}
    inner = _model()
    inner[1]._register_state_dict_hook(lambda m, state, prefix, meta: {"only": 1})
    assert len(inner.state_dict()) == 4


def test_load_pre_hooks_edit_the_state_dict() -> None:
    model, source = _model(), _model()
    with torch.no_grad():
        source[1][0].weight.fill_(3.0)
    state = {k.replace("1.0.", "1.old."): v for k, v in source.state_dict().items()}
    seen: list[Any] = []

    def rename(
        module: nn.Module, sd: dict[str, Any], prefix: str, meta: Any, strict: bool, *rest: Any
    ) -> None:
        seen.append((module is model[1], prefix, strict))
        for key in [k for k in sd if k.startswith(prefix + "old.")]:
            sd[key.replace("old.", "0.")] = sd.pop(key)

    model[1].register_load_state_dict_pre_hook(rename)
    plain: list[str] = []
    model._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: plain.append(prefix))
    assert repr(model.load_state_dict(state)) == "<All keys matched successfully>"
    assert seen == [(True, "1.", True)] and plain == [""]
    assert model[1][0].weight.tolist() == [[3.0, 3.0]]


def test_load_post_hooks_edit_incompatible_keys() -> None:
    model = _model()
    state = model.state_dict()
    del state["0.bias"]
    state["stray"] = torch.zeros(1)
    order: list[str] = []

    def child(module: nn.Module, keys: Any) -> None:
        order.append("child:" + ",".join(keys.missing_keys))

    def clear(module: nn.Module, keys: Any) -> None:
        order.append("root")
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()

    model[1].register_load_state_dict_post_hook(child)
    handle = model.register_load_state_dict_post_hook(clear)
    result = model.load_state_dict(state)
    assert order == ["child:0.bias", "root"] and result.missing_keys == []
    handle.remove()
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "0\.bias"'):
        model.load_state_dict(state)
    model.register_load_state_dict_post_hook(lambda m, keys: keys)
    with pytest.raises(AssertionError, match="are not expected to return new values"):
        model.load_state_dict(model.state_dict())


def test_wrapped_hook_pickles_and_dead_module() -> None:
    model = nn.Linear(1, 1)
    model.register_load_state_dict_pre_hook(print)
    copy = pickle.loads(pickle.dumps(model))
    (hook,) = copy._load_state_dict_pre_hooks.values()
    assert hook.module() is copy and hook.hook is print
    del copy
    with pytest.raises(RuntimeError, match="You are trying to call the hook of a dead Module!"):
        hook({}, "", {}, True, [], [], [])


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_weight_norm_state_dict_loads_into_parametrization() -> None:
    torch.manual_seed(1)
    legacy = nn.utils.weight_norm(nn.Linear(3, 2))
    state = legacy.state_dict()
    assert sorted(state) == ["bias", "weight_g", "weight_v"]
    current = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
    assert repr(current.load_state_dict(state)) == "<All keys matched successfully>"
    assert torch.equal(current.weight, legacy.weight)
    assert sorted(current.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
