"""`shu tune`: weights fitted by coordinate ascent on part of the labelled questions (a file, the
users' feedback, or a BEIR dataset's train split), kept only when they beat the current ones on
the other part, written into the home's config and used from then on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.config.settings import load_settings
from shu.errors import ConfigError, InvalidRequestError
from shu.kb import KnowledgeBase
from shu.serve.cli import app
from shu.types import Signal
from shu_eval.personal import DEFAULT_DATA, TODAY, _set_up_users, load
from shu_eval.tune import Labelled, from_feedback, load_queries, markdown, split, tune, write
from tests.conftest import CountingEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture
def northwind(tmp_path: Path, embedder: CountingEmbedder) -> KnowledgeBase:
    data = load(DEFAULT_DATA)
    kb = KnowledgeBase(
        load_settings(tmp_path / "home", [f"retrieval.personal.now={TODAY}"]), embedder=embedder
    )
    shutil.copytree(data.persona, tmp_path / "personas" / data.slug)
    assert not kb.ingest(tmp_path / "personas" / data.slug).failed
    _set_up_users(kb, data)
    yield kb
    kb.close()


def test_weights_are_fitted_on_half_and_judged_on_the_other(northwind: KnowledgeBase) -> None:
    queries = load_queries(DEFAULT_DATA / "queries.jsonl")
    train, held_out = split(queries)
    assert train and held_out and not {q.id for q in train} & {q.id for q in held_out}
    assert split(queries) == (train, held_out), "the split is deterministic"
    space = {"personal.max_boost": [0.3, 0.8], "persona.fusion": ["convex", "rrf"]}
    result = tune(northwind, "northwind", queries, space)
    assert result.current == {"personal.max_boost": 0.8, "persona.fusion": "convex"}
    assert result.candidates in (3, 5), "the current, then each other value once a round"
    assert result.train[1] >= result.train[0], "the best on train is at least the current"
    assert 0.7 < result.held_out[0] < 1.0
    assert "| current |" in markdown(result) and "held-out nDCG@10" in markdown(result)
    with pytest.raises(InvalidRequestError, match="too few"):
        tune(northwind, "northwind", [Labelled("one", "x", None, {"a": 1})], space)


def test_feedback_becomes_labelled_questions(northwind: KnowledgeBase) -> None:
    question = "What's the budget?"
    for kind, doc in (("used_in_answer", "acme-budget"), ("used_in_answer", "acme-proposal"), ("up", None)):
        northwind.accounts.feedback(
            Signal(user="vera", persona="northwind", kind=kind, doc_id=doc, question=question)
        )  # type: ignore[arg-type]
    omar = Signal(
        user="omar", persona="northwind", kind="used_in_answer", doc_id="q4-budget", question=question
    )
    northwind.accounts.feedback(omar)
    for kind, doc in (("used_in_answer", "q4-risks"), ("down", None)):
        northwind.accounts.feedback(
            Signal(user="omar", persona="northwind", kind=kind, doc_id=doc, question="Risks?")
        )  # type: ignore[arg-type]
    labelled = {(q.user, q.text): q.relevant for q in from_feedback(northwind.store, "northwind")}
    assert labelled == {
        ("omar", question): {"q4-budget": 1},
        ("vera", question): {"acme-budget": 2, "acme-proposal": 2},
    }, "approved answers grade 2, plain use 1, a thumbs-down question nothing"


def test_written_weights_are_used_and_checked(tmp_path: Path, northwind: KnowledgeBase) -> None:
    home = northwind.settings.home
    path = write(home, "northwind", {"personal.max_boost": 0.45, "persona.fusion": "rrf"})
    config = json.loads(path.read_text())["retrieval"]
    assert config["personal"] == {"max_boost": 0.45} and config["tuned"] == {"northwind": {"fusion": "rrf"}}
    settings = load_settings(home, [])
    assert settings.retrieval.personal.max_boost == 0.45
    reopened = KnowledgeBase(settings, embedder=northwind.parts.embedder, store=northwind.store)
    assert reopened.parts.pipeline.params(reopened.persona("northwind")).fusion == "rrf"
    path.write_text(json.dumps({"retrieval": {"tuned": {"northwind": {"fusion_mode": "rrf"}}}}))
    with pytest.raises(ConfigError, match="fusion_mode"):
        load_settings(home, [])


def test_tune_on_a_beir_dataset_prints_both_weights(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path / "home"), "tune", "--dataset", "tests/eval/data/tiny"]
    )
    assert result.exit_code == 0, result.output
    assert "tiny (half of test → the other half)" in result.output
    assert "| current |" in result.output and "| best on train |" in result.output


def test_tune_needs_one_source_of_questions(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "tune", "northwind"])
    assert result.exit_code != 0 and "--queries FILE or --feedback" in result.output


def test_a_broken_query_file_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "q.jsonl"
    broken.write_text('{"id": "a", "text": "x"}\n')
    with pytest.raises(InvalidRequestError, match="not a labelled query file"):
        load_queries(broken)
