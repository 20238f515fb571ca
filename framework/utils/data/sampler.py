"""Samplers: `Sampler`, `SequentialSampler`, `RandomSampler`, `SubsetRandomSampler`,
`WeightedRandomSampler`, `BatchSampler`.

`RandomSampler` draws as PyTorch's does (a `randperm` per pass from its generator, or from a
generator seeded by one draw of the default one), so the same seed gives the same order."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import framework
from framework import Generator

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)

_RANDINT_CHUNK = 32


class Sampler(Generic[T_co]):
    """An iterable over dataset indices (or batches of them)."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _generator_or_fresh(generator: Generator | None) -> Generator:
    """`generator`, or a new one seeded by one int64 draw from the default generator."""
    if generator is not None:
        return generator
    seed = int(framework.empty((), dtype=framework.int64).random_())
    return framework.Generator().manual_seed(seed)


class RandomSampler(Sampler[int]):
    """A random permutation per pass (or `num_samples` draws with `replacement`)."""

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _generator_or_fresh(self.generator)
        if self.replacement:
            for size in [_RANDINT_CHUNK] * (self.num_samples // _RANDINT_CHUNK) + [
                self.num_samples % _RANDINT_CHUNK
            ]:
                yield from framework.randint(
                    0, n, (size,), dtype=framework.int64, generator=generator
                ).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from framework.randperm(n, generator=generator).tolist()
        yield from framework.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (one `randperm` per pass)."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in framework.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights` (one `multinomial` per
    pass, with or without `replacement`), as PyTorch's."""

    def __init__(
        self,
        weights: Sequence[float] | framework.Tensor,
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = framework.as_tensor(weights, dtype=framework.float64)
        if weights_tensor.dim() != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = framework.multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class _InfiniteConstantSampler(Sampler[Any]):
    """None forever: the sampler of a DataLoader over an IterableDataset (its batches only count)."""

    def __iter__(self) -> Iterator[Any]:
        while True:
            yield None


class BatchSampler(Sampler[list[int]]):
    """Lists of `batch_size` consecutive indices of `sampler` (the last one shorter unless `drop_last`)."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
