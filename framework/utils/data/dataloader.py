"""`DataLoader`: batches of a map-style dataset, in the calling process."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import framework
from framework import Generator
from framework.utils.data._collate import default_collate, default_convert
from framework.utils.data.dataset import Dataset
from framework.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)


class DataLoader(Generic[T_co]):
    """Iterate over `dataset` in batches: indices from `sampler` (sequential, or random with
    `shuffle`, drawing from `generator` as PyTorch's RandomSampler), grouped by `batch_sampler`
    (`batch_size`, `drop_last`), samples merged by `collate_fn`. `batch_size=None` yields single
    samples. Only `num_workers=0` (loading in the calling process) is supported."""

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
        if sampler is None:
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
        return self._batches(indices)

    def _batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        for index in indices:
            yield self.collate_fn(self._fetch(index))

    def _fetch(self, index: Any) -> Any:
        dataset: Any = self.dataset
        if not self._auto_collation:
            return dataset[index]
        if hasattr(dataset, "__getitems__"):
            return dataset.__getitems__(index)
        batch: Sequence[Any] = [dataset[i] for i in index]
        return batch

    def __len__(self) -> int:
        return len(self._index_sampler)  # type: ignore[arg-type]
