"""What a SQLite store keeps for the server beside the knowledge: API keys (hashed), users'
signals and background jobs. Single statements in autocommit under the store's lock; none of it
moves the generation, so cached answers stay valid."""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shu.errors import StoreError
from shu.store.rows import now
from shu.types import ApiKey, Conversation, Job, Signal, UserProfile


class SQLiteServiceTables(ABC):
    path: Path
    _db: sqlite3.Connection
    _lock: threading.RLock

    @abstractmethod
    def _read(self) -> sqlite3.Connection:  # provided by SQLiteStore
        ...

    @contextmanager
    def _statement(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: {exc}") from exc

    # -- keys ------------------------------------------------------------------------------

    def add_key(self, key: ApiKey, secret_hash: str) -> None:
        with self._statement() as db:
            db.execute(
                "INSERT INTO api_keys(id, user, secret_hash, key_json, revoked) VALUES (?, ?, ?, ?, ?)",
                (key.id, key.user, secret_hash, key.model_dump_json(), int(key.revoked)),
            )

    def get_key(self, key_id: str) -> tuple[ApiKey, str] | None:
        row = (
            self._read()
            .execute("SELECT key_json, secret_hash, revoked FROM api_keys WHERE id = ?", (key_id,))
            .fetchone()
        )
        if row is None:
            return None
        return ApiKey.model_validate_json(row[0]).model_copy(update={"revoked": bool(row[2])}), row[1]

    def list_keys(self) -> list[ApiKey]:
        rows = self._read().execute("SELECT key_json, revoked FROM api_keys ORDER BY rowid").fetchall()
        return [ApiKey.model_validate_json(j).model_copy(update={"revoked": bool(r)}) for j, r in rows]

    def revoke_key(self, key_id: str) -> bool:
        with self._statement() as db:
            return (
                db.execute("UPDATE api_keys SET revoked = 1 WHERE id = ? AND revoked = 0", (key_id,)).rowcount
                > 0
            )

    def delete_keys(self, user: str) -> int:
        with self._statement() as db:
            return db.execute("DELETE FROM api_keys WHERE user = ?", (user,)).rowcount

    # -- signals ---------------------------------------------------------------------------

    def add_signal(self, signal: Signal) -> Signal:
        stored = signal.model_copy(update={"id": None, "created": signal.created or now()})
        with self._statement() as db:
            cursor = db.execute(
                "INSERT INTO signals(user, persona, kind, doc_id, created, signal_json) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    stored.user,
                    stored.persona,
                    stored.kind,
                    stored.doc_id,
                    stored.created,
                    stored.model_dump_json(),
                ),
            )
        stored.id = cursor.lastrowid
        return stored

    def list_signals(self, user: str, persona: str | None = None) -> list[Signal]:
        query = "SELECT id, signal_json FROM signals WHERE user = ?"
        params: list[object] = [user]
        if persona is not None:
            query += " AND persona = ?"
            params.append(persona)
        rows = self._read().execute(query + " ORDER BY created DESC, id DESC", params).fetchall()
        return [Signal.model_validate_json(j).model_copy(update={"id": i}) for i, j in rows]

    def list_signal_users(self) -> list[str]:
        return [r[0] for r in self._read().execute("SELECT DISTINCT user FROM signals ORDER BY user")]

    def forget_signals(self, user: str) -> int:
        with self._statement() as db:
            return db.execute("DELETE FROM signals WHERE user = ?", (user,)).rowcount

    # -- users' profiles ---------------------------------------------------------------------

    def save_user(self, profile: UserProfile) -> UserProfile:
        stored = profile.model_copy(update={"updated": now()})
        with self._statement() as db:
            db.execute(
                "INSERT INTO user_profiles(id, profile_json, updated) VALUES (?, ?, ?) ON CONFLICT(id) "
                "DO UPDATE SET profile_json = excluded.profile_json, updated = excluded.updated",
                (stored.id, stored.model_dump_json(), stored.updated),
            )
        return stored

    def get_user(self, user_id: str) -> UserProfile | None:
        row = (
            self._read().execute("SELECT profile_json FROM user_profiles WHERE id = ?", (user_id,)).fetchone()
        )
        return UserProfile.model_validate_json(row[0]) if row else None

    def list_users(self) -> list[str]:
        return [r[0] for r in self._read().execute("SELECT id FROM user_profiles ORDER BY id")]

    def delete_user(self, user_id: str) -> bool:
        with self._statement() as db:
            return db.execute("DELETE FROM user_profiles WHERE id = ?", (user_id,)).rowcount > 0

    # -- jobs ------------------------------------------------------------------------------

    def save_job(self, job: Job) -> None:
        with self._statement() as db:
            db.execute(
                "INSERT INTO jobs(id, status, created, job_json) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO "
                "UPDATE SET status = excluded.status, job_json = excluded.job_json",
                (job.id, job.status, job.created, job.model_dump_json(exclude={"cancel_requested"})),
            )

    def request_cancel(self, job_id: str) -> bool:
        with self._statement() as db:
            return (
                db.execute(
                    "UPDATE jobs SET cancel = 1 WHERE id = ? AND status IN ('queued', 'running')", (job_id,)
                ).rowcount
                > 0
            )

    def get_job(self, job_id: str) -> Job | None:
        row = self._read().execute("SELECT job_json, cancel FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return (
            Job.model_validate_json(row[0]).model_copy(update={"cancel_requested": bool(row[1])})
            if row
            else None
        )

    def list_jobs(self, statuses: list[str] | None = None, limit: int = 50) -> list[Job]:
        query, params = "SELECT job_json, cancel FROM jobs", list[object]()
        if statuses:
            query += f" WHERE status IN ({','.join('?' * len(statuses))})"
            params.extend(statuses)
        rows = self._read().execute(query + " ORDER BY created DESC, rowid DESC LIMIT ?", [*params, limit])
        return [Job.model_validate_json(j).model_copy(update={"cancel_requested": bool(c)}) for j, c in rows]

    # -- conversations ---------------------------------------------------------------------

    def save_conversation(self, conversation: Conversation) -> None:
        with self._statement() as db:
            db.execute(
                "INSERT INTO conversations(id, user, persona, updated, conversation_json) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated = excluded.updated, "
                "conversation_json = excluded.conversation_json",
                (
                    conversation.id,
                    conversation.user,
                    conversation.persona,
                    conversation.updated,
                    conversation.model_dump_json(),
                ),
            )

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        row = (
            self._read()
            .execute("SELECT conversation_json FROM conversations WHERE id = ?", (conversation_id,))
            .fetchone()
        )
        return Conversation.model_validate_json(row[0]) if row else None

    def list_conversations(self, user: str, persona: str | None = None) -> list[Conversation]:
        query, params = "SELECT conversation_json FROM conversations WHERE user = ?", [user]
        if persona is not None:
            query += " AND persona = ?"
            params.append(persona)
        rows = self._read().execute(query + " ORDER BY updated DESC, id DESC", params).fetchall()
        return [Conversation.model_validate_json(j) for (j,) in rows]

    def list_conversation_users(self) -> list[str]:
        return [r[0] for r in self._read().execute("SELECT DISTINCT user FROM conversations ORDER BY user")]

    def delete_conversation(self, conversation_id: str) -> bool:
        with self._statement() as db:
            return db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,)).rowcount > 0
