"""The login store's conformance (`LoginStore`)."""

from __future__ import annotations

from shu.store.base import Store
from shu.types import Login, Session


class LoginsConformance:
    """Logins with their password hash, sessions by their token's hash; none of it moves the
    generation."""

    def test_a_login_keeps_its_hash_and_personas(self, store: Store) -> None:
        before = store.generation()
        ana = Login(name="ana", reads=["alpha"], writes=["beta"], created="2026-01-01T00:00:00+00:00")
        store.save_login(ana, "$argon2id$one")
        store.save_login(Login(name="bob", admin=True), "$argon2id$two")
        assert store.get_login("ana") == (ana, "$argon2id$one")
        assert store.get_login("nobody") is None
        changed = ana.model_copy(update={"failures": 3, "locked_until": "2026-01-01T00:15:00+00:00"})
        store.save_login(changed, "$argon2id$three")
        assert store.get_login("ana") == (changed, "$argon2id$three")
        assert [login.name for login in store.list_logins()] == ["ana", "bob"]
        assert store.generation() == before

    def test_sessions_are_found_by_their_hash_and_end(self, store: Store) -> None:
        one = Session(user="ana", created="t0", expires="2026-01-01T12:00:00+00:00", csrf="c1")
        store.add_session("hash-one", one)
        store.add_session("hash-two", one.model_copy(update={"csrf": "c2"}))
        store.add_session("hash-bob", Session(user="bob", created="t0", expires="t1", csrf="c3"))
        assert store.get_session("hash-one") == one
        assert store.get_session("one") is None
        assert store.delete_session("hash-one") is True
        assert store.delete_session("hash-one") is False
        assert store.get_session("hash-one") is None
        assert store.delete_sessions("ana") == 1
        assert store.get_session("hash-two") is None
        assert store.get_session("hash-bob") is not None

    def test_expired_sessions_are_forgotten(self, store: Store) -> None:
        def session(expires: str) -> Session:
            return Session(user="ana", created="t0", expires=expires, csrf="c")

        store.add_session("old", session("2026-01-01T11:59:59+00:00"))
        store.add_session("now", session("2026-01-01T12:00:00+00:00"))
        store.add_session("new", session("2026-01-01T12:00:01+00:00"))
        assert store.delete_expired_sessions("2026-01-01T12:00:00+00:00") == 2
        assert store.get_session("new") is not None and store.get_session("old") is None
