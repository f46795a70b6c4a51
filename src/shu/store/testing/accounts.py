"""The account store's conformance (`AccountStore`)."""

from __future__ import annotations

from shu.store.base import Store
from shu.types import (
    ApiKey,
    Contact,
    ProfileItem,
    Signal,
    UserProfile,
)


class AccountsConformance:
    """The account store: keys (hashed, revocable), each user's own signals and profile; none of
    it moves the generation (cached answers stay valid)."""

    def test_keys_are_kept_with_their_hash_and_revoked_once(self, store: Store) -> None:
        before = store.generation()
        key = ApiKey(id="k1", user="ana", personas=["alpha"], admin=False, created="2026-01-01T00:00:00")
        store.add_key(key, "hash-of-secret")
        store.add_key(ApiKey(id="k2", user="root", admin=True, created="2026-01-02T00:00:00"), "h2")
        assert store.get_key("k1") == (key, "hash-of-secret")
        assert store.get_key("nope") is None
        assert [k.id for k in store.list_keys()] == ["k1", "k2"]
        assert store.revoke_key("k1") and not store.revoke_key("k1") and not store.revoke_key("nope")
        found = store.get_key("k1")
        assert found is not None and found[0].revoked
        assert [k.revoked for k in store.list_keys()] == [True, False]
        assert store.delete_keys("ana") == 1 and [k.id for k in store.list_keys()] == ["k2"]
        assert store.generation() == before

    def test_signals_are_each_users_own_newest_first_and_can_be_forgotten(self, store: Store) -> None:
        before = store.generation()
        first = store.add_signal(Signal(user="ana", persona="alpha", kind="up", question="q1", answer="a1"))
        assert first.id is not None and first.created
        late = "2999-01-01T00:00:00"
        store.add_signal(Signal(user="ana", persona="beta", kind="star", doc_id="d1", created=late))
        store.add_signal(Signal(user="bob", persona="alpha", kind="down", question="q\x00"))
        assert [s.kind for s in store.list_signals("ana")] == ["star", "up"]
        assert [s.kind for s in store.list_signals("ana", "alpha")] == ["up"]
        assert store.list_signals("ana", "alpha")[0] == first
        assert [s.user for s in store.list_signals("bob")] == ["bob"]
        assert store.forget_signals("ana") == 2 and store.list_signals("ana") == []
        assert len(store.list_signals("bob")) == 1
        assert store.generation() == before

    def test_a_users_profile_is_kept_replaced_and_deleted(self, store: Store) -> None:
        before = store.generation()
        profile = UserProfile(
            id="ana",
            name="Ana Lima",
            emails=["ana@harbor.example"],
            roles=["treasurer"],
            contacts=[Contact(name="Jonas Berg", email="jonas@harbor.example", affinity=0.8, source="email")],
            projects=[ProfileItem(value="Q3 repair budget", source="frontmatter")],
            preferences={"detail": "summary"},
        )
        saved = store.save_user(profile)
        assert saved.updated and store.get_user("ana") == saved
        store.save_user(profile.model_copy(update={"name": "Ana L."}))
        store.save_user(UserProfile(id="bob"))
        found = store.get_user("ana")
        assert found is not None and found.name == "Ana L." and found.contacts[0].affinity == 0.8
        assert store.list_users() == ["ana", "bob"] and store.get_user("nobody") is None
        assert store.delete_user("ana") and not store.delete_user("ana") and store.list_users() == ["bob"]
        assert store.generation() == before
