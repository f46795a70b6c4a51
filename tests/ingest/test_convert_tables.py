"""Tables go out as Markdown pipe tables under their header, exactly once: a table that marks no
header row (a DOCX table through mammoth, an HTML table of `<td>` only) takes its first row as the
header, and an empty first row is never the header (the first row with text is)."""

from __future__ import annotations

import io
from pathlib import Path

from docx import Document as DocxDocument
from fpdf import FPDF

from shu.ingest.convert.base import convert_file

TEAMS = [
    ("Team", "Lead", "When"),
    ("Compost Crew", "Marta Kowalski", "Saturdays 08:00-09:00"),
    ("Water Team", "Amina Diallo", "Weekly, flexible"),
]
TABLE = (
    "| Team | Lead | When |\n| --- | --- | --- |\n"
    "| Compost Crew | Marta Kowalski | Saturdays 08:00-09:00 |\n"
    "| Water Team | Amina Diallo | Weekly, flexible |"
)


def _docx(rows: list[tuple[str, ...]], bold_header: bool = True) -> bytes:
    """As examples/tools/make_docx.py builds its tables: a "Table Grid" table, the header row in bold."""
    document = DocxDocument()
    document.add_heading("Volunteer teams", level=1)
    document.add_paragraph("Each team has a lead who signs off hours.")
    table = document.add_table(rows=0, cols=len(rows[0]))
    table.style = "Table Grid"
    header_done = False
    for values in rows:
        cells = table.add_row().cells
        for cell, value in zip(cells, values, strict=True):
            run = cell.paragraphs[0].add_run(value)
            run.bold = bold_header and not header_done and any(values)
        header_done = header_done or any(values)
    document.add_paragraph("Hours are logged within 7 days.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _once(markdown: str) -> None:
    assert markdown.count(TABLE) == 1, markdown
    assert "|  |" not in markdown and "**Team**" not in markdown
    assert markdown.count("Compost Crew") == 1 and markdown.count("Team | Lead") == 1


def test_a_docx_table_has_its_first_row_as_its_header() -> None:
    markdown = convert_file(Path("handbook.docx"), _docx(TEAMS)).markdown
    _once(markdown)
    assert "Each team has a lead who signs off hours.\n\n| Team |" in markdown


def test_an_empty_first_row_of_a_docx_table_is_not_its_header() -> None:
    markdown = convert_file(Path("minutes.docx"), _docx([("", "", ""), *TEAMS], bold_header=False)).markdown
    _once(markdown)


def test_an_html_table_of_cells_only_takes_its_first_row_as_header() -> None:
    cells = "".join(
        "<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>" for row in [("", "", ""), *TEAMS]
    )
    html = (
        f"<html><body><h1>Teams</h1><table>{cells}<tr><td> </td><td></td><td></td></tr></table></body></html>"
    )
    _once(convert_file(Path("teams.html"), html.encode()).markdown)


def test_an_html_table_with_a_header_keeps_it() -> None:
    head = "<thead><tr>" + "".join(f"<th>{v}</th>" for v in TEAMS[0]) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>" for row in TEAMS[1:])
    html = f"<html><body><h1>Teams</h1><table>{head}<tbody>{body}</tbody></table></body></html>"
    _once(convert_file(Path("teams.html"), html.encode()).markdown)


def test_an_empty_first_row_of_a_slide_table_is_not_its_header() -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Volunteer teams"
    rows = [("", "", ""), *TEAMS]
    table = slide.shapes.add_table(len(rows), 3, Inches(0.5), Inches(2), Inches(9), Inches(3)).table
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    buffer = io.BytesIO()
    deck.save(buffer)
    _once(convert_file(Path("teams.pptx"), buffer.getvalue()).markdown)


def test_an_empty_first_row_of_a_ruled_pdf_table_is_not_its_header() -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Each team has a lead who signs off hours.", new_x="LMARGIN", new_y="NEXT")
    with pdf.table(first_row_as_headings=False) as table:
        for values in [("", "", ""), *TEAMS]:
            row = table.row()
            for value in values:
                row.cell(value)
    markdown = convert_file(Path("teams.pdf"), bytes(pdf.output())).markdown
    assert "| Team | Lead | When |\n|---|---|---|\n| Compost Crew |" in markdown, markdown
    assert "|  |  |  |" not in markdown
