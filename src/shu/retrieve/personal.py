"""RELATIONAL-BOOST (docs/design/personalization.md): the same question ranked for the person asking.
A document gains when it involves the asker's close contacts, belongs to one of their projects
(by the strength of its link), matches their interests, is one they wrote or received or used
before, matters to their role, is fresh for its kind, or has a due date coming up. Each boost is
bounded, their sum is squashed below `max_boost`, the whole is scaled down when the question has
a clear answer without the asker, the best unboosted results keep a share of the places
(`unboosted_share`; the filter-bubble guard), and every boost is in the trace with its
reason."""

from __future__ import annotations

import math
from datetime import datetime

from shu.config.settings import PersonalSettings
from shu.retrieve.asker import Asker
from shu.retrieve.candidates import Candidates, StageContext
from shu.retrieve.profile_match import OWN_WORDS, contains, phrase_words, resolve
from shu.store.base import KnowledgeReader
from shu.text import as_strings, iso_date
from shu.types import Document, DocumentProfile, PersonalBoost, ProfileMatch, RelationalContext


class PersonalBoosts:
    """The stage: the list reordered for the asker, the boosts and the resolved references kept."""

    name = "personal"

    def __init__(self, store: KnowledgeReader, settings: PersonalSettings) -> None:
        self.store = store
        self.settings = settings

    def applies(self, context: StageContext) -> bool:
        return context.asker is not None and self.settings.enabled

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        if context.asker is None:  # not applied without one
            return candidates
        ranked, boosts, resolved = personal_boost(
            candidates.ranked, context.asker, self.store, self.settings, context.question
        )
        return candidates.but(ranked=ranked, boosts=boosts, resolved=resolved)


def personal_boost(
    fused: list[tuple[str, float]],
    asker: Asker,
    store: KnowledgeReader,
    settings: PersonalSettings,
    question: str,
) -> tuple[list[tuple[str, float]], list[PersonalBoost], list[ProfileMatch]]:
    """`fused` reordered for the asker, with the boosts given (document, size, reasons) and the
    question's references resolved against the profile (PROFILE-MATCH)."""
    head = fused[: settings.depth]
    owners = store.chunk_documents([chunk_id for chunk_id, _ in head])
    docs = store.get_documents(list(set(owners.values())))
    found = store.get_profiles(list(docs))
    profiles = {doc_id: found.get(doc_id) for doc_id in docs}
    resolved = resolve(question, asker, docs, profiles)
    scale, why = _ambiguity(head, owners, settings)
    boosts: dict[str, PersonalBoost] = {}
    for doc_id, doc in docs.items():
        boost = _boost(doc, profiles[doc_id], asker, settings, resolved, scale, why)
        if boost is not None:
            boosts[doc_id] = boost
    if not boosts:
        return fused, [], resolved
    raised = {c: boosts[d].boost for c, d in owners.items() if d in boosts}
    rescored = [(c, s * (1.0 + raised.get(c, 0.0))) for c, s in head]
    rescored.sort(key=lambda pair: pair[1], reverse=True)
    guarded = _guarded(rescored, head, settings.unboosted_share, settings.guard_places)
    return guarded + fused[settings.depth :], sorted(boosts.values(), key=lambda b: -b.boost), resolved


def _boost(
    doc: Document,
    profile: DocumentProfile | None,
    asker: Asker,
    settings: PersonalSettings,
    resolved: list[ProfileMatch],
    scale: float = 1.0,
    why: str = "",
) -> PersonalBoost | None:
    relational = profile.relational if profile else RelationalContext()
    about = _about(profile) if asker.interests else ""
    named = {m.phrase for m in resolved if m.kind == "contact"}
    projects = [m.means for m in resolved if m.kind == "project"]
    meant = any(m.doc_id == doc.id for m in resolved)
    parts = [
        _contact_part(doc, asker, settings, named),
        _own_part(
            doc, asker, settings, any(m.kind == "asker" and OWN_WORDS.search(m.phrase) for m in resolved)
        ),
        _project_part(doc, relational, asker, settings, projects, meant),
        _interest_part(doc, about, asker, settings),
        _role_part(relational, asker, settings),
        _familiar_part(doc, asker, settings),
        _fresh_part(doc, relational, asker, settings),
        _deadline_part(relational, asker, settings),
        _away_part(doc, asker, settings),
    ]
    given = [part for part in parts if part is not None]
    if not given:
        return None
    total = sum(size for size, _ in given)
    reasons = [reason for _, reason in given]
    aged = total * asker.freshness
    if asker.freshness != 1.0:
        reasons.append(f"profile age ×{asker.freshness:.2f}")
    bounded = _bounded(aged, settings.max_boost)
    if abs(bounded - aged) >= 0.005:
        reasons.append(f"{aged:+.2f} bounded to {bounded:+.2f} (at most {settings.max_boost:g})")
    if scale < 1.0:
        reasons.append(why)
        bounded *= scale
    return PersonalBoost(doc_id=doc.id, boost=round(bounded, 4), reasons=reasons)


def _ambiguity(
    head: list[tuple[str, float]], owners: dict[str, str], settings: PersonalSettings
) -> tuple[float, str]:
    """How much room the question leaves for the asker: boosts count fully when the first two
    documents score alike (the question could mean either: "the proposal"), not at all when the
    first leads clearly ("What discount did Acme ask for?"), linearly in between; the filter-
    bubble guard (docs/design/personalization.md#bounds) for questions that need no one's context."""
    best: dict[str, float] = {}
    for chunk_id, score in head:
        doc_id = owners.get(chunk_id)
        if doc_id is not None and score > best.get(doc_id, 0.0):
            best[doc_id] = score
    top = sorted(best.values(), reverse=True)[:2]
    if len(top) < 2 or top[0] <= 0:
        return 1.0, ""
    ratio = top[1] / top[0]
    clear, ambiguous = settings.clear_at, max(settings.ambiguous_at, settings.clear_at + 1e-6)
    scale = min(1.0, max(0.0, (ratio - clear) / (ambiguous - clear)))
    return scale, f"the first result leads (second scores {ratio:.2f} of it): boosts ×{scale:.2f}"


def _bounded(total: float, most: float) -> float:
    """The boost squashed into (-most, most), keeping its order: a document with more reasons
    stays above one with fewer however many there are (a hard cap would tie them)."""
    if most <= 0:
        return 0.0
    return most * math.tanh(total / most)


Part = tuple[float, str] | None


def _contact_part(doc: Document, asker: Asker, settings: PersonalSettings, named: set[str]) -> Part:
    close = [
        (asker.contacts[key][0], asker.contacts[key][1] * (2.0 if key in named else 1.0))
        for key in _people(doc)
        if key in asker.contacts
    ]
    if not close or not settings.contact:
        return None
    name, affinity = max(close, key=lambda pair: pair[1])
    part = settings.contact * min(affinity, 1.0)
    return part, f"contact {name} (affinity {affinity:.2f}) +{part:.2f}"


def _own_part(doc: Document, asker: Asker, settings: PersonalSettings, about_self: bool) -> Part:
    if not settings.own or not asker.emails & _people(doc):
        return None
    part = settings.own * (2.0 if about_self else 1.0)
    said = f"you wrote or received it{' (you asked about yourself)' if about_self else ''}"
    hour = _sent_hour(doc)
    if asker.hours is not None and hour is not None and not asker.hours[0] <= hour <= asker.hours[1]:
        part *= settings.off_hours
        said += f", sent at {hour}h outside your hours ({asker.hours[0]}–{asker.hours[1]}h)"
    return part, f"{said} +{part:.2f}"


def _sent_hour(doc: Document) -> int | None:
    stamp = doc.meta.get("sent")
    if not isinstance(stamp, str) or "T" not in stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).hour
    except ValueError:
        return None


_MEETINGS = ("meeting", "meeting_notes", "event")


def _away_part(doc: Document, asker: Asker, settings: PersonalSettings) -> Part:
    """A meeting held on a day the asker was away (they could not attend it): lowered."""
    day = iso_date(doc.date)
    if not settings.away or doc.type not in _MEETINGS or day is None or not asker.absences:
        return None
    iso = day.isoformat()
    away = next((a for a in asker.absences if a.start <= iso <= a.end), None)
    if away is None or away.doc_id == doc.id:
        return None
    return (
        -settings.away,
        f"held while you were away ({away.reason}, {away.start} – {away.end}) -{settings.away:.2f}",
    )


def _project_part(
    doc: Document,
    relational: RelationalContext,
    asker: Asker,
    settings: PersonalSettings,
    named: list[str],
    meant: bool,
) -> Part:
    """The strongest link between the document and one of the asker's projects (only the named
    ones when the question names some): its strength from the relational context, else 1.0 for a
    project in the title, tags or frontmatter. Half as much again when the question means this
    very document ("the proposal": PROFILE-MATCH)."""
    if not settings.project:
        return None
    wanted = [(v, w) for v, w in asker.projects if not named or v in named]
    links = {link.project.casefold(): link for link in relational.projects}
    declared = [str(doc.meta.get("project", "")), *as_strings(doc.meta.get("projects"))]
    text = phrase_words(" ".join([doc.title, doc.summary or "", *doc.tags, *declared]))
    best: tuple[float, str] | None = None
    for value, weight in wanted:
        link = links.get(value.casefold())
        strength, how = (link.strength, link.kind) if link else (1.0 if contains(text, value) else 0.0, "")
        if strength and (best is None or weight * strength > best[0]):
            best = (weight * strength, f"project {value}{f' ({how})' if how and how != 'primary' else ''}")
    if best is None:
        return None
    part = settings.project * best[0] * (1.5 if meant else 1.0)
    return part, f"{best[1]}{' (the one you mean)' if meant else ''} +{part:.2f}"


def _interest_part(doc: Document, about: str, asker: Asker, settings: PersonalSettings) -> Part:
    text = phrase_words(" ".join([doc.title, doc.summary or "", *doc.tags, about]))
    matched = [(value, w) for value, w in asker.interests if contains(text, value)]
    if not matched or not settings.interest:
        return None
    value, weight = max(matched, key=lambda pair: pair[1])
    part = settings.interest * weight
    return part, f"interest {value} +{part:.2f}"


def _role_part(relational: RelationalContext, asker: Asker, settings: PersonalSettings) -> Part:
    relevant = [r for r in relational.roles if r.role in asker.roles]
    if not relevant or not settings.role:
        return None
    best = max(relevant, key=lambda r: r.score)
    part = settings.role * best.score
    return part, f"matters to {best.role} ({best.reason}) +{part:.2f}"


def _familiar_part(doc: Document, asker: Asker, settings: PersonalSettings) -> Part:
    used = asker.familiar.get(doc.id, 0.0)
    if not used or not settings.familiar:
        return None
    part = settings.familiar * used
    return part, f"{'you used it before' if used > 0 else 'you marked it unhelpful'} {part:+.2f}"


def _fresh_part(
    doc: Document, relational: RelationalContext, asker: Asker, settings: PersonalSettings
) -> Part:
    """Fresh for its kind: a week-old e-mail is fresh, a two-month-old weekly report is not
    (half-life from the relational context); documents that do not go stale get nothing."""
    half_life = relational.temporal.half_life_days
    written = iso_date(doc.date)
    if not settings.fresh or half_life is None or written is None:
        return None
    age = max((asker.today - written).days, 0)
    part = settings.fresh * 0.5 ** (age / half_life)
    if part < 0.005:
        return None
    return part, f"fresh ({age} days old, half-life {half_life:g} days) +{part:.2f}"


def _deadline_part(relational: RelationalContext, asker: Asker, settings: PersonalSettings) -> Part:
    upcoming = [d for d in map(iso_date, relational.temporal.deadlines) if d and d >= asker.today]
    if not upcoming or not settings.deadline:
        return None
    days = (min(upcoming) - asker.today).days
    if days > settings.deadline_days:
        return None
    part = settings.deadline * (1.0 - days / (settings.deadline_days + 1))
    return part, f"due {min(upcoming).isoformat()} (in {days} days) +{part:.2f}"


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


def _about(profile: DocumentProfile | None) -> str:
    """What a document's profile says it is about (synopsis, manifest), for matching interests."""
    if profile is None:
        return ""
    return " ".join([profile.synopsis, *profile.manifest.answers_questions_about])


def _people(doc: Document) -> set[str]:
    found: set[str] = set()
    given = doc.meta.get("participants")
    for person in given if isinstance(given, list) else []:
        if isinstance(person, dict):
            found |= {str(person[k]).lower() for k in ("email", "name") if person.get(k)}
    return found
