"""`shu chat`: a conversation with a persona in the terminal (each follow-up searched standing
alone, the thread kept in the store), and `shu conversations` to list, show, export, rename and
delete them. Without a server, the conversations are the local user's (`--as` names another)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from shu.conversations import LOCAL_USER, export_markdown
from shu.kb import KnowledgeBase
from shu.serve.answer_tables import print_markdown
from shu.serve.answer_view import show_streamed
from shu.serve.console import emit_json, fail, out, row, state
from shu.serve.console import open_from_state as open_kb

conversations_app = typer.Typer(help="Your conversations with a persona (`shu chat`), kept in the store.")

AsUser = Annotated[str | None, typer.Option("--as", help="Whose conversations (default: the local user's).")]
_QUIT = {"/quit", "/exit", "/q"}
_HELP = "ask a question; /new starts another conversation, /history shows this one, an empty line ends"


def chat(
    persona: Annotated[str, typer.Option("--persona", "-p", help="Persona slug.")],
    conversation: Annotated[
        str | None,
        typer.Option("--conversation", "-c", help="Continue this conversation (`shu conversations`)."),
    ] = None,
    as_user: AsUser = None,
) -> None:
    """Talk with a persona: each question is answered with citations, and a follow-up ("and the
    Team plan?", "who approved it?") is searched standing alone from the turn before (shown as
    "searched as"). The conversation is kept: continue it later with --conversation."""
    user = as_user or LOCAL_USER
    with open_kb() as kb:
        kb.persona(persona)
        thread = kb.conversations.get(conversation, user, persona) if conversation else None
        thread = thread or kb.conversations.start(user, persona)
        out.print(f"[dim]conversation {thread.id} with {escape(persona)} — {_HELP}[/]")
        while (question := _next_question()) is not None:
            if question == "/new":
                thread = kb.conversations.start(user, persona)
                out.print(f"[dim]conversation {thread.id}[/]")
            elif question == "/history":
                _show_history(kb, thread.id, user)
            else:
                _answer(kb, question, persona, user, thread.id)


def _next_question() -> str | None:
    """The next line typed (None at the end: an empty line, /quit, end of input)."""
    if sys.stdin.isatty():
        out.print("[bold]?[/] ", end="")
    line = sys.stdin.readline()
    question = line.strip()
    return None if not question or question.lower() in _QUIT else question


def _answer(kb: KnowledgeBase, question: str, persona: str, user: str, thread: str) -> None:
    style = kb.settings.answer.citation_style
    events = kb.ask_stream(question, persona, user=None if user == LOCAL_USER else user, conversation=thread)
    answer = show_streamed(events, out, style)
    if answer.standalone_question:
        out.print(f"[dim](searched as: {escape(answer.standalone_question)})[/]")


def _show_history(kb: KnowledgeBase, conversation: str, user: str) -> None:
    for turn in kb.conversations.get(conversation, user).turns:
        out.print(f"[bold]?[/] {escape(turn.question)}")
        out.print(escape(turn.answer))


@conversations_app.command("list")
def list_conversations(
    persona: Annotated[str | None, typer.Option("--persona", "-p", help="Only this persona's.")] = None,
    as_user: AsUser = None,
) -> None:
    """Your conversations, most recently continued first."""
    with open_kb() as kb:
        found = kb.conversations.of(as_user or LOCAL_USER, persona)
        if state.as_json:
            emit_json([c.model_dump(exclude={"turns"}) | {"turns": len(c.turns)} for c in found])
            return
        table = Table("id", "persona", "title", "turns", "updated")
        for c in found:
            row(table, c.id, c.persona, c.title, str(len(c.turns)), c.updated)
        out.print(table)


@conversations_app.command("show")
def show_conversation(
    conversation: Annotated[str, typer.Argument(help="Its id.")], as_user: AsUser = None
) -> None:
    """A conversation, each answer's sources as footnotes and its tables drawn (`export` writes
    the Markdown)."""
    with open_kb() as kb:
        found = kb.conversations.get(conversation, as_user or LOCAL_USER)
        if state.as_json:
            emit_json(found.model_dump())
            return
        print_markdown(out, export_markdown(found))


@conversations_app.command("export")
def export_conversation(
    conversation: Annotated[str, typer.Argument(help="Its id.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The Markdown file to write.")],
    as_user: AsUser = None,
) -> None:
    """Write a conversation to a Markdown file (footnotes for its sources)."""
    with open_kb() as kb:
        markdown = export_markdown(kb.conversations.get(conversation, as_user or LOCAL_USER))
    try:
        output.write_text(markdown, encoding="utf-8")
    except OSError as exc:
        fail(f"{output}: {exc.strerror or exc}")
    out.print(f"written to {escape(str(output))}")


@conversations_app.command("rename")
def rename_conversation(
    conversation: Annotated[str, typer.Argument(help="Its id.")],
    title: Annotated[str, typer.Argument(help="The new title.")],
    as_user: AsUser = None,
) -> None:
    with open_kb() as kb:
        kb.conversations.rename(conversation, as_user or LOCAL_USER, title)
    out.print("renamed")


@conversations_app.command("rm")
def delete_conversation(
    conversation: Annotated[str, typer.Argument(help="Its id.")], as_user: AsUser = None
) -> None:
    """Delete a conversation (its turns with it)."""
    with open_kb() as kb:
        kb.conversations.delete(conversation, as_user or LOCAL_USER)
    out.print("deleted")
