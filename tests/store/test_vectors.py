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
