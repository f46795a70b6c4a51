"""Who may reach what: API keys made once and kept hashed, a bearer token checked against them,
a persona checked against the key's scope. A key is `shu_<id>_<secret>`; the store keeps the id
and the SHA-256 of the secret (the secret is random, 256 bits: a slow password hash adds
nothing), so a copied store gives no working key."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from shu.errors import ForbiddenError, InvalidRequestError, NotFoundError, UnauthorizedError
from shu.store.base import AccountStore
from shu.store.rows import now
from shu.types import ApiKey

_TOKEN = re.compile(r"^shu_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_USER = re.compile(r"^[\w.@+-]{1,100}$")


def create_key(
    store: AccountStore,
    user: str,
    personas: list[str],
    known: set[str],
    admin: bool = False,
    writes: list[str] | None = None,
) -> tuple[ApiKey, str]:
    """A new key for `user` reaching `personas` (none: every persona; each among the `known`
    ones) and changing the documents of `writes` (each one it reaches); the key and its token,
    which is shown once and never stored."""
    if not _USER.match(user):
        raise InvalidRequestError(f"user {user!r}: use 1–100 letters, digits or . @ + - _")
    writes = sorted(set(writes or []))
    unknown = sorted((set(personas) | set(writes)) - known)
    if unknown:
        raise NotFoundError(f"unknown persona(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    unreached = [p for p in writes if personas and p not in personas]
    if unreached:
        raise InvalidRequestError(
            f"--write {', '.join(unreached)}: the key does not reach it (add it to --personas)"
        )
    key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    key = ApiKey(
        id=key_id, user=user, personas=sorted(set(personas)), admin=admin, created=now(), writes=writes
    )
    store.add_key(key, _hash(secret))
    return key, f"shu_{key_id}_{secret}"


def authenticate(store: AccountStore, token: str | None) -> ApiKey:
    """The key a bearer token belongs to; 401 for none, a malformed, unknown or revoked one."""
    if not token:
        raise UnauthorizedError("this server needs a key: send `Authorization: Bearer shu_…`")
    match = _TOKEN.match(token.strip())
    found = store.get_key(match.group(1)) if match else None
    if match is None or found is None or not hmac.compare_digest(found[1], _hash(match.group(2))):
        raise UnauthorizedError("unknown key")
    key, _ = found
    if key.revoked:
        raise UnauthorizedError(f"key {key.id} was revoked")
    return key


def authorize(key: ApiKey | None, persona: str) -> None:
    """Refuse a persona outside the key's scope (no key: the server has none, all is open)."""
    if key is not None and not key.reaches(persona):
        raise ForbiddenError(f"key {key.id} ({key.user}) does not reach persona {persona!r}")


def authorize_write(key: ApiKey | None, persona: str) -> None:
    """Refuse changing a persona's documents (upload, delete, re-ingest) to a key without the
    write right on it: an admin key writes everywhere, any other only where `writes` says (no
    key: the server has none, all is open)."""
    authorize(key, persona)
    if key is not None and not key.may_write(persona):
        raise ForbiddenError(f"this key may not change persona {persona!r}")


def require_admin(key: ApiKey | None) -> None:
    if key is not None and not key.admin:
        raise ForbiddenError(f"key {key.id} ({key.user}) is not an admin key")


def reached_personas(key: ApiKey | None) -> list[str] | None:
    """The personas a key reaches; None for every persona (an unscoped key, or no keys at all)."""
    return (key.personas or None) if key is not None else None


UNLOCKING_FIELDS = ("emails",)
"""Profile fields that decide what learning reads as the user's own (an address names the mail
and meetings one took part in): set by an admin, never by the user's own key."""


def check_own_profile_fields(key: ApiKey | None, fields: dict[str, object]) -> None:
    """Refuse a non-admin key setting a field that would unlock documents (anyone could claim
    another person's address and learn their contacts)."""
    claimed = [f for f in UNLOCKING_FIELDS if f in fields]
    if key is not None and not key.admin and claimed:
        raise ForbiddenError(
            f"{', '.join(claimed)} can only be set by an admin (`shu users set {key.user} --email …`): "
            "an address decides whose mail and meetings learning reads"
        )


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
