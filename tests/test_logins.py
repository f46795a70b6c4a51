"""Signing in with a name and a password (shu.accounts.logins): the hash never the password,
one message for an unknown name and a wrong password, the lockout, sessions that expire and end,
the caller record a session carries."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest

from shu.accounts.logins import (
    LOCKOUT,
    MAX_ADDRESS_FAILURES,
    MAX_FAILURES,
    SESSION_LIFETIME,
    WRONG,
    Logins,
    caller_of,
    csrf_matches,
)
from shu.errors import (
    ForbiddenError,
    InvalidRequestError,
    LockedError,
    NotFoundError,
    TooManyRequestsError,
    UnauthorizedError,
)
from shu.store.base import KnowledgeReader
from shu.store.sqlite import SQLiteStore
from shu.types import Persona, PersonaConfig

PASSWORD = "correct horse battery"


class Personas:
    def list_personas(self) -> list[Persona]:
        return [
            Persona(slug=s, display_name=s, config=PersonaConfig(slug=s, display_name=s))
            for s in ("alpha", "beta")
        ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "shu.db")
    yield opened
    opened.close()


@pytest.fixture
def logins(store: SQLiteStore) -> Logins:
    return Logins(store, cast(KnowledgeReader, Personas()))


def test_the_password_is_kept_only_as_an_argon2_hash(
    logins: Logins, store: SQLiteStore, tmp_path: Path
) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    found = store.get_login("ana")
    assert found is not None and found[1].startswith("$argon2id$")
    store.close()
    raw = (tmp_path / "shu.db").read_bytes() + _wal(tmp_path)
    assert PASSWORD.encode() not in raw


def _wal(tmp_path: Path) -> bytes:
    wal = tmp_path / "shu.db-wal"
    return wal.read_bytes() if wal.exists() else b""


def test_a_wrong_password_and_an_unknown_name_say_the_same(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    with pytest.raises(UnauthorizedError) as wrong:
        logins.sign_in("ana", "not the password")
    with pytest.raises(UnauthorizedError) as unknown:
        logins.sign_in("nobody", PASSWORD)
    with pytest.raises(UnauthorizedError) as odd:
        logins.sign_in("no body\x00", PASSWORD)
    assert str(wrong.value) == str(unknown.value) == str(odd.value) == WRONG


def test_five_wrong_passwords_lock_for_fifteen_minutes(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for _ in range(MAX_FAILURES - 1):
        with pytest.raises(UnauthorizedError):
            logins.sign_in("ana", "wrong one!", now=start)
    with pytest.raises(LockedError, match="too many wrong passwords"):
        logins.sign_in("ana", "wrong one!", now=start)
    with pytest.raises(LockedError):  # even the right password, while locked
        logins.sign_in("ana", PASSWORD, now=start + LOCKOUT - timedelta(seconds=1))
    login, _, _ = logins.sign_in("ana", PASSWORD, now=start + LOCKOUT + timedelta(seconds=1))
    assert login.failures == 0 and login.locked_until == ""


def test_a_good_password_resets_the_count(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    for _ in range(MAX_FAILURES - 1):
        with pytest.raises(UnauthorizedError):
            logins.sign_in("ana", "wrong one!")
    logins.sign_in("ana", PASSWORD)
    for _ in range(MAX_FAILURES - 1):  # counts from zero again: not locked
        with pytest.raises(UnauthorizedError):
            logins.sign_in("ana", "wrong one!")


def test_sessions_expire_and_end(logins: Logins, store: SQLiteStore) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    _, session, token = logins.sign_in("ana", PASSWORD, now=start)
    assert logins.session(token, now=start + timedelta(hours=1))[1] == session
    assert token not in str(store.get_session(token))
    with pytest.raises(UnauthorizedError):
        logins.session(token, now=start + SESSION_LIFETIME)
    with pytest.raises(UnauthorizedError):  # an expired session is gone
        logins.session(token, now=start)
    _, _, kept = logins.sign_in("ana", PASSWORD, now=start)
    logins.sign_in("ana", PASSWORD, now=start + SESSION_LIFETIME)  # a sign-in forgets expired ones
    assert store.get_session(hashlib.sha256(kept.encode()).hexdigest()) is None
    _, _, other = logins.sign_in("ana", PASSWORD)
    assert logins.sign_out(other) is True
    with pytest.raises(UnauthorizedError):
        logins.session(other)
    for forged in ("", None, "x" * 43, "y" * 1000):
        with pytest.raises(UnauthorizedError):
            logins.session(forged)


def test_a_new_password_or_a_lock_ends_every_session(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    _, _, token = logins.sign_in("ana", PASSWORD)
    logins.set_password("ana", "another long one")
    with pytest.raises(UnauthorizedError):
        logins.session(token)
    with pytest.raises(UnauthorizedError):
        logins.sign_in("ana", PASSWORD)
    _, _, token = logins.sign_in("ana", "another long one")
    logins.lock("ana")
    with pytest.raises(UnauthorizedError):
        logins.session(token)
    with pytest.raises(LockedError, match="locked by an admin"):
        logins.sign_in("ana", "another long one")
    logins.unlock("ana")
    logins.sign_in("ana", "another long one")


def test_users_personas_and_the_caller_they_make(logins: Logins) -> None:
    ana = logins.add("ana", PASSWORD, reads=["alpha"], writes=["beta"])
    assert caller_of(ana).personas == ["alpha", "beta"] and not caller_of(ana).admin
    boss = logins.add("boss", PASSWORD, admin=True)
    assert caller_of(boss).personas == [] and caller_of(boss).admin  # every persona
    nobody = logins.add("nobody", PASSWORD)
    with pytest.raises(ForbiddenError, match="no persona"):
        caller_of(nobody)
    assert logins.set_personas("nobody", ["beta"], []).personas() == ["beta"]
    with pytest.raises(NotFoundError, match="unknown persona"):
        logins.set_personas("nobody", ["gamma"], [])
    with pytest.raises(NotFoundError):
        logins.set_personas("ghost", ["beta"], [])
    with pytest.raises(InvalidRequestError, match="already"):
        logins.add("ana", PASSWORD)
    with pytest.raises(InvalidRequestError, match="password"):
        logins.add("short", "1234567")
    with pytest.raises(InvalidRequestError):
        logins.add("bad name", PASSWORD)
    assert [login.name for login in logins.users()] == ["ana", "boss", "nobody"]


def test_the_csrf_token_must_match(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    _, session, _ = logins.sign_in("ana", PASSWORD)
    assert csrf_matches(session, session.csrf)
    assert (
        not csrf_matches(session, None) and not csrf_matches(session, "") and not csrf_matches(session, "x")
    )


def test_no_table_holds_a_token(logins: Logins, store: SQLiteStore, tmp_path: Path) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    _, _, token = logins.sign_in("ana", PASSWORD)
    db = sqlite3.connect(tmp_path / "shu.db")
    rows = db.execute("SELECT token_hash, session_json FROM login_sessions").fetchall()
    db.close()
    assert rows and all(token not in str(row) for row in rows)


def test_a_known_and_an_unknown_name_are_locked_out_alike(logins: Logins) -> None:
    """The same answers, one by one, for a real name and one nobody has: a lockout names no one."""
    logins.add("ana", PASSWORD, reads=["alpha"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    answers: dict[str, list[str]] = {}
    for name in ("ana", "nobody"):
        answers[name] = []
        for password in ["wrong one!"] * MAX_FAILURES + [PASSWORD]:
            try:
                logins.sign_in(name, password, address="10.0.0.1", now=start)
            except (UnauthorizedError, LockedError) as exc:
                answers[name].append(f"{type(exc).__name__}: {exc}")
    assert answers["ana"] == answers["nobody"], answers
    assert answers["ana"][-1].startswith("LockedError: too many wrong passwords")


def test_a_lockout_holds_one_address_and_never_the_others(logins: Logins) -> None:
    """Wrong passwords for the admin from outside lock that address out, not the admin."""
    logins.add("root", PASSWORD, admin=True)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for _ in range(MAX_FAILURES + 3):
        with pytest.raises((UnauthorizedError, LockedError)):
            logins.sign_in("root", "wrong one!", address="203.0.113.9", now=start)
    with pytest.raises(LockedError):
        logins.sign_in("root", PASSWORD, address="203.0.113.9", now=start)
    assert logins.sign_in("root", PASSWORD, address="10.0.0.2", now=start)[0].name == "root"
    later = start + LOCKOUT + timedelta(seconds=1)
    assert logins.sign_in("root", PASSWORD, address="203.0.113.9", now=later)[0].name == "root"


def test_one_address_is_throttled_across_names(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for number in range(MAX_ADDRESS_FAILURES):
        with pytest.raises(UnauthorizedError):
            logins.sign_in(f"guess{number}", "wrong one!", address="203.0.113.7", now=start)
    with pytest.raises(TooManyRequestsError, match="from this address") as throttled:
        logins.sign_in("ana", PASSWORD, address="203.0.113.7", now=start)
    assert 0 < throttled.value.retry_after_s <= LOCKOUT.total_seconds()
    assert logins.sign_in("ana", PASSWORD, address="203.0.113.8", now=start)[0].name == "ana"


def test_an_admins_lock_is_said_only_to_the_right_password(logins: Logins) -> None:
    logins.add("ana", PASSWORD, reads=["alpha"])
    logins.lock("ana")
    with pytest.raises(UnauthorizedError, match=WRONG):
        logins.sign_in("ana", "wrong one!")
    with pytest.raises(LockedError, match="locked by an admin"):
        logins.sign_in("ana", PASSWORD)
