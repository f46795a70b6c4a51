"""The cross-encoder path with a real ONNX model and tokenizer (tiny, random), and the LLM
reranker with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shu.errors import ConfigError
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.models.llm.scripted import ScriptedLLM
from shu.models.rerank.cross_encoder import CrossEncoderReranker
from shu.models.rerank.llm import LLMReranker
from tests.models.tiny_cross_encoder import build_tiny_cross_encoder

PASSAGES = [
    "The Pro plan costs 65 per seat per month.",
    "SAML SSO works with Okta and Azure.",
    "An alert fires when a metric crosses its threshold.",
    "the team plan",
] * 5


def test_every_passage_is_scored_and_batching_changes_nothing(tmp_path: Path) -> None:
    folder = build_tiny_cross_encoder(tmp_path / "ce")
    one_by_one = CrossEncoderReranker(folder, batch_size=1).score(
        "How much does the Pro plan cost?", PASSAGES
    )
    batched = CrossEncoderReranker(folder, batch_size=16).score("How much does the Pro plan cost?", PASSAGES)
    assert len(batched) == len(PASSAGES) == 20
    assert batched == pytest.approx(one_by_one, abs=1e-5), "padding is masked out"
    assert batched[0] == pytest.approx(batched[4], abs=1e-6), "the same passage scores the same"
    assert len(set(round(s, 5) for s in batched[:4])) == 4, "different passages score differently"


def test_a_missing_or_broken_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing model\.onnx, tokenizer\.json"):
        CrossEncoderReranker(tmp_path)
    folder = build_tiny_cross_encoder(tmp_path / "ce")
    (folder / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ConfigError, match=r"cannot load model\.onnx"):
        CrossEncoderReranker(folder).score("q", ["p"])


def test_llm_reranker_scores_in_batches_and_refuses_bad_answers() -> None:
    asked: list[int] = []

    def reply(messages: list[Message], schema: dict | None) -> str:  # type: ignore[type-arg]
        count = messages[1].content.count("<passage n=")
        asked.append(count)
        return json.dumps({"scores": list(range(count))})

    reranker = LLMReranker(LLMClient(ScriptedLLM(reply)), batch_size=8)
    assert reranker.score("q", [f"p{i}" for i in range(20)]) == [*range(8), *range(8), *range(4)]
    assert asked == [8, 8, 4]
    wrong = LLMReranker(LLMClient(ScriptedLLM(lambda m, s: json.dumps({"scores": [11]}))))
    with pytest.raises(StructuredOutputError):
        wrong.score("q", ["p1"])
