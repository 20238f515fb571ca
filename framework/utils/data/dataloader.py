"""`DataLoader`: batches of a map-style or iterable dataset, in the calling process."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import framework
from framework import Generator
from framework.utils.data._collate import default_collate, default_convert
from framework.utils.data.dataset import Dataset, IterableDataset
from framework.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    _InfiniteConstantSampler,
)

__all__ = ["DataLoader"]

_END: Any = object()

T_co = TypeVar("T_co", covariant=True)


class DataLoader(Generic[T_co]):
    """Iterate over `dataset` in batches: indices from `sampler` (sequential, or random with
    `shuffle`, drawing from `generator` as PyTorch's RandomSampler), grouped by `batch_sampler`
    (`batch_size`, `drop_last`), samples merged by `collate_fn`. `batch_size=None` yields single
    samples. An `IterableDataset` is read in its own order, `batch_size` samples at a time (no
    sampler, batch_sampler or shuffle). Only `num_workers=0` (loading in the calling process) is
    supported; `worker_init_fn` is then unused, as in PyTorch."""

    def __init__(
        self,
        dataset: Dataset[T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[Any], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if num_workers > 0:
            raise NotImplementedError(
                f"framework's DataLoader loads in the calling process only: num_workers={num_workers} is not "
                "supported, use num_workers=0"
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                "enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but "
                f"got num_workers={num_workers}"
            )
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                    f"shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but got "
                    f"sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                    "drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None and self._iterable:
            sampler = _InfiniteConstantSampler()
        elif sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn or (default_collate if self._auto_collation else default_convert)
        self._IterableDataset_len_called: int | None = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Iterable[Any]:
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> Iterator[Any]:
        indices = iter(self._index_sampler)
        # Drawn and unused, as PyTorch draws its workers' base seed: keeps the generators in step.
        framework.empty((), dtype=framework.int64).random_(generator=self.generator)
        if self._iterable:
            return self._stream_batches(indices, iter(self.dataset))
        return self._batches(indices)

    def _batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        for index in indices:
            yield self.collate_fn(self._fetch(index))

    def _stream_batches(self, batches: Iterator[Any], samples: Iterator[Any]) -> Iterator[Any]:
        """Batches of an IterableDataset's stream (a short last one unless `drop_last`), or its samples
        one by one without auto-collation; warns, as PyTorch, once more batches came than
        `len(loader)` announced."""
        for yielded, batch in enumerate(batches, start=1):
            if self._auto_collation:
                data: Any = list(itertools.islice(samples, len(batch)))
                if not data or (self.drop_last and len(data) < len(batch)):
                    return
            else:
                data = next(samples, _END)
                if data is _END:
                    return
            announced = self._IterableDataset_len_called
            if announced is not None and yielded > announced:
                warnings.warn(
                    f"Length of IterableDataset {self.dataset} was reported to be {announced}(when accessing "
                    f"len(dataloader)), but {yielded} samples have been fetched. ",
                    stacklevel=2,
                )
            yield self.collate_fn(data)
            if self._auto_collation and len(data) < len(batch):
                return

    def _fetch(self, index: Any) -> Any:
        dataset: Any = self.dataset
        if not self._auto_collation:
            return dataset[index]
        if hasattr(dataset, "__getitems__"):
            return dataset.__getitems__(index)
        batch: Sequence[Any] = [dataset[i] for i in index]
        return batch

    def __len__(self) -> int:
        """The number of batches: from the sampler, or for an IterableDataset from its `len()`
        (remembered for the too-many-samples warning)."""
        if not self._iterable:
            return len(self._index_sampler)  # type: ignore[arg-type]
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return length
        return length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
