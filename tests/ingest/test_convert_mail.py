"""E-mail (.eml, .mbox, .msg) and scans (images, PDFs with no text layer, through Tesseract):
text, headings and metadata recovered exactly; threads and attachments become relationships
after ingestion; bad files get a one-line reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert.base import convert_documents
from shu.ingest.convert.mail import mail_id
from shu.kb import KnowledgeBase
from shu_eval.samples import mail as samples
from tests.conftest import PersonaMaker

ORIGINAL, REPLY, FOLLOW_UP = (
    mail_id(m) for m in (samples.ORIGINAL_ID, samples.REPLY_ID, samples.FOLLOW_UP_ID)
)


def test_a_mailbox_is_one_document_per_message_with_its_own_words_only() -> None:
    original, reply, follow_up = convert_documents(Path("board.mbox"), samples.make_mbox())
    assert [d.doc_id for d in (original, reply, follow_up)] == [ORIGINAL, REPLY, FOLLOW_UP]
    assert original.title == "Q3 repair budget" and reply.title == "Re: Q3 repair budget"
    assert original.markdown.startswith(
        "# Q3 repair budget\n\n**From:** Jonas Berg <jonas@harbor.example>  \n"
        "**To:** Ayla Demir <ayla@harbor.example>  \n**Cc:** lee@harbor.example  \n"
        "**Date:** 2026-06-01 09:30 +0000  \n\nTeam,"
    )
    assert "Harbor Rowing Club" not in original.markdown, "the signature is left out"
    every = "".join(d.markdown for d in (original, reply, follow_up))
    assert every.count("48,500 EUR") == 1 and every.count("5,000 EUR from winches") == 1, "quotes left out"
    assert "*(12 quoted lines of earlier messages left out.)*" in reply.markdown
    assert original.meta["participants"] == [
        {"name": "Jonas Berg", "email": "jonas@harbor.example", "role": "author"},
        {"name": "Ayla Demir", "email": "ayla@harbor.example", "role": "recipient"},
        {"name": "", "email": "lee@harbor.example", "role": "recipient"},
    ]
    assert (original.meta["type"], original.meta["date"], original.meta["in_reply_to"]) == (
        "email",
        "2026-06-01",
        None,
    )
    assert reply.meta["in_reply_to"] == ORIGINAL and reply.meta[
        "in_reply_to_message_id"
    ] == "re-budget-2026@harbor.example".replace("re-", "", 1)
    assert follow_up.meta["in_reply_to"] == REPLY, "no In-Reply-To: threaded by its subject"


def test_attachments_become_documents_of_their_own_or_are_listed_by_name() -> None:
    message, minutes = convert_documents(Path("june.eml"), samples.make_eml_with_attachments())
    assert minutes.doc_id == f"{message.doc_id}-june-minutes" and minutes.title == "June meeting minutes"
    assert (
        minutes.meta["relations"] == {"attached_to": [message.doc_id]}
        and minutes.meta["date"] == "2026-06-20"
    )
    assert "## Decisions\n\nThe club buys two new winches for the Tern." in minutes.markdown
    assert message.meta["attachments"] == [minutes.doc_id]
    assert "- photos.zip (not converted: unsupported file type .zip)" in message.markdown
    assert f"- june-minutes.md (attached document: {minutes.doc_id})" in message.markdown


def test_an_html_message_keeps_its_structure_under_the_subject() -> None:
    (message,) = convert_documents(Path("regatta.eml"), samples.make_html_eml())
    assert "## Regatta\n\nThe Tern won the **coastal race**." in message.markdown
    assert message.markdown.count("\n# ") == 0 and message.markdown.startswith("# Regatta results")


def test_threads_and_attachments_are_relationships_after_ingestion(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    raw = {"board.mbox": samples.make_mbox(), "june.eml": samples.make_eml_with_attachments()}
    report = kb.ingest(make_persona("club", raw=raw).parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert len(kb.documents("club")) == 5
    replies = kb.document(REPLY, persona="club").relationships
    assert [(r.target, r.type) for r in replies] == [(ORIGINAL, "replies_to")]
    attached = [d.id for d in kb.documents("club") if d.id.endswith("-june-minutes")]
    links = kb.document(attached[0], persona="club").relationships
    assert [r.type for r in links] == ["attached_to"]
    hits = kb.search("who moved money from the winches to the survey", persona="club", limit=3)
    assert hits[0].chunk.doc_id == REPLY


@pytest.mark.parametrize(
    ("name", "data", "kind", "message"),
    [
        ("empty.eml", b"", SkipDocument, "empty file"),
        ("notes.eml", b"just some words\nwith no headers\n", DocumentError, "not an e-mail message"),
        ("empty.mbox", b"nothing that starts a message\n", SkipDocument, "no messages"),
        ("fake.msg", b"plain text pretending", DocumentError, "not an Outlook .msg file"),
        (
            "broken.msg",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
            DocumentError,
            "not a readable Outlook",
        ),
    ],
)
def test_bad_mail_files_get_a_one_line_reason(name: str, data: bytes, kind: type, message: str) -> None:
    with pytest.raises(kind, match=message) as raised:
        convert_documents(Path(name), data)
    assert "\n" not in str(raised.value)


needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")


@needs_tesseract
def test_a_scanned_image_and_a_pdf_without_text_are_read_by_ocr() -> None:
    (image,) = convert_documents(Path("boiler-report.png"), samples.make_scan_png())
    assert image.markdown.startswith("# Boiler report\n\nBoiler Inspection Report\n\n")
    assert "passed inspection on 14 March 2026" in image.markdown and image.meta["type"] == "scan"
    assert image.meta["ocr"].startswith("tesseract") and "OCR" in image.warnings[0]
    (pdf,) = convert_documents(Path("scan.pdf"), samples.make_scanned_pdf())
    assert pdf.markdown.startswith("# Scan\n\n## Page 1\n\nBoiler Inspection Report")
    assert "Next check is due in September" in pdf.markdown


def test_without_tesseract_a_scan_gets_a_reason_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine with no tesseract on its path
    for name, data in (("scan.png", samples.make_scan_png()), ("scan.pdf", samples.make_scanned_pdf())):
        with pytest.raises(
            DocumentError, match=r"install Tesseract for OCR \(Debian: apt install tesseract-ocr\)"
        ):
            convert_documents(Path(name), data)


def test_an_image_bomb_and_a_non_image_are_refused() -> None:
    import struct
    import zlib

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + header
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    bomb = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + end
    if shutil.which("tesseract"):  # refused from its header (by Pillow's own limit outside a run)
        with pytest.raises(DocumentError, match="over 179 million pixels; refused"):
            convert_documents(Path("bomb.png"), bomb)
    with pytest.raises(DocumentError, match="not a PNG, JPEG or TIFF"):
        convert_documents(Path("fake.jpg"), b"<html>not an image</html>")


def test_a_mailbox_that_changes_keeps_its_documents_in_step(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("club", raw={"board.mbox": samples.make_mbox()})
    kb.ingest(folder.parent)
    rag = folder / "RAG"
    assert sorted(p.stem for p in rag.glob("*.md")) == sorted([ORIGINAL, REPLY, FOLLOW_UP])
    again = kb.ingest(folder.parent)
    assert [o.status for o in again.outcomes] == ["unchanged"] * 3, (
        "an unchanged mailbox is not converted again"
    )
    shorter = samples.make_mbox().split(b"From MAILER-DAEMON")
    (folder / "RAW-DOCS" / "board.mbox").write_bytes(b"From MAILER-DAEMON".join(shorter[:3]))
    kb.ingest(folder.parent, prune=True)
    assert sorted(p.stem for p in rag.glob("*.md")) == sorted([ORIGINAL, REPLY]), (
        "the message gone is removed"
    )
    assert {d.id for d in kb.documents("club")} == {ORIGINAL, REPLY}
    (folder / "RAW-DOCS" / "board.mbox").unlink()
    kb.ingest(folder.parent, prune=True)
    assert list(rag.glob("*.md")) == [] and kb.documents("club") == []
