"""`framework.utils.data`: datasets, samplers, `DataLoader`, `random_split`, collation."""

from framework.utils.data._collate import default_collate, default_convert
from framework.utils.data.dataloader import DataLoader
from framework.utils.data.dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from framework.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "random_split",
]
