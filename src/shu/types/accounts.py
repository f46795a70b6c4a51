"""Who asks: API keys, users' profiles and contacts, and the signals they leave."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ApiKey(BaseModel):
    """A key of the server: whose it is and which personas it reaches (none listed: all). The
    secret is shown once when the key is made and stored only as a hash."""

    id: str
    user: str
    personas: list[str] = Field(default_factory=list)
    admin: bool = False
    created: str = ""
    revoked: bool = False
    writes: list[str] = Field(default_factory=list)
    """Personas whose documents it may upload, delete and re-ingest (an admin key: every one)."""

    def reaches(self, persona: str) -> bool:
        return not self.personas or persona in self.personas

    def may_write(self, persona: str) -> bool:
        return self.admin or (persona in self.writes and self.reaches(persona))


SignalKind = Literal["up", "down", "star", "unstar", "opened", "used_in_answer", "escalated"]


class Signal(BaseModel):
    """Something a user did with an answer or a document (thumbs, star, opened…), kept with its
    time for the personalization of retrieval; a user's signals are seen by that user only."""

    id: int | None = None
    user: str = ""
    """Who (the key's user; "" on a server without keys, or from the local CLI)."""
    persona: str
    kind: SignalKind
    doc_id: str | None = None
    question: str = ""
    answer: str = ""
    created: str = ""


class ProfileItem(BaseModel):
    """A project or interest of a user, with where it came from (set by hand, or learned from
    e-mail, meetings, frontmatter, entities or the user's signals) and when."""

    value: str
    weight: float = Field(1.0, ge=0.0, le=1.0)
    source: str = "set"
    updated: str = ""


class Contact(BaseModel):
    """Someone the user works with: how close (affinity in [0, 1]), how recently, how mutual."""

    name: str = ""
    email: str | None = None
    affinity: float = Field(0.5, ge=0.0, le=1.0)
    recency: str | None = None
    """The day of the last message or meeting between them (ISO)."""
    reciprocity: float | None = Field(None, ge=0.0, le=1.0)
    """1 when both write to each other as often, 0 when only one does."""
    interactions: int = 0
    source: str = "set"
    updated: str = ""


class Absence(BaseModel):
    """A stretch of days the user was away (leave, travel, out of office), learned from their
    calendar or an automatic reply, with the document that says so."""

    start: str
    """the first day away (ISO)"""
    end: str
    """the last day away (ISO)"""
    reason: str = ""
    doc_id: str = ""


class WorkPattern(BaseModel):
    """When the user works: the hours their own messages and meetings fall in, the weekdays, and
    the days they were away."""

    hours: tuple[int, int] | None = None
    """the first and last hour of their working day (0–23, local to each message), None when
    fewer than five timed messages or meetings of theirs are known"""
    weekdays: list[int] = Field(default_factory=list)
    """the days they work, Monday 0 … Sunday 6 (empty: not known)"""
    absences: list[Absence] = Field(default_factory=list)
    updated: str = ""


class UserProfile(BaseModel):
    """Who is asking: kept in the user's store only, seen by that user only."""

    id: str = Field(min_length=1, max_length=100, pattern=r"^[\w.@+-]+$")
    name: str = ""
    emails: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=list)
    contacts: list[Contact] = Field(default_factory=list)
    projects: list[ProfileItem] = Field(default_factory=list)
    interests: list[ProfileItem] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)
    """`detail`: "detail" or "summary"."""
    work: WorkPattern = Field(default_factory=WorkPattern)
    """Learned: working hours and days, absences."""
    learning: bool = True
    """Learned items follow the knowledge base (each ingestion run, the user's signals); an admin
    pauses it (`shu users learning U off`): what was learned stays as it is."""
    learned: str = ""
    """When the learned items were last made again (ISO); each item's `updated` is when it last
    changed."""
    updated: str = ""
