"""`torch.nn.utils.rnn`: variable-length sequences padded into one tensor (`pad_sequence`,
`unpad_sequence`) or packed time step by time step (`PackedSequence`, `pack_padded_sequence`,
`pad_packed_sequence`, `pack_sequence`, `unpack_sequence`), as the recurrent layers accept."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import framework
from framework._tensor import Tensor
from framework.c10.dtypes import dtype as DType

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """Sequences packed time step by time step: `data` holds, for each step t, the elements of the
    batch_sizes[t] sequences still running (longest first); sorted_indices maps that order to
    the original batch and unsorted_indices back (None when the batch was already sorted)."""

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                "created manually. They should be instantiated by functions like pack_sequence and "
                "pack_padded_sequences in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The data converted by `Tensor.to` (the indices follow it to its device); self when the
        data does not change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        moved = [
            None if t is None else t.to(data.device) for t in (self.sorted_indices, self.unsorted_indices)
        ]
        return type(self)(data, self.batch_sizes, moved[0], moved[1])

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def _cast(self, dtype: DType) -> PackedSequence:
        return self.to(dtype=dtype)

    def double(self) -> PackedSequence:
        return self._cast(framework.float64)

    def float(self) -> PackedSequence:
        return self._cast(framework.float32)

    def half(self) -> PackedSequence:
        return self._cast(framework.float16)

    def long(self) -> PackedSequence:
        return self._cast(framework.int64)

    def int(self) -> PackedSequence:
        return self._cast(framework.int32)

    def short(self) -> PackedSequence:
        return self._cast(framework.int16)

    def char(self) -> PackedSequence:
        return self._cast(framework.int8)

    def byte(self) -> PackedSequence:
        return self._cast(framework.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of 0..n-1 (None for None)."""
    if permutation is None:
        return None
    output = framework.empty_like(permutation)
    output.scatter_(0, permutation, framework.arange(permutation.numel(), device=permutation.device))
    return output


def _running(lengths: Tensor, steps: int) -> Tensor:
    """(steps, batch) bool: whether sequence b (of lengths[b]) still runs at step t."""
    return framework.arange(steps).unsqueeze(1) < lengths.unsqueeze(0)


def pack_padded_sequence(
    input: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch (T, B, *) ((B, T, *) with batch_first) of sequences of `lengths`;
    with enforce_sorted the lengths must be decreasing, otherwise the batch is sorted first
    (sorted_indices)."""
    lengths = (
        lengths.to(dtype=framework.int64)
        if isinstance(lengths, Tensor)
        else framework.as_tensor(list(lengths), dtype=framework.int64)
    )
    sorted_indices = None
    batch_dim = 0 if batch_first else 1
    if not enforce_sorted:
        given = lengths.tolist()
        order = sorted(range(len(given)), key=lambda i: -given[i])
        sorted_indices = framework.tensor(order, dtype=framework.int64)
        lengths = lengths.index_select(0, sorted_indices)
        input = input.index_select(batch_dim, sorted_indices.to(input.device))
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    values = lengths.tolist()
    batch_size = input.shape[batch_dim]
    if len(values) != batch_size:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(values)} "
            f"(batch_size={batch_size})"
        )
    if values[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if any(later > earlier for earlier, later in itertools.pairwise(values)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
            "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
            "requirement if you do not need ONNX exportability."
        )
    steps = input.shape[1 - batch_dim]
    time_major = input.transpose(0, 1) if batch_first else input
    batch_sizes = _running(lengths, values[0]).sum(1)
    return PackedSequence(time_major[_running(lengths, steps)], batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo `pack_padded_sequence`: the padded batch (T, B, *) ((B, T, *) with batch_first), T the
    longest length or total_length, in the original batch order, and the lengths (int64)."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    max_seq_length = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_seq_length}"
            )
        max_seq_length = total_length
    batch = int(batch_sizes[0])
    lengths = (batch_sizes.unsqueeze(1) > framework.arange(batch).unsqueeze(0)).sum(0)
    padded = framework.full(
        (max_seq_length, batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    )
    padded[_running(lengths, max_seq_length)] = data
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return padded.index_select(0 if batch_first else 1, sequence.unsorted_indices), lengths[
            sequence.unsorted_indices.cpu()
        ]
    return padded, lengths


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


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length.  (PyTorch transposes a
    sequence-first batch in place; here the argument is left as it is.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    idx = framework.arange(padded_sequences.shape[1], device=lengths.device)
    return [sequence[idx < length] for sequence, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i, *) (decreasing lengths unless enforce_sorted is False)."""
    lengths = framework.as_tensor([v.shape[0] for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in the original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
