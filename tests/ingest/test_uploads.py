"""Files brought from outside, before and as they are written: names made safe, content checked
against the suffix, a taken name never replaced, a document's own files found again (a mailbox's
raw file kept while other messages came from it); and the write right of a key."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from shu.accounts.keys import authorize_write, create_key
from shu.errors import ForbiddenError, InvalidRequestError
from shu.ingest.uploads import (
    MAX_NAME_BYTES,
    TooLarge,
    UploadRefused,
    check_content,
    document_files,
    own_folder,
    persona_folder,
    remove_files,
    safe_name,
    store_file,
)
from shu.types import ApiKey, Document


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("report.PDF", "report.pdf"),
        ("../../etc/passwd.txt", "passwd.txt"),
        ("C:\\Users\\ana\\notes.md", "notes.md"),
        ("a\x00b\x1f\x7f.txt", "ab.txt"),
        ("\u202eevil.txt", "evil.txt"),
        (".bashrc.md", "bashrc.md"),
        ("...md", "upload.md"),
        ("naïve café.md", "naïve café.md"),
        ("e\u0301t\u00e9.md", "\u00e9t\u00e9.md"),  # NFC
        ("a<b>|c?*.txt", "a-b-c.txt"),
        ("日" * 200 + ".md", "日" * (MAX_NAME_BYTES // 3) + ".md"),
    ],
)
def test_names_are_made_safe(sent: str, stored: str) -> None:
    assert safe_name(sent) == stored
    assert len(safe_name(sent).encode()) <= MAX_NAME_BYTES + len(".markdown")


@pytest.mark.parametrize("sent", ["", "noext", "tool.exe", "archive.tar.gz", "../..", "x.md/"])
def test_a_name_without_a_format_shu_reads_is_refused(sent: str) -> None:
    with pytest.raises(UploadRefused, match="not a format Shu reads"):
        safe_name(sent)


def test_content_is_checked_against_the_suffix() -> None:
    check_content("a.pdf", b"%PDF-1.7\n", 9, 100)
    check_content("a.docx", b"PK\x03\x04rest", 8, 100)
    check_content("a.txt", "\ufeffhé".encode(), 5, 100)
    check_content("a.txt", b"\xff\xfeh\x00i\x00", 6, 100)  # UTF-16 text has NULs
    with pytest.raises(TooLarge, match="over the 100"):
        check_content("a.txt", b"x", 101, 100)
    with pytest.raises(UploadRefused, match="empty"):
        check_content("a.txt", b"", 0, 100)
    with pytest.raises(UploadRefused, match=r"does not look like a \.png"):
        check_content("a.png", b"GIF89a", 6, 100)
    with pytest.raises(UploadRefused, match="binary data"):
        check_content("a.csv", b"a,b\x00", 4, 100)


def test_a_taken_name_gets_a_number_and_nothing_half_written_is_left(tmp_path: Path) -> None:
    raw = tmp_path / "RAW-DOCS"
    first = store_file(raw, "notes.md", io.BytesIO(b"one"))
    second = store_file(raw, "notes.md", io.BytesIO(b"two"))
    third = store_file(raw, "notes.md", io.BytesIO(b"three"))
    assert [first.name, second.name, third.name] == ["notes.md", "notes-2.md", "notes-3.md"]
    assert first.read_bytes() == b"one" and sorted(p.name for p in raw.iterdir()) == [
        "notes-2.md",
        "notes-3.md",
        "notes.md",
    ]


def _persona(root: Path, slug: str) -> Path:
    folder = root / slug
    (folder / "RAG").mkdir(parents=True)
    (folder / "RAW-DOCS").mkdir()
    (folder / "persona.config.json").write_text(f'{{"slug": "{slug}", "display_name": "X"}}')
    return folder


def _rag(folder: Path, doc_id: str, source: str | None) -> Document:
    meta = f"source_file: {source}\nsource_sha256: abc\n" if source else ""
    path = folder / "RAG" / f"{doc_id}.md"
    path.write_text(f"---\nid: {doc_id}\ntitle: T\n{meta}---\n# T\n\nText.\n")
    return Document(id=doc_id, title="T", personas=[folder.name], content_hash="h", path=str(path))


def test_a_documents_files_are_found_and_a_shared_raw_file_is_kept(tmp_path: Path) -> None:
    folder = _persona(tmp_path, "lumen")
    (folder / "RAW-DOCS" / "box.mbox").write_bytes(b"From a\n")
    one, two = _rag(folder, "m1", "RAW-DOCS/box.mbox"), _rag(folder, "m2", "RAW-DOCS/box.mbox")
    hand = _rag(folder, "hand", None)
    escape = _rag(folder, "escape", "../../outside.txt")
    (tmp_path / "outside.txt").write_text("secret")
    assert persona_folder("lumen", [hand]) == folder.resolve()
    with pytest.raises(InvalidRequestError, match="does not know the folder"):
        persona_folder("lumen", [])
    files = document_files(folder, one)
    assert files.raw == (folder / "RAW-DOCS" / "box.mbox").resolve() and files.shared_with == ["m2"]
    assert remove_files(files) == [files.rag] and files.raw.exists()
    files = document_files(folder, two)
    assert files.shared_with == [] and remove_files(files) == [files.rag, files.raw]
    assert document_files(folder, hand).raw is None
    assert document_files(folder, escape).raw is None  # a source outside the folder is left alone
    other = _persona(tmp_path, "board")
    with pytest.raises(ForbiddenError, match="not a file of persona 'lumen'"):
        own_folder(_rag(other, "b", None).model_copy(update={"personas": ["board", "lumen"]}), "lumen")


class _Keys:
    def __init__(self) -> None:
        self.keys: list[ApiKey] = []

    def add_key(self, key: ApiKey, secret_hash: str) -> None:
        self.keys.append(key)


def test_only_a_write_right_or_an_admin_key_changes_a_persona() -> None:
    store = _Keys()
    known = {"lumen", "board"}
    writer, _ = create_key(store, "ed", ["lumen"], known, writes=["lumen"])  # type: ignore[arg-type]
    reader, _ = create_key(store, "ana", ["lumen"], known)  # type: ignore[arg-type]
    admin, _ = create_key(store, "ops", [], known, admin=True)  # type: ignore[arg-type]
    authorize_write(writer, "lumen")
    authorize_write(admin, "board")
    authorize_write(None, "board")  # a server without keys
    with pytest.raises(ForbiddenError, match="this key may not change persona 'lumen'"):
        authorize_write(reader, "lumen")
    with pytest.raises(ForbiddenError, match="does not reach persona 'board'"):
        authorize_write(writer, "board")
    with pytest.raises(InvalidRequestError, match="does not reach it"):
        create_key(store, "x", ["lumen"], known, writes=["board"])  # type: ignore[arg-type]
    assert ApiKey.model_validate_json('{"id": "a", "user": "u"}').writes == []  # keys made before
