"""Write the second example knowledge base, `examples/office-kb/` (invented, CC0): the operations
team of Fernhill Print & Pack, a small printing and packaging company, with one document in each
format Shu reads besides Markdown — an e-mail thread (.mbox), a single e-mail (.eml), meeting
invitations (.ics), meeting minutes (.docx), slides with a table and speaker notes (.pptx), a
workbook with two sheets (.xlsx), a log (.csv), a Slack channel export (.json), a scanned typed
page (.png), a handbook (.pdf) and a web page (.html).

Every file is built from the texts in `scripts/office_kb_texts.py` (imported from this script's
folder) with fixed timestamps, so running it again gives the same bytes. Run once; the files are
committed (the labelled questions in `packages/shu-eval/src/shu_eval/data/answers/questions.jsonl`
are written against them):

    .venv/bin/python scripts/make-office-kb.py
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from office_kb_texts import (
    CHAT,
    HANDBOOK,
    HARRIET,
    KPI_TABLE,
    LONDON,
    MAINTENANCE,
    MINUTES_ACTIONS,
    PEOPLE,
    PERSONA_CONFIG,
    PERSONA_MD,
    PRICE_HEADER,
    PRICES,
    SCAN_LINES,
    SERVICES_HTML,
    SOFIA,
    STOCK,
    STOCK_HEADER,
    THREAD,
)

ROOT = Path(__file__).resolve().parents[1] / "examples" / "office-kb"
PERSONA = ROOT / "fernhill-ops"
RAW = PERSONA / "RAW-DOCS"
CREATED = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
_ZIP_TIME = (2026, 7, 1, 9, 0, 0)
_MODIFIED = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*<")
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _message(
    subject: str,
    sender: str,
    to: list[str],
    cc: list[str],
    when: datetime,
    message_id: str,
    reply_to: str | None,
    body: str,
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to)
    if cc:
        message["Cc"] = ", ".join(cc)
    message["Subject"] = subject
    message["Date"] = format_datetime(when)
    message["Message-ID"] = message_id
    if reply_to:
        message["In-Reply-To"] = reply_to
        message["References"] = reply_to
    message.set_content(body)
    return message


def mbox() -> bytes:
    parts = []
    for subject, sender, to, cc, when, message_id, reply_to, body in THREAD:
        message = _message(subject, sender, to, cc, when, message_id, reply_to, body)
        stamp = when.strftime("%a %b %d %H:%M:%S %Y")
        text = message.as_string().replace("\nFrom ", "\n>From ")
        parts.append(f"From MAILER-DAEMON {stamp}\n{text}\n")
    return "\n".join(parts).encode()


def eml() -> bytes:
    body = (
        "Dear Harriet,\n\n"
        "Our mill costs for pulp and energy have risen again this spring, and we have to pass part\n"
        "of this on. From 1 July 2026 our prices change as follows:\n\n"
        "- Mallory Silk (coated) papers: +6.5%\n"
        "- Mallory Offset (uncoated) papers: +4%\n"
        "- Ridgeway Board: no change\n\n"
        "Every order placed by 26 June 2026 is invoiced at the current prices, even if it is\n"
        "delivered in July. The minimum order value for free delivery rises from 250 GBP to\n"
        "300 GBP on the same date. Our delivery days to Ashby stay Tuesday and Friday.\n\n"
        "I am sorry to bring this news. If it helps your planning, I can hold up to 40,000 sheets\n"
        "of Mallory Silk 150gsm for you at today's price until the end of September, delivered as\n"
        "you call them off.\n\n"
        "Kind regards,\n"
        "Ruth Ellery\n"
        "Account Manager, Mallory Paper Ltd\n"
        "01632 960 418"
    )
    message = _message(
        "Price change from 1 July 2026",
        "Ruth Ellery <ruth.ellery@mallorypaper.example>",
        [HARRIET],
        [SOFIA],
        datetime(2026, 6, 2, 10, 15, tzinfo=UTC),
        "<prices-2026-07@mallorypaper.example>",
        None,
        body,
    )
    return message.as_bytes()


# -- meeting invitations -----------------------------------------------------------------------


def _fold(line: str) -> list[str]:
    data, pieces, limit = line.encode(), [], 75
    while len(data) > limit:
        cut = limit
        while data[cut] & 0xC0 == 0x80:
            cut -= 1
        pieces.append(data[:cut].decode())
        data, limit = data[cut:], 74
    pieces.append(data.decode())
    return [pieces[0]] + [" " + piece for piece in pieces[1:]]


def _ics_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _attendee(name: str, email: str, role: str, status: str) -> str:
    return f'ATTENDEE;CN="{name}";ROLE={role};PARTSTAT={status};RSVP=TRUE:mailto:{email}'


def ics() -> bytes:
    events = [
        [
            "BEGIN:VEVENT",
            "UID:press2-review-2026@fernhill.example",
            "DTSTAMP:20260515T170000Z",
            "DTSTART;TZID=Europe/London:20260519T140000",
            "DTEND;TZID=Europe/London:20260519T150000",
            "SUMMARY:Press 2 repair review",
            f"LOCATION:{_ics_text('Meeting room 2, mezzanine floor')}",
            "DESCRIPTION:"
            + _ics_text(
                "Review the Press 2 breakdown of 11-15 May: the cause, the repair, what it cost and "
                "whether to take the Pressline service contract. Owen brings the old bearing."
            ),
            'ORGANIZER;CN="Harriet Quinn":mailto:harriet.quinn@fernhill.example',
            _attendee("Harriet Quinn", "harriet.quinn@fernhill.example", "CHAIR", "ACCEPTED"),
            _attendee("Owen Pryce", "owen.pryce@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Dev Malhotra", "dev.malhotra@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Karl Dietz", "karl.dietz@pressline.example", "OPT-PARTICIPANT", "TENTATIVE"),
            _attendee("Martin Webb", "martin.webb@fernhill.example", "OPT-PARTICIPANT", "DECLINED"),
            "END:VEVENT",
        ],
        [
            "BEGIN:VEVENT",
            "UID:fire-drill-2026-07@fernhill.example",
            "DTSTAMP:20260601T080000Z",
            "DTSTART;TZID=Europe/London:20260716T103000",
            "DTEND;TZID=Europe/London:20260716T110000",
            "SUMMARY:Summer fire drill",
            f"LOCATION:{_ics_text('Assembly point: car park B, Kiln Lane')}",
            "DESCRIPTION:"
            + _ics_text(
                "Unannounced to the shop floor: do not forward. Fire wardens check their zones and "
                "report to Grace at the assembly point. Target: everyone out within 4 minutes."
            ),
            'ORGANIZER;CN="Grace Okafor":mailto:grace.okafor@fernhill.example',
            _attendee("Grace Okafor", "grace.okafor@fernhill.example", "CHAIR", "ACCEPTED"),
            _attendee("Sofia Lindqvist", "sofia.lindqvist@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Dev Malhotra", "dev.malhotra@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Tom Reilly", "tom.reilly@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            "END:VEVENT",
        ],
        [
            "BEGIN:VEVENT",
            "UID:planning-standup@fernhill.example",
            "DTSTAMP:20260101T080000Z",
            "DTSTART;TZID=Europe/London:20260105T083000",
            "DTEND;TZID=Europe/London:20260105T085000",
            "RRULE:FREQ=WEEKLY;BYDAY=MO",
            "SUMMARY:Production planning stand-up",
            f"LOCATION:{_ics_text('Shop floor, at the planning board')}",
            "DESCRIPTION:"
            + _ics_text("The week's jobs per machine, late paper deliveries, staffing gaps. 20 minutes."),
            'ORGANIZER;CN="Dev Malhotra":mailto:dev.malhotra@fernhill.example',
            _attendee("Dev Malhotra", "dev.malhotra@fernhill.example", "CHAIR", "ACCEPTED"),
            _attendee("Harriet Quinn", "harriet.quinn@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Sofia Lindqvist", "sofia.lindqvist@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Owen Pryce", "owen.pryce@fernhill.example", "REQ-PARTICIPANT", "ACCEPTED"),
            _attendee("Aisha Rahman", "aisha.rahman@fernhill.example", "OPT-PARTICIPANT", "ACCEPTED"),
            "END:VEVENT",
        ],
    ]
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Fernhill Print & Pack//Operations calendar//EN",
        "CALSCALE:GREGORIAN",
        "X-WR-CALNAME:Fernhill Operations",
        *LONDON,
    ]
    for event in events:
        lines += event
    lines.append("END:VCALENDAR")
    return ("\r\n".join(folded for line in lines for folded in _fold(line)) + "\r\n").encode()


# -- meeting minutes (.docx) -------------------------------------------------------------------


def docx() -> bytes:
    from docx import Document

    document = Document()
    props = document.core_properties
    props.title, props.author = "Operations meeting minutes, 20 May 2026", "Aisha Rahman"
    props.created = props.modified = CREATED.replace(tzinfo=None)
    props.last_modified_by, props.revision = "Aisha Rahman", 1

    document.add_heading("Operations meeting minutes, 20 May 2026", 0)
    document.add_paragraph(
        "Wednesday 20 May 2026, 09:00 to 10:30, Meeting room 2. Chair: Harriet Quinn (Operations "
        "Manager). Minutes: Aisha Rahman (Customer Service Lead)."
    )
    document.add_paragraph(
        "Present: Harriet Quinn, Dev Malhotra, Owen Pryce, Sofia Lindqvist, Grace Okafor, Martin "
        "Webb, Aisha Rahman. Apologies: none."
    )

    document.add_heading("1. Press 2 breakdown (11 to 15 May)", 1)
    document.add_paragraph(
        "Owen summarised the breakdown: the main drive bearing failed because a blocked lubrication "
        "line starved it of grease. Press 2 was down for four and a half days. Nine jobs were "
        "delayed and two deliveries reached customers late. The repair cost 4,860 GBP and "
        "outsourcing the Harbour Theatre brochures to Riverside Print cost 1,150 GBP, 6,010 GBP in "
        "all, paid from the maintenance budget."
    )
    document.add_paragraph(
        "Pressline offered an annual service contract for Press 2 at 6,200 GBP a year: two "
        "preventive services, parts at 15% off and an engineer on site within 24 hours."
    )
    document.add_paragraph(
        "Decision: a spare main drive bearing kit is bought and kept in stores, and the Pressline "
        "service contract is accepted from 1 June 2026."
    )

    document.add_heading("2. Courier contract", 1)
    document.add_paragraph(
        "Sofia compared three couriers for next-day parcels up to 10 kg. Dalton Express, our courier "
        "today, charges 7.15 GBP a parcel; Swiftline Couriers offered 6.40 GBP with collection at "
        "17:00 instead of 16:00; Parcelgo offered 6.10 GBP but no Saturday delivery. At about 1,900 "
        "parcels a year Swiftline saves roughly 1,400 GBP."
    )
    document.add_paragraph(
        "Decision: Swiftline Couriers replaces Dalton Express from 1 July 2026 on a one-year contract."
    )

    document.add_heading("3. Summer shift pattern", 1)
    document.add_paragraph(
        "Dev proposed running Press 1 on two shifts from 1 June to 31 August to clear the backlog and "
        "the seasonal packaging orders: early shift 06:00 to 14:00 and late shift 14:00 to 22:00."
    )
    document.add_paragraph(
        "Decision: approved. Two temporary press operators are hired through Ashby Staffing for the summer."
    )

    document.add_heading("4. Warehouse racking", 1)
    document.add_paragraph(
        "The annual racking inspection on 18 May found three damaged uprights in aisle C. Aisle C is "
        "closed and its pallets moved to aisle E until the repair on 27 May."
    )

    document.add_heading("5. Fire drill follow-up", 1)
    document.add_paragraph(
        "Grace reported that the alarm cannot be heard in the paper store. An extra sounder will be "
        "fitted there."
    )

    document.add_heading("Action items", 1)
    table = document.add_table(rows=1, cols=3)
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, ("Action", "Owner", "Due"), strict=True):
        cell.text = text
    for action in MINUTES_ACTIONS:
        for cell, text in zip(table.add_row().cells, action, strict=True):
            cell.text = text
    document.add_paragraph("Next operations meeting: Wednesday 17 June 2026, 09:00, Meeting room 2.")

    buffer = io.BytesIO()
    document.save(buffer)
    return _fixed_zip(buffer.getvalue())


# -- slides (.pptx) ----------------------------------------------------------------------------


def pptx() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    props = deck.core_properties
    props.title, props.author = "Q2 2026 operations review", "Harriet Quinn"
    props.created = props.modified = CREATED.replace(tzinfo=None)
    props.last_modified_by, props.revision = "Harriet Quinn", 1
    layouts = deck.slide_layouts

    title = deck.slides.add_slide(layouts[0])
    title.shapes.title.text = "Q2 2026 operations review"
    title.placeholders[1].text = "Fernhill Print & Pack - management meeting, 8 July 2026"
    title.notes_slide.notes_text_frame.text = "Presented by Harriet Quinn. 20 minutes plus questions."

    kpis = deck.slides.add_slide(layouts[5])
    kpis.shapes.title.text = "Key figures, April to June"
    frame = kpis.shapes.add_table(len(KPI_TABLE), 5, Inches(0.4), Inches(1.6), Inches(9.2), Inches(3.2))
    for r, row in enumerate(KPI_TABLE):
        for c, value in enumerate(row):
            frame.table.cell(r, c).text = value
    kpis.notes_slide.notes_text_frame.text = (
        "May is the Press 2 breakdown: 9 of the 14 late jobs in May were Press 2 jobs. Without them "
        "on-time delivery would have been 96.3%. Paper waste went up in May because Press 1 ran "
        "double shifts with new make-ready crews."
    )

    complaints = deck.slides.add_slide(layouts[1])
    complaints.shapes.title.text = "Customer complaints in Q2"
    body = complaints.placeholders[1].text_frame
    body.text = "6 complaints in the quarter (5 in Q1)"
    for level, text in [
        (0, "Wrong or misaligned finishing: 3"),
        (0, "Late delivery: 2"),
        (0, "Colour mismatch: 1"),
        (1, "Largest: Bramley Foods cartons, order 26-0392, reprinted at our cost"),
    ]:
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, level
    complaints.notes_slide.notes_text_frame.text = (
        "The Bramley Foods reprint of 2,500 cartons cost us 1,480 GBP. The die-cutting tool was set "
        "2 mm off; Dev now signs off the first carton of every die-cut run."
    )

    priorities = deck.slides.add_slide(layouts[1])
    priorities.shapes.title.text = "Priorities for Q3"
    body = priorities.placeholders[1].text_frame
    body.text = "Pressline service contract for Press 2 (live since 1 June)"
    for text in [
        "Swiftline Couriers from 1 July",
        "ISO 14001 environmental audit on 22 September",
        "Paper buying before the Mallory price rise",
    ]:
        body.add_paragraph().text = text
    priorities.notes_slide.notes_text_frame.text = (
        "The ISO 14001 audit is done by Certa Assurance; Grace Okafor leads the preparation. "
        "Sofia placed a 60,000-sheet Mallory Silk order on 24 June, before the 26 June cut-off."
    )

    capex = deck.slides.add_slide(layouts[1])
    capex.shapes.title.text = "Investment request: folder-gluer"
    body = capex.placeholders[1].text_frame
    body.text = "A second-hand folder-gluer for cartons: 48,000 GBP"
    for text in [
        "Today cartons are glued by Kestrel Finishing at 0.09 GBP a carton",
        "Payback in about 2.5 years at current carton volumes",
    ]:
        body.add_paragraph().text = text
    capex.notes_slide.notes_text_frame.text = (
        "The board decides at its meeting on 28 July. Colin Ashdown, our managing director, has "
        "asked for two quotes before then."
    )

    buffer = io.BytesIO()
    deck.save(buffer)
    return _fixed_zip(buffer.getvalue())


# -- workbook (.xlsx) and log (.csv) -----------------------------------------------------------


def xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.properties.title, book.properties.creator = "Paper prices and stock", "Sofia Lindqvist"
    book.properties.created = book.properties.modified = CREATED.replace(tzinfo=None)
    book.properties.lastModifiedBy = "Sofia Lindqvist"
    prices = book.active
    prices.title = "Price list"
    prices.append(PRICE_HEADER)
    for row in PRICES:
        prices.append(row)
    stock = book.create_sheet("Stock")
    stock.append(STOCK_HEADER)
    for row in STOCK:
        stock.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return _fixed_zip(buffer.getvalue())


def maintenance_csv() -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(MAINTENANCE)
    return buffer.getvalue().encode()


# -- Slack channel export (.json) --------------------------------------------------------------


def chat_json() -> bytes:
    records = []
    for when, user, text in CHAT:
        stamp = datetime.fromisoformat(when).replace(tzinfo=UTC).timestamp()
        records.append(
            {
                "type": "message",
                "user": user,
                "user_profile": {"real_name": PEOPLE[user]},
                "ts": f"{stamp:.6f}",
                "text": text,
            }
        )
    return (json.dumps({"channel": "ops-floor", "messages": records}, indent=1) + "\n").encode()


# -- scanned page (.png) -----------------------------------------------------------------------


def scan_png() -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    regular = ImageFont.truetype(str(FONT), 30)
    bold = ImageFont.truetype(str(FONT.with_name("DejaVuSans-Bold.ttf")), 30)
    image = Image.new("L", (1400, 60 + 46 * len(SCAN_LINES) + 60), 255)
    draw = ImageDraw.Draw(image)
    for index, (text, strong) in enumerate(SCAN_LINES):
        draw.text((70, 60 + 46 * index), text, fill=0, font=bold if strong else regular)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


# -- handbook (.pdf) ---------------------------------------------------------------------------


def handbook_pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(CREATED)
    pdf.set_title("Staff Handbook 2026 - Working Hours, Overtime and Leave")
    pdf.set_author("Fernhill Print & Pack Ltd")
    pdf.set_margins(20, 20, 20)
    pdf.add_page()
    for kind, text in HANDBOOK:
        if kind == "title":
            pdf.set_font("Helvetica", "B", 16)
            pdf.multi_cell(0, 9, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif kind == "h":
            pdf.ln(2)
            pdf.set_font("Helvetica", "B", 13)
            pdf.multi_cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    return bytes(pdf.output())


# -- writing ---------------------------------------------------------------------------------


def _fixed_zip(data: bytes) -> bytes:
    """The same archive with fixed member timestamps, so equal content gives equal bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            info = zipfile.ZipInfo(member.filename, _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            content = source.read(member)
            if member.filename == "docProps/core.xml":  # openpyxl stamps the time of saving
                content = _MODIFIED.sub(rb"\g<1>2026-07-01T09:00:00Z<", content)
            target.writestr(info, content)
    return out.getvalue()


FILES = {
    "2026-05-press-2-breakdown-thread.mbox": mbox,
    "2026-06-02-mallory-paper-price-change.eml": eml,
    "operations-calendar.ics": ics,
    "2026-05-20-operations-meeting-minutes.docx": docx,
    "2026-q2-operations-review.pptx": pptx,
    "paper-prices-and-stock.xlsx": xlsx,
    "maintenance-log-2026.csv": maintenance_csv,
    "ops-floor-channel.json": chat_json,
    "2026-04-29-fire-drill-report.png": scan_png,
    "staff-handbook-hours-and-leave.pdf": handbook_pdf,
    "services-and-turnaround.html": lambda: SERVICES_HTML.encode(),
}


def main() -> None:
    RAW.mkdir(parents=True, exist_ok=True)
    (PERSONA / "persona.md").write_text(PERSONA_MD, encoding="utf-8")
    (PERSONA / "persona.config.json").write_text(
        json.dumps(PERSONA_CONFIG, indent=2) + "\n", encoding="utf-8"
    )
    for name, build in FILES.items():
        (RAW / name).write_bytes(build())
        print(f"wrote {(RAW / name).relative_to(ROOT.parent.parent)}")


if __name__ == "__main__":
    main()
