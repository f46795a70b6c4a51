"""The command line's filter options (`--since 2026-01-01 --type email --tag billing`), shared by
`shu search` and `shu ask`, and the `DocumentFilter` they make. A value may be given again, or
as a comma list (`--type email,event`; not a person: "Marquez, Sofia" is one)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from pydantic import ValidationError

from shu.types import DocumentFilter

_DAY = ["%Y-%m-%d"]
_PANEL = "Filters"

Since = Annotated[
    datetime | None,
    typer.Option("--since", formats=_DAY, help="Documents dated this day or later.", rich_help_panel=_PANEL),
]
Until = Annotated[
    datetime | None,
    typer.Option(
        "--until", formats=_DAY, help="Documents dated this day or earlier.", rich_help_panel=_PANEL
    ),
]
Types = Annotated[
    list[str] | None,
    typer.Option("--type", help="Documents of this type (email, event, …).", rich_help_panel=_PANEL),
]
Tags = Annotated[
    list[str] | None, typer.Option("--tag", help="Documents with this tag.", rich_help_panel=_PANEL)
]
People = Annotated[
    list[str] | None,
    typer.Option(
        "--person",
        help="Documents this person wrote, sent, received or took part in (name or address).",
        rich_help_panel=_PANEL,
    ),
]
Sources = Annotated[
    list[str] | None,
    typer.Option(
        "--source", help="Documents in this file or folder of the knowledge base.", rich_help_panel=_PANEL
    ),
]
DocIds = Annotated[
    list[str] | None, typer.Option("--doc", help="This document only (by id).", rich_help_panel=_PANEL)
]


def document_filter(
    since: datetime | None,
    until: datetime | None,
    types: list[str] | None,
    tags: list[str] | None,
    people: list[str] | None,
    sources: list[str] | None,
    doc_ids: list[str] | None,
) -> DocumentFilter | None:
    """The filter the options give; None when none was given. A bad combination (since after
    until) is a usage error naming it."""
    try:
        made = DocumentFilter(
            since=since.date() if since else None,
            until=until.date() if until else None,
            types=_split(types),
            tags=_split(tags),
            people=tuple(people or ()),  # "Marquez, Sofia" is one person
            sources=_split(sources),
            doc_ids=_split(doc_ids),
        )
    except ValidationError as exc:
        reasons = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        raise typer.BadParameter(reasons) from None
    return None if made.empty else made


def _split(values: list[str] | None) -> tuple[str, ...]:
    """Repeated options and comma lists, in order."""
    return tuple(part.strip() for value in values or [] for part in value.split(",") if part.strip())
