"""EmbeddingGemma-300M on onnxruntime: the stronger of Shu's two local embedders; no torch.

The model is not shipped with Shu (its licence is the Gemma Terms of Use): `shu models install
embeddinggemma-300m` fetches and verifies it, and writes its ONNX graph (`gemma_graph`) once. Texts
carry the model's retrieval prompts (`title: none | text: ` for documents, `task: search result |
query: ` for questions); vectors are mean-pooled, projected by the Dense modules, optionally cut to
a Matryoshka prefix (512, 256 or 128 of 768 dimensions), then L2-normalised.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shu.errors import EmbedderError
from shu.models.embed.base import l2_normalise
from shu.models.embed.gemma_graph import build_graph, graph_file

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

MODEL = "embeddinggemma-300m"
DIMS = (768, 512, 256, 128)
"""The Matryoshka prefixes the model was trained to keep meaningful."""
QUERY_PROMPT = "task: search result | query: "
DOCUMENT_PROMPT = "title: none | text: "
MAX_TOKENS = 2048
_PAD = 0
_building = threading.Lock()


class GemmaEmbedder:
    keyword_weight = 0.3
    """BM25's weight beside this embedder in convex fusion (`retrieval.convex_alpha` unset): fitted on
    the suite's dev halves (docs/benchmarks.md)."""
    sentence_model = "all-MiniLM-L6-v2"
    """What the extractive reader embeds candidate sentences with beside this embedder
    (`answer.sentence_embedder=auto`): the same labelled answers right, a quarter of the time."""

    def __init__(
        self,
        folder: Path | None,
        batch_size: int = 16,
        max_tokens: int = 512,
        threads: int = 0,
        dim: int = 768,
    ) -> None:
        """`folder`: the installed sentence-transformers folder (None: not installed, which the
        first text to embed reports)."""
        if dim not in DIMS:
            raise EmbedderError(f"{MODEL} keeps {', '.join(map(str, DIMS))} dimensions, not {dim}")
        self.folder = folder
        self.batch_size = batch_size
        self.max_tokens = min(max_tokens, MAX_TOKENS)
        self.threads = threads
        self._dim = dim

    @property
    def name(self) -> str:
        return f"{MODEL}-onnx" if self._dim == 768 else f"{MODEL}-onnx-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _model_folder(self) -> Path:
        if self.folder is None or not (self.folder / "config.json").is_file():
            raise EmbedderError(
                f"the embedder {MODEL} is not installed: run `shu models install {MODEL}` "
                "(or set embedder.model to all-MiniLM-L6-v2)"
            )
        return self.folder

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self._model_folder() / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding(pad_id=_PAD, pad_token="<pad>")  # pad to the longest in the batch
        return tokenizer

    @cached_property
    def _session(self) -> InferenceSession:
        import onnxruntime as ort

        graph = ensure_graph(self._model_folder())
        options = ort.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(str(graph), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbedderError(f"cannot load {graph}: {exc}; run `shu models verify {MODEL}`") from exc

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        # Sort by length so each batch pads to a similar size; restore order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([DOCUMENT_PROMPT + texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._embed_batch([QUERY_PROMPT + text])[0]
        return vector

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = (
            [self._tokenizer.encode(texts[0])] if len(texts) == 1 else self._tokenizer.encode_batch(texts)
        )
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (pooled,) = self._session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})
        return l2_normalise(np.asarray(pooled, dtype=np.float32)[:, : self._dim])


def ensure_graph(folder: Path) -> Path:
    """The ONNX graph for the model in `folder`, written there the first time (about 25 s and
    3 GB of memory for the 1.2 GB of weights); written whole or not at all."""
    target = graph_file(folder)
    if target.is_file():
        return target
    with _building:
        if target.is_file():
            return target
        try:
            work = Path(tempfile.mkdtemp(prefix=".graph-", dir=folder))
        except OSError as exc:
            raise EmbedderError(f"cannot write the {MODEL} graph into {folder}: {exc}") from exc
        try:
            try:
                made = build_graph(folder, work / target.name)
            except OSError as exc:  # a full disk, say: nothing is left half-written
                raise EmbedderError(f"cannot write the {MODEL} graph into {folder}: {exc}") from exc
            data = made.with_name(made.name + ".data")
            os.chmod(data, 0o644)
            os.replace(data, folder / data.name)  # the same bytes whoever writes them
            os.replace(made, target)  # the graph last: once it is there, so are its weights
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target
