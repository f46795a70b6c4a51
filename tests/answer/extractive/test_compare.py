"""A comparison is answered side by side: the two sides read from the question, each side's
value from the one table row with a column for each, or else each side's best sentence."""

from __future__ import annotations

import pytest

from shu.answer.extractive.compare import compared
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker, doc


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Compare the uptime SLA on Pro with Enterprise.", ("Pro", "Enterprise")),
        ("More members at the January AGM or at the April meeting?", ("January AGM", "April meeting")),
        ("What's the difference in sync interval between Team and Enterprise?", ("Team", "Enterprise")),
        ("Which keeps the audit log longer, Team or Pro, and for how long each?", ("Team", "Pro")),
        ("Which courier quoted the lowest price?", None),
    ],
)
def test_the_two_sides_of_a_comparison(question: str, sides: tuple[str, str] | None) -> None:
    found = compared(question)
    assert (tuple(side.name for side in found) if found else None) == sides


PLANS = (
    "# Plans\n\n## Overview\n\nEvery plan has dashboards.\n\n| Feature | Team | Pro | Enterprise |\n"
    "| --- | --- | --- | --- |\n| Dashboards | 100 | Unlimited | Unlimited |\n"
    "| Audit log retention | 90 days | 1 year | 7 years |\n| Uptime SLA | 99.5% | 99.9% | 99.95% |\n"
)


def test_a_comparison_is_answered_as_a_small_table_from_the_row_of_both(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("lumen", rag={"plans.md": doc("plans", "Plans", PLANS)})).failed
    answer = kb.ask("Compare the uptime SLA on Pro with Enterprise.", persona="lumen")
    lines = answer.text.splitlines()
    assert lines[0] == "| Uptime SLA | Pro | Enterprise |" and lines[1] == "|---|---|---|"
    assert lines[2] == "| [^plans:Plans > Overview] | 99.9% | 99.95% |"
    assert answer.sentences[0].text == "Uptime SLA: Pro 99.9%, Enterprise 99.95%."
