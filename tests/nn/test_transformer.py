"""Attention and transformer layers: `F.scaled_dot_product_attention` and `nn.MultiheadAttention`
against NumPy references, gradcheck in float64, checks and messages; live comparisons with
PyTorch (values, gradients, seeded initialisation, reprs, warnings) for MultiheadAttention,
the encoder/decoder layers, their stacks and `nn.Transformer` with copied weights."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from oracle_fixtures import needs_torch, torch

import framework
import framework.nn as nn
import framework.nn.functional as F
from framework import Tensor
from framework.autograd import gradcheck

Array = npt.NDArray[np.float64]


def np_softmax(x: Array) -> Array:
    shifted = np.exp(x - x.max(-1, keepdims=True))
    return np.asarray(shifted / shifted.sum(-1, keepdims=True))


def np_attention(
    q: Array, k: Array, v: Array, bias: Array | None = None, scale: float | None = None
) -> Array:
    """softmax(q kᵀ scale + bias) v, rows without any finite score giving zeros."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if bias is not None:
        scores = scores + bias
    empty = np.isneginf(scores).all(-1, keepdims=True)
    weights = np.where(empty, 0.0, np_softmax(np.where(empty, 0.0, scores)))
    return np.asarray(weights @ v)


def rand(*shape: int, seed: int = 0) -> Array:
    return np.random.default_rng(seed).standard_normal(shape)


def fw(x: Array, requires_grad: bool = False) -> Tensor:
    return framework.tensor(x, requires_grad=requires_grad)


Q, K, V = rand(2, 3, 4, 5, seed=1), rand(2, 3, 6, 5, seed=2), rand(2, 3, 6, 5, seed=3)
BOOL_MASK = np.random.default_rng(4).random((4, 6)) > 0.3
BOOL_MASK[1] = False


@pytest.mark.parametrize(
    ("kwargs", "bias", "scale"),
    [
        ({}, None, None),
        ({"attn_mask": BOOL_MASK}, np.where(BOOL_MASK, 0.0, -np.inf), None),
        ({"attn_mask": rand(4, 6, seed=5)}, rand(4, 6, seed=5), None),
        ({"is_causal": True}, np.where(np.tril(np.ones((4, 6))) > 0, 0.0, -np.inf), None),
        ({"scale": 0.25}, None, 0.25),
    ],
    ids=["plain", "bool-mask", "float-mask", "causal", "scale"],
)
def test_sdpa_matches_numpy(kwargs: dict[str, Any], bias: Array | None, scale: float | None) -> None:
    given = {k: fw(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    ours = F.scaled_dot_product_attention(fw(Q), fw(K), fw(V), **given)
    np.testing.assert_allclose(ours.numpy(), np_attention(Q, K, V, bias, scale), rtol=1e-12, atol=1e-14)


def test_sdpa_grouped_query_heads_and_fully_masked_rows() -> None:
    k, v = K[:, :1], V[:, :1]
    ours = F.scaled_dot_product_attention(fw(Q), fw(k), fw(v), enable_gqa=True)
    np.testing.assert_allclose(
        ours.numpy(), np_attention(Q, np.repeat(k, 3, 1), np.repeat(v, 3, 1)), rtol=1e-12
    )
    q = fw(Q, True)
    out = F.scaled_dot_product_attention(q, fw(K), fw(V), attn_mask=fw(BOOL_MASK))
    np.testing.assert_array_equal(out[:, :, 1].detach().numpy(), 0.0)
    out.sum().backward()
    assert np.isfinite(q.grad.numpy()).all() and (q.grad.numpy()[:, :, 1] == 0).all()


def test_sdpa_dropout_is_applied_regardless_of_mode() -> None:
    framework.manual_seed(0)
    out = F.scaled_dot_product_attention(fw(Q), fw(K), fw(V), dropout_p=0.5)
    assert not np.allclose(out.numpy(), np_attention(Q, K, V))


def test_sdpa_gradcheck() -> None:
    q, k, v = (
        fw(rand(1, 2, 3, 4, seed=6), True),
        fw(rand(1, 2, 5, 4, seed=7), True),
        fw(rand(1, 2, 5, 4, seed=8), True),
    )
    mask = fw(rand(3, 5, seed=9), True)

    def fn(q: Tensor, k: Tensor, v: Tensor, mask: Tensor) -> Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    assert gradcheck(fn, (q, k, v, mask))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))


def raises(exc: type[Exception], message: str, fn: Callable[[], object]) -> None:
    with pytest.raises(exc, match=re.escape(message)):
        fn()


def test_sdpa_checks() -> None:
    q, k = fw(Q), fw(K)
    raises(
        RuntimeError,
        "Expected query, key, and value to all be  at least 2 dimensional",
        lambda: F.scaled_dot_product_attention(q[0, 0, 0], k, k),
    )
    raises(
        RuntimeError,
        "query.dtype: double key.dtype: double and value.dtype: float instead.",
        lambda: F.scaled_dot_product_attention(q, k, k.float()),
    )
    raises(
        RuntimeError,
        "but got attn_mask.dtype: long int and  query.dtype: double instead.",
        lambda: F.scaled_dot_product_attention(
            q, k, k, attn_mask=framework.ones(4, 6, dtype=framework.int64)
        ),
    )
    raises(
        RuntimeError,
        "Explicit attn_mask should not be set when is_causal=True",
        lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=fw(BOOL_MASK), is_causal=True),
    )
    raises(
        RuntimeError,
        "Number of heads in key and value must divide",
        lambda: F.scaled_dot_product_attention(q, k[:, :2], k[:, :2], enable_gqa=True),
    )


def np_mha(
    module: nn.MultiheadAttention, q: Array, k: Array, v: Array, bias: Array | None
) -> tuple[Array, Array]:
    """Sequence-first multi-head attention from the module's weights in NumPy; returns the output
    and the head-averaged weights."""
    w = module.in_proj_weight.detach().numpy()
    b = module.in_proj_bias.detach().numpy()
    e, h = module.embed_dim, module.num_heads
    qp, kp, vp = (x @ w[i * e : (i + 1) * e].T + b[i * e : (i + 1) * e] for i, x in enumerate((q, k, v)))
    length, batch, _ = q.shape

    def heads(x: Array) -> Array:  # (L, N, E) -> (N, H, L, E/H)
        return x.reshape(x.shape[0], batch, h, e // h).transpose(1, 2, 0, 3)

    scores = heads(qp) @ heads(kp).transpose(0, 1, 3, 2) / np.sqrt(e // h)
    weights = np_softmax(scores if bias is None else scores + bias)
    out = (weights @ heads(vp)).transpose(2, 0, 1, 3).reshape(length, batch, e)
    out = out @ module.out_proj.weight.detach().numpy().T + module.out_proj.bias.detach().numpy()
    return out, weights.mean(1)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_matches_numpy(need_weights: bool) -> None:
    framework.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, dtype=framework.float64)
    with framework.no_grad():
        mha.in_proj_bias.copy_(fw(rand(24, seed=10)))
        mha.out_proj.bias.copy_(fw(rand(8, seed=11)))
    q, kv = rand(4, 3, 8, seed=12), rand(5, 3, 8, seed=13)
    padding = np.zeros((3, 5), dtype=bool)
    padding[0, 3:] = True
    attn_mask = np.random.default_rng(14).random((4, 5)) > 0.8
    attn_mask[:, 0] = False
    bias = np.where(attn_mask, -np.inf, 0.0)[None, None] + np.where(padding, -np.inf, 0.0)[:, None, None, :]
    out, weights = mha(
        fw(q),
        fw(kv),
        fw(kv),
        key_padding_mask=fw(padding),
        attn_mask=fw(attn_mask),
        need_weights=need_weights,
    )
    expected, expected_weights = np_mha(mha, q, kv, kv, bias)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(weights.detach().numpy(), expected_weights, rtol=1e-10, atol=1e-12)
    else:
        assert weights is None


def test_multihead_attention_parameters_and_repr() -> None:
    mha = nn.MultiheadAttention(8, 2)
    assert [n for n, _ in mha.named_parameters()] == [
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    assert (mha.in_proj_bias.detach().numpy() == 0).all() and (mha.out_proj.bias.detach().numpy() == 0).all()
    assert repr(mha) == (
        "MultiheadAttention(\n"
        "  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)"
    )
    separate = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    shapes = {n: tuple(p.shape) for n, p in separate.named_parameters()}
    assert shapes == {
        "q_proj_weight": (8, 8),
        "k_proj_weight": (8, 3),
        "v_proj_weight": (8, 5),
        "bias_k": (1, 1, 8),
        "bias_v": (1, 1, 8),
        "out_proj.weight": (8, 8),
    }
    out, weights = separate(framework.randn(4, 2, 8), framework.randn(6, 2, 3), framework.randn(6, 2, 5))
    assert out.shape == (4, 2, 8) and weights is not None and weights.shape == (2, 4, 7)
    unbatched, per_head = mha(
        framework.randn(4, 8), framework.randn(6, 8), framework.randn(6, 8), average_attn_weights=False
    )
    assert unbatched.shape == (4, 8) and per_head is not None and per_head.shape == (2, 4, 6)


def test_multihead_attention_gradcheck() -> None:
    mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=framework.float64)
    x = fw(rand(2, 3, 4, seed=15), True)
    mask = fw(np.array([[False, False, True], [False, False, False]]))
    assert gradcheck(lambda x: mha(x, x, x, key_padding_mask=mask)[0], (x,))


def test_multihead_attention_checks() -> None:
    raises(ValueError, "embed_dim and num_heads must be greater than 0", lambda: nn.MultiheadAttention(0, 2))
    raises(AssertionError, "embed_dim must be divisible by num_heads", lambda: nn.MultiheadAttention(6, 4))
    mha = nn.MultiheadAttention(8, 2)
    x = framework.randn(4, 3, 8)
    raises(
        AssertionError,
        "only bool and floating types of attn_mask are supported",
        lambda: mha(x, x, x, attn_mask=framework.zeros(4, 4, dtype=framework.int64)),
    )
    raises(
        RuntimeError,
        "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (4, 4).",
        lambda: mha(x, x, x, attn_mask=framework.zeros(3, 4)),
    )
    raises(
        AssertionError, "expected `key` and `value` to be 3-D but found 2-D and 3-D", lambda: mha(x, x[0], x)
    )
    raises(
        RuntimeError, "Need attn_mask if specifying the is_causal hint", lambda: mha(x, x, x, is_causal=True)
    )
    raises(
        AssertionError,
        "Expected key_padded_mask.shape[1] to be 4, but got 3",
        lambda: mha(x, x, x, key_padding_mask=framework.zeros(3, 3, dtype=framework.bool)),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mha(
            x,
            x,
            x,
            key_padding_mask=framework.zeros(3, 4),
            attn_mask=framework.zeros(4, 4, dtype=framework.bool),
        )
    assert "Support for mismatched key_padding_mask and attn_mask is deprecated" in str(caught[0].message)


def test_encoder_layer_structure_and_causal_mask() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu")
    assert layer.activation is F.gelu and layer.activation_relu_or_gelu == 2
    raises(
        RuntimeError,
        "activation should be relu/gelu, not tanh",
        lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    )
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    with pytest.warns(
        UserWarning, match="self.use_nested_tensor is False because encoder_layer.self_attn.batch_first"
    ):
        encoder = nn.TransformerEncoder(layer, 2)
    x = framework.randn(3, 2, 8)
    causal = encoder(x, mask=mask)
    explicit = encoder(x, mask=mask, is_causal=False)
    np.testing.assert_allclose(causal.detach().numpy(), explicit.detach().numpy(), rtol=1e-5, atol=1e-6)
    first = encoder(x[:1])
    np.testing.assert_allclose(causal[:1].detach().numpy(), first.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_transformer_checks_and_gradcheck() -> None:
    model = nn.Transformer(4, 2, 1, 1, 8, 0.0, batch_first=True, dtype=framework.float64)
    raises(
        RuntimeError,
        "the batch number of src and tgt must be equal",
        lambda: model(framework.randn(2, 3, 4), framework.randn(3, 3, 4)),
    )
    raises(
        RuntimeError,
        "the feature number of src and tgt must be equal to d_model",
        lambda: model(framework.randn(2, 3, 5), framework.randn(2, 3, 5)),
    )
    src, tgt = fw(rand(1, 3, 4, seed=16), True), fw(rand(1, 2, 4, seed=17), True)
    assert gradcheck(lambda s, t: model(s, t, tgt_mask=model.generate_square_subsequent_mask(2)), (src, tgt))


# ---- live comparisons with PyTorch ---------------------------------------------------------------


def copy_weights(theirs: Any, ours: nn.Module) -> None:
    ours.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def build(lib: Any, factory: Callable[[Any], Any], seed: int = 3) -> Any:
    lib.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return factory(lib).double()


def assert_same_parameters(ours: nn.Module, theirs: Any) -> None:
    assert repr(ours) == repr(theirs)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert n1 == n2
        np.testing.assert_allclose(p1.detach().numpy(), p2.detach().numpy(), rtol=1e-6, atol=1e-7, err_msg=n1)


MHA_CASES: list[dict[str, Any]] = [
    {},
    {"batch_first": True},
    {"kdim": 3, "vdim": 2},
    {"add_bias_kv": True, "add_zero_attn": True},
    {"bias": False},
]


@needs_torch
@pytest.mark.parametrize("kwargs", MHA_CASES, ids=[str(k) for k in MHA_CASES])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_matches_torch_live(kwargs: dict[str, Any], need_weights: bool) -> None:
    ours = build(framework, lambda lib: lib.nn.MultiheadAttention(8, 2, **kwargs))
    theirs = build(torch, lambda lib: lib.nn.MultiheadAttention(8, 2, **kwargs))
    assert_same_parameters(ours, theirs)
    batch_first = kwargs.get("batch_first", False)

    def shaped(length: int, dim: int, seed: int) -> Array:
        return rand(3, length, dim, seed=seed) if batch_first else rand(length, 3, dim, seed=seed)

    q, k, v = shaped(4, 8, 20), shaped(5, kwargs.get("kdim", 8), 21), shaped(5, kwargs.get("vdim", 8), 22)
    padding = np.zeros((3, 5), dtype=bool)
    padding[1, 2:] = True
    attn_mask = np.zeros((4, 5), dtype=bool)
    attn_mask[0, 1] = True
    results = []
    for module, lib in ((ours, framework), (theirs, torch)):
        tq = lib.tensor(q, requires_grad=True)
        out, weights = module(
            tq,
            lib.tensor(k),
            lib.tensor(v),
            key_padding_mask=lib.tensor(padding),
            attn_mask=lib.tensor(attn_mask),
            need_weights=need_weights,
        )
        out.sum().backward()
        grads = [tq.grad.numpy()] + [p.grad.numpy() for p in module.parameters()]
        results.append((out.detach().numpy(), None if weights is None else weights.detach().numpy(), grads))
    (o1, w1, g1), (o2, w2, g2) = results
    np.testing.assert_allclose(o1, o2, rtol=1e-10, atol=1e-12)
    assert (w1 is None) == (w2 is None)
    if w1 is not None:
        np.testing.assert_allclose(w1, w2, rtol=1e-10, atol=1e-12)
    for a, b in zip(g1, g2, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"norm_first": True, "activation": "gelu", "batch_first": True},
        {"bias": False, "layer_norm_eps": 1e-3},
    ],
    ids=["post-norm", "pre-norm-gelu-batch-first", "no-bias"],
)
def test_encoder_matches_torch_live(kwargs: dict[str, Any]) -> None:
    def factory(lib: Any) -> Any:
        layer = lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kwargs)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))

    ours, theirs = build(framework, factory), build(torch, factory)
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        factory(framework)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        factory(torch)
    assert [str(w.message) for w in ours_warned] == [str(w.message) for w in theirs_warned]
    copy_weights(theirs, ours)
    x = rand(3, 4, 8, seed=23)
    mask = np.triu(np.full((4 if kwargs.get("batch_first") else 3,) * 2, -np.inf), 1)
    padding = np.zeros((4, 3) if not kwargs.get("batch_first") else (3, 4), dtype=bool)
    padding[0, -1] = True
    results = []
    for module, lib in ((ours, framework), (theirs, torch)):
        tx = lib.tensor(x, requires_grad=True)
        out = module(
            tx, mask=lib.tensor(mask), src_key_padding_mask=lib.tensor(np.where(padding, -np.inf, 0.0))
        )
        out.pow(2).sum().backward()
        results.append(
            [out.detach().numpy(), tx.grad.numpy()] + [p.grad.numpy() for p in module.parameters()]
        )
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@needs_torch
def test_transformer_matches_torch_live() -> None:
    def factory(lib: Any) -> Any:
        return lib.nn.Transformer(8, 2, 2, 2, 16, 0.0)

    ours, theirs = build(framework, factory), build(torch, factory)
    assert_same_parameters(ours, theirs)
    src, tgt = rand(5, 3, 8, seed=24), rand(4, 3, 8, seed=25)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64).numpy()
    outs = []
    for module, lib in ((ours, framework), (theirs, torch)):
        out = module(lib.tensor(src), lib.tensor(tgt), tgt_mask=lib.tensor(tgt_mask))
        out.sum().backward()
        outs.append(
            [out.detach().numpy(), out.grad_fn.name()] + [p.grad.numpy() for p in module.parameters()]
        )
    assert outs[0][1] == outs[1][1]
    for a, b in zip(outs[0][:1] + outs[0][2:], outs[1][:1] + outs[1][2:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@needs_torch
def test_sdpa_matches_torch_live() -> None:
    tf = torch.nn.functional
    q, k, v = (torch.tensor(a) for a in (Q, K, V))
    for kwargs in ({}, {"attn_mask": torch.tensor(BOOL_MASK)}, {"is_causal": True, "scale": 0.5}):
        ours = F.scaled_dot_product_attention(
            fw(Q),
            fw(K),
            fw(V),
            **{
                k: framework.tensor(x.numpy()) if isinstance(x, torch.Tensor) else x
                for k, x in kwargs.items()
            },
        )
        np.testing.assert_allclose(
            ours.numpy(), tf.scaled_dot_product_attention(q, k, v, **kwargs).numpy(), rtol=1e-10, atol=1e-12
        )
