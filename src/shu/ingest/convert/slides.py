"""PPTX → Markdown: `# <deck title>`, one `## Slide N: <title>` section per slide with its text in
reading order (bullets as nested list items, tables and chart data as Markdown tables), speaker
notes under `### Notes`. Pictures and slide chrome (date, footer, slide number) are not text."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pptx import Presentation
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.shapes.group import GroupShape

from shu.errors import DocumentError, ShuError
from shu.ingest.budget import current
from shu.ingest.convert.archive import check_archive, check_not_ole
from shu.ingest.convert.base import Converted
from shu.ingest.convert.office import office_date
from shu.ingest.convert.sheets import cell_text, markdown_table
from shu.ingest.dates import date_in_text

_CHROME = {PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.HEADER}
_BULLETED = {
    PP_PLACEHOLDER.BODY,
    PP_PLACEHOLDER.OBJECT,
    PP_PLACEHOLDER.VERTICAL_BODY,
    PP_PLACEHOLDER.VERTICAL_OBJECT,
}
"""Placeholders whose paragraphs are bullets unless a paragraph says otherwise (`a:buNone`)."""
_COVER = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.SUBTITLE}
_GENERIC_TITLES = {"", "powerpoint presentation", "presentation", "untitled"}
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_MARKUP_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|```|~~~)")


def convert(data: bytes, path: Path) -> Converted:
    check_not_ole(data, "PPTX", "a .ppt presentation")
    check_archive(data, "PPTX")
    try:
        deck = Presentation(io.BytesIO(data))
        budget = current()
        slides = []
        for number, slide in enumerate(deck.slides, start=1):  # a slide may be listed many times
            slides.append(_slide_markdown(number, slide))
            budget.write(len(slides[-1][1].encode()))
        props = deck.core_properties
        meta: dict[str, Any] = {"type": "slides", "slides": len(slides)}
        if (props.author or "").strip():
            meta["author"] = props.author.strip()
        title = (props.title or "").strip()
        cover = _cover_date(title, deck.slides[0] if slides else None)
        if cover:
            meta["date"] = cover
        file_date = office_date(props.created, props.modified)
    except ShuError:
        raise
    except Exception as exc:  # python-pptx surfaces a damaged package as KeyError, lxml or zip errors
        raise DocumentError(
            f"not a readable PPTX file ({exc.__class__.__name__}: {_one_line(str(exc))})"
        ) from exc
    if title.casefold() in _GENERIC_TITLES:
        title = next((t for t, _ in slides[:1] if t), "") or path.stem
    body = "\n\n".join(text for _, text in slides)
    return Converted(
        markdown=f"# {_one_line(title)}\n\n{body}\n", title=_one_line(title), meta=meta, file_date=file_date
    )


def _cover_date(title: str, first: Any) -> str | None:
    """A full date on the deck's cover: its title, or the first slide's title or subtitle
    ("members' meeting, 28 March 2026"); the first slide's other text is content, not a date line."""
    texts = [title]
    if first is not None:
        texts += [
            shape.text_frame.text
            for shape in first.placeholders
            if shape.placeholder_format.type in _COVER and shape.has_text_frame
        ]
    return next((found for found in map(date_in_text, texts) if found), None)


def _slide_markdown(number: int, slide: Any) -> tuple[str, str]:
    """(slide title, the slide's Markdown section)."""
    title_shape = slide.shapes.title
    title = _one_line(title_shape.text_frame.text) if title_shape is not None else ""
    blocks = list(_blocks(_in_reading_order(slide.shapes), skip=title_shape))
    heading = f"## Slide {number}: {title}" if title else f"## Slide {number}"
    notes = _notes(slide)
    if notes:
        blocks += ["### Notes", *notes]
    return title, "\n\n".join([heading, *blocks])


def _in_reading_order(shapes: Iterable[Any]) -> list[Any]:
    """Top to bottom, then left to right (ties keep the file's order)."""
    return sorted(
        shapes, key=lambda s: (s.top if s.top is not None else -1, s.left if s.left is not None else -1)
    )


def _blocks(shapes: Iterable[Any], skip: Any) -> Iterator[str]:
    for shape in shapes:
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        kind = shape.placeholder_format.type if shape.is_placeholder else None
        if kind in _CHROME:
            continue
        if isinstance(shape, GroupShape):  # (`shape_type` raises on shapes python-pptx does not know)
            yield from _blocks(_in_reading_order(shape.shapes), skip=None)
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = [[_cell_text(cell) for cell in row.cells] for row in shape.table.rows]
            rows = [row for row in rows if any(cell.strip() for cell in row)]
            if rows:  # an empty first row is no header: the first with text is
                yield markdown_table(rows[0], rows[1:])
        elif getattr(shape, "has_chart", False) and shape.has_chart:
            chart = _chart(shape.chart)
            if chart:
                yield chart
        elif shape.has_text_frame:
            yield from _text_blocks(shape.text_frame.paragraphs, bulleted=kind in _BULLETED)


def _chart(chart: Any) -> str:
    """A chart's title and its data (categories × series) as a table: the numbers are the text."""
    try:
        title = _one_line(chart.chart_title.text_frame.text) if chart.has_title else ""
        plots = list(chart.plots)
        categories = [str(c) for c in plots[0].categories] if plots else []
        series = [s for plot in plots for s in plot.series]
        rows = [
            [category, *(cell_text(s.values[i]) if i < len(s.values) else "" for s in series)]
            for i, category in enumerate(categories)
        ]
        table = markdown_table(["Category", *(s.name or "" for s in series)], rows) if rows and series else ""
    except Exception:  # a chart python-pptx cannot read loses only itself
        return ""
    heading = f"Chart: {title}" if title else "Chart"
    return f"{heading}\n\n{table}" if table else (heading if title else "")


def _cell_text(cell: Any) -> str:
    return (
        "" if cell.is_spanned else "\n".join(p.text.replace("\v", "\n") for p in cell.text_frame.paragraphs)
    )


def _text_blocks(paragraphs: Iterable[Any], bulleted: bool) -> Iterator[str]:
    """Consecutive list items make one block; each plain paragraph is its own block."""
    items: list[str] = []
    for paragraph in paragraphs:
        text = paragraph.text.replace("\v", "\n").strip()
        if not text:
            continue
        marker = _bullet(paragraph, bulleted)
        if marker:
            items.append("  " * paragraph.level + marker + _one_line(text))
            continue
        if items:
            yield "\n".join(items)
            items = []
        yield "\n".join(_escape(line.strip()) for line in text.split("\n"))
    if items:
        yield "\n".join(items)


def _bullet(paragraph: Any, bulleted: bool) -> str:
    """'- ', '1. ' or '' (a plain paragraph), from the paragraph's own bullet setting, else the shape's."""
    props = paragraph._p.pPr
    if props is not None:
        if props.find(f"{_A}buNone") is not None:
            return ""
        if props.find(f"{_A}buAutoNum") is not None:
            return "1. "
        if props.find(f"{_A}buChar") is not None:
            return "- "
    return "- " if bulleted or paragraph.level > 0 else ""


def _notes(slide: Any) -> list[str]:
    if not slide.has_notes_slide:
        return []
    frame = slide.notes_slide.notes_text_frame
    if frame is None:
        return []
    return list(_text_blocks(frame.paragraphs, bulleted=False))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _escape(line: str) -> str:
    """A text line that would read as a heading or open a code fence is escaped, not structure."""
    return _MARKUP_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line)
