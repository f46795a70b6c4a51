"""Answers kept until something they depend on changes: keyed by persona, the question
(normalised: case and spacing), the store's generation (any ingest moves it), the answer and
retrieval settings, and the model. One SQLite file in the home, safe across threads and
processes; hits and misses are counted for `shu stats`."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from shu.types import Answer


def answer_key(persona: str, question: str, generation: int, settings: str, model: str) -> str:
    normalised = " ".join(question.casefold().split())
    blob = json.dumps([persona, normalised, generation, settings, model], ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class AnswerCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=10.0, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, generation INTEGER NOT NULL, "
            "answer TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')))"
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> Answer | None:
        with self._lock:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
            self._count("hits" if row else "misses")
        return Answer.model_validate_json(row[0]).model_copy(update={"cached": True}) if row else None

    def put(self, key: str, generation: int, answer: Answer) -> None:
        """Keep `answer`; answers of older generations are dropped (they can never be hit again)."""
        with self._lock:
            self._db.execute("DELETE FROM answers WHERE generation < ?", (generation,))
            self._db.execute(
                "INSERT OR REPLACE INTO answers(key, generation, answer) VALUES (?, ?, ?)",
                (key, generation, answer.model_dump_json()),
            )

    def stats(self) -> dict[str, int]:
        with self._lock:
            entries = self._db.execute("SELECT count(*) FROM answers").fetchone()[0]
            counts = dict(self._db.execute("SELECT name, value FROM counters").fetchall())
        return {
            "entries": int(entries),
            "hits": int(counts.get("hits", 0)),
            "misses": int(counts.get("misses", 0)),
        }

    def close(self) -> None:
        self._db.close()

    def _count(self, name: str) -> None:
        self._db.execute(
            "INSERT INTO counters(name, value) VALUES (?, 1) "
            "ON CONFLICT(name) DO UPDATE SET value = value + 1",
            (name,),
        )
