"""Office files are dated by their last save, never by the template they were made from
(`shu.ingest.convert.office`): a deck made from a 2013 template and saved in 2026 is cited with
2026; one whose only dates are a library template's has none."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import docx
import openpyxl
from pptx import Presentation

from shu.answer.render import render_answer
from shu.ingest.convert import convert_file
from shu.ingest.convert.office import core_dates, office_date
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker
from tests.ingest.test_convert_office import rebuilt

TEMPLATE_CREATED = datetime(2013, 1, 27, 9, 14, 16)
"""What python-pptx's blank template says: the deck in the issue was cited with this day."""
SAVED = datetime(2026, 5, 4, 16, 30)


def falcon_deck(created: datetime | None = None, modified: datetime | None = None, cover: str = "") -> bytes:
    deck = Presentation()  # python-pptx's template: created 2013-01-27 09:14, modified 09:15
    if created is not None:
        deck.core_properties.created = created
    if modified is not None:
        deck.core_properties.modified = modified
    if cover:
        first = deck.slides.add_slide(deck.slide_layouts[0])
        first.shapes.title.text = "Falcon Roadmap 2026"
        first.placeholders[1].text = cover
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Falcon Roadmap 2026"
    slide.placeholders[1].text = "Falcon ships offline sync in the third quarter."
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def test_the_last_save_is_preferred_and_a_template_date_is_no_date() -> None:
    assert office_date(TEMPLATE_CREATED, SAVED) == "2026-05-04"
    assert office_date(SAVED, None) == "2026-05-04", "created, when the file has no modified"
    assert office_date(TEMPLATE_CREATED, datetime(2013, 1, 27, 9, 15, 58)) is None
    assert office_date(datetime(2013, 12, 23, 23, 15), datetime(2013, 12, 23, 23, 15)) is None
    late_evening = datetime(2013, 1, 27, 10, 14, 16, tzinfo=timezone(timedelta(hours=1)))
    assert office_date(late_evening, None) is None, "the template's instant, in any zone"
    assert office_date(None, "2026-05-04") is None


def test_a_deck_saved_from_an_old_template_is_dated_by_its_save() -> None:
    converted = convert_file(Path("falcon-roadmap.pptx"), falcon_deck(TEMPLATE_CREATED, SAVED))
    assert converted.file_date == "2026-05-04"
    assert converted.meta["date"] == "2026-05-04"


def test_a_deck_with_only_the_templates_dates_has_none_and_its_cover_date_wins() -> None:
    assert "date" not in convert_file(Path("falcon-roadmap.pptx"), falcon_deck()).meta
    covered = falcon_deck(TEMPLATE_CREATED, SAVED, cover="Planning day, 28 March 2026")
    assert convert_file(Path("falcon-roadmap.pptx"), covered).meta["date"] == "2026-03-28"
    named = convert_file(Path("2026-04-01-falcon-roadmap.pptx"), falcon_deck(TEMPLATE_CREATED, SAVED))
    assert named.meta["date"] == "2026-04-01", "a date in the file's name before the file's own"


def test_a_docx_is_dated_by_its_last_save_unless_it_is_python_docxs_template() -> None:
    document = docx.Document()  # python-docx's template: 2013-12-23 23:15 in both
    document.add_heading("Falcon minutes", level=1)
    document.add_paragraph("Offline sync is on track for the third quarter.")
    buffer = io.BytesIO()
    document.save(buffer)
    assert "date" not in convert_file(Path("minutes.docx"), buffer.getvalue()).meta
    document.core_properties.created = datetime(2019, 2, 1)
    document.core_properties.modified = SAVED
    buffer = io.BytesIO()
    document.save(buffer)
    assert core_dates(buffer.getvalue()) == (
        datetime(2019, 2, 1, tzinfo=UTC),
        SAVED.replace(tzinfo=UTC),
    )
    assert convert_file(Path("minutes.docx"), buffer.getvalue()).meta["date"] == "2026-05-04"


def test_a_package_without_readable_core_properties_has_no_file_date() -> None:
    document = docx.Document()
    document.add_paragraph("Offline sync is on track.")
    buffer = io.BytesIO()
    document.save(buffer)
    data = buffer.getvalue()
    assert core_dates(rebuilt(data, {"docProps/core.xml": None})) == (None, None)
    assert core_dates(rebuilt(data, {"docProps/core.xml": b"<broken"})) == (None, None)
    odd = b'<cp:coreProperties xmlns:cp="x" xmlns:dcterms="http://purl.org/dc/terms/">'
    odd += b"<dcterms:created>yesterday</dcterms:created></cp:coreProperties>"
    assert core_dates(rebuilt(data, {"docProps/core.xml": odd})) == (None, None)
    assert "date" not in convert_file(Path("notes.docx"), rebuilt(data, {"docProps/core.xml": odd})).meta


def test_a_workbook_is_dated_by_its_last_save() -> None:
    book = openpyxl.Workbook()
    book.active.append(["Milestone", "Quarter"])
    book.active.append(["Offline sync", "Q3"])
    buffer = io.BytesIO()
    book.save(buffer)  # openpyxl stamps the time of saving: the core properties are written here
    core = (
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"'
        ' xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2013-01-27T09:14:16Z</dcterms:created>'
        '<dcterms:modified xsi:type="dcterms:W3CDTF">2026-05-04T16:30:00Z</dcterms:modified>'
        "</cp:coreProperties>"
    )
    data = rebuilt(buffer.getvalue(), {"docProps/core.xml": core.encode()})
    assert convert_file(Path("milestones.xlsx"), data).meta["date"] == "2026-05-04"


def test_an_ingested_deck_from_an_old_template_is_cited_with_its_save_date(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("falcon", raw={"falcon-roadmap.pptx": falcon_deck(TEMPLATE_CREATED, SAVED)})
    report = kb.ingest(folder.parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert "\ndate: 2026-05-04\n" in (folder / "RAG" / "falcon-roadmap.md").read_text()
    answer = kb.ask("When does Falcon ship offline sync?", persona="falcon")
    shown = render_answer(answer)
    assert "[^1]: Falcon Roadmap 2026 (2026-05-04), §" in shown, shown
    assert "2013" not in shown
