"""Chat exports (.json, .jsonl) → one Markdown document per conversation, one `## YYYY-MM-DD`
section per day, one `**author** (YYYY-MM-DD HH:MM): text` paragraph per message.

Recognised, in this order: a Slack export (messages with `user`/`user_name`/`user_profile`, `ts`,
`text`), a ChatGPT `conversations.json` (conversations with a `mapping` of message nodes), and a
generic list (or JSON Lines) of messages with an author, a time and a text key, optionally a
conversation key; a `{"messages": [...]}` wrapper around any of them is unwrapped. Any other JSON
is skipped, not failed: a configuration file is not a broken chat."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, SkipDocument
from shu.ingest.budget import current
from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text
from shu.markdown import FENCE
from shu.text import slugify

MAX_MESSAGES = 200_000
MAX_ID_CHARS = 80
_AUTHOR_KEYS = ("author", "user", "from", "sender", "name", "role")
_TIME_KEYS = ("time", "timestamp", "ts", "date", "created_at", "datetime")
_TEXT_KEYS = ("text", "content", "message", "body")
_CONVERSATION_KEYS = ("conversation", "channel", "thread", "chat", "room", "conversation_id")
_WRAPPER_NAME_KEYS = ("name", "title", "channel", "conversation", "chat", "room")
_SLACK_AUTHOR_KEYS = ("user", "user_name", "user_profile")
_SLACK_NOISE = frozenset({"channel_join", "channel_leave", "bot_add", "bot_remove", "channel_purpose"})
_DATE_STEM = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SLACK_MARKUP = re.compile(r"<([@#!])?([^<>|]+)(?:\|([^<>]*))?>")
_ATX = re.compile(r"^(\s{0,3})(#{1,6})(?=\s|$)")
_SETEXT = re.compile(r"^(\s{0,3})(=+|-+)\s*$")
_FENCE_START = re.compile(r"^(\s*)(`{3}|~{3})")


@dataclass
class _Message:
    author: str
    text: str
    when: dt.datetime | None
    timed: bool = True
    """False when the export gave a date without a time of day."""
    email: str | None = None


@dataclass
class _Conversation:
    name: str
    messages: list[_Message] = field(default_factory=list)


@dataclass
class _Parsed:
    platform: str | None
    conversations: list[_Conversation]
    warnings: list[str] = field(default_factory=list)


def convert_json(data: bytes, path: Path) -> list[Converted]:
    text, _ = decode_text(data)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    return _documents(_parse(value, path), path)


def convert_jsonl(data: bytes, path: Path) -> list[Converted]:
    text, _ = decode_text(data)
    records: list[Any] = []
    bad: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            bad.append(f"line {number}, column {exc.colno}: {exc.msg}")
    if not records:
        raise DocumentError(f"invalid JSON Lines at {bad[0]}" if bad else "no JSON lines")
    parsed = _parse(records, path)
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        parsed.warnings.insert(0, f"skipped invalid JSON at {bad[0]}{more}")
    return _documents(parsed, path)


# -- recognising the export ----------------------------------------------------------------


def _parse(value: Any, path: Path) -> _Parsed:
    wrapper_name: str | None = None
    if isinstance(value, dict):
        if isinstance(value.get("mapping"), dict):  # one ChatGPT conversation on its own
            value = [value]
        elif isinstance(value.get("messages"), list):
            wrapper_name = _wrapper_name(value)
            value = value["messages"]
        elif isinstance(value.get("conversations"), list):
            value = value["conversations"]
    if not isinstance(value, list):
        raise SkipDocument(f"JSON is not a chat export ({_describe(value)})")
    records = [item for item in value if isinstance(item, dict)]
    if _mostly(records, _is_slack):
        return _slack(records, path, wrapper_name)
    if _mostly(records, lambda r: isinstance(r.get("mapping"), dict)):
        return _chatgpt(records)
    if _mostly(records, _is_generic):
        return _generic(records, path, wrapper_name)
    raise SkipDocument(f"JSON is not a chat export ({_describe(value)})")


def _mostly(records: list[dict[str, Any]], test: Any) -> bool:
    if not records:
        return False
    sample = records[:1000]
    return sum(1 for record in sample if test(record)) * 2 >= len(sample)


def _is_slack(record: dict[str, Any]) -> bool:
    return "ts" in record and "text" in record and any(key in record for key in _SLACK_AUTHOR_KEYS)


def _is_generic(record: dict[str, Any]) -> bool:
    keys = {str(key).lower() for key in record}
    return all(any(key in keys for key in group) for group in (_AUTHOR_KEYS, _TIME_KEYS, _TEXT_KEYS))


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        keys = [str(key) for key in list(value)[:5]]
        more = ", …" if len(value) > 5 else ""
        return f"an object with keys {', '.join(keys)}{more}" if keys else "an empty object"
    if isinstance(value, list):
        if not value:
            return "an empty list"
        return f"a list of {len(value):,} items without author, time and text fields"
    return f"a single {type(value).__name__} value"


def _wrapper_name(wrapper: dict[str, Any]) -> str | None:
    for key in _WRAPPER_NAME_KEYS:
        found = wrapper.get(key)
        if isinstance(found, dict):
            found = found.get("name") or found.get("title")
        if isinstance(found, str | int) and str(found).strip():
            return _one_line(str(found))
    return None


def _default_name(path: Path) -> str:
    """A Slack export keeps one file per channel and day (`general/2026-03-02.json`)."""
    if _DATE_STEM.match(path.stem) and path.parent.name and path.parent.name != "RAW-DOCS":
        return path.parent.name
    return path.stem


# -- Slack -----------------------------------------------------------------------------------


def _slack(records: list[dict[str, Any]], path: Path, wrapper_name: str | None) -> _Parsed:
    names: dict[str, str] = {}
    for record in records:
        user, name = record.get("user"), _slack_author(record)
        if isinstance(user, str) and name != user:
            names.setdefault(user, name)
    conversations: dict[str, _Conversation] = {}
    default = wrapper_name or _default_name(path)
    parsed = _Parsed("slack", [])
    total = capped = made = 0
    budget = current()
    for record in records:
        if record.get("subtype") in _SLACK_NOISE or not _is_slack(record):
            continue
        text = _slack_text(record, names)
        if not text:
            continue
        made += len(text)
        budget.expect(made)  # a 6-byte mention expands to a name of up to 200 characters
        if total >= MAX_MESSAGES:
            capped += 1
            continue
        total += 1
        channel = record.get("channel_name") or record.get("channel")
        name = _one_line(str(channel)) if isinstance(channel, str) and channel.strip() else default
        conversation = conversations.setdefault(name, _Conversation(name))
        conversation.messages.append(_Message(_slack_author(record), text, _epoch(record.get("ts"))))
    parsed.conversations = list(conversations.values())
    _cap_warning(parsed, capped)
    return parsed


def _slack_author(record: dict[str, Any]) -> str:
    profile = record.get("user_profile")
    profile = profile if isinstance(profile, dict) else {}
    bot = record.get("bot_profile")
    bot = bot if isinstance(bot, dict) else {}
    for found in (
        profile.get("real_name"),
        profile.get("display_name"),
        record.get("user_name"),
        record.get("username"),
        bot.get("name"),
        record.get("user"),
    ):
        if isinstance(found, str) and found.strip():
            return _one_line(found)
    return "unknown"


def _slack_text(record: dict[str, Any], names: dict[str, str]) -> str:
    text = record.get("text")
    text = text if isinstance(text, str) else ""

    def plain(match: re.Match[str]) -> str:
        sigil, target, label = match.group(1), match.group(2), match.group(3)
        if sigil == "@":
            return "@" + (label or names.get(target, target))
        if sigil == "#":
            return "#" + (label or target)
        if sigil == "!":
            return "@" + (label or target.split("^")[0])
        return f"[{label}]({target})" if label else target

    text = _SLACK_MARKUP.sub(plain, text).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    extras: list[str] = []
    for attached in _dicts(record.get("files")):
        title = attached.get("title") or attached.get("name")
        if isinstance(title, str) and title.strip():
            extras.append(f"[file: {_one_line(title)}]")
    for attached in _dicts(record.get("attachments")):
        fallback = attached.get("fallback") or attached.get("text")
        if isinstance(fallback, str) and fallback.strip():
            extras.append(fallback.strip())
    return "\n".join(part for part in [text.strip(), *extras] if part)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


# -- ChatGPT ---------------------------------------------------------------------------------

_CHATGPT_AUTHORS = {"user": "User", "assistant": "ChatGPT"}


def _chatgpt(records: list[dict[str, Any]]) -> _Parsed:
    parsed = _Parsed("chatgpt", [])
    total = 0
    capped = 0
    for record in records:
        mapping = record.get("mapping")
        if not isinstance(mapping, dict):
            continue
        title = record.get("title")
        name = _one_line(title) if isinstance(title, str) and title.strip() else "Untitled conversation"
        conversation = _Conversation(name)
        fallback = _epoch(record.get("create_time"))
        for node in _main_thread(mapping, record.get("current_node")):
            message = _chatgpt_message(node, fallback)
            if message is None:
                continue
            if total >= MAX_MESSAGES:
                capped += 1
                continue
            fallback = message.when or fallback
            conversation.messages.append(message)
            total += 1
        if conversation.messages:
            parsed.conversations.append(conversation)
    _cap_warning(parsed, capped)
    return parsed


def _main_thread(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes of the thread shown in ChatGPT: from the current node up to the root when the
    export names it, otherwise from the root down its latest branch."""
    seen: set[str] = set()
    thread: list[dict[str, Any]] = []
    if isinstance(current, str) and isinstance(mapping.get(current), dict):
        key: Any = current
        while isinstance(key, str) and key not in seen and isinstance(mapping.get(key), dict):
            seen.add(key)
            thread.append(mapping[key])
            key = mapping[key].get("parent")
        return thread[::-1]
    roots = [k for k, n in mapping.items() if isinstance(n, dict) and n.get("parent") not in mapping]
    key = roots[0] if roots else None
    while isinstance(key, str) and key not in seen and isinstance(mapping.get(key), dict):
        seen.add(key)
        thread.append(mapping[key])
        children = [c for c in mapping[key].get("children") or [] if isinstance(c, str) and c in mapping]
        key = children[-1] if children else None
    return thread


def _chatgpt_message(node: dict[str, Any], fallback: dt.datetime | None) -> _Message | None:
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    metadata = message.get("metadata")
    hidden = isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation")
    if role not in _CHATGPT_AUTHORS or hidden or message.get("recipient") not in (None, "all"):
        return None
    content = message.get("content")
    content = content if isinstance(content, dict) else {}
    parts = content.get("parts")
    pieces = [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []
    if not pieces and isinstance(content.get("text"), str):
        pieces = [content["text"]]
    text = "\n\n".join(piece.strip() for piece in pieces if piece.strip())
    if not text:
        return None
    return _Message(_CHATGPT_AUTHORS[role], text, _epoch(message.get("create_time")) or fallback)


# -- generic message lists -------------------------------------------------------------------


def _generic(records: list[dict[str, Any]], path: Path, wrapper_name: str | None) -> _Parsed:
    parsed = _Parsed(None, [])
    conversations: dict[str, _Conversation] = {}
    default = wrapper_name or _default_name(path)
    total = capped = unusable = 0
    for record in records:
        fields = {str(key).lower(): value for key, value in record.items()}
        author, email = _generic_author(fields)
        text = _generic_text(fields)
        if not author or not text:
            unusable += 1
            continue
        if total >= MAX_MESSAGES:
            capped += 1
            continue
        when, timed = _generic_time(fields)
        name = _first(fields, _CONVERSATION_KEYS, default)
        conversation = conversations.setdefault(name, _Conversation(name))
        conversation.messages.append(_Message(author, text, when, timed, email))
        total += 1
    if unusable:
        parsed.warnings.append(f"skipped {unusable:,} records without an author or a text")
    parsed.conversations = list(conversations.values())
    _cap_warning(parsed, capped)
    return parsed


def _first(fields: dict[str, Any], keys: Iterable[str], default: str) -> str:
    for key in keys:
        found = fields.get(key)
        if isinstance(found, dict):
            found = found.get("name") or found.get("title") or found.get("id")
        if isinstance(found, str | int) and not isinstance(found, bool) and str(found).strip():
            return _one_line(str(found))
    return default


def _generic_author(fields: dict[str, Any]) -> tuple[str | None, str | None]:
    for key in _AUTHOR_KEYS:
        found = fields.get(key)
        email = None
        if isinstance(found, dict):
            email = found.get("email") if isinstance(found.get("email"), str) else None
            found = found.get("name") or found.get("display_name") or found.get("username") or email
        if isinstance(found, str | int) and not isinstance(found, bool) and str(found).strip():
            return _one_line(str(found)), email
    return None, None


def _generic_text(fields: dict[str, Any]) -> str:
    for key in _TEXT_KEYS:
        found = fields.get(key)
        if isinstance(found, dict):
            found = found.get("text") or found.get("parts") or found.get("content")
        if isinstance(found, list):  # Telegram-style rich text: strings and {"text": …} pieces
            found = "".join(
                piece if isinstance(piece, str) else piece.get("text", "")
                for piece in found
                if isinstance(piece, str) or (isinstance(piece, dict) and isinstance(piece.get("text"), str))
            )
        if isinstance(found, str) and found.strip():
            return found.strip()
    return ""


def _generic_time(fields: dict[str, Any]) -> tuple[dt.datetime | None, bool]:
    for key in _TIME_KEYS:
        found = fields.get(key)
        if found is None or isinstance(found, bool):
            continue
        if isinstance(found, int | float):
            return _epoch(found), True
        if isinstance(found, str) and found.strip():
            value = found.strip()
            if re.fullmatch(r"-?\d+(\.\d+)?", value):
                return _epoch(value), True
            try:
                parsed = dt.datetime.fromisoformat(value)
            except ValueError:
                continue
            return parsed, not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)
    return None, True


def _epoch(value: Any) -> dt.datetime | None:
    """Epoch seconds (or milliseconds, or microseconds) → UTC time."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    if seconds > 1e14:
        seconds /= 1_000_000
    elif seconds > 1e11:
        seconds /= 1000
    try:
        return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _cap_warning(parsed: _Parsed, capped: int) -> None:
    if capped:
        parsed.warnings.append(
            f"only the first {MAX_MESSAGES:,} of {MAX_MESSAGES + capped:,} messages were converted"
        )


# -- Markdown --------------------------------------------------------------------------------


def _documents(parsed: _Parsed, path: Path) -> list[Converted]:
    conversations = [c for c in parsed.conversations if c.messages]
    if not conversations:
        raise SkipDocument("chat export holds no messages")
    stem = slugify(path.stem) or "chat"
    taken: set[str] = set()
    documents: list[Converted] = []
    for index, conversation in enumerate(conversations):
        documents.append(_document(conversation, _doc_id(stem, conversation.name, taken), parsed.platform))
        if index == 0:
            documents[0].warnings = list(parsed.warnings)
    return documents


def _doc_id(stem: str, name: str, taken: set[str]) -> str:
    own = slugify(name)
    base = stem if not own or own == stem else f"{stem}-{own}"
    base = base[:MAX_ID_CHARS].strip("-")
    doc_id, number = base, 1
    while doc_id in taken:
        number += 1
        doc_id = f"{base}-{number}"
    taken.add(doc_id)
    return doc_id


def _document(conversation: _Conversation, doc_id: str, platform: str | None) -> Converted:
    days: dict[str, list[_Message]] = {}
    last_day = "undated"
    for message in conversation.messages:  # a message without a time belongs with the one before
        last_day = message.when.date().isoformat() if message.when else last_day
        days.setdefault(last_day, []).append(message)
    ordered = sorted(days, key=lambda day: (day == "undated", day))
    authors: dict[str, str | None] = {}
    for message in conversation.messages:
        authors.setdefault(message.author, message.email)
    dated = [day for day in ordered if day != "undated"]
    count = len(conversation.messages)
    span = (f", {dated[0]}" + (f" to {dated[-1]}" if len(dated) > 1 else "")) if dated else ""
    lines = [
        f"# {conversation.name}",
        "",
        f"Chat {conversation.name}: {count:,} message{'s' if count != 1 else ''} by "
        f"{_and(list(authors))}{span}.",
    ]
    order = _sort_keys(conversation.messages)
    budget = current()
    for day in ordered:
        lines += ["", f"## {'Undated' if day == 'undated' else day}"]
        for message in sorted(days[day], key=lambda m: order[id(m)]):
            lines += ["", _message_line(message)]
            budget.write(len(lines[-1]) + 2)  # a 6-byte mention renders as a name of up to 200
    meta: dict[str, Any] = {
        "type": "chat",
        "date": dated[0] if dated else None,
        "conversation": conversation.name,
        "messages": count,
        "participants": [
            {"name": name, **({"email": email} if email else {}), "role": "author"}
            for name, email in authors.items()
        ],
    }
    if platform:
        meta["platform"] = platform
    if len(dated) > 1:
        meta["end_date"] = dated[-1]
    return Converted(
        markdown="\n".join(lines) + "\n",
        title=conversation.name,
        meta={k: v for k, v in meta.items() if v is not None},
        doc_id=doc_id,
    )


def _sort_keys(messages: list[_Message]) -> dict[int, tuple[float, int]]:
    """Each message's place in time (a message without a time keeps its place after the one
    before it; a naive time is read as UTC), by `id()`."""
    keys: dict[int, tuple[float, int]] = {}
    last = float("-inf")
    for index, message in enumerate(messages):
        if message.when is not None:
            when = message.when if message.when.tzinfo else message.when.replace(tzinfo=dt.UTC)
            last = when.timestamp()
        keys[id(message)] = (last, index)
    return keys


def _message_line(message: _Message) -> str:
    """`**author** (YYYY-MM-DD HH:MM): text`: each message carries its own day, so a chunk of a
    channel that runs for weeks says when its messages were written wherever it is cut, and
    never only the date of the channel's first message."""
    author = message.author.replace("*", "")
    clock = ""
    if message.when:
        clock = f" ({message.when:%Y-%m-%d %H:%M})" if message.timed else f" ({message.when:%Y-%m-%d})"
    lines = message.text.split("\n")
    head = f"**{author}**{clock}:"
    if FENCE.match(lines[0]):  # a code block must start on its own line to stay one
        return head + "\n" + markdown_safe(message.text)
    return f"{head} {lines[0]}" + ("\n" + markdown_safe("\n".join(lines[1:])) if len(lines) > 1 else "")


def markdown_safe(text: str) -> str:
    """Text placed at the start of Markdown lines, made unable to open a heading (`# …`, a setext
    underline) or to leave a code fence open that would swallow the headings after it; a
    balanced code block stays one."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    balanced = sum(1 for line in lines if FENCE.match(line)) % 2 == 0
    out: list[str] = []
    in_fence = False
    for line in lines:
        if FENCE.match(line):
            if balanced:
                in_fence = not in_fence
            else:
                line = _FENCE_START.sub(r"\1\\\2", line, count=1)
        elif not in_fence:
            line = _SETEXT.sub(r"\1\\\2", _ATX.sub(r"\1\\\2", line, count=1), count=1)
        out.append(line)
    return "\n".join(out)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _and(names: list[str]) -> str:
    if len(names) <= 1:
        return names[0] if names else "nobody"
    if len(names) > 5:
        return ", ".join(names[:5]) + f" and {len(names) - 5} more"
    return ", ".join(names[:-1]) + " and " + names[-1]
