"""A question asking for several things is answered with every item of the list whose label
shares its words: items under a label, a table's column, the headings under a heading."""

from __future__ import annotations

from shu.answer.extractive.lists import best_listing, listings
from shu.types import ContextSection


def section(path: str, text: str) -> ContextSection:
    return ContextSection(section_path=path, text=text, chunk_ids=[path])


DRILL = section(
    "Fire drill report",
    "Date of drill: 29 April\n\nProblems found:\n\n1. The alarm could not be heard in the paper store.\n\n"
    "2. Fire door F3 was propped open.\n\nNext drill: 16 July.",
)
SHED = section(
    "Tool Shed Rules > What is in the shed > Power tools (sign-out required)",
    "| Tool | Who may use it |\n|---|---|\n| Rotary tiller | Trained members |\n"
    "| Hedge trimmer | Any adult |\n\nSign power tools out on the sheet.",
)
PESTS = section(
    "Pest Guide > Allowed and prohibited products",
    "| Allowed (organic) | Prohibited |\n|---|---|\n| Neem oil | Slug pellets |\n"
    "| Iron phosphate | Glyphosate |",
)
ALERTS = [
    section("Alerts > Alert limits per plan", "| Plan | Alerts per workspace |\n|---|---|\n| Team | 5 |"),
    section("Alerts > Alert types > Threshold alert", "Fires above a number."),
    section("Alerts > Alert types > Change alert", "Fires on a change."),
    section("Alerts > Creating an alert", "1. Click the bell.\n2. Pick the type."),
]


def test_items_under_a_label() -> None:
    found = best_listing("What problems did the April fire drill turn up?", listings([DRILL]))
    assert found is not None and found.items == (
        "The alarm could not be heard in the paper store.",
        "Fire door F3 was propped open.",
    )


def test_a_table_column_under_its_heading_and_the_column_the_question_names() -> None:
    tools = best_listing("Which power tools in the shed need signing out?", listings([SHED]))
    assert tools is not None and tools.items == ("Rotary tiller", "Hedge trimmer")
    allowed = best_listing("Which pest products are allowed?", listings([PESTS]))
    assert allowed is not None and allowed.header == "Allowed (organic)"
    assert allowed.items == ("Neem oil", "Iron phosphate")


LOG = [
    section(
        f"Fleet > Maintenance log > Rows {first}–{first + 1}",
        f"| Date | Machine |\n|---|---|\n| 2026-0{first}-01 | {a} |\n| 2026-0{first}-02 | {b} |",
    )
    for first, a, b in ((1, "Press 1", "Press 2"), (3, "Press 2", "Forklift FL-2"))
]


def test_a_long_tables_column_is_one_list_over_its_row_sections_each_value_once() -> None:
    found = best_listing("Which machines appear in the maintenance log?", listings(LOG))
    assert found is not None and found.items == ("Press 1", "Press 2", "Forklift FL-2")
    assert found.sections == (LOG[0], LOG[1])
    assert found.heading == "Maintenance log"
    one = listings([LOG[0]])  # one section of rows alone is still its own list
    assert [listing.items for listing in one if listing.header == "Machine"] == [("Press 1", "Press 2")]


def test_the_headings_under_a_heading_and_kinds_are_types() -> None:
    found = best_listing("What kinds of alerts can I set up?", listings(ALERTS))
    assert found is not None and found.items == ("Threshold alert", "Change alert")


def test_no_list_shares_the_question_words() -> None:
    assert best_listing("Which couriers did we compare?", listings([DRILL, SHED])) is None


def test_a_list_question_is_answered_with_every_item(kb, make_persona) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import doc

    body = (
        "# Tool Shed Rules\n\n## Power tools (sign-out required)\n\n| Tool | Who may use it |\n|---|---|\n"
        "| Rotary tiller | Trained members |\n| Electric hedge trimmer | Any adult |\n"
        "| Battery string trimmer | Any adult |\n\nSign power tools out on the sheet by the door."
    )
    assert not kb.ingest(make_persona("garden", rag={"shed.md": doc("shed", "Tool Shed Rules", body)})).failed
    answer = kb.ask("Which power tools need signing out?", persona="garden")
    assert "- Rotary tiller\n- Electric hedge trimmer\n- Battery string trimmer" in answer.text
    assert "[^shed:Tool Shed Rules > Power tools (sign-out required)]" in answer.text
