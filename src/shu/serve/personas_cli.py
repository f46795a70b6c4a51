"""`shu personas`: the personas in the store; `shu personas suggest SLUG` proposes tags and aliases
for a persona's `persona.config.json` from its documents, for a person to accept (the file itself
is never written: `--write` puts the suggestion beside it)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from shu.ingest.personas import CONFIG_FILE
from shu.serve.console import emit_json, out, row, show_whole, state
from shu.serve.console import open_from_state as open_kb

SUGGESTED_FILE = "persona.config.suggested.json"

personas_app = typer.Typer(
    help="List the personas in the store; `shu personas suggest SLUG` proposes config tags and aliases.",
    invoke_without_command=True,
)


@personas_app.callback()
def personas(ctx: typer.Context) -> None:
    """List the personas in the store."""
    if ctx.invoked_subcommand is not None:
        return
    with open_kb() as kb:
        found = kb.personas()
        counts = {p.slug: len(kb.documents(p.slug)) for p in found}
    if state.as_json:
        emit_json([p.model_dump() | {"documents": counts[p.slug]} for p in found])
        return
    table = Table("slug", "name", "documents", "tags")
    for p in found:
        row(table, p.slug, p.display_name, str(counts[p.slug]), ", ".join(p.config.tags))
    out.print(table)


@personas_app.command("suggest")
def suggest(
    slug: Annotated[str, typer.Argument(help="The persona's slug.")],
    write: Annotated[
        bool,
        typer.Option("--write", help=f"Write {SUGGESTED_FILE} beside the persona's {CONFIG_FILE}."),
    ] = False,
) -> None:
    """Suggest a persona.config.json from the persona's documents, for a person to accept.

    The curated tags, aliases and retrieval values are kept; the frontmatter tags several
    documents carry and the abbreviations they define are added, each with why."""
    with open_kb() as kb:
        suggestion = kb.suggest_persona_config(slug)
        written = _write(kb.persona_folder(slug), suggestion.as_json()["config"]) if write else None
    if state.as_json:
        emit_json(suggestion.as_json())
        return
    emit_json(suggestion.as_json()["config"])
    if not suggestion.documents:
        out.print(f"persona {escape(slug)!r} has no documents: its curated config, nothing added")
    elif not suggestion.added_tags and not suggestion.added_aliases:
        out.print(f"nothing to add from {suggestion.documents} documents")
    else:
        table = Table()
        for column in ("added", "value", "why", "documents", "e.g."):
            table.add_column(column, overflow="fold")
        for tag in suggestion.added_tags:
            reason = suggestion.tags[tag]
            row(table, "tag", tag, reason.source, str(reason.documents), ", ".join(reason.examples))
        for short, long in suggestion.added_aliases.items():
            reason = suggestion.aliases[short]
            cells = (reason.source, str(reason.documents), ", ".join(reason.examples))
            row(table, "alias", f"{short} → {long}", *cells)
        show_whole(table)
    if written is not None:
        out.print(f"wrote {escape(str(written))} ({CONFIG_FILE} unchanged)", highlight=False)


def _write(folder: Path, config: object) -> Path:
    """The suggestion as `persona.config.suggested.json` in `folder`: written beside, then put in
    place (a link by that name is replaced, never written through)."""
    target = folder / SUGGESTED_FILE
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=folder, prefix=".suggested-", suffix=".json", delete=False
    ) as temporary:
        try:
            temporary.write(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        except BaseException:
            temporary.close()
            os.unlink(temporary.name)
            raise
    os.replace(temporary.name, target)
    return target
