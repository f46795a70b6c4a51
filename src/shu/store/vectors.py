"""In-memory vector search over one persona's unit vectors.

Up to `exact_limit` rows every query scores every row (one matrix-vector product). Above it, a
1-bit sign sketch of each vector (48 bytes for 384 dimensions) ranks all rows by Hamming
distance first, and only the best `shortlist` fraction of rows (at least `min_shortlist`) is
scored exactly: the same float32 cosine, read from a tenth of the matrix. Measured on SciFact
with all-MiniLM-L6-v2 (5,183 abstracts, 1,109 queries), a 10 % shortlist keeps recall@10 at
0.997 and recall@20 at 0.993 of exact search; 5 % gives 0.988 / 0.974; 1 % only 0.890 / 0.794.
"""

from __future__ import annotations

import numpy as np


class VectorIndex:
    def __init__(
        self,
        matrix: np.ndarray,
        ids: list[str],
        exact_limit: int = 20_000,
        shortlist: float = 0.1,
        min_shortlist: int = 1000,
    ) -> None:
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.ids = ids
        self.rescore = max(min_shortlist, int(np.ceil(shortlist * len(ids))))
        sketch = _sign_bits(self.matrix) if len(ids) > exact_limit else None
        self.sketch = np.ascontiguousarray(sketch.T) if sketch is not None else None  # (words, rows)

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        if not self.ids or limit <= 0:
            return []
        vector = np.asarray(vector, dtype=np.float32)
        if self.sketch is None:
            rows = np.arange(len(self.ids))
            scores = self.matrix @ vector
        else:
            rows = self._shortlist(vector, max(self.rescore, limit))
            scores = self.matrix[rows] @ vector
        best = _top(scores, limit)
        return [(self.ids[rows[i]], float(scores[i])) for i in best]

    def _shortlist(self, vector: np.ndarray, size: int) -> np.ndarray:
        assert self.sketch is not None
        query_words = _sign_bits(vector[None, :])[0]
        # Column-major words: six passes over contiguous arrays beat one pass over 6-wide rows.
        distance = np.bitwise_count(self.sketch[0] ^ query_words[0]).astype(np.uint16)
        for word, query_word in zip(self.sketch[1:], query_words[1:], strict=True):
            distance += np.bitwise_count(word ^ query_word)
        if size >= len(distance):
            return np.arange(len(distance))
        rows = np.argpartition(distance, size - 1)[:size]
        rows.sort()  # gather in memory order
        return rows


def _sign_bits(matrix: np.ndarray) -> np.ndarray:
    """(rows, dim) floats → (rows, ceil(dim / 64)) uint64 words of sign bits."""
    packed = np.packbits(matrix > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return packed.view(np.uint64)


def _top(scores: np.ndarray, limit: int) -> np.ndarray:
    top = np.argpartition(-scores, limit - 1)[:limit] if limit < len(scores) else np.arange(len(scores))
    return top[np.argsort(-scores[top], kind="stable")]
