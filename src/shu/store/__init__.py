"""Persistence and the search primitives of every surface, behind one `Store` protocol."""

from shu.store.base import ScoredChunk, Store, StoreStats
from shu.store.factory import open_store

__all__ = ["ScoredChunk", "Store", "StoreStats", "open_store"]
