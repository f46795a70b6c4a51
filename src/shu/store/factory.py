"""Open the store named by settings: PostgreSQL when `store.url` is a postgresql:// URL, else
the SQLite file `<home>/shu.db`."""

from __future__ import annotations

from shu.config.settings import Settings
from shu.errors import ConfigError
from shu.store.base import Store
from shu.store.sqlite import SQLiteStore


def open_store(settings: Settings) -> Store:
    url = settings.store.url
    if url:
        if not url.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                f"store.url {url!r}: only postgresql:// URLs are supported (else leave it unset)"
            )
        from shu.store.postgres import PostgresStore

        return PostgresStore(url, settings.store)
    settings.home.mkdir(parents=True, exist_ok=True)
    return SQLiteStore(settings.db_path)
