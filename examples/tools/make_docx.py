#!/usr/bin/env python3
"""Build the example DOCX document for the Shu example knowledge base.

Run it with a Python that has python-docx installed, for example:

    /work/main/.venv/bin/python examples/tools/make_docx.py

It writes:
    examples/personas/city-garden/RAW-DOCS/volunteer-handbook.docx

The document uses the built-in Heading 1 (document title), Heading 2
(sections), Heading 3 (subsections), List Bullet and Table Grid styles so that
converters can recover its structure. The Word "Title" style is deliberately
not used: common DOCX converters (e.g. mammoth's default style map) turn it
into a plain paragraph.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from docx import Document

EXAMPLES = Path(__file__).resolve().parent.parent
OUT = EXAMPLES / "personas" / "city-garden" / "RAW-DOCS" / "volunteer-handbook.docx"

# (kind, content). kind: title (-> Heading 1), h1 (-> Heading 2), h2 (-> Heading 3),
# p, bullet, table
HANDBOOK = [
    ("title", "City Garden Co-op Volunteer Handbook"),
    (
        "p",
        "This handbook explains volunteer hours, workdays, volunteer teams and safety rules for "
        "members of City Garden Co-op in the 2026 season. Prepared by Lena Park, Volunteer "
        "Coordinator (volunteer@citygarden.example), and approved by the Steering Committee on "
        "10 March 2026.",
    ),
    ("h1", "Welcome"),
    (
        "p",
        "City Garden Co-op runs entirely on volunteer work. Nobody is paid: the compost, the "
        "paths, the water system, the tool shed, the two community plots for the Riverton "
        "Community Pantry and our events all depend on members giving a few hours of their "
        "time. This handbook explains how much we ask of you, how to log your hours, which "
        "teams you can join and how to stay safe while working in the garden.",
    ),
    ("h1", "Volunteer hours"),
    ("h2", "How many hours"),
    (
        "p",
        "Article VII of the bylaws asks every plot-holding household to contribute to the "
        "common work of the garden. For the 2026 season (1 April to 15 November) the "
        "requirement is:",
    ),
    ("bullet", "Standard plot: 8 hours per season."),
    ("bullet", "Half plot: 4 hours per season."),
    (
        "bullet",
        "Raised accessible bed: 4 hours per season. Seated tasks such as seed packing, "
        "the welcome table or phoning volunteers are always available.",
    ),
    (
        "p",
        "Hours can be worked by any member of the household aged 12 or older. Members without "
        "a plot are warmly welcome to volunteer too, and their hours are recorded in the same "
        "way.",
    ),
    ("h2", "Unworked hours"),
    (
        "p",
        "Hours not worked by 15 November are invoiced at $15 per hour together with any water "
        "fines in November. Volunteering is always preferred to paying; if you cannot work "
        "because of illness or a family emergency, talk to the Volunteer Coordinator, who can "
        "waive hours.",
    ),
    ("h2", "Logging your hours"),
    (
        "p",
        "Log every session within 7 days, either in the logbook on the shelf inside the tool "
        "shed door or with the online form linked from the members' page. Write the date, your "
        "plot number, the team or task and the hours worked, rounded to the nearest half hour. "
        "The Volunteer Coordinator e-mails a summary of your hours at the end of June and at "
        "the end of September.",
    ),
    ("h1", "Workdays"),
    (
        "p",
        "Workdays are held on the first Saturday of every month from April to October, from "
        "09:00 to 12:00. In 2026 they are 4 April, 2 May, 6 June, 4 July, 1 August, 5 September "
        "and 3 October. Each workday counts for 3 hours. Coffee and bread are provided, and "
        "tasks are posted on the whiteboard by 08:45. Tiller training is offered at 11:00.",
    ),
    ("h1", "Volunteer teams"),
    (
        "p",
        "Besides workdays, you can earn your hours in one of the standing teams. Each team has "
        "a lead who plans the work and signs off hours.",
    ),
    (
        "table",
        [
            ["Team", "Lead", "What the team does", "When"],
            [
                "Compost Crew",
                "Marta Kowalski",
                "Turns the bins every 2 weeks, checks temperature, runs workshops",
                "Saturdays 08:00-09:00",
            ],
            [
                "Water Team",
                "Amina Diallo",
                "Reads the meter every Monday, checks standpipes and rain barrels, runs the drip pilot",
                "Weekly, flexible",
            ],
            [
                "Shed Team",
                "Tobias Grant",
                "Cleans and repairs tools, keeps the inventory",
                "Second Sunday of the month",
            ],
            [
                "Pantry Harvest Team",
                "Lena Park",
                "Harvests the two community plots and delivers produce to the Riverton Community Pantry",
                "Wednesdays 18:00",
            ],
            [
                "Events Team",
                "Grace Nakamura",
                "Seedling sale, harvest festival, seed library",
                "Around events",
            ],
            [
                "Welcome Buddies",
                "Samuel Osei",
                "Mentors new plot holders during their first season and covers plots for sick members",
                "Flexible",
            ],
        ],
    ),
    ("h1", "Safety"),
    ("h2", "Basic rules"),
    ("bullet", "Wear gloves and closed shoes for all digging, compost and tool work."),
    (
        "bullet",
        "Lift with your legs, not your back; use a wheelbarrow or cart for loads above 15 kg "
        "and ask for help with anything heavier.",
    ),
    ("bullet", "Drink water and take breaks; in July and August avoid heavy work between 12:00 and 16:00."),
    (
        "bullet",
        "Only members who completed tiller training may use the rotary tiller, never on wet "
        "soil and never while alone in the garden.",
    ),
    (
        "bullet",
        "Do not use any pesticide, herbicide or fertiliser that is not on the allowed list "
        "in the Organic Pest Management Guide.",
    ),
    ("h2", "Minors"),
    (
        "p",
        "Young people are welcome. Volunteers under 16 must be accompanied by a parent or "
        "another responsible adult at all times. Children under 12 may not use sharp or power "
        "tools and may not be in the tool shed without an adult.",
    ),
    ("h2", "Injuries and emergencies"),
    (
        "p",
        "The first aid kit hangs to the right of the tool shed door, next to the incident book. "
        "Report every injury, however small, to a Steering Committee member and write it in "
        "the incident book the same day. In an emergency call 911 and give the address: "
        "214 Alder Street, gate on the Alder Street side.",
    ),
    ("h1", "Code of conduct"),
    (
        "p",
        "We are a diverse group of neighbours. Treat every volunteer with respect, share tools "
        "and knowledge generously, and leave work areas cleaner than you found them. Harassment "
        "or discrimination of any kind is not tolerated and is dealt with by the Steering "
        "Committee under Article IX of the bylaws.",
    ),
    ("h1", "Recognition"),
    (
        "p",
        "Volunteers who contribute 20 hours or more in a season are invited to the volunteer "
        "dinner at the harvest festival in September and receive first choice of seedlings at "
        "the next spring sale. In 2025, 23 members passed the 20-hour mark.",
    ),
    ("h1", "Contacts"),
    ("bullet", "Volunteer Coordinator: Lena Park, volunteer@citygarden.example"),
    ("bullet", "Coordinator: Dana Whitfield, hello@citygarden.example"),
    ("bullet", "Shed Steward: Tobias Grant, shed@citygarden.example"),
    ("bullet", "Water Steward: Amina Diallo, water@citygarden.example"),
    ("bullet", "Plot Coordinator: Samuel Osei, plots@citygarden.example"),
]


def build() -> None:
    doc = Document()
    props = doc.core_properties
    props.title = "City Garden Co-op Volunteer Handbook"
    props.author = "Lena Park"
    props.subject = "Volunteer hours, workdays, teams and safety"
    props.created = datetime(2026, 3, 10, 9, 0, 0)
    props.modified = datetime(2026, 3, 10, 9, 0, 0)

    for kind, content in HANDBOOK:
        if kind == "title":
            doc.add_heading(content, level=1)
        elif kind == "h1":
            doc.add_heading(content, level=2)
        elif kind == "h2":
            doc.add_heading(content, level=3)
        elif kind == "p":
            doc.add_paragraph(content)
        elif kind == "bullet":
            doc.add_paragraph(content, style="List Bullet")
        elif kind == "table":
            header, *rows = content
            table = doc.add_table(rows=1, cols=len(header))
            table.style = "Table Grid"
            for cell, text in zip(table.rows[0].cells, header, strict=False):
                cell.text = ""
                cell.paragraphs[0].add_run(text).bold = True
            for row in rows:
                cells = table.add_row().cells
                for cell, text in zip(cells, row, strict=False):
                    cell.text = text
        else:
            raise ValueError(f"unknown block kind: {kind}")

    OUT.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(OUT))
    print(f"wrote {OUT.relative_to(EXAMPLES.parent)} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    build()
