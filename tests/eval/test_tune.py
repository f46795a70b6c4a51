"""`shu tune`: weights fitted on half the labelled questions, kept only when they beat the
current ones on the other half, written into the home's config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.errors import InvalidRequestError
from shu.eval.personal import DEFAULT_DATA, _set_up_users, load
from shu.eval.tune import Labelled, load_queries, markdown, split, tune, write
from shu.kb import KnowledgeBase
from tests.conftest import CountingEmbedder

pytestmark = pytest.mark.slow


def test_weights_are_fitted_on_half_and_judged_on_the_other(
    tmp_path: Path, embedder: CountingEmbedder
) -> None:
    data = load(DEFAULT_DATA)
    kb = KnowledgeBase(load_settings(tmp_path / "home", []), embedder=embedder)
    shutil.copytree(data.persona, tmp_path / "personas" / data.slug)
    assert not kb.ingest(tmp_path / "personas" / data.slug).failed
    _set_up_users(kb, data)
    queries = load_queries(DEFAULT_DATA / "queries.jsonl")
    train, held_out = split(queries)
    assert train and held_out and not {q.id for q in train} & {q.id for q in held_out}
    assert split(queries) == (train, held_out), "the split is deterministic"
    grid = {"max_boost": [0.1, 0.3], "contact": [0.0, 0.2]}
    result = tune(kb, data.slug, queries, grid)
    assert result.candidates == 5 and result.current == {"max_boost": 0.3, "contact": 0.2}
    assert result.train[1] >= result.train[0], "the best on train is at least the current"
    assert 0.5 < result.held_out[0] < 1.0
    table = markdown(result)
    assert "| current | 0.3 | 0.2 |" in table and "held-out nDCG@10" in table
    path = write(tmp_path / "home", {"max_boost": 0.45})
    assert json.loads(path.read_text())["retrieval"]["personal"] == {"max_boost": 0.45}
    assert load_settings(tmp_path / "home", []).retrieval.personal.max_boost == 0.45
    with pytest.raises(InvalidRequestError, match="too few"):
        tune(kb, data.slug, [Labelled("one", "x", None, {"a": 1})], grid)
    kb.close()


def test_a_broken_query_file_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "q.jsonl"
    broken.write_text('{"id": "a", "text": "x"}\n')
    with pytest.raises(InvalidRequestError, match="not a labelled query file"):
        load_queries(broken)
