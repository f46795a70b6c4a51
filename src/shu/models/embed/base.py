"""The `Embedder` protocol: texts in, L2-normalised float32 rows out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Identifies the vector space: vectors from embedders of different names never mix."""
        ...

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dim), each row of unit length."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """A single unit-length vector of shape (dim,)."""
        ...


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = (matrix / norms).astype(np.float32, copy=False)
    return normalised
