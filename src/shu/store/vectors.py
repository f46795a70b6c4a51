"""In-memory vector search over one persona's unit vectors.

Up to `exact_limit` rows every query scores every row (one matrix-vector product over float32).
Above it the float32 vectors stay in the store and memory holds a compact copy (issue 17: a
million 384-d vectors are 1.5 GB in float32):

1. a 1-bit sign sketch of each vector (48 bytes for 384 dimensions) ranks all rows by Hamming
   distance, and only the best `shortlist` fraction (at least `min_shortlist`) goes on;
2. those are scored with an int8 copy (one byte a dimension and a float32 scale a row: cosine
   error about 5e-4);
3. the best `rescore_factor` × limit of them are read back from the store in float32 and scored
   exactly: the scores returned are exact cosines, as below the limit.

Measured on SciFact with all-MiniLM-L6-v2 (5,183 abstracts, 1,109 queries), a 10 % shortlist
keeps recall@10 at 0.997 and recall@20 at 0.993 of exact search; 5 % gives 0.988 / 0.974; 1 %
only 0.890 / 0.794 (docs/benchmarks.md has the int8 step's figures).

A search runs its matrix-vector products on one BLAS thread: for one query vector OpenBLAS's
threads cost more than they give (SciFact's 5,183 × 384 product: 0.08 ms on one thread, 0.4 ms
on two idle cores, several ms when the cores are busy), and a server runs searches side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from functools import cache

import numpy as np
from threadpoolctl import ThreadpoolController

ExactReader = Callable[[list[str]], dict[str, np.ndarray]]
"""ids → their float32 vectors as stored now (an id gone from the store is left out)"""

Block = tuple[list[str], np.ndarray]
"""(ids, float32 vectors) of consecutive rows"""

_SCORE_ROWS = 8192
"""int8 rows turned to float32 at a time when scoring (stays in cache; one copy of all is slow)"""


@cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS numpy loaded (once: it reads the loaded libraries)


def one_blas_thread() -> AbstractContextManager[object]:
    """BLAS limited to one thread in this block (about 10 µs to set and restore)."""
    limited: AbstractContextManager[object] = _blas().limit(limits=1, user_api="blas")
    return limited


class VectorIndex:
    def __init__(
        self,
        matrix: np.ndarray,
        ids: list[str],
        exact_limit: int = 20_000,
        shortlist: float = 0.1,
        min_shortlist: int = 1000,
    ) -> None:
        """An exact index of float32 rows held in memory (sketched above `exact_limit`)."""
        self.matrix: np.ndarray | None = np.ascontiguousarray(matrix, dtype=np.float32)
        self.ids = ids
        self.rescore = max(min_shortlist, int(np.ceil(shortlist * len(ids))))
        sketch = _sign_bits(self.matrix) if len(ids) > exact_limit else None
        self.sketch = np.ascontiguousarray(sketch.T) if sketch is not None else None  # (words, rows)
        self.codes: np.ndarray | None = None
        self.scales: np.ndarray | None = None
        self.read_exact: ExactReader | None = None
        self.rescore_factor = 4
        self.owners = np.zeros(0, dtype=np.int32)
        """each row's document, as a number in `owner_numbers` (set by `own`)"""
        self.owner_numbers: dict[str, int] = {}

    def own(self, owners: Iterable[str]) -> None:
        """Name each row's document (in row order): what `rows_of` selects by."""
        numbers = self.owner_numbers
        self.owners = np.fromiter(
            (numbers.setdefault(o, len(numbers)) for o in owners), dtype=np.int32, count=len(self.ids)
        )

    def rows_of(self, doc_ids: frozenset[str]) -> np.ndarray:
        """The rows of these documents, in row order (`own` must have named the owners)."""
        wanted = [self.owner_numbers[d] for d in doc_ids if d in self.owner_numbers]
        if not wanted or not len(self.owners):
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.isin(self.owners, np.asarray(wanted, dtype=np.int32)))

    @classmethod
    def streamed(
        cls,
        blocks: Iterable[Block],
        count: int,
        read_exact: ExactReader,
        exact_limit: int = 20_000,
        shortlist: float = 0.1,
        min_shortlist: int = 1000,
    ) -> VectorIndex:
        """An index of `count` rows arriving a block at a time. Above `exact_limit` only the
        sketch and the int8 copy are kept (never the float32 matrix, even while building);
        `read_exact` reads float32 vectors back by key for the final scores."""
        if count <= exact_limit:
            ids: list[str] = []
            parts = []
            for block_ids, vectors in blocks:
                ids += block_ids
                parts.append(np.asarray(vectors, dtype=np.float32))
            matrix = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
            return cls(matrix, ids, exact_limit, shortlist, min_shortlist)
        index = cls(np.zeros((0, 0), dtype=np.float32), [], exact_limit, shortlist, min_shortlist)
        index._fill(blocks, count)
        index.read_exact = read_exact
        index.rescore = max(min_shortlist, int(np.ceil(shortlist * len(index.ids))))
        return index

    def _fill(self, blocks: Iterable[Block], count: int) -> None:
        self.matrix = None
        words = codes = scales = None
        for block_ids, vectors in blocks:
            vectors = np.asarray(vectors, dtype=np.float32)
            if codes is None:
                words = np.empty((-(-vectors.shape[1] // 64), count), dtype=np.uint64)
                codes = np.empty((count, vectors.shape[1]), dtype=np.int8)
                scales = np.empty(count, dtype=np.float32)
            assert words is not None and scales is not None
            at = slice(len(self.ids), len(self.ids) + len(block_ids))
            words[:, at] = _sign_bits(vectors).T
            codes[at], scales[at] = _quantized(vectors)
            self.ids += block_ids
        if codes is None or words is None or scales is None:
            return
        size = len(self.ids)  # fewer than counted if rows went meanwhile
        self.sketch, self.codes, self.scales = (
            np.ascontiguousarray(words[:, :size]),
            codes[:size],
            scales[:size],
        )

    def __len__(self) -> int:
        return len(self.ids)

    def search(
        self, vector: np.ndarray, limit: int, rows: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """The best `limit` rows by cosine; `rows`: only these are ranked (a filter's, from
        `rows_of`): the shortlist and the scores are taken among them alone."""
        if not self.ids or limit <= 0 or (rows is not None and not len(rows)):
            return []
        with one_blas_thread():
            return self._search(np.asarray(vector, dtype=np.float32), limit, rows)

    def _search(self, vector: np.ndarray, limit: int, among: np.ndarray | None) -> list[tuple[str, float]]:
        if self.codes is not None:
            return self._search_compact(vector, limit, among)
        assert self.matrix is not None
        if self.sketch is None:
            rows = np.arange(len(self.ids)) if among is None else among
            scores = self.matrix @ vector if among is None else self.matrix[among] @ vector
        else:
            rows = self._shortlist(vector, max(self.rescore, limit), among)
            scores = self.matrix[rows] @ vector
        best = _top(scores, limit)
        return [(self.ids[rows[i]], float(scores[i])) for i in best]

    def _search_compact(
        self, vector: np.ndarray, limit: int, among: np.ndarray | None
    ) -> list[tuple[str, float]]:
        """Sketch shortlist → int8 scores → the best few read back and scored in float32."""
        assert self.codes is not None and self.scales is not None and self.read_exact is not None
        rows = self._shortlist(vector, max(self.rescore, limit), among)
        approximate = np.empty(len(rows), dtype=np.float32)
        for start in range(0, len(rows), _SCORE_ROWS):
            part = rows[start : start + _SCORE_ROWS]
            approximate[start : start + len(part)] = self.codes[part].astype(np.float32) @ vector
        approximate *= self.scales[rows]
        best_rows = rows[_top(approximate, self.rescore_factor * limit)]
        exact = self.read_exact([self.ids[row] for row in best_rows])
        rows = np.array([row for row in best_rows if self.ids[row] in exact], dtype=np.int64)
        if not len(rows):  # every one deleted since the index was built
            return []
        scores = np.stack([exact[self.ids[row]] for row in rows]) @ vector
        best = _top(scores, limit)
        return [(self.ids[rows[i]], float(scores[i])) for i in best]

    def _shortlist(self, vector: np.ndarray, size: int, among: np.ndarray | None = None) -> np.ndarray:
        """The `size` rows (of `among`, else of all) nearest by the sign sketch, in row order."""
        assert self.sketch is not None
        if among is not None and size >= len(among):
            return among
        sketch = self.sketch if among is None else self.sketch[:, among]
        query_words = _sign_bits(vector[None, :])[0]
        # Column-major words: six passes over contiguous arrays beat one pass over 6-wide rows.
        distance = np.bitwise_count(sketch[0] ^ query_words[0]).astype(np.uint16)
        for word, query_word in zip(sketch[1:], query_words[1:], strict=True):
            distance += np.bitwise_count(word ^ query_word)
        if size >= len(distance):
            return np.arange(len(distance)) if among is None else among
        rows = np.argpartition(distance, size - 1)[:size]
        rows.sort()  # gather in memory order
        return rows if among is None else among[rows]


def _quantized(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 codes per row, and each row's scale (code × scale ≈ value)."""
    peak = np.abs(vectors).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(vectors / scales[:, None]).clip(-127, 127).astype(np.int8)
    return codes, scales


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
