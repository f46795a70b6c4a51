"""Tables in `shu ask`'s output: a Markdown table in an answer (streamed in pieces or quoted)
is drawn as a table with its citations in it, never left as pipe text; document text in a cell
is not rich markup."""

from __future__ import annotations

from shu.answer.stream import AskEvent, StreamReset
from shu.serve.answer_tables import StreamedTables, print_markdown
from shu.serve.answer_view import show_streamed
from shu.serve.terminal import SafeConsole
from shu.types import Answer, AnswerSentence, Citation

PRO = "[^pricing:Pricing > Pro]"
TEAM = "[^pricing:Pricing > Team]"
REPLY = (
    "The two plans compared:\n\n"
    f"| Plan | Price | Requests |\n|---|---|---|\n| Pro | $65 per seat {PRO} | 1,200 a minute |\n"
    f"| Team | $30 per seat | 300 a minute | {TEAM}\n\n"
    f"Both are billed per seat. {PRO}"
)


def _console() -> SafeConsole:
    return SafeConsole(record=True, width=100, soft_wrap=True)


def _citation(key: str) -> Citation:
    section = key[2:-1].split(":", 1)[1]
    return Citation(key=key, doc_id="pricing", section_path=section, chunk_id="c", title="Pricing")


def _pieces(text: str, size: int = 3) -> list[AskEvent]:
    """The text as the stream yields it: a few characters at a time, each citation key whole."""
    pieces: list[AskEvent] = []
    while text:
        at = text.find("[^")
        if at == 0:
            end = text.index("]") + 1
            pieces.append(text[:end])
            text = text[end:]
        else:
            cut = size if at < 0 else min(size, at)
            pieces.append(text[:cut])
            text = text[cut:]
    return pieces


def _lines(out: SafeConsole) -> list[str]:
    return [line.rstrip() for line in out.export_text(clear=False).splitlines()]


def test_a_streamed_table_is_drawn_with_its_citations_in_its_rows() -> None:
    out = _console()
    final = Answer(
        question="Compare the plans",
        persona="p",
        text=REPLY,
        method="llm:scripted",
        citations=[_citation(PRO), _citation(TEAM)],
    )
    show_streamed([*_pieces(REPLY), final], out, "footnotes")
    lines = _lines(out)
    assert lines[0] == "The two plans compared:"
    header = next(line for line in lines if "Plan" in line and "Price" in line)
    assert header.startswith("│") and [cell.strip() for cell in header.strip("│").split("│")] == [
        "Plan",
        "Price",
        "Requests",
    ]
    assert any(line.startswith("┌") for line in lines) and any(line.startswith("└") for line in lines)
    assert any("│ Pro " in line and "$65 per seat [^1]" in line for line in lines)
    assert any("│ Team " in line and "300 a minute [^2]" in line for line in lines), "the key after the pipe"
    assert "Both are billed per seat. [^1]" in lines
    assert "[^1]: Pricing, §Pricing > Pro" in lines and "[^2]: Pricing, §Pricing > Team" in lines
    assert not any("---" in line or line.lstrip().startswith("|") for line in lines), "no pipe text left"


def test_a_withdrawn_table_is_never_drawn_and_a_line_of_pipes_that_is_no_table_is_kept() -> None:
    out = _console()
    final = Answer(question="q", persona="p", text="| a | b |\nno rule", method="llm:scripted", citations=[])
    draft: list[AskEvent] = ["| Draft | x |\n|--", StreamReset("the model failed")]
    show_streamed([*draft, *_pieces(final.text), final], out, "keys")
    text = out.export_text()
    assert "Draft" not in text and "┌" not in text
    assert "| a | b |\nno rule" in text


def test_quoted_rows_are_a_table_with_a_source_column_and_cells_are_not_markup() -> None:
    out = _console()
    rows = [
        AnswerSentence(text="Plan: Pro; Price: [bold red]$65[/bold red]", citations=[PRO]),
        AnswerSentence(text="Plan: Team; Price: <script>alert(1)</script>", citations=[TEAM]),
    ]
    final = Answer(
        question="q",
        persona="p",
        text="",
        method="extractive",
        sentences=rows,
        citations=[_citation(PRO), _citation(TEAM)],
    )
    show_streamed([final], out, "footnotes")
    lines = _lines(out)
    header = next(line for line in lines if "Plan" in line)
    assert [cell.strip() for cell in header.strip("│").split("│")] == ["Plan", "Price", "Source"]
    assert any("[bold red]$65[/bold red]" in line and "[^1]" in line for line in lines)
    assert any("<script>alert(1)</script>" in line and "[^2]" in line for line in lines)


def test_a_table_arriving_one_character_at_a_time_is_drawn_once() -> None:
    out = _console()
    written = StreamedTables(out)
    for char in "Intro\n| k | v |\n| -- | -- |\n| a | 1 |\n| b | 2 |":
        written.write(char)
    written.close()
    lines = _lines(out)
    assert lines[0] == "Intro" and sum(line.startswith("┌") for line in lines) == 1
    assert any("│ b " in line and "│ 2 " in line for line in lines)
    whole = _console()
    print_markdown(whole, "Intro\n| k | v |\n| -- | -- |\n| a | 1 |\n| b | 2 |")
    assert whole.export_text() == out.export_text(), "streamed or whole, the same table"
