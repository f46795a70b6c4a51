"""E-mail: `.eml` (one message), `.mbox` (one document per message) and Outlook `.msg`.

Each message becomes a document named after its Message-ID (`mail-<hash>`), so a reply names the
document it answers (`in_reply_to`, from In-Reply-To or the last of References, which the
relationship extraction turns into `replies_to`) without knowing which file holds it. The text is
the message's own words: quoted replies (`>` lines, "On … wrote:", "-----Original Message-----"
and what follows) and the signature (after `-- `) are left out, so a thread's text is not indexed
once per reply. Attachments in a supported format become documents of their own, related to the
message (`attached_to`); others are listed by name."""

from __future__ import annotations

import contextlib
import hashlib
import mailbox
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path
from typing import Any, cast

from shu.errors import DocumentError, ShuError, SkipDocument
from shu.ingest.budget import OverBudget, current
from shu.ingest.convert.base import Converted, convert_documents
from shu.ingest.convert.html import html_to_markdown
from shu.text import slugify

MAX_DEPTH = 2
"""A message attached to a message attached to a message: deeper ones are listed, not opened."""
QUOTE_START = re.compile(
    r"^\s*(?:-{2,}\s*Original Message\s*-{2,}|_{10,}\s*$|On .{0,200}\bwrote:\s*$"
    r"|Am .{0,200}\bschrieb .{0,80}:\s*$|From: .+\n\s*(?:Sent|Date): )",
    re.I | re.M,
)
_SIGNATURE = re.compile(r"^-- ?$|^Sent from my \w+", re.M)
_MAIL_SUFFIXES = (".eml", ".mbox", ".msg")
_BOM = b"\xef\xbb\xbf"


@dataclass
class Mail:
    """What a message says, whatever format it came in."""

    subject: str
    sender: tuple[str, str]
    to: list[tuple[str, str]]
    cc: list[tuple[str, str]]
    date: datetime | None
    message_id: str
    in_reply_to: str
    references: list[str]
    body: str
    attachments: list[tuple[str, bytes]] = field(default_factory=list)
    forwarded: list[bytes] = field(default_factory=list)


def convert_eml(data: bytes, path: Path, depth: int = 0) -> list[Converted]:
    message = BytesParser(policy=policy.default).parsebytes(data.removeprefix(_BOM))
    if not any(message.get(h) for h in ("From", "To", "Subject", "Message-ID", "Date")):
        raise DocumentError("not an e-mail message (no From, To, Subject, Date or Message-ID header)")
    if depth == 0:
        current().make(1, "the message")
    return _documents(_from_email(message), path.stem, depth)


def convert_mbox(data: bytes, path: Path) -> list[Converted]:
    """One document per message; a reply with no In-Reply-To is threaded to the latest earlier
    message of the mailbox with the same subject ("Re: Budget" → "Budget"). A message that
    cannot be converted is skipped (and named) while the others are; a mailbox none of whose
    messages converts fails."""
    budget = current()
    with tempfile.NamedTemporaryFile(suffix=".mbox") as spooled:
        spooled.write(data.removeprefix(_BOM))
        spooled.flush()
        box = mailbox.mbox(spooled.name, create=False)
        try:
            keys = box.keys()
            budget.make(len(keys), f"its {len(keys):,} messages")
            raw = [box.get_bytes(key) for key in keys]
        finally:
            box.close()
    if not raw:
        raise SkipDocument("no messages in the mailbox")
    mails = []
    for b in raw:
        budget.tick()
        mails.append(_from_email(BytesParser(policy=policy.default).parsebytes(b)))
    _thread_by_subject(mails)
    documents: list[Converted] = []
    skipped: list[str] = []
    for number, mail in enumerate(mails, start=1):
        budget.tick()
        try:
            documents += _documents(mail, f"{path.stem}-{number}", 0)
        except OverBudget:
            raise
        except ShuError as exc:
            skipped.append(f"message {number}: {exc}")
    cut = [] if data.rstrip(b" \t").endswith(b"\n") else ["the mailbox ends mid-line (cut short?)"]
    if not documents:
        raise DocumentError(
            f"no message of the mailbox could be converted ({len(mails)} read; "
            f"{'; '.join([*skipped[:2], *cut])})"
        )
    documents[0].skipped += skipped
    documents[0].warnings += [f"message {len(mails)} may be incomplete: {c}" for c in cut]
    return documents


def convert_msg(data: bytes, path: Path) -> list[Converted]:
    import extract_msg

    if not data.startswith(b"\xd0\xcf\x11\xe0"):
        raise DocumentError("not an Outlook .msg file (no OLE compound-file header)")
    try:
        msg = extract_msg.openMsg(data)
    except Exception as exc:  # extract-msg raises many kinds on damaged files
        raise DocumentError(f"not a readable Outlook .msg file ({exc.__class__.__name__}: {exc})") from exc
    try:
        return _documents(_from_outlook(msg), path.stem, 0)
    finally:
        with contextlib.suppress(Exception):
            msg.close()


# -- reading each format -----------------------------------------------------------------------


def _from_email(message: Message) -> Mail:
    headers = {k.lower(): str(v) for k, v in message.items()}
    sender = _addresses(headers.get("from", ""), headers.get("x-from", ""))
    attachments, forwarded = _attachments(message)
    return Mail(
        subject=_clean(headers.get("subject", "")),
        sender=sender[0] if sender else ("", ""),
        to=_addresses(headers.get("to", ""), headers.get("x-to", "")),
        cc=_addresses(headers.get("cc", ""), headers.get("x-cc", "")),
        date=_date(headers.get("date", "")),
        message_id=parse_message_id(headers.get("message-id", "")),
        in_reply_to=parse_message_id(headers.get("in-reply-to", "")),
        references=[parse_message_id(r) for r in re.findall(r"<[^<>]+>", headers.get("references", ""))],
        body=_body(message),
        attachments=attachments,
        forwarded=forwarded,
    )


def _from_outlook(msg: Any) -> Mail:
    """A .msg's message. Threading comes from the transport headers when the file has them, else
    from the message's own properties (a copy from Sent Items has no headers); people come from
    the recipient table and the sender properties, so "Demir, Ayla" stays one person."""
    header = msg.header

    def told(name: str, stream: str) -> str:
        value = header.get(name) if header else None
        return str(value or msg.getStringStream(stream) or "")

    attachments = []
    for item in msg.attachments:
        name = getattr(item, "longFilename", None) or getattr(item, "shortFilename", None) or ""
        payload = getattr(item, "data", None)
        if name and isinstance(payload, bytes):
            attachments.append((name, payload))
    sender_name = person(str(msg.getStringStream("__substg1.0_0C1A") or ""))
    streams = (msg.getStringStream(f"__substg1.0_{tag}") for tag in ("5D01", "0C1F"))
    sender_email = next((str(v) for v in streams if v), "")
    sender = (sender_name, sender_email.lower()) if "@" in sender_email else _first(str(msg.sender or ""))
    recipients: dict[int, list[tuple[str, str]]] = {1: [], 2: []}  # 1: To, 2: Cc
    for recipient in getattr(msg, "recipients", []) or []:
        kind = int(getattr(recipient, "type", 1) or 1)
        address = str(getattr(recipient, "email", "") or "").lower()
        if kind in recipients and address:
            recipients[kind].append((person(str(getattr(recipient, "name", "") or "")), address))
    return Mail(
        subject=_clean(str(msg.subject or "")),
        sender=sender,
        to=recipients[1] or _addresses(str(msg.to or ""), ""),
        cc=recipients[2] or _addresses(str(msg.cc or ""), ""),
        date=msg.date if isinstance(msg.date, datetime) else _date(str(msg.date or "")),
        message_id=parse_message_id(told("Message-ID", "__substg1.0_1035")),
        in_reply_to=parse_message_id(told("In-Reply-To", "__substg1.0_1042")),
        references=[
            parse_message_id(r) for r in re.findall(r"<[^<>]+>", told("References", "__substg1.0_1039"))
        ],
        body=str(msg.body or ""),
        attachments=attachments,
    )


def _first(value: str) -> tuple[str, str]:
    found = _addresses(value, "")
    return found[0] if found else ("", "")


def _addresses(value: str, display: str) -> list[tuple[str, str]]:
    """(name, address) pairs; Enron-style `X-From: Phillip K Allen` (or `Allen, Phillip K
    </O=ENRON/…>`) names the bare addresses of `From:` when it lists as many people."""
    found = [(person(name), address.strip().lower()) for name, address in getaddresses([value]) if address]
    names = _display_names(display)
    if len(names) == len(found):
        found = [(name or shown, address) for (name, address), shown in zip(found, names, strict=True)]
    return found


def _display_names(display: str) -> list[str]:
    if not display.strip():
        return []
    entries = re.findall(r"([^<>]*?)\s*<[^<>]*>", display) if "<" in display else display.split(",")
    return [person(entry) for entry in entries]


def person(name: str) -> str:
    """`"Allen, Phillip K"` → `Phillip K Allen`; an address or a mailbox code is no name."""
    name = re.sub(r"\(e-?mail\)|@\w+$", "", name.strip(" ,;'\""), flags=re.I).strip(" ,;'\"")
    if "@" in name or "/" in name:
        return ""
    if name.count(",") == 1:
        last, first = (part.strip() for part in name.split(","))
        name = f"{first} {last}".strip()
    return " ".join(name.split())


def _body(message: Message) -> str:
    if not isinstance(message, EmailMessage):
        return str(message.get_payload())
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = part.get_content()
    except (LookupError, ValueError):  # an unknown charset: decode what can be decoded
        payload = part.get_payload(decode=True)  # bytes, or None: the body part is never multipart
        text = (payload if isinstance(payload, bytes) else b"").decode("utf-8", errors="replace")
    if part.get_content_subtype() == "html":  # its headings sit under the subject's
        markdown = html_to_markdown(f"<html><body>{text}</body></html>").markdown
        return re.sub(r"^(#{1,5}) ", r"#\1 ", markdown, flags=re.M)
    return str(text)


def _attachments(message: Message) -> tuple[list[tuple[str, bytes]], list[bytes]]:
    files: list[tuple[str, bytes]] = []
    forwarded: list[bytes] = []
    if not isinstance(message, EmailMessage):
        return files, forwarded
    for part in message.iter_attachments():
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()
            if isinstance(inner, list) and inner:
                forwarded.append(cast(Message, inner[0]).as_bytes())  # an rfc822 part holds [its Message]
            continue
        name = part.get_filename()
        payload = part.get_payload(decode=True)
        if name and isinstance(payload, bytes):
            files.append((name, payload))
    return files, forwarded


# -- one message → its documents ---------------------------------------------------------------


def message_documents(mail: Mail, fallback: str) -> list[Converted]:
    """A message read from elsewhere (a thread saved as text) → its document, exactly as a
    message of a mailbox becomes one: named by its Message-ID, else by `fallback`."""
    return _documents(mail, fallback, 0)


def _documents(mail: Mail, fallback: str, depth: int) -> list[Converted]:
    doc_id = mail_id(mail.message_id) if mail.message_id else slugify(fallback)
    own, quoted = _own_words(mail.body)
    attached: list[Converted] = []
    listed: list[str] = []
    current().make(len(mail.attachments) + len(mail.forwarded), f"the attachments of {_title(mail)!r}")
    for name, payload in mail.attachments:
        made, line = _attachment(name, payload, doc_id, mail, depth)
        attached += made
        listed.append(line)
    for number, raw in enumerate(mail.forwarded, start=1):
        made, line = _attachment(f"forwarded-{number}.eml", raw, doc_id, mail, depth)
        attached += made
        listed.append(line)
    message = Converted(
        markdown=_markdown(mail, own, quoted, listed),
        title=_title(mail),
        meta=_meta(mail, [a.doc_id for a in attached if a.doc_id]),
        doc_id=doc_id,
    )
    if not own.strip() and not attached and not mail.subject:
        raise SkipDocument("the message has no text")
    return [message, *attached]


def _attachment(
    name: str, payload: bytes, parent: str, mail: Mail, depth: int
) -> tuple[list[Converted], str]:
    suffix = Path(name).suffix.lower()
    if suffix in _MAIL_SUFFIXES and depth + 1 > MAX_DEPTH:
        return [], f"- {name} (a message nested too deeply; not opened)"
    try:
        if suffix == ".eml":
            made = convert_eml(payload, Path(name), depth + 1)
        else:
            made = convert_documents(Path(name), payload)
    except OverBudget:  # the budget is the whole file's: past it, nothing more is converted
        raise
    except ShuError as exc:
        return [], f"- {name} (not converted: {exc})"
    for number, part in enumerate(made):
        if suffix != ".eml" or number > 0 or not part.doc_id:
            part.doc_id = f"{parent}-{slugify(Path(name).stem) or 'attachment'}" + (
                f"-{number}" if number else ""
            )
        part.title = part.title or _first_heading(part.markdown) or name
        found = part.meta.get("relations")
        relations = found if isinstance(found, dict) else {}
        part.meta["relations"] = relations | {"attached_to": [parent]}
        part.meta.setdefault("date", mail.date.date().isoformat() if mail.date else None)
        part.meta["attachment_name"] = name
    return made, f"- {name} (attached document: {', '.join(p.doc_id or '' for p in made)})"


def _markdown(mail: Mail, own: str, quoted: int, listed: list[str]) -> str:
    lines = [f"# {_title(mail)}", ""]
    lines.append(f"**From:** {_shown(mail.sender)}  ")
    for label, people in (("To", mail.to), ("Cc", mail.cc)):
        if people:
            lines.append(f"**{label}:** {', '.join(_shown(p) for p in people)}  ")
    if mail.date:
        lines.append(f"**Date:** {mail.date.strftime('%Y-%m-%d %H:%M %z').strip()}  ")
    lines += ["", own.strip()]
    if quoted:
        lines += ["", f"*({quoted} quoted lines of earlier messages left out.)*"]
    if listed:
        lines += ["", "## Attachments", "", *listed]
    return "\n".join(lines).strip() + "\n"


def _first_heading(markdown: str) -> str | None:
    found = re.search(r"^# (.+)$", markdown, re.M)
    return found.group(1).strip() if found else None


def _title(mail: Mail) -> str:
    """The subject; a message without one is named by its sender and day."""
    if mail.subject:
        return mail.subject
    day = f", {mail.date.date().isoformat()}" if mail.date else ""
    return f"Message from {mail.sender[0] or mail.sender[1] or 'an unknown sender'}{day}"


def _meta(mail: Mail, attachments: list[str]) -> dict[str, Any]:
    parent = mail.in_reply_to or (mail.references[-1] if mail.references else "")
    participants = [{"name": n, "email": a, "role": "author"} for n, a in [mail.sender] if a]
    participants += [{"name": n, "email": a, "role": "recipient"} for n, a in [*mail.to, *mail.cc] if a]
    return {
        "type": "email",
        "date": mail.date.date().isoformat() if mail.date else None,
        "sent": mail.date.isoformat(timespec="minutes") if mail.date else None,
        "from": _shown(mail.sender),
        "to": [_shown(p) for p in mail.to],
        "cc": [_shown(p) for p in mail.cc],
        "subject": mail.subject,
        "message_id": mail.message_id,
        "in_reply_to": mail_id(parent) if parent else None,
        "in_reply_to_message_id": parent or None,
        "thread": mail_id(mail.references[0]) if mail.references else None,
        "participants": participants,
        "attachments": attachments,
    }


def _own_words(body: str) -> tuple[str, int]:
    """The message's own text, and how many quoted lines were left out."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    cut = QUOTE_START.search(text)
    quoted = 0
    if cut:
        quoted += text[cut.start() :].count("\n") + 1
        text = text[: cut.start()]
    signature = _SIGNATURE.search(text)
    if signature:
        text = text[: signature.start()]
    kept = []
    for line in text.split("\n"):
        if line.lstrip().startswith(">"):
            quoted += 1
        else:
            kept.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), quoted


def _thread_by_subject(mails: list[Mail]) -> None:
    latest: dict[str, Mail] = {}
    for mail in sorted(mails, key=lambda m: (m.date is None, m.date or datetime.min)):
        topic = _topic(mail.subject)
        if not mail.in_reply_to and not mail.references and topic != mail.subject.lower().strip():
            parent = latest.get(topic)
            if parent is not None and parent.message_id:
                mail.in_reply_to = parent.message_id
        if mail.message_id:
            latest[topic] = mail


def _topic(subject: str) -> str:
    return re.sub(r"^(?:\s*(?:re|aw|sv|fw|fwd)\s*:\s*)+", "", subject, flags=re.I).lower().strip()


def mail_id(message_id: str) -> str:
    """A message's document id, from its Message-ID alone (a reply can name its parent's)."""
    return "mail-" + hashlib.sha1(message_id.strip("<> ").lower().encode()).hexdigest()[:12]


def parse_message_id(value: str) -> str:
    found = re.search(r"<([^<>]+)>", value)
    return (found.group(1) if found else value).strip().strip("<>").strip()


def _date(value: str) -> datetime | None:
    if not value:
        return None
    with contextlib.suppress(TypeError, ValueError, IndexError):
        return parsedate_to_datetime(value)
    return None


def _clean(value: str) -> str:
    return " ".join(value.split())


def _shown(person: tuple[str, str]) -> str:
    name, address = person
    return f"{name} <{address}>" if name and address else name or address
