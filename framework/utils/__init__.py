"""`framework.utils`: data loading (`framework.utils.data`), activation checkpointing
(`framework.utils.checkpoint`)."""

from framework.utils import checkpoint as checkpoint
from framework.utils import data as data

__all__ = ["checkpoint", "data"]
