"""Who is asking: a user's profile, set by hand (`shu users set`, `<home>/users/<id>.yaml`, the
HTTP API) and learned from the knowledge base — contacts and their affinity from e-mail traffic
and meeting participants (how often, how recently, how mutual), projects from the frontmatter
and entities of the documents the user takes part in, interests from the documents the user
opens and stars. Each learned item says where it came from and when; what was set by hand is
never overwritten by learning."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml

from shu.accounts.work import work_pattern
from shu.errors import InvalidRequestError
from shu.months import MONTHS
from shu.store.base import KnowledgeReader
from shu.store.rows import now
from shu.types import Contact, Document, DocumentProfile, ProfileItem, Signal, UserProfile, WorkPattern

CONTACT_SCALE = 4.0
"""Interactions at which affinity reaches 1 − 1/e ≈ 0.63 (saturating: 12 give 0.95)."""
CONTACT_HALF_LIFE_DAYS = 180.0
SIGNAL_HALF_LIFE_DAYS = 30.0
SIGNAL_WEIGHTS = {"star": 1.0, "up": 0.8, "used_in_answer": 0.5, "opened": 0.4, "escalated": 0.3}
MAX_LEARNED = 20
MEETING_TYPES = ("meeting", "meeting_notes")


@dataclass
class _Traffic:
    sent: int = 0
    received: int = 0
    meetings: int = 0
    name: str = ""
    last: date | None = None
    documents: set[str] = field(default_factory=set)


def learn(
    store: KnowledgeReader,
    profile: UserProfile,
    signals: list[Signal],
    today: date | None = None,
    personas: list[str] | None = None,
    documents: list[Document] | None = None,
) -> UserProfile:
    """`profile` with its learned contacts, projects and interests made again from the store and
    the user's signals; items set by hand are kept as they are, and a learned item that did not
    change keeps the time it last changed. With `personas`, only their documents and signals are
    read (what the asking key reaches); None reads every persona. `documents`: the store's
    documents, when the caller has listed them already (learning several users at once)."""
    listed = store.list_documents() if documents is None else documents
    documents = [d for d in listed if _reached(d.personas, personas)]
    signals = [s for s in signals if _reached([s.persona], personas)]
    days = [_day(d.date) for d in documents]
    newest = max((day for day in days if day), default=None)
    reference = today or newest or datetime.now(UTC).date()
    addresses = {e.lower() for e in profile.emails} | ({profile.id.lower()} if "@" in profile.id else set())
    traffic: dict[str, _Traffic] = {}
    own: list[Document] = []
    for document in documents:
        people = _participants(document)
        if not any(p.get("email", "").lower() in addresses for p in people):
            continue
        own.append(document)
        _count(traffic, document, people, addresses)
    stamp = now()
    contacts = [c for c in profile.contacts if c.source == "set"]
    set_names = {(c.email or c.name).lower() for c in contacts}
    contacts += [c for c in _contacts(traffic, reference, stamp) if c.email not in set_names][:MAX_LEARNED]
    profiles = store.get_profiles([d.id for d in own])
    projects = _kept(profile.projects) + _projects(own, profiles, stamp)
    interests = _kept(profile.interests) + _interests(store, signals, stamp, reference)
    work = work_pattern(own, addresses, lambda d: "\n".join(c.text for c in store.list_chunks(d.id)))
    work = work.model_copy(
        update={
            "updated": stamp
            if work.model_dump(exclude={"updated"}) != profile.work.model_dump(exclude={"updated"})
            else profile.work.updated
        }
    )
    return profile.model_copy(
        update={
            "contacts": _since(contacts, profile.contacts),
            "projects": _since(_unique(projects), profile.projects),
            "interests": _since(_unique(interests), profile.interests),
            "work": work,
            "learned": stamp,
        }
    )


def unlearned(profile: UserProfile) -> UserProfile:
    """`profile` with every learned item dropped (what was set by hand stays): a reset."""
    return profile.model_copy(
        update={
            "contacts": [c for c in profile.contacts if c.source == "set"],
            "projects": _kept(profile.projects),
            "interests": _kept(profile.interests),
            "work": WorkPattern(),
            "learned": "",
        }
    )


Item = TypeVar("Item", Contact, ProfileItem)


def _since(made: list[Item], before: list[Item]) -> list[Item]:
    """The items just made, each unchanged one with the time it last changed (not now)."""
    earlier = {_key(item): item for item in before}
    kept = []
    for item in made:
        old = earlier.get(_key(item))
        same = old is not None and old.model_dump(exclude={"updated"}) == item.model_dump(exclude={"updated"})
        kept.append(item.model_copy(update={"updated": old.updated}) if same and old is not None else item)
    return kept


def _key(item: Contact | ProfileItem) -> str:
    if isinstance(item, Contact):
        return f"{item.source}|{(item.email or item.name).lower()}"
    return f"{item.source}|{item.value.lower()}"


def _count(
    traffic: dict[str, _Traffic], document: Document, people: list[dict[str, str]], me: set[str]
) -> None:
    day = _day(document.date)
    authored = any(p.get("role") == "author" and p.get("email", "").lower() in me for p in people)
    for person in people:
        email = person.get("email", "").lower()
        if not email or email in me:
            continue
        seen = traffic.setdefault(email, _Traffic())
        seen.name = seen.name or person.get("name", "")
        seen.documents.add(document.id)
        if document.type in MEETING_TYPES:
            seen.meetings += 1
        elif authored:
            seen.sent += 1
        elif person.get("role") == "author":
            seen.received += 1
        else:
            continue  # another recipient of a message the user received: no exchange with them
        if day and (seen.last is None or day > seen.last):
            seen.last = day


def _contacts(traffic: dict[str, _Traffic], reference: date, stamp: str) -> list[Contact]:
    found = []
    for email, seen in traffic.items():
        interactions = seen.sent + seen.received + seen.meetings
        if not interactions:
            continue
        age = (reference - seen.last).days if seen.last else CONTACT_HALF_LIFE_DAYS
        decay = 0.5 ** (max(age, 0) / CONTACT_HALF_LIFE_DAYS)
        affinity = (1 - math.exp(-interactions / CONTACT_SCALE)) * decay
        both = seen.sent + seen.received
        reciprocity = min(seen.sent, seen.received) / max(seen.sent, seen.received) if both else None
        found.append(
            Contact(
                name=seen.name,
                email=email,
                affinity=round(affinity, 3),
                recency=seen.last.isoformat() if seen.last else None,
                reciprocity=round(reciprocity, 3) if reciprocity is not None else None,
                interactions=interactions,
                source="meetings"
                if seen.meetings and not both
                else "email"
                if not seen.meetings
                else "email+meetings",
                updated=stamp,
            )
        )
    return sorted(found, key=lambda c: (-c.affinity, c.email or ""))


def _projects(own: list[Document], profiles: dict[str, DocumentProfile], stamp: str) -> list[ProfileItem]:
    declared: Counter[str] = Counter()
    named: Counter[str] = Counter()
    for document in own:
        for value in _as_list(document.meta.get("project")) + _as_list(document.meta.get("projects")):
            declared[value] += 1
        profile = profiles.get(document.id)
        for value in profile.projects if profile else []:
            declared[value] += 1
        people = {p.get("name", "").lower() for p in _participants(document)}
        for entity in profile.entities if profile else []:
            if (
                entity.kind == "organization"
                and len(entity.name.split()) >= 2
                and entity.name.lower() not in people
            ):
                named[entity.name] += 1
    most = max(declared.values(), default=1)  # one's main project 1.0, one met once much less
    items = [
        ProfileItem(value=v, weight=round(n / most, 3), source="frontmatter", updated=stamp)
        for v, n in declared.most_common()
    ]
    top = max(named.values(), default=1)
    items += [
        ProfileItem(value=v, weight=round(0.5 * n / top, 3), source="entities", updated=stamp)
        for v, n in named.most_common(MAX_LEARNED)
        if n >= 2 and v not in declared
    ]
    return items[:MAX_LEARNED]


def _interests(
    store: KnowledgeReader, signals: list[Signal], stamp: str, reference: date
) -> list[ProfileItem]:
    weights: Counter[str] = Counter()
    today = datetime(reference.year, reference.month, reference.day, tzinfo=UTC)
    for signal in signals:
        if signal.kind not in SIGNAL_WEIGHTS or signal.doc_id is None:
            continue
        age = (today - datetime.fromisoformat(signal.created)).days if signal.created else 0
        weight = SIGNAL_WEIGHTS[signal.kind] * 0.5 ** (max(age, 0) / SIGNAL_HALF_LIFE_DAYS)
        profile = store.get_profile(signal.doc_id)
        topics = (
            [t for t in profile.manifest.answers_questions_about if _topical(t, profile)] if profile else []
        )
        for topic in topics[:3]:
            weights[topic] += weight
    top = max(weights.values(), default=1.0)
    return [
        ProfileItem(value=topic, weight=round(w / top, 3), source="signals", updated=stamp)
        for topic, w in weights.most_common(MAX_LEARNED)
    ]


_CALENDAR_WORDS = frozenset(MONTHS) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday week month "
    "year".split()
)


def _topical(phrase: str, profile: DocumentProfile) -> bool:
    """A keyphrase that can be an interest: not a date word ("October") and not the name of a
    person the document involves ("Grace", "John Smith")."""
    words = phrase.casefold().split()
    if all(w in _CALENDAR_WORDS or w.isdigit() for w in words):
        return False
    people = [e.name for e in profile.entities if e.kind == "person"] + [p.name for p in profile.participants]
    names = {part for person in people for part in person.casefold().split()}
    return not set(words) <= names


def from_file(home: Path, user_id: str) -> dict[str, Any]:
    """The hand-set fields of `<home>/users/<id>.yaml` (empty when there is none)."""
    path = home / "users" / f"{user_id}.yaml"
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidRequestError(f"{path}: not a readable profile ({exc.__class__.__name__})") from exc
    if not isinstance(data, dict):
        raise InvalidRequestError(f"{path}: a profile is a YAML mapping")
    return data


def with_fields(profile: UserProfile, fields: dict[str, Any]) -> UserProfile:
    """`profile` with hand-set fields laid on top (lists of names become items set by hand)."""
    update: dict[str, Any] = {}
    for key in ("name", "emails", "roles", "preferences"):
        if key in fields:
            update[key] = fields[key]
    stamp = now()
    for key in ("projects", "interests"):
        if key in fields:
            given = [ProfileItem(value=str(v), source="set", updated=stamp) for v in _as_list(fields[key])]
            update[key] = given + [i for i in getattr(profile, key) if i.source != "set"]
    if "contacts" in fields:
        contacts = [_contact(c, stamp) for c in fields["contacts"] or []]
        update["contacts"] = contacts + [c for c in profile.contacts if c.source != "set"]
    try:
        return UserProfile.model_validate(profile.model_dump() | update)
    except ValueError as exc:
        raise InvalidRequestError(f"invalid profile: {exc}") from exc


def _contact(value: Any, stamp: str) -> Contact:
    if isinstance(value, dict):
        return Contact.model_validate({"affinity": 0.8} | value | {"source": "set", "updated": stamp})
    text = str(value)
    name, _, rest = text.partition("<")
    email = rest.rstrip(">").strip() or (text.strip() if "@" in text else None)
    return Contact(name=name.strip() if rest else ("" if email else text.strip()), email=email, affinity=0.8,
                   source="set", updated=stamp)  # fmt: skip


def _kept(items: list[ProfileItem]) -> list[ProfileItem]:
    return [i for i in items if i.source == "set"]


def _unique(items: list[ProfileItem]) -> list[ProfileItem]:
    seen: dict[str, ProfileItem] = {}
    for item in items:
        seen.setdefault(item.value.lower(), item)
    return list(seen.values())


def _reached(owners: list[str], personas: list[str] | None) -> bool:
    return personas is None or any(p in personas for p in owners)


def _participants(document: Document) -> list[dict[str, str]]:
    given = document.meta.get("participants")
    if not isinstance(given, list):
        return []
    return [{k: str(v) for k, v in p.items() if v is not None} for p in given if isinstance(p, dict)]


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value if str(v).strip()] if isinstance(value, list) else []


def _day(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None
