"""Calendar and chat fixtures (invented, CC0): an iCalendar file of a rowing club's meetings, a
Slack channel export, a ChatGPT `conversations.json` and a generic JSON Lines chat log. Each is
built the same way on every call, so tests can check its conversion exactly."""

from __future__ import annotations

import json
from typing import Any

_BERLIN = [
    "BEGIN:VTIMEZONE",
    "TZID:Europe/Berlin",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "TZNAME:CEST",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "TZNAME:CET",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
]

SURVEY_DESCRIPTION = (
    "Plan the hull survey of the Marit before the autumn haul-out.\n"
    "#1 on the agenda: move 5,000 EUR from winches to the survey.\n"
    "Bring the 2025 inspection report."
)


def _fold(line: str) -> list[str]:
    """RFC 5545 line folding: at most 75 octets a line, continuation lines start with a space."""
    data, pieces, limit = line.encode(), [], 75
    while len(data) > limit:
        cut = limit
        while data[cut] & 0xC0 == 0x80:  # never split a UTF-8 sequence
            cut -= 1
        pieces.append(data[:cut].decode())
        data, limit = data[cut:], 74
    pieces.append(data.decode())
    return [pieces[0]] + [" " + piece for piece in pieces[1:]]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def make_ics() -> bytes:
    """Three events: a one-off meeting (organiser, required, optional and informational
    attendees, a room, a description), an all-day regatta, and a weekly stand-up, in
    Europe/Berlin time."""
    events = [
        [
            "BEGIN:VEVENT",
            "UID:hull-survey-2026@harbor.example",
            "DTSTAMP:20260820T090000Z",
            "DTSTART;TZID=Europe/Berlin:20260908T140000",
            "DTEND;TZID=Europe/Berlin:20260908T153000",
            "SUMMARY:Hull survey planning",
            "LOCATION:Boathouse meeting room\\, Pier 4",
            f"DESCRIPTION:{_escape(SURVEY_DESCRIPTION)}",
            'ORGANIZER;CN="Jonas Berg":mailto:jonas@harbor.example',
            "ATTENDEE;CN=Jonas Berg;ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:jonas@harbor.example",
            "ATTENDEE;CN=Ayla Demir;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE"
            ":mailto:ayla@harbor.example",
            "ATTENDEE;CN=Marco Rossi;ROLE=REQ-PARTICIPANT;PARTSTAT=TENTATIVE;RSVP=TRUE"
            ":mailto:marco@harbor.example",
            "ATTENDEE;CN=Priya Nair;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE"
            ":mailto:priya@harbor.example",
            "ATTENDEE;CN=Lena Fischer;ROLE=NON-PARTICIPANT;PARTSTAT=DECLINED:mailto:lena@harbor.example",
            "ATTENDEE;CN=Pier 4 room;CUTYPE=ROOM;ROLE=NON-PARTICIPANT;PARTSTAT=ACCEPTED"
            ":mailto:pier4@harbor.example",
            "END:VEVENT",
        ],
        [
            "BEGIN:VEVENT",
            "UID:regatta-2026@harbor.example",
            "DTSTAMP:20260820T090000Z",
            "DTSTART;VALUE=DATE:20260919",
            "DTEND;VALUE=DATE:20260920",
            "SUMMARY:Autumn regatta",
            "LOCATION:Harbor basin",
            "DESCRIPTION:All boats on the water by 09:00. Safety boat crew: Marco Rossi.",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ],
        [
            "BEGIN:VEVENT",
            "UID:crew-standup@harbor.example",
            "DTSTAMP:20260820T090000Z",
            "DTSTART;TZID=Europe/Berlin:20260907T083000",
            "DTEND;TZID=Europe/Berlin:20260907T084500",
            "RRULE:FREQ=WEEKLY;BYDAY=MO",
            "SUMMARY:Crew stand-up",
            "LOCATION:Slipway",
            'ORGANIZER;CN="Ayla Demir":mailto:ayla@harbor.example',
            "ATTENDEE;CN=Ayla Demir;ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:ayla@harbor.example",
            "ATTENDEE;CN=Jonas Berg;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:jonas@harbor.example",
            "ATTENDEE;CN=Marco Rossi;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:marco@harbor.example",
            "END:VEVENT",
        ],
    ]
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Harbor Rowing Club//Shu samples//EN",
        "CALSCALE:GREGORIAN",
        "X-WR-CALNAME:Harbor Rowing Club",
        *_BERLIN,
    ]
    for event in events:
        lines += event
    lines.append("END:VCALENDAR")
    return ("\r\n".join(folded for line in lines for folded in _fold(line)) + "\r\n").encode()


def _slack_message(user: str, name: str, ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "user": user,
        "text": text,
        "ts": ts,
        "user_profile": {"real_name": name, "display_name": name.split()[0].lower(), "team": "T01HARBOR"},
        **extra,
    }


def make_chat_json() -> bytes:
    """A Slack channel export over two days (UTC): a join notice (dropped), a mention, a link,
    a multi-line message whose second line starts with `#`, a file share."""
    messages = [
        {
            "type": "message",
            "subtype": "channel_join",
            "user": "U03PRIYA",
            "text": "<@U03PRIYA> has joined",
            "ts": "1788847200.000100",
        },
        _slack_message(
            "U01JONAS", "Jonas Berg", "1788852840.000200", "Morning! The survey quote came in at 9,200 EUR."
        ),
        _slack_message(
            "U02AYLA",
            "Ayla Demir",
            "1788853500.000300",
            "<@U01JONAS> that is within budget. Quote: <https://harbor.example/q/17|survey quote>",
        ),
        _slack_message(
            "U04MARCO",
            "Marco Rossi",
            "1788866400.000400",
            "Checklist for the Marit:\n# hull\n# rudder & fittings",
        ),
        _slack_message(
            "U02AYLA",
            "Ayla Demir",
            "1788939000.000500",
            "Booked the crane for 12 September.",
            files=[{"id": "F01", "name": "crane-booking.pdf", "title": "Crane booking"}],
        ),
        _slack_message("U01JONAS", "Jonas Berg", "1788940800.000600", "Thanks <!channel>, see you Monday."),
    ]
    return json.dumps(messages, indent=2, ensure_ascii=False).encode()


def _node(
    key: str, parent: str | None, children: list[str], role: str | None, text: str, at: float | None
) -> dict[str, Any]:
    message: dict[str, Any] | None = None
    if role is not None:
        message = {
            "id": key,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully",
            "metadata": {"is_visually_hidden_from_conversation": role == "system"},
            "recipient": "all",
        }
    return {"id": key, "message": message, "parent": parent, "children": children}


def make_chatgpt_json() -> bytes:
    """Two ChatGPT conversations. The first has an edited question: its first version (and the
    answer to it) sits on a branch that the export's `current_node` does not follow."""
    winch = {
        "title": "Winch maintenance checklist",
        "create_time": 1788940000.0,
        "update_time": 1788941000.0,
        "current_node": "w5",
        "mapping": {
            "w0": _node("w0", None, ["w1"], None, "", None),
            "w1": _node("w1", "w0", ["w2", "w4"], "system", "", None),
            "w2": _node("w2", "w1", ["w3"], "user", "How do I grease a winch?", 1788940000.0),
            "w3": _node("w3", "w2", [], "assistant", "Old answer that was replaced.", 1788940010.0),
            "w4": _node(
                "w4", "w1", ["w5"], "user", "How often should a sailing winch be serviced?", 1788940100.0
            ),
            "w5": _node(
                "w5",
                "w4",
                [],
                "assistant",
                "Service it once a season:\n1. Strip the drum.\n2. Clean and re-grease the pawls.",
                1788940110.0,
            ),
        },
    }
    briefing = {
        "title": "Regatta safety briefing",
        "create_time": 1789200000.0,
        "update_time": 1789290000.0,
        "mapping": {
            "b0": _node("b0", None, ["b1"], None, "", None),
            "b1": _node(
                "b1", "b0", ["b2"], "user", "Draft a safety briefing for the autumn regatta.", 1789200000.0
            ),
            "b2": _node(
                "b2",
                "b1",
                ["b3"],
                "assistant",
                "Life jackets on at all times; the safety boat monitors channel 72.",
                1789200020.0,
            ),
            "b3": _node("b3", "b2", [], "user", "Add: capsize drill at 08:30.", 1789290000.0),
        },
    }
    return json.dumps([winch, briefing], indent=2, ensure_ascii=False).encode()


def make_chat_jsonl() -> bytes:
    """A generic chat log, one JSON object a line, two conversations interleaved; times as ISO
    with an offset and one as epoch milliseconds."""
    rows = [
        {
            "conversation": "night-watch",
            "from": "Lena Fischer",
            "timestamp": "2026-09-10T22:05:00+02:00",
            "text": "Mooring line on the Tern is chafing.",
        },
        {
            "conversation": "fuel-orders",
            "from": "Marco Rossi",
            "timestamp": "2026-09-10T22:10:00+02:00",
            "text": "Order 200 l diesel for the safety boat.",
        },
        {
            "conversation": "night-watch",
            "from": "Jonas Berg",
            "timestamp": "2026-09-10T22:20:00+02:00",
            "text": "Replace it tomorrow, spare line is in locker 3.",
        },
        {
            "conversation": "night-watch",
            "from": "Lena Fischer",
            "timestamp": 1789106400000,
            "text": "Done, old line binned.",
        },
    ]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
