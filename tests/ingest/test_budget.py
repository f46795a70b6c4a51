"""Small files that would cost hours: each raw file converts within a budget of time and output
(settings `ingest.max_*`), and one over it fails with a one-line reason naming the setting, while
the files beside it convert."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from shu.config.settings import load_settings
from shu.ingest.budget import Limits
from shu.ingest.convert import ocr
from shu.ingest.personas import load_persona
from shu.ingest.raw import convert_raw_folder
from shu.ingest.report import FileOutcome
from shu.kb import open_kb
from shu_eval.faults import hostile
from tests.conftest import CountingEmbedder, PersonaMaker

T = TypeVar("T")

GOOD = "# Shed\n\nThe tool shed opens at nine on weekdays and at ten on Sundays.\n"


def convert(tmp_path: Path, folder: Path, *overrides: str) -> dict[str, FileOutcome]:
    """Convert the persona's RAW-DOCS as `shu --set … ingest` would: outcome by file name."""
    settings = load_settings(tmp_path / "home", list(overrides)).ingest
    outcomes = convert_raw_folder(
        load_persona(folder), int(settings.max_file_mb * 1_000_000), Limits.from_settings(settings)
    )
    return {Path(o.path).name: o for o in outcomes}


def over(outcome: FileOutcome, setting: str) -> None:
    assert outcome.status == "failed", outcome
    assert outcome.message.startswith("over the budget: "), outcome.message
    assert outcome.message.endswith(f"raise ingest.{setting} to allow"), outcome.message
    assert "\n" not in outcome.message


def test_an_epub_spine_listing_one_chapter_160_times_is_over_the_budget(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "books",
        raw={
            "repeat.epub": hostile.epub_spine_repeat(160),
            "short.epub": hostile.epub_spine_repeat(3),  # 300 KB read: within the first MB
            "shed.md": GOOD,
        },
    )
    found = convert(tmp_path, folder)
    over(found["repeat.epub"], "max_expansion")
    assert "its spine's 160 chapters inflate to 16.0 MB from a 1.2 KB file" in found["repeat.epub"].message
    assert found["short.epub"].status == "converted"
    assert (folder / "RAG" / "short.md").read_text().count("## Chapter") == 3
    assert found["shed.md"].status == "converted"
    assert not (folder / "RAG" / "repeat.md").exists()


def test_an_epub_of_chapters_just_under_a_megabyte_is_over_the_budget_alone_or_attached(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    book = hostile.epub_many_chapters(chapters=8)
    assert len(book) < 100_000  # 8 MB of chapters, none of which trips the per-part ratio check
    folder = make_persona(
        "books", raw={"big.epub": book, "mail.eml": hostile.eml_with_attachment("b.epub", book)}
    )
    found = convert(tmp_path, folder)
    over(found["big.epub"], "max_expansion")
    over(found["mail.eml"], "max_expansion")


def test_a_huge_html_table_is_refused_before_it_is_parsed_and_a_small_one_converts(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "tables", raw={"huge.html": hostile.html_table(rows=300), "small.html": hostile.html_table(rows=20)}
    )
    found = convert(tmp_path, folder, "ingest.max_table_cells=1000")
    over(found["huge.html"], "max_table_cells")
    assert "over 1,000 table cells (3,000 so far)" in found["huge.html"].message
    assert found["small.html"].status == "converted"
    assert (folder / "RAG" / "small.md").read_text().count("| c0 |") == 20


def test_the_default_table_budget_refuses_a_three_megabyte_table(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("tables", raw={"huge.html": hostile.html_table(rows=30_000)})
    over(convert(tmp_path, folder)["huge.html"], "max_table_cells")


@pytest.mark.parametrize(
    ("name", "data", "what", "documents"),
    [
        ("box.mbox", hostile.mbox_many(60), "its 60 messages make over 50 documents", 60),
        (
            "many.eml",
            hostile.eml_many_attachments(60),
            "the attachments of 'Many files' make over 50 documents",
            61,
        ),
    ],
)
def test_a_file_making_more_documents_than_allowed_fails_and_the_setting_raises_it(
    tmp_path: Path, make_persona: PersonaMaker, name: str, data: bytes, what: str, documents: int
) -> None:
    folder = make_persona("mail", raw={name: data})
    found = convert(tmp_path, folder, "ingest.max_documents=50")[name]
    over(found, "max_documents")
    assert what in found.message
    assert list((folder / "RAG").glob("*.md")) == []
    again = convert(tmp_path, folder, "ingest.max_documents=100")[name]
    assert again.status == "converted" and len(list((folder / "RAG").glob("*.md"))) == documents


def test_the_default_document_budget_refuses_a_mailbox_of_20000_messages(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("mail", raw={"box.mbox": hostile.mbox_many(20_000)})
    found = convert(tmp_path, folder)["box.mbox"]
    over(found, "max_documents")
    assert "over 2,000 documents" in found.message


def test_a_deck_listing_one_slide_thousands_of_times_is_over_the_budget(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "decks",
        raw={"blowup.pptx": hostile.pptx_slide_repeat(10_000), "small.pptx": hostile.pptx_slide_repeat(2)},
    )
    found = convert(tmp_path, folder)
    over(found["blowup.pptx"], "max_expansion")
    assert found["small.pptx"].status == "converted"
    capped = convert(
        tmp_path,
        make_persona("capped", raw={"d.pptx": hostile.pptx_slide_repeat(40)}),
        "ingest.max_markdown_mb=0.05",
    )
    over(capped["d.pptx"], "max_markdown_mb")


def test_a_file_taking_longer_than_its_time_fails_and_the_next_converts(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("mail", raw={"box.mbox": hostile.mbox_many(3000), "shed.md": GOOD})
    found = convert(tmp_path, folder, "ingest.max_file_seconds=0.2", "ingest.max_documents=5000")
    over(found["box.mbox"], "max_file_seconds")
    assert found["shed.md"].status == "converted"


def peak_mb(run: Callable[[], T]) -> tuple[T, float]:
    """What `run` returns, and the most memory Python held while it ran (MB)."""
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("bomb.xlsx", hostile.xlsx_shared_string_bomb(cells=1000)),  # 1,000 cells → one 4.8 KB string
        ("wide.csv", hostile.csv_wide_header(rows=1000, header_bytes=5000)),  # each row block repeats it
        ("named.ics", hostile.ics_long_calendar_name(events=500)),  # each event repeats the name
        ("slack.json", hostile.slack_mentions(messages=40)),  # each 6-byte mention renders 200 bytes
    ],
)
def test_a_file_rendering_to_more_markdown_than_allowed_is_stopped_as_it_renders(
    tmp_path: Path, make_persona: PersonaMaker, name: str, data: bytes
) -> None:
    folder = make_persona("renders", raw={name: data, "shed.md": GOOD})
    found, peak = peak_mb(lambda: convert(tmp_path, folder, "ingest.max_markdown_mb=1"))
    over(found[name], "max_markdown_mb")
    assert found["shed.md"].status == "converted"
    assert peak < 8, f"{peak:.0f} MB held for a 1 MB budget: its output was made whole first"


needs_tesseract = pytest.mark.skipif(
    not ocr.available(), reason="needs Tesseract (apt install tesseract-ocr)"
)


@needs_tesseract
@pytest.mark.parametrize(
    ("name", "data", "setting"),
    [
        ("big.pdf", hostile.pdf_big_pages(1, side_pt=1000), "max_ocr_page_pixels"),  # 7.7 Mpx at 200 dpi
        ("g4.tiff", hostile.tiff_g4(side=3000), "max_ocr_page_pixels"),  # 9 Mpx in 1 KB
        ("pages.pdf", hostile.pdf_big_pages(3, side_pt=500), "max_ocr_file_pixels"),  # 3 × 1.9 Mpx
    ],
)
def test_ocr_over_its_pixel_budget_fails_before_a_page_is_read(
    tmp_path: Path, make_persona: PersonaMaker, name: str, data: bytes, setting: str
) -> None:
    folder = make_persona("scans", raw={name: data, "shed.md": GOOD})
    found = convert(
        tmp_path, folder, "ingest.max_ocr_page_pixels=5000000", "ingest.max_ocr_file_pixels=5000000"
    )
    over(found[name], setting)
    assert found["shed.md"].status == "converted"


@needs_tesseract
def test_ocr_stops_at_the_files_time_inside_a_tesseract_run(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("scans", raw={"slow.pdf": hostile.pdf_big_pages(1, side_pt=2200), "shed.md": GOOD})
    started = time.monotonic()
    found = convert(tmp_path, folder, "ingest.max_file_seconds=1")
    over(found["slow.pdf"], "max_file_seconds")
    assert time.monotonic() - started < 3  # one page (37 Mpx) takes Tesseract ~3 s
    assert found["shed.md"].status == "converted"


def test_a_document_making_more_chunks_than_allowed_fails_before_any_is_embedded(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = make_persona("notes", rag={"headings.md": hostile.many_headings(300).decode(), "shed.md": GOOD})
    with open_kb(tmp_path / "home", ["ingest.max_chunks_per_file=100"], embedder) as kb:
        report = kb.ingest(folder.parent)
        found = {Path(o.path).name: o for o in report.outcomes}
        over(found["headings.md"], "max_chunks_per_file")
        assert "makes over 100 chunks" in found["headings.md"].message
        assert found["shed.md"].status == "ingested"
        assert {d.id for d in kb.documents()} == {"shed"}
    assert embedder.embedded < 100  # the shed's chunk and what enrichment adds; none of the 300
