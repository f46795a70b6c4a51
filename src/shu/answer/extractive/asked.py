"""What a question asks for, read from its wording: a cause, how something was resolved, what
was decided, who attended, where, when, who. Each kind names the section headings that answer it
("Root cause", "Resolution", "Decisions", "Attendees") and the field labels that state it
("**Where:**", "Organiser:"), so the reader reads those first. A question of none of these kinds
asks for nothing in particular (the reader ranks by meaning and words alone)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Asked:
    kind: str
    headings: re.Pattern[str] | None = None
    """Section headings whose text answers the question."""
    fields: re.Pattern[str] | None = None
    """Field labels (`Label: value`) that state the answer."""
    many: bool = False
    """The answer is several facts (every decision, every attendee): more sentences are kept."""
    first: bool = True
    """Sentences under an answering heading or field come before the rest (a "who" or "when"
    field of another event is no answer: for those, the field only counts)."""

    def every(self, question: str) -> bool:
        """The question wants all of them ("what was decided at the meeting"), not the one
        about something ("what did the meeting decide about drip irrigation")."""
        return self.many and not _ABOUT.search(question)

    def in_heading(self, section_path: str) -> bool:
        """A heading under the document's title answers it (the title names the document)."""
        headings = section_path.split(" > ")[1:]
        return self.headings is not None and any(self.headings.search(h) for h in headings)

    def states(self, text: str) -> bool:
        """A line of `text` is a field stating the answer ("Decision: …")."""
        return any(self.in_field(_MARKUP.sub("", line).strip()) for line in text.splitlines())

    def in_field(self, sentence: str) -> bool:
        """`sentence` holds a field stating the answer: "Where: …", or "… Place: …" in a line of
        several fields."""
        if self.fields is None:
            return False
        labels = re.findall(r"(?:^|[.;,]\s*|\s)([A-Z][\w ]{0,29}):\s", sentence)
        return any(self.fields.search(label) for label in labels)


_MARKUP = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+|\*\*|__")


_ABOUT = re.compile(r"\b(?:about|regarding|concerning|on whether)\b", re.I)


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_ATTENDEES = Asked(
    "attendees",
    headings=_words(r"\b(?:attendees|participants|present|invit\w*)\b"),
    fields=_words(r"\b(?:attendees|participants|present|invited|organi[sz]er)\b"),
    many=True,
)
_DECISION = Asked(
    "decision",
    headings=_words(r"\b(?:decisions?|decided|resolutions?|agreed|votes?|outcomes?|motions?)\b"),
    fields=_words(r"\b(?:decisions?|decided|agreed|resolved|outcome)\b"),
    many=True,
)
_RESOLUTION = Asked(
    "resolution",
    headings=_words(
        r"\b(?:resolution|resolved|fix\w*|solutions?|workaround|outcome|repair\w*|follow-?up|action items?"
        r"|next steps)\b"
    ),
    fields=_words(r"\b(?:resolution|fix|solution|status|outcome|action)\b"),
)
_CAUSE = Asked(
    "cause",
    headings=_words(r"\b(?:root cause|causes?|why|reasons?|what went wrong|contributing)\b"),
    fields=_words(r"\b(?:cause|reason)\b"),
)
_WHERE = Asked(
    "where",
    headings=_words(r"\b(?:location|where|venue|address|directions)\b"),
    fields=_words(r"\b(?:where|location|venue|room|place|address)\b"),
)
_WHEN = Asked("when", fields=_words(r"\b(?:when|starts?|time)\b"), first=False)
_WHO = Asked(
    "who",
    fields=_words(r"\b(?:organi[sz]er|owner|contact|lead|commander|chair|responsible|assigned|from)\b"),
    first=False,
)
_LIST = Asked("list", many=True, first=False)

_PLURAL_THINGS = _words(
    r"^\s*(?:which|what)\s+(?:[\w-]+\s+){0,2}?[\w-]+s\s+(?:do|does|did|are|were|can|could|should|must|need"
    r"|have|has|had|will|would|in|on|at|of|for|from|to|that|we|i|you|they|appear|appeared|exist|existed"
    r"|cost|show|showed|use|used|remain|belong|got|went)\b"
)
"""Which things, plural: "Which power tools in the shed …", "What problems did the drill turn up"."""
_WHICH_WERE_FIXED = _words(
    r"^\s*which\s+(?:[\w-]+\s+){0,2}?[\w-]+s\s+(?:were|are|have been|got|did \w+)\s+"
    r"(?:fix|resolv|solv|clos)\w*"
)
"""Which things were fixed ("Which tickets were fixed in 4.7?") asks for a list, not for a repair."""

_KINDS: list[tuple[re.Pattern[str], Asked]] = [
    (
        _words(
            r"\b(?:who (?:attend\w*|is attending|was present|were present|came)|attendees|participants"
            r"|who(?:'s| is| are| was| were)? (?:invited|coming))\b"
        ),
        _ATTENDEES,
    ),
    (_words(r"^\s*where\b"), _WHERE),  # the question word first: "where is the repair review"
    (_words(r"^\s*when\b"), _WHEN),
    (_words(r"^\s*why\b|\bhow come\b"), _CAUSE),
    (_words(r"\b(?:decid\w*|decisions?|agreed?|approv\w*|vot(?:e|ed|es))\b"), _DECISION),
    (_WHICH_WERE_FIXED, _LIST),  # which things were fixed, not how
    (
        _words(
            r"\b(?:resolv\w*|resolution|fix(?:ed)?|solv\w*|workaround|addressed|mitigat\w*|remed\w*)\b"
            r"|\bwhat happened (?:with|to)\b|\bwhat(?:'s| is| was) (?:being )?done\b|\bprevent\w*\b"
            r"|\bmake sure\b.*\b(?:again|never|not|n't)\b|\b(?:happen|recur)\w* again\b"
        ),
        _RESOLUTION,
    ),
    (_words(r"\b(?:caus\w*|reasons?|root cause)\b"), _CAUSE),
    (_words(r"\b(?:location|venue|which room|what room|address)\b"), _WHERE),
    (_words(r"\bwhat (?:time|date|day)\b"), _WHEN),
    (_words(r"^\s*who\b|\bwhich (?:person|engineer|member|people)\b"), _WHO),
    (_words(r"^\s*(?:what|which) (?:are|were)\b|\bwhat (?:kinds?|types?) of\b|\blist\b"), _LIST),
    (_PLURAL_THINGS, _LIST),
]


def asked(question: str) -> Asked | None:
    """The kind of answer `question` asks for, or None when it asks for nothing in particular."""
    for wording, kind in _KINDS:
        if wording.search(question):
            return kind
    return None
