"""The question's key terms that nothing in the knowledge base mentions: a name ("the Tokyo
office", "Maple Avenue"), an acronym ("Lumen's CEO"), a code ("INC-2026-0402", "200gsm") or a
thing ("a night shift allowance", "the guest Wi-Fi password"). When one is absent, no quoted
sentence answers the question, whatever it shares with it: the right answer is to say which
term the documents do not mention.

Key terms are read from the question's shape, not from a list: a run of capitalised words past
the first word, an acronym, a token mixing letters and digits, or a word that English uses only
as a noun (lemminflect's lexicon: "allowance", "password"; never "turn" or "rule", which are
verbs too, nor the words a question is made of: "kinds", "many"). Plain numbers are conditions
("a 100 GBP order") and are never key terms; neither are the persona's own name nor the common
words a question may capitalise ("I", "Which").

A term is absent when the retrieved sections, the retrieved documents' titles and metadata
(a publisher kept as metadata is mentioned) and the whole knowledge base's keyword index all
lack it: a term retrieval missed but some document holds is never called absent."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from lemminflect import getAllLemmas

from shu.answer.extractive.polarity import is_yes_no
from shu.months import MONTHS
from shu.store.base import KnowledgeReader
from shu.text import STOPWORDS, words
from shu.types import AssembledContext, DocumentFilter, Persona

Known = Callable[[str], bool]
"""Whether the knowledge base (the persona's keyword index) mentions a term anywhere."""

_TOKEN = re.compile(r"[\w][\w'’&.-]*", re.UNICODE)
_CODE = re.compile(r"^(?=.*\d)(?=.*[^\W\d_])[\w.-]+$", re.UNICODE)
"""Letters and digits in one token: INC-2026-0402, FL-3, 200gsm, Q3, SAML-004."""
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""An e-mail address: a name may be written only inside one (bolson@enron.com)."""
_ACRONYM = re.compile(r"^[A-Z]{2,}s?$")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.I)
_QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how is are was were do does did can could should would "
    "will shall may might must has have had i i'm i've i'd i'll ok please".split()
)
_COMMON_CAPITALISED = frozenset(MONTHS) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mr mrs ms dr".split()
)


def absent_terms(
    question: str,
    context: AssembledContext,
    persona: Persona,
    known: Known | None = None,
    metadata: Iterable[str] = (),
) -> list[str]:
    """The question's key terms that no section of `context`, no title or `metadata` of its
    documents and (with `known`) nothing in the knowledge base mentions (empty when every one
    is there, or when the context is empty: then nothing was found at all, said elsewhere)."""
    sections = [f"{s.section_path}\n{s.text}" for d in context.documents for s in d.sections]
    raw = " ".join([*sections, *(d.title for d in context.documents), *metadata])
    text = _normalised(raw)
    if not text.strip():
        return []
    text += " " + " ".join(_ADDRESS.findall(raw)).lower()  # "Bill Olson" as bolson@enron.com
    own = set(_normalised(f"{persona.slug.replace('-', ' ')} {persona.display_name}").split())
    names = key_terms(question)
    things: list[str] = []
    if known is not None:  # things are key terms only where the whole knowledge base can be asked
        named = set(_normalised(" ".join(names)).split())
        things = [noun for noun in key_nouns(question) if noun not in named]
    terms = names + things
    missing = [
        term
        for term in terms
        if not _mentioned(term, text, own) and not (known is not None and _known(term, known))
    ]
    things_missing = [term for term in missing if term in things]
    if any(_is_code(term) for term in missing):
        return missing
    contrasted = _contrasted(question, lambda term: _mentioned(term, text, own) or _known_in(term, known))
    if contrasted:
        return contrasted
    if is_yes_no(question) and len(missing) < len(terms):
        return []  # "SCIM on the Pro plan?" of "SCIM is Enterprise only": the answer is no
    if len(missing) == len(things_missing) < _THINGS_DECISIVE:
        return []  # one word no document uses: a paraphrase ("a speech" for "my talk") as often
    if len(missing) * _DECISIVE_SHARE >= len(terms):
        return missing
    return []


_THINGS_DECISIVE = 2
"""A thing alone declines when two are absent ("the guest Wi-Fi password" where no document
says Wi-Fi or password); one absent thing is as often a paraphrase ("When did Caroline give a
speech?" of a chat where she says she gave a talk; "How long to get back photos deleted by
accident?"), measured on LoCoMo and the relations set: 12 and 2 of the false declines."""

_DECISIVE_SHARE = 3
"""An absent code (INC-2026-0402) declines alone; names and things decline when at least one
in three of the question's key terms is absent. A long question that rephrases its documents
("a plethora of alternatives", "anticompetitive behavior", measured on MultiHop-RAG) has a word
or two no document uses among a dozen it shares with them; a question about the Tokyo office or
the CEO's phone number lacks what it is about."""


def _contrasted(question: str, there: Callable[[str], bool]) -> list[str]:
    """A question that first names things the documents have, then asks about another ("The
    log has the guillotine and the folder in it - what did the laminator's last service
    cost?"): the other thing, absent where the ones named first are there, is what it lacks,
    alone as it is (no paraphrase: the asker has just used the documents' own words)."""
    parts = _PREMISE.split(question, maxsplit=1)
    if len(parts) != 2 or "?" in parts[0] or "?" not in parts[1]:
        return []
    premise, asked = _things(parts[0]), _things(parts[1])
    named_first = [t for t in premise if t not in asked]
    absent = [t for t in asked if t not in premise and not there(t)]
    return absent if absent and named_first and all(there(t) for t in named_first) else []


def _things(text: str) -> list[str]:
    """Words used only as nouns, and words English has no entry for ("laminator")."""
    return [
        w
        for w in dict.fromkeys(words(text))
        if len(w) > 3
        and w not in STOPWORDS
        and w not in _QUESTION_NOUNS
        and (_only_noun(w) or not getAllLemmas(w))
        and not w.isdigit()
    ]


def _known_in(term: str, known: Known | None) -> bool:
    return known is not None and _known(term, known)


_PREMISE = re.compile(r"\s+[-–—]\s+|;\s+|(?<=[.!])\s+(?=\S)")
"""Where a premise ends and the question begins: a dash, a semicolon, a full stop."""


def key_nouns(question: str) -> list[str]:
    """The words of `question` that English uses only as nouns ("allowance", "password"), the
    words questions are made of left out ("what kinds of", "how many", "whose")."""
    return list(
        dict.fromkeys(
            w for w in words(question) if w not in STOPWORDS and w not in _QUESTION_NOUNS and _only_noun(w)
        )
    )


_QUESTION_NOUNS = frozenset(
    "kind kinds type types sort sorts way ways thing things many much lot lots whose example examples "
    "detail details information info number numbers amount part parts anything something everything "
    "nothing anyone someone everyone one ones".split()
    # words about what documents say rather than about what they say it of ("the portrayal of
    # … in the TechCrunch report", "a discrepancy between the articles")
    + "report reports article articles coverage portrayal depiction narrative narratives account "
    "discrepancy discrepancies inconsistency inconsistencies consistency topic topics sentiment "
    "mention mentions statement statements claim claims".split()
    # words asking for a summary ("the spring newsletter in a nutshell")
    + "nutshell rundown overview summary gist recap".split()
)


def _only_noun(word: str) -> bool:
    """A noun that is neither a verb ("turn") nor an adjective ("general", "temporary": a
    quality of the thing asked about, not the thing)."""
    readings = getAllLemmas(word)
    return set(readings) == {"NOUN"} and len(word) > 2


def _known(term: str, known: Known) -> bool:
    """Every word of the term is somewhere in the knowledge base ("Harbor Pine" as "Harbor &
    Pine" too; each part of a code: "0402" of INC-2026-0402 too). A version's parts are digits
    every knowledge base holds: 4.7.2 is mentioned only where the context says it."""
    return not _VERSION.match(term) and all(known(word) for word in words(term))


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
    """A letter-digit code (FL-3, 200gsm) or a version (4.7.2); never a quantity written as one
    word ("10-year-old", "24-hour"), an ordinal or a plain number."""
    if _VERSION.match(token):
        return True
    quantity = _QUANTITY.match(token) or _ORDINAL.match(token)
    return bool(_CODE.match(token)) and not quantity and not _is_number(token)


_VERSION = re.compile(r"^v?\d+\.\d+\.\d+$", re.I)
_QUANTITY = re.compile(r"^\d+(?:[.,]\d+)?-[^\W\d_]+(?:-[^\W\d_]+)*$", re.UNICODE)


def _is_number(token: str) -> bool:
    """A number, or a date and time ("2023-12-12T22:38:05"): a condition, like a plain number."""
    return bool(re.fullmatch(r"[\d.,:-]+|\d{4}-\d\d-\d\d(?:T[\d:.]*)?Z?", token))


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
    if _in_address(words[-1], text):  # "Bill Olson" written only as bolson@enron.com
        return True
    if len(words) > 1:  # "Harbor Pine Logistics" named "Harbor & Pine": every word there is enough
        return all(w in own or re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words)
    single = _singular(words[0])  # "SLAs": "SLA"
    return single != words[0] and bool(re.search(rf"(?<!\w){re.escape(single)}", text))


def _in_address(word: str, text: str) -> bool:
    """A name of four letters or more inside an e-mail address of `text`."""
    return len(word) >= 4 and bool(re.search(rf"[\w.+-]*{re.escape(word)}[\w.+-]*@", text))


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _normalised(text: str) -> str:
    """Lower case, accents and punctuation folded to spaces, hyphens kept inside codes."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.sub(r"[^\w-]+", " ", folded).replace("_", " ").split())


class StoreTerms:
    """What a knowledge base mentions, asked of its store: a persona's keyword index (one
    lookup a term), and the metadata of some documents (a publisher, an author, a source)."""

    def __init__(self, store: KnowledgeReader) -> None:
        self.store = store

    def known(self, persona: str, within: frozenset[str] | None = None) -> Known:
        """Whether a word is in the persona's documents (those a filter keeps, with `within`)."""
        return lambda word: bool(self.store.search_keyword(word, persona, 1, within=within))

    def kept(self, persona: str, where: DocumentFilter | None) -> frozenset[str] | None:
        """The documents a question's filter keeps (None: not filtered)."""
        return self.store.document_index(persona).kept(where)

    def spans(self, persona: str) -> dict[str, tuple[str, str]]:
        """doc id → the (first, last) ISO dates each of the persona's documents is about."""
        return self.store.document_index(persona).spans

    def metadata(self, doc_ids: list[str]) -> list[str]:
        found: list[str] = []
        for document in self.store.get_documents(doc_ids).values():
            found += [document.source_url or "", *_strings(document.meta)]
        return found


def _strings(value: object) -> list[str]:
    """Every string inside metadata (lists and nested mappings too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return [str(value)] if value is not None else []
