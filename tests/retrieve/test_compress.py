"""A section over the context budget is summarised for the question — its closest sentences in
the order written, gaps marked, a table's header with its rows — not cut at a word; a code block
is still cut."""

from __future__ import annotations

from shu.kb import KnowledgeBase
from shu.retrieve.compress import GAP, compressed
from shu.text import count_tokens
from tests.conftest import PersonaMaker, doc

POLICY = (
    "The backup policy covers every system we run. The office closes at 6 pm on Fridays. "
    "Visitors sign in at the front desk. The database is backed up every night at 02:00. "
    "Laptops are not backed up centrally. Parking is free after 7 pm."
)


def test_the_sentences_closest_to_the_question_are_kept_in_order_with_the_gaps_marked() -> None:
    summary = compressed(POLICY, 30, "When is the database backed up?")
    assert summary is not None and count_tokens(summary) <= 30
    assert "The database is backed up every night at 02:00." in summary
    assert "Parking" not in summary and "Visitors" not in summary
    assert (
        summary
        == f"{GAP} The database is backed up every night at 02:00. Laptops are not backed up centrally. {GAP}"
    )


def test_a_table_row_comes_with_its_header_and_a_code_block_is_left_to_the_cut() -> None:
    table = (
        "Retention by system.\n\n| System | Backup | Kept |\n| --- | --- | --- |\n"
        "| Database | nightly | 35 days |\n| Wiki | weekly | 90 days |\n| Mail | none | never |\n\n"
        "Restores are tested monthly by the on-call team."
    )
    summary = compressed(table, 40, "How long is the wiki backup kept?")
    assert summary is not None and "| Wiki | weekly | 90 days |" in summary
    assert "| System | Backup | Kept |\n| --- | --- | --- |" in summary, "the header with its row"
    assert compressed("Run this:\n\n```\nmake all\nmake test\n```\n\nThen wait.", 5, "make") is None
    assert compressed("One sentence only, and it is long enough.", 3, "sentence") is None


def test_the_context_summarises_a_section_over_the_budget_instead_of_cutting_it(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    body = "# Office\n\n## Notes\n\n" + POLICY
    assert not kb.ingest(make_persona("ops", rag={"office.md": doc("office", "Office", body)})).failed
    question = "When is the database backed up?"
    result = kb.retrieve(question, persona="ops")
    from shu.retrieve.assemble import AssemblyRequest, assemble

    small = assemble(kb.store, AssemblyRequest(hits=result.hits, budget=30, question=question))
    text = small.documents[0].sections[0].text
    assert "02:00" in text and GAP in text and not small.documents[0].full
    cut = assemble(kb.store, AssemblyRequest(hits=result.hits, budget=30, question=question, compress=False))
    assert "02:00" not in cut.documents[0].sections[0].text, "cut at a word, the fact is lost"
