"""XLSX and CSV → Markdown tables: `## <sheet name>` per sheet, the first non-empty row as the
header. A sheet too long for one chunk is split into `### Rows a–b` sub-sections, each a table
that repeats the header, so that every chunk says what its columns are. Empty rows and columns
are trimmed; at most `MAX_CELLS` cells are read (the rest is cut, with a warning)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, ShuError, SkipDocument
from shu.ingest.budget import current
from shu.ingest.convert.archive import check_archive, check_not_ole
from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text
from shu.ingest.convert.office import office_date
from shu.text import count_tokens

ROWS_PER_SECTION = 50
SECTION_TOKENS = 160
"""A row-chunk also stays within this many tokens (header included), so that with the default
chunk size (180) it is one chunk: a chunk never holds rows without their header."""
MAX_CELLS = 200_000
"""Cells read per file (empty ones inside the kept table count): about 10 MB of Markdown."""
MAX_COLUMNS = 256
MAX_SCANNED = 20 * MAX_CELLS
"""Cell positions looked at per sheet, empty ones included."""
_DELIMITERS = ",;\t|"
_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def convert_xlsx(data: bytes, path: Path) -> Converted:
    check_not_ole(data, "XLSX", "an .xls workbook")
    check_archive(data, "XLSX")
    from openpyxl import load_workbook

    budget = _Budget()
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise DocumentError(
            f"not a readable XLSX file ({exc.__class__.__name__}: {_one_line(str(exc))})"
        ) from exc
    except Exception as exc:  # openpyxl lets lxml and its own descriptor errors through
        raise DocumentError(f"not a readable XLSX file ({exc.__class__.__name__})") from exc
    try:
        sections: list[str] = []
        names: list[str] = []
        for index, sheet in enumerate(book.worksheets):
            if budget.cut:
                left = ", ".join(repr(s.title) for s in book.worksheets[index:])
                budget.warnings.append(f"{len(book.worksheets) - index} more sheet(s) not read: {left}")
                break
            table = _read_sheet(sheet, budget)
            if table is None:
                continue
            names.append(sheet.title)
            sections.append(f"## {_one_line(sheet.title) or 'Sheet'}\n\n{render_rows(*table, level=3)}")
        props = book.properties
    except ShuError:
        raise
    except Exception as exc:  # a damaged sheet part is only parsed while it is read
        raise DocumentError(
            f"not a readable XLSX file ({exc.__class__.__name__}: {_one_line(str(exc))})"
        ) from exc
    finally:
        book.close()
    if not sections:
        raise SkipDocument("no data in any sheet")
    title = _one_line(props.title or "") or path.stem
    meta: dict[str, Any] = {"type": "spreadsheet", "sheets": names}
    if props.creator and props.creator.strip() and props.creator != "openpyxl":
        meta["author"] = props.creator.strip()
    markdown = f"# {title}\n\n" + "\n\n".join(sections) + "\n"
    return Converted(
        markdown=markdown,
        title=title,
        meta=meta,
        warnings=budget.warnings,
        file_date=office_date(props.created, props.modified),
    )


def convert_csv(data: bytes, path: Path) -> Converted:
    text, encoding = decode_text(data)
    warnings = [] if encoding.startswith("utf") else [f"decoded as {encoding}"]
    delimiter = sniff_delimiter(text)
    budget = _Budget()
    try:
        table = _table(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), path.stem, budget)
    except csv.Error as exc:
        raise DocumentError(f"not a readable CSV file ({_one_line(str(exc))})") from exc
    if table is None:
        raise SkipDocument("no data in the CSV file")
    title = path.stem
    markdown = f"# {title}\n\n{render_rows(*table, level=2)}\n"
    meta = {"type": "spreadsheet", "delimiter": _NAMES[delimiter]}
    return Converted(markdown=markdown, title=title, meta=meta, warnings=warnings + budget.warnings)


def sniff_delimiter(text: str) -> str:
    """The candidate (, ; tab |) that splits the first lines into the same number (≥ 2) of fields
    most consistently; a comma when none does."""
    sample = text[:65536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    best, best_score = ",", (0.0, 0)
    for candidate in _DELIMITERS:
        try:
            widths = [
                len(row)
                for _, row in zip(
                    range(50), csv.reader(io.StringIO(sample), delimiter=candidate), strict=False
                )
            ]
        except csv.Error:
            continue
        widths = [w for w in widths if w]
        if not widths:
            continue
        width, count = Counter(widths).most_common(1)[0]
        score = (count / len(widths), width)
        if width >= 2 and score > best_score:
            best, best_score = candidate, score
    return best


class _Budget:
    def __init__(self) -> None:
        self.cells = MAX_CELLS
        self.warnings: list[str] = []
        self.cut = False


def _read_sheet(sheet: Any, budget: _Budget) -> tuple[list[str], list[list[str]]] | None:
    sheet.reset_dimensions()  # a stated size of A1:XFD1048576 must not make a million padded rows
    return _table(sheet.iter_rows(values_only=True), f"sheet {sheet.title!r}", budget)


def _table(
    rows: Iterable[Sequence[Any]], name: str, budget: _Budget
) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows) with empty rows and columns trimmed, within the cell budget; None when empty."""
    kept: list[list[str]] = []
    used: set[int] = set()
    scanned = 0
    made = 0  # bytes of Markdown the kept cells will make, at least
    output = current()
    wide = False
    for row in rows:
        scanned += len(row) + 1
        if scanned > MAX_SCANNED:  # empty rows, and cells far to the right, cost time too
            budget.warnings.append(f"{name} cut after {len(kept):,} rows (too sparse to read further)")
            break
        if not wide and len(row) > MAX_COLUMNS and any(v not in (None, "") for v in row[MAX_COLUMNS:]):
            wide = True
            budget.warnings.append(f"{name}: only the first {MAX_COLUMNS} columns are read")
        cells = [cell_text(value) for value in row[:MAX_COLUMNS]]
        filled = {i for i, c in enumerate(cells) if c}
        if not filled:
            continue
        width = len(used | filled)
        if (len(kept) + 1) * width > budget.cells:
            budget.warnings.append(
                f"{name} cut after {len(kept):,} rows (at most {MAX_CELLS:,} cells are read)"
            )
            budget.cut = True
            break
        used |= filled
        kept.append(cells)
        made += sum(len(c) for c in cells) + 3 * len(cells)
        if len(kept) % 100 == 0:
            output.expect(made)  # cells naming one long shared string: stop before rendering
    if not kept:
        return None
    output.expect(made)
    columns = sorted(used)
    budget.cells -= len(kept) * len(columns)
    table = [[row[i] if i < len(row) else "" for i in columns] for row in kept]
    return table[0], table[1:]


def render_rows(header: list[str], rows: list[list[str]], level: int) -> str:
    """One Markdown table, or `Rows a–b` sub-sections (at heading `level`) each repeating the header.
    Its Markdown is counted against the file's budget as it is made: cells that all name one
    shared string, or a long header repeated in every block, make far more than the file holds."""
    budget = current()
    head = [_row_line(header), _row_line(["---"] * len(header))]
    head_tokens = sum(count_tokens(line) for line in head)
    head_bytes = sum(len(line) + 1 for line in head)
    budget.write(head_bytes)
    lines: list[str] = []
    groups: list[tuple[int, int]] = []
    start, tokens = 0, head_tokens
    for index, row in enumerate(rows):
        line = _row_line(row)
        budget.write(len(line) + 1)
        size = count_tokens(line)
        if index > start and (index - start >= ROWS_PER_SECTION or tokens + size > SECTION_TOKENS):
            groups.append((start, index))
            budget.write(head_bytes + level + 20)  # the block's heading and its repeated header
            start, tokens = index, head_tokens
        tokens += size
        lines.append(line)
    groups.append((start, len(lines)))
    if len(groups) == 1:
        return "\n".join(head + lines)
    return "\n\n".join(
        f"{'#' * level} Rows {first + 1}–{end}\n\n" + "\n".join(head + lines[first:end])
        for first, end in groups
    )


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    width = max([len(header), *(len(row) for row in rows)])

    def pad(cells: list[str]) -> list[str]:
        return list(cells) + [""] * (width - len(cells))

    lines = [_row_line(pad(header)), _row_line(["---"] * width)]
    return "\n".join(lines + [_row_line(pad(row)) for row in rows])


def _row_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_escape(cell) for cell in cells) + " |"


def _escape(cell: str) -> str:
    text = cell.replace("\r\n", "\n").replace("\r", "\n").strip()
    return text.replace("|", "\\|").replace("\n", "<br>")


def cell_text(value: Any) -> str:
    """A cell value as a spreadsheet shows it: dates without midnight, 15 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime):
        if value.time() == time(0):
            return value.date().isoformat()
        return value.replace(microsecond=0).isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, float):
        return format(value, ".15g")
    return str(value).strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())
