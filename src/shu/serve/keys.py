"""`shu keys`: the server's users and their keys (made, listed, revoked). A key's token is
printed once, when it is made; the store keeps only its hash."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from shu.serve.console import emit_json, err, out, row, state
from shu.serve.console import open_from_state as open_kb

keys_app = typer.Typer(
    help="Users and their keys for `shu serve` (once a key exists, every request needs one)."
)


@keys_app.command("create")
def create(
    user: Annotated[str, typer.Option("--user", "-u", help="Who the key is for.")],
    personas: Annotated[
        str, typer.Option("--personas", "-p", help="Comma-separated persona slugs it reaches (default: all).")
    ] = "",
    admin: Annotated[bool, typer.Option("--admin", help="May also see stats and run jobs.")] = False,
    write: Annotated[
        list[str] | None,
        typer.Option(
            "--write", "-w", help="A persona whose documents it may upload, delete, re-ingest (repeat)."
        ),
    ] = None,
) -> None:
    """Make a key and print its token once (it cannot be shown again; only its hash is kept)."""
    slugs = [slug.strip() for slug in personas.split(",") if slug.strip()]
    with open_kb() as kb:
        key, token = kb.accounts.create_key(user, slugs, admin, write or [])
    if state.as_json:
        emit_json(key.model_dump() | {"token": token})
        return
    reach = ", ".join(key.personas) if key.personas else "every persona"
    writes = f", writes {', '.join(key.writes)}" if key.writes else ""
    err.print(
        f"key {key.id} for {escape(key.user)} ({reach}{writes}{', admin' if admin else ''}); shown once:"
    )
    out.print(token, highlight=False)


@keys_app.command("list")
def list_keys() -> None:
    """Every key: id, user, personas, admin, created, revoked (never a token)."""
    with open_kb() as kb:
        found = kb.accounts.api_keys()
    if state.as_json:
        emit_json([k.model_dump() for k in found])
        return
    if not found:
        out.print("No keys: `shu serve` is open to anyone who can reach it (loopback only).")
        return
    table = Table()
    for column in ("id", "user", "personas", "writes", "admin", "created", "revoked"):
        table.add_column(column, overflow="fold")
    for k in found:
        reach = ", ".join(k.personas) or "all"
        writes = "all" if k.admin else ", ".join(k.writes)
        row(
            table,
            k.id,
            k.user,
            reach,
            writes,
            "yes" if k.admin else "",
            k.created,
            "revoked" if k.revoked else "",
        )
    out.print(table)


@keys_app.command("revoke")
def revoke(key_id: Annotated[str, typer.Argument(help="The key's id (`shu keys list`).")]) -> None:
    """Revoke a key: every request with it gets 401 from now on."""
    with open_kb() as kb:
        revoked = kb.accounts.revoke_key(key_id)
    if state.as_json:
        emit_json(revoked.model_dump())
        return
    out.print(f"revoked: key {revoked.id} of {escape(revoked.user)}", highlight=False)
