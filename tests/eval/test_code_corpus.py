"""The code corpus built from an installed package: every judged chunk exists, ids are unique,
and a package without shipped questions (or at another version) is refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shu.errors import ShuError
from shu_eval.code_corpus import build_code_corpus
from shu_eval.dataset import load_dataset


def test_the_httpx_corpus_holds_every_judged_chunk(tmp_path: Path) -> None:
    documents, chunks = build_code_corpus("httpx", tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "corpus.jsonl").read_text().splitlines()]
    ids = [row["_id"] for row in rows]
    assert len(ids) == len(set(ids)) == chunks and documents < chunks
    for split in ("dev", "test"):
        loaded = load_dataset(tmp_path, split)
        judged = {corpus_id for rel in loaded.qrels.values() for corpus_id in rel}
        assert len(loaded.queries) == 30 and judged <= set(ids), judged - set(ids)
    method = rows[ids.index("httpx._models.Response.raise_for_status")]
    assert method["metadata"]["doc_id"] == "httpx._models.Response" and "HTTPStatusError" in method["text"]


def test_a_package_without_questions_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ShuError, match="no questions ship for package 'click'"):
        build_code_corpus("click", tmp_path)
