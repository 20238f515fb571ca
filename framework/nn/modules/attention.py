"""`MultiheadAttention` (PyTorch keeps it in `torch.nn.modules.activation`) and its output
projection's class `NonDynamicallyQuantizableLinear`."""

from __future__ import annotations

import framework
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn import functional as F
from framework.nn import init
from framework.nn.modules.linear import Linear
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A `Linear` under its own name: MultiheadAttention's `out_proj` (as PyTorch's, which
    quantization tooling skips)."""


class MultiheadAttention(Module):
    """Attention with `num_heads` heads over query (L, N, E), key (S, N, kdim) and value
    (S, N, vdim) ((N, L, E)... with batch_first; unbatched inputs drop N).  Parameters as
    PyTorch's: in_proj_weight (3E, E) when kdim = vdim = E, else q_proj_weight, k_proj_weight,
    v_proj_weight; in_proj_bias (3E); out_proj; bias_k and bias_v with add_bias_kv.  Returns
    (output, attention weights or None)."""

    bias_k: Parameter | None
    bias_v: Parameter | None
    in_proj_weight: Parameter | None
    in_proj_bias: Parameter | None
    q_proj_weight: Parameter | None
    k_proj_weight: Parameter | None
    v_proj_weight: Parameter | None

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape: int) -> Parameter:
            return Parameter(framework.empty(shape, device=device, dtype=dtype))

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, device=device, dtype=dtype
        )
        if add_bias_kv:
            self.bias_k = empty(1, 1, embed_dim)
            self.bias_v = empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """xavier_uniform_ on the projection weights, zero biases, xavier_normal_ on bias_k/bias_v
        (out_proj's weight keeps Linear's initialisation)."""
        if self.in_proj_weight is not None:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                if weight is not None:
                    init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            if self.out_proj.bias is not None:
                init.constant_(self.out_proj.bias, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask), "attn_mask", query.dtype
        )
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights
