import numpy as np
import pytest

from shu.store.vectors import VectorIndex


def unit_rows(count: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def brute_force(matrix: np.ndarray, vector: np.ndarray, limit: int) -> list[int]:
    return list(np.argsort(-(matrix @ vector), kind="stable")[:limit])


def test_exact_search_is_brute_force_cosine() -> None:
    matrix = unit_rows(500)
    index = VectorIndex(matrix, [str(i) for i in range(500)])
    query = unit_rows(1, seed=9)[0]
    found = index.search(query, 10)
    assert [int(i) for i, _ in found] == brute_force(matrix, query, 10)
    assert found[0][1] == pytest.approx(float(matrix[int(found[0][0])] @ query), abs=1e-5)


def test_the_sketch_shortlist_keeps_scores_exact_and_finds_near_neighbours() -> None:
    matrix = unit_rows(5000, seed=1)
    index = VectorIndex(
        matrix, [str(i) for i in range(5000)], exact_limit=100, shortlist=0.05, min_shortlist=0
    )
    assert index.sketch is not None and index.sketch.shape == (1, 5000)
    rng = np.random.default_rng(2)
    recalled = 0
    for target in rng.integers(0, 5000, 50):
        query = matrix[target] + 0.05 * rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        found = index.search(query, 5)
        assert found[0][0] == str(target), "a near-duplicate of a row is always found first"
        assert [s for _, s in found] == pytest.approx(
            [float(matrix[int(i)] @ query) for i, _ in found], abs=1e-5
        )
        recalled += len({int(i) for i, _ in found} & set(brute_force(matrix, query, 5)))
    assert recalled / 250 >= 0.6


def test_a_shortlist_larger_than_the_index_is_exact() -> None:
    matrix = unit_rows(300)
    index = VectorIndex(matrix, [str(i) for i in range(300)], exact_limit=10, min_shortlist=1000)
    query = unit_rows(1, seed=5)[0]
    assert [int(i) for i, _ in index.search(query, 20)] == brute_force(matrix, query, 20)


def test_empty_index() -> None:
    assert VectorIndex(np.zeros((0, 0), dtype=np.float32), []).search(np.ones(4), 5) == []


def compact_index(matrix: np.ndarray, stored: dict[str, np.ndarray], **options: float) -> VectorIndex:
    ids = [str(i) for i in range(len(matrix))]
    blocks = ((ids[i : i + 700], matrix[i : i + 700]) for i in range(0, len(ids), 700))

    def read_exact(wanted: list[str]) -> dict[str, np.ndarray]:
        return {i: stored[i] for i in wanted if i in stored}

    return VectorIndex.streamed(blocks, len(ids), read_exact, exact_limit=100, **options)  # type: ignore[arg-type]


def test_a_compact_index_keeps_no_float32_matrix_and_returns_exact_scores() -> None:
    matrix = unit_rows(5000, seed=3)
    stored = {str(i): row for i, row in enumerate(matrix)}
    index = compact_index(matrix, stored, shortlist=0.2, min_shortlist=0)
    assert index.matrix is None and index.codes is not None and index.codes.dtype == np.int8
    assert index.codes.nbytes + index.sketch.nbytes + index.scales.nbytes < matrix.nbytes / 3  # type: ignore[union-attr]
    rng = np.random.default_rng(4)
    recalled = 0
    for target in rng.integers(0, 5000, 40):
        query = matrix[target] + 0.05 * rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        found = index.search(query, 10)
        assert found[0][0] == str(target)
        assert [s for _, s in found] == pytest.approx(
            [float(matrix[int(i)] @ query) for i, _ in found], abs=1e-6
        )
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
        recalled += len({int(i) for i, _ in found} & set(brute_force(matrix, query, 10)))
    assert recalled / 400 >= 0.7


def test_a_compact_index_with_the_whole_shortlist_matches_exact_search() -> None:
    """With every row shortlisted, only the int8 step stands between it and brute force: the
    rescoring of four times the limit in float32 puts the exact top 10 back in order."""
    matrix = unit_rows(3000, seed=6)
    index = compact_index(matrix, {str(i): row for i, row in enumerate(matrix)}, shortlist=1.0)
    for seed in range(20):
        query = unit_rows(1, seed=100 + seed)[0]
        assert [int(i) for i, _ in index.search(query, 10)] == brute_force(matrix, query, 10)


def test_rows_gone_from_the_store_are_left_out_not_scored_from_the_copy() -> None:
    matrix = unit_rows(2000, seed=7)
    stored = {str(i): row for i, row in enumerate(matrix)}
    index = compact_index(matrix, stored, shortlist=1.0)
    query = matrix[42]
    assert index.search(query, 3)[0][0] == "42"
    del stored["42"]
    found = index.search(query, 3)
    assert "42" not in {i for i, _ in found} and len(found) == 3
    assert compact_index(matrix, {}, shortlist=1.0).search(query, 3) == []


def test_a_small_streamed_index_is_exact_in_float32() -> None:
    matrix = unit_rows(80)
    index = VectorIndex.streamed([([str(i) for i in range(80)], matrix)], 80, lambda ids: {}, exact_limit=100)
    assert index.matrix is not None and index.codes is None
    query = unit_rows(1, seed=8)[0]
    assert [int(i) for i, _ in index.search(query, 10)] == brute_force(matrix, query, 10)


@pytest.mark.parametrize("compact", [False, True])
def test_a_filters_rows_are_shortlisted_and_ranked_among_themselves(compact: bool) -> None:
    """The sign-sketch shortlist of a filter is taken among its rows (a document's chunks): every
    hit is one of them, and a near-duplicate of a kept row is found first; a row outside is never
    returned however near it is."""
    matrix = unit_rows(5000, seed=11)
    ids = [str(i) for i in range(5000)]
    if compact:
        index = compact_index(matrix, dict(zip(ids, matrix, strict=True)), shortlist=0.05, min_shortlist=0)
    else:
        index = VectorIndex(matrix, ids, exact_limit=100, shortlist=0.05, min_shortlist=0)
    index.own(f"doc{i // 50}" for i in range(5000))  # 100 documents of 50 rows
    kept = frozenset(f"doc{d}" for d in range(0, 100, 4))  # a quarter of them: 1,250 rows
    rows = index.rows_of(kept)
    assert len(rows) == 1250 and index.rescore < len(rows), "the shortlist is taken among the rows"
    rng = np.random.default_rng(12)
    for target in rng.integers(0, 5000, 30):
        query = matrix[target] + 0.05 * rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        found = index.search(query, 10, rows)
        assert len(found) == 10 and all(f"doc{int(i) // 50}" in kept for i, _ in found)
        if f"doc{target // 50}" in kept:
            assert found[0][0] == str(target)
        else:
            assert str(target) not in {i for i, _ in found}
    assert index.search(matrix[0], 10, index.rows_of(frozenset({"nowhere"}))) == []
