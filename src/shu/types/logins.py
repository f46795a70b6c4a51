"""People who sign in to the web page with a name and a password: their login (never the
password; its argon2 hash is kept beside the record by the store, never in it) and their sessions
(the browser holds a random token; the store keeps only its hash)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Login(BaseModel):
    """A user who may sign in: which personas they may read and write (an admin reaches every
    persona), and the state of their lockout."""

    name: str
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)
    """Personas the user may change (upload, delete); each is read as well."""
    admin: bool = False
    locked: bool = False
    """Locked by an admin (`shu users lock`) until unlocked."""
    failures: int = 0
    """Wrong passwords in a row since the last good one."""
    locked_until: str = ""
    """After too many wrong passwords: no sign-in before this time (ISO, UTC)."""
    created: str = ""

    def personas(self) -> list[str]:
        """Every persona the user may read (what they write is read too)."""
        return sorted(set(self.reads) | set(self.writes))


class Session(BaseModel):
    """A signed-in browser: whose, until when, and the token every state-changing request of
    it must echo in `X-CSRF-Token`."""

    user: str
    created: str
    expires: str
    csrf: str
