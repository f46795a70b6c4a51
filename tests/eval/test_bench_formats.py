"""`shu bench-formats` measures a format end to end: documents and headings made, conversion and
ingestion time, chunks written."""

from __future__ import annotations

from shu_eval.bench_formats import _measure, markdown, samples
from shu_eval.samples.mail import make_mbox
from tests.conftest import CountingEmbedder


def test_a_format_is_measured_from_conversion_to_the_store(embedder: CountingEmbedder) -> None:
    result = _measure("E-mail thread", {"thread.mbox": make_mbox()}, embedder)
    assert (result.files, result.documents, result.note) == (1, 3, "")
    assert result.sections >= 3 and result.chunks >= 3 and result.convert_ms > 0 and result.ingest_s > 0
    table = markdown([result])
    assert "| E-mail thread | 1 |" in table and "| 3 |" in table
    assert len(samples()) == 13 and len({name for _, name, _ in samples()}) == 13
