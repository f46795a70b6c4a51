"""Yes or no from a quoted table row: only the row the question names decides."""

from __future__ import annotations

import pytest

from shu.answer.extractive.polarity import affirms, verdict
from shu.answer.extractive.rows import fields, reading

TEAM = "Plan: Team; Alerts per workspace: 50; Channels: E-mail, Slack, Microsoft Teams, webhook"
PRO = "Plan: Pro; Alerts per workspace: Unlimited; Channels: All Team channels plus PagerDuty"
FLYERS = "Product: Flyers and leaflets; Standard turnaround: 4 days; Minimum order: 500"
BROCHURES = "Product: Brochures (stapled); Standard turnaround: 7 days; Minimum order: 100"
UPTIME = "Measure: Press uptime; Target: 92%; April: 94.0%; May: 78.5%; June: 93.2%"
STOCK = "Code: MS-300; Sheets on hand: 4200; Reorder point: 6000"
PESTS = "Allowed (organic): Bt for caterpillars; Prohibited: Glyphosate and all other herbicides"
PAGERDUTY_ON_TEAM = "Can I send alerts to PagerDuty if I'm on the Team plan?"


def test_a_row_is_fields_separated_by_semicolons() -> None:
    assert fields(FLYERS)[0] == ("Product", "Flyers and leaflets")
    assert fields("Delivery is free within 25 miles for orders over 150 GBP.") == []
    assert fields("Decision: approved; the vote was close") == []  # a part that is no field


def test_another_things_row_decides_nothing_and_affirms_nothing() -> None:
    assert reading(PAGERDUTY_ON_TEAM, PRO) == "other"
    assert verdict(PAGERDUTY_ON_TEAM, PRO, "", [TEAM]) is None
    assert not affirms(PAGERDUTY_ON_TEAM, PRO)
    assert reading("Can a customer order just 100 flyers?", BROCHURES) == "other"
    assert not affirms("Can a customer order just 100 flyers?", BROCHURES)


def test_the_condition_row_says_no_when_another_row_lists_the_thing() -> None:
    assert verdict(PAGERDUTY_ON_TEAM, TEAM, "", [PRO]) == "no"
    assert verdict(PAGERDUTY_ON_TEAM, TEAM) is None  # no row names PagerDuty: nothing to compare
    assert verdict("Can I send alerts to PagerDuty if I'm on the Pro plan?", PRO, "", [TEAM]) == "yes"


@pytest.mark.parametrize(
    ("question", "row", "said"),
    [
        ("Can a customer order just 100 flyers?", FLYERS, "no"),
        ("Can a customer order 600 flyers?", FLYERS, "yes"),
        ("Can a customer order 100 brochures?", BROCHURES, "yes"),
        ("Did press uptime meet its target in May?", UPTIME, "no"),
        ("Did press uptime meet its target in June?", UPTIME, "yes"),
        ("Was press uptime below target in April?", UPTIME, "no"),
        ("Was press uptime above its target in April?", UPTIME, "yes"),
        ("Is MS-300 below its reorder point?", STOCK, "yes"),  # polarity's own rule, not the row's
        ("Can I use glyphosate on my plot?", PESTS, "no"),
        ("Can I use Bt against caterpillars?", PESTS, "yes"),
    ],
)
def test_the_named_row_decides_by_its_fields(question: str, row: str, said: str) -> None:
    assert verdict(question, row) == said


def test_a_row_the_question_names_without_a_deciding_field_leaves_it_to_the_other_rules() -> None:
    assert reading("Does the flyers product have an express turnaround?", FLYERS) is None
