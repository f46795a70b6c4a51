"""`shu users`: profiles of the people who ask — set by hand, learned, shown, exported and
forgotten (everything about a user: profile, signals, keys)."""

from __future__ import annotations

from typing import Annotated, Any, cast

import typer
from rich.markup import escape
from rich.table import Table

from shu.serve.console import emit_json, out, row, state
from shu.serve.console import open_from_state as open_kb
from shu.types import UserProfile

users_app = typer.Typer(help="Who is asking: profiles that personalize retrieval (kept in this store only).")

Many = Annotated[list[str] | None, typer.Option(help="Repeat for several.")]


@users_app.command("set")
def set_user(
    user: Annotated[str, typer.Argument(help="The user's id (a key's --user).")],
    name: Annotated[str | None, typer.Option(help="Full name.")] = None,
    email: Many = None,
    role: Many = None,
    project: Many = None,
    interest: Many = None,
    contact: Annotated[list[str] | None, typer.Option(help='"Name <address>"; repeat for several.')] = None,
    prefer: Annotated[str | None, typer.Option(help="detail or summary.")] = None,
) -> None:
    """Create or change a profile by hand; lists given replace the hand-set ones, learned items stay."""
    given: dict[str, Any] = {
        key: value
        for key, value in (
            ("name", name),
            ("emails", email),
            ("roles", role),
            ("projects", project),
            ("interests", interest),
            ("contacts", contact),
        )
        if value is not None
    }
    if prefer is not None:
        if prefer not in ("detail", "summary"):
            raise typer.BadParameter("detail or summary", param_hint="--prefer")
        given["preferences"] = {"detail": prefer}
    with open_kb() as kb:
        _show(kb.accounts.set_user(user, given))


@users_app.command("show")
def show(user: Annotated[str, typer.Argument(help="The user's id.")]) -> None:
    """A profile with where each learned item came from."""
    with open_kb() as kb:
        _show(kb.accounts.user(user))


@users_app.command("learn")
def learn(user: Annotated[str, typer.Argument(help="The user's id.")]) -> None:
    """Learn contacts (e-mail traffic, meetings), projects and interests (the user's signals) again."""
    with open_kb() as kb:
        _show(kb.accounts.learn_user(user))


@users_app.command("learning")
def learning(
    user: Annotated[str, typer.Argument(help="The user's id.")],
    on: Annotated[str, typer.Argument(help="on (follow the knowledge base) or off (pause).")],
) -> None:
    """Pause (off) or resume (on) a profile's learning from each ingestion run and the user's
    signals; resuming learns at once."""
    if on not in ("on", "off"):
        raise typer.BadParameter("on or off", param_hint="ON")
    with open_kb() as kb:
        _show(kb.accounts.set_learning(user, on == "on"))


@users_app.command("reset")
def reset(user: Annotated[str, typer.Argument(help="The user's id.")]) -> None:
    """Drop what was learned about a user (what was set by hand stays)."""
    with open_kb() as kb:
        _show(kb.accounts.reset_learning(user))


@users_app.command("list")
def list_users() -> None:
    with open_kb() as kb:
        found = kb.accounts.users()
    if state.as_json:
        emit_json(found)
        return
    out.print("\n".join(escape(u) for u in found) if found else "No user profiles.", highlight=False)


@users_app.command("export")
def export(user: Annotated[str, typer.Argument(help="The user's id.")]) -> None:
    """Everything kept about a user, as JSON: profile, signals, keys (never a secret)."""
    with open_kb() as kb:
        emit_json(kb.accounts.export_user(user))


@users_app.command("forget")
def forget(
    user: Annotated[str, typer.Argument(help="The user's id.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False,
) -> None:
    """Delete everything about a user: profile, signals and keys."""
    if not yes and not typer.confirm(f"Delete the profile, signals and keys of {user}?"):
        raise typer.Exit(1)
    with open_kb() as kb:
        removed = kb.accounts.forget_user(user)
    if state.as_json:
        emit_json(removed)
        return
    counts = f"{removed['profile']} profile, {removed['signals']} signals, {removed['keys']} keys"
    out.print(f"forgot {escape(user)}: {counts}", highlight=False)


@users_app.command("feedback")
def feedback(
    user: Annotated[str, typer.Argument(help="Whose signal it is.")],
    kind: Annotated[str, typer.Option("--kind", "-k", help="up, down, star, unstar, opened or escalated.")],
    persona: Annotated[str, typer.Option("--persona", "-p", help="Persona slug.")],
    doc: Annotated[str | None, typer.Option("--doc", help="The document it is about.")] = None,
    question: Annotated[str, typer.Option(help="The question it is about.")] = "",
) -> None:
    """Record a signal of a user (thumbs, a star, a document opened) for their personal ranking."""
    from shu.types import Signal, SignalKind

    if kind not in ("up", "down", "star", "unstar", "opened", "escalated"):
        raise typer.BadParameter("up, down, star, unstar, opened or escalated", param_hint="--kind")
    with open_kb() as kb:
        kb.accounts.user(user)  # an unknown user is an error, not a new one
        signal = cast("SignalKind", kind)  # one of the kinds checked above
        stored = kb.accounts.feedback(
            Signal(user=user, persona=persona, kind=signal, doc_id=doc, question=question)
        )
    if state.as_json:
        emit_json(stored.model_dump())
        return
    out.print(f"recorded: {escape(stored.kind)} by {escape(user)}", highlight=False)


def _show(profile: UserProfile) -> None:
    if state.as_json:
        emit_json(profile.model_dump())
        return
    roles, emails = ", ".join(profile.roles) or "-", ", ".join(profile.emails) or "-"
    summary = f"{profile.id}: {profile.name or '(no name)'}; roles {roles}; e-mail {emails}"
    out.print(escape(f"{summary}; preferences {profile.preferences or '-'}"), highlight=False)
    learned = f"last learned {profile.learned}" if profile.learned else "nothing learned yet"
    out.print(f"learning {'on' if profile.learning else 'paused'}; {learned}", highlight=False)
    table = Table()
    for column in ("kind", "value", "weight", "last", "mutual", "from", "updated"):
        table.add_column(column, overflow="fold")
    for c in profile.contacts:
        shown = f"{c.name} <{c.email}>" if c.name and c.email else c.name or c.email or ""
        row(
            table,
            "contact",
            shown,
            f"{c.affinity:.2f}",
            c.recency or "",
            _number(c.reciprocity),
            c.source,
            c.updated,
        )
    for kind, items in (("project", profile.projects), ("interest", profile.interests)):
        for item in items:
            row(table, kind, item.value, f"{item.weight:.2f}", "", "", item.source, item.updated)
    work = profile.work
    for absence in work.absences:
        shown = f"{absence.start} – {absence.end} ({absence.reason})"
        row(table, "away", shown, "", "", "", absence.doc_id, work.updated)
    out.print(table)
    if work.hours is not None:
        days = ", ".join(_DAYS[d] for d in work.weekdays) or "-"
        out.print(f"works {work.hours[0]}–{work.hours[1]}h on {days}", highlight=False)


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _add_login_commands() -> None:
    """`shu users add/passwd/access/lock/unlock/logins` (logins_cli.py): who signs in."""
    from shu.serve.logins_cli import logins_app

    users_app.registered_commands.extend(logins_app.registered_commands)


_add_login_commands()
