"""A mail thread saved as text (`.txt`, `.text`): one document per message, as a mailbox gives.

A reply saved or pasted as text keeps the messages it answers below it, each after a reply
separator (`-----Original Message-----`, `---------- Forwarded message ---------`, an Outlook
`From: … Sent: …` block, `On <date>, <name> wrote:` over `>`-quoted lines). Indexed as one
text, an answer would quote the header lines of the messages below; read as a thread, each
message becomes the document an `.eml` gives (`shu.ingest.convert.mail`): sender, recipients and
date in its frontmatter, its own words as its text (its signature and `>` lines quoting another
left out, as in an e-mail), `in_reply_to` (→ `replies_to`) naming the message it answers (a
forwarding message `references` the one it forwards) and `thread` the first message.

The reading is conservative: a text is a thread only when it opens with mail headers, has a
separator, and every message (the first, and each after a separator) names its sender (From)
and its date (Date or Sent). Otherwise it stays one document with every line kept, and, when it
looked like a thread, a warning saying why. A date that cannot be read leaves its message
undated, with a warning.

Messages are numbered from the oldest (`<file>-1` is the thread's first message, at the bottom
of the file), so a thread saved again with a new reply on top keeps its documents' ids; a
message with a Message-ID header is named by it, as in a mailbox. A message quoted under "On …
wrote:" has no Subject line: it takes the subject of the message that quotes it, without
`Re:`."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path

from shu.errors import DocumentError, ShuError
from shu.ingest.budget import OverBudget, current
from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text
from shu.ingest.convert.mail import QUOTE_START, Mail, message_documents, parse_message_id, person
from shu.ingest.convert.text import email_headers, from_text
from shu.ingest.dates import find_date

_SEPARATOR = re.compile(rf"^\s*-{{2,}}\s*Forwarded message\s*-{{2,}}\s*$|{QUOTE_START.pattern}", re.I | re.M)
"""Where a quoted or forwarded message starts: mail.py's quote starts (so that no message's own
words are cut where the thread is not split), and Gmail's forwarded-message line."""
_WROTE = re.compile(r"^On\s+(?P<rest>.+?)\s+wrote:$", re.I)
_SCHRIEB = re.compile(r"^Am\s+(?P<when>.+?)\s+schrieb\s+(?P<who>.+?)\s*:$", re.I)
_TIME = re.compile(
    r"[\s,]*(?:at\s+|um\s+)?(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?(?:\s*(?P<ampm>[ap])\.?m\.?)?"
    r"(?:\s*(?:(?P<sign>[+-])(?P<oh>\d{2}):?(?P<om>\d{2})|(?P<utc>UTC|GMT|Z)\b))?",
    re.I,
)
_DOTTED = re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.\s?(?P<m>\d{1,2})\.\s?(?P<y>\d{4})(?!\d)")
"""3.3.2026: day first wherever dots are written (German, Nordic, Slavic mail programs)."""
_REPLY_PREFIX = re.compile(r"^(?:\s*(?:re|aw|sv|fw|fwd)\s*:\s*)+", re.I)
_MAILTO = re.compile(r"\[mailto:([^\]\s]+)\]", re.I)
_ADDRESS = re.compile(r"<([^<>\s]+@[^<>\s]+)>|([\w.+'-]+@[\w-]+(?:\.[\w-]+)+)")
_HEADER_WINDOW = 20_000
"""Characters a separator's header block is read from (a long To: list fits)."""


@dataclass
class Part:
    """One message of a thread as the text gives it."""

    headers: dict[str, str]
    """Lower-case names: from, date (or sent), to, cc, subject, message-id, in-reply-to."""
    text: str = ""
    forwarded: bool = False
    """It was forwarded by the message above it, not answered."""
    quoted: bool = False
    """It was quoted under "On … wrote:" (no header block of its own)."""


@dataclass
class Thread:
    parts: list[Part] = field(default_factory=list)
    """Newest first, as the text gives them; empty when the text is not a thread."""
    problem: str = ""
    """Why a text that looked like a thread is kept as one document."""


def convert(data: bytes, path: Path) -> Converted | list[Converted]:
    text, encoding = decode_text(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    headers, body = email_headers(text)
    thread = read_thread(headers, body) if headers else Thread()
    if not thread.parts:
        single = from_text(text, encoding)
        single.warnings += [thread.problem] if thread.problem else []
        return single
    documents = thread_documents(thread.parts, path)
    if not encoding.startswith("utf"):
        documents[0].warnings.insert(0, f"decoded as {encoding}")
    return documents


# -- reading the messages ----------------------------------------------------------------------


def read_thread(headers: dict[str, str], body: str) -> Thread:
    """The messages of a text whose mail headers (`headers`) open it, newest first; none, with
    the reason, when the text is not a thread by the rule above."""
    budget = current()
    parts: list[Part] = []
    current_part, text, pos = Part(headers), body, 0
    while (found := _SEPARATOR.search(text, pos)) is not None:
        budget.tick()
        current_part.text = text[pos : found.start()]
        parts.append(current_part)
        step = _next_part(text, found)
        if isinstance(step, str):
            return Thread(problem=f"kept as one document: message {len(parts) + 1} {step}")
        current_part, text, pos = step
    current_part.text = text[pos:]
    parts.append(current_part)
    if len(parts) == 1:
        return Thread()
    unnamed = next((n for n, p in enumerate(parts, start=1) if not _sender_and_date(p.headers)), 0)
    if unnamed:
        return Thread(
            problem=f"kept as one document: message {unnamed} of the thread names no sender (From) "
            "or no date (Date, Sent)"
        )
    return Thread(parts)


def _next_part(text: str, found: re.Match[str]) -> tuple[Part, str, int] | str:
    """The message a separator opens, the text it is read from and where its text starts; or
    what is wrong with it."""
    start = found.start() + len(found.group(0)) - len(found.group(0).lstrip())
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    line = text[start:end].strip()
    if line.lower().startswith(("on ", "am ")):
        return _quoted_part(line, text, end + 1)
    header_start = start if line.lower().startswith("from:") else end + 1
    headers, body_start = _header_block(text, header_start)
    if not headers:
        return f"(after {line[:60]!r}) has no header lines (From, Date or Sent)"
    return Part(headers, forwarded="forwarded message" in line.lower()), text, body_start


def _header_block(text: str, start: int) -> tuple[dict[str, str], int]:
    """The mail headers from `start` (blank lines before them skipped) and where they end."""
    while start < len(text) and text[start].isspace():
        start += 1
    window = text[start : start + _HEADER_WINDOW]
    headers, rest = email_headers(window)
    return (headers, start + len(window) - len(rest)) if headers else ({}, start)


def _quoted_part(line: str, text: str, start: int) -> tuple[Part, str, int] | str:
    """The message quoted under an "On <date>, <name> wrote:" line: its `>` lines, one level of
    quoting removed. Text after the quote (a reply written below it) keeps the file one document."""
    headers = _attribution(line)
    if not headers:
        return f"({line[:60]!r}) names no date or no sender"
    lines = text[start:].split("\n")
    quoted = 0
    while quoted < len(lines) and (lines[quoted].startswith(">") or not lines[quoted].strip()):
        quoted += 1
    if any(rest.strip() for rest in lines[quoted:]):
        return f"(after {line[:60]!r}) is followed by text below the quote"
    unquoted = [ln[2:] if ln.startswith("> ") else ln[1:] if ln.startswith(">") else ln for ln in lines]
    return Part(headers, quoted=True), "\n".join(unquoted), 0


def _attribution(line: str) -> dict[str, str]:
    """`On Tue, Mar 3, 2026 at 3:27 PM Priya Raman <priya@…> wrote:` → from and date."""
    german = _SCHRIEB.match(line)
    if german:
        when, who = german.group("when"), german.group("who")
    else:
        english = _WROTE.match(line)
        if english is None:
            return {}
        rest = english.group("rest")
        end = _when_span(rest)[1]
        when, who = rest[:end], rest[end:]
    who = who.strip(" ,")
    if not who or _when_span(when)[0] is None:
        return {}
    return {"from": who, "date": when.strip(" ,")}


def _sender_and_date(headers: dict[str, str]) -> bool:
    return bool(headers.get("from", "").strip()) and bool(
        (headers.get("date") or headers.get("sent") or "").strip()
    )


# -- dates and people, as mail programs write them in text -------------------------------------


def _when_span(value: str) -> tuple[datetime | None, int]:
    """The date (with its time and zone, when written) that `value` states first, and where
    its writing ends; (None, 0) when it states none."""
    day_found = find_date(value)
    if day_found is None:
        dotted = _DOTTED.search(value)
        day_found = _dotted_day(dotted) if dotted else None
    if day_found is None:
        return None, 0
    day, end = day_found
    time = _TIME.match(value, end)
    if time is None:
        return datetime(day.year, day.month, day.day), end
    hour, half = int(time.group("h")), (time.group("ampm") or "").lower()
    if half:  # 12:05 AM is 00:05, 12:05 PM is 12:05
        hour = hour % 12 + (12 if half == "p" else 0)
    try:
        moment = datetime(day.year, day.month, day.day, hour, int(time.group("m")), int(time.group("s") or 0))
    except ValueError:  # 25:70
        return datetime(day.year, day.month, day.day), end
    return moment.replace(tzinfo=_zone(time)), time.end()


def _dotted_day(found: re.Match[str]) -> tuple[datetime, int] | None:
    with contextlib.suppress(ValueError):
        return datetime(int(found.group("y")), int(found.group("m")), int(found.group("d"))), found.end()
    return None


def _zone(time: re.Match[str]) -> timezone | None:
    if time.group("utc"):
        return UTC
    if not time.group("sign"):
        return None
    offset = timedelta(hours=int(time.group("oh")), minutes=int(time.group("om")))
    return timezone(-offset if time.group("sign") == "-" else offset)


def _when(value: str) -> datetime | None:
    found = _when_span(value)[0]
    if found is None and value.strip():
        with contextlib.suppress(TypeError, ValueError, IndexError):
            found = parsedate_to_datetime(value)
    return found


def _people(value: str) -> list[tuple[str, str]]:
    """(name, address) of each person a From/To/Cc line names: `Priya Raman <priya@…>`,
    `Raman, Priya; support@…` (Outlook's `;`), `Tomas Ferreira [mailto:tomas@…]`, or a name alone."""
    found: list[tuple[str, str]] = []
    for entry in _MAILTO.sub(r"<\1>", value).split(";"):
        if entry.count("@") > 1:  # a, b or "A" <a>, "B" <b>
            found += [(person(name), address.lower()) for name, address in getaddresses([entry]) if address]
        elif entry.strip():
            found.append(_one_person(entry))
    return found


def _one_person(entry: str) -> tuple[str, str]:
    address = _ADDRESS.search(entry)
    if address is None:
        return person(entry), ""
    name = (entry[: address.start()] + entry[address.end() :]).strip(" ,\"'")
    return person(name), (address.group(1) or address.group(2)).lower()


# -- the messages → documents ------------------------------------------------------------------


def thread_documents(parts: list[Part], path: Path) -> list[Converted]:
    """One document per message, oldest first, linked as replies (or forwards) to the message
    each answers. A message that cannot be converted is skipped and named, as in a mailbox."""
    budget = current()
    budget.make(len(parts), f"its {len(parts):,} messages")
    mails, warnings = _mails(parts)
    documents: list[Converted] = []
    skipped: list[str] = []
    previous: tuple[Converted, Part] | None = None
    for number, (part, mail) in enumerate(zip(reversed(parts), reversed(mails), strict=True), start=1):
        budget.tick()
        try:
            message = message_documents(mail, f"{path.stem}-{number}")[0]
        except OverBudget:
            raise
        except ShuError as exc:
            skipped.append(f"message {number}: {exc}")
            continue
        if previous is not None:
            _link(message, *previous)
        documents.append(message)
        previous = (message, part)
    if not documents:
        raise DocumentError(f"no message of the thread could be converted ({'; '.join(skipped[:2])})")
    documents[0].skipped += skipped
    documents[0].warnings += warnings
    return documents


def _mails(parts: list[Part]) -> tuple[list[Mail], list[str]]:
    """Each part as a mail message (newest first), and a warning for each date not understood."""
    mails: list[Mail] = []
    warnings: list[str] = []
    subject_above = ""
    for number, part in enumerate(parts):
        headers = part.headers
        written = headers.get("date") or headers.get("sent") or ""
        subject = headers.get("subject") or (_REPLY_PREFIX.sub("", subject_above) if part.quoted else "")
        sender = _people(headers.get("from", ""))
        mail = Mail(
            subject=" ".join(subject.split()),
            sender=sender[0] if sender else ("", ""),
            to=_people(headers.get("to", "")),
            cc=_people(headers.get("cc", "")),
            date=_when(written),
            message_id=parse_message_id(headers.get("message-id", "")),
            in_reply_to=parse_message_id(headers.get("in-reply-to", "")),
            references=[],
            body=part.text,
        )
        if mail.date is None:
            warnings.append(
                f"message {len(parts) - number} ({mail.sender[0] or mail.sender[1]}): "
                f"date {written[:40]!r} not understood; left undated"
            )
        mails.append(mail)
        subject_above = mail.subject
    return mails, warnings


def _link(message: Converted, older: Converted, older_part: Part) -> None:
    """`message` answers `older` (the message below it in the text), or forwards it."""
    if older_part.forwarded:
        relations = message.meta.get("relations")
        message.meta["relations"] = (relations if isinstance(relations, dict) else {}) | {
            "references": [older.doc_id]
        }
        return
    if not message.meta.get("in_reply_to"):
        message.meta["in_reply_to"] = older.doc_id
    if not message.meta.get("thread"):
        message.meta["thread"] = older.meta.get("thread") or older.doc_id
