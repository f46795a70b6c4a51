"""The LLM methods: each artifact asked for as bounded JSON, validated against its source, asked
once more if invalid, and otherwise left to the extractive method (`None` here, counted)."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from shu.enrich import validate
from shu.errors import ShuError
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient, Structured
from shu.prompts import load_prompt
from shu.types import (
    Cadence,
    CapabilityManifest,
    Chunk,
    ChunkProfile,
    Document,
    DocumentProfile,
    DocumentRef,
    Entity,
    Participant,
    Provenance,
    RelationalContext,
    Relationship,
    RoleRelevance,
    SynthesizedQuestion,
    TemporalRelevance,
    TemporalScope,
)

_Out = TypeVar("_Out", bound=BaseModel)
_Made = TypeVar("_Made")

MAX_DOCUMENT_CHARS = 12_000
LLM_RELATIONSHIP_CONFIDENCE = 0.8


class _EntityOut(BaseModel):
    name: str = Field(max_length=120)
    kind: Literal["person", "organization", "email", "date", "amount", "concept", "place", "other"]


class _ParticipantOut(BaseModel):
    name: str = Field(max_length=120)
    role: Literal["author", "recipient", "subject", "mentioned", "decision_maker"]


class _RoleOut(BaseModel):
    role: str = Field(max_length=40)
    score: float = Field(ge=0.0, le=1.0)
    reason: str = Field(max_length=200)


STALENESS_DAYS: dict[str, float | None] = {"days": 7, "weeks": 30, "months": 120, "years": 730, "never": None}


class ProfileOut(BaseModel):
    """Required fields are the ones a small model must write (under a grammar it skips what it
    may: Qwen2.5-Coder-1.5B left out the entities and every manifest field)."""

    synopsis: str = Field(max_length=800)
    document_type: Literal["narrative", "transactional", "technical", "conversational", "reference", "other"]
    answers_questions_about: list[str] = Field(min_length=1, max_length=8)
    entities: list[_EntityOut] = Field(max_length=20)
    start_date: str | None = Field(None, max_length=10)
    end_date: str | None = Field(None, max_length=10)
    provides_information_type: list[str] = Field(default_factory=list, max_length=6)
    authority_level: Literal["authoritative", "informative", "informal", "unknown"] = "unknown"
    completeness: Literal["complete", "partial", "fragment"] = "partial"
    question_domains: list[str] = Field(default_factory=list, max_length=8)
    participants: list[_ParticipantOut] = Field(default_factory=list, max_length=10)
    projects: list[str] = Field(default_factory=list, max_length=5)
    relevant_to_roles: list[_RoleOut] = Field(default_factory=list, max_length=4)
    deadlines: list[str] = Field(default_factory=list, max_length=12)
    recurrence: Cadence | None = None
    goes_stale_in: Literal["days", "weeks", "months", "years", "never"] | None = None


class QuestionsOut(BaseModel):
    questions: list[str] = Field(min_length=1, max_length=40)


MAX_TOKENS = {
    "profile": 500,
    "questions": 300,
    "chunk_profile": 200,
    "chunk_profiles": 200,
    "context": 160,
    "relationships": 400,
}
"""The longest answer each artifact gets: a small model that starts repeating itself is cut off
early (a cut-off list of questions keeps its valid ones), not at 700 tokens a call."""
QUESTIONS_KEPT = (3, 15)
"""A question list is kept when at least 3 of its questions are valid; at most 15 are kept."""
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


class ChunkProfileOut(BaseModel):
    summary: str = Field(max_length=400)
    keywords: list[str] = Field(default_factory=list, max_length=10)
    topics: list[str] = Field(default_factory=list, max_length=5)


class _NumberedChunkProfileOut(ChunkProfileOut):
    n: int = Field(ge=1, le=64)


class ChunkProfilesOut(BaseModel):
    profiles: list[_NumberedChunkProfileOut] = Field(max_length=64)


class ContextOut(BaseModel):
    context: str = Field(max_length=900)


class _RelationshipOut(BaseModel):
    target: str = Field(max_length=200)
    type: Literal[
        "explains", "decision_for", "derived_from", "supersedes", "references", "part_of", "related_to"
    ]
    quote: str = Field(max_length=400)
    confidence: float = Field(ge=0.0, le=1.0)


class RelationshipsOut(BaseModel):
    relationships: list[_RelationshipOut] = Field(default_factory=list, max_length=5)


class LLMEnricher:
    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.failures: Counter[str] = Counter()
        self.successes: Counter[str] = Counter()

    def summary(self) -> dict[str, object]:
        accounting = self.client.accounting
        return {
            "model": self.client.name,
            "made": dict(self.successes),
            "fell_back": dict(self.failures),
            "calls": accounting.calls,
            "cached": accounting.cached,
            "invalid_answers": accounting.invalid,
            "prompt_tokens": accounting.prompt_tokens,
            "completion_tokens": accounting.completion_tokens,
            "cost_usd": round(accounting.cost_usd, 4),
        }

    def summary_since(self, before: dict[str, object]) -> dict[str, object]:
        """What happened since `before` (an earlier `summary()`): one run's share."""
        now = self.summary()
        delta: dict[str, object] = {"model": now["model"]}
        for key, value in now.items():
            if isinstance(value, dict):
                earlier = before.get(key, {})
                assert isinstance(earlier, dict)
                delta[key] = {k: v - earlier.get(k, 0) for k, v in value.items() if v - earlier.get(k, 0)}
            elif isinstance(value, int | float):
                earlier_value = before.get(key, 0)
                assert isinstance(earlier_value, int | float)
                delta[key] = round(value - earlier_value, 4)
        return delta

    @property
    def fingerprint(self) -> str:
        names = ("profile", "questions", "chunk_profile", "chunk_profiles", "context", "relationships")
        versions = [load_prompt(n).version for n in names]
        return f"{self.client.name}|{'|'.join(versions)}"

    def profile(self, doc: Document, body: str) -> DocumentProfile | None:
        prompt = load_prompt("profile")
        text = body[:MAX_DOCUMENT_CHARS]
        messages = prompt.messages(title=doc.title, type=doc.type or "", date=doc.date or "", document=text)

        def build(out: ProfileOut, provenance: Provenance) -> DocumentProfile:
            relational = RelationalContext(
                roles=[
                    RoleRelevance(role=r.role, score=r.score, reason=r.reason) for r in out.relevant_to_roles
                ],
                temporal=TemporalRelevance(
                    half_life_days=STALENESS_DAYS[out.goes_stale_in] if out.goes_stale_in else None,
                    deadlines=sorted(set(out.deadlines)),
                    recurrence=out.recurrence,
                ),
                method=provenance.method if out.goes_stale_in or out.relevant_to_roles else "",
            )
            entities = [Entity(name=e.name, kind=e.kind) for e in out.entities]
            return DocumentProfile(
                doc_id=doc.id,
                synopsis=out.synopsis,
                document_type=out.document_type,
                entities=validate.usable_entities(entities, text),
                temporal_scope=TemporalScope(start=out.start_date, end=out.end_date),
                manifest=CapabilityManifest(
                    answers_questions_about=validate.grounded_topics(out.answers_questions_about, text),
                    provides_information_type=out.provides_information_type,
                    authority_level=out.authority_level,
                    completeness=out.completeness,
                    question_domains=out.question_domains,
                ),
                participants=[Participant(name=p.name, role=p.role) for p in out.participants],
                projects=out.projects,
                provenance=provenance,
                relational=validate.usable_relational(relational, text, doc.date),
            )

        return self._ask(
            "profile",
            messages,
            ProfileOut,
            prompt.version,
            build,
            lambda value: validate.check_profile(value, text),
        )

    def questions(self, doc: Document, body: str) -> list[SynthesizedQuestion] | None:
        prompt = load_prompt("questions")
        text = body[:MAX_DOCUMENT_CHARS]

        def build(out: QuestionsOut, provenance: Provenance) -> list[SynthesizedQuestion]:
            usable = validate.usable_questions([q.strip() for q in out.questions], text)
            return [
                SynthesizedQuestion(id=f"{doc.id}?{i}", doc_id=doc.id, text=q, provenance=provenance)
                for i, q in enumerate(usable[: QUESTIONS_KEPT[1]])
            ]

        return self._ask(
            "questions",
            prompt.messages(title=doc.title, document=text),
            QuestionsOut,
            prompt.version,
            build,
            lambda value: validate.check_questions(
                value, text, low=QUESTIONS_KEPT[0], high=QUESTIONS_KEPT[1]
            ),
            salvage=_questions_of_a_cut_off_list,
        )

    def chunk_profile(self, doc: Document, chunk: Chunk) -> ChunkProfile | None:
        prompt = load_prompt("chunk_profile")
        messages = prompt.messages(title=doc.title, section=chunk.section_path, passage=chunk.text)

        def build(out: ChunkProfileOut, provenance: Provenance) -> ChunkProfile:
            return ChunkProfile(
                chunk_id=chunk.id,
                summary=out.summary,
                keywords=out.keywords,
                topics=out.topics,
                provenance=provenance,
            )

        return self._ask(
            "chunk_profile",
            messages,
            ChunkProfileOut,
            prompt.version,
            build,
            lambda value: validate.check_chunk_profile(value, chunk.text),
        )

    def chunk_profiles(self, doc: Document, chunks: list[Chunk]) -> list[ChunkProfile | None]:
        """Several passages' profiles in one call (`enrich.chunk_batch`): each checked against
        its own passage; a passage whose profile is missing or invalid gets None (its fallback),
        the others are kept. One passage: the single-passage prompt."""
        if len(chunks) == 1:
            return [self.chunk_profile(doc, chunks[0])]
        prompt = load_prompt("chunk_profiles")
        passages = "\n\n".join(
            f'<passage n="{n}" section="{_attribute(c.section_path)}">\n{c.text}\n</passage>'
            for n, c in enumerate(chunks, start=1)
        )
        messages = prompt.messages(title=doc.title, passages=passages)

        def build(out: ChunkProfilesOut, provenance: Provenance) -> list[ChunkProfile | None]:
            made: list[ChunkProfile | None] = [None] * len(chunks)
            for item in out.profiles:
                if 1 <= item.n <= len(chunks) and made[item.n - 1] is None:
                    chunk = chunks[item.n - 1]
                    profile = ChunkProfile(
                        chunk_id=chunk.id,
                        summary=item.summary,
                        keywords=item.keywords,
                        topics=item.topics,
                        provenance=provenance,
                    )
                    if not validate.check_chunk_profile(profile, chunk.text):
                        made[item.n - 1] = profile
            return made

        def check(made: list[ChunkProfile | None]) -> list[str]:
            return (
                [] if any(made) else ["no passage's profile was valid (each must summarise its own passage)"]
            )

        found = self._ask(
            "chunk_profiles", messages, ChunkProfilesOut, prompt.version, build, check, tokens=len(chunks)
        )
        return found if found is not None else [None] * len(chunks)

    def context(self, body: str, chunk: Chunk) -> str | None:
        prompt = load_prompt("context")
        text = body[:MAX_DOCUMENT_CHARS]
        messages = prompt.messages(document=text, passage=chunk.text)
        return self._ask(
            "context",
            messages,
            ContextOut,
            prompt.version,
            lambda out, _: out.context.strip(),
            lambda value: validate.check_context(value, text),
        )

    def relationships(
        self, doc: Document, body: str, candidates: list[DocumentRef]
    ) -> list[Relationship] | None:
        """Relationships to `candidates` (documents of the same personas) that the document
        shows, each resting on a quote from it. Proposals are capped below declared links'
        confidence (`LLM_RELATIONSHIP_CONFIDENCE`)."""
        if not candidates:
            return []
        prompt = load_prompt("relationships")
        text = body[:MAX_DOCUMENT_CHARS]
        listed = "\n".join(f"- {c.id}: {c.title}" for c in candidates)

        def build(out: RelationshipsOut, provenance: Provenance) -> list[Relationship]:
            return [
                Relationship(
                    source=doc.id,
                    target=r.target.strip(),
                    type=r.type,
                    origin="llm",
                    confidence=round(min(r.confidence, LLM_RELATIONSHIP_CONFIDENCE), 3),
                    evidence=r.quote.strip(),
                )
                for r in out.relationships
            ]

        return self._ask(
            "relationships",
            prompt.messages(title=doc.title, document=text, candidates=listed),
            RelationshipsOut,
            prompt.version,
            build,
            lambda value: validate.check_relationships(value, text, {c.id for c in candidates}),
        )

    def _ask(
        self,
        kind: str,
        messages: list[Message],
        schema: type[_Out],
        version: str,
        build: Callable[[_Out, Provenance], _Made],
        check: Callable[[_Made], list[str]],
        salvage: Callable[[str], _Out | None] | None = None,
        tokens: int = 1,
    ) -> _Made | None:
        """Ask, convert, validate (the client asks again once); None means: use the fallback."""
        started = time.perf_counter()
        provenance = Provenance(method=f"llm:{self.client.name}", prompt_version=version)

        def checked(out: _Out) -> list[str]:
            return check(build(out, provenance))

        try:
            answer: Structured[_Out] = self.client.structured(
                messages, schema, max_tokens=MAX_TOKENS[kind] * tokens, check=checked, salvage=salvage
            )
        except ShuError as exc:
            self.failures[f"{kind}: {exc.__class__.__name__}"] += 1
            return None
        usage = answer.result.usage
        final = provenance.model_copy(
            update={
                "seconds": round(time.perf_counter() - started, 3),
                "tokens": usage.prompt_tokens + usage.completion_tokens,
                "quality": 1.0 if answer.attempts == 1 else 0.5,
            }
        )
        self.successes[kind] += 1
        return build(answer.value, final)


def _attribute(value: str) -> str:
    return " ".join(value.split()).replace('"', "'").replace("<", "(")[:200]


def _questions_of_a_cut_off_list(text: str) -> QuestionsOut | None:
    """The complete questions of a reply cut off inside its list (`{"questions": ["…", "…", "Wh`)."""
    start = text.find("[")
    if start < 0:
        return None
    found = []
    for match in _QUOTED.finditer(text, start):
        try:
            found.append(json.loads(f'"{match.group(1)}"'))
        except json.JSONDecodeError:
            continue
    return QuestionsOut(questions=found[:40]) if found else None
