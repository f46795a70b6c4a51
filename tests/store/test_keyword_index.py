"""The in-memory BM25 index: FTS5's tokens and FTS5's scores, the same results whether built at
once or changed chunk by chunk, and the pruned search equal to the exhaustive one."""

from __future__ import annotations

import random
import sqlite3

import pytest

from shu.analysis import keyword_text
from shu.store.keyword_index import KeywordIndex, KeywordIndexes, build, fts_tokens

TEXTS = [
    "Café owners in Zürich report running costs rising; the café's rent doubled.",
    "The IL-6 pathway and TNF_alpha signalling in 12 patients: a randomized trial.",
    "Running, runner, runs: the runners ran as it is, was and always will be.",
    "Rent, rent, rent. Costs of the new lease and the deposit for the Harbour Street office.",
    "Network cutover: servers, VPN downtime and deployment freeze on Friday.",
    "A short one.",
    "Ångström-level résumé naïve coöperation façade — diacritics everywhere.",
]


def fts5(texts: list[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(texts))
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return db


def test_tokens_are_fts5s() -> None:
    db = fts5(TEXTS)
    for rowid, text in enumerate(TEXTS):
        theirs = [r[0] for r in db.execute("SELECT term FROM v WHERE doc = ? ORDER BY offset", (rowid,))]
        assert fts_tokens(text) == theirs, text


def test_scores_are_fts5s_bm25() -> None:
    """Scored as the FTS5 table of the same chunks, which holds their `keyword_text` (`TNF_alpha`
    adds `tnfalpha`, `IL-6` adds `il6`)."""
    db = fts5([keyword_text(text) for text in TEXTS])
    index = build((f"c{i}", f"d{i}", text) for i, text in enumerate(TEXTS))
    queries = ("rent costs", "running", "cafe", "servers downtime friday", "the", "diacritics naive", "il6")
    for query in queries:
        expression = " OR ".join(f'"{t}"' for t in dict.fromkeys(fts_tokens(query)))
        theirs = db.execute(
            "SELECT rowid, -bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid", (expression,)
        ).fetchall()
        ours = index.search(query, 10)
        assert [c for c, _ in ours] == [f"c{r}" for r, _ in theirs], query
        assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-5), query


def corpus(size: int, seed: int = 7) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    common = ["data", "model", "study", "result", "patient"]
    rare = [f"term{i}" for i in range(300)]
    rows = []
    for i in range(size):
        words = rng.choices(common, k=rng.randint(3, 12)) + rng.choices(rare, k=rng.randint(1, 6))
        rows.append((f"c{i}", f"d{i // 3}", " ".join(words)))
    return rows


def test_changed_chunk_by_chunk_it_ranks_as_if_built_at_once() -> None:
    rows = corpus(600)
    grown = KeywordIndex()
    for start in range(0, 600, 50):
        grown.add(rows[start : start + 50])
    grown.remove_documents({"d5", "d77"})
    grown.add([("c999", "d999", "data term3 term3 term4")])
    grown.add([("c10", "d3", "patient term9")])  # a chunk replaced in place
    live = [r for r in rows if r[1] not in {"d5", "d77"} and r[0] != "c10"]
    fresh = build([*live, ("c999", "d999", "data term3 term3 term4"), ("c10", "d3", "patient term9")])
    assert grown.size == fresh.size
    for query in ("data term3", "term9 patient", "study result model", "term150 term151 data"):
        mine, theirs = grown.search(query, 10), fresh.search(query, 10)
        assert [c for c, _ in mine] == [c for c, _ in theirs], query
        assert [s for _, s in mine] == pytest.approx([s for _, s in theirs]), query
    grown.merge()
    merged, theirs = grown.search("data term3", 10), fresh.search("data term3", 10)
    assert [c for c, _ in merged] == [c for c, _ in theirs]
    assert [s for _, s in merged] == pytest.approx([s for _, s in theirs])


def test_pruned_search_equals_exhaustive_search() -> None:
    index = build(corpus(3000, seed=3), batch=500)  # built in six batches
    rng = random.Random(5)
    for _ in range(40):
        query = " ".join(
            [*rng.sample(["data", "model", "study", "result", "patient"], 2), f"term{rng.randrange(300)}"]
        )
        pruned = index.search(query, 10)
        everything = index.search(query, 100_000)[:10]
        assert [c for c, _ in pruned] == [c for c, _ in everything], query
        assert [s for _, s in pruned] == pytest.approx([s for _, s in everything]), query


def test_indexes_follow_the_change_log() -> None:
    chunks = {"a": ("x", "alpha beta"), "b": ("x", "beta gamma"), "c": ("y", "gamma delta")}
    log: list[str] = []

    def read_chunks(persona: str | None, doc_ids: list[str] | None) -> list[tuple[str, str, str, str]]:
        docs = doc_ids if doc_ids is not None else list(chunks)
        return [
            (f"{d}#0", d, chunks[d][1], chunks[d][0])
            for d in docs
            if d in chunks and (persona in (None, chunks[d][0]))
        ]

    def read_changes(seen: int | None) -> tuple[int, int, list[str]]:
        newest = len(log)
        return 1, newest, [] if seen is None else sorted(set(log[seen:]))

    indexes = KeywordIndexes(read_chunks, read_changes)
    assert [c for c, _ in indexes.search("beta", "x", 5)] == ["a#0", "b#0"]
    chunks["a"] = ("x", "omega")
    del chunks["b"]
    chunks["d"] = ("x", "beta beta")
    log += ["a", "b", "d"]
    assert [c for c, _ in indexes.search("beta", "x", 5)] == ["d#0"]
    assert [c for c, _ in indexes.search("omega", "x", 5)] == ["a#0"]
    assert indexes.search("gamma", "x", 5) == [] and [c for c, _ in indexes.search("gamma", "y", 5)] == [
        "c#0"
    ]
