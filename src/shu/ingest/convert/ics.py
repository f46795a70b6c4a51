"""iCalendar (.ics) → one Markdown document per event (VEVENT): when, where, who, and what.

Metadata keeps what a question about a meeting needs: `start`/`end` (ISO; an all-day event's
`end` is its last day, not iCalendar's exclusive next day), `location`, `organizer`, `attendees`
with their role and answer, `participants` in the participant roles (the organiser is the "author",
attendees are "recipient"s), the `uid` and the `recurrence` rule."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

from shu.errors import DocumentError, SkipDocument
from shu.ingest.budget import current
from shu.ingest.convert.base import Converted
from shu.ingest.convert.chat import markdown_safe
from shu.ingest.convert.decode import decode_text
from shu.months import MONTH_NAMES
from shu.text import slugify

MAX_EVENTS = 5_000
_ROLES = {
    "CHAIR": "organiser",
    "REQ-PARTICIPANT": "required",
    "OPT-PARTICIPANT": "optional",
    "NON-PARTICIPANT": "informational",
}
_STATUSES = {
    "ACCEPTED": "accepted",
    "DECLINED": "declined",
    "TENTATIVE": "tentative",
    "DELEGATED": "delegated",
    "NEEDS-ACTION": "no answer yet",
}
_RESOURCES = frozenset({"ROOM", "RESOURCE"})
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = MONTH_NAMES
_RRULE_DAYS = {
    code: name for code, name in zip(("MO", "TU", "WE", "TH", "FR", "SA", "SU"), _WEEKDAYS, strict=True)
}
_UNITS = {"SECONDLY": "second", "MINUTELY": "minute", "HOURLY": "hour", "DAILY": "day", "WEEKLY": "week"}
_UNITS |= {"MONTHLY": "month", "YEARLY": "year"}
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last", -2: "second-last"}


def convert(data: bytes, path: Path) -> list[Converted]:
    text, _ = decode_text(data)
    try:
        calendars = icalendar.Calendar.from_ical(text, multiple=True)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        reason = " ".join(str(exc).split())[:200] or exc.__class__.__name__
        raise DocumentError(f"not a readable iCalendar file: {reason}") from exc
    if not calendars:
        raise DocumentError("not a readable iCalendar file: no complete BEGIN:VCALENDAR … END:VCALENDAR")
    events: list[tuple[icalendar.Component, str | None]] = []
    total = 0
    for calendar in calendars:
        name = calendar.get("X-WR-CALNAME")
        shown = " ".join(str(name).split()) if name else None  # one string, however many events
        for event in _events(calendar):
            total += 1
            if len(events) < MAX_EVENTS:
                events.append((event, shown))
    if not events:
        raise SkipDocument("calendar holds no events")
    budget = current()
    budget.make(len(events), f"its {len(events):,} events")
    documents: list[Converted] = []
    taken: set[str] = set()
    for event, calendar_name in events:
        budget.tick()
        if any(event.get(name) is not None for name in ("SUMMARY", "DTSTART", "DESCRIPTION")):
            documents.append(_document(event, calendar_name, taken))
            budget.write(len(documents[-1].markdown))  # each repeats the calendar's name
    if not documents:
        raise SkipDocument("calendar holds no events with a summary, a start or a description")
    if total > len(events):
        documents[0].warnings.append(f"only the first {MAX_EVENTS:,} of {total:,} events were converted")
    return documents


def _events(root: icalendar.Component) -> list[icalendar.Component]:
    """Every VEVENT under `root`, walked without recursion (a hostile file can nest deeply)."""
    found: list[icalendar.Component] = []
    stack = [root]
    while stack:
        component = stack.pop()
        if component.name == "VEVENT":
            found.append(component)
        stack.extend(reversed(component.subcomponents))
    return found


def _document(event: icalendar.Component, calendar_name: str | None, taken: set[str]) -> Converted:
    summary = _text(event, "SUMMARY") or "Untitled event"
    warnings = [f"event {summary!r}: {prop}: {reason}" for prop, reason in event.errors]
    start = _when(event, "DTSTART")
    end = _end(event, start)
    all_day = start is not None and not isinstance(start, dt.datetime)
    zone = _zone(event, start)
    uid = _text(event, "UID")
    recurrence = _rrule(event)
    location = _text(event, "LOCATION")
    status = _text(event, "STATUS").lower()
    organizer = _person(event.get("ORGANIZER"))
    attendees = [_attendee(a) for a in _as_list(event.get("ATTENDEE"))]
    attendees = [a for a in attendees if a["name"] or a["email"]]
    description = _text(event, "DESCRIPTION", keep_lines=True)

    lines = [f"# {summary}", ""]
    fields: list[tuple[str, str]] = []
    if start is not None:
        fields.append(("When", _describe_when(start, end, zone)))
    if recurrence:
        fields.append(("Repeats", _describe_rrule(recurrence, start)))
    if location:
        fields.append(("Where", location))
    if organizer:
        fields.append(("Organiser", _shown(organizer)))
    if status and status != "confirmed":
        fields.append(("Status", status))
    if calendar_name:
        fields.append(("Calendar", calendar_name))
    if fields:  # one field a line: a Markdown hard break ends each but the last
        lines.append("  \n".join(f"**{label}:** {value}" for label, value in fields))
    if description.strip():
        lines += ["", "## Description", "", markdown_safe(description.strip())]
    if attendees:
        lines += ["", "## Attendees", ""]
        for attendee in attendees:
            kind = "room or resource" if attendee["resource"] else attendee["role"]
            lines.append(f"- {_shown(attendee)} — {kind}, {attendee['status']}")

    date = _day(start)
    participants: list[dict[str, Any]] = []
    seen: set[str] = set()
    for person, role in [(organizer, "author")] + [(a, "recipient") for a in attendees if not a["resource"]]:
        if not person:
            continue
        key = (person.get("email") or person.get("name") or "").casefold()
        if key and key not in seen:
            seen.add(key)
            email = {"email": person["email"]} if person.get("email") else {}
            participants.append({"name": person["name"] or person["email"], **email, "role": role})
    meta: dict[str, Any] = {
        "type": "meeting",
        "date": date,
        "start": _iso(start),
        "end": _iso(_last_day(start, end) if all_day else end),
        "all_day": True if all_day else None,
        "timezone": zone,
        "location": location or None,
        "organizer": organizer,
        "attendees": [
            {k: a[k] for k in ("name", "email", "role", "status")}
            | ({"resource": True} if a["resource"] else {})
            for a in attendees
        ],
        "participants": participants,
        "uid": uid or None,
        "recurrence": recurrence or None,
        "status": status or None,
        "calendar": calendar_name,
    }
    return Converted(
        markdown="\n".join(lines).rstrip() + "\n",
        title=summary,
        meta={key: value for key, value in meta.items() if value not in (None, "", [], {})},
        warnings=warnings,
        doc_id=_doc_id(summary, date, uid, _text(event, "RECURRENCE-ID"), start, taken),
    )


def _doc_id(summary: str, date: str | None, uid: str, recurrence_id: str, start: Any, taken: set[str]) -> str:
    """slug of the summary + start date + a short hash of the UID: stable across runs, distinct
    for the moved occurrences of a recurring event (same UID, own RECURRENCE-ID)."""
    key = f"{uid}|{recurrence_id}" if uid else f"{summary}|{start}"
    digest = hashlib.sha1(key.encode()).hexdigest()[:6]
    base = "-".join(part for part in ((slugify(summary)[:60].strip("-") or "event"), date, digest) if part)
    doc_id, number = base, 1
    while doc_id in taken:  # the same UID twice in one file
        number += 1
        doc_id = f"{base}-{number}"
    taken.add(doc_id)
    return doc_id


# -- properties ------------------------------------------------------------------------------


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _text(event: icalendar.Component, name: str, keep_lines: bool = False) -> str:
    values = [v for v in _as_list(event.get(name)) if v is not None and not isinstance(v, icalendar.vBroken)]
    if not values:
        return ""
    value = values[0]
    raw = value.to_ical().decode() if isinstance(value, icalendar.vDDDTypes) else str(value)
    if keep_lines:
        return raw.replace("\r\n", "\n").replace("\r", "\n")
    return " ".join(raw.split())


def _when(event: icalendar.Component, name: str) -> dt.date | dt.datetime | None:
    moment = _dt(event.get(name))
    return moment if isinstance(moment, dt.date) else None


def _dt(value: Any) -> Any:
    """A property's value, or None for a missing or broken one (its error is a warning)."""
    if value is None or isinstance(value, icalendar.vBroken | list):
        return None
    return getattr(value, "dt", None)


def _end(event: icalendar.Component, start: dt.date | None) -> dt.date | None:
    end = _when(event, "DTEND")
    if end is not None or start is None:
        return end
    duration = _dt(event.get("DURATION"))
    if isinstance(duration, dt.timedelta):
        return start + duration
    return None


def _zone(event: icalendar.Component, start: dt.date | None) -> str | None:
    if not isinstance(start, dt.datetime):
        return None
    tzid = event.get("DTSTART").params.get("TZID")
    if tzid:
        return str(tzid)
    if isinstance(start.tzinfo, ZoneInfo):
        return start.tzinfo.key
    if start.tzinfo is not None:
        return start.tzname() or None
    return None


def _person(address: Any) -> dict[str, Any] | None:
    if isinstance(address, list):  # a property given twice: the first counts
        address = address[0] if address else None
    if address is None or isinstance(address, icalendar.vBroken):
        return None
    email = str(address).strip()
    email = email[7:] if email.lower().startswith("mailto:") else email
    name = " ".join(str(address.params.get("CN", "")).split()).strip('"')
    if not name and not email:
        return None
    return {"name": name or email, "email": email or None}


def _attendee(address: Any) -> dict[str, Any]:
    person = _person(address) or {"name": "", "email": None}
    params = getattr(address, "params", {})
    role = str(params.get("ROLE", "REQ-PARTICIPANT")).upper()
    status = str(params.get("PARTSTAT", "NEEDS-ACTION")).upper()
    resource = str(params.get("CUTYPE", "")).upper() in _RESOURCES
    return {
        "name": person["name"],
        "email": person["email"],
        "role": _ROLES.get(role, role.lower()),
        "status": _STATUSES.get(status, status.lower()),
        "resource": resource,
    }


def _shown(person: dict[str, Any]) -> str:
    name, email = person.get("name"), person.get("email")
    if name and email and name != email:
        return f"{name} <{email}>"
    return str(name or email)


# -- time ------------------------------------------------------------------------------------


def _day(moment: dt.date | None) -> str | None:
    return (
        moment.date().isoformat()
        if isinstance(moment, dt.datetime)
        else (moment.isoformat() if moment else None)
    )


def _iso(moment: dt.date | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _last_day(start: dt.date | None, end: dt.date | None) -> dt.date | None:
    """An all-day event's DTEND is the day after it; its last day is the day before that."""
    if start is None or end is None:
        return start
    last = (end.date() if isinstance(end, dt.datetime) else end) - dt.timedelta(days=1)
    return last if last > start else start


def _long_date(day: dt.date) -> str:
    return f"{_WEEKDAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"


def _describe_when(start: dt.date, end: dt.date | None, zone: str | None) -> str:
    if not isinstance(start, dt.datetime):
        last = _last_day(start, end) or start
        span = _long_date(start) + (f" – {_long_date(last)}" if last != start else "")
        return f"{span} (all day)"
    if isinstance(end, dt.datetime) and end.tzinfo is not None and start.tzinfo is not None:
        end = end.astimezone(start.tzinfo)
    suffix = f" ({zone})" if zone else ""
    if not isinstance(end, dt.datetime) or end <= start:
        return f"{_long_date(start)}, {start:%H:%M}{suffix}"
    if end.date() == start.date():
        return f"{_long_date(start)}, {start:%H:%M}–{end:%H:%M}{suffix}"
    return f"{_long_date(start)}, {start:%H:%M} – {_long_date(end)}, {end:%H:%M}{suffix}"


# -- recurrence ------------------------------------------------------------------------------


def _rrule(event: icalendar.Component) -> str:
    rules = [r for r in _as_list(event.get("RRULE")) if isinstance(r, icalendar.vRecur)]
    return rules[0].to_ical().decode() if rules else ""


def _describe_rrule(text: str, start: dt.date | None) -> str:
    """`FREQ=WEEKLY;BYDAY=MO` → "every Monday"; a rule with parts beyond the common ones is
    shown as written."""
    parts: dict[str, str] = {}
    for piece in text.split(";"):
        key, _, value = piece.partition("=")
        parts[key.upper()] = value
    freq = parts.pop("FREQ", "")
    interval = parts.pop("INTERVAL", "1")
    count, until = parts.pop("COUNT", ""), parts.pop("UNTIL", "")
    parts.pop("WKST", None)
    byday = [d for d in parts.pop("BYDAY", "").split(",") if d]
    bymonthday = parts.pop("BYMONTHDAY", "")
    if freq not in _UNITS or parts or not interval.isdigit():
        return text
    every = "every" if interval == "1" else f"every {interval}"
    unit = _UNITS[freq] + ("" if interval == "1" else "s")
    phrase = _phrase(freq, interval, every, unit, byday, bymonthday, start)
    if phrase is None:
        return text
    if count.isdigit():
        phrase += f", {count} times"
    if until:
        phrase += f", until {until[:4]}-{until[4:6]}-{until[6:8]}"
    return phrase


def _phrase(
    freq: str,
    interval: str,
    every: str,
    unit: str,
    byday: list[str],
    bymonthday: str,
    start: dt.date | None,
) -> str | None:
    weekdays = [_RRULE_DAYS.get(day) for day in byday]
    plain_days = all(weekdays) and bool(weekdays)
    if freq in ("DAILY", "WEEKLY") and plain_days and not bymonthday:
        if set(byday) == {"MO", "TU", "WE", "TH", "FR"} and interval == "1":
            return "every weekday"
        names = _list_words([d for d in weekdays if d])
        return f"every {names}" if interval == "1" else f"{every} {unit} on {names}"
    if byday or (bymonthday and freq != "MONTHLY"):
        if freq == "MONTHLY" and len(byday) == 1 and not bymonthday:
            ordinal, day = byday[0][:-2], _RRULE_DAYS.get(byday[0][-2:])
            number = int(ordinal) if ordinal.lstrip("+-").isdigit() else None
            if day and number in _ORDINALS:
                return f"{every} {unit} on the {_ORDINALS[number]} {day}"
        return None
    if freq == "WEEKLY" and start is not None:
        day = _WEEKDAYS[start.weekday()]
        return f"every {day}" if interval == "1" else f"{every} {unit} on {day}"
    if freq == "MONTHLY":
        day_of_month = bymonthday or (str(start.day) if start is not None else "")
        if day_of_month and "," not in day_of_month:
            return f"{every} {unit} on day {day_of_month}"
        return None if day_of_month else f"{every} {unit}"
    if freq == "YEARLY" and start is not None:
        return f"{every} {unit} on {start.day} {_MONTHS[start.month - 1]}"
    return f"{every} {unit}"


def _list_words(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
