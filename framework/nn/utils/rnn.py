"""`torch.nn.utils.rnn.pad_sequence`: variable-length sequences padded into one tensor."""

from __future__ import annotations

from collections.abc import Iterable

import framework
from framework._tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes (L_i, *) into (max L, B, *) ((B, max L, *) with batch_first),
    filling the rest with padding_value, after each sequence ("right") or before it ("left").
    The result has the first sequence's dtype; the copies are recorded (CopySlices), so
    gradients flow back to the sequences."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(sequence.shape[0] for sequence in sequences)
    first = sequences[0]
    shape = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = framework.full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype, device=first.device)
    for i, sequence in enumerate(sequences):
        length = sequence.shape[0]
        start = max_len - length if padding_side == "left" else 0
        out.select(0 if batch_first else 1, i).narrow(0, start, length).copy_(sequence)
    return out
