"""Stage 1 without an LLM: a rule-based planner. Cue words decide the query type, dates give the
temporal scope, names the store knows (authors, participants, entities) become entity
references, and "show me …" patterns ask for a whole document. Measured on a labelled set
(`tests/retrieve/data/classify.jsonl`)."""

from __future__ import annotations

import re
from datetime import date, timedelta

from shu.months import MONTH_NUMBERS, MONTHS_RE
from shu.relative_dates import spans
from shu.text import content_words, words
from shu.types import AnswerStyle, Complexity, QueryPlan, QueryType, TemporalScope

_LOOKUP = re.compile(
    r"^(?:please\s+)?(?:show|open|display|print|fetch|pull up|bring up|give me|get me|read|find)\b"
    r"(?:\s+me)?(?:\s+(?:my|the|our|a|an|that|this))?\s+(?P<what>.+?)\??$",
    re.I,
)
_WHATS_IN = re.compile(r"^what(?:'s| is) in (?:my|the|our) (?P<what>.+?)\??$", re.I)
_FETCH_VERB = re.compile(r"^(?:please\s+)?(?:give me|get me|find|fetch)\b", re.I)
_DOCUMENT_NOUN = re.compile(
    r"\b(?:document|doc|file|page|text|copy|report|deck|slides|checklist|notes|minutes|policy|contract|"
    r"handbook|runbook|playbook|guide|biography|bio|resume|cv|readme|spreadsheet|memo|letter|email|e-mail)s?\b",
    re.I,
)
_HOW_TO = re.compile(
    r"^(?:please\s+)?(?:show|tell)\s+me\s+(?:how|why|what|when|where|who|which|if|whether)\b", re.I
)
_WHOLE = re.compile(r"\b(?:full|whole|entire|complete)\s+(?:text|document|doc|file|page)\b", re.I)
_STRUCTURAL = re.compile(
    r"\b(?:which|what|list(?: all)?|any)\s+(?:documents?|docs|files|pages|notes|sources|records)\b"
    r"|\bwhere (?:is|are) .+ (?:documented|described|written down)\b|\boverview of\b|\blist (?:all|every)\b"
    r"|^summari[sz]e\b",
    re.I,
)
_MULTI = re.compile(
    r"\b(?:compare|comparison|versus|vs\.?|difference between|differences|both|and then|pros and cons)\b",
    re.I,
)
_INTERPRETIVE = re.compile(
    r"^(?:why|how come)\b|\b(?:explain|reason|reasons|rationale|cause[sd]?|motivation|led to|impact of)\b",
    re.I,
)
_RELATIONAL = re.compile(
    r"^(?:who|whom)\b|\b(?:with whom|who (?:said|decided|approved|sent|wrote|owns|asked))\b"
    r"|\b(?:said|told|emailed|e-mailed|wrote to|cc'?d|replied|meeting with|discussed with)\b",
    re.I,
)
_SPEECH = re.compile(
    r"\b(?:did|has|have|does)\s+(?:[A-Z][\w.'-]*\s+){1,3}(?:say|tell|ask|mention|promise|agree|recommend|write|send)\b"
)
_TWO_QUESTIONS = re.compile(
    r"(?:,|\band)\s+(?:why|how|what|which|who|when|were|was|did|does|do|is|are)\b(?!.*\bor\b)",
    re.I,
)
_TEMPORAL_CUE = re.compile(
    r"^when\b|\b(?:last|next|this) (?:week|month|quarter|year)\b|\b(?:yesterday|today|recently|latest)\b"
    rf"|\b(?:before|after|since|during|until) (?:the )?(?:\d{{4}}|{MONTHS_RE}|q[1-4])\b"
    r"|\btimeline\b|\bhistory of\b",
    re.I,
)
_MONTHS = MONTH_NUMBERS
_ISO_DATE = re.compile(r"\b((?:19|20)\d{2})-(\d{2})(?:-(\d{2}))?\b")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+((?:19|20)\d{2})\b", re.I)
_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")
_BEFORE = r"(?:(?:the\s+)?(?P<before>week|weekend)\s+before\s+)?"
_DAY_MONTH_YEAR = re.compile(
    rf"\b{_BEFORE}(?:the\s+)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{MONTHS_RE}),?\s*"
    r"(?P<year>(?:19|20)\d{2})\b",
    re.I,
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b{_BEFORE}(?P<month>{MONTHS_RE})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d{{2}})\b",
    re.I,
)
_QUARTER = re.compile(r"\bq([1-4])\s+((?:19|20)\d{2})\b", re.I)
_DOC_TYPES = {
    "email": ("email", "e-mail", "mail", "thread", "inbox", "message"),
    "meeting": ("meeting", "minutes", "standup", "call notes", "retro"),
    "policy": ("policy", "policies"),
    "guide": ("guide", "how-to", "tutorial", "runbook", "playbook", "handbook"),
    "decision": ("decision", "adr", "decision record"),
    "report": ("report", "postmortem", "post-mortem", "incident report"),
    "spec": ("spec", "specification", "design doc", "rfc"),
}
_CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)")
_QUOTED = re.compile(r"[\"“']([^\"”']{3,80})[\"”']")


def classify(query: str, known_names: list[str] | None = None, today: date | None = None) -> QueryPlan:
    """`today`: the day the question is asked ("last week" is read against it; None: not read)."""
    text = " ".join(query.split())
    scope = temporal_scope(text, today)
    entities = _entities(text, known_names or [])
    lookup = _lookup_target(text)
    query_type = _query_type(text, lookup, scope, entities)
    styles: dict[str, AnswerStyle] = {"document_lookup": "full_document", "structural": "list_sources"}
    style = styles.get(query_type, "synthesize")
    return QueryPlan(
        query_type=query_type,
        entities=entities,
        temporal_scope=scope,
        implied_document_type=_implied_type(text),
        answer_style=style,
        complexity=_complexity(text, query_type),
        title_hints=[lookup] if lookup else [m.strip() for m in _QUOTED.findall(text)],
        confidence=0.8 if query_type != "factual" else 0.6,
        method="rules",
    )


def _lookup_target(text: str) -> str | None:
    """The document a "show me …" question names, e.g. `my biography` → `biography`."""
    if _HOW_TO.match(text):  # "show me how to …" asks for an answer, not a document
        return None
    for pattern in (_LOOKUP, _WHATS_IN):
        match = pattern.match(text)
        if match:
            if (
                pattern is _LOOKUP
                and _FETCH_VERB.match(text)
                and not _DOCUMENT_NOUN.search(match.group("what"))
            ):
                continue  # "give me the price of …" asks for a fact
            target = re.sub(
                r"\b(?:document|doc|file|page|text|full|whole|entire|complete)\b",
                "",
                match.group("what"),
                flags=re.I,
            )
            target = " ".join(content_words(target))
            if target and len(target.split()) <= 8:
                return target
    return None


def _query_type(text: str, lookup: str | None, scope: TemporalScope, entities: list[str]) -> QueryType:
    if lookup and (_LOOKUP.match(text) or _WHATS_IN.match(text)) and not text.lower().startswith("find out"):
        return "document_lookup"
    if _WHOLE.search(text):
        return "document_lookup"
    if _MULTI.search(text) or text.count("?") > 1 or _TWO_QUESTIONS.search(text):
        return "multi_step"
    if _STRUCTURAL.search(text):
        return "structural"
    if _INTERPRETIVE.search(text):
        return "interpretive"
    if _RELATIONAL.search(text) or _SPEECH.search(text):
        return "relational"
    if _TEMPORAL_CUE.search(text) or (scope.start and not entities):
        return "temporal"
    return "factual"


def temporal_scope(text: str, today: date | None = None) -> TemporalScope:
    """The dates a question names, as ISO prefixes (2024, 2024-03, 2024-03-05): days ("1 May,
    2022", "May 3, 2023", "the week before 16 November 2023"), then months, quarters and (when
    nothing else) years; with `today`, also what "yesterday", "last week", "two days ago" mean."""
    found: list[tuple[str, str]] = []
    rest = text
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        for match in pattern.finditer(rest):
            found.append(_day_span(match))
        rest = pattern.sub(" ", rest)  # "16 November 2023" is a day, not November
    for year, month, day in _ISO_DATE.findall(rest):
        value = f"{year}-{month}" + (f"-{day}" if day else "")
        found.append((value, value))
    for month, year in _MONTH_YEAR.findall(rest):
        value = f"{year}-{_MONTHS[month.lower()]:02d}"
        found.append((value, value))
    for quarter, year in _QUARTER.findall(rest):
        first = (int(quarter) - 1) * 3 + 1
        found.append((f"{year}-{first:02d}", f"{year}-{first + 2:02d}"))
    if today is not None:
        found += spans(rest, today)
    if not found:
        found = [(year, year) for year in _YEAR.findall(rest)]
    if not found:
        return TemporalScope()
    return TemporalScope(start=min(f[0] for f in found), end=max(f[1] for f in found))


def _day_span(match: re.Match[str]) -> tuple[str, str]:
    """A day named with its month and year, or the week (weekend) before it."""
    number = _MONTHS[match["month"].lower()]
    try:
        day = date(int(match["year"]), number, int(match["day"]))
    except ValueError:  # 31 June: the month is still meant
        month = f"{match['year']}-{number:02d}"
        return month, month
    before = (match["before"] or "").lower()
    if before == "week":
        return (day - timedelta(days=7)).isoformat(), day.isoformat()
    if before == "weekend":
        return (day - timedelta(days=8)).isoformat(), (day - timedelta(days=1)).isoformat()
    return day.isoformat(), day.isoformat()


def _entities(text: str, known_names: list[str]) -> list[str]:
    """Names the store knows that the question mentions, then other capitalised phrases."""
    lowered = f" {' '.join(words(text))} "
    known = [name for name in known_names if f" {' '.join(words(name))} " in lowered and len(name) >= 3]
    found = list(dict.fromkeys(known))
    for phrase in _CAPITALIZED.findall(text):
        if phrase.lower() not in _MONTHS and phrase.lower() not in {n.lower() for n in found}:
            found.append(phrase)
    return found[:10]


def _implied_type(text: str) -> str | None:
    lowered = text.lower()
    for kind, cues in _DOC_TYPES.items():
        if any(re.search(rf"\b{re.escape(cue)}s?\b", lowered) for cue in cues):
            return kind
    return None


def _complexity(text: str, query_type: QueryType) -> Complexity:
    if query_type == "multi_step" or len(words(text)) > 25:
        return "complex"
    if query_type in ("interpretive", "relational", "structural") or len(words(text)) > 12:
        return "moderate"
    return "simple"
