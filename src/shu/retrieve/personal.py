"""RELATIONAL-BOOST (spec §3.4, §4.3 step 6): the same question ranked for the person asking.
A document gains when it involves the asker's high-affinity contacts, belongs to one of their
projects, matches their interests, is one they wrote or received, or one they used before. Each
boost is bounded, the total is capped (`max_boost`), the best unboosted results keep a share of
the places (`unboosted_share`, the filter-bubble guard of §8.4), and every boost is in the trace
with its reason. A profile whose learned items are old weighs less (§6.4)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from shu.config.settings import PersonalSettings
from shu.store.base import Store
from shu.types import Document, PersonalBoost, Signal, UserProfile

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
    )


def personal_boost(
    fused: list[tuple[str, float]], asker: Asker, store: Store, settings: PersonalSettings, question: str
) -> tuple[list[tuple[str, float]], list[PersonalBoost]]:
    """`fused` reordered for the asker, with the boosts given (document, size, reasons)."""
    head = fused[: settings.depth]
    owners = store.chunk_documents([chunk_id for chunk_id, _ in head])
    docs = store.get_documents(list(set(owners.values())))
    named = _named_contacts(question, asker)
    boosts: dict[str, PersonalBoost] = {}
    for doc_id, doc in docs.items():
        about = _about(store, doc_id) if asker.interests else ""
        boost = _boost(doc, asker, settings, named, about)
        if boost is not None:
            boosts[doc_id] = boost
    if not boosts:
        return fused, []
    raised = {c: boosts[d].boost for c, d in owners.items() if d in boosts}
    rescored = [(c, s * (1.0 + raised.get(c, 0.0))) for c, s in head]
    rescored.sort(key=lambda pair: pair[1], reverse=True)
    guarded = _guarded(rescored, head, settings.unboosted_share, settings.guard_places)
    return guarded + fused[settings.depth :], sorted(boosts.values(), key=lambda b: -b.boost)


def _about(store: Store, doc_id: str) -> str:
    """What a document's profile says it is about (synopsis, manifest), for matching interests."""
    profile = store.get_profile(doc_id)
    if profile is None:
        return ""
    return _words(" ".join([profile.synopsis, *profile.manifest.answers_questions_about]))


def _boost(
    doc: Document, asker: Asker, settings: PersonalSettings, named: set[str], about: str = ""
) -> PersonalBoost | None:
    reasons: list[str] = []
    total = 0.0
    people = _people(doc)
    close = [
        (asker.contacts[key][0], asker.contacts[key][1] * (2.0 if key in named else 1.0))
        for key in people
        if key in asker.contacts
    ]
    if close:
        name, affinity = max(close, key=lambda pair: pair[1])
        part = settings.contact * min(affinity, 1.0)
        total += part
        reasons.append(f"contact {name} (affinity {affinity:.2f}) +{part:.2f}")
    if asker.emails & people:
        total += settings.own
        reasons.append(f"you wrote or received it +{settings.own:.2f}")
    declared = [str(doc.meta.get("project", "")), *_as_strings(doc.meta.get("projects"))]
    text = _words(" ".join([doc.title, doc.summary or "", *doc.tags, *declared]))
    kinds = (
        ("project", asker.projects, settings.project, text),
        ("interest", asker.interests, settings.interest, f"{text} {about}"),
    )
    for label, items, weight, where in kinds:
        matched = [(value, w) for value, w in items if _contains(where, value)]
        if matched:
            value, w = max(matched, key=lambda pair: pair[1])
            part = weight * w
            total += part
            reasons.append(f"{label} {value} +{part:.2f}")
    used = asker.familiar.get(doc.id, 0.0)
    if used:
        part = settings.familiar * used
        total += part
        how = "you used it before" if used > 0 else "you marked it unhelpful"
        reasons.append(f"{how} {part:+.2f}")
    if not reasons:
        return None
    capped = max(-settings.max_boost, min(settings.max_boost, total * asker.freshness))
    if capped != total:
        why = f"capped at {capped:+.2f}" if asker.freshness == 1.0 else f"profile age ×{asker.freshness:.2f}"
        reasons.append(why)
    return PersonalBoost(doc_id=doc.id, boost=round(capped, 4), reasons=reasons)


def _guarded(
    rescored: list[tuple[str, float]], original: list[tuple[str, float]], share: float, places: int
) -> list[tuple[str, float]]:
    """The boosted order, except that the best `share` of the first `places` unboosted results
    keep a place among the first `places` (boosts reorder, they do not push everything else out)."""
    keep = {c for c, _ in original[: math.ceil(share * places)]}
    top = rescored[:places]
    missing = [pair for pair in rescored[places:] if pair[0] in keep]
    if not missing:
        return rescored
    removable = [i for i in range(len(top) - 1, -1, -1) if top[i][0] not in keep][: len(missing)]
    for index, pair in zip(removable, missing, strict=False):
        top[index] = pair
    rest = [pair for pair in rescored if pair not in top]
    return sorted(top, key=lambda pair: pair[1], reverse=True) + rest


def _named_contacts(question: str, asker: Asker) -> set[str]:
    """Contacts the question names with a capital ("John", "Sarah Chen"): their documents count
    double ("a grace period" names nobody called Grace)."""
    words = {w.lower() for w in re.findall(r"\b[A-Z]\w+", question)}
    return {
        key
        for key, (name, _) in asker.contacts.items()
        if "@" not in key and name and set(_words(name).split()) & words
    }


def _as_strings(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value else []


def _people(doc: Document) -> set[str]:
    found: set[str] = set()
    given = doc.meta.get("participants")
    for person in given if isinstance(given, list) else []:
        if isinstance(person, dict):
            found |= {str(person[k]).lower() for k in ("email", "name") if person.get(k)}
    return found


def _contains(text: str, value: str) -> bool:
    phrase = _words(value)
    return bool(phrase) and f" {phrase} " in f" {text} "


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _aged(source: str, freshness: float) -> float:
    return 1.0 if source == "set" else freshness


def _freshness(updated: str, moment: datetime) -> float:
    if not updated:
        return 1.0
    age = (moment - datetime.fromisoformat(updated)).days
    return round(0.5 ** (max(age, 0) / PROFILE_HALF_LIFE_DAYS), 3)
