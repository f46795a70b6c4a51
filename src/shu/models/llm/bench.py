"""How fast a local GGUF reads a prompt and writes, for one set of llama.cpp settings, in this
process (run one process per setting: OpenMP reads OMP_WAIT_POLICY once, when it loads).

python -m shu.models.llm.bench --model qwen2.5-coder-1.5b --threads 2 --batch 512 --ctx 4096

prints one JSON line: load seconds, prompt tokens and tokens a second, time to first token,
generated tokens and tokens a second. The prompt is an answer prompt of the size asked for,
built from the example knowledge base's kind of text, evaluated from scratch each run."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from shu.models.registry import default_models_dir, resolve_model_path

if TYPE_CHECKING:
    from collections.abc import Iterator

    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateChatCompletionStreamResponse

_PASSAGE = (
    "The Pro plan allows 1,200 API requests per minute per workspace, and the Starter plan allows 60. "
    "A request over the limit gets HTTP 429 with a Retry-After header that says when to try again. "
    "Single sign-on with SAML is available on the Business plan; Okta and Azure AD are supported. "
)

_QUESTION = "Describe in detail, in at least 120 words, everything the passages say about the plans."


def measure(
    path: Path, threads: int, batch: int, ctx: int, prompt_tokens: int, generate: int, runs: int
) -> dict[str, object]:
    from llama_cpp import Llama

    started = time.perf_counter()
    llama = Llama(
        model_path=str(path),
        n_ctx=ctx,
        n_threads=threads,
        n_threads_batch=threads,
        n_batch=min(batch, ctx),
        n_ubatch=min(batch, ctx),
        verbose=False,
    )
    loaded = time.perf_counter() - started
    passage_tokens = len(llama.tokenize(_PASSAGE.encode(), add_bos=False))
    context = _PASSAGE * max(1, prompt_tokens // passage_tokens)
    messages: list[ChatCompletionRequestMessage] = [
        {"role": "system", "content": "Answer from the numbered passages only; cite them as [1]."},
        {
            "role": "user",
            "content": f"<context>\n[1] {context}\n</context>\n\nQuestion: {_QUESTION}",
        },
    ]
    rows = []
    for _ in range(runs):
        llama.reset()  # no prefix reused: the whole prompt is read each run
        llama._ctx.kv_cache_clear()  # the KV cache too
        started = time.perf_counter()
        first = None
        pieces = 0
        # llama_cpp types the reply as a response or a stream whatever `stream` is: streamed
        chunks = cast(
            "Iterator[CreateChatCompletionStreamResponse]",
            llama.create_chat_completion(
                messages=messages,
                max_tokens=generate,
                temperature=0.0,
                stream=True,
                stop=[],
            ),
        )
        for chunk in chunks:
            if chunk["choices"][0]["delta"].get("content"):
                pieces += 1
                if first is None:
                    first = time.perf_counter() - started
        total = time.perf_counter() - started
        read = int(llama.n_tokens) - pieces
        ttft = first or total
        rows.append(
            {
                "ttft_s": ttft,
                "total_s": total,
                "prompt_tokens": read,
                "prompt_tok_s": read / ttft,
                "generated": pieces,
                "gen_tok_s": (pieces - 1) / (total - ttft) if pieces > 1 and total > ttft else 0.0,
            }
        )
    return {
        "threads": threads,
        "batch": batch,
        "ctx": ctx,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(default)"),
        "load_s": round(loaded, 2),
        "runs": runs,
        **{k: round(statistics.median(r[k] for r in rows), 2) for k in rows[0]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--model-path", type=Path)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--prompt-tokens", type=int, default=800)
    parser.add_argument("--generate", type=int, default=48)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    path, _ = resolve_model_path(args.model, args.model_path, default_models_dir())
    result = measure(path, args.threads, args.batch, args.ctx, args.prompt_tokens, args.generate, args.runs)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
