"""Office and e-book fixtures: a slide deck, a workbook (one sheet long enough to be split by
rows), a semicolon CSV and an EPUB 3 book. The content is invented (CC0); every file is built
by code, byte for byte the same on every call (zip timestamps are fixed), and the values below
are the ones the converter tests check."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from datetime import date, datetime

DECK_TITLE = "Harbor Street Community Garden: 2026 Season"
DECK_AUTHOR = "Marta Okafor"
DECK_CREATED = datetime(2026, 2, 14, 9, 30)
DECK_SLIDES = 6
PLANTING_BULLETS = [
    (0, "Sow peas and broad beans in early March"),
    (1, "North beds only: they drain fastest"),
    (0, "Plant tomatoes after the last frost, usually mid-May"),
    (1, "Harden seedlings outside for a week first"),
    (0, "Garlic goes in during October"),
]
PLANTING_NOTE = "The frost date moved two weeks later last year; check the forecast before planting."
FEE_TABLE = [
    ["Plot size", "Annual fee", "Waiting list"],
    ["Half plot", "$25", "4"],
    ["Full plot", "$40", "11"],
    ["Raised bed (accessible)", "$15", "0"],
]
FEE_NOTE = "Fee waivers are available on request, no questions asked."
CONTACT_TEXT = "Questions? Write to garden@harbor-street.example"
CHART_TITLE = "Harvest 2025 (kg)"
CHART_DATA = {"July": (43.5, 31), "August": (53.25, 44.25), "September": (58, 58)}
CHART_SERIES = ("Harvested", "Donated")

WORKBOOK_TITLE = "Harbor Street Garden Records"
WORKBOOK_AUTHOR = "Marta Okafor"
WORKBOOK_CREATED = datetime(2026, 3, 1, 8, 0)
PLOTS_HEADER = ["Plot", "Holder", "Size", "Since", "Fee paid", "Notes"]
PLOTS_ROWS = 120
HARVEST_HEADER = ["Date", "Crop", "Kilograms", "Donated to"]
HARVEST_ROWS = [
    [date(2025, 7, 4), "Broad beans", 12.5, "Harbor Food Bank"],
    [date(2025, 7, 18), "Courgettes", 31, "Café Rosa"],
    [date(2025, 8, 2), "Tomatoes", 44.25, "Harbor Food Bank"],
    [date(2025, 8, 30), "Runner beans", 9, "St. Brigid's kitchen"],
    [date(2025, 9, 13), "Squash", 58, "Harbor Food Bank"],
]
_HOLDERS = ["Ana Ruiz", "Bo Lindqvist", "Chidi Eze", "Dana Kowalski", "Eitan Levi", "Fatima Noor", "Gus Hale"]
_SIZES = ["Half", "Full", "Raised bed"]

CSV_ROWS = [
    ["Date", "Crop", "Kilograms", "Donated to"],
    ["2025-07-04", "Broad beans", "12,5", "Harbor Food Bank"],
    ["2025-07-18", "Courgettes", "31", "Café Rosa; back door"],
    ["2025-08-02", "Tomatoes", "44,25", "Harbor Food Bank"],
    ["2025-08-30", "Runner beans", "9", "St. Brigid's kitchen"],
]
"""Written with `;` (decimal commas, as a European spreadsheet exports them); one field holds a `;`."""

BOOK_TITLE = "The Patient Gardener"
BOOK_AUTHOR = "Ines Albrecht"
BOOK_DATE = "2024-05-03"
BOOK_LANGUAGE = "en"
BOOK_CHAPTERS = ["Soil First", "Water Wisely", "Saving Seeds"]
"""Chapter 1 and 2 open with an <h1> (chapter 2's inside a <header>); chapter 3 has no heading,
its title comes from the navigation document."""

_FIXED_TIME = (2026, 1, 1, 0, 0, 0)
_CREATED = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*<")
_MODIFIED = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*<")


def plots_row(number: int) -> list[object]:
    """Row `number` (1-based, below the header) of the Plots sheet."""
    notes = ""
    if number == 7:
        notes = "Shares beds A|B with plot P-008"
    elif number == 12:
        notes = "Wheelchair access\nvia the east gate"
    return [
        f"P-{number:03d}",
        _HOLDERS[number % len(_HOLDERS)],
        _SIZES[number % len(_SIZES)],
        date(2015 + number % 11, 1 + number % 12, 1 + number % 28),
        number % 5 != 0,
        notes,
    ]


def make_pptx() -> bytes:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches, Pt

    deck = Presentation()
    props = deck.core_properties
    props.title, props.author, props.subject = DECK_TITLE, DECK_AUTHOR, "Season plan"
    props.created, props.modified, props.last_modified_by = DECK_CREATED, DECK_CREATED, DECK_AUTHOR
    props.revision = 1
    layouts = deck.slide_layouts

    title_slide = deck.slides.add_slide(layouts[0])
    title_slide.shapes.title.text = "Harbor Street Community Garden"
    title_slide.placeholders[1].text = "2026 season plan for plot holders"
    title_slide.notes_slide.notes_text_frame.text = "Welcome everyone; introduce the new coordinators."

    planting = deck.slides.add_slide(layouts[1])
    planting.shapes.title.text = "Planting Calendar"
    body = planting.placeholders[1].text_frame
    for index, (level, text) in enumerate(PLANTING_BULLETS):
        paragraph = body.paragraphs[0] if index == 0 else body.add_paragraph()
        paragraph.text, paragraph.level = text, level
    planting.notes_slide.notes_text_frame.text = PLANTING_NOTE

    fees = deck.slides.add_slide(layouts[5])
    fees.shapes.title.text = "Plot Fees"
    frame = fees.shapes.add_table(len(FEE_TABLE), 3, Inches(0.5), Inches(1.6), Inches(9), Inches(2.4))
    for r, row in enumerate(FEE_TABLE):
        for c, value in enumerate(row):
            frame.table.cell(r, c).text = value
    due = fees.shapes.add_textbox(Inches(0.5), Inches(4.4), Inches(9), Inches(0.8))
    due.text_frame.text = "Fees are due by 31 March."
    due.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
    fees.notes_slide.notes_text_frame.text = FEE_NOTE

    rules = deck.slides.add_slide(layouts[1])
    rules.shapes.title.text = "Tool Shed Rules"
    body = rules.placeholders[1].text_frame
    body.text = "Return tools clean and dry"
    for level, text in [
        (0, "Log borrowed power tools in the shed book"),
        (1, "The hedge trimmer needs a trained volunteer"),
    ]:
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, level

    harvest = deck.slides.add_slide(layouts[5])
    harvest.shapes.title.text = "Harvest by Month"
    data = CategoryChartData()
    data.categories = list(CHART_DATA)
    for index, name in enumerate(CHART_SERIES):
        data.add_series(name, [values[index] for values in CHART_DATA.values()])
    chart = harvest.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.6), Inches(8), Inches(5), data
    ).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = CHART_TITLE

    contact = deck.slides.add_slide(layouts[6])
    box = contact.shapes.add_textbox(Inches(1), Inches(3), Inches(8), Inches(1))
    box.text_frame.text = CONTACT_TEXT
    contact.notes_slide.notes_text_frame.text = "Leave ten minutes for questions."

    buffer = io.BytesIO()
    deck.save(buffer)
    return _fixed_zip(buffer.getvalue())


def make_xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.properties.title, book.properties.creator = WORKBOOK_TITLE, WORKBOOK_AUTHOR
    book.properties.created = book.properties.modified = WORKBOOK_CREATED
    book.properties.lastModifiedBy = WORKBOOK_AUTHOR

    plots = book.active
    plots.title = "Plots"
    plots.append(PLOTS_HEADER)
    for number in range(1, PLOTS_ROWS + 1):
        plots.append(plots_row(number))
        plots.cell(row=number + 1, column=4).number_format = "yyyy-mm-dd"

    harvest = book.create_sheet("Harvest Log")  # laid out from B3, as people do: the margin is trimmed
    table: list[Sequence[object]] = [HARVEST_HEADER, *HARVEST_ROWS]
    for r, row in enumerate(table):
        for c, value in enumerate(row):
            harvest.cell(row=3 + r, column=2 + c, value=value)
    harvest.cell(row=3 + len(HARVEST_ROWS) + 2, column=2, value=None)

    book.create_sheet("Scratch")  # empty: skipped

    buffer = io.BytesIO()
    book.save(buffer)
    return _fixed_zip(buffer.getvalue(), saved=WORKBOOK_CREATED)


def make_csv() -> bytes:
    import csv

    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\r\n").writerows(CSV_ROWS)
    return buffer.getvalue().encode("utf-8")


def make_epub(toc: str = "nav", encrypted: bool = False) -> bytes:
    """An EPUB 3 book (nav document; `toc="ncx"` gives an EPUB 2 NCX instead). `encrypted` adds a
    META-INF/encryption.xml that lists chapter 1 as AES-encrypted, as a DRM-locked book does."""
    chapters = {
        "text/ch1.xhtml": _xhtml(
            "Soil First",
            "<h1>Soil First</h1><p>Good soil is alive: it holds water, air and a billion small workers. "
            "Feed it compost every autumn.</p><h2>Testing pH</h2><p>Most vegetables want a pH between "
            "6.0 and 7.0; brassicas like it a little sweeter.</p>",
        ),
        "text/ch2.xhtml": _xhtml(
            "Water Wisely",
            "<section><header><h1>Water Wisely</h1></header><p>Water deeply and rarely, early in the "
            "morning, at the roots.</p><h2>Drip lines</h2><p>A drip line uses half the water of a "
            "sprinkler.</p><h3>Timers</h3><p>Set the timer for 5 a.m.</p></section>",
        ),
        "text/ch3.xhtml": _xhtml(
            "Saving Seeds",
            "<p>Let the best plant of each row go to seed. Dry the seed heads indoors, then store "
            "them in paper envelopes, labelled with the variety and the year.</p>",
        ),
    }
    nav = _xhtml(
        "Contents",
        '<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>'
        + "".join(
            f'<li><a href="{href.removeprefix("text/")}">{title}</a></li>'
            for href, title in zip(chapters, BOOK_CHAPTERS, strict=True)
        )
        + "</ol></nav>",
    )
    ncx = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
        'version="2005-1"><head/><docTitle><text>The Patient Gardener</text></docTitle><navMap>'
        + "".join(
            f'<navPoint id="np{n}" playOrder="{n}"><navLabel><text>{title}</text></navLabel>'
            f'<content src="{href}"/></navPoint>'
            for n, (href, title) in enumerate(zip(chapters, BOOK_CHAPTERS, strict=True), start=1)
        )
        + "</navMap></ncx>"
    )
    if toc == "nav":
        toc_item = (
            '<item id="nav" href="text/nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        )
        spine_attr, spine_first = "", '<itemref idref="nav"/>'
    else:
        toc_item = '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
        spine_attr, spine_first = ' toc="ncx"', ""
    opf = f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="bookid">urn:uuid:5b1f0c7e-3d0a-4c55-9a51-0e6f2f7c2a11</dc:identifier>
    <dc:title>{BOOK_TITLE}</dc:title>
    <dc:creator>{BOOK_AUTHOR}</dc:creator>
    <dc:date>{BOOK_DATE}</dc:date>
    <dc:language>{BOOK_LANGUAGE}</dc:language>
    <dc:rights>CC0 1.0</dc:rights>
    <meta property="dcterms:modified">2024-05-03T00:00:00Z</meta>
  </metadata>
  <manifest>
    {toc_item}
    <item id="ch1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch3" href="text/ch3.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine{spine_attr}>
    {spine_first}<itemref idref="ch1"/><itemref idref="ch2"/><itemref idref="ch3"/>
  </spine>
</package>
"""
    container = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" '
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    parts: dict[str, str] = {"META-INF/container.xml": container, "OEBPS/content.opf": opf}
    if encrypted:
        parts["META-INF/encryption.xml"] = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<encryption xmlns="urn:oasis:names:tc:opendocument:'
            'xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
            '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
            '<enc:CipherData><enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData>'
            "</enc:EncryptedData></encryption>"
        )
    parts["OEBPS/text/nav.xhtml" if toc == "nav" else "OEBPS/toc.ncx"] = nav if toc == "nav" else ncx
    parts |= {f"OEBPS/{href}": text for href, text in chapters.items()}
    parts["OEBPS/style.css"] = "body { font-family: serif; }\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype", _FIXED_TIME), "application/epub+zip")  # stored, first
        for name, text in parts.items():
            archive.writestr(zipfile.ZipInfo(name, _FIXED_TIME), text, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _xhtml(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" '
        f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title>'
        f'<link rel="stylesheet" href="../style.css"/></head><body>{body}</body></html>'
    )


def _fixed_zip(data: bytes, embedded: bool = False, saved: datetime | None = None) -> bytes:
    """The same archive with fixed member timestamps (and, in a chart's embedded workbook, a fixed
    creation time; with `saved`, the time of its last save, which openpyxl stamps with the time of
    day whatever the workbook says), so that equal content gives equal bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            info = zipfile.ZipInfo(member.filename, _FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            content = source.read(member)
            if member.filename.endswith(".xlsx"):  # a chart's data, written with the time of day
                content = _fixed_zip(content, embedded=True)
            elif embedded and member.filename == "docProps/core.xml":
                content = _CREATED.sub(rb"\g<1>2026-01-01T00:00:00Z<", content)
            elif saved is not None and member.filename == "docProps/core.xml":
                stamp = saved.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
                content = _MODIFIED.sub(rb"\g<1>" + stamp + b"<", content)
            target.writestr(info, content)
    return out.getvalue()
