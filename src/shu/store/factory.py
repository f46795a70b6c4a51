"""Open a store: the one settings name (PostgreSQL when `store.url` is a postgresql:// URL, else
the SQLite file `<home>/shu.db`), or one named by a URL (`shu migrate`, `shu eval --store-url`)."""

from __future__ import annotations

from pathlib import Path

from shu.config.settings import Settings, StoreSettings
from shu.errors import ConfigError
from shu.store.base import Store
from shu.store.sqlite import KeywordMode, SQLiteStore

_POSTGRES = ("postgresql://", "postgres://")


def open_store(settings: Settings) -> Store:
    url = settings.store.url
    if url:
        if not url.startswith(_POSTGRES):
            raise ConfigError(
                f"store.url {url!r}: only postgresql:// URLs are supported (else leave it unset)"
            )
        return open_store_url(url, settings.store)
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise ConfigError(f"{settings.home}: the home must be a folder, and this is a file") from exc
    except OSError as exc:
        raise ConfigError(f"{settings.home}: cannot make the home folder ({exc.strerror or exc})") from exc
    return open_sqlite(settings.db_path, settings.store)


def open_store_url(url: str, settings: StoreSettings | None = None) -> Store:
    """`sqlite:///path/to/shu.db` (`sqlite:////abs/path` for an absolute one) or
    `postgresql://user@host:port/db`."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True, exist_ok=True)
        return open_sqlite(path, settings or StoreSettings())
    if url.startswith(_POSTGRES):
        from shu.store.postgres import PostgresStore

        return PostgresStore(url, settings)
    raise ConfigError(f"{url!r}: expected sqlite:///path/to/shu.db or postgresql://user@host:port/database")


def open_sqlite(path: Path, settings: StoreSettings) -> SQLiteStore:
    """The SQLite file at `path` with the store settings it reads (keyword search, exact limit)."""
    keyword: KeywordMode = "memory" if settings.keyword == "memory" else "fts5"
    return SQLiteStore(path, exact_vector_limit=settings.exact_limit, keyword=keyword)
