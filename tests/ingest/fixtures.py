"""Real files of each format, built in the test (no binary fixtures in the repo)."""

from __future__ import annotations

import io

from docx import Document as DocxDocument
from fpdf import FPDF


def make_pdf(sections: list[tuple[str, str]], title: str = "", password: str | None = None) -> bytes:
    pdf = FPDF()
    if title:
        pdf.set_title(title)
    if password:
        pdf.set_encryption(owner_password="owner-" + password, user_password=password)
    pdf.add_page()
    for heading, body in sections:
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, body)
        pdf.ln(4)
    return bytes(pdf.output())


def make_docx(title: str, sections: list[tuple[str, str]], title_style: bool = False) -> bytes:
    document = DocxDocument()
    document.add_heading(title, level=0 if title_style else 1)  # level 0 is Word's "Title" style
    for heading, body in sections:
        document.add_heading(heading, level=2)
        document.add_paragraph(body)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
