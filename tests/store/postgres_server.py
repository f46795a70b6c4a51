"""The PostgreSQL server the tests use: `SHU_TEST_POSTGRES_URL` (scripts/with-postgres.sh sets it
and starts a throwaway server on 127.0.0.1). Each test gets a database of its own."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import pytest


@cache
def server_url() -> tuple[str | None, str]:
    """(base URL, "") when a server answers; (None, why not) otherwise."""
    url = os.environ.get("SHU_TEST_POSTGRES_URL")
    if not url:
        return None, "SHU_TEST_POSTGRES_URL is not set (run the tests through scripts/with-postgres.sh)"
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        return None, f"no PostgreSQL at {url}: {exc}"
    return url, ""


@contextmanager
def fresh_database() -> Iterator[str]:
    """A new empty database with pgvector, dropped afterwards; skips the test without a server."""
    import psycopg

    base, why = server_url()
    if base is None:
        pytest.skip(why)
    name = f"shu_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = base.rsplit("/", 1)[0] + "/" + name
    try:
        yield url
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
