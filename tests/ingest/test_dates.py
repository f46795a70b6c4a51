"""The date a converted document is cited with (`shu.ingest.dates`): what the content states
first, then the file's name, then what the file says about itself; never a guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.ingest.convert import convert_file
from shu.ingest.convert.base import Converted
from shu.ingest.dates import date_in_text, settle_date, stated_date


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("# Falcon sync note\n\nDate: 2026-05-04\n\nOffline sync replays edits.", "2026-05-04"),
        ("# Minutes\n\n- **Date:** Saturday, 18 April 2026, 10:00 to 11:50\n", "2026-04-18"),
        ("MINUTES\n\nPlace:     Tool shed\nDate:      Saturday, 24 January 2026\n", "2026-01-24"),
        ("# The Compost Heap\n\nPublished 28 April 2026 - 214 Alder Street\n", "2026-04-28"),
        ("# Postmortem\n\n| Field | Value |\n|---|---|\n| Date | Tuesday, 17 March 2026 |\n", "2026-03-17"),
        ("# Guide\n\n*Last updated: March 4th, 2026*\n", "2026-03-04"),
        ("# Guide\n\n**Updated**: 2026/03/04\n", "2026-03-04"),
        ("# Guide\n\nPublished: 2025-01-10\nUpdated: 2026-03-04\n", "2026-03-04"),
    ],
)
def test_a_labelled_line_near_the_top_states_the_date(body: str, expected: str) -> None:
    assert stated_date(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "# Plan\n\nDate: TBD, not before 4 May 2026\n",  # the date must open the value
        "# Plan\n\nDate: 2026-02-30\n",  # no such day
        "# Plan\n\nDate: 03/04/2026\n",  # 3 April or 4 March: not a date here
        "# Plan\n\nDate: May 2026\n",  # no day
        "# Plan\n\nUpdated by the committee on 10 March 2026.\n",  # prose, not a date line
        "# Plan\n\n| Date | Event |\n|---|---|\n| 2026-05-04 | Launch |\n",  # a table of dates
        "# Plan\n\n- Opening day: 4 April\n",
        "# Plan\n\n" + "Text.\n" * 15 + "Date: 2026-05-04\n",  # not near the top
    ],
)
def test_lines_that_do_not_state_the_documents_date_are_not_read_as_one(body: str) -> None:
    assert stated_date(body) is None


def test_a_full_date_in_a_title_counts_and_a_year_alone_does_not() -> None:
    assert date_in_text("Minutes of the General Meeting, 18 April 2026") == "2026-04-18"
    assert date_in_text("MINUTES OF THE AGM, 24 JANUARY 2026") == "2026-01-24"
    assert date_in_text("Board call 2026-05-04 (notes)") == "2026-05-04"
    assert date_in_text("Falcon Roadmap 2026") is None
    assert date_in_text("Release 2024.1.2") is None, "a version number is no date"


def _settled(
    markdown: str, name: str, meta: dict[str, object] | None = None, file_date: str | None = None
) -> object:
    converted = Converted(markdown=markdown, meta=dict(meta or {}), file_date=file_date)
    settle_date(converted, Path(name))
    return converted.meta.get("date")


def test_the_content_comes_first_then_the_file_name_then_the_files_own_date() -> None:
    body = "# Minutes, 18 April 2026\n\nDate: 2026-04-19\n\nText."
    assert _settled(body, "2026-04-20-minutes.docx", file_date="2026-07-01") == "2026-04-19"
    titled = "# Minutes, 18 April 2026\n\nText."
    assert _settled(titled, "2026-04-20-minutes.docx", file_date="2026-07-01") == "2026-04-18"
    plain = "# Minutes\n\nText."
    assert _settled(plain, "2026-04-20-minutes.docx", file_date="2026-07-01") == "2026-04-20"
    assert _settled(plain, "minutes.docx", file_date="2026-07-01") == "2026-07-01"
    assert _settled(plain, "minutes.docx") is None, "no date rather than a guess"


def test_a_date_the_format_gave_is_kept() -> None:
    given = {"date": "2026-03-05"}
    body = "# Re: ticket\n\nDate: 2026-01-01\n"
    assert _settled(body, "2026-02-02-thread.eml", meta=given, file_date="2025-01-01") == "2026-03-05"


def test_a_markdown_notes_date_line_dates_it_and_frontmatter_still_wins() -> None:
    note = b"# Falcon sync note\n\nDate: 2026-05-04\n\nOffline sync stores edits locally.\n"
    assert convert_file(Path("falcon-sync-note.md"), note).meta == {"date": "2026-05-04"}
    curated = b"---\ndate: 2026-06-01\n---\n# Falcon sync note\n\nDate: 2026-05-04\n\nText.\n"
    assert convert_file(Path("falcon-sync-note.md"), curated).meta["date"] == "2026-06-01"
    text = b"Falcon sync note\n================\n\nUpdated: 4 May 2026\n\nOffline sync stores edits.\n"
    assert convert_file(Path("falcon-sync-note.txt"), text).meta == {"date": "2026-05-04"}
