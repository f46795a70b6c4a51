"""An in-memory BM25 index of one persona's chunks: keyword search without SQL (issue 17).

The store stays the source of truth; this is a cache of it, kept in step incrementally
(`KeywordIndexes`: documents replaced or removed since the last look, here or in another
process, are taken out and read again). Tokens are those of the SQLite FTS5 table it stands in
for (`porter unicode61 remove_diacritics 2` over the text and its identifier terms:
`shu.analysis.keyword_text`) and scores FTS5's BM25 (k1 = 1.2, b = 0.75,
idf = ln((N − n + 0.5) / (n + 0.5)), at least 1e-6), with N, n and the mean length counted over
the persona's chunks.

Postings are a term → (slots, term frequencies) table in NumPy arrays: a main part built in
bulk, a part of recent additions, and a mask of removed slots; the parts are merged once the
changes pass a share of the main part. A query scores its terms from the one that can add most
(rarest) down, and once the terms left cannot lift a chunk that has nothing yet above the
`limit`-th score so far, they only add to the chunks already found (the MaxScore bound): exact
top-k, and a frequent term costs a lookup per candidate instead of a pass over its postings."""

from __future__ import annotations

import itertools
import math
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np

from shu.analysis import STOPWORDS, fts_tokens, fts_words, identifier_terms, stem_words
from shu.store.feedback import mixed, relevance_model
from shu.types import KeywordFeedback

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6
CHANGE_LOG = 100_000
"""Entries a store's chunk change log keeps (an index further behind is built again)."""
MERGE_SHARE = 0.1
"""Merge recent additions and removals into the main part once they pass this share of it."""

Row = tuple[str, str, str]
"""(chunk id, document id, indexed text)"""


TextReader = Callable[[list[str]], dict[str, str]]
"""chunk ids → each one's indexed text (ids no longer stored are left out)"""

Triple = tuple[np.ndarray, np.ndarray, np.ndarray]
"""(term ids, slots, term frequencies) of some postings"""

_PIECE = 4_000_000
"""Postings re-read at a time when the main part is merged"""


@dataclass
class _Postings:
    """Term id → slots (ascending) and term frequencies, as one CSR table, with each term's
    largest frequency and shortest chunk (for its score bound)."""

    starts: np.ndarray
    slots: np.ndarray
    tfs: np.ndarray
    max_tf: np.ndarray
    min_length: np.ndarray

    @classmethod
    def build(
        cls, terms: np.ndarray, slots: np.ndarray, tfs: np.ndarray, lengths: np.ndarray, size: int
    ) -> _Postings:
        return cls.placed(iter([(terms, slots, tfs)]), np.bincount(terms, minlength=size), lengths)

    @classmethod
    def placed(cls, parts: Iterator[Triple], counts: np.ndarray, lengths: np.ndarray) -> _Postings:
        """The table of postings arriving in parts, each term's slots ascending from part to part
        (the order chunks are read in), `counts` postings per term in all. A counting sort: each
        part is written straight to its place, so a build holds the parts not yet placed and the
        table, never a sort of every posting (at a million chunks that sort took 2.5 GB)."""
        size = len(counts)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        table = np.empty(starts[-1], dtype=np.int32), np.empty(starts[-1], dtype=np.float32)
        max_tf = np.zeros(size, dtype=np.float32)
        min_length = np.full(size, np.inf, dtype=np.float32)
        cursor = starts[:-1].copy()
        for terms, slots, tfs in parts:
            if not len(terms):
                continue
            order = np.argsort(terms, kind="stable")  # by term, slots kept in their order
            terms, slots, tfs = terms[order], slots[order], tfs[order]
            heads = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])
            runs = np.diff(np.r_[heads, len(terms)])
            at = cursor[terms] + np.arange(len(terms)) - np.repeat(heads, runs)
            table[0][at], table[1][at] = slots, tfs
            term = terms[heads]
            cursor[term] += runs
            max_tf[term] = np.maximum(max_tf[term], np.maximum.reduceat(tfs, heads))
            min_length[term] = np.minimum(min_length[term], np.minimum.reduceat(lengths[slots], heads))
        return cls(starts, table[0], table[1], max_tf, min_length)

    def of(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        if term + 1 >= len(self.starts):
            return self.slots[:0], self.tfs[:0]
        begin, end = self.starts[term], self.starts[term + 1]
        return self.slots[begin:end], self.tfs[begin:end]

    def bound(self, term: int) -> tuple[float, float]:
        if term >= len(self.max_tf):
            return 0.0, math.inf
        return float(self.max_tf[term]), float(self.min_length[term])

    def pieces(self) -> Iterator[Triple]:
        """The postings as triples, a few million at a time, in table order."""
        for begin in range(0, len(self.slots), _PIECE):
            end = min(begin + _PIECE, len(self.slots))
            terms = np.searchsorted(self.starts, np.arange(begin, end), side="right") - 1
            yield terms, self.slots[begin:end], self.tfs[begin:end]


def _empty() -> _Postings:
    none = np.zeros(0, dtype=np.int64)
    return _Postings.build(none, none, none, np.zeros(0, dtype=np.float32), 0)


class KeywordIndex:
    """One persona's chunks, searchable by BM25."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self._word_ids: dict[str, int] = {}
        """a word as written (lower case) → its stem's term id: most words are stemmed once"""
        self.chunk_ids: list[str] = []
        self.doc_ids: list[str] = []
        self.slot_of: dict[str, int] = {}
        self.by_doc: dict[str, list[str]] = {}
        self.lengths = np.zeros(0, dtype=np.float32)
        self.live = np.zeros(0, dtype=bool)
        self.main = _empty()
        self.recent = _empty()
        self.recent_triples = (np.zeros(0, dtype=np.int64),) * 3
        self.changed = 0
        self.removed = 0
        self._norm_cache: tuple[float, np.ndarray] | None = None
        self._scores: np.ndarray | None = None
        self._seen: np.ndarray | None = None
        self._stems: list[str] = []

    @property
    def size(self) -> int:
        """Chunks in the index (removed ones not counted)."""
        return len(self.slot_of)

    def add(self, rows: Iterable[Row]) -> None:
        """Add chunks; one already here is replaced."""
        rows = list(rows)
        self.remove([chunk_id for chunk_id, _, _ in rows if chunk_id in self.slot_of])
        first = len(self.chunk_ids)
        terms, slots, tfs, lengths = self._encode(rows, first)
        self._register(rows, lengths)
        self.live = np.concatenate([self.live, np.ones(len(rows), dtype=bool)])
        old_terms, old_slots, old_tfs = self.recent_triples
        self.recent_triples = (
            np.concatenate([old_terms, terms]),
            np.concatenate([old_slots, slots]),
            np.concatenate([old_tfs, tfs]),
        )
        self.recent = _Postings.build(*self.recent_triples, self.lengths, len(self.vocabulary))
        self.changed += len(rows)
        self._norm_cache = None
        self._merge_if_due()

    def _register(self, rows: list[Row], lengths: np.ndarray) -> None:
        """Give the rows the next slots (their postings are encoded with them)."""
        for chunk_id, doc_id, _ in rows:
            self.slot_of[chunk_id] = len(self.chunk_ids)
            self.chunk_ids.append(chunk_id)
            self.doc_ids.append(doc_id)
            self.by_doc.setdefault(doc_id, []).append(chunk_id)
        self.lengths = np.concatenate([self.lengths, lengths])

    def remove(self, chunk_ids: Iterable[str]) -> None:
        for chunk_id in chunk_ids:
            slot = self.slot_of.pop(chunk_id, None)
            if slot is None:
                continue
            self.live[slot] = False
            kept = [c for c in self.by_doc.get(self.doc_ids[slot], []) if c != chunk_id]
            if kept:
                self.by_doc[self.doc_ids[slot]] = kept
            else:
                self.by_doc.pop(self.doc_ids[slot], None)
            self.removed += 1
            self.changed += 1
            self._norm_cache = None
        self._merge_if_due()

    def remove_documents(self, doc_ids: Iterable[str]) -> None:
        self.remove([chunk_id for doc_id in doc_ids for chunk_id in self.by_doc.get(doc_id, [])])

    def search(
        self,
        query: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        read_texts: TextReader | None = None,
        within: frozenset[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The best `limit` chunks for the query's tokens (each counted once), best first. With
        `feedback` (and a way to read chunks' texts), the words of the first search's best chunks
        join the query (RM3, `shu.store.feedback`) and the expanded query is searched. `within`:
        only the chunks of these documents are ranked (the idf stays the persona's)."""
        query_terms = {self.vocabulary[t]: 1.0 for t in fts_tokens(query) if t in self.vocabulary}
        if not query_terms or limit <= 0 or not self.size:
            return []
        allowed = self._allowed(within)
        if allowed is not None and not allowed.any():
            return []
        if feedback is None or read_texts is None:
            return self._search(query_terms, limit, allowed)
        first = self._search(query_terms, max(limit, feedback.docs), allowed)
        expansion = self._relevance_model(first[: feedback.docs], feedback, read_texts)
        if not expansion:
            return first[:limit]
        return self._search(mixed(query_terms, expansion, feedback.query_weight), limit, allowed)

    def _allowed(self, within: frozenset[str] | None) -> np.ndarray | None:
        """A mask of the slots of these documents' chunks (None: every slot)."""
        if within is None:
            return None
        mask = np.zeros(len(self.chunk_ids), dtype=bool)
        slots = [self.slot_of[c] for doc_id in within for c in self.by_doc.get(doc_id, ())]
        mask[np.asarray(slots, dtype=np.int64)] = True
        return mask

    def _search(
        self, query_terms: dict[int, float], limit: int, allowed: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """BM25 with each term's idf times its weight in the query; `allowed`: only these slots
        are scored (the idf and the bounds stay the whole index's: still upper bounds)."""
        count = self.size
        mean_length, norms = self._norms()
        terms = list(query_terms)
        postings = [self._postings(term) for term in terms]
        weights, bounds = [], []
        for term, (slots, _) in zip(terms, postings, strict=True):
            hits = int(np.count_nonzero(self.live[slots])) if self.removed else len(slots)
            idf = math.log((count - hits + 0.5) / (hits + 0.5))
            weights.append((idf if idf > 0 else MIN_IDF) * query_terms[term])
            bounds.append(weights[-1] * self._bound(term, mean_length))
        if allowed is not None:
            postings = [(slots[allowed[slots]], tfs[allowed[slots]]) for slots, tfs in postings]
        return self._top(postings, weights, bounds, norms, limit)

    def _relevance_model(
        self, first: list[tuple[str, float]], feedback: KeywordFeedback, read_texts: TextReader
    ) -> dict[int, float]:
        """The feedback chunks' terms as weights (stopwords, one-character words and words in
        more than `feedback.max_share` of the chunks, and in more than two, left out)."""
        texts = read_texts([chunk_id for chunk_id, _ in first])
        known = self._word_ids.get
        chunks = [
            (
                [
                    t
                    for w in (*fts_words(texts[c]), *identifier_terms(texts[c]))
                    if (t := known(w)) is not None
                ],
                s,
            )
            for c, s in first
            if c in texts
        ]
        stop = {self._word_ids[w] for w in STOPWORDS if w in self._word_ids}
        most = max(feedback.max_share * self.size, 2)  # a small knowledge base can still add a word

        def allowed(term: int) -> bool:
            return term not in stop and len(self._terms()[term]) > 1 and self._frequency(term) <= most

        return relevance_model(chunks, allowed, feedback.terms)

    def _terms(self) -> list[str]:
        """Term id → its stem (built when first asked for, extended as the vocabulary grows)."""
        if len(self._stems) < len(self.vocabulary):
            self._stems = list(self.vocabulary)
        return self._stems

    def _frequency(self, term: int) -> int:
        """Chunks holding the term (removed ones still counted until the next merge)."""
        return len(self._postings(term)[0])

    def _norms(self) -> tuple[float, np.ndarray]:
        """The mean chunk length and each chunk's length normaliser, kept until the next change."""
        if self._norm_cache is None:
            mean_length = max(float(self.lengths[self.live].mean()), 1e-9)
            self._norm_cache = (mean_length, K1 * (1 - B + B * self.lengths / mean_length))
        return self._norm_cache

    def _top(
        self,
        postings: list[tuple[np.ndarray, np.ndarray]],
        weights: list[float],
        bounds: list[float],
        norms: np.ndarray,
        limit: int,
    ) -> list[tuple[str, float]]:
        """Scores accumulate in buffers kept between queries (the touched entries are cleared
        again afterwards), so a query never allocates or zeroes a persona-sized array."""
        scores, seen = self._buffers()
        left = sum(bounds)
        best = 0.0
        candidates: np.ndarray | None = None
        for i in sorted(range(len(postings)), key=lambda i: -bounds[i]):
            slots, tfs = postings[i]
            left -= bounds[i]
            if candidates is not None:
                slots, tfs = _within(slots, tfs, candidates)
            else:
                seen[slots] = True
            scores[slots] += weights[i] * tfs * (K1 + 1) / (tfs + norms[slots])
            if candidates is None and left > 0 and len(slots):
                best = max(best, float(scores[slots].max()))
                if left < best:  # else no threshold can beat what the terms left may add
                    candidates = self._settled(scores, np.flatnonzero(seen), limit, left)
        touched = np.flatnonzero(seen)
        hit = candidates if candidates is not None else touched
        hit = hit[self.live[hit]] if self.removed else hit
        found = scores[hit]
        if len(hit) > limit:  # every chunk tied with the last place, then the first slots of them
            last = np.partition(found, len(hit) - limit)[len(hit) - limit]
            hit, found = hit[found >= last], found[found >= last]
        order = np.lexsort((hit, -found))[:limit]
        ranked = [(self.chunk_ids[s], float(v)) for s, v in zip(hit[order], found[order], strict=True)]
        scores[touched] = 0.0
        seen[touched] = False
        return ranked

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        if self._scores is None or len(self._scores) != len(self.chunk_ids):
            self._scores = np.zeros(len(self.chunk_ids), dtype=np.float64)
            self._seen = np.zeros(len(self.chunk_ids), dtype=bool)
        assert self._seen is not None
        return self._scores, self._seen

    def _settled(self, scores: np.ndarray, touched: np.ndarray, limit: int, left: float) -> np.ndarray | None:
        """The chunks found so far, once no other chunk can reach the first `limit` with the
        terms left (their bounds add up to less than the `limit`-th score); else None."""
        found = touched[self.live[touched]] if self.removed else touched
        if len(found) < limit:
            return None
        threshold = np.partition(scores[found], len(found) - limit)[len(found) - limit]
        return found if left < threshold else None

    def _bound(self, term: int, mean_length: float) -> float:
        """The most the term can add to one chunk's score, idf aside."""
        main_tf, main_length = self.main.bound(term)
        recent_tf, recent_length = self.recent.bound(term)
        tf, length = max(main_tf, recent_tf), min(main_length, recent_length)
        if tf == 0:
            return 0.0
        return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(mean_length, 1e-9)))

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        slots, tfs = self.main.of(term)
        more_slots, more_tfs = self.recent.of(term)
        if not len(more_slots):
            return slots, tfs
        return np.concatenate([slots, more_slots]), np.concatenate([tfs, more_tfs])

    def _encode(self, rows: list[Row], first: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(term ids, slots, frequencies) of every distinct token of each row, and row lengths."""
        ids = array("q")  # 8 bytes a token, not a Python int object each
        lengths = array("q")
        for _, _, text in rows:
            found = self._term_ids([*fts_words(text), *identifier_terms(text)])
            lengths.append(len(found))
            ids.extend(found)
        count = max(len(rows), 1)
        sizes = np.frombuffer(lengths, dtype=np.int64) if lengths else np.zeros(0, dtype=np.int64)
        tokens = np.frombuffer(ids, dtype=np.int64) if ids else np.zeros(0, dtype=np.int64)
        owners = np.repeat(np.arange(len(rows), dtype=np.int64), sizes)
        pairs, tfs = np.unique(tokens * count + owners, return_counts=True)
        return pairs // count, first + pairs % count, tfs.astype(np.float32), sizes.astype(np.float32)

    def _term_ids(self, words: list[str]) -> list[int]:
        """Each word's term id (its stem's), new stems added to the vocabulary."""
        known = self._word_ids.get
        ids = [known(word, -1) for word in words]
        if -1 in ids:
            new = list({w for w, i in zip(words, ids, strict=True) if i < 0})
            for word, stem in zip(new, stem_words(new), strict=True):
                self._word_ids[word] = self.vocabulary.setdefault(stem, len(self.vocabulary))
            ids = [self._word_ids[word] for word in words]
        return ids

    def _merge_if_due(self) -> None:
        if self.changed and self.changed > MERGE_SHARE * max(len(self.chunk_ids) - self.changed, 1):
            self.merge()

    def merge(self) -> None:
        """One main part of the live chunks: removed slots dropped, slots renumbered."""
        keep = np.flatnonzero(self.live)
        renumber = np.full(len(self.chunk_ids), -1, dtype=np.int32)
        renumber[keep] = np.arange(len(keep))

        def live_parts() -> Iterator[Triple]:
            for terms, slots, tfs in itertools.chain(self.main.pieces(), [self.recent_triples]):
                kept = self.live[slots]
                yield terms[kept], renumber[slots[kept]], tfs[kept]

        counts = np.zeros(len(self.vocabulary), dtype=np.int64)
        for terms, _, _ in live_parts():
            counts += np.bincount(terms, minlength=len(counts))
        lengths = self.lengths[keep]
        main = _Postings.placed(live_parts(), counts, lengths)
        self.chunk_ids = [self.chunk_ids[s] for s in keep]
        self.doc_ids = [self.doc_ids[s] for s in keep]
        self.slot_of = {chunk_id: slot for slot, chunk_id in enumerate(self.chunk_ids)}
        self.lengths = lengths
        self.live = np.ones(len(keep), dtype=bool)
        self.main = main
        self.recent = _empty()
        self.recent_triples = (np.zeros(0, dtype=np.int64),) * 3
        self.changed = self.removed = 0
        self._norm_cache = None


def _within(slots: np.ndarray, tfs: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The postings of the candidate slots only (both ascending)."""
    at = np.searchsorted(slots, candidates)
    inside = at < len(slots)
    inside[inside] = slots[at[inside]] == candidates[inside]
    return candidates[inside], tfs[at[inside]]


def build(rows: Iterable[Row], batch: int = 20_000) -> KeywordIndex:
    """An index of the rows, in one main part, read a batch at a time: only the token arrays
    (12 bytes a distinct token of a chunk) are held for the whole build, never every text."""
    index = KeywordIndex()
    parts: list[Triple] = []
    counts = np.zeros(0, dtype=np.int64)
    for block in _batches(rows, batch):
        terms, slots, tfs, lengths = index._encode(block, len(index.chunk_ids))
        parts.append((terms.astype(np.int32), slots.astype(np.int32), tfs))
        index._register(block, lengths)
        found = np.bincount(terms, minlength=len(index.vocabulary))
        found[: len(counts)] += counts
        counts = found
    index.live = np.ones(len(index.chunk_ids), dtype=bool)
    parts.reverse()
    index.main = _Postings.placed(_popped(parts), counts, index.lengths)
    return index


def _popped(parts: list[Triple]) -> Iterator[Triple]:
    """The parts from last to first, each let go of once given (placed, its memory is freed)."""
    while parts:
        yield parts.pop()


def _batches(rows: Iterable[Row], size: int) -> Iterable[list[Row]]:
    iterator = iter(rows)
    while block := list(islice(iterator, size)):
        yield block


ChunkReader = Callable[[str | None, list[str] | None], Iterable[tuple[str, str, str, str]]]
"""(persona, or None for the documents given) → (chunk id, doc id, indexed text, persona) rows"""
ChangeReader = Callable[[int | None], tuple[int, int, list[str]]]
"""last change seen (None: only the bounds) → (oldest change kept, newest, doc ids changed since)"""


class KeywordIndexes:
    """Every persona's index, built on first use and kept in step with the store through its
    change log: the documents changed since the last look (by this process or another) are taken
    out and read again. Too many at once, or a log that no longer reaches back far enough, and
    the indexes are built again."""

    REBUILD_SHARE = 0.25

    def __init__(
        self, read_chunks: ChunkReader, read_changes: ChangeReader, read_texts: TextReader | None = None
    ) -> None:
        self._read_chunks = read_chunks
        self._read_changes = read_changes
        self._read_texts = read_texts
        self._indexes: dict[str, KeywordIndex] = {}
        self._seen = 0
        self._lock = threading.Lock()

    def search(
        self,
        query: str,
        persona: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        within: frozenset[str] | None = None,
    ) -> list[tuple[str, float]]:
        """With `feedback`, RM3 over the chunks' texts as the store reads them; `within`: only
        these documents' chunks (see `KeywordIndex.search`)."""
        with self._lock:
            return self._index(persona).search(query, limit, feedback, self._read_texts, within)

    def sizes(self) -> dict[str, int]:
        with self._lock:
            return {persona: index.size for persona, index in self._indexes.items()}

    def forget(self) -> None:
        with self._lock:
            self._indexes.clear()

    def _index(self, persona: str) -> KeywordIndex:
        self._catch_up()
        index = self._indexes.get(persona)
        if index is None:
            if not self._indexes:
                _, self._seen, _ = self._read_changes(None)  # before reading: nothing is missed
            rows = self._read_chunks(persona, None)
            index = self._indexes[persona] = build((chunk, doc, text) for chunk, doc, text, _ in rows)
        return index

    def _catch_up(self) -> None:
        if not self._indexes:
            return
        oldest, newest, changed = self._read_changes(self._seen)
        if newest == self._seen:
            return
        total = sum(index.size for index in self._indexes.values())
        if self._seen < oldest - 1 or len(changed) > self.REBUILD_SHARE * max(total, 1):
            self._indexes.clear()
            return
        for index in self._indexes.values():
            index.remove_documents(changed)
        by_persona: dict[str, list[Row]] = {}
        for chunk_id, doc_id, text, persona in self._read_chunks(None, changed):
            if persona in self._indexes:
                by_persona.setdefault(persona, []).append((chunk_id, doc_id, text))
        for persona, rows in by_persona.items():
            self._indexes[persona].add(rows)
        self._seen = newest
