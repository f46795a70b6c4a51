"""Who asks, kept beside the knowledge: API keys, users' profiles and the signals they leave.
`KnowledgeBase.accounts` is the way in; `keys` makes and checks keys, `profiles` learns a user's
contacts, projects and interests from the documents."""

from __future__ import annotations

import logging
import math
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shu.accounts.keys import authenticate, create_key
from shu.accounts.profiles import from_file, learn, unlearned, with_fields
from shu.errors import ConflictError, InvalidRequestError, NotFoundError
from shu.store.base import AccountStore, KnowledgeReader, LoginStore
from shu.store.known import known_document, known_persona
from shu.types import Answer, ApiKey, Document, Signal, UserProfile

log = logging.getLogger(__name__)

LEARNED_FIELDS = ("contacts", "projects", "interests", "work", "learned")
"""What learning writes of a profile (the rest is set by hand)."""
RELEARN_S = 300.0
"""A signal has a learning profile learned again when its last learning is this old (seconds)."""


class Accounts:
    """Keys, users and signals over the account store; `knowledge` is read to check the personas
    and documents they name and to learn profiles; `home` holds `users/<id>.yaml`."""

    def __init__(
        self,
        store: AccountStore,
        knowledge: KnowledgeReader,
        home: Path,
        relearn_s: float = RELEARN_S,
        logins: LoginStore | None = None,
    ) -> None:
        """`logins`: who signs in, with the personas each reads (what learning may read of them)."""
        self.logins = logins
        self._learning = threading.Lock()
        self.store = store
        self.knowledge = knowledge
        self.home = home
        self.relearn_s = relearn_s

    # -- keys -------------------------------------------------------------------------------

    def create_key(
        self,
        user: str,
        personas: list[str] | None = None,
        admin: bool = False,
        writes: list[str] | None = None,
    ) -> tuple[ApiKey, str]:
        """A key for the server: the key, and its token (shown once; only its hash is kept);
        `writes`: the personas whose documents it may change."""
        known = {p.slug for p in self.knowledge.list_personas()}
        return create_key(self.store, user, personas or [], known, admin, writes)

    def api_keys(self) -> list[ApiKey]:
        return self.store.list_keys()

    def revoke_key(self, key_id: str) -> ApiKey:
        found = self.store.get_key(key_id)
        if found is None:
            raise NotFoundError(f"unknown key {key_id!r} (`shu keys list` lists them)")
        if not self.store.revoke_key(key_id):
            raise ConflictError(f"key {key_id} is already revoked")
        return found[0].model_copy(update={"revoked": True})

    def auth_required(self) -> bool:
        """Whether the server asks for keys (once any key that is not revoked exists)."""
        return any(not key.revoked for key in self.store.list_keys())

    def authenticate(self, token: str | None) -> ApiKey:
        """The key a bearer token belongs to (UnauthorizedError for none, unknown, revoked)."""
        return authenticate(self.store, token)

    # -- signals ----------------------------------------------------------------------------

    def feedback(self, signal: Signal) -> Signal:
        """Keep what a user did with an answer or a document (for personalized retrieval); the
        document must be one of the signal's persona (another's is "not found"). A user whose
        profile is learning has it learned again (at most once every `relearn_s`)."""
        known_persona(self.knowledge, signal.persona)
        if signal.doc_id is not None:
            known_document(self.knowledge, signal.doc_id, signal.persona)
        stored = self.store.add_signal(signal)
        self._follow_signals(signal.user)
        return stored

    def used_in_answer(self, answer: Answer, user: str) -> None:
        """Each document an answer to `user` cites is a `used_in_answer` signal of theirs."""
        for doc_id in dict.fromkeys(c.doc_id for c in answer.citations):
            signal = Signal(
                user=user,
                persona=answer.persona,
                kind="used_in_answer",
                doc_id=doc_id,
                question=answer.question,
            )
            self.store.add_signal(signal)

    def signals(self, user: str, persona: str | None = None) -> list[Signal]:
        """One user's own signals, newest first."""
        return self.store.list_signals(user, persona)

    # -- users' profiles --------------------------------------------------------------------

    def users(self) -> list[str]:
        return self.store.list_users()

    def user(self, user_id: str) -> UserProfile:
        """A user's profile: what is stored, with `<home>/users/<id>.yaml` laid on top."""
        stored = self.store.get_user(user_id)
        fields = from_file(self.home, user_id)
        if stored is None and not fields:
            raise NotFoundError(f"unknown user {user_id!r} (`shu users set {user_id} …` makes a profile)")
        return with_fields(stored or UserProfile(id=user_id), fields)

    def set_user(self, user_id: str, fields: dict[str, Any]) -> UserProfile:
        """Create or change a user's profile by hand (name, emails, roles, projects, interests,
        contacts, preferences); learned items stay."""
        stored = self.store.get_user(user_id) or _new_profile(user_id)
        return self.store.save_user(with_fields(stored, fields))

    def follow(self) -> list[str]:
        """Learn again every stored profile that is learning (after an ingestion run changed the
        knowledge base); the users whose profile changed. The documents are listed once."""
        documents = self.knowledge.list_documents()
        changed = []
        for user_id in self.store.list_users():
            try:
                if self._relearn(user_id, documents):
                    changed.append(user_id)
            except Exception:  # one profile that cannot be learned stops no one else's
                log.exception("the profile of %s was not learned again", user_id)
        return changed

    def reach(self, user_id: str) -> list[str] | None:
        """The personas learning may read for a user: what their keys and sign-in reach (None:
        every persona — an unscoped or admin key or sign-in, or a user with neither, the
        machine's own)."""
        keys = [k for k in self.store.list_keys() if k.user == user_id and not k.revoked]
        found = self.logins.get_login(user_id) if self.logins is not None else None
        login = found[0] if found is not None else None
        if not keys and login is None:
            return None
        if any(k.admin or not k.personas for k in keys) or (login is not None and login.admin):
            return None
        reached = [p for k in keys for p in k.personas]
        if login is not None:
            reached += [*login.reads, *login.writes]
        return list(dict.fromkeys(reached))

    def _relearn(self, user_id: str, documents: list[Document] | None = None) -> bool:
        """Learn a learning profile again from what its user may read, and save only the learned
        part onto the profile as it is stored then (a pause or an edit made meanwhile stays);
        whether what was learned changed."""
        stored = self.store.get_user(user_id)
        if stored is None or not stored.learning:
            return False
        signals = self.store.list_signals(user_id)
        relearned = learn(self.knowledge, stored, signals, personas=self.reach(user_id), documents=documents)
        with self._learning:
            current = self.store.get_user(user_id)
            if current is None or not current.learning:
                return False
            self.store.save_user(
                current.model_copy(update={f: getattr(relearned, f) for f in LEARNED_FIELDS})
            )
        return _items(relearned) != _items(stored)

    def set_learning(self, user_id: str, on: bool) -> UserProfile:
        """Pause (False) or resume (True) learning for a user; resuming learns at once."""
        profile = self.store.get_user(user_id)
        if profile is None:
            raise NotFoundError(f"unknown user {user_id!r} (`shu users list` lists them)")
        saved = self.store.save_user(profile.model_copy(update={"learning": on}))
        if on:
            self._relearn(user_id)
            return self.user(user_id)
        return saved

    def reset_learning(self, user_id: str) -> UserProfile:
        """Drop what was learned about a user (what was set by hand stays); learning goes on
        from the next ingestion unless it is paused."""
        profile = self.store.get_user(user_id)
        if profile is None:
            raise NotFoundError(f"unknown user {user_id!r} (`shu users list` lists them)")
        return self.store.save_user(unlearned(profile))

    def _follow_signals(self, user_id: str) -> None:
        profile = self.store.get_user(user_id)
        if profile is None or not profile.learning or not profile.learned:
            return  # no profile learned yet: signals alone make none (the user asks for one)
        if _seconds_since(profile.learned) >= self.relearn_s:
            self._relearn(user_id)

    def learn_user(self, user_id: str, personas: list[str] | None = None) -> UserProfile:
        """Learn a user's contacts, projects and interests again from the knowledge base and the
        user's own signals; with `personas`, from those personas' documents only (what the
        asking key reaches), else from every persona."""
        profile = self.user(user_id)
        signals = self.store.list_signals(user_id)
        return self.store.save_user(learn(self.knowledge, profile, signals, personas=personas))

    def export_user(self, user_id: str) -> dict[str, Any]:
        """Everything kept about a user: profile, signals, keys (never a secret)."""
        profile = self.store.get_user(user_id)
        return {
            "profile": profile.model_dump() if profile else None,
            "signals": [s.model_dump() for s in self.store.list_signals(user_id)],
            "keys": [k.model_dump() for k in self.store.list_keys() if k.user == user_id],
        }

    def forget_user(self, user_id: str) -> dict[str, int]:
        """Delete everything about a user: profile, signals and keys; how much there was."""
        return {
            "profile": int(self.store.delete_user(user_id)),
            "signals": self.store.forget_signals(user_id),
            "keys": self.store.delete_keys(user_id),
        }


def _new_profile(user_id: str) -> UserProfile:
    try:
        return UserProfile(id=user_id)
    except ValueError as exc:
        raise InvalidRequestError(f"user {user_id!r}: use 1–100 letters, digits or . @ + - _") from exc


def _items(profile: UserProfile) -> list[object]:
    """What learning decides about a profile (not when)."""
    return [
        [c.model_dump(exclude={"updated"}) for c in profile.contacts],
        [i.model_dump(exclude={"updated"}) for i in profile.projects],
        [i.model_dump(exclude={"updated"}) for i in profile.interests],
        profile.work.model_dump(exclude={"updated"}),
    ]


def _seconds_since(stamp: str) -> float:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return math.inf
    return (datetime.now(UTC) - moment).total_seconds()
