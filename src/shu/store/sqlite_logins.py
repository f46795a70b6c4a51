"""What a SQLite store keeps of the people who sign in: logins with their password hash, and
sessions by the hash of their token, and sign-in attempts per (name, address). Single statements
under the store's lock (an attempt is counted by one upsert: atomic across threads and processes)."""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from pathlib import Path

from shu.types import Login, Session


class SQLiteLoginTables(ABC):
    path: Path
    _lock: threading.RLock

    @abstractmethod
    def _read(self) -> sqlite3.Connection:  # provided by SQLiteStore
        ...

    @abstractmethod
    def _statement(self) -> AbstractContextManager[sqlite3.Connection]:  # SQLiteServiceTables
        ...

    def save_login(self, login: Login, password_hash: str) -> None:
        with self._statement() as db:
            db.execute(
                "INSERT INTO logins(name, password_hash, login_json) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET password_hash = excluded.password_hash, "
                "login_json = excluded.login_json",
                (login.name, password_hash, login.model_dump_json()),
            )

    def get_login(self, name: str) -> tuple[Login, str] | None:
        row = (
            self._read()
            .execute("SELECT login_json, password_hash FROM logins WHERE name = ?", (name,))
            .fetchone()
        )
        return (Login.model_validate_json(row[0]), str(row[1])) if row else None

    def list_logins(self) -> list[Login]:
        rows = self._read().execute("SELECT login_json FROM logins ORDER BY name").fetchall()
        return [Login.model_validate_json(j) for (j,) in rows]

    def add_session(self, token_hash: str, session: Session) -> None:
        with self._statement() as db:
            db.execute(
                "INSERT INTO login_sessions(token_hash, user, expires, session_json) VALUES (?, ?, ?, ?)",
                (token_hash, session.user, session.expires, session.model_dump_json()),
            )

    def get_session(self, token_hash: str) -> Session | None:
        row = (
            self._read()
            .execute("SELECT session_json FROM login_sessions WHERE token_hash = ?", (token_hash,))
            .fetchone()
        )
        return Session.model_validate_json(row[0]) if row else None

    def delete_session(self, token_hash: str) -> bool:
        with self._statement() as db:
            return db.execute("DELETE FROM login_sessions WHERE token_hash = ?", (token_hash,)).rowcount > 0

    def delete_sessions(self, user: str) -> int:
        with self._statement() as db:
            return int(db.execute("DELETE FROM login_sessions WHERE user = ?", (user,)).rowcount)

    def delete_expired_sessions(self, moment: str) -> int:
        with self._statement() as db:
            return int(db.execute("DELETE FROM login_sessions WHERE expires <= ?", (moment,)).rowcount)

    def count_sign_in(self, name: str, address: str, now: str, since: str) -> tuple[int, str]:
        with self._statement() as db:
            row = db.execute(
                "INSERT INTO sign_in_attempts(name, address, attempts, started) VALUES (?, ?, 1, ?) "
                "ON CONFLICT(name, address) DO UPDATE SET "
                "attempts = CASE WHEN started <= ? THEN 1 ELSE attempts + 1 END, "
                "started = CASE WHEN started <= ? THEN excluded.started ELSE started END "
                "RETURNING attempts, started",
                (name, address, now, since, since),
            ).fetchone()
        return int(row[0]), str(row[1])

    def uncount_sign_in(self, name: str, address: str) -> None:
        with self._statement() as db:
            db.execute(
                "UPDATE sign_in_attempts SET attempts = attempts - 1 "
                "WHERE name = ? AND address = ? AND attempts > 0",
                (name, address),
            )

    def forget_sign_ins(self, name: str, address: str | None = None) -> int:
        with self._statement() as db:
            if address is None:
                return int(db.execute("DELETE FROM sign_in_attempts WHERE name = ?", (name,)).rowcount)
            query = "DELETE FROM sign_in_attempts WHERE name = ? AND address = ?"
            return int(db.execute(query, (name, address)).rowcount)

    def forget_old_sign_ins(self, since: str) -> int:
        with self._statement() as db:
            return int(db.execute("DELETE FROM sign_in_attempts WHERE started <= ?", (since,)).rowcount)
