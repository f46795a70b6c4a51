"""A document's relational context without an LLM: the roles it matters to (the cue
words of each role family it uses, and how densely), the projects it belongs to (declared in its
frontmatter: primary; another known project named in it: related or tangential), and how it ages
(a half-life from its cadence or type, the due dates and milestones it sets, its recurrence)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import date

from shu.enrich.entities import find_dates
from shu.months import MONTH_NAMES_RE, MONTHS
from shu.roles import FAMILIES
from shu.text import as_strings, iso_date, split_sentences, stem, words
from shu.types import (
    Cadence,
    Document,
    DocumentProfile,
    ProjectLink,
    RelationalContext,
    RoleRelevance,
    TemporalRelevance,
)

METHOD = "rules"
CADENCE_DAYS: dict[str, float] = {"daily": 2, "weekly": 7, "monthly": 30, "quarterly": 90, "yearly": 365}
HALF_LIFE_BY_LABEL: dict[str, float | None] = {
    "email": 30, "chat": 21, "message": 21, "status": 30, "status_update": 30, "report": 60,
    "meeting": 60, "meeting_notes": 60, "minutes": 60, "newsletter": 45, "press": 90, "blog": 180,
    "plan": 120, "proposal": 120, "budget": 120, "timeline": 120, "slides": 120, "memo": 180,
    "tech_memo": 365, "release_notes": 365,
    "policy": None, "guide": None, "spec": None, "faq": None, "manual": None, "handbook": None,
    "reference": None,
}  # fmt: skip
HALF_LIFE_BY_TYPE: dict[str, float | None] = {
    "conversational": 30, "narrative": 90, "transactional": 180, "technical": 365, "reference": None,
    "other": 365,
}  # fmt: skip
_CADENCES: tuple[tuple[Cadence, re.Pattern[str]], ...] = (
    ("daily", re.compile(r"\b(daily|every day|each day|stand-?ups?)\b", re.I)),
    ("weekly", re.compile(r"\b(weekly|every week|each week|every (mon|tues|wednes|thurs|fri)day)\b", re.I)),
    ("monthly", re.compile(r"\b(monthly|every month|each month)\b", re.I)),
    ("quarterly", re.compile(r"\b(quarterly|every quarter|each quarter|qbr)\b", re.I)),
    ("yearly", re.compile(r"\b(annual|annually|yearly|every year)\b", re.I)),
)
_REPEATS_LINE = re.compile(r"^\W*(repeats|recurrence|cadence|frequency)\W", re.I)
_DEADLINE_CUE = re.compile(
    r"\b(due|deadline|by|until|before|no later than|target|expires?|closes?|ends?|submit\w*|"
    r"sign[- ]?off|signature|go-live|launch\w*|starts?|milestones?|cut-?over)\b",
    re.I,
)
_SCHEDULE_HEADING = re.compile(
    r"^#+ .*\b(milestones?|timeline|schedule|deadlines?|due dates?|key dates)\b", re.I
)
_LIST_ITEM = re.compile(r"\s*([-*|]|\d+\.)\s")
_MONTH = rf"({MONTH_NAMES_RE})"
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}}) {_MONTH}\b(?!,? \d{{4}})")
_MONTH_DAY = re.compile(rf"\b{_MONTH} (\d{{1,2}})\b(?!,? \d{{4}})")
MIN_CUES = 2
MAX_ROLES = 4
MAX_DEADLINES = 12


def relational_context(
    doc: Document, body: str, profile: DocumentProfile, known_projects: Iterable[str] = ()
) -> RelationalContext:
    return RelationalContext(
        roles=role_relevance(f"{doc.title}\n{body}"),
        projects=project_links(doc, body, profile.projects, known_projects),
        temporal=temporal_relevance(doc, body, profile),
        method=METHOD,
    )


def role_relevance(text: str) -> list[RoleRelevance]:
    """Each role family whose cue words the text uses (two distinct ones at least), scored by
    their density (one cue word in ten scores 1.0), with the words as the reason."""
    tokens = words(text)
    stems = [stem(t) for t in tokens]
    counts = Counter(stems)
    shown: dict[str, str] = {}
    for token, stemmed in zip(tokens, stems, strict=True):
        shown.setdefault(stemmed, token)
    found: list[RoleRelevance] = []
    for family in FAMILIES:
        hits = Counter(
            {stemmed: counts[stemmed] for stemmed in shown if stemmed in family.cues}
        )  # text order
        if len(hits) < MIN_CUES:
            continue
        score = min(1.0, 10 * sum(hits.values()) / max(len(tokens), 1))
        named = ", ".join(shown[cue] for cue, _ in hits.most_common(4))
        found.append(RoleRelevance(role=family.name, score=round(score, 3), reason=f"mentions {named}"))
    found.sort(key=lambda r: -r.score)
    return found[:MAX_ROLES]


def project_links(
    doc: Document, body: str, named: list[str], known_projects: Iterable[str]
) -> list[ProjectLink]:
    """Declared projects (frontmatter, or the profile's) are primary; another project the
    knowledge base knows, named in the title or three times: related; once or twice: tangential."""
    links: dict[str, ProjectLink] = {}
    for project in [*as_strings(doc.meta.get("project")), *as_strings(doc.meta.get("projects")), *named]:
        if project.strip() and project.casefold() not in links:
            links[project.casefold()] = ProjectLink(project=project.strip(), strength=1.0, kind="primary")
    text = f" {' '.join(words(body))} "
    title = f" {' '.join(words(doc.title))} "
    for project in known_projects:
        phrase = " ".join(words(project))
        if not phrase or project.casefold() in links:
            continue
        mentions = len(re.findall(rf"(?<!\S){re.escape(phrase)}(?!\S)", text))
        if f" {phrase} " in title or mentions >= 3:
            links[project.casefold()] = ProjectLink(project=project, strength=0.6, kind="related")
        elif mentions:
            links[project.casefold()] = ProjectLink(project=project, strength=0.3, kind="tangential")
    return list(links.values())[:8]


def temporal_relevance(doc: Document, body: str, profile: DocumentProfile) -> TemporalRelevance:
    recurrence = recurrence_of(doc, body)
    if recurrence:
        half_life: float | None = CADENCE_DAYS[recurrence]
    elif (doc.type or "").casefold() in HALF_LIFE_BY_LABEL:
        half_life = HALF_LIFE_BY_LABEL[(doc.type or "").casefold()]
    else:
        half_life = HALF_LIFE_BY_TYPE.get(profile.document_type, 365)
    return TemporalRelevance(
        half_life_days=half_life, deadlines=deadlines(body, doc.date), recurrence=recurrence
    )


def recurrence_of(doc: Document, body: str) -> Cadence | None:
    """A cadence named in the title, a `Repeats:`-style field (calendar converters write one) or
    the frontmatter (`recurrence`, `cadence`); not anywhere in the text ("quarterly invoicing")."""
    declared = " ".join(as_strings(doc.meta.get("recurrence")) + as_strings(doc.meta.get("cadence")))
    fields = " ".join(line for line in body.splitlines()[:40] if _REPEATS_LINE.match(line.replace("*", "")))
    for where in (declared, doc.title, fields):
        for cadence, pattern in _CADENCES:
            if pattern.search(where) or (where == declared and cadence in where.casefold()):
                return cadence
    return None


def deadlines(body: str, written: str | None) -> list[str]:
    """Dates the text sets as due: on a line with a deadline word ("due", "by", "sign-off", …) or
    in a list under a schedule heading ("Milestones", "Timeline"). A date without a year takes
    the document's year (the next one when it would fall more than two months before it). Dates
    before the document was written are history, not deadlines."""
    reference = iso_date(written)
    found: set[str] = set()
    for line, listed in _statements(body):
        if listed or _DEADLINE_CUE.search(line):
            found |= set(find_dates(line)) | set(_yearless_dates(line, reference))
    kept = sorted(d for d in found if reference is None or d >= reference.isoformat())
    return kept[:MAX_DEADLINES]


def _statements(body: str) -> list[tuple[str, bool]]:
    """The text as sentences and list items, each marked when it is an item of a list under a
    schedule heading ("Milestones"); a sentence wrapped over several lines is one statement."""
    statements: list[tuple[str, bool]] = []
    in_schedule = False
    for block in re.split(r"\n\s*\n", body):
        lines = [line for line in block.splitlines() if line.strip()]
        if lines and lines[0].startswith("#"):
            in_schedule = bool(_SCHEDULE_HEADING.match(lines[0]))
            lines = lines[1:]
        if any(_LIST_ITEM.match(line) for line in lines):
            statements += [(line, in_schedule and bool(_LIST_ITEM.match(line))) for line in lines]
        elif lines:
            statements += [(sentence, False) for sentence in split_sentences(" ".join(lines))]
    return statements


def dates_mentioned(text: str, written: str | None) -> list[str]:
    """Every date the text mentions, year-less ones placed as `deadlines` places them."""
    return find_dates(text) + _yearless_dates(text, iso_date(written))


def _yearless_dates(line: str, reference: date | None) -> list[str]:
    if reference is None:
        return []
    found: list[str] = []
    pairs = [(m[2], m[1]) for m in _DAY_MONTH.finditer(line)] + [
        (m[1], m[2]) for m in _MONTH_DAY.finditer(line)
    ]
    for month_name, day in pairs:
        month = MONTHS.index(month_name.lower()) + 1
        for year in (reference.year, reference.year + 1):
            try:
                candidate = date(year, month, int(day))
            except ValueError:
                break
            if (reference - candidate).days <= 62:
                found.append(candidate.isoformat())
                break
    return found
