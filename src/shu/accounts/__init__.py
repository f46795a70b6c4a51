"""Who asks, kept beside the knowledge: API keys, users' profiles and the signals they leave.
`KnowledgeBase.accounts` is the way in; `keys` makes and checks keys, `profiles` learns a user's
contacts, projects and interests from the documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shu.accounts.keys import authenticate, create_key
from shu.accounts.profiles import from_file, learn, with_fields
from shu.errors import ConflictError, InvalidRequestError, NotFoundError
from shu.store.base import AccountStore, KnowledgeReader
from shu.store.known import known_document, known_persona
from shu.types import Answer, ApiKey, Signal, UserProfile


class Accounts:
    """Keys, users and signals over the account store; `knowledge` is read to check the personas
    and documents they name and to learn profiles; `home` holds `users/<id>.yaml`."""

    def __init__(self, store: AccountStore, knowledge: KnowledgeReader, home: Path) -> None:
        self.store = store
        self.knowledge = knowledge
        self.home = home

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
        document must be one of the signal's persona (another's is "not found")."""
        known_persona(self.knowledge, signal.persona)
        if signal.doc_id is not None:
            known_document(self.knowledge, signal.doc_id, signal.persona)
        return self.store.add_signal(signal)

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
