"""What every command shares: the global options (home, `--set`, `--json`), the consoles
(document text printed safely), opening the knowledge base, one-line errors, JSON output,
progress bars. The user commands (`shu.serve.cli`) and the measuring ones (`shu_eval.cli`) both
use it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from shu.errors import ShuError
from shu.kb import KnowledgeBase, open_kb
from shu.serve.terminal import SafeConsole

out = SafeConsole(soft_wrap=True)
err = SafeConsole(stderr=True, soft_wrap=True)


class _State:
    def __init__(self) -> None:
        self.home: Path | None = None
        self.overrides: list[str] = []
        self.as_json = False


state = _State()
_RAW_UNSAFE = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@contextmanager
def open_from_state() -> Iterator[KnowledgeBase]:
    try:
        kb = open_kb(state.home, state.overrides)
    except ShuError as exc:
        fail(str(exc))
    try:
        yield kb
    except ShuError as exc:
        fail(str(exc))
    finally:
        kb.close()


def row(table: Table, *cells: str) -> None:
    """Document text is data: square brackets in it are not rich markup."""
    table.add_row(*(escape(cell) for cell in cells))


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def emit_json(data: Any) -> None:
    """JSON escapes C0 controls itself; C1 controls and bidirectional overrides are escaped too,
    so that piping `--json` output to a terminal is as safe as the plain output."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(_RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


@contextmanager
def progress() -> Iterator[Callable[[str, int, int], None]]:
    if state.as_json or not err.is_terminal:
        yield lambda stage, done, total: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield advance
