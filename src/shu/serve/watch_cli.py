"""`shu watch [FOLDERS…]`: keep the knowledge base in step with its folders as files appear,
change and go (`shu.ingest.watch`), one line per run; `shu serve --watch` runs the same watcher
beside the server."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from shu.ingest.personas import find_persona_folders, is_persona_folder
from shu.ingest.watch import FolderWatcher, WatchRun, persona_folders_of
from shu.kb import KnowledgeBase
from shu.serve.console import err, fail, out, state
from shu.serve.console import open_from_state as open_kb
from shu.serve.terminal import SafeConsole


def watched_folders(kb: KnowledgeBase, given: list[Path] | None) -> list[Path]:
    """The folders given, or else the persona folders the knowledge base was ingested from."""
    if given:
        missing = [str(f) for f in given if not f.is_dir()]
        if missing:
            fail(f"not a folder: {', '.join(missing)}")
        for folder in given:
            inside = next((p for p in folder.resolve().parents if is_persona_folder(p)), None)
            if inside is not None:
                fail(f"{folder} is inside the persona folder {inside}: watch that folder instead")
            if not find_persona_folders(folder):
                err.print(f"{escape(str(folder))}: no persona folders yet (new ones are picked up)")
        return given
    found = persona_folders_of(doc.path for doc in kb.documents())
    if not found:
        fail("no folders to watch: the knowledge base holds no documents from a persona folder; name them")
    return found


def start_watching(
    kb: KnowledgeBase, folders: list[Path], console: SafeConsole, initial: bool = True
) -> FolderWatcher:
    """A watcher started over `folders`, ingesting as `shu ingest --prune` does, its runs printed."""

    def show(run: WatchRun) -> None:
        if state.as_json:  # one object a line, ASCII only: safe to pipe to a terminal
            sys.stdout.write(json.dumps(run.summary()) + "\n")
            sys.stdout.flush()
            return
        stamp = datetime.now().strftime("%H:%M:%S")
        style = "red" if run.error or (run.report and run.report.failed) else "green"
        console.print(f"{stamp} [{style}]{escape(run.line())}[/]", highlight=False)
        for outcome in run.report.failed if run.report else []:
            console.print(f"  [red]{escape(outcome.line())}[/]", highlight=False)

    watcher = FolderWatcher(
        folders,
        lambda folder: kb.ingest(folder, prune=True),
        debounce_s=kb.settings.ingest.watch_debounce_s,
        on_run=show,
        initial=initial,
    )
    return watcher.start()


def watch(
    folders: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Persona folders, or folders of them (default: those the knowledge base was ingested from)."
        ),
    ] = None,
    initial: Annotated[
        bool,
        typer.Option("--initial/--no-initial", help="Ingest each folder once at the start (catch up)."),
    ] = True,
) -> None:
    """Keep the knowledge base in step with its folders: a persona folder whose files appear,
    change or go is ingested (incrementally, pruning what is gone) once it has been quiet for
    ingest.watch_debounce_s seconds; one line per run. Editor temporaries, hidden files and the
    RAG files Shu writes itself are not changes. Ctrl-C stops."""
    with open_kb() as kb:
        chosen = watched_folders(kb, folders)
        try:
            watcher = start_watching(kb, chosen, out, initial)
        except OSError as exc:
            fail(f"cannot watch: {exc}")
        shown = ", ".join(str(f) for f in chosen)
        err.print(f"Watching {escape(shown)} (Ctrl-C stops)", highlight=False)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            watcher.stop()
        if not state.as_json:
            err.print(f"Stopped after {watcher.run_count} runs", highlight=False)
