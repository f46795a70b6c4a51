"""The rows of a table a list question's condition keeps, over all of a long table's sections."""

from __future__ import annotations

from shu.answer.extractive.lists import Row, Table, best_listing, listings
from shu.answer.extractive.row_filter import kept_rows
from shu.types import ContextSection

HEADER = "| Date | Machine | Work | Cost (GBP) |\n|---|---|---|---|\n"
LOG = [
    ContextSection(
        section_path="Log > Maintenance > Rows 1–2",
        text=HEADER
        + "| 2026-01-14 | Press 1 | Roller change | 640 |\n| 2026-02-03 | Guillotine | Blade | 210 |",
        chunk_ids=["log#1"],
    ),
    ContextSection(
        section_path="Log > Maintenance > Rows 3–4",
        text=HEADER
        + "| 2026-04-22 | Digital press | Fuser unit | 1,240 |\n| 2026-05-15 | Press 2 | Bearing | 4,860 |",
        chunk_ids=["log#2"],
    ),
]
PAPERS = Table(
    ("Code", "Paper", "Supplier"),
    tuple(
        Row(cells, LOG[0])
        for cells in (
            ("MS-150", "Mallory Silk 150", "Mallory Mills"),
            ("NC-120", "Nordcoat Recycled 120", "Nordic Fibre"),
            ("KL-450", "Kraftline Carton 450", "Nordic Fibre"),
        )
    ),
)


def test_an_amount_condition_keeps_the_rows_of_every_section_it_holds_for() -> None:
    question = "Which jobs in the maintenance log cost more than 1,000 GBP?"
    listing = best_listing(question, listings(LOG))
    assert listing is not None and listing.table is not None
    kept = kept_rows(question, listing.table)
    assert kept is not None and [row.cells[1] for row in kept] == ["Digital press", "Press 2"]
    assert [row.section for row in kept] == [LOG[1], LOG[1]]
    cheap = kept_rows("Which jobs cost under 500 GBP?", listing.table)
    assert cheap is not None and [row.cells[1] for row in cheap] == ["Guillotine"]


def test_a_name_one_column_holds_keeps_its_rows() -> None:
    kept = kept_rows("Which papers do we buy from Nordic Fibre?", PAPERS)
    assert kept is not None and [row.cells[0] for row in kept] == ["NC-120", "KL-450"]


def test_a_name_several_columns_mention_keeps_the_rows_it_keys() -> None:
    plans = Table(
        ("Plan", "Alerts per workspace", "Channels"),
        tuple(
            Row(cells, LOG[0])
            for cells in (
                ("Starter", "5", "E-mail, Slack"),
                ("Team", "50", "E-mail, Slack, Microsoft Teams, webhook"),
                ("Pro", "Unlimited", "All Team channels plus PagerDuty"),
            )
        ),
    )
    kept = kept_rows("Which channels can Team plan alerts use?", plans)
    assert kept is not None and [row.cells[0] for row in kept] == ["Team"]
    mentioned = Table(
        ("Plan", "Notes"), (Row(("Pro", "as Team"), LOG[0]), Row(("Max", "Team and more"), LOG[0]))
    )
    assert kept_rows("Which plans include Team?", mentioned) is None, "one column mentions it: every row"


def test_no_condition_or_one_every_row_meets_keeps_nothing_here() -> None:
    assert kept_rows("Which papers are on our price list?", PAPERS) is None
    assert kept_rows("Which papers cost more than 1,000 GBP?", PAPERS) is None  # no column of costs
    assert kept_rows("Which papers do we buy from Acme?", PAPERS) is None
    actions = Table(
        ("Action", "Due"),
        (Row(("Order a bearing", "29 May 2026"), LOG[0]), Row(("Fit a sounder", "3 June 2026"), LOG[0])),
    )
    assert kept_rows("List all the action items from the 20 May operations meeting.", actions) is None
    assert (
        kept_rows("Which papers do we buy from Nordic Fibre?", PAPERS, about="Nordic Fibre price list")
        is None
    )


def test_a_list_question_with_a_condition_is_answered_with_the_rows_it_keeps(kb, make_persona) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import doc

    rows = "".join(
        f"| 2026-0{i}-01 | Machine {i} | Job {i} | {cost} |\n"
        for i, cost in enumerate((300, 1500, 90, 2400), 1)
    )
    body = "# Maintenance log\n\n## Jobs\n\n" + HEADER + rows
    assert not kb.ingest(make_persona("ops", rag={"log.md": doc("log", "Maintenance log", body)})).failed
    answer = kb.ask("Which jobs in the maintenance log cost more than 1,000 GBP?", persona="ops")
    assert "Machine 2" in answer.text and "Machine 4" in answer.text
    assert "Machine 1" not in answer.text and "Machine 3" not in answer.text
