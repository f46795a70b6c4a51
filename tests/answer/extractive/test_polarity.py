"""Yes or no, read from the sentence that answers a yes/no question."""

from __future__ import annotations

import pytest

from shu.answer.extractive.polarity import is_yes_no, verdict

PLANS = "It is available on Team, Pro and Enterprise plans."
DELIVERY = "Delivery is free within 25 miles for orders over 150 GBP."
STOCK = "Code: MS-300; Sheets on hand: {}; Reorder point: 6000"


@pytest.mark.parametrize(
    ("question", "sentence", "said"),
    [
        ("Can we get SCIM provisioning on the Pro plan?", "SCIM provisioning is Enterprise only.", "no"),
        ("Can I embed dashboards if we're on the Team plan?", "Yes, on Pro and Enterprise.", "no"),
        ("Is the Teams channel available on Starter?", PLANS, "no"),
        ("Is the Teams channel available on Pro?", PLANS, "yes"),
        ("Is MS-300 below its reorder point?", STOCK.format(4200), "yes"),
        ("Is MS-300 below its reorder point?", STOCK.format(18500), "no"),
        ("Is delivery free for a 100 GBP order?", DELIVERY, "no"),
        ("Is delivery free for a 200 GBP order?", DELIVERY, "yes"),
        ("Did anyone lose data in the incident?", "No data was lost.", "no"),
        ("Is Ridgeway Board going up in price in July?", "Ridgeway Board: no change", "no"),
        ("Can I move my workspace to the EU?", "Moving between regions is done by support.", None),
        (
            "Does Lumen keep my data after I cancel?",
            "After that, data is kept for 30 days, then deleted as in our Data Retention and GDPR Policy.",
            None,
        ),
    ],
)
def test_the_sentence_decides_yes_or_no(question: str, sentence: str, said: str | None) -> None:
    assert verdict(question, sentence) == said


def test_a_choice_between_things_is_no_yes_no_question() -> None:
    assert is_yes_no("Is MS-300 below its reorder point?")
    assert not is_yes_no("Were more members present at the January AGM or at the April meeting?")
    assert not is_yes_no("What is the reorder point of MS-300?")


def test_a_yes_no_answer_starts_with_its_verdict_and_cites_the_deciding_sentence(kb, make_persona) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import doc

    body = (
        "# Security\n\n## SCIM provisioning\n\nSCIM provisioning is Enterprise only. "
        "Generate a SCIM token under Settings > Security > SCIM."
    )
    assert not kb.ingest(make_persona("lumen", rag={"security.md": doc("security", "Security", body)})).failed
    answer = kb.ask("Can we get SCIM provisioning on the Pro plan?", persona="lumen")
    cited = "[^security:Security > SCIM provisioning]"
    assert answer.text.startswith(f"No: SCIM provisioning is Enterprise only. {cited}")


@pytest.mark.parametrize(
    ("question", "sentence", "said"),
    [
        (
            "if i snooze an alert does lumen keep checking it in the background?",
            "Snoozed alerts keep evaluating and recording history but do not send notifications.",
            "yes",
        ),
        (
            "I lost a pair of the shed's pruning shears. Do I have to pay for them?",
            "A member who loses a tool, or damages it through misuse, pays the replacement cost.",
            "yes",
        ),
        (
            "If someone is in both lumen-admins and lumen-analysts, do they just end up as a Member?",
            "Map IdP groups to Lumen roles, for example lumen-admins to Admin and lumen-analysts to Member.",
            None,
        ),
        (
            "Our IdP signs SAML assertions with SHA-1. Will Lumen accept them?",
            "Symptom: SAML-004; Likely cause: User not assigned to the Lumen app; Fix: assign the user.",
            None,
        ),
        (
            "Does Lumen keep my data after I cancel?",
            "This policy explains how long Lumen Analytics keeps the data processed in customer workspaces.",
            None,
        ),
        (
            "Does the guide cover winter pruning?",
            "The guide covers winter pruning of fruit trees in January.",
            "yes",
        ),
    ],
)
def test_the_best_answer_affirms_with_a_verb_of_the_question_and_no_negation_about_it(
    question: str, sentence: str, said: str | None
) -> None:
    from shu.answer.extractive.polarity import affirms

    assert is_yes_no(question)
    assert verdict(question, sentence) in (None, "yes")
    assert ("yes" if affirms(question, sentence) else None) == said


def test_a_circumstance_before_the_question_keeps_it_a_yes_no_question() -> None:
    assert is_yes_no("I lost the shears. Do I have to pay for them?")
    assert is_yes_no("If I am off sick, can I text my supervisor?")
    assert not is_yes_no("When is the party?")
    assert not is_yes_no("If I pay cash, who do I give it to?")
