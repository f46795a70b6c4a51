"""Open the store named by settings. Only SQLite exists today; PostgreSQL follows."""

from __future__ import annotations

from shu.config.settings import Settings
from shu.store.base import Store
from shu.store.sqlite import SQLiteStore


def open_store(settings: Settings) -> Store:
    settings.home.mkdir(parents=True, exist_ok=True)
    return SQLiteStore(settings.db_path)
