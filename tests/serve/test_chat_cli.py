"""`shu chat` and `shu conversations`, driven as a user would: a follow-up answered standing alone,
the thread kept, continued by `shu ask --conversation`, listed, shown, exported and deleted."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from shu.serve.cli import app
from tests.conftest import PersonaMaker, doc

runner = CliRunner()
PLANS = doc(
    "plans",
    "Plans",
    "# Plans\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n"
    "## Team\n\nThe Team plan costs $99 per seat per month.",
)


def shu(home: Path, *args: str, typed: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), *args], input=typed)
    return result.exit_code, result.output


def test_a_chat_is_kept_continued_exported_and_deleted(tmp_path: Path, make_persona: PersonaMaker) -> None:
    home = tmp_path / "home"
    assert shu(home, "ingest", str(make_persona("shop", rag={"plans.md": PLANS}).parent))[0] == 0
    code, output = shu(
        home, "chat", "-p", "shop", typed="What does the Pro plan cost?\nand the Team plan?\n\n"
    )
    assert code == 0, output
    assert "$65" in output and "$99" in output
    assert "(searched as: What does the Team plan cost?)" in output
    code, output = shu(home, "--json", "conversations", "list")
    (listed,) = json.loads(output)
    assert (listed["persona"], listed["turns"], listed["title"]) == (
        "shop",
        2,
        "What does the Pro plan cost?",
    )
    thread = listed["id"]
    code, output = shu(home, "ask", "and the Pro plan?", "-p", "shop", "--conversation", thread)
    assert code == 0 and "$65" in output, output
    exported = tmp_path / "chat.md"
    assert shu(home, "conversations", "export", thread, "-o", str(exported))[0] == 0
    markdown = exported.read_text(encoding="utf-8")
    assert markdown.count("**Q:**") == 3 and "[^1]: Plans" in markdown
    assert shu(home, "conversations", "rename", thread, "Prices")[0] == 0
    code, output = shu(home, "conversations", "show", thread)
    assert output.startswith("# Prices") and "searched as: What does the Pro plan cost?" in output
    assert shu(home, "conversations", "rm", thread)[0] == 0
    code, output = shu(home, "conversations", "show", thread)
    assert code != 0 and f"no conversation '{thread}'" in output


def test_an_unknown_conversation_or_persona_is_one_line(tmp_path: Path, make_persona: PersonaMaker) -> None:
    home = tmp_path / "home"
    shu(home, "ingest", str(make_persona("shop", rag={"plans.md": PLANS}).parent))
    code, output = shu(home, "ask", "and the Team plan?", "-p", "shop", "--conversation", "nope")
    assert code == 2 and "no conversation 'nope'" in output and "Traceback" not in output
    code, output = shu(home, "chat", "-p", "nobody", typed="hello\n")
    assert code == 2 and "unknown persona 'nobody'" in output


def test_a_table_in_a_shown_conversation_is_drawn_not_piped(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    from shu.kb import open_kb
    from shu.types import Answer

    home = tmp_path / "home"
    shu(home, "ingest", str(make_persona("shop", rag={"plans.md": PLANS}).parent))
    table = "Plans side by side:\n\n| Plan | Price |\n| --- | --- |\n| Pro | $65 |\n| Team | $99 |"
    with open_kb(home) as kb:
        thread = kb.conversations.start("local", "shop")
        answer = Answer(question="Compare the plans", persona="shop", text=table, method="llm:test")
        kb.conversations.record(thread, "Compare the plans", None, answer)
    code, output = shu(home, "conversations", "show", thread.id)
    assert code == 0 and "Pro" in output and "$99" in output
    assert "| --- |" not in output and "| Pro |" not in output, output
    assert "┌" in output or "+" in output, "drawn as a table"
