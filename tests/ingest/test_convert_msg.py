"""Outlook `.msg`: a message written by code (`shu_eval.samples.outlook`) is a valid compound
file that extract-msg and olefile read back in full, and Shu converts it exactly: the message,
its threading, its people, and its attachment as a document of its own."""

from __future__ import annotations

import logging
import struct
from pathlib import Path

import extract_msg
import olefile
import pytest

from shu.errors import DocumentError
from shu.ingest.convert.base import convert_documents
from shu.ingest.convert.mail import mail_id
from shu.kb import KnowledgeBase
from shu_eval.samples import outlook
from tests.conftest import PersonaMaker

MESSAGE = mail_id(outlook.MESSAGE_ID)
MINUTES = f"{MESSAGE}-minutes"
AYLA = {"name": "Ayla Demir", "email": "ayla@harbor.example", "role": "author"}
JONAS = {"name": "Jonas Berg", "email": "jonas@harbor.example", "role": "recipient"}


def _open(data: bytes) -> olefile.OleFileIO:
    return olefile.OleFileIO(data, raise_defects=olefile.DEFECT_INCORRECT)


def _check_tree(ole: olefile.OleFileIO, storage: olefile.olefile.OleDirectoryEntry) -> int:
    """Each storage's children form a binary search tree in CFB name order and a valid red-black
    tree (black root, no red node with a red child, one black height); returns the entries seen."""

    def walk(sid: int, parent_red: bool) -> tuple[list[str], int]:
        if sid == olefile.NOSTREAM:
            return [], 1
        entry = ole.direntries[sid]
        red = entry.color == outlook.RED
        assert not (red and parent_red), f"red {entry.name} under a red parent"
        left, left_height = walk(entry.sid_left, red)
        right, right_height = walk(entry.sid_right, red)
        assert left_height == right_height, f"black heights differ under {entry.name}"
        return [*left, entry.name, *right], left_height + (not red)

    assert storage.sid_child == olefile.NOSTREAM or ole.direntries[storage.sid_child].color == outlook.BLACK
    names, _ = walk(storage.sid_child, parent_red=False)
    assert names == sorted(names, key=outlook.cfb_order) and len(set(names)) == len(names)
    assert sorted(names) == sorted(kid.name for kid in storage.kids)
    return len(names) + sum(
        _check_tree(ole, kid) for kid in storage.kids if kid.entry_type == olefile.STGTY_STORAGE
    )


@pytest.mark.parametrize("sent_copy", [False, True])
def test_the_generated_message_is_a_valid_compound_file(sent_copy: bool) -> None:
    data = outlook.make_msg(sent_copy=sent_copy)
    ole = _open(data)
    assert (ole.dll_version, ole.minor_version, ole.sector_size, ole.mini_sector_size) == (3, 0x3E, 512, 64)
    assert (ole.mini_stream_cutoff_size, ole.num_difat_sectors, ole.num_dir_sectors) == (4096, 0, 0)
    assert len(data) % 512 == 0, "a header and whole sectors"
    assert _check_tree(ole, ole.root) == len([e for e in ole.direntries if e is not None]) - 1
    assert ole.openstream("__attach_version1.0_#00000000/__substg1.0_37010102").read() == outlook.MINUTES
    assert ole.openstream("__substg1.0_0037001F").read().decode("utf-16-le") == outlook.SUBJECT
    properties = ole.openstream("__properties_version1.0").read()
    assert struct.unpack("<8xIIII8x", properties[:32]) == (1, 1, 1, 1), "next ids and counts"
    assert (len(properties) - 32) % 16 == 0
    entries = {tag: value for tag, _, value in struct.iter_unpack("<IIQ", properties[32:])}
    assert entries[0x0037001F] & 0xFFFFFFFF == len(outlook.SUBJECT) * 2 + 2, "a string's size counts its null"
    recipient = ole.openstream("__recip_version1.0_#00000000/__properties_version1.0").read()
    assert (len(recipient) - 8) % 16 == 0 and struct.pack("<IIQ", 0x0C150003, 6, 1) in recipient


def test_the_writer_puts_large_streams_in_sectors_and_nests_storages() -> None:
    big = bytes(range(256)) * 800  # 200 KB: four FAT sectors
    tree: outlook.Tree = {
        "big": big,
        "empty": b"",
        "a": {"small": b"x" * 4095, "edge": b"y" * 4096, "b": {"deep": b"z"}, "c": {}},
    }
    ole = _open(outlook.write_cfb(tree))
    assert ole.num_fat_sectors == 4
    read = {"big": big, "empty": b"", "a/small": b"x" * 4095, "a/edge": b"y" * 4096, "a/b/deep": b"z"}
    assert {path: ole.openstream(path).read() for path in read} == read
    assert ole.get_type("a/c") == olefile.STGTY_STORAGE
    assert ole.root.size == 4096 + 64, "the mini stream holds the 4095-byte and the 1-byte stream"
    assert _check_tree(ole, ole.root) == 8
    with pytest.raises(ValueError, match="not a valid compound-file name"):
        outlook.write_cfb({"a" * 32: b""})


def test_extract_msg_reads_every_field_back(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        msg = extract_msg.openMsg(outlook.make_msg())
        header = msg.header
        assert type(msg).__name__ == "Message" and msg.classType == "IPM.Note"
        assert msg.subject == outlook.SUBJECT
        assert msg.sender == "Ayla Demir <ayla@harbor.example>"
        assert msg.to == "Jonas Berg <jonas@harbor.example>" and msg.cc is None
        assert msg.date == outlook.SENT and msg.body == outlook.BODY
        assert (header["Message-ID"], header["In-Reply-To"]) == (outlook.MESSAGE_ID, outlook.IN_REPLY_TO)
        assert header["References"].split() == [outlook.THREAD_ID, outlook.IN_REPLY_TO]
        assert header["Date"] == "Tue, 23 Jun 2026 18:05:00 +0200"
        (recipient,) = msg.recipients
        assert (recipient.name, recipient.email, recipient.type) == ("Jonas Berg", "jonas@harbor.example", 1)
        (attachment,) = msg.attachments
        assert (attachment.longFilename, attachment.shortFilename) == ("minutes.md", "MINUTES.MD")
        assert attachment.data == outlook.MINUTES
        msg.close()
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def test_a_msg_converts_to_the_message_and_its_attachment() -> None:
    message, minutes = convert_documents(Path("reply.msg"), outlook.make_msg())
    assert (message.doc_id, message.title, message.warnings) == (MESSAGE, "Re: Winches for the Tern", [])
    assert message.markdown == (
        "# Re: Winches for the Tern\n\n"
        "**From:** Ayla Demir <ayla@harbor.example>  \n"
        "**To:** Jonas Berg <jonas@harbor.example>  \n"
        "**Date:** 2026-06-23 16:05 +0000  \n\n"
        "Jonas,\n\nThe board voted on Tuesday: the club buys two winches for the Tern, and the old\n"
        "ones go to the training boats. The minutes are attached.\n\nAyla\n\n"
        "*(9 quoted lines of earlier messages left out.)*\n\n"  # the blank line before them counts
        "## Attachments\n\n"
        f"- minutes.md (attached document: {MINUTES})\n"
    )
    assert message.meta == {
        "type": "email",
        "date": "2026-06-23",
        "sent": "2026-06-23T16:05+00:00",
        "from": "Ayla Demir <ayla@harbor.example>",
        "to": ["Jonas Berg <jonas@harbor.example>"],
        "cc": [],
        "subject": "Re: Winches for the Tern",
        "message_id": "re-winches-2026@harbor.example",
        "in_reply_to": mail_id(outlook.IN_REPLY_TO),
        "in_reply_to_message_id": "winches-2026@harbor.example",
        "thread": mail_id(outlook.THREAD_ID),
        "participants": [AYLA, JONAS],
        "attachments": [MINUTES],
    }
    assert (minutes.doc_id, minutes.title) == (MINUTES, "Minutes")
    assert minutes.markdown == "# Minutes\n\n## Decisions\n\nThe club buys two winches.\n"
    assert minutes.meta["relations"] == {"attached_to": [MESSAGE]}
    assert (minutes.meta["date"], minutes.meta["attachment_name"]) == ("2026-06-23", "minutes.md")


def test_a_truncated_msg_gets_a_one_line_reason() -> None:
    data = outlook.make_msg()
    with pytest.raises(DocumentError, match=r"^not a readable Outlook \.msg file \(") as raised:
        convert_documents(Path("reply.msg"), data[: len(data) // 2])
    assert "\n" not in str(raised.value)


def test_a_sent_copy_without_transport_headers_is_named_by_its_message_id_property() -> None:
    message, minutes = convert_documents(Path("sent.msg"), outlook.make_msg(sent_copy=True))
    assert (message.doc_id, message.meta["date"], minutes.doc_id) == (MESSAGE, "2026-06-23", MINUTES)
    assert "The minutes are attached." in message.markdown
    assert minutes.meta["relations"] == {"attached_to": [MESSAGE]}


def test_a_sent_copy_without_transport_headers_keeps_its_thread() -> None:
    message, _ = convert_documents(Path("sent.msg"), outlook.make_msg(sent_copy=True))
    assert (message.meta["in_reply_to"], message.meta["thread"]) == (
        mail_id(outlook.IN_REPLY_TO),
        mail_id(outlook.THREAD_ID),
    )


def test_a_sent_copy_names_people_written_last_name_first() -> None:
    message, _ = convert_documents(Path("sent.msg"), outlook.make_msg(sent_copy=True))
    assert message.meta["participants"] == [AYLA, JONAS]
    assert (message.meta["from"], message.meta["to"]) == (
        "Ayla Demir <ayla@harbor.example>",
        ["Jonas Berg <jonas@harbor.example>"],
    )


def test_a_msg_in_raw_docs_is_ingested_with_its_attachment(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    report = kb.ingest(make_persona("club", raw={"reply.msg": outlook.make_msg()}).parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert sorted(d.id for d in kb.documents("club")) == [MESSAGE, MINUTES]
    links = kb.document(MINUTES, persona="club").relationships
    assert [(r.target, r.type) for r in links] == [(MESSAGE, "attached_to")]
    message = kb.document(MESSAGE, persona="club").document
    assert (message.title, message.type, message.date) == ("Re: Winches for the Tern", "email", "2026-06-23")
