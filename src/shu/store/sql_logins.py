"""What a SQL store keeps of the people who sign in — logins with their password hash, sessions
by the hash of their token, sign-in attempts per (name, address) — written once for SQLite and
PostgreSQL (`shu.store.sql_service` gives the statements; an attempt is counted by one upsert:
atomic across threads, connections and processes)."""

from __future__ import annotations

from shu.store.sql_service import SQLStatements, loaded
from shu.types import Login, Session


class SQLLoginTables(SQLStatements):
    """Logins, sessions and sign-in attempts."""

    def save_login(self, login: Login, password_hash: str) -> None:
        self._change(
            "INSERT INTO logins(name, password_hash, login_json) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, "
            "login_json = excluded.login_json",
            (login.name, password_hash, self._json(login)),
        )

    def get_login(self, name: str) -> tuple[Login, str] | None:
        row = self._first("SELECT login_json, password_hash FROM logins WHERE name = ?", (name,))
        return (loaded(Login, row[0]), str(row[1])) if row else None

    def list_logins(self) -> list[Login]:
        rows = self._rows(f"SELECT login_json FROM logins ORDER BY name {self.dialect.binary}")
        return [loaded(Login, j) for (j,) in rows]

    def add_session(self, token_hash: str, session: Session) -> None:
        self._change(
            'INSERT INTO login_sessions(token_hash, "user", expires, session_json) VALUES (?, ?, ?, ?)',
            (token_hash, session.user, session.expires, self._json(session)),
        )

    def get_session(self, token_hash: str) -> Session | None:
        row = self._first("SELECT session_json FROM login_sessions WHERE token_hash = ?", (token_hash,))
        return loaded(Session, row[0]) if row else None

    def delete_session(self, token_hash: str) -> bool:
        return self._change("DELETE FROM login_sessions WHERE token_hash = ?", (token_hash,)) > 0

    def delete_sessions(self, user: str) -> int:
        return self._change('DELETE FROM login_sessions WHERE "user" = ?', (user,))

    def delete_expired_sessions(self, moment: str) -> int:
        return self._change(f"DELETE FROM login_sessions WHERE expires {self.dialect.binary} <= ?", (moment,))

    def count_sign_in(self, name: str, address: str, now: str, since: str) -> tuple[int, str]:
        row = self._inserted(
            "INSERT INTO sign_in_attempts AS a (name, address, attempts, started) VALUES (?, ?, 1, ?) "
            "ON CONFLICT (name, address) DO UPDATE SET "
            "attempts = CASE WHEN a.started <= ? THEN 1 ELSE a.attempts + 1 END, "
            "started = CASE WHEN a.started <= ? THEN excluded.started ELSE a.started END "
            "RETURNING attempts, started",
            (name, address, now, since, since),
        )
        return int(row[0]), str(row[1])

    def uncount_sign_in(self, name: str, address: str) -> None:
        self._change(
            "UPDATE sign_in_attempts SET attempts = attempts - 1 "
            "WHERE name = ? AND address = ? AND attempts > 0",
            (name, address),
        )

    def forget_sign_ins(self, name: str, address: str | None = None) -> int:
        if address is None:
            return self._change("DELETE FROM sign_in_attempts WHERE name = ?", (name,))
        return self._change("DELETE FROM sign_in_attempts WHERE name = ? AND address = ?", (name, address))

    def forget_old_sign_ins(self, since: str) -> int:
        return self._change("DELETE FROM sign_in_attempts WHERE started <= ?", (since,))
