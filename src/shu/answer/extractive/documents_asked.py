"""What a question about the documents themselves asks for ("which emails mention the compost
bins", "is SCIM covered anywhere", "which calendar invites is Sofia on"): the subject the
documents must hold, and the kind of document the question calls them by, when it names one
(emails, meeting minutes, release notes: only documents of those types are listed)."""

from __future__ import annotations

import re
from dataclasses import dataclass

DOCUMENT_NOUNS = (
    r"(?:(?:calendar|meeting|release|press|support|email|e-mail|chat)\s+)?"
    r"(?:docs?|documents?|files?|pages?|notes|sources|records|guides?|emails?|e-mails?|messages?"
    r"|reports?|articles?|stories|posts?|chats?|conversations?|sessions?|threads?|letters?|memos?"
    r"|tickets?|minutes|invites?|invitations?|events?|meetings?|newsletters?|polic(?:y|ies)|faqs?"
    r"|slides?|decks?|presentations?|spreadsheets?|sheets?|releases?|handbooks?|manuals?)"
)
"""What a question may call the documents it asks about ("which chats", "how many articles",
"which meeting minutes")."""
_TYPES = {
    "email": ("email",),
    "e-mail": ("email",),
    "message": ("email", "chat"),
    "chat": ("chat",),
    "conversation": ("chat",),
    "meeting": ("meeting", "meeting_notes"),
    "minutes": ("meeting_notes",),
    "meeting notes": ("meeting_notes",),
    "email message": ("email",),
    "e-mail message": ("email",),
    "chat message": ("chat",),
    "invite": ("meeting",),
    "invitation": ("meeting",),
    "event": ("meeting",),
    "release notes": ("release_notes",),
    "press release": ("press",),
    "newsletter": ("newsletter",),
    "policy": ("policy",),
    "faq": ("faq",),
    "slide": ("slides",),
    "deck": ("slides",),
    "presentation": ("slides",),
    "spreadsheet": ("spreadsheet",),
    "sheet": ("spreadsheet",),
    "guide": ("guide",),
    "handbook": ("guide", "policy"),
    "manual": ("guide",),
    "report": ("report",),
    "memo": ("memo", "tech_memo"),
    "ticket": ("ticket",),
}
"""The document types a noun names ("emails": documents of type email)."""


def types_named(noun: str) -> frozenset[str] | None:
    """The document types `noun` names, else None (documents of every type)."""
    words = noun.lower().split()
    if not words:
        return None
    last = words[-1]
    singular = last if last in ("minutes", "notes") else last.removesuffix("s")
    singular = "policy" if singular == "policie" else singular
    two = f"{words[-2]} {singular}" if len(words) > 1 else ""
    found = _TYPES.get(two) or _TYPES.get(singular)
    return frozenset(found) if found else None


_VERB = (
    r"(?:mentions?|covers?|deals? with|talks? about|discuss(?:es)?|describes?|refers? to|records?|explains?"
    r"|says? (?:anything )?about|says?(?: (?:whether|if|that|how|what|when|who|where|which))?"
    r"|(?:have|has) (?:anything )?(?:on|about)|(?:is|are) about|touch(?:es)? on|contains?|includes?"
    r"|(?:have|has) (?:information|info|details) (?:on|about))"
)
_SUBJECT = r"\s+(?P<subject>.+)$"
"""The rest of the question (read without its closing marks: `asks_which_documents`)."""
_PATTERNS = (
    # which emails mention X; what docs say whether X
    rf"^(?:which|what)\s+(?:of (?:the|our|my) )?(?P<noun>{DOCUMENT_NOUNS})\s+(?:do|does|did)?\s*{_VERB}"
    + _SUBJECT,
    # which calendar invites is Sofia on
    rf"^(?:which|what)\s+(?P<noun>{DOCUMENT_NOUNS})\s+(?:is|are|was|were)\s+(?P<subject>.+?)\s+"
    r"(?:on|in|invited to|at|part of|(?:cc'?d|copied|included) on)$",
    # where can I read about X
    r"^where\s+(?:can|could|do|should|would|might)\s+(?:i|we|you|one)\s+(?:read|find|look|learn|get|see)\s+"
    r"(?:up\s+)?(?:more\s+)?(?:(?:information|info|advice|anything|something|details|guidance|documentation|"
    r"material|more)\s+)?(?:about|on|regarding|for|of|into)" + _SUBJECT,
    # where does Jon talk about X
    r"^where\s+(?:does|did|do)\s+(?!it\b).+?\s+(?:talk|write|speak|say anything)\s+about" + _SUBJECT,
    # where does it say X; where is it written that X
    r"^where\s+(?:does|did)\s+it\s+(?:say|mention|tell(?: me| us)?)(?:\s+(?:that|whether|if))?" + _SUBJECT,
    # where is X documented; where's X discussed
    r"^where(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?P<subject>.+?)\s+"
    r"(?:documented|described|written (?:down|up)|covered|explained|discussed|mentioned|talked about"
    r"|dealt with|brought up|raised)$",
    # is X covered anywhere
    r"^(?:is|are|was|were)\s+(?P<subject>.+?)\s+"
    r"(?:covered|mentioned|discussed|documented|described|explained|written (?:up|down)|addressed)\s+"
    rf"(?:anywhere|somewhere|in any (?P<noun>{DOCUMENT_NOUNS}))$",
    # is there a guide about X; do we have any docs on X
    rf"^(?:is there|are there|do (?:we|you) have|have (?:we|you) got|got)\s+(?:a|an|any)\s+"
    rf"(?:(?P<noun>{DOCUMENT_NOUNS})|anything|something)\s+"
    r"(?:on|about|covering|regarding|that (?:mentions?|covers?))" + _SUBJECT,
    # any docs on X
    rf"^any\s+(?P<noun>{DOCUMENT_NOUNS})\s+(?:on|about|covering|regarding|that (?:mention|cover))" + _SUBJECT,
    # do we have anything on X; what do we have on X
    r"^(?:do|does)\s+(?:we|you|anyone|anybody)\s+have\s+anything\s+(?:on|about|regarding)" + _SUBJECT,
    r"^what\s+(?:do|have|did)\s+(?:we|you)\s+(?:got\s+|have\s+)?(?:on|about|regarding)" + _SUBJECT,
    # find me everything about X; show me the emails about X
    r"^(?:please\s+)?(?:find|show|give|get|list|pull up)\s+(?:me\s+|us\s+)?"
    rf"(?:everything|anything|all(?: the| of the)?(?: (?P<noun>{DOCUMENT_NOUNS}))?"
    rf"|every (?P<noun2>{DOCUMENT_NOUNS})|the (?P<noun3>{DOCUMENT_NOUNS})(?<=s))\s+"
    r"(?:about|on|regarding|covering|that (?:mention|cover|discuss))" + _SUBJECT,
)
_ASKED = tuple(re.compile(pattern, re.I) for pattern in _PATTERNS)
_ARTICLE = re.compile(r"^(?:the|our|my|a|an|any|some|that|whether|if)\s+", re.I)
_IDEA = re.compile(r"^(?:idea|topic|subject|question|matter|issue|business)\s+of\s+", re.I)
_ASKING_VERB = re.compile(
    r"^(?:getting|using|having|doing|making|looking|finding|asking|seeing|reading|hearing)\s+"
    r"(?:(?:for|at|into|up|about|on|to)\s+)?(?=\w)",
    re.I,
)
"""A light verb of the asking ("mention getting alerts in Teams" asks about alerts; "testing the
soil" about testing)."""
_RELATIVE = r"(?:that|which|who|whose|when|where)"
_CLAUSE = re.compile(rf"(?:,\s*(?:i\.e\.|e\.g\.|{_RELATIVE})|\s+{_RELATIVE})\s+", re.I)
"""Where a description of the subject begins ("the break-glass login that lets an Owner bypass
SSO", "an alert for a while, i.e. snoozing it"): the subject is what comes before."""


_AGENDA = re.compile(
    r"^(?:today|tonight|tomorrow|this|next|the weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", re.I
)
"""A time, not a subject: "what do we have on Friday" asks what is planned."""


@dataclass(frozen=True)
class DocumentsAsked:
    subject: str
    """what the documents must hold ("rats")"""
    noun: str = ""
    """what the question calls the documents ("emails"; empty: it names none)"""
    described: str = ""
    """the subject with the words describing it, when a clause does ("break-glass login that
    lets an Owner bypass SSO"): a document holding most of these covers it too"""

    @property
    def types(self) -> frozenset[str] | None:
        """The document types the noun names (None: every type)."""
        return types_named(self.noun)


def asks_which_documents(question: str) -> DocumentsAsked | None:
    """The subject of a question that asks which documents cover it (and what it calls them),
    else None."""
    text = " ".join(question.replace("\u2019", "'").split()).rstrip(" ?.!")
    for pattern in _ASKED:
        match = pattern.match(text)
        if match and not _AGENDA.match(match.group("subject")):
            noun = next((v for k, v in match.groupdict().items() if k.startswith("noun") and v), "")
            subject, described = head_of(match.group("subject"))
            return DocumentsAsked(subject, noun.lower(), described) if subject else None
    return None


def head_of(subject: str) -> tuple[str, str]:
    """The subject without its article, "the idea of" or the verb of the asking, and without
    the clause that describes it (when something is named before the clause); and, when a
    clause was cut, the subject with it (else empty)."""
    plain = _stripped(_ARTICLE, subject.strip())
    named = _IDEA.sub("", plain, count=1)
    if named != plain or plain == subject.strip():  # no article before a verb of the asking
        named = _stripped(_ARTICLE, _ASKING_VERB.sub("", named, count=1))
    cut = _CLAUSE.search(named)
    if cut is not None and cut.start() > 0 and re.search(r"\w{3}", named[: cut.start()]):
        return named[: cut.start()].strip(" ,;:"), named.strip(" ,;:")
    return named.strip(" ,;:"), ""


def _stripped(pattern: re.Pattern[str], text: str) -> str:
    """`text` without every leading match of `pattern` ("that the fire alarm" → "fire alarm")."""
    while (shorter := pattern.sub("", text, count=1)) != text:
        text = shorter
    return text
