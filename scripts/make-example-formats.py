"""Write the example knowledge base's e-mail thread, meeting invitation and slide deck
(city-garden RAW-DOCS) — invented, CC0. Run once; the files are committed:
    .venv/bin/python scripts/make-example-formats.py
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

RAW = Path(__file__).resolve().parents[1] / "examples" / "personas" / "city-garden" / "RAW-DOCS"


def thread() -> bytes:
    messages = [
        (
            "Compost bins for the north beds",
            "Samuel Osei <samuel.osei@citygarden.example>",
            ["Dana Whitfield <dana.whitfield@citygarden.example>"],
            ["Amina Diallo <amina.diallo@citygarden.example>"],
            datetime(2026, 5, 4, 18, 10, tzinfo=UTC),
            "<bins-1@citygarden.example>",
            None,
            "Dana,\n\nTwo of the three compost bins by the north beds have split open. Riverton Hardware\n"
            "quotes $420 for three new 300-litre bins with lids, delivered.\n\nCan we buy them before the\n"
            "May work day?\n\nSamuel",
        ),
        (
            "Re: Compost bins for the north beds",
            "Amina Diallo <amina.diallo@citygarden.example>",
            ["Samuel Osei <samuel.osei@citygarden.example>"],
            ["Dana Whitfield <dana.whitfield@citygarden.example>"],
            datetime(2026, 5, 5, 8, 45, tzinfo=UTC),
            "<bins-2@citygarden.example>",
            "<bins-1@citygarden.example>",
            "Samuel,\n\nThe Riverton green grant still has $300 left for composting equipment, so the\n"
            "garden only pays the remaining $120.\n\nAmina\n\n"
            "> Riverton Hardware quotes $420 for three new bins.",
        ),
        (
            "Re: Compost bins for the north beds",
            "Dana Whitfield <dana.whitfield@citygarden.example>",
            [
                "Samuel Osei <samuel.osei@citygarden.example>",
                "Amina Diallo <amina.diallo@citygarden.example>",
            ],
            [],
            datetime(2026, 5, 5, 12, 30, tzinfo=UTC),
            "<bins-3@citygarden.example>",
            "<bins-2@citygarden.example>",
            "Approved. The $120 comes out of the tools budget. Samuel, please order the bins this week\n"
            "and ask Riverton to deliver them to the tool shed.\n\nDana\n\n-- \nDana Whitfield, Chair",
        ),
    ]
    out = b""
    chain: list[str] = []
    for subject, sender, to, cc, when, message_id, parent, text in messages:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, ", ".join(to), subject
        if cc:
            message["Cc"] = ", ".join(cc)
        message["Date"], message["Message-ID"] = format_datetime(when), message_id
        if parent:
            message["In-Reply-To"], message["References"] = parent, " ".join(chain)
        chain.append(message_id)
        message.set_content(text)
        out += b"From MAILER-DAEMON Mon May  4 18:10:00 2026\n" + message.as_bytes() + b"\n\n"
    return out


def meeting() -> bytes:
    from icalendar import Calendar, Event, vCalAddress, vText

    calendar = Calendar()
    calendar.add("prodid", "-//City Garden//Example//EN")
    calendar.add("version", "2.0")
    event = Event()
    event.add("uid", "work-day-planning-2026@citygarden.example")
    event.add("summary", "Summer work day planning")
    event.add("dtstart", datetime(2026, 6, 6, 10, 0, tzinfo=UTC))
    event.add("dtend", datetime(2026, 6, 6, 11, 0, tzinfo=UTC))
    event.add("dtstamp", datetime(2026, 5, 20, 9, 0, tzinfo=UTC))
    event.add("location", "Tool shed, Alder Street gate")
    event.add(
        "description",
        "Plan the 20 June work day: repair the west fence, mulch the main path and fix the rain "
        "barrel overflow. Bring measurements for the fence posts.",
    )
    organizer = vCalAddress("mailto:dana.whitfield@citygarden.example")
    organizer.params["cn"] = vText("Dana Whitfield")
    event["organizer"] = organizer
    for name, address, role in (
        ("Tobias Grant", "tobias.grant@citygarden.example", "REQ-PARTICIPANT"),
        ("Lena Park", "lena.park@citygarden.example", "REQ-PARTICIPANT"),
        ("Kenji Morales", "kenji.morales@citygarden.example", "OPT-PARTICIPANT"),
    ):
        attendee = vCalAddress(f"mailto:{address}")
        attendee.params["cn"] = vText(name)
        attendee.params["role"] = vText(role)
        attendee.params["partstat"] = vText("ACCEPTED")
        event.add("attendee", attendee, encode=0)
    calendar.add_component(event)
    return calendar.to_ical()


def deck() -> bytes:
    import io

    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    presentation.core_properties.title = "2026 Season Kickoff"
    presentation.core_properties.author = "Dana Whitfield"
    presentation.core_properties.created = datetime(2026, 3, 20, 9, 0)
    presentation.core_properties.modified = datetime(2026, 3, 27, 17, 0)
    presentation.core_properties.last_modified_by = "Dana Whitfield"
    title = presentation.slides.add_slide(presentation.slide_layouts[0])
    title.shapes.title.text = "2026 Season Kickoff"
    title.placeholders[1].text = "City Garden on Alder Street — members' meeting, 28 March 2026"
    slides = [
        (
            "Key dates",
            ["Opening day: 4 April", "Plot inspections: 15 May", "Harvest festival: 12 September"],
            "Remind members that the harvest festival moved from August to 12 September this year.",
        ),
        (
            "New this year",
            [
                "Drip irrigation on beds 1 to 12",
                "Seed library in the tool shed",
                "Three new compost bins by the north beds",
            ],
            "The drip lines run 06:00 to 07:00 on their own timer; do not change it.",
        ),
        (
            "Volunteer hours",
            [
                "Standard plot: 8 hours a season",
                "Raised bed: 4 hours a season",
                "Log hours on the sheet in the tool shed",
            ],
            "",
        ),
    ]
    for heading, bullets, notes in slides:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = heading
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    table_slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    table_slide.shapes.title.text = "Plot fees"
    rows = [
        ("Plot", "Season fee"),
        ("Standard plot", "$60"),
        ("Raised bed", "$35"),
        ("Shared herb bed", "$15"),
    ]
    table = table_slide.shapes.add_table(len(rows), 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


if __name__ == "__main__":
    (RAW / "2026-05-compost-bins-thread.mbox").write_bytes(thread())
    (RAW / "2026-06-06-work-day-planning.ics").write_bytes(meeting())
    (RAW / "2026-season-kickoff-slides.pptx").write_bytes(deck())
    print(f"wrote 3 files to {RAW}")
