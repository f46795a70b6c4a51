"""`shu eval-replay`: a capable model's recorded replies (`shu_eval.recordings`) replayed through
the real pipeline (retrieval, the prompt, streaming, citation checks, verification, confidence)
of the knowledge bases the labelled answer eval builds, each answer judged with the labelled facts
as `shu eval answers --answers` judges it (`shu_eval.labelled.grade`)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from shu.answer.stream import final_answer
from shu.config.settings import load_settings
from shu.kb import KnowledgeBase, open_kb
from shu.models.embed.base import Embedder
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.types import Answer
from shu_eval.labelled import Graded, LabelledQuestion, grade
from shu_eval.recordings import Recorded
from shu_eval.replay_model import ReplayModel, Sent

VerifyMode = Literal["rules", "recorded"]
SETTINGS = [
    "retrieval.plan_method=rules",
    "retrieval.hyde=false",
    "verify.max_rounds=0",
    "agent.mode=never",
    "llm.max_retries=0",
    "llm.cache=false",
    "answer.cache=false",
    "retrieval.named_sections=off",
]
"""The recording's settings (its README), and no answer cache. Named sections are off: they came
after the recording, and a recorded reply cites the context it was written for (a section that
joins can split one key into parts, and the reply's plain key then names the other part)."""
VERIFY = {"rules": "verify.method=rules", "recorded": "verify.method=llm"}
MODEL = "oracle"

Progress = Callable[[str, int, int], None]


@dataclass
class Flag:
    claim: str
    verdict: str
    reason: str
    quote: str | None


@dataclass
class Replayed:
    """One question replayed: its grade, what the user saw, and what the replay did."""

    graded: Graded
    confidence: float | None
    verify_method: str | None
    claims: int
    flags: list[Flag]
    lead_ins: list[str]
    """Claims that are list lead-ins (a line ending with ':' introducing the items after it)."""
    sent: list[Sent] = field(default_factory=list)

    @property
    def marked(self) -> bool:
        return bool(self.flags)


def build_example(
    folder: Path, work: Path, overrides: list[str], embedder: Embedder | None = None
) -> KnowledgeBase:
    """A fresh copy of a folder of personas ingested into its own knowledge base under `work`, as
    the labelled answer eval builds it, without a model (extractive enrichment)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(folder, work / "personas")
    kb = open_kb(work / "kb", [*overrides, *SETTINGS, "llm.provider=none"], embedder)
    kb.ingest(work / "personas")
    return kb


def asking(
    built: KnowledgeBase, overrides: list[str], verify: VerifyMode, model: ReplayModel
) -> KnowledgeBase:
    """The built knowledge base's store and embedder, asked with the replay behind the LLM path
    (the recording's settings, the verifier of `verify`). Close `built`, not this one."""
    settings = load_settings(built.settings.home, [*overrides, *SETTINGS, VERIFY[verify]])
    client = LLMClient(ScriptedLLM(model, model=MODEL), max_retries=0)
    return KnowledgeBase(settings, embedder=built.parts.embedder, store=built.store, llm=client)


def replay_all(
    questions: list[LabelledQuestion],
    kbs: dict[str, KnowledgeBase],
    model: ReplayModel,
    progress: Progress | None = None,
) -> list[Replayed]:
    """Each question asked of its knowledge base with the replay answering from its recording."""
    done: list[Replayed] = []
    for number, question in enumerate(questions, start=1):
        model.begin(question.id)
        started = time.perf_counter()
        answer = final_answer(kbs[question.kb].ask_stream(question.question, question.persona))
        graded = grade(question, answer, time.perf_counter() - started)
        done.append(_replayed(graded, answer, model.sent[question.id]))
        if progress:
            progress("replay", number, len(questions))
    return done


def _replayed(graded: Graded, answer: Answer, sent: list[Sent]) -> Replayed:
    verdicts = answer.verification.verdicts if answer.verification else []
    flags = [Flag(v.claim, v.verdict, v.reason, v.quote) for v in verdicts if v.verdict != "supported"]
    return Replayed(
        graded=graded,
        confidence=answer.confidence,
        verify_method=answer.verification.method if answer.verification else None,
        claims=len(verdicts),
        flags=flags,
        lead_ins=[v.claim for v in verdicts if is_lead_in(v.claim)],
        sent=list(sent),
    )


def is_lead_in(claim: str) -> bool:
    """A claim that only introduces what follows it: ends with ':' ("The causes were:")."""
    return claim.strip().endswith(":")


def recorded_questions(
    recordings: dict[str, Recorded], questions: list[LabelledQuestion]
) -> list[LabelledQuestion]:
    """The labelled questions of the recordings, in the recordings' order; a recording whose
    question is not in the labelled set (or asks it differently) is an error."""
    by_id = {q.id: q for q in questions}
    missing = [qid for qid in recordings if qid not in by_id]
    if missing:
        raise ValueError(f"recorded questions not in the labelled set: {', '.join(missing)}")
    changed = [qid for qid, r in recordings.items() if r.answer.get("question") != by_id[qid].question]
    if changed:
        raise ValueError(f"recorded questions worded differently in the labelled set: {', '.join(changed)}")
    return [by_id[qid] for qid in recordings]
