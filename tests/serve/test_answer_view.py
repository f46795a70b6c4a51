"""What `shu ask` prints after a streamed answer: contradicted claims apart from unsupported ones
(with what the cited section says instead), and that the LLM budget stopped the model."""

from __future__ import annotations

from shu.serve.answer_view import show_streamed
from shu.serve.terminal import SafeConsole
from shu.types import Answer, AnswerSentence, ClaimVerdict, Verification

PRO = "[^pricing:Pricing > Pro]"


def test_contradicted_and_unsupported_claims_are_listed_apart_with_the_budget_stop() -> None:
    contradicted = ClaimVerdict(
        claim="The Pro plan costs $99 per seat",
        citations=[PRO],
        verdict="contradicted",
        reason="the claim says 99; the source says 65",
        quote="The Pro plan costs $65 per seat per month.",
    )
    unsupported = ClaimVerdict(
        claim="Support answers within an hour", citations=[PRO], verdict="unsupported", reason="not in it"
    )
    text = f"The Pro plan costs $99 per seat. {PRO} Support answers within an hour. {PRO}"
    final = Answer(
        question="What does Pro cost?",
        persona="lumen",
        text=text,
        method="llm:scripted",
        sentences=[AnswerSentence(text="The Pro plan costs $99 per seat.", citations=[PRO])],
        verification=Verification(method="rules", verdicts=[contradicted, unsupported]),
        llm_stopped="its 16 calls (llm.budget.max_calls) were spent",
    )
    out = SafeConsole(record=True, width=200, soft_wrap=True)
    show_streamed(["The Pro plan costs $99 per seat. ", PRO, final], out, "footnotes")
    shown = out.export_text()
    assert (
        "1 claim(s) contradicted by what they cite:\n"
        "  · The Pro plan costs $99 per seat — contradicted: the claim says 99; the source says 65\n"
        "    the cited section says: The Pro plan costs $65 per seat per month.\n"
        "1 claim(s) not supported by what they cite:\n"
        "  · Support answers within an hour — unsupported: not in it\n"
    ) in shown
    assert (
        "The LLM was not asked again for this question: its 16 calls (llm.budget.max_calls) were "
        "spent; the steps after that used their non-LLM methods."
    ) in shown
