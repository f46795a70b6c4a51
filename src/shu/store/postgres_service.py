"""What a PostgreSQL store keeps for the server beside the knowledge: API keys (hashed), users'
signals and background jobs. None of it moves the data version, so cached answers stay valid."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any

from pydantic import BaseModel

from shu.store.rows import now
from shu.types import ApiKey, Conversation, Job, Signal, UserProfile


def _clean(value: str) -> str:
    """PostgreSQL text and jsonb cannot hold NUL characters: they go."""
    return value.replace("\x00", "")


def _json(model: BaseModel, **dump: Any) -> str:
    return model.model_dump_json(**dump).replace("\\u0000", "")


class PostgresServiceTables(ABC):
    @abstractmethod
    def _connection(self) -> AbstractContextManager[Any]:  # provided by PostgresStore
        ...

    # -- keys ------------------------------------------------------------------------------

    def add_key(self, key: ApiKey, secret_hash: str) -> None:
        with self._connection() as conn:
            conn.execute(
                'INSERT INTO api_keys(id, "user", secret_hash, key_json, revoked) '
                "VALUES (%s, %s, %s, %s, %s)",
                (key.id, _clean(key.user), secret_hash, _json(key), key.revoked),
            )

    def get_key(self, key_id: str) -> tuple[ApiKey, str] | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT key_json, secret_hash, revoked FROM api_keys WHERE id = %s", (_clean(key_id),)
            ).fetchone()
        if row is None:
            return None
        return ApiKey.model_validate(row[0]).model_copy(update={"revoked": bool(row[2])}), row[1]

    def list_keys(self) -> list[ApiKey]:
        with self._connection() as conn:
            rows = conn.execute("SELECT key_json, revoked FROM api_keys ORDER BY key_json->>'created', id")
            return [ApiKey.model_validate(j).model_copy(update={"revoked": bool(r)}) for j, r in rows]

    def revoke_key(self, key_id: str) -> bool:
        with self._connection() as conn:
            cursor = conn.execute(
                "UPDATE api_keys SET revoked = true WHERE id = %s AND NOT revoked", (_clean(key_id),)
            )
            return int(cursor.rowcount) > 0

    def delete_keys(self, user: str) -> int:
        with self._connection() as conn:
            return int(conn.execute('DELETE FROM api_keys WHERE "user" = %s', (_clean(user),)).rowcount)

    # -- signals ---------------------------------------------------------------------------

    def add_signal(self, signal: Signal) -> Signal:
        stored = signal.model_copy(update={"id": None, "created": signal.created or now()})
        with self._connection() as conn:
            row = conn.execute(
                'INSERT INTO signals("user", persona, kind, doc_id, created, signal_json) '
                "VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                (
                    _clean(stored.user),
                    _clean(stored.persona),
                    stored.kind,
                    _clean(stored.doc_id) if stored.doc_id is not None else None,
                    stored.created,
                    _json(stored),
                ),
            ).fetchone()
        stored.id = int(row[0])
        return stored

    def list_signals(self, user: str, persona: str | None = None) -> list[Signal]:
        query = 'SELECT id, signal_json FROM signals WHERE "user" = %s'
        params: list[object] = [_clean(user)]
        if persona is not None:
            query += " AND persona = %s"
            params.append(_clean(persona))
        with self._connection() as conn:
            rows = conn.execute(query + " ORDER BY created DESC, id DESC", params).fetchall()
        return [Signal.model_validate(j).model_copy(update={"id": int(i)}) for i, j in rows]

    def list_signal_users(self) -> list[str]:
        with self._connection() as conn:
            return [r[0] for r in conn.execute('SELECT DISTINCT "user" FROM signals ORDER BY "user"')]

    def forget_signals(self, user: str) -> int:
        with self._connection() as conn:
            return int(conn.execute('DELETE FROM signals WHERE "user" = %s', (_clean(user),)).rowcount)

    # -- users' profiles ---------------------------------------------------------------------

    def save_user(self, profile: UserProfile) -> UserProfile:
        stored = profile.model_copy(update={"updated": now()})
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO user_profiles(id, profile_json, updated) VALUES (%s, %s, %s) ON CONFLICT (id) "
                "DO UPDATE SET profile_json = excluded.profile_json, updated = excluded.updated",
                (stored.id, _json(stored), stored.updated),
            )
        return stored

    def get_user(self, user_id: str) -> UserProfile | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT profile_json FROM user_profiles WHERE id = %s", (_clean(user_id),)
            ).fetchone()
        return UserProfile.model_validate(row[0]) if row else None

    def list_users(self) -> list[str]:
        with self._connection() as conn:
            return [r[0] for r in conn.execute("SELECT id FROM user_profiles ORDER BY id")]

    def delete_user(self, user_id: str) -> bool:
        with self._connection() as conn:
            deleted = conn.execute("DELETE FROM user_profiles WHERE id = %s", (_clean(user_id),))
            return int(deleted.rowcount) > 0

    # -- jobs ------------------------------------------------------------------------------

    def save_job(self, job: Job) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO jobs(id, status, created, job_json) VALUES (%s, %s, %s, %s) ON CONFLICT (id) "
                "DO UPDATE SET status = excluded.status, job_json = excluded.job_json",
                (job.id, job.status, job.created, _json(job, exclude={"cancel_requested"})),
            )

    def request_cancel(self, job_id: str) -> bool:
        with self._connection() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET cancel = true WHERE id = %s AND status IN ('queued', 'running')",
                (_clean(job_id),),
            )
            return int(cursor.rowcount) > 0

    def get_job(self, job_id: str) -> Job | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT job_json, cancel FROM jobs WHERE id = %s", (_clean(job_id),)
            ).fetchone()
        return (
            Job.model_validate(row[0]).model_copy(update={"cancel_requested": bool(row[1])}) if row else None
        )

    def list_jobs(self, statuses: list[str] | None = None, limit: int = 50) -> list[Job]:
        query, params = "SELECT job_json, cancel FROM jobs", list[object]()
        if statuses:
            query += " WHERE status = ANY(%s)"
            params.append(list(statuses))
        with self._connection() as conn:
            rows = conn.execute(
                query + " ORDER BY created DESC, id DESC LIMIT %s", [*params, limit]
            ).fetchall()
        return [Job.model_validate(j).model_copy(update={"cancel_requested": bool(c)}) for j, c in rows]

    # -- conversations ---------------------------------------------------------------------

    def save_conversation(self, conversation: Conversation) -> None:
        with self._connection() as conn:
            conn.execute(
                'INSERT INTO conversations(id, "user", persona, updated, conversation_json) '
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE SET updated = excluded.updated, "
                "conversation_json = excluded.conversation_json",
                (
                    _clean(conversation.id),
                    _clean(conversation.user),
                    _clean(conversation.persona),
                    conversation.updated,
                    _json(conversation),
                ),
            )

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT conversation_json FROM conversations WHERE id = %s", (_clean(conversation_id),)
            ).fetchone()
        return Conversation.model_validate(row[0]) if row else None

    def list_conversations(self, user: str, persona: str | None = None) -> list[Conversation]:
        query, params = 'SELECT conversation_json FROM conversations WHERE "user" = %s', [_clean(user)]
        if persona is not None:
            query += " AND persona = %s"
            params.append(_clean(persona))
        with self._connection() as conn:
            rows = conn.execute(query + ' ORDER BY updated COLLATE "C" DESC, id DESC', params).fetchall()
        return [Conversation.model_validate(j) for (j,) in rows]

    def list_conversation_users(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute('SELECT DISTINCT "user" COLLATE "C" AS u FROM conversations ORDER BY u')
            return [str(r[0]) for r in rows.fetchall()]

    def delete_conversation(self, conversation_id: str) -> bool:
        with self._connection() as conn:
            deleted = conn.execute("DELETE FROM conversations WHERE id = %s", (_clean(conversation_id),))
            return int(deleted.rowcount) > 0
