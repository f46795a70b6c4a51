"""The LLM answer (docs/design/answers-and-citations.md#generation): the model writes the
answer from the assembled context, each section headed by the exact key it must be cited with;
the citations are checked after generation; when the model fails, the extractive answer is given,
labelled with the reason.

Retrieval searched with the rewrite; generation gets the asker's own words. The evidence gate is
the extractive answerer's (calibrated): when it finds nothing that answers, the model is not asked.

Numbered (`answer.numbered_citations`, on for a local model): small models cite by number, so the
sections are shown as [1]…[n] (the best `max_sections` at most) and the numbers the model writes
become the sections' keys before the citation check, as they stream; a number past the last
section is never shown and is counted as removed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import TypedDict

from shu.answer.citations import ContextKeys, check_citations
from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.extractive.evidence import evidence_context, reader_decided
from shu.answer.extractive.library import escalate, whole_document
from shu.answer.extractive.polarity import is_yes_no
from shu.answer.quote import quoted
from shu.answer.stream import ABSTAIN, PREMISE, AskEvent, KeyFilter, StreamReset, filtered, final_answer
from shu.checks import no_prompt_echo
from shu.models.llm.base import ChatResult, LLMError, Message
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.retrieve.compress import compressed
from shu.types import Answer, AnswerStyle, AssembledContext, Detail, Persona, RetrievalResult

log = logging.getLogger(__name__)

STYLES: dict[AnswerStyle, str] = {
    "synthesize": "Answer directly in a few sentences, with the most specific facts the context gives "
    "(numbers, prices, dates, names).",
    "list_sources": "Answer as a short bullet list, one fact per line, each line with its key.",
    "full_document": "Answer directly in a few sentences, with the most specific facts the context gives.",
}
DETAIL_STYLES: dict[Detail, str] = {
    "summary": "The reader wants the short version: the main point in one or two sentences, no lists.",
    "detail": "The reader wants the detail: every relevant fact the context gives, with its numbers, "
    "conditions and exceptions, as a list or table where the context has one.",
}
"""What the asker's `preferences.detail` adds to the style."""
SUMMARY_STYLE = (
    "Summarise the document section by section, one short line a section: what it decided, found or "
    "says will happen, each line with its key."
)
"""A summary of one document: the model reads the whole document (`whole_document`)."""
_CHARS_PER_TOKEN = 4
_SOURCE_TAG = re.compile(r"</?\s*source", re.I)
TASK = (
    "Answer from the passages in one to three full sentences, naming every item they give that answers "
    "the question; end each sentence with the number of its passage in brackets."
)
YES_NO_TASK = (
    "Begin with Yes or No. Then say why in one or two full sentences from the passages, each ending with "
    "the number of its passage in brackets."
)
"""The last line of a numbered prompt: a small model follows what it read last (asked to begin with
yes or no only when the question asks it: told always, it answered "No [2]." to a who question)."""
_PLACEHOLDER = re.compile(
    r"^<[^<>]*>$|the kind of document that would answer it|followed by what the passages do not say", re.I
)
JUDGE_TOKENS = 16
"""Tokens generated when the model only judges whether the evidence answers (`INSUFFICIENT: …`
or the start of an answer)."""
_SMALL_PERSONA_CHARS = 600
"""A numbered prompt is for a small model with a short window: the persona's description is cut."""


class LLMAnswerer:
    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        fallback: ExtractiveAnswerer,
        context_tokens: int = 6000,
        max_tokens: int = 600,
        numbered: bool = False,
        max_sections: int | None = None,
        model_context: str = "sections",
        keep_decisions: bool = False,
    ) -> None:
        self.client = client
        self.fallback = fallback
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.numbered = numbered
        self.max_sections = max_sections
        self.model_context = model_context
        self.keep_decisions = keep_decisions

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        return final_answer(self.stream(result, persona))

    def stream(self, result: RetrievalResult, persona: Persona) -> Iterator[AskEvent]:
        quoted_answer = self.fallback.answer(result, persona)
        if quoted_answer.insufficient or quoted_answer.method in ("full_document", "collection"):
            # nothing answers it; a lookup answered with the document itself; or the documents
            # that cover something, counted or listed, or a document's headings: computed over
            # the whole knowledge base, where a model could only drop or add one
            yield quoted_answer
            return
        whole = self._summarised(quoted_answer)
        if quoted_answer.method == "summary" and whole is None:
            yield quoted_answer  # the whole document does not fit the model's context: every section quoted
            return
        prompt = load_prompt("answer_numbered" if self.numbered else "answer")
        shown: list[str] = []
        read = result.context
        style = STYLES[result.plan.answer_style]
        if whole is not None:
            read, style = whole, SUMMARY_STYLE  # a summary is written from the whole document
        elif self.model_context == "evidence" and (found := evidence_context(quoted_answer, read)).documents:
            read = found  # the reader's chosen sentences, in its order
        if whole is None and result.detail is not None:  # the asker's length: how, not what, it reads
            style = f"{style} {DETAIL_STYLES[result.detail]}"
        short = read is result.context and (self.numbered or self.max_sections is not None)
        context = prompt_context(
            read,
            self.context_tokens,
            None if whole is not None else self.max_sections,
            numbered=self.numbered,
            shown=shown,
            ranking=[hit.chunk.id for hit in result.hits] if short else None,
            question=result.question,
        )
        messages = prompt.messages(
            persona_name=persona.display_name,
            persona_description=quoted(persona.description)[
                : _SMALL_PERSONA_CHARS if self.numbered else 4000
            ],
            context=context,
            question=result.question
            if not result.conversation
            else f"{result.question}\n{result.conversation}",
            style=style.replace("its key", "its number in brackets") if self.numbered else style,
            **({"task": YES_NO_TASK if is_yes_no(result.question) else TASK} if self.numbered else {}),
        )
        keys = ContextKeys(read, numbered=shown if self.numbered else None)
        spent: list[ChatResult] = []
        if self.keep_decisions and whole is None and reader_decided(result.question, quoted_answer):
            yield self._judged(quoted_answer, messages, result, persona, spent, prompt.version)
            return
        problem = ""
        for _attempt in range(2):
            pieces: list[str] = []
            try:
                deltas = self.client.stream(messages, self.max_tokens, 0.0, record=spent)
                yield from filtered(deltas, NumberFilter(keys) if self.numbered else KeyFilter(keys), pieces)
            except LLMError as exc:
                log.warning("the answer model failed, quoting instead: %s", exc)
                yield StreamReset(f"the model failed: {exc}")
                yield self._fallback(quoted_answer, f"the model failed: {exc}", spent)
                return
            text = "".join(pieces)
            answer, problem = self._finish(text, keys, result, persona)
            if answer is not None:
                if whole is not None:
                    escalate(result.context, whole)  # what the written summary is verified against
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

    def _summarised(self, quoted_answer: Answer) -> AssembledContext | None:
        """The whole document the reader summarised (`summary`: it named one), when it fits the
        model's context; else None."""
        if quoted_answer.method != "summary" or not quoted_answer.citations:
            return None
        library = self.fallback.library
        if library is None:
            return None
        whole = whole_document(library, quoted_answer.citations[0].doc_id)
        size = sum(len(s.text) for d in whole.documents for s in d.sections) if whole else 0
        return whole if whole is not None and size <= self.context_tokens * _CHARS_PER_TOKEN else None

    def _finish(
        self, text: str, keys: ContextKeys, result: RetrievalResult, persona: Persona
    ) -> tuple[Answer | None, str]:
        """The checked answer, or why the text is not usable."""
        if not text.strip():
            return None, "it is empty"
        if ABSTAIN.match(text):
            return abstention(text, result, persona, self.client.name), ""
        premise = bool(PREMISE.match(text))
        text = PREMISE.sub("", text, count=1)
        if echo := no_prompt_echo(text):
            return None, echo[0]
        checked = check_citations(text, keys)
        if not checked.citations:
            example = "[1]" if keys.numbered else next(iter(keys.sources), "[^doc:Section]")
            what = "passage number" if keys.numbered else "key of the context"
            return None, f"it cites no {what} (every fact needs one, e.g. {example})"
        return Answer(
            question=result.question,
            persona=persona.slug,
            text=checked.text,
            method=f"llm:{self.client.name}",
            sentences=checked.sentences,
            citations=checked.citations,
            hits=result.hits,
            check=checked.check,
            premise=premise,
        ), ""

    def _judged(
        self,
        quoted_answer: Answer,
        messages: list[Message],
        result: RetrievalResult,
        persona: Persona,
        spent: list[ChatResult],
        version: str,
    ) -> Answer:
        """The reader's decision as it wrote it, unless the model, reading the same evidence,
        says it does not answer the question: only the reply's first words are generated."""
        try:
            reply = self.client.chat(messages, JUDGE_TOKENS, 0.0)
        except LLMError as exc:
            log.warning("the answer model failed, quoting instead: %s", exc)
            return self._fallback(quoted_answer, f"the model failed: {exc}", spent)
        spent.append(reply)
        if ABSTAIN.match(reply.text):
            declined = abstention(reply.text, result, persona, self.client.name)
            return declined.model_copy(update={"prompt_version": version, **spent_on(spent)})
        return quoted_answer.model_copy(update=spent_on(spent))

    def _fallback(self, quoted_answer: Answer, reason: str, spent: list[ChatResult]) -> Answer:
        return quoted_answer.model_copy(update={"fallback_reason": reason, **spent_on(spent)})


class Spent(TypedDict):
    """What an answer's model calls cost, as `Answer` fields."""

    llm_calls: int
    llm_tokens: int


def spent_on(results: list[ChatResult]) -> Spent:
    """`llm_calls` and `llm_tokens` of an answer that took these replies."""
    tokens = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in results)
    return {"llm_calls": len(results), "llm_tokens": tokens}


def abstention(text: str, result: RetrievalResult, persona: Persona, model: str) -> Answer:
    """The model's `INSUFFICIENT: <what is missing>` as a plain, declined answer."""
    missing = " ".join(ABSTAIN.sub("", text, count=1).lstrip(" *_:").split())[:300].rstrip(" .")
    if _PLACEHOLDER.search(missing):
        missing = ""  # the prompt's own words echoed, not what is missing
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


def prompt_context(
    context: AssembledContext,
    budget_tokens: int,
    max_sections: int | None = None,
    numbered: bool = False,
    shown: list[str] | None = None,
    ranking: list[str] | None = None,
    question: str = "",
) -> str:
    """The context as the model reads it: one `<source key=…>` per section (numbered:
    `<source number="n" …>` with `[n]` before its text), best document first, until the budget is
    spent or `max_sections` are in (the first section always goes, cut to fit). With `ranking`
    (chunk ids, best first), sections go in the order of their best-ranked chunk instead: the
    best few sections, whichever documents hold them. The keys of the sections given are appended
    to `shown`, in order (section n is `shown[n-1]`). Document text is quoted: a key, a tag or a
    line break inside a title, date or heading cannot leave its `<source>`."""
    parts: list[str] = []
    left = budget_tokens * _CHARS_PER_TOKEN
    pairs = [(d, s) for d in context.documents for s in d.sections if s.chunk_ids]
    if ranking:
        rank = {chunk_id: i for i, chunk_id in reversed(list(enumerate(ranking)))}
        pairs.sort(key=lambda pair: min(rank.get(c, len(rank)) for c in pair[1].chunk_ids))
    for document, section in pairs:
        date = f' date="{_attribute(document.date)}"' if document.date else ""
        if left <= 0 or (max_sections is not None and len(parts) >= max_sections):
            break
        text = _SOURCE_TAG.sub("&lt;source", quoted(section.text.strip()))
        if numbered:
            n = len(parts) + 1
            heading = _attribute(quoted(section.section_path))
            head = (
                f'<source number="{n}" document="{_attribute(quoted(document.title))}" '
                f'section="{heading}"{date}>\n[{n}] '
            )
        else:
            head = (
                f'<source key="{_attribute(section.citation_key)}" '
                f'document="{_attribute(quoted(document.title))}"{date}>\n'
            )
        room = max(0, left - len(head) - 10)
        body = text if len(text) <= room else _shortened(text, room, question)
        if not body:
            break
        parts.append(f"{head}{body}\n</source>")
        if shown is not None:
            shown.append(section.citation_key)
        left -= len(head) + len(body) + 10
    return "\n\n".join(parts)


class NumberFilter(KeyFilter):
    """The stream of a numbered answer: `[2]` is shown as the key of section 2, `[1, 3]` as both
    keys, a number past the last section not at all; everything else as `KeyFilter` shows it."""

    def _shown(self, written: str) -> str:
        numbered = self.keys.numbers(written)
        if numbered is None:
            return super()._shown(written)
        keys = dict.fromkeys(source.key for _, source in numbered if source is not None)
        return "".join(keys)


def _shortened(text: str, chars: int, question: str) -> str:
    """A section's text in `chars` characters: summarised for the question when it can be (the
    sentences sharing most words with it), else cut."""
    summary = compressed(text, chars // _CHARS_PER_TOKEN, question) if question else None
    if summary is not None and len(summary) <= chars:
        return summary
    return text[:chars]


def _attribute(value: str) -> str:
    """One line, no double quote or `<` (a key's `>` between headings stays), at most 300 characters."""
    return " ".join(value.split()).replace('"', "'").replace("<", "(")[:300]
