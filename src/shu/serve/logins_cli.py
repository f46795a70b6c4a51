"""`shu users add/passwd/lock/unlock/access/logins`: the people who sign in to the web page with a
name and a password (API keys stay for programs), and which personas each may read or write."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from shu.accounts.logins import Logins
from shu.kb import KnowledgeBase
from shu.serve.console import emit_json, out, state
from shu.serve.console import open_from_state as open_kb
from shu.types import Login

Personas = Annotated[list[str] | None, typer.Option(help="A persona; repeat for several.")]
logins_app = typer.Typer()
"""Commands `shu users` takes in (users_cli.py adds them to its own)."""

FromStdin = Annotated[bool, typer.Option("--password-stdin", help="Read the password from standard input.")]


@logins_app.command("add")
def add(
    user: Annotated[str, typer.Argument(help="The name one signs in with.")],
    read: Personas = None,
    write: Personas = None,
    admin: Annotated[bool, typer.Option("--admin", help="Every persona, and the users' page.")] = False,
    password_stdin: FromStdin = False,
) -> None:
    """Let a user sign in to the web page with a password (asked twice, or --password-stdin),
    reading the --read personas and changing the --write ones."""
    password = _password(password_stdin)
    with open_kb() as kb:
        _show(logins_of(kb).add(user, password, read or [], write or [], admin))


@logins_app.command("passwd")
def passwd(user: Annotated[str, typer.Argument(help="Who.")], password_stdin: FromStdin = False) -> None:
    """A new password; every session of the user ends and a lockout is lifted."""
    password = _password(password_stdin)
    with open_kb() as kb:
        _show(logins_of(kb).set_password(user, password))


@logins_app.command("access")
def access(
    user: Annotated[str, typer.Argument(help="Who.")],
    read: Personas = None,
    write: Personas = None,
    admin: Annotated[bool | None, typer.Option("--admin/--no-admin", help="Whether an admin.")] = None,
) -> None:
    """Replace the personas a user may read and write (what is written is read too)."""
    with open_kb() as kb:
        _show(logins_of(kb).set_personas(user, read or [], write or [], admin))


@logins_app.command("lock")
def lock(user: Annotated[str, typer.Argument(help="Who.")]) -> None:
    """Refuse a user's sign-in until unlocked; their sessions end now."""
    with open_kb() as kb:
        _show(logins_of(kb).lock(user))


@logins_app.command("unlock")
def unlock(user: Annotated[str, typer.Argument(help="Who.")]) -> None:
    """Lift a lock, an admin's or one of too many wrong passwords."""
    with open_kb() as kb:
        _show(logins_of(kb).unlock(user))


@logins_app.command("logins")
def logins() -> None:
    """The users who sign in, with their personas."""
    with open_kb() as kb:
        found = logins_of(kb).users()
    if state.as_json:
        emit_json([login.model_dump() for login in found])
        return
    if not found:
        out.print("No one signs in yet (`shu users add NAME`).")
    for login in found:
        _show(login)


def logins_of(kb: KnowledgeBase) -> Logins:
    return kb.logins


def _show(login: Login) -> None:
    if state.as_json:
        emit_json(login.model_dump())
        return
    reach = "every persona (admin)" if login.admin else ", ".join(login.reads) or "no persona"
    line = f"{login.name}: reads {reach}; writes {', '.join(login.writes) or 'nothing'}"
    if login.locked:
        line += "; locked"
    elif login.locked_until:
        line += f"; locked until {login.locked_until}"
    out.print(escape(line), highlight=False)


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return str(password)
