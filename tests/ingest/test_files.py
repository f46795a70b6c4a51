"""Reading input files: nothing outside the knowledge base is read, even when a file or a folder
is swapped for a link while it is being read."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from shu.errors import DocumentError, SkipDocument
from shu.ingest.files import list_files, read_inside

READS = 2000
SECONDS = 20.0


def flip_file(raw: Path, outside: Path) -> Callable[[], None]:
    """`raw/sub/x.md` between a file and a link to `outside/x.md`, each swap atomic."""

    def once() -> None:
        fresh = raw / "sub" / ".x.tmp"
        fresh.write_text("inside")
        os.replace(fresh, raw / "sub" / "x.md")
        link = raw / "sub" / ".x.lnk"
        link.symlink_to(outside / "x.md")
        os.replace(link, raw / "sub" / "x.md")

    return once


def flip_folder(raw: Path, outside: Path) -> Callable[[], None]:
    """`raw/sub` between the real folder and a link to `outside`."""
    (raw / ".sub-link").symlink_to(outside)

    def once() -> None:
        os.rename(raw / "sub", raw / ".sub-real")
        os.rename(raw / ".sub-link", raw / "sub")
        os.rename(raw / "sub", raw / ".sub-link")
        os.rename(raw / ".sub-real", raw / "sub")

    return once


@pytest.mark.parametrize("flipper", [flip_file, flip_folder], ids=["file", "folder"])
def test_a_file_swapped_for_a_link_out_of_the_knowledge_base_is_never_read(
    tmp_path: Path, flipper: Callable[[Path, Path], Callable[[], None]]
) -> None:
    root, outside = tmp_path / "kb", tmp_path / "outside"
    raw = root / "RAW-DOCS"
    (raw / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "x.md").write_text("SECRET")
    (raw / "sub" / "x.md").write_text("inside")
    once = flipper(raw, outside)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            once()

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    read, refused = 0, 0
    deadline = time.monotonic() + SECONDS
    try:
        for _ in range(READS):
            if time.monotonic() > deadline:
                break
            try:
                data = read_inside(raw / "sub" / "x.md", root, 1_000_000)
            except (DocumentError, SkipDocument):
                refused += 1
                continue
            assert data == b"inside", f"read from outside the knowledge base after {read} good reads"
            read += 1
    finally:
        stop.set()
        thread.join()
    assert read > 0 and refused > 0, (read, refused)


def test_listing_passes_over_a_folder_that_vanishes_while_it_is_listed(tmp_path: Path) -> None:
    """`Path.rglob` raised FileNotFoundError and stopped the whole ingest."""
    raw = tmp_path / "RAW-DOCS"
    for name in ("a", "b", "c"):
        (raw / "sub" / name).mkdir(parents=True)
        (raw / "sub" / name / "x.md").write_text("x")
    (raw / "top.md").write_text("x")
    (raw / ".hidden").mkdir()
    (raw / ".hidden" / "y.md").write_text("y")
    (raw / "linked").symlink_to(tmp_path)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            os.rename(raw / "sub", raw / ".moved")
            os.rename(raw / ".moved", raw / "sub")

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            listed = list_files(raw)
            assert raw / "top.md" in listed and raw / "linked" in listed
            assert not any(".hidden" in p.parts or ".moved" in p.parts for p in listed)
    finally:
        stop.set()
        thread.join()
    assert list_files(raw) == sorted(
        [raw / "linked", *(raw / "sub" / n / "x.md" for n in "abc"), raw / "top.md"]
    )


def test_a_file_that_grows_past_the_limit_after_its_size_was_checked_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "x.md").write_bytes(b"x" * 100)
    assert read_inside(root / "x.md", root, 100) == b"x" * 100
    (root / "x.md").write_bytes(b"x" * 101)
    with pytest.raises(DocumentError, match="file too large"):
        read_inside(root / "x.md", root, 100)
