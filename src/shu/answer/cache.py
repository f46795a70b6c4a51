"""Answers kept until something they depend on changes: keyed by persona, the question
(normalised: case and spacing), the store's generation (which store, and any write to it), the
day (answers about "today" change with it), the answer, retrieval and model settings, Shu's
version and prompt versions. One SQLite file in the home, safe across threads and processes;
hits and misses are counted for `shu stats`. The cache is an optimisation: when its file cannot
be read or written, answers are made afresh and the problem is logged, never raised."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from datetime import date
from pathlib import Path

from shu.types import Answer

log = logging.getLogger(__name__)


def answer_key(persona: str, question: str, generation: str, settings: str) -> str:
    normalised = " ".join(question.casefold().split())
    blob = json.dumps(
        [persona, normalised, generation, date.today().isoformat(), settings], ensure_ascii=False
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class AnswerCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=10.0, check_same_thread=False, isolation_level=None)
            _wal(self._db)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, generation TEXT NOT NULL, "
                "answer TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')))"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"
            )
        except (OSError, sqlite3.Error) as exc:
            log.warning("answer cache %s unavailable, answering without it: %s", path, exc)
            self._db = None

    def get(self, key: str) -> Answer | None:
        try:
            with self._lock:
                if self._db is None:
                    return None
                row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
                self._count("hits" if row else "misses")
            return Answer.model_validate_json(row[0]).model_copy(update={"cached": True}) if row else None
        except (sqlite3.Error, ValueError) as exc:
            log.warning("answer cache %s: %s", self.path, exc)
            return None

    def put(self, key: str, generation: str, answer: Answer) -> None:
        """Keep `answer`; answers of other generations are dropped (they can never be hit again)."""
        try:
            with self._lock:
                if self._db is None:
                    return
                self._db.execute("DELETE FROM answers WHERE generation != ?", (generation,))
                self._db.execute(
                    "INSERT OR REPLACE INTO answers(key, generation, answer) VALUES (?, ?, ?)",
                    (key, generation, answer.model_dump_json()),
                )
        except sqlite3.Error as exc:
            log.warning("answer cache %s: %s", self.path, exc)

    def stats(self) -> dict[str, int]:
        try:
            with self._lock:
                if self._db is None:
                    return {"entries": 0, "hits": 0, "misses": 0}
                entries = self._db.execute("SELECT count(*) FROM answers").fetchone()[0]
                counts = dict(self._db.execute("SELECT name, value FROM counters").fetchall())
        except sqlite3.Error as exc:
            log.warning("answer cache %s: %s", self.path, exc)
            return {"entries": 0, "hits": 0, "misses": 0}
        hits, misses = int(counts.get("hits", 0)), int(counts.get("misses", 0))
        return {"entries": int(entries), "hits": hits, "misses": misses}

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def _count(self, name: str) -> None:
        assert self._db is not None
        self._db.execute(
            "INSERT INTO counters(name, value) VALUES (?, 1) "
            "ON CONFLICT(name) DO UPDATE SET value = value + 1",
            (name,),
        )


def _wal(db: sqlite3.Connection, attempts: int = 50) -> None:
    """WAL mode; another process switching at the same moment makes it "locked": wait, retry."""
    for attempt in range(attempts):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.05)
