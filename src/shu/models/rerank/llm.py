"""An LLM as reranker: passages are shown in batches, each scored 0–10 for how well it answers
the question. An answer that stays invalid raises `StructuredOutputError`: the pipeline then
keeps the fused order (a half-judged list would mix two scales)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt


class _Scores(BaseModel):
    scores: list[int] = Field(max_length=50)


class LLMReranker:
    def __init__(self, client: LLMClient, batch_size: int = 10, max_chars: int = 1500) -> None:
        self.client = client
        self.batch_size = batch_size
        self.max_chars = max_chars

    @property
    def name(self) -> str:
        return f"llm:{self.client.name} ({load_prompt('rerank').version})"

    def score(self, query: str, passages: list[str]) -> list[float]:
        scores: list[float] = []
        for start in range(0, len(passages), self.batch_size):
            scores += self._score_batch(query, passages[start : start + self.batch_size])
        return scores

    def _score_batch(self, query: str, passages: list[str]) -> list[float]:
        shown = "\n".join(
            f'<passage n="{i}">\n{p[: self.max_chars]}\n</passage>' for i, p in enumerate(passages, 1)
        )

        def check(out: _Scores) -> list[str]:
            values = out.scores
            problems = [] if len(values) == len(passages) else [f"{len(values)} scores for {len(passages)}"]
            return problems + [f"score {v} is outside 0–10" for v in values if not 0 <= v <= 10]

        messages = load_prompt("rerank").messages(question=query, passages=shown, count=str(len(passages)))
        answer = self.client.structured(messages, _Scores, max_tokens=200, check=check)
        return [float(v) for v in answer.value.scores]
