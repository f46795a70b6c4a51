"""A GGUF model run in this process by llama-cpp-python: no server, nothing fetched.

The model is loaded once per process (per file and settings) and shared; a llama.cpp context is
not thread-safe, so every call holds the model's lock for as long as it generates (a stream
holds it until it is read to its end or closed). The chat template is the GGUF's own unless
`chat_format` names one of llama-cpp-python's. Structured output is llama.cpp's grammar built from
the JSON schema (`response_format` of type `json_object` with a `schema`). At interpreter exit the
loaded models are closed while llama.cpp's bindings are still whole (`close_all`): left to
`Llama.__del__` during teardown, they print "Exception ignored in: <function Llama.__del__ …>
TypeError: 'NoneType' object is not callable"."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from shu.errors import ConfigError
from shu.models.llm.base import ChatResult, LLMError, Message, Usage
from shu.models.llm.openai_compat import grammar_safe

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_types import (
        ChatCompletionRequestMessage,
        CreateChatCompletionResponse,
        CreateChatCompletionStreamResponse,
    )


STRUCTURED_REPEAT_PENALTY = 1.1
"""llama.cpp's penalty on the last 64 tokens for JSON replies: a 1.5B model writing a list of
questions or a synopsis otherwise repeats one line until its token cap (issue 26)."""


@dataclass(frozen=True)
class LocalOptions:
    n_ctx: int = 4096
    n_threads: int = 1
    n_batch: int = 512
    chat_format: str | None = None


@dataclass
class _Loaded:
    llama: Llama
    lock: threading.Lock


_loaded: dict[tuple[str, LocalOptions], _Loaded] = {}
_loading = threading.Lock()
log = logging.getLogger(__name__)


def load(path: Path, options: LocalOptions) -> _Loaded:
    """The model at `path`, loaded on first use and kept for the life of the process."""
    key = (str(path.resolve()), options)
    with _loading:
        if key in _loaded:
            return _loaded[key]
        if not path.is_file():
            raise ConfigError(f"{path}: no such model file (`shu models install` installs one)")
        # llama.cpp's OpenMP threads spin while they wait unless told not to: on a shared machine
        # spinning threads starve each other (measured: 2 spinning threads fell to 0.5 tok/s).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        if os.environ["OMP_WAIT_POLICY"].upper() != "PASSIVE":
            log.warning(
                "OMP_WAIT_POLICY=%s: the local model's threads spin while they wait and may answer "
                "far slower on a busy machine (unset it, or set PASSIVE)",
                os.environ["OMP_WAIT_POLICY"],
            )
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ConfigError("llm.provider=local needs llama-cpp-python: pip install 'shu[local]'") from exc
        try:
            llama = Llama(
                model_path=str(path),
                n_ctx=options.n_ctx,
                n_threads=options.n_threads,
                n_threads_batch=options.n_threads,
                n_batch=min(options.n_batch, options.n_ctx),
                n_ubatch=min(options.n_batch, options.n_ctx),
                chat_format=options.chat_format,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ConfigError(f"{path}: llama.cpp could not load it ({exc})") from exc
        _loaded[key] = loaded = _Loaded(llama, threading.Lock())
        return loaded


def close_all() -> None:
    """Free every loaded model and forget it (the next call loads it again). A model in use
    (another thread generating, a stream not read to its end) is left alone: freeing it under a
    running generation would crash the process."""
    with _loading:
        loaded = list(_loaded.items())
        for key, model in loaded:
            if model.lock.acquire(blocking=False):
                try:
                    model.llama.close()
                finally:
                    model.lock.release()
                del _loaded[key]


atexit.register(close_all)


class LocalLLM:
    """The LLM protocol (and StreamingLLM) over a GGUF file."""

    sampling: ClassVar[dict[str, float]] = {"repeat_penalty": STRUCTURED_REPEAT_PENALTY}
    """What structured (JSON) replies are sampled with besides the request's settings."""

    def __init__(self, path: Path, name: str | None = None, options: LocalOptions | None = None) -> None:
        self.path = path
        self.model = name or path.stem
        self.options = options or LocalOptions()

    @property
    def name(self) -> str:
        return f"local:{self.model}"

    @property
    def _model(self) -> _Loaded:
        return load(self.path, self.options)

    def chat(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        loaded = self._model
        extra: dict[str, Any] = {}
        if json_schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": grammar_safe(json_schema)}
            extra |= self.sampling
        with loaded.lock:
            try:
                # llama_cpp types the reply as a response or a stream whatever `stream` is: not streamed
                reply = cast(
                    "CreateChatCompletionResponse",
                    loaded.llama.create_chat_completion(
                        messages=_request(messages),
                        max_tokens=max_tokens,
                        temperature=temperature,
                        seed=0,
                        **extra,
                    ),
                )
            except (ValueError, RuntimeError) as exc:  # e.g. the prompt does not fit n_ctx
                raise LLMError(f"{self.name}: {exc}") from exc
        choice = reply["choices"][0]
        usage = reply.get("usage") or {}
        return ChatResult(
            text=choice["message"]["content"] or "",
            model=self.name,
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
            finish_reason=choice.get("finish_reason"),
        )

    def stream(self, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str | Usage]:
        """Text as each token is decoded, then the usage: completion tokens counted as they come,
        the prompt's from what the context holds at the end (its tokens plus the completion's)."""
        loaded = self._model
        with loaded.lock:
            try:
                chunks = cast(
                    "Iterator[CreateChatCompletionStreamResponse]",
                    loaded.llama.create_chat_completion(
                        messages=_request(messages),
                        max_tokens=max_tokens,
                        temperature=temperature,
                        seed=0,
                        stream=True,
                    ),
                )
                generated = 0
                for chunk in chunks:
                    delta = chunk["choices"][0]["delta"]
                    piece = delta.get("content")
                    if piece:
                        generated += 1
                        yield str(piece)
            except (ValueError, RuntimeError) as exc:
                raise LLMError(f"{self.name}: {exc}") from exc
            in_context = int(loaded.llama.n_tokens)
        yield Usage(prompt_tokens=max(0, in_context - generated), completion_tokens=generated)

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in this model's vocabulary."""
        loaded = self._model
        with loaded.lock:
            return len(loaded.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def _request(messages: list[Message]) -> list[ChatCompletionRequestMessage]:
    """The messages as llama_cpp's request dicts: a role (system, user, assistant) and a text each.
    (`dumped` is Any so the cast is needed with llama_cpp's types and not redundant without them.)"""
    dumped: Any = [m.model_dump() for m in messages]
    return cast("list[ChatCompletionRequestMessage]", dumped)
