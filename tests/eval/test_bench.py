"""`shu bench` runs end to end at a small size and reports what each store size costs on disk
(numbers are for docs/benchmarks.md, not asserted here)."""

from __future__ import annotations

from pathlib import Path

from shu_eval.bench import markdown_tables, run


def test_each_store_size_is_searched_and_its_file_size_reported(tmp_path: Path) -> None:
    ingest, searches = run(documents=2, sizes=[100, 400], queries=3, workdir=tmp_path)
    assert ingest.documents == 2 and ingest.chunks > 0
    assert [s.chunks for s in searches] == [100, 400]
    small, large = searches
    assert all(len(s.total_ms) == 3 and len(s.pipeline_ms) == 3 for s in searches)
    # 384 float32 dimensions a chunk are 1.5 kB: four times the chunks take more room
    assert 0.1 < small.store_mb < large.store_mb
    rows = [line for line in markdown_tables(ingest, searches).splitlines() if line.startswith("| 3 queries")]
    assert [row.split("|")[2].strip() for row in rows] == ["100", "400"]
    assert rows[1].rstrip(" |").endswith(f"{large.store_mb:.1f}")
    assert not list(tmp_path.iterdir()), "the benchmark's folder is removed after the run"
