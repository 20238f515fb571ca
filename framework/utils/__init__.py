"""`framework.utils`: data loading (`framework.utils.data`), activation checkpointing
(`framework.utils.checkpoint`), DLPack interchange (`framework.utils.dlpack`)."""

from framework.utils import checkpoint as checkpoint
from framework.utils import data as data
from framework.utils import dlpack as dlpack

__all__ = ["checkpoint", "data", "dlpack"]
