"""A PDF's page furniture (running headers and footers, "Page N of M") is left out, and a
sentence a page break cuts is one sentence again; lines that repeat for another reason, and
every line of a one- or two-page document, are kept."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from fpdf import FPDF

from shu.ingest.convert.base import convert_file
from shu.ingest.convert.furniture import furniture

RUNNING = "City Garden Co-op - Bylaws"
SENTENCE = (
    "The Co-op may be dissolved by a three-quarters majority at a general meeting called for that "
    "purpose with at least thirty days' notice, and whatever remains after its debts are paid goes "
    "to another community garden chosen by that meeting"
)


class _Paged(FPDF):
    """As examples/tools/make_pdfs.py builds its PDFs: a running header from page 2 on and a
    "Page N of M" footer on every page."""

    def __init__(self, header: str | None, footer: bool) -> None:
        super().__init__(format="A4")
        self.running = header
        self.numbered = footer
        self.set_auto_page_break(auto=True, margin=20)

    def header(self) -> None:
        if self.running and self.page_no() > 1:
            self.set_font("Helvetica", "I", 8)
            self.cell(0, 6, self.running, align="R")
            self.ln(10)

    def footer(self) -> None:
        if self.numbered:
            self.set_y(-15)
            self.set_font("Helvetica", "", 8)
            self.cell(0, 10, f"Page {self.page_no()} of {{nb}}", align="C")


def _pdf(paragraphs: list[str], header: str | None = RUNNING, footer: bool = True) -> bytes:
    pdf = _Paged(header, footer)
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 10, "Bylaws of City Garden Co-op", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10.5)
    for paragraph in paragraphs:
        pdf.multi_cell(0, 5.5, paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    return bytes(pdf.output())


def _filler(count: int, start: int = 1) -> list[str]:
    """Rules that differ in more than their number (digits alike are the same line to furniture)."""
    return [
        f"Rule {n}. Members keep the {_letters(n)} plots tidy, share the tools and water by hand."
        for n in range(start, start + count)
    ]


def _letters(number: int) -> str:
    return "".join("abcdefghij"[int(digit)] for digit in str(number))


def _page_texts(data: bytes) -> list[str]:
    from pypdf import PdfReader

    return [" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(data)).pages]


def test_running_headers_and_page_numbers_are_left_out_and_a_cut_sentence_is_joined() -> None:
    long_sentence = f"{SENTENCE}, as {SENTENCE.lower()}."
    data = _pdf([*_filler(33), long_sentence, *_filler(60, start=34)])
    pages = _page_texts(data)
    assert len(pages) == 3 and RUNNING in pages[1] and "Page 2 of 3" in pages[1]
    assert "three-quarters" in pages[0] and "garden chosen by that meeting." in pages[1]  # cut by the page
    markdown = convert_file(Path("bylaws.pdf"), data).markdown
    for furniture_line in ("Page 1 of 3", "Page 2 of 3", "Page 3 of 3", RUNNING):
        assert furniture_line not in markdown
    paragraph = next(p for p in markdown.split("\n\n") if "three-quarters" in p)
    assert long_sentence in " ".join(paragraph.split())
    assert "Rule 93. Members keep the jd plots tidy" in markdown


def test_a_paragraph_ending_at_the_foot_of_a_page_stays_apart_from_the_next() -> None:
    data = _pdf(_filler(54), header=None)
    pages = _page_texts(data)
    assert pages[0].endswith(
        "Rule 34. Members keep the de plots tidy, share the tools and water by hand. Page 1 of 2"
    )
    markdown = convert_file(Path("bylaws.pdf"), data).markdown
    assert (
        "Rule 34. Members keep the de plots tidy, share the tools and water by hand.\n\nRule 35." in markdown
    )


def test_a_two_page_document_keeps_its_repeated_lines() -> None:
    """Two pages are too few to tell furniture from content: only "Page N of M" goes."""
    data = _pdf([*_filler(60)], header="Plot 12 rules")
    assert len(_page_texts(data)) == 2
    markdown = convert_file(Path("rules.pdf"), data).markdown
    assert "Plot 12 rules" in markdown
    assert "Page 1 of 2" not in markdown and "Page 2 of 2" not in markdown


def test_lines_repeated_inside_pages_are_kept() -> None:
    """A table's header that opens each page it runs on is kept once, where the table starts;
    a line repeated in the middle of every page is never furniture."""
    pages = [
        ["Report", "Plots are let in March.", "Name Amount", "Shared line", "Alder 12", "Birch 14", "Page 1"],
        ["Name Amount", "Cedar 9", "Dogwood 4", "Shared line", "Elm 7", "Fir 2", "Page 2"],
        ["Name Amount", "Gorse 1", "Hazel 5", "Shared line", "Ivy 6", "Juniper 8", "Page 3"],
    ]
    assert furniture(pages) == [{6}, {0, 6}, {0, 6}]


def test_a_line_at_the_edge_of_fewer_than_most_pages_is_kept() -> None:
    """The line "Alpha" opens two pages of five: content; the page number closes each of them: furniture."""
    pages = [["Alpha", f"body {c} a", f"body {c} b", f"body {c} c", str(n)] for n, c in ((1, "p"), (2, "q"))]
    pages += [
        [f"Other {c}", f"body {c} a", f"body {c} b", f"body {c} c", str(n)]
        for n, c in ((3, "r"), (4, "s"), (5, "t"))
    ]
    assert furniture(pages) == [{4}] * 5


def _scanned_page(lines: list[str]) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("L", (1400, 900), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=36)
    for top, line in zip((40, 260, 320, 800), lines, strict=True):
        draw.text((60, top), line, font=font, fill=0)
    out = io.BytesIO()
    page.save(out, "PNG")
    return out.getvalue()


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs Tesseract")
def test_the_furniture_of_scanned_pages_is_left_out_too() -> None:
    pdf = FPDF()
    bodies = ["Plots are let in March.", "Fees are due in April.", "Water by hand in May."]
    for number, body in enumerate(bodies, start=1):
        pdf.add_page()
        page = _scanned_page(["Garden Bylaws", body, "Members vote in June.", f"Page {number} of 3"])
        pdf.image(io.BytesIO(page), x=10, y=10, w=190)
    markdown = convert_file(Path("scan.pdf"), bytes(pdf.output())).markdown
    for body in bodies:
        assert body in markdown
    assert "Page 2 of 3" not in markdown and markdown.count("Garden Bylaws") == 1
