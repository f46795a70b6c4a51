"""What a PostgreSQL store keeps of the people who sign in: logins with their password hash,
sessions by the hash of their token, and sign-in attempts per (name, address) (an attempt is
counted by one upsert: atomic across connections and processes)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any

from shu.types import Login, Session


def _clean(value: str) -> str:
    """PostgreSQL text cannot hold NUL characters: they go."""
    return value.replace("\x00", "")


class PostgresLoginTables(ABC):
    @abstractmethod
    def _connection(self) -> AbstractContextManager[Any]:  # provided by PostgresStore
        ...

    def save_login(self, login: Login, password_hash: str) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO logins(name, password_hash, login_json) VALUES (%s, %s, %s) "
                "ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, "
                "login_json = excluded.login_json",
                (_clean(login.name), password_hash, login.model_dump_json().replace("\\u0000", "")),
            )

    def get_login(self, name: str) -> tuple[Login, str] | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT login_json, password_hash FROM logins WHERE name = %s", (_clean(name),)
            ).fetchone()
        return (Login.model_validate(row[0]), str(row[1])) if row else None

    def list_logins(self) -> list[Login]:
        with self._connection() as conn:
            rows = conn.execute('SELECT login_json FROM logins ORDER BY name COLLATE "C"').fetchall()
        return [Login.model_validate(j) for (j,) in rows]

    def add_session(self, token_hash: str, session: Session) -> None:
        with self._connection() as conn:
            conn.execute(
                'INSERT INTO login_sessions(token_hash, "user", expires, session_json) '
                "VALUES (%s, %s, %s, %s)",
                (token_hash, _clean(session.user), session.expires, session.model_dump_json()),
            )

    def get_session(self, token_hash: str) -> Session | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT session_json FROM login_sessions WHERE token_hash = %s", (_clean(token_hash),)
            ).fetchone()
        return Session.model_validate(row[0]) if row else None

    def delete_session(self, token_hash: str) -> bool:
        with self._connection() as conn:
            cursor = conn.execute("DELETE FROM login_sessions WHERE token_hash = %s", (_clean(token_hash),))
            return int(cursor.rowcount) > 0

    def delete_sessions(self, user: str) -> int:
        with self._connection() as conn:
            cursor = conn.execute('DELETE FROM login_sessions WHERE "user" = %s', (_clean(user),))
            return int(cursor.rowcount)

    def delete_expired_sessions(self, moment: str) -> int:
        with self._connection() as conn:
            cursor = conn.execute(
                'DELETE FROM login_sessions WHERE expires COLLATE "C" <= %s', (_clean(moment),)
            )
            return int(cursor.rowcount)

    def count_sign_in(self, name: str, address: str, now: str, since: str) -> tuple[int, str]:
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO sign_in_attempts AS a (name, address, attempts, started) "
                "VALUES (%s, %s, 1, %s) ON CONFLICT (name, address) DO UPDATE SET "
                "attempts = CASE WHEN a.started <= %s THEN 1 ELSE a.attempts + 1 END, "
                "started = CASE WHEN a.started <= %s THEN excluded.started ELSE a.started END "
                "RETURNING attempts, started",
                (_clean(name), _clean(address), now, since, since),
            ).fetchone()
        return int(row[0]), str(row[1])

    def uncount_sign_in(self, name: str, address: str) -> None:
        with self._connection() as conn:
            conn.execute(
                "UPDATE sign_in_attempts SET attempts = attempts - 1 "
                "WHERE name = %s AND address = %s AND attempts > 0",
                (_clean(name), _clean(address)),
            )

    def forget_sign_ins(self, name: str, address: str | None = None) -> int:
        with self._connection() as conn:
            if address is None:
                cursor = conn.execute("DELETE FROM sign_in_attempts WHERE name = %s", (_clean(name),))
            else:
                cursor = conn.execute(
                    "DELETE FROM sign_in_attempts WHERE name = %s AND address = %s",
                    (_clean(name), _clean(address)),
                )
            return int(cursor.rowcount)

    def forget_old_sign_ins(self, since: str) -> int:
        with self._connection() as conn:
            cursor = conn.execute("DELETE FROM sign_in_attempts WHERE started <= %s", (since,))
            return int(cursor.rowcount)
