"""What converting one raw file may cost: time, bytes inflated out of archives (each read counted,
so a member read 160 times costs 160 times), Markdown written and documents made. A small file
can ask for hours (a spine that lists one chapter thousands of times, a table of a million
cells, a mailbox of tiny messages); the budget stops it with a one-line reason naming the
setting that allows it, and the run goes on.

The budget is cooperative: `raw.py` opens one per file (`spending`), and the converters spend
from `current()` in their loops and wherever they read an archive member. Outside a run (a test
converting bytes directly) the current budget is unlimited."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shu.errors import DocumentError

if TYPE_CHECKING:
    from shu.config.settings import IngestSettings

EXPANSION_FLOOR = 1_000_000
"""However small the file, this much may be inflated and written (a 2 KB note is never refused)."""


class OverBudget(DocumentError):
    """Converting a file would cost more than its budget allows."""


@dataclass(frozen=True)
class Limits:
    seconds: float = float("inf")
    expansion: float = float("inf")
    """Bytes inflated and Markdown bytes written, per byte of the raw file."""
    markdown_bytes: float = float("inf")
    documents: float = float("inf")
    table_cells: float = float("inf")
    ocr_page_pixels: float = float("inf")
    ocr_file_pixels: float = float("inf")

    @classmethod
    def from_settings(cls, settings: IngestSettings) -> Limits:
        return cls(
            seconds=settings.max_file_seconds,
            expansion=settings.max_expansion,
            markdown_bytes=settings.max_markdown_mb * 1_000_000,
            documents=settings.max_documents,
            table_cells=settings.max_table_cells,
            ocr_page_pixels=settings.max_ocr_page_pixels,
            ocr_file_pixels=settings.max_ocr_file_pixels,
        )


@dataclass
class Budget:
    limits: Limits
    size: int
    """The raw file's size in bytes."""
    started: float = field(default_factory=time.monotonic)
    inflated: int = 0
    markdown: int = 0
    documents: int = 0
    table_cells: int = 0
    ocr_pixels: int = 0

    @property
    def expansion_bytes(self) -> float:
        return max(EXPANSION_FLOOR, self.limits.expansion * self.size)

    def tick(self) -> None:
        """Raise OverBudget once the file has taken longer than its time."""
        if self.seconds_left() < 0:
            raise self.out_of_time()

    def seconds_left(self) -> float:
        """What is left of the file's time (inf when unlimited): the most a child process may take."""
        return self.limits.seconds - (time.monotonic() - self.started)

    def out_of_time(self) -> OverBudget:
        return OverBudget(
            f"over the budget: converting took over {self.limits.seconds:g} s, "
            "raise ingest.max_file_seconds to allow"
        )

    def inflate(self, size: int, what: str = "archive parts") -> None:
        """Count `size` bytes about to be inflated (before they are)."""
        self.inflated += size
        if self.inflated > self.expansion_bytes:
            raise OverBudget(
                f"over the budget: {what} inflate to {_size(self.inflated)} from a {_size(self.size)} "
                f"file (at most {self.limits.expansion:g}× its size), raise ingest.max_expansion to allow"
            )
        self.tick()

    def write(self, size: int) -> None:
        """Count `size` bytes of Markdown made."""
        self.markdown += size
        self._check_markdown(self.markdown)
        self.tick()

    def expect(self, size: int) -> None:
        """Raise OverBudget when `size` more bytes of Markdown (about to be made, and counted by
        `write` when they are) would pass the budget: a table's cells, before it is rendered."""
        self._check_markdown(self.markdown + size)
        self.tick()

    def _check_markdown(self, total: int) -> None:
        if total > self.limits.markdown_bytes:
            raise OverBudget(
                f"over the budget: over {_size(self.limits.markdown_bytes)} of Markdown, "
                "raise ingest.max_markdown_mb to allow"
            )
        if total > self.expansion_bytes:
            raise OverBudget(
                f"over the budget: {_size(total)} of Markdown from a {_size(self.size)} file "
                f"(at most {self.limits.expansion:g}× its size), raise ingest.max_expansion to allow"
            )

    def make(self, count: int = 1, what: str = "documents") -> None:
        """Count `count` documents about to be made (a mailbox's messages, a message's attachments)."""
        self.documents += count
        if self.documents > self.limits.documents:
            raise OverBudget(
                f"over the budget: {what} make over {self.limits.documents:,.0f} documents, "
                "raise ingest.max_documents to allow"
            )
        self.tick()

    def cells(self, count: int) -> None:
        """Count `count` table cells about to be parsed (HTML: each costs time and memory)."""
        self.table_cells += count
        if self.table_cells > self.limits.table_cells:
            raise OverBudget(
                f"over the budget: over {self.limits.table_cells:,.0f} table cells "
                f"({self.table_cells:,} so far), raise ingest.max_table_cells to allow"
            )
        self.tick()

    def pixels(self, count: int, what: str, at_least: bool = False) -> None:
        """Count a page (or image) of `count` pixels (`at_least`: of more) about to be rendered
        or decoded for OCR."""
        if count > self.limits.ocr_page_pixels:
            size = f"{'over ' if at_least else ''}{count / 1e6:,.1f} million pixels"
            raise OverBudget(
                f"over the budget: {what} is {size} (at most {self.limits.ocr_page_pixels / 1e6:,.1f} "
                "million a page), raise ingest.max_ocr_page_pixels to allow"
            )
        self.ocr_pixels += count
        if self.ocr_pixels > self.limits.ocr_file_pixels:
            raise OverBudget(
                f"over the budget: its pages are over {self.limits.ocr_file_pixels / 1e6:,.0f} million "
                f"pixels for OCR ({self.ocr_pixels / 1e6:,.0f} million so far), "
                "raise ingest.max_ocr_file_pixels to allow"
            )
        self.tick()

    def settle(self, documents: int, markdown: int) -> None:
        """Check a converted file's whole output (what its converter did not count as it went)."""
        self.make(max(0, documents - self.documents))
        self.write(max(0, markdown - self.markdown))


_UNLIMITED = Limits()
_current: ContextVar[Budget | None] = ContextVar("shu_conversion_budget", default=None)


def current() -> Budget:
    """The budget of the file being converted (an unlimited one outside `spending`)."""
    return _current.get() or Budget(_UNLIMITED, 0)


@contextmanager
def spending(limits: Limits, size: int) -> Iterator[Budget]:
    """Convert one file of `size` bytes within `limits`."""
    budget = Budget(limits, size)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def _size(count: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:,.0f} bytes"
