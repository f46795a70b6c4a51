"""Input that is almost right: a byte order mark, a stray byte, a mailbox with one empty or cut
message, a named pipe, a file name without Latin letters, a PDF whose tables cannot be read.
Each is converted, or gets one line with a named reason; nothing else is lost."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.ingest.budget import Limits
from shu.ingest.convert import convert_documents
from shu.ingest.documents import parse_rag_file
from shu.ingest.personas import load_persona
from shu.ingest.raw import convert_raw_folder
from shu.ingest.report import FileOutcome
from shu.text import name_id
from shu_eval.faults import hostile
from tests.conftest import PersonaMaker
from tests.ingest.fixtures import make_pdf


def convert(tmp_path: Path, folder: Path) -> dict[str, FileOutcome]:
    settings = load_settings(tmp_path / "home").ingest
    outcomes = convert_raw_folder(
        load_persona(folder), int(settings.max_file_mb * 1_000_000), Limits.from_settings(settings)
    )
    return {Path(o.path).name: o for o in outcomes}


@pytest.mark.parametrize("suffix", hostile.TEXT_SUFFIXES)
def test_a_byte_order_mark_is_read_in_every_text_format(suffix: str) -> None:
    parts = convert_documents(Path(f"shed{suffix}"), hostile.with_bom(suffix))
    assert len(parts) == 1
    assert "(ok)" in parts[0].markdown
    assert "\ufeff" not in parts[0].markdown


@pytest.mark.parametrize("suffix", hostile.TEXT_SUFFIXES)
def test_a_byte_order_mark_then_a_byte_that_is_not_utf8_still_converts(suffix: str) -> None:
    parts = convert_documents(Path(f"shed{suffix}"), hostile.with_bom(suffix, bad_byte=True))
    assert "\ufffd" in parts[0].markdown  # the one stray byte, shown as a replacement character
    assert "Shed" in parts[0].markdown or "shed" in parts[0].markdown


def test_a_byte_order_mark_on_text_in_another_encoding_is_detected_not_garbled() -> None:
    data = hostile.BOM + "Le café est ouvert à neuf heures, fermé à cinq. ".encode("cp1252") * 40
    parts = convert_documents(Path("cafe.txt"), data)
    assert "café est ouvert à neuf" in parts[0].markdown
    assert parts[0].warnings == ["decoded as cp1252"]


def test_a_mailbox_with_one_empty_message_converts_the_others_and_names_the_one_skipped(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    box = hostile.mbox_messages(["The shed opens at nine.", "", "The gate code is 4411."])
    folder = make_persona("mail", raw={"box.mbox": box})
    found = convert(tmp_path, folder)["box.mbox"]
    assert found.status == "converted"
    assert found.message.endswith("; 1 skipped (message 2: the message has no text)")
    texts = [p.read_text() for p in (folder / "RAG").glob("*.md")]
    assert len(texts) == 2
    assert any("shed opens at nine" in t for t in texts) and any("gate code is 4411" in t for t in texts)


def test_a_truncated_mailbox_that_stores_nothing_fails(tmp_path: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("mail", raw={"cut.mbox": hostile.truncated_mbox()})
    found = convert(tmp_path, folder)["cut.mbox"]
    assert found.status == "failed"
    assert found.message == (
        "no message of the mailbox could be converted (1 read; message 1: the message has no text; "
        "the mailbox ends mid-line (cut short?))"
    )


def test_a_mailbox_cut_inside_its_last_message_keeps_the_others_and_says_so(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    box = hostile.mbox_messages(["The shed opens at nine.", "The gate code is 4411."])
    folder = make_persona("mail", raw={"cut.mbox": box.rstrip()[:-5]})
    found = convert(tmp_path, folder)["cut.mbox"]
    assert found.status == "converted"
    assert found.warnings == ["message 2 may be incomplete: the mailbox ends mid-line (cut short?)"]
    assert len(list((folder / "RAG").glob("*.md"))) == 2


def test_shu_ingest_exits_non_zero_when_a_file_stored_nothing(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    from typer.testing import CliRunner

    from shu.serve.cli import app

    folder = make_persona("mail", raw={"cut.mbox": hostile.truncated_mbox()})
    done = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "ingest", str(folder)])
    assert done.exit_code == 1, done.output
    assert "failed" in done.output and "cut.mbox" in done.output


def test_a_named_pipe_gets_a_skipped_line_and_is_never_opened(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("pipes", raw={"shed.md": "# Shed\n\nThe shed opens at nine.\n"})
    os.mkfifo(folder / "RAW-DOCS" / "pipe.md")  # opening it would block until a writer comes
    found = convert(tmp_path, folder)
    assert found["pipe.md"].status == "skipped"
    assert found["pipe.md"].message == "not a regular file (a named pipe)"
    assert found["shed.md"].status == "converted"


def test_a_file_name_without_latin_letters_gets_a_stable_id(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("names", raw={"日本語.md": "# 日本語\n\n庭の小屋は九時に開きます。\n"})
    found = convert(tmp_path, folder)["日本語.md"]
    assert found.status == "converted", found
    assert re.fullmatch(r"doc-[0-9a-f]{12}", found.doc_id or "")
    assert found.doc_id == name_id("日本語") == name_id("日本語")
    assert (folder / "RAG" / f"{found.doc_id}.md").is_file()
    assert name_id("2026 Q1 Report (final)") == "2026-q1-report-final"  # Latin names as before
    parsed = parse_rag_file(
        folder / "RAG" / "Ελληνικά.md", "# Κήπος\n\nΤο υπόστεγο ανοίγει.\n".encode(), "names"
    )
    assert parsed.doc.id == name_id("Ελληνικά") and parsed.doc.id.startswith("doc-")


def test_a_pdf_whose_tables_cannot_be_read_is_one_warning_line_and_no_trace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pdf = make_pdf([("Intro", "The compost heaps are turned every week.")], title="Heaps")
    broken = re.sub(rb"/MediaBox\s*\[[^\]]*\]", b"/MediaBox [0 0 (a) 5]", pdf)
    with caplog.at_level(logging.DEBUG, logger="shu"):
        parts = convert_documents(Path("heaps.pdf"), broken)
    assert "compost heaps are turned" in parts[0].markdown
    assert len(parts[0].warnings) == 1
    assert parts[0].warnings[0].startswith("its tables could not be read (MalformedPDFException: ")
    assert parts[0].warnings[0].endswith("; the text is kept without them")
    traced = [r for r in caplog.records if r.exc_info]
    assert traced and all(r.levelno == logging.DEBUG for r in traced), "the trace is for --verbose only"


def test_almost_right_files_never_get_an_unnamed_reason(tmp_path: Path, make_persona: PersonaMaker) -> None:
    raw: dict[str, str | bytes] = {
        f"bom-{s[1:]}{s}": hostile.with_bom(s, bad_byte=True) for s in hostile.TEXT_SUFFIXES
    }
    folder = make_persona("bom", raw=raw)
    for name, outcome in convert(tmp_path, folder).items():
        assert outcome.status == "converted", (name, outcome)
