"""Tables in answers: pipe tables read as the web page reads them, and the reader's quoted
table rows gathered back into a table with their citations."""

from __future__ import annotations

from shu.answer.render import render_answer, shown_text
from shu.answer.tables import Table, blocks, cells, fields, needs_gathering, quoted_markdown
from shu.types import Answer, AnswerSentence, Citation

PRICES = "[^pricing:Pricing > Plans]"
LIMITS = "[^limits:Limits > Per plan | burst]"


def _citation(key: str) -> Citation:
    doc_id, section = key[2:-1].split(":", 1)
    return Citation(key=key, doc_id=doc_id, section_path=section, chunk_id="c", title=doc_id.title())


def test_cells_keep_citation_keys_and_escaped_pipes_whole() -> None:
    assert cells(f"| Pro | a \\| b | 1,200 {LIMITS} |") == ["Pro", "a | b", f"1,200 {LIMITS}"]


def test_a_table_between_text_and_a_citation_after_the_closing_pipe_stays_on_its_row() -> None:
    text = f"Compared:\n\n| Plan | Price |\n| :--- | ---: |\n| Pro | $65 | {PRICES}\n| Team |\nAfter."
    assert blocks(text) == [
        "Compared:\n",
        Table(["Plan", "Price"], [["Pro", f"$65 {PRICES}"], ["Team", ""]]),
        "After.",
    ]
    assert blocks("| only a row of pipes |\nand text") == ["| only a row of pipes |\nand text"]


def test_fields_read_a_spelled_out_row_and_nothing_else() -> None:
    assert fields("Plan: Pro; Price: $65 per seat") == [("Plan", "Pro"), ("Price", "$65 per seat")]
    assert fields("Note: the Pro plan costs $65.") is None
    assert fields("The plan costs $65; the team plan costs $30.") is None
    # a cell that holds "; " stays one cell
    assert fields("Code: SAML-003; Typical fix: Check server clocks; retry the login.") == [
        ("Code", "SAML-003"),
        ("Typical fix", "Check server clocks; retry the login."),
    ]


def test_rows_from_one_table_become_a_table_with_a_source_column() -> None:
    sentences = [
        AnswerSentence(text="Plans are billed per seat.", citations=[PRICES]),
        AnswerSentence(text="Plan: Pro; Price: $65 | annual", citations=[PRICES]),
        AnswerSentence(text="Plan: Team; Price: $30", citations=[LIMITS]),
    ]
    listed = quoted_markdown(sentences, between="\n", bullet="- ")
    assert listed == (
        f"- Plans are billed per seat. {PRICES}\n\n"
        "| Plan | Price | Source |\n| --- | --- | --- |\n"
        f"| Pro | $65 \\| annual | {PRICES} |\n| Team | $30 | {LIMITS} |"
    )
    assert blocks(listed)[1] == Table(
        ["Plan", "Price", "Source"], [["Pro", "$65 | annual", PRICES], ["Team", "$30", LIMITS]]
    )


def test_an_answer_shows_its_rows_as_a_table_and_a_quoted_table_with_its_citation_under_it() -> None:
    prices = (("Pro", "$65"), ("Team", "$30"))
    rows = [AnswerSentence(text=f"Plan: {p}; Price: {c}", citations=[PRICES]) for p, c in prices]
    answer = Answer(
        question="q",
        persona="p",
        text="unused",
        method="extractive",
        sentences=rows,
        citations=[_citation(PRICES)],
    )
    assert shown_text(answer).startswith("| Plan | Price | Source |\n| --- | --- | --- |\n| Pro | $65 |")
    assert "| Team | $30 | [^1] |" in render_answer(answer)
    table = AnswerSentence(text="Plans\n| Plan | Price |\n| --- | --- |\n| Pro | $65 |", citations=[PRICES])
    whole = answer.model_copy(update={"sentences": [table], "method": "full_document"})
    assert render_answer(whole, "keys").startswith(f"{table.text}\n\n{PRICES}\n\nSources:")
    plain = answer.model_copy(update={"sentences": [AnswerSentence(text="Just prose.", citations=[PRICES])]})
    assert shown_text(plain) == "unused" and render_answer(plain).startswith("- Just prose. [^1]\n\n[^1]:")


def test_a_yes_no_verdict_before_a_row_is_said_before_the_table_not_made_a_column() -> None:
    sentences = [AnswerSentence(text="No: Feature: SSO; Starter: No; Pro: Yes", citations=[PRICES])]
    shown = quoted_markdown(sentences, between="\n", bullet="- ")
    table = f"| Feature | Starter | Pro | Source |\n| --- | --- | --- | --- |\n| SSO | No | Yes | {PRICES} |"
    assert shown == f"No:\n\n{table}"


def test_the_lines_after_a_lead_in_stay_lines_even_when_one_reads_as_a_row() -> None:
    sentences = [
        AnswerSentence(text="2 documents cover tiller:"),
        AnswerSentence(
            text="**Tool Shed Rules**: Tool: Rotary tiller; Who may use it: trained members",
            citations=["[^a:x]"],
        ),
        AnswerSentence(text="**Minutes**: a tiller safety rule was approved.", citations=["[^b:y]"]),
    ]
    assert not needs_gathering(sentences)
    shown = quoted_markdown(sentences, between="\n", bullet="- ")
    assert shown.splitlines() == [
        "2 documents cover tiller:",
        "",
        "- **Tool Shed Rules**: Tool: Rotary tiller; Who may use it: trained members [^a:x]",
        "- **Minutes**: a tiller safety rule was approved. [^b:y]",
    ]
