"""`shu eval --enrich-llm`: the eval corpus enriched by the configured LLM (a scripted one here),
its artifacts stored, and cached apart from the extractive corpus."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from shu.config.settings import EnrichSettings, load_settings
from shu.enrich.llm import LLMEnricher
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.serve.cli import app
from shu.text import content_words
from shu_eval.build import open_eval_store
from shu_eval.dataset import load_dataset
from tests.conftest import CountingEmbedder

TINY = Path(__file__).parent / "data" / "tiny"
ENRICH = EnrichSettings(
    enabled=True, profiles=True, questions=True, chunk_profiles=False, context=True, llm_relationships=False
)


def _between(text: str, tag: str) -> str:
    return " ".join(text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0].split())


def grounded_reply(messages: list[Message], schema: dict | None) -> str:  # type: ignore[type-arg]
    """Artifacts made from the document the prompt gives, so they pass validation."""
    system, user = messages[0].content, messages[1].content
    document = _between(user, "document")
    if "profile of one document" in system:
        topic = " ".join(document.split()[:3])
        return json.dumps(
            {
                "synopsis": document,
                "document_type": "reference",
                "answers_questions_about": [topic],
                "entities": [],
            }
        )
    if "questions a document answers" in system:
        words = list(dict.fromkeys(w for w in content_words(document) if w.isalpha()))
        return json.dumps({"questions": [f"What about {w}?" for w in words[:6]]})
    return json.dumps({"context": f"{document} {document}"})  # the context prefix: 15+ words


def test_the_llm_writes_the_eval_corpus_and_it_is_cached_apart(
    tmp_path: Path, embedder: CountingEmbedder
) -> None:
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    model = ScriptedLLM(grounded_reply)
    llm = LLMEnricher(LLMClient(model))
    built = open_eval_store(dataset, settings, embedder, None, ENRICH, llm)
    assert not built.reused and llm.failures == {}
    assert llm.successes == {"profile": 5, "questions": 5, "context": 6}, "5 documents, 6 chunks"
    profile = built.store.get_profile("r1")
    assert profile is not None and profile.provenance.method == "llm:scripted:scripted"
    assert profile.synopsis == "The Laki fissure erupted in 1783 and poisoned livestock across Iceland."
    questions = built.store.list_questions("r1")
    assert questions[0].text == "What about laki?" and questions[0].provenance.method.startswith("llm:")
    (chunk,) = built.store.list_chunks("r2")
    assert chunk.context == " ".join(["Vatnajokull is the largest glacier by volume in Europe."] * 2)
    assert json.loads((built.folder / "build.json").read_text())["llm"]["made"]["context"] == 6
    built.store.close()

    extractive = open_eval_store(dataset, settings, embedder, None, ENRICH)
    assert not extractive.reused and extractive.folder != built.folder, "the model is in the cache key"
    profile = extractive.store.get_profile("r1")
    assert profile is not None and profile.provenance.method == "extractive"
    extractive.store.close()

    calls = len(model.calls)
    again = open_eval_store(dataset, settings, embedder, None, ENRICH, llm)
    assert again.reused and again.folder == built.folder and len(model.calls) == calls
    again.store.close()
    plain = open_eval_store(dataset, settings, embedder, None, None, llm)
    assert plain.folder not in (built.folder, extractive.folder) and len(model.calls) == calls
    plain.store.close()


def test_enrich_llm_without_a_model_is_refused(tmp_path: Path) -> None:
    home = ["--home", str(tmp_path / "h")]
    result = CliRunner().invoke(app, [*home, "eval", str(TINY), "--configs", "+questions", "--enrich-llm"])
    assert result.exit_code != 0 and "--enrich-llm needs an LLM" in result.output


def test_a_config_run_with_enrich_llm_says_who_wrote_its_surfaces() -> None:
    from shu_eval.configs import PRESETS, written_by

    context = written_by(PRESETS["+context"], "local:qwen2.5-coder-1.5b")
    assert context.description == (
        "hybrid over chunks indexed with a context prefix "
        "(written by local:qwen2.5-coder-1.5b, extractive where it failed validation), RRF"
    )
    assert written_by(PRESETS["hybrid"], "local:qwen").description == PRESETS["hybrid"].description
