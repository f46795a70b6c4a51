"""Asking, end to end: retrieve; send the question to the agent first when the policy says so;
answer (streamed); correct a weak or unsupported answer by searching again for what is missing
(CRAG, `verify.max_rounds`); send a low-confidence answer to the agent; give the final answer its
confidence. A later answer replaces the streamed one only when it is better (a `StreamReset`,
then the new answer whole). Every LLM call of the question is counted against one budget
(`llm.budget.*`); once it refuses, the remaining steps use their non-LLM methods and the answer
says why (`llm_stopped`, and a note in its trace)."""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator

from shu.answer.agent import Agent, after, upfront
from shu.answer.confidence import with_confidence
from shu.answer.correct import better, correction_needed
from shu.answer.render import shown_pieces
from shu.answer.respond import ScopedAnswerer
from shu.answer.stream import AskEvent, Progress, StreamReset, final_answer
from shu.config.settings import AgentSettings, LLMBudgetSettings, VerifySettings
from shu.models.llm.budget import QuestionBudget, spending, spent, stopped
from shu.retrieve.asker import Asker
from shu.retrieve.pipeline import RetrievalPipeline
from shu.types import AgentTrace, Answer, Correction, DocumentFilter, Persona, RetrievalResult


class Responder:
    def __init__(
        self,
        pipeline: RetrievalPipeline,
        answerer: ScopedAnswerer,
        verify: VerifySettings | None = None,
        agent: Agent | None = None,
        agent_settings: AgentSettings | None = None,
        budget: LLMBudgetSettings | None = None,
        fast_budget: LLMBudgetSettings | None = None,
    ) -> None:
        """`fast_budget`: the fast model's own budget of each question (`llm.fast`), if any."""
        self.fast_budget = fast_budget
        self.pipeline = pipeline
        self.answerer = answerer
        self.verify = verify or VerifySettings(max_rounds=0)
        self.agent = agent
        self.agent_settings = agent_settings or AgentSettings(mode="never")
        self.budget = budget or LLMBudgetSettings()
        self._asker: Asker | None = None

    @property
    def name(self) -> str:
        return self.answerer.name

    def answer(
        self,
        question: str,
        persona: Persona,
        agent: bool | None = None,
        asker: Asker | None = None,
        where: DocumentFilter | None = None,
    ) -> Answer:
        return final_answer(self.stream(question, persona, agent, asker, where=where))

    def stream(
        self,
        question: str,
        persona: Persona,
        agent: bool | None = None,
        asker: Asker | None = None,
        conversation: str | None = None,
        where: DocumentFilter | None = None,
    ) -> Iterator[AskEvent]:
        """`agent`: True sends the question to the agent, False never, None lets the policy
        decide; `asker`: retrieval ranks for this person; `conversation`: the user's words and
        the turns before, which an LLM answer reads beside `question`; `where`: the answer keeps
        to the documents the filter keeps (retrieval, corrections, the agent's tools, lists)."""
        limits, fast = self.budget, self.fast_budget
        models = {}
        if fast is not None:
            models["fast"] = QuestionBudget(fast.max_calls, fast.max_tokens, fast.max_json_failures)
        budget = QuestionBudget(limits.max_calls, limits.max_tokens, limits.max_json_failures, models)
        return spending(budget, self._stream(question, persona, agent, asker, budget, conversation, where))

    def _stream(
        self,
        question: str,
        persona: Persona,
        agent: bool | None,
        asker: Asker | None,
        budget: QuestionBudget,
        conversation: str | None = None,
        where: DocumentFilter | None = None,
    ) -> Iterator[AskEvent]:
        self._asker = asker
        yield Progress("searching")
        result = self.pipeline.run(question, persona, asker=asker, where=where)
        if result.filter is not None and result.filtered == 0:
            yield nothing_kept(question, persona, result)
            return
        yield Progress("reading", _found(result))
        if conversation:
            result = result.model_copy(update={"conversation": conversation})
        trace: AgentTrace | None = None
        reason = upfront(question, result.plan, self.agent_settings, agent) if self.agent else None
        if self.agent is not None and reason is not None:
            yield Progress("investigating", reason)
            result, trace = self.agent.investigate(result, persona, reason, self._asker)
        shown, wrote = yield from self._streamed(result, persona)
        answer = with_confidence(shown, result).model_copy(update={"agent": trace})
        answer, result = self._corrected(answer, result, persona)
        if self.agent is not None and trace is None and (why := after(answer, self.agent_settings, agent)):
            answer = self._investigated(answer, result, persona, why)
        _, _, prompt_tokens, completion_tokens = spent(budget)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        traced = answer.model_copy(update={"retrieval": _stripped(result, budget), "llm_usage": usage})
        if (why := stopped(budget)) is not None:
            traced = traced.model_copy(update={"llm_stopped": why})
        final = _with_agent_spending(traced)
        if wrote:
            yield from _replaced(final, shown)
            return
        if final.quoted and not final.insufficient and final.citations:
            yield from shown_pieces(final)  # a quoted answer, chosen whole, arrives as a written one does
        yield final

    def _streamed(
        self, result: RetrievalResult, persona: Persona
    ) -> Generator[AskEvent, None, tuple[Answer, bool]]:
        """The answerer's stream; its answer, and whether any text of it was shown (a quoted
        answer is chosen whole: its text is sent once the final answer is known)."""
        final: Answer | None = None
        wrote = False
        for event in self.answerer.stream(result, persona):
            if isinstance(event, Answer):
                final = event
            else:
                wrote = wrote or isinstance(event, str)
                yield event
        assert final is not None, "an answerer's stream ends with its answer"
        return final, wrote

    def _corrected(
        self, answer: Answer, result: RetrievalResult, persona: Persona
    ) -> tuple[Answer, RetrievalResult]:
        """Up to `verify.max_rounds` rounds of searching again for what is missing."""
        corrections: list[Correction] = []
        for _ in range(self.verify.max_rounds):
            need = correction_needed(answer, result, self.verify.weak_evidence)
            if need is None:
                break
            began = time.perf_counter()
            widened = self.pipeline.search_more(
                result, need.query, persona, f"corrective retrieval ({need.reason})", self._asker
            )
            before = {d.doc_id for d in result.context.documents}
            new_docs = [d.doc_id for d in widened.context.documents if d.doc_id not in before]
            second = with_confidence(self.answerer.answer(widened, persona), widened) if new_docs else None
            kept = second is not None and better(answer, second)
            corrections.append(
                Correction(
                    reason=need.reason,
                    query=need.query,
                    new_documents=new_docs,
                    kept=kept,
                    ms=round((time.perf_counter() - began) * 1000, 1),
                )
            )
            if not kept:
                break
            assert second is not None
            answer, result = second.model_copy(update={"agent": answer.agent}), widened
        return answer.model_copy(update={"corrections": corrections}), result

    def _investigated(self, answer: Answer, result: RetrievalResult, persona: Persona, reason: str) -> Answer:
        assert self.agent is not None
        widened, trace = self.agent.investigate(result, persona, reason, self._asker)
        second = with_confidence(self.answerer.answer(widened, persona), widened)
        if better(answer, second):
            return second.model_copy(update={"agent": trace, "corrections": answer.corrections})
        return answer.model_copy(update={"agent": trace})


def _found(result: RetrievalResult) -> str:
    """ "12 passages from 5 documents": what the answer is read from."""
    passages = sum(len(d.sections) for d in result.context.documents) or len(result.hits)
    documents = len(result.context.documents) or len({h.chunk.doc_id for h in result.hits})
    return f"{_counted(passages, 'passage')} from {_counted(documents, 'document')}"


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def nothing_kept(question: str, persona: Persona, result: RetrievalResult) -> Answer:
    """The answer when the filter keeps none of the persona's documents: nothing was searched."""
    assert result.filter is not None
    return Answer(
        question=question,
        persona=persona.slug,
        text=(
            f"No document of {persona.display_name}'s knowledge base matches the filter "
            f"({result.filter.described()}), so nothing was searched. Widen or remove the filter."
        ),
        method="extractive",
        insufficient=True,
        confidence=1.0,
        retrieval=result,
    )


def _stripped(result: RetrievalResult, budget: QuestionBudget) -> RetrievalResult:
    """The retrieval as the answer's trace keeps it: no hits (the answer has them), and a note
    when the LLM budget stopped the model."""
    notes = result.notes
    if (why := stopped(budget)) is not None:
        calls, tokens, _, _ = spent(budget)
        said = f"{why} ({calls} call(s) and {tokens:,} tokens spent)"
        notes = [*notes, f"the LLM was not asked again for this question: {said}"]
    return result.model_copy(update={"hits": [], "notes": notes})


def _with_agent_spending(answer: Answer) -> Answer:
    """The answer's LLM calls and tokens with the agent's choices added."""
    if answer.agent is None or not answer.agent.tokens:
        return answer
    calls = sum(1 for step in answer.agent.steps if step.tokens) + (answer.agent.stopped == "finished")
    return answer.model_copy(
        update={"llm_calls": answer.llm_calls + calls, "llm_tokens": answer.llm_tokens + answer.agent.tokens}
    )


def _replaced(answer: Answer, shown: Answer) -> Iterator[AskEvent]:
    """The final answer; a `StreamReset` before it when it is not the one streamed."""
    if answer.text != shown.text:
        reason = "a better answer was found"
        if answer.corrections and answer.corrections[-1].kept:
            reason = f"corrective retrieval: {answer.corrections[-1].reason}"
        elif answer.agent is not None:
            reason = f"the agent found more ({answer.agent.reason})"
        yield StreamReset(reason)
    yield answer
