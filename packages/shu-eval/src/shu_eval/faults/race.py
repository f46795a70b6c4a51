"""A file swapped for a link while it is read: a thread flips `RAW-DOCS/x.md` (and its folder)
between a file and a link to a file outside the knowledge base while `shu ingest` runs again and
again. The outside file must never be converted, indexed or found (a breach), the run must never
fail unexpectedly (a crash), and once the flipping stops the file's own text is indexed (else
lost)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from shu_eval.faults.checks import Check, store_label, store_overrides
from shu_eval.faults.corpus import write_persona

SECRET = "zqracesecret"
INSIDE = "The race notes say the greenhouse opens at seven."


def link_race_check(work: Path, runs: int, url: str = "") -> Check:
    """`runs` ingests over the store `url` names (a PostgreSQL URL; else the home's SQLite)."""
    import shu

    folder = write_persona(work / "race", "race")
    raw = folder / "RAW-DOCS"
    (raw / "sub").mkdir()
    outside = work / "race-outside"
    outside.mkdir()
    (outside / "x.md").write_text(f"# Outside\n\nThe outside file holds {SECRET}.\n")
    (raw / "sub" / "x.md").write_text(f"# Race notes\n\n{INSIDE}\n")
    (raw / ".sub-link").symlink_to(outside)
    check = Check(f"file swapped for a link mid-read{store_label(url)}", 0)
    stop = threading.Event()
    flipper = threading.Thread(target=_flip, args=(raw, outside, stop), daemon=True)
    with shu.open(work / "race-home", overrides=store_overrides(url)) as kb:
        flipper.start()
        try:
            for _ in range(runs):
                check.inputs += 1
                try:
                    report = kb.ingest(folder.parent)
                except Exception as exc:  # any escape is what this check counts
                    check.crashes += 1
                    check.notes.append(f"ingest raised {type(exc).__name__}: {exc}")
                    continue
                unexpected = [o.line() for o in report.outcomes if "unexpected" in (o.message or "")]
                if unexpected:
                    check.crashes += 1
                    check.notes += unexpected[:2]
                check.breaches += _breaches(kb, folder, check.notes)
        finally:
            stop.set()
            flipper.join()
        _restore(raw)
        kb.ingest(folder.parent)
        check.breaches += _breaches(kb, folder, check.notes)
        found = [h.chunk.text for h in kb.search("greenhouse opens", persona="race")]
        if not any(INSIDE in text for text in found):
            check.lost += 1
            check.notes.append(f"the file's own text is not indexed after the flipping stopped: {found}")
    return check


def _flip(raw: Path, outside: Path, stop: threading.Event) -> None:
    """Swap the file for a link and back, then its folder for a link and back, until stopped."""
    while not stop.is_set():
        fresh = raw / "sub" / ".x.tmp"
        fresh.write_text(f"# Race notes\n\n{INSIDE}\n")
        os.replace(fresh, raw / "sub" / "x.md")
        link = raw / "sub" / ".x.lnk"
        link.symlink_to(outside / "x.md")
        os.replace(link, raw / "sub" / "x.md")
        fresh.write_text(f"# Race notes\n\n{INSIDE}\n")
        os.replace(fresh, raw / "sub" / "x.md")
        os.rename(raw / "sub", raw / ".sub-real")
        os.rename(raw / ".sub-link", raw / "sub")
        os.rename(raw / "sub", raw / ".sub-link")
        os.rename(raw / ".sub-real", raw / "sub")


def _restore(raw: Path) -> None:
    (raw / "sub" / "x.md").unlink(missing_ok=True)
    (raw / "sub" / "x.md").write_text(f"# Race notes\n\n{INSIDE}\n")


def _breaches(kb: object, folder: Path, notes: list[str]) -> int:
    from shu.kb import KnowledgeBase

    assert isinstance(kb, KnowledgeBase)
    written = [p.name for p in (folder / "RAG").rglob("*.md") if SECRET in p.read_text(errors="replace")]
    found = [h.chunk.doc_id for h in kb.search(SECRET, persona="race") if SECRET in h.chunk.text]
    if written or found:
        notes.append(f"the outside file was read: RAG files {written}, indexed as {found}")
    return len(written) + len(found)
