"""Which embedder each job gets: the reader's sentences beside EmbeddingGemma are embedded by
MiniLM unless `answer.sentence_embedder=store` says otherwise."""

from __future__ import annotations

from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.factory import create_answerer
from shu.config.settings import AnswerSettings
from shu.models.embed.factory import sentence_embedder
from shu.models.embed.gemma import GemmaEmbedder
from shu.models.embed.minilm import MiniLMEmbedder


def test_beside_embeddinggemma_the_reader_borrows_one_shared_minilm() -> None:
    gemma = GemmaEmbedder(folder=None)  # not installed: nothing here embeds with it
    first, second = sentence_embedder(gemma), sentence_embedder(GemmaEmbedder(folder=None, dim=256))
    assert isinstance(first, MiniLMEmbedder) and not first.quantized
    assert first is second, "one MiniLM a process, loaded once"
    assert sentence_embedder(gemma, "store") is gemma


def test_an_embedder_that_names_no_lighter_model_embeds_the_sentences_itself() -> None:
    minilm = MiniLMEmbedder(quantized=True)
    assert sentence_embedder(minilm) is minilm
    assert sentence_embedder(minilm, "store") is minilm


def test_the_answerer_reads_with_the_embedder_the_setting_chooses() -> None:
    gemma = GemmaEmbedder(folder=None)
    for choice, expected in (("auto", MiniLMEmbedder), ("store", GemmaEmbedder)):
        settings = AnswerSettings.model_validate({"method": "extractive", "sentence_embedder": choice})
        answerer = create_answerer(settings, gemma)
        inner = answerer.inner
        assert isinstance(inner, ExtractiveAnswerer)
        assert isinstance(inner.embedder, expected)
