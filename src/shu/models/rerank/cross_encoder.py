"""A cross-encoder from a local folder the user supplies (no PyPI package ships reranker
weights): `model.onnx` and the `tokenizer.json` it was trained with, e.g. an ONNX export of
`cross-encoder/ms-marco-MiniLM-L-6-v2`. Runs on onnxruntime; nothing is fetched."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shu.errors import ConfigError

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer


class CrossEncoderReranker:
    def __init__(self, folder: Path | str, batch_size: int = 16, max_tokens: int = 384) -> None:
        self.folder = Path(folder).expanduser()
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        missing = [n for n in ("model.onnx", "tokenizer.json") if not (self.folder / n).is_file()]
        if missing:
            raise ConfigError(
                f"cross-encoder folder {self.folder}: missing {', '.join(missing)} "
                "(export the model to ONNX and put its tokenizer.json beside it)"
            )

    @property
    def name(self) -> str:
        return f"cross-encoder:{self.folder.name}"

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding()
        return tokenizer

    @cached_property
    def _session(self) -> InferenceSession:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(
                str(self.folder / "model.onnx"), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ConfigError(f"cross-encoder {self.folder}: cannot load model.onnx ({exc})") from exc

    def score(self, query: str, passages: list[str]) -> list[float]:
        scores: list[float] = []
        for start in range(0, len(passages), self.batch_size):
            scores += self._score_batch(query, passages[start : start + self.batch_size])
        return scores

    def _score_batch(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        wanted = {i.name for i in self._session.get_inputs()}
        (logits,) = self._session.run(None, {k: v for k, v in feeds.items() if k in wanted})[:1]
        logits = np.asarray(logits, dtype=np.float32).reshape(len(passages), -1)
        return [float(x) for x in logits[:, -1]]  # one logit, or the "relevant" column of two
