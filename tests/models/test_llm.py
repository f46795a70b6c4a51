"""The LLM layer against real HTTP servers on 127.0.0.1 that answer from a script."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from shu.config.settings import LLMSettings
from shu.errors import ConfigError
from shu.models.llm.anthropic import AnthropicLLM
from shu.models.llm.base import LLMError, Message
from shu.models.llm.cache import ResponseCache
from shu.models.llm.client import RETRY_TEMPERATURE, LLMClient, StructuredOutputError
from shu.models.llm.factory import create_llm
from shu.models.llm.openai_compat import OpenAICompatibleLLM
from shu.models.llm.scripted import ScriptedLLM
from tests.models.fake_llm_server import Script, anthropic_stream, openai_reply, openai_stream, serve

USER = [Message(role="system", content="Be brief."), Message(role="user", content="Say hi")]


class Synopsis(BaseModel):
    synopsis: str = Field(min_length=10, max_length=200)
    entities: list[str] = Field(max_length=5)


def client_for(url: str, **kwargs: object) -> LLMClient:
    sleeps: list[float] = []
    client = LLMClient(OpenAICompatibleLLM(url, "m", api_key="k"), sleep=sleeps.append, **kwargs)  # type: ignore[arg-type]
    client.sleeps = sleeps  # type: ignore[attr-defined]
    return client


def test_openai_chat_request_and_usage() -> None:
    script = Script(replies=[openai_reply("hi", 12, 3)])
    with serve(script) as url:
        result = client_for(url).chat(USER, max_tokens=20, temperature=0.2)
    assert result.text == "hi" and (result.usage.prompt_tokens, result.usage.completion_tokens) == (12, 3)
    sent = script.requests[0]
    assert sent["model"] == "m" and sent["max_tokens"] == 20 and sent["temperature"] == 0.2
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert "response_format" not in sent
    assert script.headers[0]["Authorization"] == "Bearer k"


def test_retries_with_backoff_on_429_and_5xx_not_on_400() -> None:
    script = Script(replies=[(429, {"error": "slow down"}), (503, "busy"), openai_reply("ok")])
    with serve(script) as url:
        client = client_for(url, backoff_s=0.5)
        assert client.chat(USER).text == "ok"
        assert client.sleeps == [0.5, 1.0]  # type: ignore[attr-defined]
        script.replies = [(400, {"error": "bad request"})]
        with pytest.raises(LLMError, match="HTTP 400"):
            client.chat([Message(role="user", content="other")])
        assert client.accounting.failures == 1 and len(client.sleeps) == 2  # type: ignore[attr-defined]


def test_gives_up_after_max_retries() -> None:
    script = Script(replies=[(500, "x")] * 3)
    with serve(script) as url, pytest.raises(LLMError, match="HTTP 500"):
        client_for(url, max_retries=2).chat(USER)
    assert len(script.requests) == 3


def test_an_unreachable_server_is_a_clear_error() -> None:
    client = LLMClient(OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", timeout_s=2), max_retries=0)
    with pytest.raises(LLMError, match=r"127\.0\.0\.1:9"):
        client.chat(USER)


def test_the_cache_answers_a_repeated_request(tmp_path: Path) -> None:
    script = Script(replies=[openai_reply("first"), openai_reply("second")])
    with serve(script) as url:
        client = client_for(url, cache=ResponseCache(tmp_path / "cache.db"))
        assert client.chat(USER).text == "first"
        assert client.chat(USER).text == "first"
        assert client.chat(USER, max_tokens=99).text == "second", "other settings, other key"
    assert len(script.requests) == 2 and client.accounting.cached == 1
    reopened = LLMClient(ScriptedLLM([]), cache=ResponseCache(tmp_path / "cache.db"))
    assert reopened.cache is not None


def test_structured_output_is_validated_and_retried_once() -> None:
    good = json.dumps({"synopsis": "A pricing page for Lumen.", "entities": ["Lumen"]})
    script = Script(replies=[openai_reply("Sure! {not json"), openai_reply(f"```json\n{good}\n```")])
    with serve(script) as url:
        client = client_for(url)
        out = client.structured(USER, Synopsis)
    assert out.value.entities == ["Lumen"] and out.attempts == 2
    assert script.requests[0]["response_format"]["json_schema"]["schema"]["required"] == [
        "synopsis",
        "entities",
    ]
    retry = script.requests[1]["messages"]
    assert retry[-1]["role"] == "user" and "invalid: not valid JSON" in retry[-1]["content"]
    assert client.accounting.invalid == 1
    temperatures = [request["temperature"] for request in script.requests]
    assert temperatures == [0.0, RETRY_TEMPERATURE], "asked again at 0, a small model says it again"


def test_structured_output_that_stays_invalid_is_refused() -> None:
    too_short = json.dumps({"synopsis": "short", "entities": []})
    not_in_text = json.dumps({"synopsis": "A long enough synopsis.", "entities": ["Atlantis"]})
    script = Script(replies=[openai_reply(too_short), openai_reply(not_in_text)])

    def entities_in_source(value: Synopsis) -> list[str]:
        return [f"entity {e!r} is not in the document" for e in value.entities if e not in "Lumen pricing"]

    with serve(script) as url, pytest.raises(StructuredOutputError) as caught:
        client_for(url).structured(USER, Synopsis, check=entities_in_source)
    assert caught.value.problems == ["entity 'Atlantis' is not in the document"]
    assert (
        "synopsis: String should have at least 10 characters" in script.requests[1]["messages"][-1]["content"]
    )


def test_the_concurrency_limit_holds() -> None:
    script = Script(replies=[openai_reply(str(i)) for i in range(6)], delay_s=0.15)
    with serve(script) as url:
        client = client_for(url, concurrency=2)
        with ThreadPoolExecutor(6) as pool:
            list(pool.map(lambda i: client.chat([Message(role="user", content=str(i))]), range(6)))
    assert script.max_in_flight == 2


def test_token_and_cost_accounting() -> None:
    script = Script(replies=[openai_reply("a", 1000, 500), openai_reply("b", 3000, 500)])
    with serve(script) as url:
        client = client_for(url)
        client.accounting.price_in_per_mtok, client.accounting.price_out_per_mtok = 0.15, 0.60
        client.complete("one")
        client.complete("two")
    acc = client.accounting
    assert (acc.calls, acc.prompt_tokens, acc.completion_tokens) == (2, 4000, 1000)
    assert acc.cost_usd == pytest.approx((4000 * 0.15 + 1000 * 0.60) / 1e6)


def test_anthropic_messages_and_tool_based_json() -> None:
    reply = {
        "model": "claude-x",
        "content": [
            {"type": "tool_use", "name": "answer", "input": {"synopsis": "Ten chars plus.", "entities": []}}
        ],
        "usage": {"input_tokens": 7, "output_tokens": 4},
        "stop_reason": "tool_use",
    }
    script = Script(replies=[(200, reply)])
    with serve(script) as url:
        client = LLMClient(AnthropicLLM("claude-x", "secret", base_url=url))
        out = client.structured(USER, Synopsis)
    assert out.value.synopsis == "Ten chars plus." and out.result.usage.prompt_tokens == 7
    sent = script.requests[0]
    assert sent["system"] == "Be brief." and [m["role"] for m in sent["messages"]] == ["user"]
    assert sent["tool_choice"] == {"type": "tool", "name": "answer"}
    assert (
        script.headers[0]["x-api-key"] == "secret" and script.headers[0]["anthropic-version"] == "2023-06-01"
    )


def test_factory() -> None:
    assert create_llm(LLMSettings()) is None
    with pytest.raises(ConfigError, match=r"needs llm\.base_url"):
        create_llm(LLMSettings(provider="openai", model="m"))
    with pytest.raises(ConfigError, match=r"needs llm\.model"):
        create_llm(LLMSettings(provider="anthropic"))
    client = create_llm(LLMSettings(provider="openai", model="m", base_url="http://127.0.0.1:9/v1"))
    assert client is not None and client.name == "openai:m"


def test_scripted_model_replays_a_recording(tmp_path: Path) -> None:
    recording = tmp_path / "session.jsonl"
    recording.write_text('{"reply": "one"}\n{"reply": "two"}\n')
    llm = LLMClient(ScriptedLLM.from_recording(recording))
    assert [llm.complete("a").text, llm.complete("b").text] == ["one", "two"]
    with pytest.raises(LLMError, match="only 2 replies"):
        llm.complete("c")


def test_json_object_mode_for_llama_cpp_servers() -> None:
    script = Script(replies=[openai_reply(json.dumps({"synopsis": "Long enough synopsis.", "entities": []}))])
    with serve(script) as url:
        LLMClient(OpenAICompatibleLLM(url, "m", json_mode="json_object")).structured(USER, Synopsis)
    assert script.requests[0]["response_format"]["type"] == "json_object"
    schema = script.requests[0]["response_format"]["schema"]
    assert schema["required"] == ["synopsis", "entities"]
    sent = json.dumps(schema)
    assert "maxLength" not in sent and "minLength" not in sent and "maxItems" not in sent, (
        "length limits become one grammar rule per character in llama.cpp, which then fails"
    )


def test_a_reply_breaking_the_limits_left_out_of_the_grammar_is_still_refused() -> None:
    too_long = json.dumps({"synopsis": "x" * 300, "entities": []})
    fine = json.dumps({"synopsis": "Long enough synopsis.", "entities": []})
    script = Script(replies=[openai_reply(too_long), openai_reply(fine)])
    with serve(script) as url:
        got = LLMClient(OpenAICompatibleLLM(url, "m", json_mode="json_object")).structured(USER, Synopsis)
    assert got.attempts == 2 and got.value.synopsis == "Long enough synopsis."


def test_openai_streams_pieces_and_usage_and_caches_the_whole_reply(tmp_path: Path) -> None:
    script = Script(replies=[openai_stream(["Hel", "lo ", "there"])])
    with serve(script) as url:
        client = client_for(url, cache=ResponseCache(tmp_path / "c.db"))
        assert list(client.stream(USER, max_tokens=20)) == ["Hel", "lo ", "there"]
        assert list(client.stream(USER, max_tokens=20)) == ["Hello there"], "the second time from the cache"
    assert script.requests[0]["stream"] is True and len(script.requests) == 1
    assert client.accounting.calls == 1 and client.accounting.prompt_tokens == 11
    assert client.accounting.completion_tokens == 3 and client.accounting.cached == 1


def test_a_stream_is_retried_before_its_first_piece_never_after() -> None:
    script = Script(replies=[(503, {"error": "busy"}), openai_stream(["ok"], usage=False)])
    with serve(script) as url:
        client = client_for(url, max_retries=2)
        assert list(client.stream(USER)) == ["ok"]
    assert client.sleeps == [1.0]  # type: ignore[attr-defined]
    assert client.accounting.completion_tokens >= 1, "estimated when the server reports no usage"

    broken = "data: " + json.dumps({"choices": [{"delta": {"content": "half"}}]}) + "\n\ndata: {not json\n\n"
    script = Script(replies=[(200, broken), openai_stream(["never"])])
    with serve(script) as url:
        client = client_for(url, max_retries=2)
        got: list[str] = []
        with pytest.raises(LLMError, match="unexpected stream event"):
            for piece in client.stream(USER):
                got.append(piece)
    assert got == ["half"] and len(script.requests) == 1, "what was shown is not asked for again"


def test_anthropic_streams_text_deltas_with_usage() -> None:
    script = Script(replies=[anthropic_stream(["Bon", "jour"])])
    with serve(script) as url:
        client = LLMClient(AnthropicLLM("claude-x", "secret", base_url=url))
        assert "".join(client.stream(USER)) == "Bonjour"
    assert script.requests[0]["stream"] is True and script.requests[0]["system"] == "Be brief."
    assert client.accounting.prompt_tokens == 9 and client.accounting.completion_tokens == 2


def test_a_provider_without_streaming_is_streamed_whole() -> None:
    class Plain:
        name = "plain"

        def chat(self, messages, max_tokens, temperature, json_schema=None):  # type: ignore[no-untyped-def]
            return ScriptedLLM(["whole reply"]).chat(messages, max_tokens, temperature)

    assert list(LLMClient(Plain()).stream(USER)) == ["whole reply"]  # type: ignore[arg-type]
