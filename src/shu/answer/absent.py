"""The question's key terms that nothing in the context mentions: a name ("the Tokyo office",
"Maple Avenue"), an acronym ("Lumen's CEO") or a code ("INC-2026-0402", "FL-3", "200gsm").
When one is absent, no quoted sentence answers the question, whatever it shares with it: the
right answer is to say which term the documents do not mention.

Key terms are read from the question's shape, not from a list: a run of capitalised words past
the first word, an acronym, or a token mixing letters and digits. Plain numbers are conditions
("a 100 GBP order") and are never key terms; neither are the persona's own name nor the common
words a question may capitalise ("I", "Which")."""

from __future__ import annotations

import re
import unicodedata

from shu.text import STOPWORDS
from shu.types import AssembledContext, Persona

_TOKEN = re.compile(r"[\w][\w'’&.-]*", re.UNICODE)
_CODE = re.compile(r"^(?=.*\d)(?=.*[^\W\d_])[\w.-]+$", re.UNICODE)
"""Letters and digits in one token: INC-2026-0402, FL-3, 200gsm, Q3, SAML-004."""
_ACRONYM = re.compile(r"^[A-Z]{2,}s?$")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.I)
_QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how is are was were do does did can could should would "
    "will shall may might must has have had i i'm i've i'd i'll ok please".split()
)
_COMMON_CAPITALISED = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june "
    "july august september october november december mr mrs ms dr".split()
)


def absent_terms(question: str, context: AssembledContext, persona: Persona) -> list[str]:
    """The question's key terms that no section of `context` mentions (empty when every one is
    there, or when the context is empty: then nothing was found at all, said elsewhere)."""
    sections = [f"{s.section_path}\n{s.text}" for d in context.documents for s in d.sections]
    text = _normalised(" ".join([*sections, *(d.title for d in context.documents)]))
    if not text.strip():
        return []
    own = set(_normalised(f"{persona.slug.replace('-', ' ')} {persona.display_name}").split())
    return [term for term in key_terms(question) if not _mentioned(term, text, own)]


def key_terms(question: str) -> list[str]:
    """Names (runs of capitalised words, the first word of the question left out), acronyms and
    letter-digit codes, in the order they appear."""
    tokens = [t.rstrip(".-'’") for t in _TOKEN.findall(question)]
    found: list[str] = []
    run: list[str] = []
    for position, token in enumerate(tokens):
        bare = _possessive(token)
        if _is_code(bare) or _ACRONYM.match(bare):
            _close(run, found)
            found.append(bare)
        elif position > 0 and bare[:1].isupper() and not _common(bare):
            run.append(bare)
            if bare != token:  # "Lumen's Tokyo office": the possessive ends a name
                _close(run, found)
        else:
            _close(run, found)
    _close(run, found)
    return list(dict.fromkeys(found))


def _close(run: list[str], found: list[str]) -> None:
    if run:
        found.append(" ".join(run))
        run.clear()


def _is_code(token: str) -> bool:
    return bool(_CODE.match(token)) and not _ORDINAL.match(token) and not _is_number(token)


def _is_number(token: str) -> bool:
    return bool(re.fullmatch(r"[\d.,:-]+", token))


def _common(word: str) -> bool:
    """A question word, a stop word, a day or a month ("July-August": each part one)."""
    return all(
        part in _QUESTION_WORDS or part in STOPWORDS or part in _COMMON_CAPITALISED
        for part in word.lower().split("-")
    )


def _possessive(token: str) -> str:
    return re.sub(r"['’]s?$", "", token)


def _mentioned(term: str, text: str, own: set[str]) -> bool:
    words = _normalised(term).split()
    if not words or set(words) <= own:
        return True
    phrase = " ".join(words)
    if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text):
        return True
    if len(words) > 1:  # "Harbor Pine Logistics" named "Harbor & Pine": every word there is enough
        return all(w in own or re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words)
    single = _singular(words[0])  # "SLAs": "SLA"
    return single != words[0] and bool(re.search(rf"(?<!\w){re.escape(single)}", text))


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _normalised(text: str) -> str:
    """Lower case, accents and punctuation folded to spaces, hyphens kept inside codes."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.sub(r"[^\w-]+", " ", folded).replace("_", " ").split())
