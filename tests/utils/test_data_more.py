"""`framework.utils.data` additions: IterableDataset through DataLoader (its batching, length,
warning and refused options), ChainDataset, StackDataset, WeightedRandomSampler (PyTorch's indices
for the same seed: recorded below, and live when PyTorch is installed), SubsetRandomSampler with a
generator, and the DataLoader options a single-process loader accepts or refuses as PyTorch does."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from oracle_fixtures import needs_torch, torch

import framework
from framework.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    IterableDataset,
    SequentialSampler,
    StackDataset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)


def _stream_class(lib: Any, length: int | None = None) -> Any:
    """An IterableDataset of lib yielding 0..6 (with a `__len__` of `length` when given)."""

    class Stream(lib.utils.data.IterableDataset):  # type: ignore[misc, name-defined]
        def __init__(self, stop: int = 7) -> None:
            self.stop = stop

        def __iter__(self) -> Iterator[int]:
            return iter(range(self.stop))

    if length is not None:
        Stream.__len__ = lambda self: length
    return Stream


def _batches(lib: Any, **kwargs: Any) -> list[Any]:
    loader = lib.utils.data.DataLoader(_stream_class(lib)(), **kwargs)
    return [b.tolist() if hasattr(b, "tolist") else b for b in loader]


ITERABLE_LOADS = [
    ({}, [[0], [1], [2], [3], [4], [5], [6]]),
    ({"batch_size": 3}, [[0, 1, 2], [3, 4, 5], [6]]),
    ({"batch_size": 3, "drop_last": True}, [[0, 1, 2], [3, 4, 5]]),
    ({"batch_size": 7}, [[0, 1, 2, 3, 4, 5, 6]]),
    ({"batch_size": None}, [0, 1, 2, 3, 4, 5, 6]),
    ({"batch_size": 2, "shuffle": False, "collate_fn": lambda b: sum(b)}, [1, 5, 9, 6]),
]


@pytest.mark.parametrize(("kwargs", "expected"), ITERABLE_LOADS)
def test_iterable_dataset_batches(kwargs: dict[str, Any], expected: list[Any]) -> None:
    assert _batches(framework, **kwargs) == expected
    if torch is not None:
        assert _batches(torch, **kwargs) == expected


def test_iterable_dataset_length_and_warning() -> None:
    loader = DataLoader(_stream_class(framework, length=5)(), batch_size=2)
    assert len(loader) == 3
    assert len(DataLoader(_stream_class(framework, length=5)(), batch_size=2, drop_last=True)) == 2
    assert len(DataLoader(_stream_class(framework, length=5)(), batch_size=None)) == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4, 5], [6]]
    single = DataLoader(_stream_class(framework, length=5)(), batch_size=1)
    assert len(single) == 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(list(single)) == 7
    assert [str(w.message).partition("), ")[2] for w in caught] == [
        "but 6 samples have been fetched. ",
        "but 7 samples have been fetched. ",
    ]
    assert str(caught[0].message).endswith(
        "was reported to be 5(when accessing len(dataloader)), but 6 samples have been fetched. "
    )
    with pytest.raises(TypeError, match="has no len"):
        len(DataLoader(_stream_class(framework)()))


REFUSED = [
    (
        {"shuffle": True},
        "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True",
    ),
    (
        {"sampler": [0, 1]},
        "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=[0, 1]",
    ),
    (
        {"batch_sampler": [[0, 1]]},
        "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
        "batch_sampler=[[0, 1]]",
    ),
]


@pytest.mark.parametrize(("kwargs", "message"), REFUSED)
def test_iterable_dataset_refuses_samplers_and_shuffle(kwargs: dict[str, Any], message: str) -> None:
    for lib in (framework, torch) if torch is not None else (framework,):
        with pytest.raises(ValueError) as info:
            lib.utils.data.DataLoader(_stream_class(lib)(), **kwargs)
        assert str(info.value) == message


def test_chain_dataset() -> None:
    stream = _stream_class(framework, length=3)
    chained = stream(3) + stream(2)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 2, 0, 1]
    assert [b.tolist() for b in DataLoader(ChainDataset([stream(3), stream(3)]), batch_size=4)] == [
        [0, 1, 2, 0],
        [1, 2],
    ]
    assert len(ChainDataset([stream(3), stream(3)])) == 6
    map_style = TensorDataset(framework.arange(3))
    with pytest.raises(AssertionError, match=r"^ChainDataset only supports IterableDataset$"):
        list(ChainDataset([stream(1), map_style]))
    with pytest.raises(AssertionError, match=r"^ConcatDataset does not support IterableDataset$"):
        ConcatDataset([map_style, stream(2)])


def test_stack_dataset() -> None:
    images, labels = framework.arange(12.0).reshape(6, 2), framework.arange(6)
    by_position = StackDataset(TensorDataset(images), labels)  # type: ignore[arg-type]
    first = by_position[1]
    assert first[0][0].tolist() == [2.0, 3.0] and first[1].item() == 1
    named = StackDataset(image=TensorDataset(images), label=TensorDataset(labels))
    assert len(named) == 6 and set(named[0]) == {"image", "label"}
    batch = next(iter(DataLoader(named, batch_size=4)))
    assert batch["image"][0].shape == (4, 2) and batch["label"][0].tolist() == [0, 1, 2, 3]
    assert named.__getitems__([5, 0])[0]["label"][0].item() == 5
    with pytest.raises(ValueError, match=r"^Size mismatch between datasets$"):
        StackDataset(TensorDataset(images), TensorDataset(framework.arange(5)))
    with pytest.raises(ValueError, match=r"^At least one dataset should be passed$"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(TensorDataset(images), label=TensorDataset(labels))


WEIGHTS = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
# PyTorch 2.13's indices for these seeds (torch.Generator().manual_seed(seed)).
WEIGHTED = [
    ((WEIGHTS, 12), 0, [5, 4, 4, 5, 4, 4, 2, 3, 4, 3, 4, 2]),
    ((WEIGHTS, 4, False), 1, [5, 4, 3, 1]),
]


@pytest.mark.parametrize(("args", "seed", "expected"), WEIGHTED)
def test_weighted_random_sampler_draws_pytorchs_indices(
    args: tuple[Any, ...], seed: int, expected: list[int]
) -> None:
    sampler = WeightedRandomSampler(*args, generator=framework.Generator().manual_seed(seed))
    assert list(sampler) == expected and len(sampler) == args[1]
    if torch is not None:
        theirs = torch.utils.data.WeightedRandomSampler(*args, generator=torch.Generator().manual_seed(seed))
        assert list(theirs) == expected


def test_weighted_random_sampler_default_generator_and_loader() -> None:
    framework.manual_seed(5)
    assert list(WeightedRandomSampler([1, 2, 3], 5)) == [2, 1, 1, 1, 1]
    framework.manual_seed(3)
    loader = DataLoader(
        TensorDataset(framework.arange(10)), sampler=WeightedRandomSampler([1.0] * 10, 7), batch_size=3
    )
    assert [b[0].tolist() for b in loader] == [[2, 7, 1], [7, 6, 1], [4]]
    assert WeightedRandomSampler(framework.tensor([1, 2]), 2).weights.dtype is framework.float64


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([[1.0, 2.0]], 2), "weights should be a 1d sequence but given weights have shape (1, 2)"),
        (([1.0, 2.0], 0), "num_samples should be a positive integer value, but got num_samples=0"),
        (([1.0, 2.0], True), "num_samples should be a positive integer value, but got num_samples=True"),
        (([1.0, 2.0], 2, 1), "replacement should be a boolean value, but got replacement=1"),
    ],
)
def test_weighted_random_sampler_checks(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError) as info:
        WeightedRandomSampler(*args)
    assert str(info.value) == message


def test_subset_random_sampler_with_a_generator() -> None:
    sampler = SubsetRandomSampler([10, 20, 30, 40, 50], generator=framework.Generator().manual_seed(2))
    assert list(sampler) == [40, 50, 20, 10, 30] and len(sampler) == 5


def test_loader_options() -> None:
    dataset = TensorDataset(framework.arange(7))
    sampler = BatchSampler(SequentialSampler(dataset), batch_size=3, drop_last=False)
    loader = DataLoader(dataset, batch_sampler=sampler, worker_init_fn=lambda worker: None)
    assert [b[0].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    with pytest.raises(
        ValueError, match=r"^multiprocessing_context can only be used with multi-process loading \("
    ):
        DataLoader(dataset, multiprocessing_context="spawn")
    with pytest.raises(NotImplementedError, match="num_workers=2 is not supported"):
        DataLoader(dataset, num_workers=2)


@needs_torch
def test_shuffled_loader_with_generator_matches_torch() -> None:
    ours = DataLoader(
        TensorDataset(framework.arange(9)),
        batch_size=4,
        shuffle=True,
        generator=framework.Generator().manual_seed(7),
    )
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.arange(9)),
        batch_size=4,
        shuffle=True,
        generator=torch.Generator().manual_seed(7),
    )
    for _ in range(2):
        assert [b[0].tolist() for b in ours] == [b[0].tolist() for b in theirs]


def test_iterable_dataset_is_a_dataset() -> None:
    assert issubclass(IterableDataset, framework.utils.data.Dataset)
