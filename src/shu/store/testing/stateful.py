"""Stateful property tests of the store's service roles, as Chroma tests its stores: hypothesis
drives random adds, updates, deletes and lists against a plain in-memory model of what the
`Store` protocol promises, and checks every list and lookup against the model after every step.

The examples use few ids, users and timestamps on purpose: collisions (a key added twice, two
jobs created in the same second, keys created out of insertion order) are where two backends'
SQL used to disagree. A backend runs them by giving a `fresh_store` fixture: a callable that
returns a store whose service tables are empty (a new file, or the same database emptied)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from shu.errors import StoreError
from shu.store.base import Store
from shu.types import ApiKey, Conversation, Job, Login, Session, Signal, UserProfile

FreshStore = Callable[[], Store]
"""A store whose service tables (keys, signals, users, jobs, conversations, logins) are empty."""

IDS = st.sampled_from(["a", "b", "c", "d"])
NAMES = st.sampled_from(["ana", "Bob", "bob", "émile", "zoë"])
"""Upper and lower case and accents: a text order is the same byte order on every backend."""
TIMES = st.sampled_from(
    ["2026-01-01T09:00:00+00:00", "2026-01-02T09:00:00+00:00", "2026-01-03T09:00:00+00:00"]
)
PERSONAS = st.sampled_from(["alpha", "beta"])
RUNS = settings(
    max_examples=15,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class StoreMachine(RuleBasedStateMachine):
    """A machine over one fresh store; `fresh` is set by `run` for each backend."""

    fresh: ClassVar[FreshStore]

    def __init__(self) -> None:
        super().__init__()
        self.store = type(self).fresh()


def run(machine: type[StoreMachine], fresh: FreshStore) -> None:
    bound = type(machine.__name__, (machine,), {"fresh": staticmethod(fresh)})
    run_state_machine_as_test(bound, settings=RUNS)


def _refused(call: Callable[[], Any]) -> bool:
    try:
        call()
    except StoreError:
        return True
    return False


class KeysMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[str, tuple[ApiKey, str]] = {}

    @rule(key_id=IDS, user=NAMES, created=TIMES, admin=st.booleans())
    def add_key(self, key_id: str, user: str, created: str, admin: bool) -> None:
        key = ApiKey(id=key_id, user=user, created=created, admin=admin, personas=["alpha"])
        if key_id in self.keys:  # ids are unique: the second is refused, the first kept
            assert _refused(lambda: self.store.add_key(key, "other"))
            return
        self.store.add_key(key, f"hash-{key_id}")
        self.keys[key_id] = (key, f"hash-{key_id}")

    @rule(key_id=IDS)
    def revoke_key(self, key_id: str) -> None:
        known = self.keys.get(key_id)
        expected = known is not None and not known[0].revoked
        assert self.store.revoke_key(key_id) == expected
        if known is not None:
            self.keys[key_id] = (known[0].model_copy(update={"revoked": True}), known[1])

    @rule(user=NAMES)
    def delete_keys(self, user: str) -> None:
        theirs = [k for k, (key, _) in self.keys.items() if key.user == user]
        assert self.store.delete_keys(user) == len(theirs)
        for key_id in theirs:
            del self.keys[key_id]

    @invariant()
    def keys_are_listed_oldest_first(self) -> None:
        expected = sorted((key for key, _ in self.keys.values()), key=lambda k: (k.created, k.id))
        assert self.store.list_keys() == expected

    @invariant()
    def each_key_is_found_with_its_hash(self) -> None:
        for key_id in ("a", "b", "c", "d"):
            assert self.store.get_key(key_id) == self.keys.get(key_id)


class SignalsMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.signals: list[Signal] = []

    @rule(
        user=NAMES,
        persona=PERSONAS,
        created=st.one_of(st.just(""), TIMES),
        doc_id=st.sampled_from([None, "d1"]),
    )
    def add_signal(self, user: str, persona: str, created: str, doc_id: str | None) -> None:
        signal = Signal(user=user, persona=persona, kind="up", doc_id=doc_id, created=created, question="q")
        stored = self.store.add_signal(signal)
        assert stored.id is not None and all(stored.id != s.id for s in self.signals)
        assert stored.created == (created or stored.created) and stored.created
        self.signals.append(stored)

    @rule(user=NAMES)
    def forget_signals(self, user: str) -> None:
        theirs = [s for s in self.signals if s.user == user]
        assert self.store.forget_signals(user) == len(theirs)
        self.signals = [s for s in self.signals if s.user != user]

    @invariant()
    def each_users_signals_are_listed_newest_first(self) -> None:
        for user in ("ana", "Bob", "bob", "émile", "zoë"):
            for persona in (None, "alpha", "beta"):
                mine = [s for s in self.signals if s.user == user and persona in (None, s.persona)]
                expected = sorted(mine, key=lambda s: (s.created, s.id or 0), reverse=True)
                assert self.store.list_signals(user, persona) == expected

    @invariant()
    def the_users_with_signals_are_sorted(self) -> None:
        assert self.store.list_signal_users() == sorted({s.user for s in self.signals})


class UsersMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.users: dict[str, UserProfile] = {}

    @rule(user_id=NAMES, name=st.sampled_from(["", "Ana Lima", "B. Ø"]))
    def save_user(self, user_id: str, name: str) -> None:
        saved = self.store.save_user(UserProfile(id=user_id, name=name, preferences={"detail": "summary"}))
        assert saved.updated and saved.name == name
        self.users[user_id] = saved

    @rule(user_id=NAMES)
    def delete_user(self, user_id: str) -> None:
        assert self.store.delete_user(user_id) == (self.users.pop(user_id, None) is not None)

    @invariant()
    def users_are_listed_sorted_and_found(self) -> None:
        assert self.store.list_users() == sorted(self.users)
        for user_id in ("ana", "Bob", "bob", "émile", "zoë"):
            assert self.store.get_user(user_id) == self.users.get(user_id)


class JobsMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[str, Job] = {}
        self.cancelled: set[str] = set()

    @rule(
        job_id=IDS,
        status=st.sampled_from(["queued", "running", "done", "failed"]),
        created=TIMES,
        processed=st.integers(0, 3),
    )
    def save_job(self, job_id: str, status: str, created: str, processed: int) -> None:
        known = self.jobs.get(job_id)
        job = Job.model_validate(
            {"id": job_id, "kind": "ingest", "path": "/docs", "status": status, "processed": processed}
            | {"created": known.created if known else created}  # an update keeps its creation time
        )
        self.store.save_job(job)
        self.jobs[job_id] = job

    @rule(job_id=IDS)
    def request_cancel(self, job_id: str) -> None:
        known = self.jobs.get(job_id)
        expected = known is not None and known.status in ("queued", "running")
        assert self.store.request_cancel(job_id) == expected
        if expected:
            self.cancelled.add(job_id)

    @invariant()
    def jobs_are_listed_newest_first(self) -> None:
        expected = [
            job.model_copy(update={"cancel_requested": job.id in self.cancelled})
            for job in sorted(self.jobs.values(), key=lambda j: (j.created, j.id), reverse=True)
        ]
        assert self.store.list_jobs() == expected
        assert self.store.list_jobs(limit=2) == expected[:2]
        active = [j for j in expected if j.status in ("queued", "running")]
        assert self.store.list_jobs(["queued", "running"]) == active
        for job_id in ("a", "b", "c", "d"):
            found = self.store.get_job(job_id)
            assert found == next((j for j in expected if j.id == job_id), None)


class ConversationsMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.conversations: dict[str, Conversation] = {}

    @rule(
        conversation_id=IDS, user=NAMES, persona=PERSONAS, updated=TIMES, title=st.sampled_from(["", "Fees"])
    )
    def save_conversation(
        self, conversation_id: str, user: str, persona: str, updated: str, title: str
    ) -> None:
        conversation = Conversation(
            id=conversation_id, user=user, persona=persona, title=title, created=updated, updated=updated
        )
        self.store.save_conversation(conversation)
        self.conversations[conversation_id] = conversation

    @rule(conversation_id=IDS)
    def delete_conversation(self, conversation_id: str) -> None:
        expected = self.conversations.pop(conversation_id, None) is not None
        assert self.store.delete_conversation(conversation_id) == expected

    @invariant()
    def each_users_conversations_are_listed_most_recent_first(self) -> None:
        for user in ("ana", "Bob", "bob", "émile", "zoë"):
            for persona in (None, "alpha", "beta"):
                mine = [
                    c for c in self.conversations.values() if c.user == user and persona in (None, c.persona)
                ]
                expected = sorted(mine, key=lambda c: (c.updated, c.id), reverse=True)
                assert self.store.list_conversations(user, persona) == expected
        assert self.store.list_conversation_users() == sorted({c.user for c in self.conversations.values()})
        for conversation_id in ("a", "b", "c", "d"):
            assert self.store.get_conversation(conversation_id) == self.conversations.get(conversation_id)


class LoginsMachine(StoreMachine):
    def __init__(self) -> None:
        super().__init__()
        self.logins: dict[str, tuple[Login, str]] = {}
        self.sessions: dict[str, Session] = {}
        self.attempts: dict[tuple[str, str], tuple[int, str]] = {}

    @rule(name=NAMES, password_hash=st.sampled_from(["h1", "h2"]), admin=st.booleans())
    def save_login(self, name: str, password_hash: str, admin: bool) -> None:
        login = Login(name=name, admin=admin, reads=["alpha"])
        self.store.save_login(login, password_hash)
        self.logins[name] = (login, password_hash)

    @rule(token=IDS, user=NAMES, expires=TIMES)
    def add_session(self, token: str, user: str, expires: str) -> None:
        session = Session(user=user, created="2026-01-01T00:00:00+00:00", expires=expires, csrf=f"c-{token}")
        if token in self.sessions:  # a token's hash is unique: the second is refused
            assert _refused(lambda: self.store.add_session(token, session))
            return
        self.store.add_session(token, session)
        self.sessions[token] = session

    @rule(token=IDS)
    def delete_session(self, token: str) -> None:
        assert self.store.delete_session(token) == (self.sessions.pop(token, None) is not None)

    @rule(user=NAMES)
    def delete_sessions(self, user: str) -> None:
        theirs = [t for t, s in self.sessions.items() if s.user == user]
        assert self.store.delete_sessions(user) == len(theirs)
        for token in theirs:
            del self.sessions[token]

    @rule(moment=TIMES)
    def delete_expired_sessions(self, moment: str) -> None:
        expired = [t for t, s in self.sessions.items() if s.expires <= moment]
        assert self.store.delete_expired_sessions(moment) == len(expired)
        for token in expired:
            del self.sessions[token]

    @rule(name=NAMES, address=st.sampled_from(["10.0.0.1", "::1"]), now=TIMES, since=TIMES)
    def count_sign_in(self, name: str, address: str, now: str, since: str) -> None:
        known = self.attempts.get((name, address))  # a window starts again once `since` passed it
        expected = (1, now) if known is None or known[1] <= since else (known[0] + 1, known[1])
        assert self.store.count_sign_in(name, address, now, since) == expected
        self.attempts[(name, address)] = expected

    @rule(name=NAMES, address=st.sampled_from(["10.0.0.1", "::1"]))
    def uncount_sign_in(self, name: str, address: str) -> None:
        self.store.uncount_sign_in(name, address)
        attempts, started = self.attempts.get((name, address), (0, ""))
        if attempts > 0:
            self.attempts[(name, address)] = (attempts - 1, started)

    @rule(name=NAMES, address=st.sampled_from([None, "10.0.0.1"]))
    def forget_sign_ins(self, name: str, address: str | None) -> None:
        forgotten = [k for k in self.attempts if k[0] == name and address in (None, k[1])]
        assert self.store.forget_sign_ins(name, address) == len(forgotten)
        for key in forgotten:
            del self.attempts[key]

    @rule(since=TIMES)
    def forget_old_sign_ins(self, since: str) -> None:
        old = [k for k, (_, started) in self.attempts.items() if started <= since]
        assert self.store.forget_old_sign_ins(since) == len(old)
        for key in old:
            del self.attempts[key]

    @invariant()
    def logins_and_sessions_are_found(self) -> None:
        assert self.store.list_logins() == [self.logins[n][0] for n in sorted(self.logins)]
        for name in ("ana", "Bob", "bob", "émile", "zoë"):
            assert self.store.get_login(name) == self.logins.get(name)
        for token in ("a", "b", "c", "d"):
            assert self.store.get_session(token) == self.sessions.get(token)


class ServiceStateMachines:
    """One stateful property test per service role; needs a `fresh_store` fixture."""

    @pytest.mark.slow
    def test_keys_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(KeysMachine, fresh_store)

    @pytest.mark.slow
    def test_signals_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(SignalsMachine, fresh_store)

    @pytest.mark.slow
    def test_users_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(UsersMachine, fresh_store)

    @pytest.mark.slow
    def test_jobs_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(JobsMachine, fresh_store)

    @pytest.mark.slow
    def test_conversations_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(ConversationsMachine, fresh_store)

    @pytest.mark.slow
    def test_logins_sessions_and_sign_ins_follow_the_model(self, fresh_store: FreshStore) -> None:
        run(LoginsMachine, fresh_store)
