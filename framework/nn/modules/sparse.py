"""`Embedding`."""

from __future__ import annotations

import framework
from framework import no_grad
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn import functional as F
from framework.nn import init
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter

__all__ = ["Embedding"]


def _embedding_weight(
    num_embeddings: int,
    embedding_dim: int,
    _weight: Tensor | None,
    requires_grad: bool,
    device: Device | str | None,
    dtype: DType | None,
) -> Parameter:
    """An embedding table: `_weight` (checked to be num_embeddings x embedding_dim), else a new
    uninitialised one."""
    if _weight is None:
        table = framework.empty((num_embeddings, embedding_dim), device=device, dtype=dtype)
        return Parameter(table, requires_grad=requires_grad)
    if list(_weight.shape) != [num_embeddings, embedding_dim]:
        raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
    return Parameter(_weight, requires_grad=requires_grad)


def _reset_embedding(weight: Parameter, padding_idx: int | None) -> None:
    """Fill an embedding table from N(0, 1), its padding_idx row with zeros."""
    init.normal_(weight)
    if padding_idx is not None:
        with no_grad():
            weight[padding_idx].fill_(0)


def _pretrained_size(embeddings: Tensor) -> tuple[int, int]:
    """(num_embeddings, embedding_dim) of a pretrained table, which must be 2-d."""
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    rows, cols = embeddings.shape
    return rows, cols


class Embedding(Module):
    """A lookup table: row i of `weight` (num_embeddings, embedding_dim) for index i; the
    `padding_idx` row starts at zero and gets no gradient."""

    weight: Parameter

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = F._padding_index(padding_idx, num_embeddings, "Padding_idx")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight = _embedding_weight(num_embeddings, embedding_dim, _weight, not _freeze, device, dtype)
        if _weight is None:
            self.reset_parameters()
        self.sparse = sparse

    def reset_parameters(self) -> None:
        _reset_embedding(self.weight, self.padding_idx)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An Embedding whose weight is `embeddings` (2-d), frozen unless `freeze` is False."""
        rows, cols = _pretrained_size(embeddings)
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
