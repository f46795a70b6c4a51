"""EmbeddingGemma-300M end to end: the real model, installed by the test command (`shu models
install embeddinggemma-300m --accept-terms`), its graph written by Shu, its vectors checked against
sentence-transformers' own (tests/models/data/embeddinggemma-reference.json, made by the script
beside it), then a knowledge base that ingests and searches with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shu.config.models import EmbedderSettings
from shu.errors import ConfigError, EmbedderError
from shu.kb import open_kb
from shu.models.embed.factory import create_embedder, installed_folder
from shu.models.embed.gemma import DOCUMENT_PROMPT, MODEL, QUERY_PROMPT, GemmaEmbedder
from tests.conftest import PersonaMaker, doc

REFERENCE = json.loads((Path(__file__).parent / "data" / "embeddinggemma-reference.json").read_text())


@pytest.fixture(scope="module")
def folder() -> Path:
    found = installed_folder(EmbedderSettings())
    if found is None:
        pytest.fail(
            f"{MODEL} is not installed: the test command runs `shu models install {MODEL} --accept-terms`"
        )
    return found


@pytest.fixture(scope="module")
def gemma(folder: Path) -> GemmaEmbedder:
    return GemmaEmbedder(folder, max_tokens=2048)


def test_vectors_match_sentence_transformers(gemma: GemmaEmbedder) -> None:
    """Every reference text, in one padded batch (10 to 1,149 tokens, across the sliding window)."""
    texts = [t.removeprefix(DOCUMENT_PROMPT) for t in REFERENCE["texts"]]
    prompted = [t if t.startswith(QUERY_PROMPT) else DOCUMENT_PROMPT + t for t in texts]
    assert prompted == REFERENCE["texts"]
    got = gemma._embed_batch(prompted)
    cosines = (got * np.array(REFERENCE["vectors"])).sum(1)
    assert cosines.min() > 0.9999, cosines


def test_queries_and_documents_carry_their_prompts(gemma: GemmaEmbedder) -> None:
    reference = np.array(REFERENCE["vectors"])
    query = gemma.embed_query(REFERENCE["texts"][0].removeprefix(QUERY_PROMPT))
    documents = gemma.embed_documents([t.removeprefix(DOCUMENT_PROMPT) for t in REFERENCE["texts"][1:3]])
    assert query @ reference[0] > 0.9999
    assert (documents * reference[1:3]).sum(1).min() > 0.9999
    assert query @ documents[0] > query @ documents[1]  # backups are kept 35 days


def test_a_matryoshka_prefix_is_the_cut_vector_renormalised(folder: Path, gemma: GemmaEmbedder) -> None:
    small = GemmaEmbedder(folder, dim=256)
    text = "Backups of every workspace are kept for 35 days."
    full, cut = gemma.embed_documents([text])[0], small.embed_documents([text])[0]
    assert cut.shape == (256,) and small.name == f"{MODEL}-onnx-256" != gemma.name
    assert np.allclose(cut, full[:256] / np.linalg.norm(full[:256]), atol=1e-5)


def test_a_knowledge_base_ingests_and_searches_with_it(
    tmp_path: Path, make_persona: PersonaMaker, folder: Path
) -> None:
    personas = make_persona(
        "ops",
        rag={
            "backups.md": doc(
                "backups", "Backups", "Workspace backups are kept for 35 days, then overwritten."
            ),
            "courier.md": doc("courier", "Courier", "The courier collects parcels from the depot at noon."),
            "fees.md": doc("fees", "Fees", "Late invoices carry a fee of two percent a month."),
        },
    ).parent
    home = tmp_path / "home"
    with open_kb(home, [f"embedder.model={MODEL}"]) as kb:
        assert kb.parts.embedder.name == f"{MODEL}-onnx"
        report = kb.ingest(personas)
        assert report.counts().get("ingested") == 3 and not report.failed
        hits = kb.search("When does the delivery van come by to pick up packages?", persona="ops")
        assert hits and hits[0].chunk.doc_id == "courier" and hits[0].dense_rank == 1
    with open_kb(home) as kept:  # the settings name MiniLM now: the store keeps EmbeddingGemma
        assert kept.parts.embedder.name == f"{MODEL}-onnx"
        report = kept.ingest(personas, redo="all")
        assert not report.failed and any("reindex PATH --embedder" in note for note in report.notes)
        assert kept.search("delivery van picking up packages", persona="ops")[0].chunk.doc_id == "courier"
        assert kept.switch_embedder() == 3  # `shu reindex --embedder`: every document goes, files stay
        assert kept.parts.embedder.name == "minilm-l6-v2-onnx" and kept.search("courier", persona="ops") == []
        assert not kept.ingest(personas).failed and kept.store.stored_embedder() == "minilm-l6-v2-onnx"
        assert kept.switch_embedder() == 0


def test_not_installed_says_how_to_install(tmp_path: Path) -> None:
    embedder = create_embedder(EmbedderSettings(model=MODEL, models_dir=tmp_path))
    with pytest.raises(EmbedderError, match=f"shu models install {MODEL}"):
        embedder.embed_query("anything")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"model": MODEL, "dim": 300}, "768, 512, 256, 128"),
        ({"model": MODEL, "quantized": True}, "float32 only"),
        ({"dim": 256}, "384 dimensions"),
        ({"model": "e5-large"}, "not a local embedder"),
    ],
)
def test_settings_it_cannot_keep_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        create_embedder(EmbedderSettings.model_validate(settings))
