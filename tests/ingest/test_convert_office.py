"""Slides, spreadsheets, CSV and e-books: the generated fixtures of `shu_eval.samples.office`
convert to exactly the headings, text and metadata they hold; bad files fail in one line."""

from __future__ import annotations

import io
import itertools
import re
import time
import zipfile
from pathlib import Path

import pytest

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert import convert_file, sheets
from shu.kb import KnowledgeBase
from shu.markdown import split_sections
from shu_eval.samples import office
from tests.conftest import PersonaMaker

PLOTS_HEADER_LINE = "| Plot | Holder | Size | Since | Fee paid | Notes |"


def sections(markdown: str, root: str = "ROOT") -> dict[str, str]:
    return {s.path: s.text for s in split_sections(markdown, root=root)}


def rebuilt(data: bytes, change: dict[str, bytes | None]) -> bytes:
    """The same zip with members replaced (bytes), removed (None) or added."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for member in source.infolist():
            if member.filename not in change:
                target.writestr(member, source.read(member))
        for name, content in change.items():
            if content is not None:
                target.writestr(name, content)
    return out.getvalue()


# -- slides -----------------------------------------------------------------------------------


def test_pptx_slides_become_sections_with_bullets_tables_and_notes() -> None:
    converted = convert_file(Path("season-plan.pptx"), office.make_pptx())
    deck = office.DECK_TITLE
    assert converted.title == deck
    assert converted.meta == {"type": "slides", "slides": 6, "author": "Marta Okafor", "date": "2026-02-14"}
    assert converted.markdown.startswith(f"# {deck}\n\n## Slide 1: Harbor Street Community Garden\n\n")
    headings = re.findall(r"^#+ .*$", converted.markdown, flags=re.M)
    assert [h for h in headings if h.startswith("## ")] == [
        "## Slide 1: Harbor Street Community Garden",
        "## Slide 2: Planting Calendar",
        "## Slide 3: Plot Fees",
        "## Slide 4: Tool Shed Rules",
        "## Slide 5: Harvest by Month",
        "## Slide 6",
    ]
    found = sections(converted.markdown)
    assert found[f"{deck} > Slide 2: Planting Calendar"] == (
        "- Sow peas and broad beans in early March\n"
        "  - North beds only: they drain fastest\n"
        "- Plant tomatoes after the last frost, usually mid-May\n"
        "  - Harden seedlings outside for a week first\n"
        "- Garlic goes in during October"
    )
    assert found[f"{deck} > Slide 2: Planting Calendar > Notes"] == office.PLANTING_NOTE
    assert found[f"{deck} > Slide 1: Harbor Street Community Garden"] == "2026 season plan for plot holders"
    assert found[f"{deck} > Slide 3: Plot Fees"] == (
        "| Plot size | Annual fee | Waiting list |\n| --- | --- | --- |\n| Half plot | $25 | 4 |\n"
        "| Full plot | $40 | 11 |\n| Raised bed (accessible) | $15 | 0 |\n\nFees are due by 31 March."
    ), "the table (higher on the slide) comes before the text box below it"
    assert found[f"{deck} > Slide 3: Plot Fees > Notes"] == office.FEE_NOTE
    assert f"{deck} > Slide 4: Tool Shed Rules > Notes" not in found, "no notes, no Notes section"
    assert found[f"{deck} > Slide 5: Harvest by Month"] == (
        "Chart: Harvest 2025 (kg)\n\n| Category | Harvested | Donated |\n| --- | --- | --- |\n"
        "| July | 43.5 | 31 |\n| August | 53.25 | 44.25 |\n| September | 58 | 58 |"
    ), "a chart's data is text"
    assert found[f"{deck} > Slide 6"] == office.CONTACT_TEXT
    assert found[f"{deck} > Slide 6 > Notes"] == "Leave ten minutes for questions."


def test_pptx_title_falls_back_to_the_first_slide_then_the_file_name() -> None:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(office.make_pptx()))
    deck.core_properties.title = ""
    buffer = io.BytesIO()
    deck.save(buffer)
    assert convert_file(Path("x.pptx"), buffer.getvalue()).title == "Harbor Street Community Garden"
    deck.slides[0].shapes.title.text = ""
    buffer = io.BytesIO()
    deck.save(buffer)
    untitled = convert_file(Path("season-plan.pptx"), buffer.getvalue())
    assert untitled.title == "season-plan"
    assert "\n## Slide 1\n" in untitled.markdown


def test_pptx_text_that_looks_like_markup_stays_text_and_groups_are_read() -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Hashtags"
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = "# not a heading"
    group.shapes.add_textbox(Inches(1), Inches(3), Inches(6), Inches(1)).text_frame.text = "```not a fence"
    buffer = io.BytesIO()
    deck.save(buffer)
    converted = convert_file(Path("tags.pptx"), buffer.getvalue())
    assert (
        sections(converted.markdown)["Hashtags > Slide 1: Hashtags"]
        == "\\# not a heading\n\n\\```not a fence"
    )


# -- spreadsheets -----------------------------------------------------------------------------


def test_xlsx_sheets_become_sections_and_long_sheets_repeat_their_header() -> None:
    converted = convert_file(Path("records.xlsx"), office.make_xlsx())
    book = office.WORKBOOK_TITLE
    assert converted.title == book and converted.warnings == []
    assert converted.meta == {
        "type": "spreadsheet",
        "sheets": ["Plots", "Harvest Log"],
        "author": "Marta Okafor",
        "date": "2026-03-01",
    }, "the empty sheet 'Scratch' is skipped"
    found = sections(converted.markdown)
    plots = {path: text for path, text in found.items() if path.startswith(f"{book} > Plots > Rows ")}
    assert len(plots) > 2 and f"{book} > Plots" not in found, "a long sheet is only row-chunks"
    ranges = [tuple(map(int, re.findall(r"\d+", path.rsplit(">", 1)[1]))) for path in plots]
    assert ranges[0][0] == 1 and ranges[-1][1] == office.PLOTS_ROWS
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(ranges)), "contiguous, in order"
    assert all(hi - lo + 1 <= sheets.ROWS_PER_SECTION for lo, hi in ranges)
    for (lo, hi), text in zip(ranges, plots.values(), strict=True):
        lines = text.split("\n")
        assert lines[:2] == [PLOTS_HEADER_LINE, "| --- | --- | --- | --- | --- | --- |"], "header repeated"
        assert len(lines) == 2 + hi - lo + 1
        assert lines[2].startswith(f"| P-{lo:03d} |") and lines[-1].startswith(f"| P-{hi:03d} |")
    second = list(plots.values())[1]
    assert second.startswith(PLOTS_HEADER_LINE) and f"| P-{ranges[1][0]:03d} |" in second
    body = "\n".join(plots.values())
    assert "| P-001 | Bo Lindqvist | Full | 2016-02-02 | TRUE |  |" in body, "dates and booleans as shown"
    assert "| P-007 | Ana Ruiz | Full | 2022-08-08 | TRUE | Shares beds A\\|B with plot P-008 |" in body
    assert (
        "| P-012 | Fatima Noor | Half | 2016-01-13 | TRUE | Wheelchair access<br>via the east gate |" in body
    )
    assert found[f"{book} > Harvest Log"] == (
        "| Date | Crop | Kilograms | Donated to |\n| --- | --- | --- | --- |\n"
        "| 2025-07-04 | Broad beans | 12.5 | Harbor Food Bank |\n"
        "| 2025-07-18 | Courgettes | 31 | Café Rosa |\n"
        "| 2025-08-02 | Tomatoes | 44.25 | Harbor Food Bank |\n"
        "| 2025-08-30 | Runner beans | 9 | St. Brigid's kitchen |\n"
        "| 2025-09-13 | Squash | 58 | Harbor Food Bank |"
    ), "the sheet laid out from B3 is trimmed to its table"


def test_xlsx_beyond_the_cell_budget_is_cut_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 6 * 31)
    converted = convert_file(Path("records.xlsx"), office.make_xlsx())
    assert converted.warnings == [
        "sheet 'Plots' cut after 31 rows (at most 186 cells are read)",
        "2 more sheet(s) not read: 'Harvest Log', 'Scratch'",
    ]
    assert "| P-030 |" in converted.markdown and "| P-031 |" not in converted.markdown
    assert converted.meta["sheets"] == ["Plots"], "no budget left for the second sheet"


def test_xlsx_with_a_false_huge_dimension_reads_only_its_cells() -> None:
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["Item", "Count"])
    book.active.append(["Rakes", 4])
    buffer = io.BytesIO()
    book.save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        part = archive.read("xl/worksheets/sheet1.xml")
    part = re.sub(rb'<dimension ref="[^"]+"', b'<dimension ref="A1:XFD1048576"', part)
    started = time.monotonic()
    converted = convert_file(
        Path("tools.xlsx"), rebuilt(buffer.getvalue(), {"xl/worksheets/sheet1.xml": part})
    )
    assert time.monotonic() - started < 2
    assert converted.markdown == "# tools\n\n## Sheet\n\n| Item | Count |\n| --- | --- |\n| Rakes | 4 |\n"


def test_xlsx_with_only_empty_sheets_is_skipped() -> None:
    from openpyxl import Workbook

    book = Workbook()
    book.create_sheet("Other")
    book.active["C3"] = "   "
    buffer = io.BytesIO()
    book.save(buffer)
    with pytest.raises(SkipDocument, match="no data in any sheet"):
        convert_file(Path("blank.xlsx"), buffer.getvalue())


def test_csv_delimiter_is_sniffed_and_the_file_name_is_the_title() -> None:
    converted = convert_file(Path("harvest-2025.csv"), office.make_csv())
    assert converted.title == "harvest-2025"
    assert converted.meta == {"type": "spreadsheet", "delimiter": "semicolon"}
    assert converted.markdown == (
        "# harvest-2025\n\n| Date | Crop | Kilograms | Donated to |\n| --- | --- | --- | --- |\n"
        "| 2025-07-04 | Broad beans | 12,5 | Harbor Food Bank |\n"
        "| 2025-07-18 | Courgettes | 31 | Café Rosa; back door |\n"
        "| 2025-08-02 | Tomatoes | 44,25 | Harbor Food Bank |\n"
        "| 2025-08-30 | Runner beans | 9 | St. Brigid's kitchen |\n"
    )


@pytest.mark.parametrize(("delimiter", "name"), [(",", "comma"), ("\t", "tab"), ("|", "pipe")])
def test_csv_other_delimiters_quotes_and_legacy_encodings(delimiter: str, name: str) -> None:
    rows = [["Tool", "Shed", "Note"], ["Hoe", "A", 'Sharpen "weekly",\nor | else'], ["Café rake", "B", ""]]
    text = "\r\n".join(
        delimiter.join(
            f'"{c.replace(chr(34), chr(34) * 2)}"' if any(x in c for x in ',"\n|\t') else c for c in row
        )
        for row in rows
    )
    converted = convert_file(Path("tools.csv"), text.encode("cp1252"))
    assert converted.meta["delimiter"] == name
    assert converted.warnings and converted.warnings[0].startswith("decoded as")
    assert converted.markdown.split("\n")[2:6] == [
        "| Tool | Shed | Note |",
        "| --- | --- | --- |",
        '| Hoe | A | Sharpen "weekly",<br>or \\| else |',
        "| Café rake | B |  |",
    ]


def test_a_long_csv_is_split_into_row_chunks_under_the_title() -> None:
    data = ("n\n" + "".join(f"{n}\n" for n in range(1, 121))).encode()
    found = sections(convert_file(Path("numbers.csv"), data).markdown)
    assert list(found) == ["numbers > Rows 1–50", "numbers > Rows 51–100", "numbers > Rows 101–120"]
    assert found["numbers > Rows 51–100"].split("\n")[:3] == ["| n |", "| --- |", "| 51 |"]
    wide = ("n,square\n" + "".join(f"{n},{n * n}\n" for n in range(1, 121))).encode()
    assert list(sections(convert_file(Path("squares.csv"), wide).markdown))[:2] == [
        "squares > Rows 1–29",
        "squares > Rows 30–58",
    ], f"wider rows: fewer per row-chunk, so that one stays within {sheets.SECTION_TOKENS} tokens"


# -- e-books ----------------------------------------------------------------------------------


@pytest.mark.parametrize("toc", ["nav", "ncx"])
def test_epub_chapters_in_spine_order_with_demoted_headings(toc: str) -> None:
    converted = convert_file(Path("patient-gardener.epub"), office.make_epub(toc=toc))
    book = office.BOOK_TITLE
    assert converted.title == book and converted.warnings == []
    assert converted.meta == {
        "type": "ebook",
        "author": "Ines Albrecht",
        "date": "2024-05-03",
        "language": "en",
    }
    assert list(sections(converted.markdown)) == [
        f"{book} > Soil First",
        f"{book} > Soil First > Testing pH",
        f"{book} > Water Wisely",  # its <h1> sat in a <header>, which html_to_markdown drops as chrome
        f"{book} > Water Wisely > Drip lines",
        f"{book} > Water Wisely > Drip lines > Timers",
        f"{book} > Saving Seeds",  # no heading in the chapter: the table of contents names it
    ]
    assert converted.markdown.startswith(f"# {book}\n\n## Soil First\n\nGood soil is alive")
    assert "#### Timers\n\nSet the timer for 5 a.m." in converted.markdown
    assert "Contents" not in converted.markdown, "the navigation document is not a chapter"


def test_epub_chapter_without_heading_or_label_is_numbered_and_a_missing_one_is_reported() -> None:
    data = office.make_epub()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        nav = archive.read("OEBPS/text/nav.xhtml").replace(b">Saving Seeds<", b"><")
    converted = convert_file(
        Path("book.epub"), rebuilt(data, {"OEBPS/text/nav.xhtml": nav, "OEBPS/text/ch1.xhtml": None})
    )
    assert [p for p in sections(converted.markdown) if p.count(">") == 1] == [
        "The Patient Gardener > Water Wisely",
        "The Patient Gardener > Chapter 2",
    ]
    assert converted.warnings == [
        "chapter 'OEBPS/text/ch1.xhtml' is listed in the spine but missing; skipped"
    ]


def test_epub_font_obfuscation_is_not_drm() -> None:
    encryption = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod '
        b'Algorithm="http://www.idpf.org/2008/embedding"/><enc:CipherData><enc:CipherReference '
        b'URI="OEBPS/fonts/serif.otf"/></enc:CipherData></enc:EncryptedData></encryption>'
    )
    data = rebuilt(office.make_epub(), {"META-INF/encryption.xml": encryption})
    assert "## Soil First" in convert_file(Path("book.epub"), data).markdown


# -- bad files --------------------------------------------------------------------------------

FIXTURES = {
    "deck.pptx": office.make_pptx,
    "records.xlsx": office.make_xlsx,
    "harvest.csv": office.make_csv,
    "book.epub": office.make_epub,
}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("deck.pptx", "not a readable PPTX file (BadZipFile: "),
        ("records.xlsx", "not a readable XLSX file (BadZipFile: "),
        ("book.epub", "not a readable EPUB file (BadZipFile: "),
    ],
)
def test_truncated_files_fail_with_one_line(name: str, message: str) -> None:
    data = FIXTURES[name]()
    with pytest.raises(DocumentError) as caught:
        convert_file(Path(name), data[: len(data) // 2])
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_csv_that_is_binary_is_refused() -> None:
    with pytest.raises(DocumentError, match="binary content"):
        convert_file(Path("data.csv"), office.make_xlsx())


@pytest.mark.parametrize("name", list(FIXTURES))
def test_empty_files_are_skipped(name: str) -> None:
    with pytest.raises(SkipDocument, match="empty file"):
        convert_file(Path(name), b"")


def zip_bomb(name: str, member: str, megabytes: int = 300) -> bytes:
    """A small zip whose `member` inflates to `megabytes` MB of zeros (written in a stream)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("mimetype" if name.endswith(".epub") else "[Content_Types].xml", "x")
        with archive.open(member, "w", force_zip64=True) as stream:
            block = b"\0" * 1_000_000
            for _ in range(megabytes):
                stream.write(block)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "member", "message"),
    [
        ("deck.pptx", "ppt/slides/slide1.xml", "PPTX part 'ppt/slides/slide1.xml' is 300 MB of text"),
        (
            "records.xlsx",
            "xl/worksheets/sheet1.xml",
            "XLSX part 'xl/worksheets/sheet1.xml' is 300 MB of text",
        ),
        (
            "book.epub",
            "OEBPS/text/ch1.xhtml",
            "EPUB part 'OEBPS/text/ch1.xhtml' inflates to 300 MB .* zip bomb",
        ),
    ],
)
def test_zip_bombs_are_refused_before_they_inflate(name: str, member: str, message: str) -> None:
    bomb = zip_bomb(name, member)
    assert len(bomb) < 2_000_000
    started = time.monotonic()
    with pytest.raises(DocumentError, match=message):
        convert_file(Path(name), bomb)
    assert time.monotonic() - started < 1


@pytest.mark.parametrize(("name", "kind"), [("records.xlsx", "XLSX"), ("deck.pptx", "PPTX")])
def test_password_protected_office_files_are_reported_as_encrypted(name: str, kind: str) -> None:
    ooxml = pytest.importorskip("msoffcrypto.format.ooxml")  # comes with extract-msg (through oletools)
    locked = io.BytesIO()
    ooxml.OOXMLFile(io.BytesIO(FIXTURES[name]())).encrypt("s3cret", locked)
    assert locked.getvalue().startswith(b"\xd0\xcf\x11\xe0")
    with pytest.raises(DocumentError, match=rf"^{kind} is encrypted \(password-protected\); save a copy"):
        convert_file(Path(name), locked.getvalue())


def test_an_old_binary_workbook_renamed_to_xlsx_says_so() -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504 + "Workbook".encode("utf-16-le") + b"\0" * 512
    with pytest.raises(DocumentError, match=r"it is an \.xls workbook in the older binary format"):
        convert_file(Path("old.xlsx"), ole)


def test_a_drm_encrypted_epub_is_refused() -> None:
    with pytest.raises(
        DocumentError, match=r"^EPUB is encrypted \(DRM\): 1 part\(s\) such as 'OEBPS/text/ch1.xhtml'"
    ):
        convert_file(Path("locked.epub"), office.make_epub(encrypted=True))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"META-INF/container.xml": None}, "has no META-INF/container.xml"),
        ({"META-INF/container.xml": b"<container><rootfiles>"}, "META-INF/container.xml is broken XML"),
        ({"OEBPS/content.opf": None}, "its package 'OEBPS/content.opf' is missing"),
        ({"OEBPS/content.opf": b'<package xmlns="http://www.idpf.org/2007/opf"/>'}, "has no spine"),
    ],
)
def test_an_epub_with_missing_or_broken_parts_says_which(
    change: dict[str, bytes | None], message: str
) -> None:
    with pytest.raises(DocumentError, match=re.escape(message)):
        convert_file(Path("book.epub"), rebuilt(office.make_epub(), change))


# -- end to end -------------------------------------------------------------------------------


def test_office_files_ingest_end_to_end_with_their_section_paths(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "garden",
        raw={
            "season-plan.pptx": office.make_pptx(),
            "records.xlsx": office.make_xlsx(),
            "harvest-2025.csv": office.make_csv(),
            "patient-gardener.epub": office.make_epub(),
            "empty.xlsx": b"",
        },
    )
    report = kb.ingest(folder.parent)
    assert report.counts()["converted"] == 4 and report.counts()["ingested"] == 4, report.outcomes
    assert [(Path(o.path).name, o.message) for o in report.outcomes if o.status == "skipped"] == [
        ("empty.xlsx", "empty file")
    ]

    deck = kb.document("season-plan", persona="garden")
    assert deck.document.title == office.DECK_TITLE
    paths = [s.section_path for s in deck.sections]
    assert f"{office.DECK_TITLE} > Slide 2: Planting Calendar" in paths
    notes = next(s for s in deck.sections if s.section_path.endswith("Slide 2: Planting Calendar > Notes"))
    assert notes.text == office.PLANTING_NOTE

    records = kb.document("records", persona="garden")
    row_paths = [s.section_path for s in records.sections if " > Plots > Rows " in s.section_path]
    assert row_paths[0].startswith(f"{office.WORKBOOK_TITLE} > Plots > Rows 1–")
    plot_chunks = [c for c in kb.store.list_chunks("records") if " > Plots > " in c.section_path]
    assert len(plot_chunks) == len(row_paths) > 2, "one chunk per row-chunk"
    assert all(c.text.startswith(PLOTS_HEADER_LINE) for c in plot_chunks), "every chunk carries its header"
    text = (folder / "RAG" / "records.md").read_text()
    assert "type: spreadsheet" in text and "sheets:\n- Plots\n- Harvest Log\n" in text

    harvest = kb.document("harvest-2025", persona="garden")
    assert [s.section_path for s in harvest.sections] == ["harvest-2025"]

    book = kb.document("patient-gardener", persona="garden")
    assert book.document.title == office.BOOK_TITLE
    assert [s.section_path for s in book.sections if s.section_path.count(" > ") == 1] == [
        f"{office.BOOK_TITLE} > {chapter}" for chapter in office.BOOK_CHAPTERS
    ]
    front = (folder / "RAG" / "patient-gardener.md").read_text()
    for line in ("title: The Patient Gardener", "date: 2024-05-03", "type: ebook", "author: Ines Albrecht"):
        assert f"\n{line}\n" in front
    assert "\nlanguage: en\n" in front
