"""Generated text is safe while it streams and once checked: whatever the model writes, and
however the pieces are cut, no citation is shown that the context did not contain and no link
to anything but http(s) survives."""

from __future__ import annotations

import re

import pytest

from shu.answer.citations import ContextKeys, check_citations
from shu.answer.stream import KeyFilter
from shu.types import AssembledContext, ContextDocument, ContextSection

PRO = "[^pricing:Plans > Pro]"
CONTEXT = AssembledContext(
    documents=[
        ContextDocument(
            doc_id="pricing",
            title="Pricing",
            score=1.0,
            sections=[
                ContextSection(section_path="Plans > Pro", text="Pro costs $65.", chunk_ids=["pricing#1"]),
                ContextSection(section_path="Plans > Team", text="Team costs $35.", chunk_ids=["pricing#2"]),
            ],
        )
    ]
)
# a live link: `](` to a non-http scheme, a reference definition `]:`, an autolink `<scheme:` (no space)
LIVE_LINK = re.compile(r"\]\(\s*<?\s*(?!https?://)[a-z&#0-9;]+[:;]|\]:|<(?!https?://)[a-z]+:", re.I)
HOSTILE = [
    "Pro costs $65 [^refunds:Policy[^x:y]].",
    f"Pro costs $65 {PRO}(javascript:alert(1)).",
    "Pro costs $65 [click\nhere](javascript:alert(1)).",
    "Pro costs $65 [a [b] c](javascript:alert(1)).",
    "Pro costs $65 [x](<javascript:alert(1)>).",
    "Pro costs $65 [x](jav&#x61;script:alert(1)).",
    "Pro costs $65 [x][r].\n\n[r]: javascript:alert(1)",
    "Pro costs $65 <javascript:alert(1)>.",
    "Pro costs $65 [" + "y" * 400 + "](javascript:alert(1)).",
    "Pro costs $65 [^" + "z" * 400 + "].",
    "Pro costs $65 [^pricing:Plans > Pro",
    f"Pro costs $65 {PRO} [^made-up:Doc] [^pricing:Refund policy for enterprise].",
]


def streamed(text: str, size: int) -> str:
    shown = KeyFilter(ContextKeys(CONTEXT))
    pieces: list[str] = []
    for start in range(0, len(text), size):
        pieces += shown.feed(text[start : start + size])
    pieces += shown.flush()
    for piece in pieces:
        assert not piece.startswith("[^") or piece == PRO, f"only resolved keys are shown whole: {piece!r}"
    return "".join(pieces)


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_no_fake_key_and_no_live_link_while_streaming_or_after(text: str, size: int) -> None:
    final = check_citations(text, ContextKeys(CONTEXT)).text
    for shown in (streamed(text, size), final):
        assert not LIVE_LINK.search(shown), shown
        assert set(re.findall(r"\[\^[^\]]*\]", shown)) <= {PRO}, shown


def test_safe_text_and_http_links_pass_unchanged() -> None:
    text = f"Pro costs $65 {PRO}; see [the docs](https://docs.example/pro) or <https://docs.example>."
    assert streamed(text, 4) == text
    assert check_citations(text, ContextKeys(CONTEXT)).text == text


def test_a_near_miss_needs_a_resemblance_a_stranger_is_removed() -> None:
    keys = ContextKeys(CONTEXT)
    assert keys.resolve("[^Pricing:plans > pro]") is not None
    assert keys.resolve("[^pricing:Pro]") is not None, "the last heading alone"
    assert keys.resolve("[^pricing]").key == PRO, "a document alone: its best section"  # type: ignore[union-attr]
    assert keys.resolve("[^pricing:Refund policy for enterprise]") is None
    checked = check_citations("Pro costs $65 [^pricing:Refund policy for enterprise].", keys)
    assert checked.check.removed == ["[^pricing:Refund policy for enterprise]"] and not checked.citations


def test_the_abstention_marker_is_read_alike_in_the_stream_and_the_answer() -> None:
    for reply, abstains in [
        ("**\nINSUFFICIENT: a price list", True),
        ("insufficient: the 2027 price list.", True),
        ("Insufficient cooling causes the sync to stop [^pricing:Plans > Pro].", False),
        ("INSUFF", False),
    ]:
        shown = KeyFilter(ContextKeys(CONTEXT))
        pieces = [p for start in range(0, len(reply), 2) for p in shown.feed(reply[start : start + 2])]
        pieces += shown.flush()
        assert shown.abstaining is abstains and bool(pieces) is not abstains, reply
