"""Response cache keyed by (provider and model, messages, settings, schema): an unchanged
request is never paid for twice. One SQLite file; safe across threads and processes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from shu.models.llm.base import ChatResult


def cache_key(model: str, messages: list[dict[str, str]], settings: dict[str, Any]) -> str:
    blob = json.dumps([model, messages, settings], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=10.0, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, result TEXT NOT NULL, "
            "created_at TEXT NOT NULL DEFAULT (datetime('now')))"
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> ChatResult | None:
        with self._lock:
            row = self._db.execute("SELECT result FROM responses WHERE key = ?", (key,)).fetchone()
        return ChatResult.model_validate_json(row[0]) if row else None

    def put(self, key: str, result: ChatResult) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses(key, result) VALUES (?, ?)", (key, result.model_dump_json())
            )

    def close(self) -> None:
        self._db.close()
