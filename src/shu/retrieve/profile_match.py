"""PROFILE-MATCH: the question's references resolved against the asker's
profile — "I/my/we" → the asker, a contact's first or full name → that contact, a project of
theirs named → that project, "the proposal" → the document of their project titled so."""

from __future__ import annotations

import re

from shu.retrieve.asker import Asker
from shu.text import stem
from shu.types import Document, DocumentProfile, ProfileMatch

_FIRST_PERSON = re.compile(r"\b(I|me|my|mine|we|us|our|ours)\b")
OWN_WORDS = re.compile(
    r"\b(?:I|we)\s+(?:sen[dt]|wr[io]te|say|said|promised?|ask(?:ed)?|t[eo]ll?d?|agreed?|repl(?:y|ied)|e-?mailed|"
    r"commit(?:ted)?|proposed?|decided?)\b"
    r"|\b(?:my|our)\s+(?:e-?mails?|messages?|notes?|repl(?:y|ies)|letters?|minutes)\b",
    re.I,
)
"""The asker speaking of their own communication: documents they wrote or received count double."""
_DEFINITE = re.compile(
    r"\b(the|my|our)\s+(?!(?:next|last|latest|first|same|most|best|other)\b)([a-z]\w+)", re.I
)


def resolve(
    question: str,
    asker: Asker,
    docs: dict[str, Document] | None = None,
    profiles: dict[str, DocumentProfile | None] | None = None,
) -> list[ProfileMatch]:
    """PROFILE-MATCH: "I/my/we" → the asker; a contact's first or full name → that contact; a
    project of the asker named in the question → that project; "the/my/our <thing>" ("the
    proposal") → the document of one of the asker's projects titled so, among `docs` (the
    candidates), when the question names no project itself."""
    matches: list[ProfileMatch] = []
    own_words = OWN_WORDS.search(question)
    first_person = own_words or _FIRST_PERSON.search(question)
    if first_person:
        matches.append(ProfileMatch(phrase=first_person[0], means=asker.name, kind="asker"))
    for key in sorted(named_contacts(question, asker)):
        matches.append(ProfileMatch(phrase=key, means=asker.contacts[key][0], kind="contact"))
    named = [value for value, _ in asker.projects if contains(phrase_words(question), value)]
    matches += [ProfileMatch(phrase=value, means=value, kind="project") for value in named]
    if not named:
        matches += _meant_documents(question, asker, docs or {}, profiles or {})
    return matches


def _meant_documents(
    question: str, asker: Asker, docs: dict[str, Document], profiles: dict[str, DocumentProfile | None]
) -> list[ProfileMatch]:
    mine = {value.casefold() for value, _ in asker.projects}
    found: list[ProfileMatch] = []
    for reference in _DEFINITE.finditer(question):
        thing = stem(reference[2].casefold())
        for doc_id, doc in sorted(docs.items()):
            profile = profiles.get(doc_id)
            links = profile.relational.projects if profile else []
            project = next(
                (p.project for p in links if p.kind == "primary" and p.project.casefold() in mine), None
            )
            if project and thing in {stem(w) for w in phrase_words(doc.title).split()}:
                found.append(
                    ProfileMatch(
                        phrase=reference[0], means=f"{doc.title} ({project})", kind="document", doc_id=doc_id
                    )
                )
    return found


def named_contacts(question: str, asker: Asker) -> set[str]:
    """Contacts the question names with a capital ("John", "Sarah Chen"): their documents count
    double ("a grace period" names nobody called Grace)."""
    words = {w.lower() for w in re.findall(r"\b[A-Z]\w+", question)}
    return {
        key
        for key, (name, _) in asker.contacts.items()
        if "@" not in key and name and set(phrase_words(name).split()) & words
    }


def contains(text: str, value: str) -> bool:
    phrase = phrase_words(value)
    return bool(phrase) and f" {phrase} " in f" {text} "


def phrase_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
