"""Synthetic English-like text for scale benchmarks: words drawn with a Zipf law from the
embedder's own vocabulary, so term frequencies (and so BM25 posting lists) look like real text."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from shu.text import STOPWORDS
from shu.types import Chunk, Document


@cache
def vocabulary() -> list[str]:
    tokenizer = json.loads((resources.files("shu.models") / "data" / "minilm" / "tokenizer.json").read_text())
    words = [w for w in tokenizer["model"]["vocab"] if w.isalpha() and w.isascii() and len(w) >= 3]
    return [w for w in words if w not in STOPWORDS]


class TextGenerator:
    def __init__(self, seed: int = 7, zipf_s: float = 1.07) -> None:
        self.rng = np.random.default_rng(seed)
        words = vocabulary()
        self.words = np.array(words)
        self.rng.shuffle(self.words)
        ranks = np.arange(1, len(words) + 1, dtype=np.float64)
        weights = ranks**-zipf_s
        self.cdf = np.cumsum(weights / weights.sum())

    def words_sample(self, count: int) -> list[str]:
        picks = np.searchsorted(self.cdf, self.rng.random(count), side="right")
        return list(self.words[np.minimum(picks, len(self.words) - 1)])

    def sentence(self) -> str:
        words = self.words_sample(int(self.rng.integers(8, 20)))
        return " ".join(words).capitalize() + "."

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence() for _ in range(sentences))

    def document(self, title: str, sections: int, sentences_per_section: int) -> str:
        parts = [f"# {title}"]
        for index in range(sections):
            heading = " ".join(self.words_sample(2)).title()
            parts.append(f"## {heading} {index + 1}\n\n{self.paragraph(sentences_per_section)}")
        return "\n\n".join(parts) + "\n"

    def query(self) -> str:
        return " ".join(self.words_sample(int(self.rng.integers(3, 8))))


def synthetic_document(
    generator: TextGenerator, index: int, chunks: int, persona: str = "bench"
) -> tuple[Document, list[Chunk]]:
    """A document of `chunks` five-sentence chunks, for the speed benchmarks' stores."""
    doc_id = f"doc-{index:06d}"
    items = []
    for ord_ in range(chunks):
        text = generator.paragraph(5)
        items.append(
            Chunk(
                id=f"{doc_id}#{ord_}",
                doc_id=doc_id,
                ord=ord_,
                section_path=f"Section {ord_}",
                text=text,
                index_text=text,
                token_count=len(text.split()),
            )
        )
    doc = Document(
        id=doc_id,
        title=f"Document {index}",
        personas=[persona],
        content_hash=doc_id,
        path=f"/bench/{doc_id}.md",
    )
    return doc, items
