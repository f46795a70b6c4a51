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
from rich.console import RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
)
from rich.table import Table
from rich.text import Text

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
_FULL_WIDTH = 1_000_000
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


def show_whole(renderable: RenderableType) -> None:
    """Print without losing a line's end: to a terminal wrapped at its width, piped or redirected
    at full width (a console that is no terminal is 80 columns wide, and cuts longer lines)."""
    if out.is_terminal:
        out.print(renderable, soft_wrap=False)
        return
    SafeConsole(file=out.file, soft_wrap=True, width=_FULL_WIDTH).print(renderable)


def row(table: Table, *cells: str) -> None:
    """Document text is data: square brackets in it are not rich markup."""
    table.add_row(*(escape(cell) for cell in cells))


def fail(message: str, code: int = 2) -> NoReturn:
    """The error and the exit code; with `--json`, as JSON on stdout (`{"error", "exit_code"}`),
    where a program reading the output looks."""
    if state.as_json:
        emit_json({"error": message, "exit_code": code})
    else:
        err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def emit_json(data: Any) -> None:
    """JSON escapes C0 controls itself; C1 controls and bidirectional overrides are escaped too,
    so that piping `--json` output to a terminal is as safe as the plain output."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(_RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


class RateRemainingColumn(ProgressColumn):
    """Time left at the rate measured over the whole stage: the items done since the stage was
    first reported, over the time since then, which runs on while an item is slow. So a burst of
    quick items (unchanged files, one hash each) does not fix the estimate low, and it rises while
    a slow one runs. (rich's TimeRemainingColumn uses the steps of a recent window only, and holds
    its last figure while nothing is finished.)"""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        if task.finished:
            return Text(_clock(0), style="progress.remaining")
        done = task.completed - task.fields.get("first", 0)
        elapsed = task.elapsed
        if done <= 0 or not elapsed:
            return Text("-:--:--", style="progress.remaining")
        return Text(_clock(elapsed * (task.total - task.completed) / done), style="progress.remaining")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}"


def stage_bars(bar: Progress) -> Callable[[str, int, int], None]:
    """The progress callback that shows each stage as a task of `bar`, from its first report (a
    total of 0: not known, shown without one)."""
    tasks: dict[str, TaskID] = {}

    def advance(stage: str, done: int, total: int) -> None:
        known = total or None  # 0: a stage that does not know its total (conversion)
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=known, completed=done, first=done)
        bar.update(tasks[stage], completed=done, total=known)

    return advance


def progress_columns() -> tuple[ProgressColumn, ...]:
    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateRemainingColumn())


@contextmanager
def progress() -> Iterator[Callable[[str, int, int], None]]:
    if state.as_json or not err.is_terminal:
        yield lambda stage, done, total: None
        return
    with Progress(*progress_columns(), console=err, transient=True) as bar:
        yield stage_bars(bar)
