"""Yes or no, read from the sentence that answers a yes/no question ("Can we get SCIM on the
Pro plan?" → "SCIM provisioning is Enterprise only." → no).

A sentence says no when it negates ("No data was lost"), when it restricts the thing asked
about to something other than what the question names ("Enterprise only", "on Team, Pro and
Enterprise" for a question about Starter), or when the question's amount falls on the wrong
side of the sentence's threshold ("orders over 150 GBP" for a 100 GBP order; "Sheets on hand:
4200; Reorder point: 6000" for "below its reorder point"). It says yes when it states what the
question asks with none of these. Anything else decides nothing: the sentence is shown as it
is, without a yes or a no."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from lemminflect import getAllLemmas

from shu.answer.extractive.names import CONDITION, has_name, names
from shu.answer.extractive.rows import reading

Verdict = Literal["yes", "no"]

_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|can|could|does|do|did|will|would|has|have|had|should|may|must|"
    r"isn't|aren't|doesn't|don't|didn't|can't|won't)\b",
    re.I,
)
_CHOICE = re.compile(r"\bor\b", re.I)
_NEGATION = re.compile(
    r"\b(?:no|not|never|none|nothing|nobody|cannot|can't|won't|isn't|aren't|doesn't|don't|didn't"
    r"|wasn't|weren't|hasn't|haven't|without|neither|nor)\b|n't\b",
    re.I,
)
_ONLY = re.compile(r"\bonly\b", re.I)
_LIST_OF_NAMES = re.compile(
    r"\b(?:on|in|for|to|with|at|under)\s+(?:the\s+)?[A-Z][\w-]*(?:\s*,\s*[A-Z][\w-]*)*\s*,?\s+(?:and|or)\s+[A-Z][\w-]*"
)
"""Names the thing is limited to ("on Team, Pro and Enterprise"), not a title that holds an and
("our Data Retention and GDPR Policy")."""
_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)\s*(%|[a-zA-Z]{1,6})?"
_THRESHOLD = re.compile(
    rf"\b(over|above|more than|greater than|exceeding|at least|minimum(?: of)?|from|under|below|less than"
    rf"|up to|at most|maximum(?: of)?|within)\s+[$€£]?{_AMOUNT}",
    re.I,
)
_BELOW = re.compile(r"\b(?:below|under|less than|lower than|fewer than|short of)\b", re.I)
_ABOVE = re.compile(r"\b(?:above|over|more than|higher than|greater than|exceed\w*|past)\b", re.I)
_FIELD_NUMBER = re.compile(r"([A-Za-z][\w ()/]*?):\s*([\d][\d,]*(?:\.\d+)?)(?=\s*(?:;|$))")
_WORD = re.compile(r"[a-z]+")
_GENERIC = frozenset("the a an its it is are of on in for to my our we i".split())


def is_yes_no(question: str) -> bool:
    """A question answered by yes or no ("Is MS-300 below its reorder point?"), not a choice
    between things ("Were more present in January or in April?"); what comes before it is its
    circumstance ("I lost the shears. Do I have to pay?", "if I snooze it, does it …")."""
    asked = _main_clause(question)
    return bool(_YES_NO.match(asked)) and not _CHOICE.search(asked)


def _main_clause(question: str) -> str:
    last = re.split(r"(?<=[.!])\s+", question.strip())[-1]
    condition = _CONDITION_FIRST.match(last)
    return last[condition.end() :] if condition else last


_CONDITION_FIRST = re.compile(
    r"^\s*(?:if|once|after|before|while)\s+\S+\s+[^?,]*?(?:,\s*|\s+(?=(?:is|are|was|were|can|could|does|do|did"
    r"|will|would|has|have|should|may|must)\s))",
    re.I,
)
"""A condition before the question: "If I snooze an alert(,) does …"."""


def verdict(question: str, sentence: str, topic: str = "", siblings: Sequence[str] = ()) -> Verdict | None:
    """What `sentence` answers to the yes/no `question`, or None when it does not decide it;
    `topic` is what its document is about (its title), which no sentence of it affirms; a table
    row decides only when it is the row the question names (`rows`; `siblings`: the other rows
    of its table the reader has)."""
    row = reading(question, sentence, siblings)
    if row is not None:
        return None if row == "other" else row
    amount = _by_amount(question, sentence)
    if amount is not None:
        return amount
    fields = _by_fields(question, sentence)
    if fields is not None:
        return fields
    if _negates(question, sentence):
        return "no"
    if _restricted_elsewhere(question, sentence):
        return "no"
    if names(question) and _states(question, sentence) and affirms(question, sentence, topic):
        return "yes"
    return None


def affirms(question: str, sentence: str, topic: str = "") -> bool:
    """`sentence` does what the question asks about, negating nothing there: it holds a verb of
    the question ("A member who loses a tool … pays the replacement cost" for "do I have to pay
    for them?"; "Snoozed alerts keep evaluating … but do not send notifications" for "does it
    keep checking a snoozed alert?"), not only its subject's words ("map lumen-admins to Admin"
    for "do they just end up as a Member?")."""
    if _negates(question, sentence) or _describes_its_document(question, sentence):
        return False
    if reading(question, sentence) == "other":
        return False  # another thing's table row
    verbs = {
        lemma for w in _WORD.findall(question.lower()) if w not in _AUXILIARY for lemma in _verb_lemmas(w)
    }
    return bool(verbs & _lemmas(sentence) - _lemmas(topic))


def _describes_its_document(question: str, sentence: str) -> bool:
    """The sentence says what its document is about ("This policy explains how long Lumen keeps
    the data"): it names the question's subject, not an answer to it, unless the question asks
    about the document itself ("Does the guide cover winter pruning?")."""
    described = _ABOUT_ITSELF.match(sentence)
    return described is not None and described.group(1).lower() not in question.lower()


_ABOUT_ITSELF = re.compile(
    r"^\s*(?:this|the|these)\s+(policy|guide|document|handbook|page|section|article|faq|manual|procedure"
    r"|agreement|notice|report|plan|note|checklist|chapter)\s+(?:\w+\s+)?(?:explains|describes|sets out"
    r"|covers|outlines|summari[sz]es|lists|defines|applies|gives|provides|is about|tells)\b",
    re.I,
)


def _negates(question: str, sentence: str) -> bool:
    """A part of the sentence about what the question asks negates it ("No data was lost"); a
    negation elsewhere ("… but do not send notifications" asked whether it keeps checking;
    "User not assigned to the Lumen app" asked about SHA-1) says nothing of it. A question
    that negates itself is not answered no by a negation."""
    if _NEGATION.search(question):
        return False
    clauses = [clause for clause in _CLAUSE.split(sentence) if clause.strip()]
    if len(clauses) <= 1:
        return bool(_NEGATION.search(sentence))  # "Ridgeway Board: no change"
    asked = _lemmas(question) - _lemmas(" ".join(names(question))) - _AUXILIARY - _GENERIC
    return any(_NEGATION.search(clause) and asked & _lemmas(clause) for clause in clauses)


_CLAUSE = re.compile(r"\b(?:but|except|however|although|though|whereas|while|unless)\b|[;()]", re.I)
_AUXILIARY = frozenset(
    "is are was were be been being am can could does do did will would has have had should may might must "
    "shall get got just".split()
)


def _lemmas(text: str) -> set[str]:
    return {lemma for w in _WORD.findall(text.lower()) for lemma in _all_lemmas(w)}


def _all_lemmas(word: str) -> set[str]:
    readings = getAllLemmas(word)
    return {lemma.lower() for forms in readings.values() for lemma in forms} | {word}


def _verb_lemmas(word: str) -> set[str]:
    return {lemma.lower() for lemma in getAllLemmas(word).get("VERB", ())}


def _restricted_elsewhere(question: str, sentence: str) -> bool:
    """The sentence limits the thing to names ("Enterprise only", "on Pro and Enterprise")
    among which the question's condition ("on the Team plan", or else any name it gives) is
    not."""
    if not (_ONLY.search(sentence) or _LIST_OF_NAMES.search(sentence)):
        return False
    conditions = CONDITION.findall(question) or names(question)
    return bool(conditions) and not any(has_name(sentence, name) for name in conditions)


def _by_amount(question: str, sentence: str) -> Verdict | None:
    """ "Free for a 100 GBP order?" against "orders over 150 GBP": the question's amount on the
    sentence's side of the threshold, in the same unit."""
    amounts = {
        m.group(2).lower(): _number(m.group(1))
        for m in re.finditer(rf"(?<![\w-]){_AMOUNT}", question)
        if m.group(2)
    }
    for threshold in _THRESHOLD.finditer(sentence):
        unit = (threshold.group(3) or "").lower()
        if unit in amounts:
            return _inside(amounts[unit], threshold.group(1).lower(), _number(threshold.group(2)))
    return None


def _inside(value: float, word: str, limit: float) -> Verdict:
    if word in ("over", "above", "more than", "greater than", "exceeding"):
        inside = value > limit
    elif word.startswith(("at least", "minimum", "from")):
        inside = value >= limit
    elif word in ("under", "below", "less than"):
        inside = value < limit
    else:  # up to, at most, maximum, within
        inside = value <= limit
    return "yes" if inside else "no"


def _by_fields(question: str, sentence: str) -> Verdict | None:
    """ "Is MS-300 below its reorder point?" against "Sheets on hand: 4200; Reorder point: 6000":
    the one other number of the row compared with the field the question names."""
    below, above = _BELOW.search(question), _ABOVE.search(question)
    if not (below or above):
        return None
    fields = [(label.strip().lower(), _number(value)) for label, value in _FIELD_NUMBER.findall(sentence)]
    asked_words = set(_WORD.findall(question.lower())) - _GENERIC
    named = [value for label, value in fields if set(_WORD.findall(label)) <= asked_words]
    others = [value for label, value in fields if not set(_WORD.findall(label)) <= asked_words]
    if len(named) != 1 or len(others) != 1:
        return None
    return "yes" if (others[0] < named[0]) == bool(below) else "no"


def _states(question: str, sentence: str) -> bool:
    """Every name the question gives is in the sentence, which negates nothing."""
    given = names(question)
    return bool(given) and all(has_name(sentence, n) for n in given)


def _number(text: str) -> float:
    return float(text.replace(",", ""))
