"""`framework.utils.data`: datasets, samplers, DataLoader and random_split give PyTorch's batches
for the same seed (recorded, and live when PyTorch is installed); collation as PyTorch's."""

from __future__ import annotations

import re
from collections import namedtuple
from typing import Any

import numpy as np
import pytest
from oracle_fixtures import FIXTURES, needs_torch, recorder, torch

import framework
from framework.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)


@pytest.mark.parametrize("index", range(len(recorder.LOADER_CASES)))
def test_batches_match_the_recording(index: int) -> None:
    assert recorder.loader_epochs(framework, recorder.LOADER_CASES[index]) == FIXTURES["loaders"][index]


@needs_torch
@pytest.mark.parametrize("index", range(len(recorder.LOADER_CASES)))
def test_recorded_batches_are_torchs(index: int) -> None:
    assert recorder.loader_epochs(torch, recorder.LOADER_CASES[index]) == FIXTURES["loaders"][index]


@pytest.mark.parametrize("index", range(len(recorder.SPLIT_CASES)))
def test_random_split_matches_the_recording(index: int) -> None:
    assert recorder.split_indices(framework, recorder.SPLIT_CASES[index]) == FIXTURES["splits"][index]


@needs_torch
@pytest.mark.parametrize("index", range(len(recorder.SPLIT_CASES)))
def test_recorded_splits_are_torchs(index: int) -> None:
    assert recorder.split_indices(torch, recorder.SPLIT_CASES[index]) == FIXTURES["splits"][index]


@needs_torch
def test_shuffled_loader_and_global_generator_stay_in_step_with_torch() -> None:
    """After loading, the default generators of both libraries are in the same state."""
    framework.manual_seed(5)
    torch.manual_seed(5)
    for lib in (framework, torch):
        for _ in lib.utils.data.DataLoader(
            lib.utils.data.TensorDataset(lib.arange(6)), batch_size=4, shuffle=True
        ):
            pass
    assert framework.rand(3).tolist() == torch.rand(3).tolist()


def test_tensor_dataset() -> None:
    x, y = framework.arange(6).reshape(3, 2), framework.tensor([0.5, 1.5, 2.5])
    ds = TensorDataset(x, y)
    assert len(ds) == 3
    first, label = ds[1]
    assert first.tolist() == [2, 3] and label.item() == 1.5
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, framework.zeros(2))


def test_loader_batches_and_lengths() -> None:
    ds = TensorDataset(framework.arange(10).float(), framework.arange(10))
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    features, labels = batches[-1]
    assert features.tolist() == [8.0, 9.0] and labels.dtype is framework.int64
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    single = list(DataLoader(ds, batch_size=None))
    assert len(single) == 10 and single[3][0].shape == ()


def test_custom_samplers_and_collate() -> None:
    ds = TensorDataset(framework.arange(6))
    loader = DataLoader(
        ds, sampler=[5, 4, 3], batch_size=2, collate_fn=lambda items: [int(t[0]) for t in items]
    )
    assert list(loader) == [[5, 4], [3]]
    batches = DataLoader(ds, batch_sampler=[[0, 2], [4]])
    assert [b[0].tolist() for b in batches] == [[0, 2], [4]]
    assert list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=True)) == [[0, 1], [2, 3]]


def test_loader_argument_errors() -> None:
    ds = TensorDataset(framework.arange(4))
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with batch_size"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(
        ValueError,
        match="batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
    ):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(NotImplementedError, match="num_workers=2 is not supported"):
        DataLoader(ds, num_workers=2)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(
        ValueError, match="batch_size should be a positive integer value, but got batch_size=0"
    ):
        BatchSampler(range(3), 0, False)
    with pytest.raises(
        ValueError, match="num_samples should be a positive integer value, but got num_samples=0"
    ):
        RandomSampler(ds, num_samples=0)


def test_random_split_errors_and_subsets() -> None:
    ds = TensorDataset(framework.arange(5))
    with pytest.raises(
        ValueError, match="Sum of input lengths does not equal the length of the input dataset!"
    ):
        random_split(ds, [2, 2])
    a, b = random_split(ds, [2, 3], generator=framework.Generator().manual_seed(0))
    assert isinstance(a, Subset) and len(a) + len(b) == 5
    assert sorted(int(a[i][0]) for i in range(2)) == sorted(a.indices)
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(ds, [1.0, 0.0])


def test_dataset_base_and_concatenation() -> None:
    with pytest.raises(
        NotImplementedError, match=re.escape("Subclasses of Dataset should implement __getitem__.")
    ):
        Dataset()[0]

    class Squares(Dataset[int]):
        def __init__(self, n: int) -> None:
            self.n = n

        def __getitem__(self, i: int) -> int:
            return i * i

        def __len__(self) -> int:
            return self.n

    both = Squares(3) + Squares(2)
    assert len(both) == 5 and [both[i] for i in range(5)] == [0, 1, 4, 0, 1] and both[-1] == 1
    assert DataLoader(Squares(4), batch_size=3).__iter__().__next__().tolist() == [0, 1, 4]


Point = namedtuple("Point", ["x", "y"])


def test_default_collate() -> None:
    batch = default_collate(
        [{"a": framework.ones(2), "b": 1.5, "c": "s"}, {"a": framework.zeros(2), "b": 2.5, "c": "t"}]
    )
    assert batch["a"].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert batch["b"].dtype is framework.float64 and batch["c"] == ["s", "t"]
    ints = default_collate([1, 2, 3])
    assert ints.dtype is framework.int64 and ints.tolist() == [1, 2, 3]
    assert default_collate([True, False]).dtype is framework.bool
    pairs = default_collate([(1, np.array([1.0, 2.0])), (2, np.array([3.0, 4.0]))])
    assert isinstance(pairs, list) and pairs[1].dtype is framework.float64 and pairs[1].shape == (2, 2)
    points = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(points, Point) and points.x.tolist() == [1, 3]
    assert default_collate([np.float32(1.0), np.float32(2.0)]).dtype is framework.float32
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(
        TypeError,
        match=(
            "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
            "<class 'object'>"
        ),
    ):
        default_collate([object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"])])
    converted = default_convert({"x": np.arange(3), "y": "keep"})
    assert converted["x"].tolist() == [0, 1, 2] and converted["y"] == "keep"


@needs_torch
def test_default_collate_is_torchs() -> None:
    samples = [
        {"a": (1, 2.0), "b": [np.int32(3), np.ones(2, dtype=np.float32)]},
        {"a": (4, 5.0), "b": [np.int32(6), np.zeros(2, dtype=np.float32)]},
    ]
    ours = default_collate(samples)
    theirs = torch.utils.data.default_collate(samples)

    def flat(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: flat(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [flat(v) for v in value]
        return (str(value.dtype).split(".")[-1], value.tolist())

    assert flat(ours) == flat(theirs)
