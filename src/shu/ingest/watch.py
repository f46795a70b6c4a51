"""Keep a knowledge base in step with its folders: a watchdog observer over persona folders, the
events of a persona folder gathered until it has been quiet for `debounce_s`, then that folder
ingested the way `shu ingest --prune` ingests it (the caller's `ingest`: incremental, under the
store's writer lock, so a watcher and a manual ingest never write at once).

What is not a change: editor and download temporaries (`.swp`, `~`, `.#…`, `.part`,
`.crdownload`, …), anything in a dot-folder or named with a leading dot (Shu's own `.x.md.tmp`
too), files of a persona folder outside `RAW-DOCS/` and `RAG/` other than `persona.md` and
`persona.config.json`, and a `RAG/*.md` whose bytes are those the watcher recorded after the last
run: the RAG files an ingest writes itself are recorded once it ends, so they never start
another run (a curated RAG file, which Shu never writes, edited while a run goes on starts
another). A file that fails is in the run's report, a run that raises is reported too, and
either way the watcher goes on."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from shu.ingest.files import list_files, resolved, sha256
from shu.ingest.personas import CONFIG_FILE, PROFILE_FILE, find_persona_folders, is_persona_folder
from shu.ingest.report import IngestReport

log = logging.getLogger(__name__)

Ingest = Callable[[Path], IngestReport]
"""Ingests one folder (a persona folder, or a folder of them) incrementally, pruning what is gone."""

IGNORED_SUFFIXES = (".swp", ".swo", ".swx", ".part", ".crdownload", ".download", ".tmp", "~")
IGNORED_PREFIXES = (".", "~$")
IGNORED_NAMES = frozenset({"4913"})  # vim's probe that a folder is writable
_EVENTS = frozenset({"created", "deleted", "modified", "moved", "closed"})
_PARTS = ("RAW-DOCS", "RAG")


def ignored_name(name: str) -> bool:
    """An editor's or a browser's temporary file, a hidden file, a lock file: never a document."""
    return (
        name in IGNORED_NAMES or name.startswith(IGNORED_PREFIXES) or name.lower().endswith(IGNORED_SUFFIXES)
    )


def persona_folders_of(paths: Iterable[str]) -> list[Path]:
    """The persona folders that hold these document files (`<persona>/RAG/…`) and still exist:
    where a knowledge base was ingested from."""
    found: set[Path] = set()
    for path in paths:
        parts = Path(path).parts
        if "RAG" not in parts:
            continue
        folder = Path(*parts[: len(parts) - 1 - parts[::-1].index("RAG")])
        if is_persona_folder(folder):
            found.add(folder)
    return sorted(found)


@dataclass
class WatchRun:
    """One ingestion the watcher ran: the folder, the files whose change started it, what came of it."""

    folder: Path
    changed: list[Path]
    report: IngestReport | None = None
    error: str | None = None
    seconds: float = 0.0

    def summary(self) -> dict[str, object]:
        """The run as data (`shu --json watch` prints one such object a line)."""
        report = self.report
        return {
            "folder": str(self.folder),
            "changed": [str(p) for p in self.changed],
            "counts": report.counts() if report else None,
            "failed": [{"path": o.path, "message": o.message} for o in report.failed] if report else [],
            "error": self.error,
            "seconds": round(self.seconds, 3),
        }

    def line(self) -> str:
        shown = ", ".join(p.name for p in self.changed[:3]) + (
            f" (+{len(self.changed) - 3})" if len(self.changed) > 3 else ""
        )
        head = (
            f"{self.folder.name}: {len(self.changed)} changed ({shown})"
            if self.changed
            else (f"{self.folder.name}: caught up")
        )
        if self.report is None:
            return f"{head} — failed: {self.error}"
        counts = self.report.counts()
        done = ", ".join(f"{counts[s]} {s}" for s in ("converted", "ingested", "pruned", "failed"))
        return f"{head} — {done} ({self.seconds:.1f} s)"


@dataclass
class _Pending:
    paths: set[Path] = field(default_factory=set)
    last: float = 0.0


class FolderWatcher:
    """Watches `folders` (persona folders, or folders of them) and ingests a persona folder once
    its events have been quiet for `debounce_s`; each run goes to `on_run` (a bad file is in its
    report; an ingest that raises is reported too, and the watcher goes on). `initial` ingests
    every folder once at the start, to catch what changed while nobody watched."""

    def __init__(
        self,
        folders: Sequence[Path],
        ingest: Ingest,
        debounce_s: float = 2.0,
        on_run: Callable[[WatchRun], None] | None = None,
        initial: bool = False,
    ) -> None:
        self.folders = [resolved(Path(f)) for f in folders]
        self.ingest = ingest
        self.debounce_s = debounce_s
        self.on_run = on_run or (lambda run: None)
        self.initial = initial
        self.runs: deque[WatchRun] = deque(maxlen=100)
        """The latest runs, oldest first."""
        self.run_count = 0
        self._known: dict[Path, str] = {}
        self._pending: dict[Path, _Pending] = {}
        self._busy = False
        self._during: set[Path] = set()
        """Paths events named while a run was under way."""
        self._curated: set[Path] = set()
        """The RAG files last recorded that Shu did not generate."""
        self._cond = threading.Condition()
        self._stopping = False
        self._observer: BaseObserver | None = None
        self._worker: threading.Thread | None = None

    # -- life ------------------------------------------------------------------------------

    def start(self) -> FolderWatcher:
        for folder in self.folders:
            if not folder.is_dir():
                raise NotADirectoryError(f"{folder}: not a folder")
        for folder in self._persona_folders():
            self._record(folder)
        observer = Observer()
        handler = _Handler(self)
        for folder in self.folders:
            observer.schedule(handler, str(folder), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._worker = threading.Thread(target=self._work, name="shu-watch", daemon=True)
        self._worker.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching; a run under way finishes first (each document is committed on its own)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        if self._worker is not None:
            self._worker.join(timeout)

    def __enter__(self) -> FolderWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def idle(self) -> bool:
        """Nothing waiting and nothing running."""
        with self._cond:
            return not self._pending and not self._busy

    # -- events ----------------------------------------------------------------------------

    def note(self, path: Path) -> None:
        """A path that an event named: counted against its persona folder unless it is ignored."""
        folder = self._persona_folder(path)
        if folder is None:
            return
        with self._cond:
            if self._busy:
                self._during.add(path)
            pending = self._pending.setdefault(folder, _Pending())
            pending.paths.add(path)
            pending.last = time.monotonic()
            self._cond.notify_all()

    def _persona_folder(self, path: Path) -> Path | None:
        root = next((f for f in self.folders if path.is_relative_to(f)), None)
        if root is None:
            return None
        inside = path.relative_to(root).parts
        if any(ignored_name(part) for part in inside):
            return None
        for depth in range(len(inside), -1, -1):
            candidate = root.joinpath(*inside[:depth])
            if candidate == path:
                continue
            if is_persona_folder(candidate):
                rest = path.relative_to(candidate).parts
                wanted = rest[0] in _PARTS or (len(rest) == 1 and rest[0] in (PROFILE_FILE, CONFIG_FILE))
                return candidate if wanted else None
        return None

    # -- runs ------------------------------------------------------------------------------

    def _work(self) -> None:
        if self.initial:
            with self._cond:
                self._busy = True
            try:
                for folder in self.folders:
                    self._run(folder, [])
            finally:
                with self._cond:
                    self._busy = False
        while True:
            with self._cond:
                batch = self._next_batch()
                if batch is None:
                    return
                self._busy = True
                self._during.clear()
            try:
                for folder, paths in batch.items():
                    changed = sorted(p for p in paths if self._changed(p))
                    if changed:
                        self._run(folder, changed)
            finally:
                with self._cond:
                    self._busy = False

    def _next_batch(self) -> dict[Path, set[Path]] | None:
        """Waits (holding the condition) for the folders that have been quiet for `debounce_s`."""
        while not self._stopping:
            now = time.monotonic()
            quiet = {f: p for f, p in self._pending.items() if now - p.last >= self.debounce_s}
            if quiet:
                for folder in quiet:
                    del self._pending[folder]
                return {f: p.paths for f, p in quiet.items()}
            waits = [p.last + self.debounce_s - now for p in self._pending.values()]
            self._cond.wait(timeout=min(waits) if waits else None)
        return None

    def _changed(self, path: Path) -> bool:
        """Whether an event on `path` is a change to ingest: a RAG Markdown file whose bytes are
        those recorded after the last run (Shu wrote it, or nothing changed) is not."""
        parts = path.parts
        if "RAG" not in parts or path.suffix.lower() != ".md":
            return True
        return self._known.get(path, "") != _digest(path)

    def _run(self, folder: Path, changed: list[Path]) -> None:
        run = WatchRun(folder=folder, changed=changed)
        started = time.perf_counter()
        try:
            run.report = self.ingest(folder)
        except Exception as exc:  # a folder gone or unreadable: reported, the watcher goes on
            log.warning("watch: ingesting %s failed: %s", folder, exc)
            run.error = str(exc) or type(exc).__name__
        run.seconds = time.perf_counter() - started
        for persona in find_persona_folders(folder) if folder.is_dir() else []:
            self._record(persona)
        self.runs.append(run)
        self.run_count += 1
        try:
            self.on_run(run)
        except Exception:  # a reporting failure must not stop the watcher
            log.exception("watch: reporting a run failed")

    def _record(self, persona: Path) -> None:
        """Remember the bytes of the persona's RAG Markdown files as they are now: what a run
        wrote is then no change. A curated file (one Shu did not generate: Shu never writes or
        removes those) that an event named while the run went on keeps what was known before,
        so the edit, which the run may have read too early, starts another run."""
        rag = persona / "RAG"
        current: dict[Path, str] = {}
        curated: set[Path] = set()
        for path in list_files(rag):
            data = _bytes(path) if path.suffix.lower() == ".md" else None
            if data is not None:
                current[path] = sha256(data)
                if b"\nsource_sha256:" not in data[:8192]:
                    curated.add(path)
        with self._cond:
            during = {p for p in self._during if p.is_relative_to(rag)}
            self._during -= during
            held = {p for p in during if p in curated or p in self._curated}
            before = {p: d for p, d in self._known.items() if p.is_relative_to(rag)}
            for path in before:
                del self._known[path]
            self._known.update({p: d for p, d in current.items() if p not in held})
            self._known.update({p: before[p] for p in held if p in before})
            self._curated = {p for p in self._curated if not p.is_relative_to(rag)} | curated

    def _persona_folders(self) -> list[Path]:
        return [p for folder in self.folders for p in find_persona_folders(folder)]


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _digest(path: Path) -> str:
    data = _bytes(path)
    return "" if data is None else sha256(data)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _EVENTS or (event.is_directory and event.event_type == "modified"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self.watcher.note(Path(os.fsdecode(raw)))
