"""Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp server)."""

from __future__ import annotations

import os
from typing import Any

import httpx
import numpy as np

from shu.errors import EmbedderError
from shu.models.embed.base import l2_normalise


class OpenAIEmbedder:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.model = model
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s
        )
        self._dim: int | None = None

    @classmethod
    def from_env(cls, base_url: str, model: str, api_key_env: str, **kwargs: Any) -> OpenAIEmbedder:
        return cls(base_url=base_url, model=model, api_key=os.environ.get(api_key_env), **kwargs)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed_query("dimension probe").shape[0])
        return self._dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            rows.append(self._request(texts[start : start + self.batch_size]))
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return np.vstack(rows)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._request([text])[0]
        return vector

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            response = self._client.post("embeddings", json={"model": self.model, "input": texts})
            response.raise_for_status()
            payload = response.json()
            data = sorted(payload["data"], key=lambda item: item["index"])
            matrix = np.array([item["embedding"] for item in data], dtype=np.float32)
        except httpx.HTTPError as exc:
            raise EmbedderError(f"embedding endpoint {self._client.base_url}: {exc}") from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"embedding endpoint returned an unexpected body: {exc}") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EmbedderError(
                f"embedding endpoint returned {matrix.shape[0]} vectors for {len(texts)} texts"
            )
        self._dim = int(matrix.shape[1])
        return l2_normalise(matrix)
