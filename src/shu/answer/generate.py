"""The LLM answer (stage 6 of the quality-first pipeline; spec 004 §7.3): the model writes the
answer from the assembled context, each section headed by the exact key it must be cited with;
the citations are checked after generation; when the model fails, the extractive answer is given,
labelled with the reason.

Retrieval searched with the rewrite; generation gets the asker's own words. The evidence gate is
the extractive answerer's (calibrated): when it finds nothing that answers, the model is not asked.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from shu.answer.citations import ContextKeys, check_citations
from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.quote import quoted
from shu.answer.stream import ABSTAIN, AskEvent, KeyFilter, StreamReset, filtered, final_answer
from shu.checks import no_prompt_echo
from shu.models.llm.base import ChatResult, LLMError, Message
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.types import Answer, AnswerStyle, AssembledContext, Persona, RetrievalResult

log = logging.getLogger(__name__)

STYLES: dict[AnswerStyle, str] = {
    "synthesize": "Answer directly in a few sentences, with the most specific facts the context gives "
    "(numbers, prices, dates, names).",
    "list_sources": "Answer as a short bullet list, one fact per line, each line with its key.",
    "full_document": "Answer directly in a few sentences, with the most specific facts the context gives.",
}
_CHARS_PER_TOKEN = 4
_SOURCE_TAG = re.compile(r"</?\s*source", re.I)


class LLMAnswerer:
    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        fallback: ExtractiveAnswerer,
        context_tokens: int = 6000,
        max_tokens: int = 600,
    ) -> None:
        self.client = client
        self.fallback = fallback
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        return final_answer(self.stream(result, persona))

    def stream(self, result: RetrievalResult, persona: Persona) -> Iterator[AskEvent]:
        quoted_answer = self.fallback.answer(result, persona)
        if quoted_answer.insufficient or quoted_answer.method == "full_document":
            yield quoted_answer  # nothing answers it, or a lookup answered with the document itself
            return
        prompt = load_prompt("answer")
        messages = prompt.messages(
            persona_name=persona.display_name,
            persona_description=quoted(persona.description)[:4000],
            context=prompt_context(result.context, self.context_tokens),
            question=result.question,
            style=STYLES[result.plan.answer_style],
        )
        keys = ContextKeys(result.context)
        spent: list[ChatResult] = []
        problem = ""
        for _attempt in range(2):
            pieces: list[str] = []
            try:
                deltas = self.client.stream(messages, self.max_tokens, 0.0, record=spent)
                yield from filtered(deltas, KeyFilter(keys), pieces)
            except LLMError as exc:
                log.warning("the answer model failed, quoting instead: %s", exc)
                yield StreamReset(f"the model failed: {exc}")
                yield self._fallback(quoted_answer, f"the model failed: {exc}", spent)
                return
            text = "".join(pieces)
            answer, problem = self._finish(text, keys, result, persona)
            if answer is not None:
                yield answer.model_copy(
                    update={
                        "evidence": quoted_answer.evidence,
                        "prompt_version": prompt.version,
                        **spent_on(spent),
                    }
                )
                return
            yield StreamReset(f"the model's answer was not usable: {problem}")
            messages = [
                *messages,
                Message(role="assistant", content=text[:2000]),
                Message(
                    role="user",
                    content=f"That answer is not usable: {problem}. Answer again, following every rule.",
                ),
            ]
        yield self._fallback(quoted_answer, f"the model's answer was not usable twice: {problem}", spent)

    def _finish(
        self, text: str, keys: ContextKeys, result: RetrievalResult, persona: Persona
    ) -> tuple[Answer | None, str]:
        """The checked answer, or why the text is not usable."""
        if not text.strip():
            return None, "it is empty"
        if ABSTAIN.match(text):
            return abstention(text, result, persona, self.client.name), ""
        if echo := no_prompt_echo(text):
            return None, echo[0]
        checked = check_citations(text, keys)
        if not checked.citations:
            return None, "it cites no key of the context (every fact needs one, e.g. " + next(
                iter(keys.sources), "[^doc:Section]"
            ) + ")"
        return Answer(
            question=result.question,
            persona=persona.slug,
            text=checked.text,
            method=f"llm:{self.client.name}",
            sentences=checked.sentences,
            citations=checked.citations,
            hits=result.hits,
            check=checked.check,
        ), ""

    def _fallback(self, quoted_answer: Answer, reason: str, spent: list[ChatResult]) -> Answer:
        return quoted_answer.model_copy(update={"fallback_reason": reason, **spent_on(spent)})


def spent_on(results: list[ChatResult]) -> dict[str, int]:
    """`llm_calls` and `llm_tokens` of an answer that took these replies."""
    tokens = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in results)
    return {"llm_calls": len(results), "llm_tokens": tokens}


def abstention(text: str, result: RetrievalResult, persona: Persona, model: str) -> Answer:
    """The model's `INSUFFICIENT: <what is missing>` as a plain, declined answer."""
    missing = " ".join(ABSTAIN.sub("", text, count=1).lstrip(" *_:").split())[:300].rstrip(" .")
    said = f"{persona.display_name}'s knowledge base does not answer this."
    said += f" What would answer it: {quoted(missing)}." if missing else ""
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=said,
        method=f"llm:{model}",
        hits=result.hits,
        insufficient=True,
    )


def prompt_context(context: AssembledContext, budget_tokens: int) -> str:
    """The context as the model reads it: one `<source key=…>` per section, best first, until the
    budget is spent (the first section always goes, cut to fit). Document text is quoted: a key,
    a tag or a line break inside a title, date or heading cannot leave its `<source>`."""
    parts: list[str] = []
    left = budget_tokens * _CHARS_PER_TOKEN
    for document in context.documents:
        date = f' date="{_attribute(document.date)}"' if document.date else ""
        for section in document.sections:
            if not section.chunk_ids or left <= 0:
                continue
            text = _SOURCE_TAG.sub("&lt;source", quoted(section.text.strip()))
            head = (
                f'<source key="{_attribute(section.citation_key)}" '
                f'document="{_attribute(quoted(document.title))}"{date}>\n'
            )
            body = text[: max(0, left - len(head) - 10)]
            if not body:
                break
            parts.append(f"{head}{body}\n</source>")
            left -= len(head) + len(body) + 10
    return "\n\n".join(parts)


def _attribute(value: str) -> str:
    """One line, no double quote or `<` (a key's `>` between headings stays), at most 300 characters."""
    return " ".join(value.split()).replace('"', "'").replace("<", "(")[:300]
