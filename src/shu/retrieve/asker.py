"""What retrieval knows of the person asking, built from their profile and signals: contacts
with affinity (learned ones weighing less as the profile ages), projects, interests, role
families, how much they used each document (decayed signals), and the day it is for them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from shu.roles import families_of
from shu.types import Absence, Detail, Signal, UserProfile

SIGNAL_HALF_LIFE_DAYS = 30.0
PROFILE_HALF_LIFE_DAYS = 90.0
_FAMILIAR = {"star": 1.0, "up": 0.8, "used_in_answer": 0.5, "opened": 0.5, "escalated": 0.3, "down": -0.5}


@dataclass(frozen=True)
class Asker:
    """What retrieval knows of the person asking (built from their profile and signals)."""

    user: str
    emails: frozenset[str]
    contacts: dict[str, tuple[str, float]]
    """e-mail or lower-case name → (shown name, affinity × freshness)"""
    projects: list[tuple[str, float]] = field(default_factory=list)
    interests: list[tuple[str, float]] = field(default_factory=list)
    familiar: dict[str, float] = field(default_factory=dict)
    """doc id → how much the asker used it (decayed signals; negative for thumbs down)"""
    freshness: float = 1.0
    roles: tuple[str, ...] = ()
    """the role families of the asker's roles (`shu.roles`)"""
    name: str = ""
    absences: tuple[Absence, ...] = ()
    """the days the asker was away (learned: out of office, leave, automatic replies)"""
    hours: tuple[int, int] | None = None
    """the asker's working hours (learned from their messages' and meetings' times)"""
    detail: Detail | None = None
    """`preferences.detail`: a short answer (summary) or every fact (detail)"""
    today: date = field(default_factory=lambda: datetime.now(UTC).date())


def asker_of(profile: UserProfile, signals: list[Signal], now: datetime | None = None) -> Asker:
    moment = now or datetime.now(UTC)
    learned = any(c.source != "set" for c in profile.contacts)
    freshness = _freshness(profile.updated, moment) if learned else 1.0
    contacts: dict[str, tuple[str, float]] = {}
    for contact in profile.contacts:
        weight = contact.affinity * (1.0 if contact.source == "set" else freshness)
        for key in filter(None, (contact.email and contact.email.lower(), contact.name.lower())):
            contacts[key] = (contact.name or contact.email or key, weight)
    familiar: dict[str, float] = {}
    for signal in signals:
        if signal.doc_id and signal.kind in _FAMILIAR:
            age = (moment - datetime.fromisoformat(signal.created)).days if signal.created else 0
            familiar[signal.doc_id] = familiar.get(signal.doc_id, 0.0) + _FAMILIAR[signal.kind] * 0.5 ** (
                max(age, 0) / SIGNAL_HALF_LIFE_DAYS
            )
    return Asker(
        user=profile.id,
        emails=frozenset(e.lower() for e in profile.emails),
        contacts=contacts,
        projects=[(p.value, p.weight) for p in profile.projects],
        interests=[(i.value, i.weight * _aged(i.source, freshness)) for i in profile.interests],
        familiar={d: max(-1.0, min(1.0, v)) for d, v in familiar.items()},
        freshness=freshness,
        roles=tuple(dict.fromkeys(f for role in profile.roles for f in families_of(role))),
        name=profile.name or profile.id,
        detail=_detail(profile.preferences.get("detail")),
        absences=tuple(profile.work.absences),
        hours=profile.work.hours,
        today=moment.date(),
    )


def _aged(source: str, freshness: float) -> float:
    return 1.0 if source == "set" else freshness


def _freshness(updated: str, moment: datetime) -> float:
    if not updated:
        return 1.0
    age = (moment - datetime.fromisoformat(updated)).days
    decay: float = 0.5 ** (max(age, 0) / PROFILE_HALF_LIFE_DAYS)  # typeshed: float ** float is Any
    return round(decay, 3)


def _detail(preferred: str | None) -> Detail | None:
    if preferred == "summary":
        return "summary"
    if preferred == "detail":
        return "detail"
    return None
