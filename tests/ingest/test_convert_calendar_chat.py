import json
import time
from pathlib import Path

import pytest

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert import chat, convert_documents, ics
from shu.ingest.convert.base import Converted
from shu.kb import KnowledgeBase
from shu.markdown import split_sections
from shu_eval.samples.calendar_chat import make_chat_json, make_chat_jsonl, make_chatgpt_json, make_ics
from tests.conftest import PersonaMaker

HULL = "hull-survey-planning-2026-09-08-8dbdb9"
REGATTA = "autumn-regatta-2026-09-19-54aeb3"
STANDUP = "crew-stand-up-2026-09-07-c4eb3d"


def paths(document: Converted) -> list[str]:
    return [s.path for s in split_sections(document.markdown, root=document.title or "")]


def one_event(*lines: str) -> bytes:
    body = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:x-1@example.org", "SUMMARY:Sync", *lines]
    return ("\r\n".join([*body, "END:VEVENT", "END:VCALENDAR"]) + "\r\n").encode()


# -- iCalendar -------------------------------------------------------------------------------


def test_every_event_of_a_calendar_is_its_own_document() -> None:
    documents = convert_documents(Path("club.ics"), make_ics())
    assert [d.doc_id for d in documents] == [HULL, REGATTA, STANDUP]
    assert [d.title for d in documents] == ["Hull survey planning", "Autumn regatta", "Crew stand-up"]
    assert all(not d.warnings for d in documents)


def test_a_meeting_has_when_where_who_and_attendee_roles() -> None:
    meeting = convert_documents(Path("club.ics"), make_ics())[0]
    assert meeting.markdown == (
        "# Hull survey planning\n\n"
        "**When:** Tuesday 8 September 2026, 14:00–15:30 (Europe/Berlin)  \n"
        "**Where:** Boathouse meeting room, Pier 4  \n"
        "**Organiser:** Jonas Berg <jonas@harbor.example>  \n"
        "**Calendar:** Harbor Rowing Club\n\n"
        "## Description\n\n"
        "Plan the hull survey of the Marit before the autumn haul-out.\n"
        "#1 on the agenda: move 5,000 EUR from winches to the survey.\n"
        "Bring the 2025 inspection report.\n\n"
        "## Attendees\n\n"
        "- Jonas Berg <jonas@harbor.example> — organiser, accepted\n"
        "- Ayla Demir <ayla@harbor.example> — required, accepted\n"
        "- Marco Rossi <marco@harbor.example> — required, tentative\n"
        "- Priya Nair <priya@harbor.example> — optional, no answer yet\n"
        "- Lena Fischer <lena@harbor.example> — informational, declined\n"
        "- Pier 4 room <pier4@harbor.example> — room or resource, accepted\n"
    )
    assert paths(meeting) == [
        "Hull survey planning",
        "Hull survey planning > Description",
        "Hull survey planning > Attendees",
    ]
    jonas, ayla = {"name": "Jonas Berg", "email": "jonas@harbor.example"}, "ayla@harbor.example"
    assert meeting.meta == {
        "type": "meeting",
        "date": "2026-09-08",
        "start": "2026-09-08T14:00:00+02:00",
        "end": "2026-09-08T15:30:00+02:00",
        "timezone": "Europe/Berlin",
        "location": "Boathouse meeting room, Pier 4",
        "organizer": jonas,
        "attendees": [
            jonas | {"role": "organiser", "status": "accepted"},
            {"name": "Ayla Demir", "email": ayla, "role": "required", "status": "accepted"},
            {
                "name": "Marco Rossi",
                "email": "marco@harbor.example",
                "role": "required",
                "status": "tentative",
            },
            {
                "name": "Priya Nair",
                "email": "priya@harbor.example",
                "role": "optional",
                "status": "no answer yet",
            },
            {
                "name": "Lena Fischer",
                "email": "lena@harbor.example",
                "role": "informational",
                "status": "declined",
            },
            {
                "name": "Pier 4 room",
                "email": "pier4@harbor.example",
                "role": "informational",
                "status": "accepted",
                "resource": True,
            },
        ],
        "participants": [  # the organiser once, as author; the room is nobody
            jonas | {"role": "author"},
            {"name": "Ayla Demir", "email": ayla, "role": "recipient"},
            {"name": "Marco Rossi", "email": "marco@harbor.example", "role": "recipient"},
            {"name": "Priya Nair", "email": "priya@harbor.example", "role": "recipient"},
            {"name": "Lena Fischer", "email": "lena@harbor.example", "role": "recipient"},
        ],
        "uid": "hull-survey-2026@harbor.example",
        "calendar": "Harbor Rowing Club",
    }
    json.dumps(meeting.meta)  # JSON-like: frontmatter can hold it


def test_an_all_day_event_and_a_weekly_recurring_one() -> None:
    _, regatta, standup = convert_documents(Path("club.ics"), make_ics())
    assert regatta.markdown.startswith(
        "# Autumn regatta\n\n**When:** Saturday 19 September 2026 (all day)  \n**Where:** Harbor basin  \n"
    )
    assert "## Description\n\nAll boats on the water by 09:00." in regatta.markdown
    assert "## Attendees" not in regatta.markdown
    assert regatta.meta["start"] == regatta.meta["end"] == regatta.meta["date"] == "2026-09-19"
    assert regatta.meta["all_day"] is True
    assert "participants" not in regatta.meta and "timezone" not in regatta.meta
    assert "**Repeats:** every Monday  \n**Where:** Slipway" in standup.markdown
    assert "- Marco Rossi <marco@harbor.example> — required, accepted" in standup.markdown
    assert standup.meta["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert standup.meta["start"] == "2026-09-07T08:30:00+02:00"
    assert standup.meta["organizer"] == {"name": "Ayla Demir", "email": "ayla@harbor.example"}


def test_event_ids_do_not_depend_on_the_other_events() -> None:
    alone = (
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:crew-standup@harbor.example\r\n"
        b"DTSTART:20260907T063000Z\r\nSUMMARY:Crew stand-up\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    assert convert_documents(Path("other.ics"), alone)[0].doc_id == STANDUP
    assert [d.doc_id for d in convert_documents(Path("club.ics"), make_ics())][2] == STANDUP


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("FREQ=WEEKLY;BYDAY=MO", "every Monday"),
        ("FREQ=WEEKLY", "every Monday"),  # the start's weekday
        ("FREQ=DAILY", "every day"),
        ("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "every weekday"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=6", "every 2 weeks on Tuesday and Thursday, 6 times"),
        ("FREQ=MONTHLY;BYDAY=-1FR", "every month on the last Friday"),
        ("FREQ=MONTHLY;BYDAY=1MO", "every month on the first Monday"),
        ("FREQ=MONTHLY;BYMONTHDAY=15;UNTIL=20261231T000000Z", "every month on day 15, until 2026-12-31"),
        ("FREQ=YEARLY", "every year on 7 September"),
        ("FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1", "FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1"),  # as written
    ],
)
def test_recurrence_rules_in_words(rule: str, words: str) -> None:
    event = convert_documents(Path("r.ics"), one_event("DTSTART:20260907T090000Z", f"RRULE:{rule}"))[0]
    assert f"**Repeats:** {words}\n" in event.markdown + "\n"
    assert set(event.meta["recurrence"].split(";")) == set(rule.split(";"))  # icalendar orders the parts


@pytest.mark.parametrize(
    ("lines", "when", "start", "end"),
    [
        (
            ["DTSTART:20260301T220000Z", "DTEND:20260302T013000Z"],
            "Sunday 1 March 2026, 22:00 – Monday 2 March 2026, 01:30 (UTC)",
            "2026-03-01T22:00:00+00:00",
            "2026-03-02T01:30:00+00:00",
        ),
        (
            ["DTSTART;TZID=America/New_York:20260310T090000", "DURATION:PT45M"],
            "Tuesday 10 March 2026, 09:00–09:45 (America/New_York)",
            "2026-03-10T09:00:00-04:00",
            "2026-03-10T09:45:00-04:00",
        ),
        (
            ["DTSTART;VALUE=DATE:20260801", "DTEND;VALUE=DATE:20260804"],
            "Saturday 1 August 2026 – Monday 3 August 2026 (all day)",
            "2026-08-01",
            "2026-08-03",
        ),
        (["DTSTART:20260310T090000"], "Tuesday 10 March 2026, 09:00", "2026-03-10T09:00:00", None),
    ],
)
def test_times_zones_and_all_day_spans(lines: list[str], when: str, start: str, end: str | None) -> None:
    event = convert_documents(Path("t.ics"), one_event(*lines))[0]
    assert f"**When:** {when}\n" in event.markdown
    assert event.meta["start"] == start and event.meta.get("end") == end
    assert event.meta["date"] == start[:10]


def test_a_broken_property_is_a_warning_not_a_lost_event() -> None:
    event = convert_documents(Path("b.ics"), one_event("DTSTART:2026-09-07"))[0]
    assert event.markdown == "# Sync\n"
    [warning] = event.warnings  # the reason is icalendar's own
    assert warning.startswith("event 'Sync': DTSTART: ") and "2026-09-07" in warning
    assert "date" not in event.meta and event.doc_id.startswith("sync-")


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [
        (
            b"this is not a calendar\n",
            DocumentError,
            r"^not a readable iCalendar file: Content line could not",
        ),
        (
            b"BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nSUMMARY:x\n",
            DocumentError,
            "no complete BEGIN:VCALENDAR",
        ),
        (bytes(range(256)) * 4, DocumentError, "binary content"),
        (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", SkipDocument, "calendar holds no events"),
        (b"BEGIN:VCALENDAR\nBEGIN:VTODO\nSUMMARY:x\nEND:VTODO\nEND:VCALENDAR\n", SkipDocument, "no events"),
        (b"", SkipDocument, "empty file"),
        (
            b"BEGIN:VCALENDAR\n" + b"BEGIN:X\n" * 20_000 + b"END:X\n" * 20_000 + b"END:VCALENDAR\n",
            SkipDocument,
            "no events",
        ),
    ],
    ids=["not-ics", "unclosed", "binary", "no-events", "only-todos", "empty", "deep-nesting"],
)
def test_bad_calendars(data: bytes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as raised:
        convert_documents(Path("bad.ics"), data)
    assert "\n" not in str(raised.value)


def test_too_many_events_are_cut_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ics, "MAX_EVENTS", 2)
    documents = convert_documents(Path("club.ics"), make_ics())
    assert [d.doc_id for d in documents] == [HULL, REGATTA]
    assert documents[0].warnings == ["only the first 2 of 3 events were converted"]


# -- chat exports ----------------------------------------------------------------------------


def test_slack_export_one_section_a_day() -> None:
    [channel] = convert_documents(Path("boat-repairs.json"), make_chat_json())
    assert channel.doc_id == "boat-repairs"
    assert channel.markdown == (
        "# boat-repairs\n\n"
        "Chat boat-repairs: 5 messages by Jonas Berg, Ayla Demir and Marco Rossi, "
        "2026-09-08 to 2026-09-09.\n\n"
        "## 2026-09-08\n\n"
        "**Jonas Berg** (2026-09-08 07:34): Morning! The survey quote came in at 9,200 EUR.\n\n"
        "**Ayla Demir** (2026-09-08 07:45): @Jonas Berg that is within budget. "
        "Quote: [survey quote](https://harbor.example/q/17)\n\n"
        "**Marco Rossi** (2026-09-08 11:20): Checklist for the Marit:\n\\# hull\n\\# rudder & fittings\n\n"
        "## 2026-09-09\n\n"
        "**Ayla Demir** (2026-09-09 07:30): Booked the crane for 12 September.\n[file: Crane booking]\n\n"
        "**Jonas Berg** (2026-09-09 08:00): Thanks @channel, see you Monday.\n"
    )
    assert paths(channel) == ["boat-repairs", "boat-repairs > 2026-09-08", "boat-repairs > 2026-09-09"]
    assert channel.meta == {
        "type": "chat",
        "date": "2026-09-08",
        "end_date": "2026-09-09",
        "conversation": "boat-repairs",
        "messages": 5,
        "participants": [
            {"name": "Jonas Berg", "role": "author"},
            {"name": "Ayla Demir", "role": "author"},
            {"name": "Marco Rossi", "role": "author"},
        ],
        "platform": "slack",
    }


def test_a_slack_day_file_is_named_after_its_channel_folder() -> None:
    [day] = convert_documents(Path("export/boat-repairs/2026-09-08.json"), make_chat_json())
    assert day.doc_id == "2026-09-08-boat-repairs"
    assert day.title == "boat-repairs"


def test_chatgpt_conversations_follow_the_thread_shown() -> None:
    winch, briefing = convert_documents(Path("conversations.json"), make_chatgpt_json())
    assert [winch.doc_id, briefing.doc_id] == [
        "conversations-winch-maintenance-checklist",
        "conversations-regatta-safety-briefing",
    ]
    assert winch.markdown == (
        "# Winch maintenance checklist\n\n"
        "Chat Winch maintenance checklist: 2 messages by User and ChatGPT, 2026-09-09.\n\n"
        "## 2026-09-09\n\n"
        "**User** (2026-09-09 07:48): How often should a sailing winch be serviced?\n\n"
        "**ChatGPT** (2026-09-09 07:48): Service it once a season:\n"
        "1. Strip the drum.\n2. Clean and re-grease the pawls.\n"
    )
    assert paths(briefing) == [
        "Regatta safety briefing",
        "Regatta safety briefing > 2026-09-12",
        "Regatta safety briefing > 2026-09-13",
    ]
    assert "**User** (2026-09-13 09:00): Add: capsize drill at 08:30." in briefing.markdown
    assert briefing.meta == {
        "type": "chat",
        "date": "2026-09-12",
        "end_date": "2026-09-13",
        "conversation": "Regatta safety briefing",
        "messages": 3,
        "participants": [{"name": "User", "role": "author"}, {"name": "ChatGPT", "role": "author"}],
        "platform": "chatgpt",
    }


def test_chatgpt_without_a_current_node_takes_the_latest_branch() -> None:
    conversations = json.loads(make_chatgpt_json())
    del conversations[0]["current_node"]
    winch, _ = convert_documents(Path("conversations.json"), json.dumps(conversations).encode())
    assert "How often should a sailing winch be serviced?" in winch.markdown
    assert "grease a winch?" not in winch.markdown and "Old answer" not in winch.markdown


def test_generic_jsonl_grouped_by_conversation_and_day() -> None:
    watch, fuel = convert_documents(Path("harbor-log.jsonl"), make_chat_jsonl())
    assert [watch.doc_id, fuel.doc_id] == ["harbor-log-night-watch", "harbor-log-fuel-orders"]
    assert watch.markdown == (
        "# night-watch\n\n"
        "Chat night-watch: 3 messages by Lena Fischer and Jonas Berg, 2026-09-10 to 2026-09-11.\n\n"
        "## 2026-09-10\n\n"
        "**Lena Fischer** (2026-09-10 22:05): Mooring line on the Tern is chafing.\n\n"
        "**Jonas Berg** (2026-09-10 22:20): Replace it tomorrow, spare line is in locker 3.\n\n"
        "## 2026-09-11\n\n"
        "**Lena Fischer** (2026-09-11 06:00): Done, old line binned.\n"
    )
    assert fuel.meta == {
        "type": "chat",
        "date": "2026-09-10",
        "conversation": "fuel-orders",
        "messages": 1,
        "participants": [{"name": "Marco Rossi", "role": "author"}],
    }


def test_a_messages_wrapper_with_rich_text_and_hostile_markdown() -> None:
    export = {
        "name": "Dock crew",
        "type": "private_group",
        "messages": [
            {"from": {"name": "Ana Lima", "email": "ana@dock.example"}, "date": "2026-05-04T18:00:00",
             "text": ["Tide table: ", {"type": "link", "text": "tides.example"}]},
            {"from": "Bo Chen", "date": "2026-05-04T18:02:00",
             "text": "```\nunclosed fence\n# not a heading"},
            {"from": "Bo Chen", "date": "2026-05-05", "text": "Second day, no time of day."},
            {"from": "Ana Lima", "date": "2026-05-05T07:00:00", "text": "```python\nprint(1)\n```"},
            {"from": "Cy", "text": "undated, so with the message before"},
            {"note": "a record that is no message"},
        ],
    }  # fmt: skip
    [dock] = convert_documents(Path("dock.json"), json.dumps(export).encode())
    assert dock.doc_id == "dock-dock-crew" and dock.title == "Dock crew"
    assert paths(dock) == ["Dock crew", "Dock crew > 2026-05-04", "Dock crew > 2026-05-05"]
    assert "**Ana Lima** (2026-05-04 18:00): Tide table: tides.example\n" in dock.markdown
    assert (
        "**Bo Chen** (2026-05-04 18:02):\n\\```\nunclosed fence\n\\# not a heading\n\n## 2026-05-05"
        in dock.markdown
    )
    assert "**Bo Chen** (2026-05-05): Second day, no time of day.\n" in dock.markdown
    assert "**Ana Lima** (2026-05-05 07:00):\n```python\nprint(1)\n```\n" in dock.markdown
    assert dock.markdown.endswith("```\n\n**Cy**: undated, so with the message before\n")
    assert dock.meta["participants"][0] == {"name": "Ana Lima", "email": "ana@dock.example", "role": "author"}
    assert dock.warnings == ["skipped 1 records without an author or a text"]


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("package.json", b'{"name": "app", "version": "1.0.0", "scripts": {}}',
         r"JSON is not a chat export \(an object with keys name, version, scripts\)"),
        ("numbers.json", b"[1, 2, 3]", r"JSON is not a chat export \(a list of 3 items without"),
        ("rows.jsonl", b'{"id": 1, "score": 0.5}\n{"id": 2, "score": 0.7}\n', "JSON is not a chat export"),
        ("empty.json", b"[]", r"JSON is not a chat export \(an empty list\)"),
        ("null.json", b"null", r"JSON is not a chat export \(a single NoneType value\)"),
        ("silent.json", b'{"messages": []}', r"JSON is not a chat export \(an empty list\)"),
        ("blank.json", b"  \n", "empty file"),
    ],
)  # fmt: skip
def test_json_that_is_not_a_chat_is_skipped(name: str, data: bytes, message: str) -> None:
    with pytest.raises(SkipDocument, match=message):
        convert_documents(Path(name), data)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("broken.json", b'[{"user": "U1",\n  "text": "hi",\n  }]', r"^invalid JSON at line 3, column 3: "),
        ("broken.jsonl", b'{"from": "a"\nnot json\n', r"^invalid JSON Lines at line 1, column 13: "),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "JSON is nested too deeply"),
        ("deep.jsonl", b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"\n", "JSONL is nested too deeply"),
    ],
)
def test_invalid_and_deeply_nested_json_fail_in_one_line(name: str, data: bytes, message: str) -> None:
    started = time.monotonic()
    with pytest.raises(DocumentError, match=message) as raised:
        convert_documents(Path(name), data)
    assert "\n" not in str(raised.value)
    assert time.monotonic() - started < 2


def test_deep_values_inside_messages_do_not_crash() -> None:
    deep: object = "bottom"
    for _ in range(200):  # 400 levels: deep, yet within what `json` itself can parse
        deep = {"text": [deep]}
    records = [
        {"from": "Ana", "time": 1_788_852_840, "text": "Plain"},
        {"from": "Bo", "time": 1, "text": deep},
    ]
    [log] = convert_documents(Path("deep.json"), json.dumps(records).encode())
    assert log.meta["messages"] == 1


def test_a_jsonl_line_cut_short_is_a_warning() -> None:
    data = make_chat_jsonl() + b'{"conversation": "night-watch", "from": "Le'
    documents = convert_documents(Path("harbor-log.jsonl"), data)
    assert documents[0].meta["messages"] == 3
    assert documents[0].warnings == [
        "skipped invalid JSON at line 5, column 41: Unterminated string starting at"
    ]


def test_a_huge_export_is_capped_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat, "MAX_MESSAGES", 3)
    watch, fuel = convert_documents(Path("harbor-log.jsonl"), make_chat_jsonl())
    assert watch.meta["messages"] + fuel.meta["messages"] == 3
    assert watch.warnings == ["only the first 3 of 4 messages were converted"]


# -- end to end ------------------------------------------------------------------------------


def test_calendar_and_chats_ingest_one_document_each(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    raw = {
        "club.ics": make_ics(),
        "boat-repairs.json": make_chat_json(),
        "conversations.json": make_chatgpt_json(),
        "harbor-log.jsonl": make_chat_jsonl(),
        "settings.json": b'{"theme": "dark", "autosave": true}',
    }
    folder = make_persona("club", raw=raw)
    report = kb.ingest(folder.parent)
    assert not report.failed
    skipped = [o for o in report.outcomes if o.status == "skipped"]
    assert [Path(o.path).name for o in skipped] == ["settings.json"]
    assert "JSON is not a chat export" in (skipped[0].message or "")
    documents = {d.id: d for d in kb.documents("club")}
    assert sorted(documents) == sorted(
        [
            HULL,
            REGATTA,
            STANDUP,
            "boat-repairs",
            "conversations-winch-maintenance-checklist",
            "conversations-regatta-safety-briefing",
            "harbor-log-night-watch",
            "harbor-log-fuel-orders",
        ]
    )
    meeting = documents[HULL]
    assert (meeting.type, meeting.date, meeting.title) == ("meeting", "2026-09-08", "Hull survey planning")
    assert meeting.meta["participants"][3] == {
        "name": "Priya Nair",
        "email": "priya@harbor.example",
        "role": "recipient",
    }
    assert documents["boat-repairs"].type == "chat" and documents["boat-repairs"].meta["messages"] == 5

    hits = kb.search("Priya Nair", "club")
    found = [h for h in hits[:5] if h.chunk.doc_id == HULL]
    assert found and found[0].chunk.section_path == "Hull survey planning > Attendees"
    assert found[0].surfaces.get("keyword") == 1
    asked = kb.search("Who is invited to the hull survey planning?", "club")
    assert asked[0].chunk.doc_id == HULL
    chats = kb.search("how often to service a winch", "club")
    assert chats[0].chunk.doc_id == "conversations-winch-maintenance-checklist"
