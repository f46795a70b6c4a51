"""What a SQL store keeps for the server beside the knowledge — API keys (hashed), users' signals
and profiles, background jobs, conversations — written once for SQLite and PostgreSQL over the
dialect of `shu.store.sql` (`?` placeholders, the quoted `"user"` column, a byte order for text).

Single statements outside the knowledge's write transaction (`_service`): none of it moves the
generation, so cached answers stay valid. JSON goes in as text (SQLite keeps text, PostgreSQL
casts it to jsonb) and comes back as text or as the parsed value (`loaded`)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from pydantic import BaseModel

from shu.store.rows import now
from shu.store.sql import Row, SQLTables
from shu.types import ApiKey, Conversation, Job, Signal, UserProfile

M = TypeVar("M", bound=BaseModel)


def loaded(model: type[M], value: object) -> M:
    """A record from its JSON column: text (SQLite) or already parsed (PostgreSQL's jsonb)."""
    if isinstance(value, str | bytes):
        return model.model_validate_json(value)
    return model.model_validate(value)


class SQLStatements(SQLTables):
    """Single statements outside the knowledge's write transaction, their text parameters held
    as the database can hold them."""

    @abstractmethod
    def _service(self) -> AbstractContextManager[Any]:
        """A connection for one statement that does not move the generation (errors as
        `StoreError`)."""

    def _json(self, model: BaseModel, **dump: Any) -> str:
        """A record as JSON text the database can hold."""
        return model.model_dump_json(**dump)

    def _change(self, sql: str, params: Sequence[object] = ()) -> int:
        """One statement; how many rows it changed."""
        with self._service() as conn:
            return int(self._exec(conn, sql, self._held(params)).rowcount)

    def _inserted(self, sql: str, params: Sequence[object]) -> Row:
        """One statement with a `RETURNING` clause; the row it returned."""
        with self._service() as conn:
            return tuple(self._exec(conn, sql, self._held(params)).fetchone())

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self._all(sql, self._held(params))

    def _held(self, params: Sequence[object]) -> list[object]:
        """Every text parameter as the database can hold it."""
        return [self._clean(p) if isinstance(p, str) else p for p in params]

    def _first(self, sql: str, params: Sequence[object]) -> Row | None:
        return self._one(sql, self._held(params))

    def _texts(self, sql: str) -> list[str]:
        return [str(row[0]) for row in self._all(sql)]


class SQLServiceTables(SQLStatements):
    """Keys, signals, users' profiles, jobs and conversations."""

    # -- keys ------------------------------------------------------------------------------

    def add_key(self, key: ApiKey, secret_hash: str) -> None:
        self._change(
            'INSERT INTO api_keys(id, "user", secret_hash, key_json, revoked) VALUES (?, ?, ?, ?, ?)',
            (key.id, key.user, secret_hash, self._json(key), key.revoked),
        )

    def get_key(self, key_id: str) -> tuple[ApiKey, str] | None:
        row = self._first("SELECT key_json, secret_hash, revoked FROM api_keys WHERE id = ?", (key_id,))
        if row is None:
            return None
        return loaded(ApiKey, row[0]).model_copy(update={"revoked": bool(row[2])}), str(row[1])

    def list_keys(self) -> list[ApiKey]:
        rows = self._rows("SELECT key_json, revoked FROM api_keys")
        keys = [loaded(ApiKey, j).model_copy(update={"revoked": bool(r)}) for j, r in rows]
        return sorted(keys, key=lambda k: (k.created, k.id))  # oldest first, whatever was inserted when

    def revoke_key(self, key_id: str) -> bool:
        return self._change("UPDATE api_keys SET revoked = TRUE WHERE id = ? AND NOT revoked", (key_id,)) > 0

    def delete_keys(self, user: str) -> int:
        return self._change('DELETE FROM api_keys WHERE "user" = ?', (user,))

    # -- signals ---------------------------------------------------------------------------

    def add_signal(self, signal: Signal) -> Signal:
        stored = signal.model_copy(update={"id": None, "created": signal.created or now()})
        row = self._inserted(
            'INSERT INTO signals("user", persona, kind, doc_id, created, signal_json) '
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (
                stored.user,
                stored.persona,
                stored.kind,
                stored.doc_id,
                stored.created,
                self._json(stored),
            ),
        )
        stored.id = int(row[0])
        return stored

    def list_signals(self, user: str, persona: str | None = None) -> list[Signal]:
        query, params = 'SELECT id, signal_json FROM signals WHERE "user" = ?', [user]
        if persona is not None:
            query += " AND persona = ?"
            params.append(persona)
        rows = self._rows(query + f" ORDER BY created {self.dialect.binary} DESC, id DESC", params)
        return [loaded(Signal, j).model_copy(update={"id": int(i)}) for i, j in rows]

    def list_signal_users(self) -> list[str]:
        return self._texts(f'SELECT DISTINCT "user" {self.dialect.binary} AS u FROM signals ORDER BY u')

    def forget_signals(self, user: str) -> int:
        return self._change('DELETE FROM signals WHERE "user" = ?', (user,))

    # -- users' profiles ---------------------------------------------------------------------

    def save_user(self, profile: UserProfile) -> UserProfile:
        stored = profile.model_copy(update={"updated": now()})
        self._change(
            "INSERT INTO user_profiles(id, profile_json, updated) VALUES (?, ?, ?) ON CONFLICT (id) "
            "DO UPDATE SET profile_json = excluded.profile_json, updated = excluded.updated",
            (stored.id, self._json(stored), stored.updated),
        )
        return stored

    def get_user(self, user_id: str) -> UserProfile | None:
        row = self._first("SELECT profile_json FROM user_profiles WHERE id = ?", (user_id,))
        return loaded(UserProfile, row[0]) if row else None

    def list_users(self) -> list[str]:
        return self._texts(f"SELECT id FROM user_profiles ORDER BY id {self.dialect.binary}")

    def delete_user(self, user_id: str) -> bool:
        return self._change("DELETE FROM user_profiles WHERE id = ?", (user_id,)) > 0

    # -- jobs ------------------------------------------------------------------------------

    def save_job(self, job: Job) -> None:
        self._change(
            "INSERT INTO jobs(id, status, created, job_json) VALUES (?, ?, ?, ?) ON CONFLICT (id) "
            "DO UPDATE SET status = excluded.status, job_json = excluded.job_json",
            (job.id, job.status, job.created, self._json(job, exclude={"cancel_requested"})),
        )

    def request_cancel(self, job_id: str) -> bool:
        cancelled = self._change(
            "UPDATE jobs SET cancel = TRUE WHERE id = ? AND status IN ('queued', 'running')", (job_id,)
        )
        return cancelled > 0

    def get_job(self, job_id: str) -> Job | None:
        row = self._first("SELECT job_json, cancel FROM jobs WHERE id = ?", (job_id,))
        return loaded(Job, row[0]).model_copy(update={"cancel_requested": bool(row[1])}) if row else None

    def list_jobs(self, statuses: list[str] | None = None, limit: int = 50) -> list[Job]:
        query, params = "SELECT job_json, cancel FROM jobs", list[object]()
        if statuses:
            query += f" WHERE status IN ({', '.join('?' * len(statuses))})"
            params.extend(statuses)
        order = f" ORDER BY created {self.dialect.binary} DESC, id {self.dialect.binary} DESC LIMIT ?"
        rows = self._rows(query + order, [*params, limit])
        return [loaded(Job, j).model_copy(update={"cancel_requested": bool(c)}) for j, c in rows]

    # -- conversations ---------------------------------------------------------------------

    def save_conversation(self, conversation: Conversation) -> None:
        self._change(
            'INSERT INTO conversations(id, "user", persona, updated, conversation_json) '
            'VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "user" = excluded."user", '
            "persona = excluded.persona, updated = excluded.updated, "
            "conversation_json = excluded.conversation_json",
            (
                conversation.id,
                conversation.user,
                conversation.persona,
                conversation.updated,
                self._json(conversation),
            ),
        )

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        row = self._first("SELECT conversation_json FROM conversations WHERE id = ?", (conversation_id,))
        return loaded(Conversation, row[0]) if row else None

    def list_conversations(self, user: str, persona: str | None = None) -> list[Conversation]:
        query = 'SELECT conversation_json FROM conversations WHERE "user" = ?'
        params = [user]
        if persona is not None:
            query += " AND persona = ?"
            params.append(persona)
        binary = self.dialect.binary
        rows = self._rows(query + f" ORDER BY updated {binary} DESC, id {binary} DESC", params)
        return [loaded(Conversation, j) for (j,) in rows]

    def list_conversation_users(self) -> list[str]:
        return self._texts(f'SELECT DISTINCT "user" {self.dialect.binary} AS u FROM conversations ORDER BY u')

    def delete_conversation(self, conversation_id: str) -> bool:
        return self._change("DELETE FROM conversations WHERE id = ?", (conversation_id,)) > 0
