"""`framework.utils`: data loading (`framework.utils.data`)."""

from framework.utils import data as data

__all__ = ["data"]
