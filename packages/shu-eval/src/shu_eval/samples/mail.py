"""E-mail fixtures: a thread in a mailbox (quotes, a signature, a reply with no In-Reply-To), a
message with attachments, an HTML-only message, a scanned page (for OCR)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

ORIGINAL_ID = "<budget-2026@harbor.example>"
REPLY_ID = "<re-budget-2026@harbor.example>"
FOLLOW_UP_ID = "<re-re-budget-2026@harbor.example>"
ORIGINAL_TEXT = (
    "Team,\n\nThe Q3 boat-repair budget is 48,500 EUR. Most of it goes to the hull survey of the\n"
    "Marit and new winches for the Tern.\n\nPlease confirm by Friday.\n\nJonas"
)
REPLY_TEXT = "Jonas,\n\nConfirmed. I would move 5,000 EUR from winches to the survey.\n\nAyla"
FOLLOW_UP_TEXT = "Agreed with Ayla's change. The survey is booked for 12 September."


def _message(
    subject: str,
    sender: str,
    to: list[str],
    text: str,
    message_id: str,
    when: datetime,
    in_reply_to: str | None = None,
    cc: list[str] | None = None,
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to)
    if cc:
        message["Cc"] = ", ".join(cc)
    message["Subject"] = subject
    message["Date"] = format_datetime(when)
    message["Message-ID"] = message_id
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = in_reply_to
    message.set_content(text)
    return message


def thread_messages() -> list[EmailMessage]:
    jonas, ayla, lee = (
        "Jonas Berg <jonas@harbor.example>",
        "Ayla Demir <ayla@harbor.example>",
        "lee@harbor.example",
    )
    quoted = "\n".join(f"> {line}" for line in ORIGINAL_TEXT.splitlines())
    original = _message(
        "Q3 repair budget",
        jonas,
        [ayla],
        ORIGINAL_TEXT + "\n\n-- \nJonas Berg, Harbor Rowing Club",
        ORIGINAL_ID,
        datetime(2026, 6, 1, 9, 30, tzinfo=UTC),
        cc=[lee],
    )
    reply = _message(
        "Re: Q3 repair budget",
        ayla,
        [jonas],
        f"{REPLY_TEXT}\n\nOn Mon, 1 Jun 2026 at 09:30, Jonas Berg wrote:\n{quoted}",
        REPLY_ID,
        datetime(2026, 6, 1, 14, 5, tzinfo=UTC),
        in_reply_to=ORIGINAL_ID,
    )
    follow_up = _message(  # a client that wrote no In-Reply-To: threaded by its subject
        "RE: Q3 repair budget",
        jonas,
        [ayla, lee],
        f"{FOLLOW_UP_TEXT}\n\n-----Original Message-----\nFrom: Ayla Demir\n{REPLY_TEXT}",
        FOLLOW_UP_ID,
        datetime(2026, 6, 2, 8, 0, tzinfo=UTC),
    )
    return [original, reply, follow_up]


def make_mbox() -> bytes:
    out = io.BytesIO()
    for message in thread_messages():
        raw = message.as_bytes().replace(b"\nFrom ", b"\n>From ")
        out.write(b"From MAILER-DAEMON Mon Jun  1 09:30:00 2026\n" + raw + b"\n\n")
    return out.getvalue()


def make_eml_with_attachments() -> bytes:
    message = _message(
        "Minutes and photos of the June meeting",
        "Ayla Demir <ayla@harbor.example>",
        ["Members <members@harbor.example>"],
        "Hello all,\n\nThe minutes of the June meeting are attached, and the photos.\n\nAyla",
        "<june-minutes@harbor.example>",
        datetime(2026, 6, 20, 18, 0, tzinfo=UTC),
    )
    minutes = (
        "# June meeting minutes\n\n## Decisions\n\nThe club buys two new winches for the Tern.\n\n"
        "## Next meeting\n\nThe next meeting is on 18 July in the boathouse.\n"
    )
    message.add_attachment(minutes.encode(), maintype="text", subtype="markdown", filename="june-minutes.md")
    message.add_attachment(
        b"PK\x03\x04 not really", maintype="application", subtype="zip", filename="photos.zip"
    )
    return message.as_bytes()


def make_html_eml() -> bytes:
    message = EmailMessage()
    message["From"] = "News <news@harbor.example>"
    message["To"] = "jonas@harbor.example"
    message["Subject"] = "Regatta results"
    message["Date"] = format_datetime(datetime(2026, 7, 4, 12, 0, tzinfo=UTC))
    message["Message-ID"] = "<regatta@harbor.example>"
    message.set_content(
        "<html><body><h1>Regatta</h1><p>The Tern won the <b>coastal race</b>.</p></body></html>",
        subtype="html",
    )
    return message.as_bytes()


def make_scan_png() -> bytes:
    """A page of typed text as a grey PNG (Pillow's own font): what a scanner gives."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("L", (1400, 420), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=40)
    lines = {60: "Boiler Inspection Report", 160: "The boiler in building C passed inspection on"}
    lines[220] = "14 March 2026. Next check is due in September."
    for top, line in lines.items():
        draw.text((60, top), line, font=font, fill=0)
    out = io.BytesIO()
    page.save(out, "PNG")
    return out.getvalue()


def make_scanned_pdf() -> bytes:
    """A PDF with the scan as an image and no text layer."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(make_scan_png()), x=10, y=10, w=190)
    return bytes(pdf.output())
