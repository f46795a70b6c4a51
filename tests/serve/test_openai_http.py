"""Shu as a model, through the official `openai` SDK against a real uvicorn server: the models
are the personas a key reaches; a completion is the cited answer with its footnotes and Shu's
own record in `shu`, whole or streamed; a follow-up stands alone; a wrong key, another persona
and bad messages are clear errors (issue 45, part 1)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.embed.minilm import MiniLMEmbedder
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import doc

openai = pytest.importorskip("openai")

PRO = "[^pricing:Pricing > Pro]"
TEAM = "[^pricing:Pricing > Team]"
PRICING = doc(
    "pricing",
    "Pricing",
    "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n"
    "## Team\n\nThe Team plan costs $35 per seat per month.",
)
NOTES = doc("notes", "Garden notes", "# Garden notes\n\nThe beans came up in May.")


def _reply(messages: list[Message], schema: dict[str, Any] | None) -> str:
    prompt = messages[-1].content
    if "Team" in prompt.rsplit("Question:", 1)[-1]:
        return f"The Team plan costs $35 per seat per month. {TEAM}"
    return f"The Pro plan costs $65 per seat per month. {PRO}"


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, minilm: MiniLMEmbedder
) -> Iterator[tuple[str, str, str]]:
    """A server with two personas and a key that reaches only `lumen`; its URL and the key."""
    tmp = tmp_path_factory.mktemp("openai")
    for slug, name, text in (("lumen", "pricing.md", PRICING), ("garden", "notes.md", NOTES)):
        folder = tmp / "personas" / slug
        (folder / "RAG").mkdir(parents=True)
        (folder / "persona.config.json").write_text(json.dumps({"slug": slug, "display_name": slug.title()}))
        (folder / "RAG" / name).write_text(text)
    overrides = ["enrich.enabled=false", "answer.scope=false", "verify.method=rules", "agent.mode=never"]
    settings = load_settings(tmp / "home", [*overrides, "llm.budget.max_json_failures=0"])
    kb = KnowledgeBase(settings, embedder=minilm, llm=LLMClient(ScriptedLLM(_reply)))
    assert not kb.ingest(tmp / "personas").failed
    _, key = kb.accounts.create_key("ana", ["lumen"])
    with running(create_app(kb)) as url:
        yield url, key, str(tmp)
    kb.close()


def _client(served: tuple[str, str, str], key: str | None = None) -> Any:
    url, good, _ = served
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key or good, max_retries=0)


def test_the_models_are_the_personas_the_key_reaches(served: tuple[str, str, str]) -> None:
    models = _client(served).models.list()
    assert [m.id for m in models.data] == ["lumen"] and models.data[0].owned_by == "shu"


def test_a_completion_is_the_cited_answer_with_footnotes_and_shus_record(
    served: tuple[str, str, str],
) -> None:
    completion = _client(served).chat.completions.create(
        model="lumen",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "How much does the Pro plan cost?"},
        ],
        temperature=0.2,  # an OpenAI field Shu does not use: ignored
    )
    content = completion.choices[0].message.content
    assert completion.object == "chat.completion" and completion.model == "lumen"
    assert completion.choices[0].finish_reason == "stop" and completion.choices[0].message.role == "assistant"
    assert "$65 per seat per month. [^1]" in content
    assert re.search(r"^\[\^1\]: Pricing, §Pricing > Pro", content, re.M)
    shu = completion.model_extra["shu"]
    assert [c["key"] for c in shu["citations"]] == [PRO] and 0 <= shu["confidence"] <= 1
    assert shu["method"].startswith("llm:") and "retrieval" not in shu
    traced = _client(served).chat.completions.create(
        model="lumen",
        messages=[{"role": "user", "content": "How much does Pro cost?"}],
        extra_body={"trace": True},
    )
    assert traced.model_extra["shu"]["retrieval"]["context"]["documents"][0]["doc_id"] == "pricing"


def test_a_completion_keeps_to_a_filter_sent_as_shus_own_field(served: tuple[str, str, str]) -> None:
    nothing = _client(served).chat.completions.create(
        model="lumen",
        messages=[{"role": "user", "content": "How much does the Pro plan cost?"}],
        extra_body={"filter": {"types": ["email"]}},
    )
    assert "matches the filter (type email)" in (nothing.choices[0].message.content or "")
    assert nothing.model_extra["shu"]["insufficient"] is True
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        _client(served).chat.completions.create(
            model="lumen",
            messages=[{"role": "user", "content": "Pro?"}],
            extra_body={"filter": {"since": "2026-05-01", "until": "2026-01-01"}},
        )
    assert "is after until" in refused.value.message


def test_a_streamed_completion_adds_up_to_the_answer_and_ends_with_the_sources(
    served: tuple[str, str, str],
) -> None:
    stream = _client(served).chat.completions.create(
        model="lumen", messages=[{"role": "user", "content": "What does the Pro plan cost?"}], stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert len(chunks) >= 5 and all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks][-1] == "stop"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])
    assert text.startswith("The Pro plan costs $65 per seat per month. [^1]")
    assert "[^pricing:" not in text, "a key is shown as its footnote number"
    assert re.search(r"^\[\^1\]: Pricing, §Pricing > Pro", text, re.M)
    assert text.count("$65") == 1, "the checked answer said the same: only its sources were added"
    assert chunks[-1].model_extra["shu"]["citations"][0]["key"] == PRO


def test_a_follow_up_reads_the_titles_an_earlier_answers_footnotes_cite(served: tuple[str, str, str]) -> None:
    completion = _client(served).chat.completions.create(
        model="lumen",
        messages=[
            {"role": "user", "content": "Can you explain?"},
            {
                "role": "assistant",
                "content": "It costs $65 per seat per month. [^1]\n\n"
                "[^1]: Pricing (2026-04-21), §Pricing > Pro — <lumen/RAG/pricing.md#pro>",
            },
            {"role": "user", "content": "How much is it per year?"},
        ],
    )
    assert "(Pricing)" in completion.model_extra["shu"]["standalone_question"]


def test_usage_counts_every_model_call_of_the_question(served: tuple[str, str, str]) -> None:
    asked = [{"role": "user", "content": "How much is the Pro plan per seat and month?"}]  # not cached
    whole = _client(served).chat.completions.create(model="lumen", messages=asked)
    usage = whole.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.total_tokens >= whole.model_extra["shu"]["llm_tokens"]
    cached = _client(served).chat.completions.create(model="lumen", messages=asked)
    assert cached.model_extra["shu"]["cached"] and cached.usage is not None and cached.usage.total_tokens == 0
    asked = [{"role": "user", "content": "What is the price of Pro for one seat?"}]
    stream = _client(served).chat.completions.create(
        model="lumen", messages=asked, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert chunks[-2].choices[0].finish_reason == "stop" and chunks[-2].usage is None
    plain = list(_client(served).chat.completions.create(model="lumen", messages=asked, stream=True))
    assert all(c.usage is None for c in plain) and plain[-1].choices, "no usage chunk unless asked"


def test_a_follow_up_is_asked_standing_alone_after_the_earlier_turns(served: tuple[str, str, str]) -> None:
    completion = _client(served).chat.completions.create(
        model="lumen",
        messages=[
            {"role": "user", "content": "What does the Pro plan cost?"},
            {"role": "assistant", "content": "The Pro plan costs $65 per seat per month. [^1]"},
            {"role": "user", "content": [{"type": "text", "text": "And the Team plan?"}]},
        ],
    )
    shu = completion.model_extra["shu"]
    assert shu["question"] == "And the Team plan?"
    assert shu["standalone_question"] == "What does the Team plan cost?"
    assert "$35" in completion.choices[0].message.content


def test_a_wrong_key_and_a_persona_the_key_does_not_reach_are_refused(served: tuple[str, str, str]) -> None:
    with pytest.raises(openai.AuthenticationError):
        _client(served, key="shu_not-a-key").chat.completions.create(
            model="lumen", messages=[{"role": "user", "content": "Pro price?"}]
        )
    said = []
    for model in ("garden", "nobody"):  # another's persona is not confirmed to exist
        with pytest.raises(openai.NotFoundError) as refused:
            _client(served).chat.completions.create(
                model=model, messages=[{"role": "user", "content": "Hi?"}]
            )
        said.append(refused.value.message.replace(model, "X"))
    assert said[0] == said[1] and "no model 'X'" in said[0] and "known" not in said[0], said


@pytest.mark.parametrize(
    ("messages", "status", "said"),
    [
        ([{"role": "assistant", "content": "Hello"}], 400, "the last message must be the user's question"),
        ([{"role": "user", "content": "   "}], 400, "the question is empty"),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x"}}]}],
            400,
            "only text is read",
        ),
        ([], 422, "messages"),
        ([{"role": "wizard", "content": "Hi"}], 422, "role"),
        ([{"role": "user", "content": "x" * 5000}], 400, "characters long"),
        ([{"role": "user", "content": "\u0000 \u0000"}], 400, "the question is empty"),
    ],
)
def test_bad_messages_are_a_4xx_with_a_message(
    served: tuple[str, str, str], messages: list[dict[str, Any]], status: int, said: str
) -> None:
    url, key, _ = served
    for stream in (False, True):  # refused before any chunk is sent, streamed or not
        response = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "lumen", "messages": messages, "stream": stream},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        assert response.status_code == status and said in response.text, response.text


def test_nothing_is_kept_of_a_chat_clients_conversation(served: tuple[str, str, str]) -> None:
    url, key, _ = served
    _client(served).chat.completions.create(
        model="lumen",
        messages=[
            {"role": "user", "content": "What does the Pro plan cost?"},
            {"role": "assistant", "content": "$65."},
            {"role": "user", "content": "And the Team plan?"},
        ],
    )
    listed = httpx.get(f"{url}/v1/conversations", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert listed.status_code == 200 and listed.json() == [], listed.text


def test_a_long_chat_with_an_image_in_an_earlier_turn_is_still_answered(served: tuple[str, str, str]) -> None:
    """A chat client sends the whole conversation each time (past the API's 64 KiB for other
    bodies); an image in an earlier turn is passed over, only the question must be text."""
    look = [{"type": "text", "text": "Look"}, {"type": "image_url", "image_url": {"url": "x"}}]
    earlier: list[dict[str, Any]] = [
        {"role": "user", "content": look},
        {"role": "assistant", "content": "I read text only."},
    ]
    for n in range(30):
        earlier += [
            {"role": "user", "content": f"Question {n} about prices?"},
            {"role": "assistant", "content": "The Pro plan costs $65 per seat per month. " * 60},
        ]
    messages = [*earlier, {"role": "user", "content": "What does the Pro plan cost?"}]
    assert len(json.dumps(messages)) > 70_000  # over the 64 KiB of other bodies
    completion = _client(served).chat.completions.create(model="lumen", messages=messages)
    assert "$65" in completion.choices[0].message.content


def test_streamed_text_is_compared_with_the_checked_answer_white_space_aside() -> None:
    from shu.serve.openai_http import Footnoted
    from shu.types import Answer, AnswerSentence, Citation

    pro = Citation(
        key=PRO, doc_id="pricing", section_path="Pricing > Pro", chunk_id="pricing#0", title="Pricing"
    )
    team = Citation(
        key=TEAM, doc_id="pricing", section_path="Pricing > Team", chunk_id="pricing#1", title="Pricing"
    )
    checked = Answer(
        question="q",
        persona="lumen",
        text=f"Pro  costs $65. {PRO}{TEAM}",
        method="llm:x",
        sentences=[AnswerSentence(text="Pro costs $65.", citations=[PRO, TEAM])],
        citations=[pro, team],
    )
    for style in ("footnotes", "keys"):
        shown = Footnoted(style)
        streamed = shown.piece("Pro costs $65. ") + shown.piece(f"{PRO}{TEAM}")  # two keys in one piece
        if style == "footnotes":
            assert streamed == "Pro costs $65. [^1][^2]"
        rest = shown.rest(checked)
        assert "$65" not in rest and ("[^1]: Pricing" in rest or "Sources:" in rest), (style, rest)
